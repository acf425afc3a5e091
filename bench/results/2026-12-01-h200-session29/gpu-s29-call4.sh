#!/usr/bin/env bash
# Session 29, call 4 (nvidia-h200, warm after call 3; carry .sglang-deps/py312-7 .. py312-9, .sgl-proof-nss, peers):
# the CuTe DSL deps completed; norm_scale_shift's port (.sgl-proof-nss: session 28's CPU port check on ca5bd2c,
# proven on the GPU in session 28's call 6, configs unchanged since) against SGLang's CuTe DSL
# fused_norm_scale_shift and torch in one process, --placements 3 --timing-only (each timed case checked).
# Back: summary.txt, nss.tar.xz.
set -uo pipefail
OUT=$(realpath "$OUT")
S=$OUT/summary.txt; : > $S
T0=$(date +%s)
scripts/gpu-sglang-deps.sh > $OUT/deps.txt 2>&1; rc=$?; echo "deps rc=$rc: $(tail -1 $OUT/deps.txt)" >> $S
[ $rc -eq 0 ] || { cat $S; exit 1; }
L=$OUT/nss; mkdir -p $L
OUT=$L SGL_PROOF=$PWD/.sgl-proof-nss SGL_GPU_CHECK_BUILD=/tmp/sgc-build-nss TVMFFI_TARGET=/tmp/tvmffi-s29-nss \
  TVM_FFI_CACHE_DIR=/tmp/tvmffi-cache-s29-nss timeout 540 scripts/sglang-gpu-check.sh --task norm_scale_shift --no-wrapper \
  --engine-timing --timing-only --placements 3 --deps /tmp/sglang-deps/site > $L/log.txt 2>&1
echo "nss timing rc=$? $(( $(date +%s) - T0 ))s: $(grep -E 'SGLANG-GPU-CHECK' $L/log.txt | tail -1)" >> $S
grep -E '^tvm_ffi|copy bandwidth|cases timed|timing-only' $L/log.txt >> $S
f=$L/engine-timing-norm_scale_shift.json
if [ -f $f ]; then
  python3 scripts/engine_table.py $f > $L/tables-nss.txt 2>&1
  python3 scripts/engine_table.py --markdown --by-shape $f > $L/tables-nss.md 2>&1
  grep -E '^[a-z_]+: NVIDIA|^ako vs|^slower|^under' $L/tables-nss.txt | cut -c1-1500 >> $S
  xz -9 $f
fi
xz -9 $L/log.txt
tar cJf $OUT/nss.tar.xz -C $OUT nss && rm -rf $L
cat $S
