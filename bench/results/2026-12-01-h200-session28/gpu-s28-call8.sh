#!/usr/bin/env bash
# Session 28, call 8 (nvidia-h200 or -x2, GPU 0; carry .sgl-proof-ln, peers): layernorm's port (.sgl-proof-ln:
# scripts/sglang-port-check.sh --task layernorm --task norm_scale_shift on this session's tree, layernorm's
# kernel and config unchanged since session 22, where its port was proven on all cases) against SGLang's
# Triton `norm_infer` and torch in one process, --placements 3 --timing-only (each timed case's output
# checked): layernorm's issue-14 count by the median of placements. The device budget left is about
# 200 s: the JSON is written after every case, so a cut run keeps what it timed.
# Back: summary.txt, ln.tar.xz.
set -uo pipefail
OUT=$(realpath "$OUT")
S=$OUT/summary.txt; : > $S
T0=$(date +%s)
L=$OUT/ln; mkdir -p $L
CUDA_VISIBLE_DEVICES=0 OUT=$L SGL_PROOF=$PWD/.sgl-proof-ln SGL_GPU_CHECK_BUILD=/tmp/sgc-build-ln TVMFFI_TARGET=/tmp/tvmffi-s28-ln \
  TVM_FFI_CACHE_DIR=/tmp/tvmffi-cache-s28-ln timeout ${LIMIT:-150} scripts/sglang-gpu-check.sh --task layernorm --no-wrapper \
  --engine-timing --timing-only --placements 3 > $L/log.txt 2>&1
echo "layernorm timing rc=$? $(( $(date +%s) - T0 ))s: $(grep -E 'SGLANG-GPU-CHECK' $L/log.txt | tail -1)" >> $S
grep -E 'copy bandwidth|cases timed|timing-only' $L/log.txt >> $S
f=$L/engine-timing-layernorm.json
if [ -f $f ]; then
  python3 scripts/engine_table.py $f > $L/tables-layernorm.txt 2>&1
  python3 scripts/engine_table.py --markdown --by-shape $f > $L/tables-layernorm.md 2>&1
  grep -E '^[a-z_]+: NVIDIA|^ako vs|^slower|^under' $L/tables-layernorm.txt | cut -c1-1500 >> $S
  xz -9 $f
fi
xz -9 $L/log.txt
tar cJf $OUT/ln.tar.xz -C $OUT ln && rm -rf $L
cat $S
