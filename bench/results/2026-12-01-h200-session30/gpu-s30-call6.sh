#!/usr/bin/env bash
# Session 30, call 6 (nvidia-h200, warm after call 5, which brought the CuTe DSL deps parts 1-6; carry
# .sglang-deps/py312-7, py312-8, .sgl-proof-nss30b, peers): the deps completed; norm_scale_shift's port
# (.sgl-proof-nss30b, proven in call 4) timed in SGLang's process against CuTe DSL and torch on wan13b,
# --no-wrapper --engine-timing --timing-only --placements 3 (every timed case's output checked).
# Back: summary.txt (printed last), nss.tar.xz.
set -uo pipefail
OUT=$(realpath "$OUT")
S=$OUT/summary.txt; : > $S
T0=$(date +%s)
scripts/gpu-sglang-deps.sh > $OUT/deps.txt 2>&1; rc=$?; echo "deps rc=$rc: $(tail -1 $OUT/deps.txt)" >> $S
DEPS=""; [ $rc -eq 0 ] && DEPS="--deps /tmp/sglang-deps/site"
L=$OUT/nss; mkdir -p $L
ENVS="SGL_PROOF=$PWD/.sgl-proof-nss30b SGL_GPU_CHECK_BUILD=/tmp/sgc-build-nss30t TVMFFI_TARGET=/tmp/tvmffi-s30-nsst TVM_FFI_CACHE_DIR=/tmp/tvmffi-cache-s30-nsst"
env OUT=$L $ENVS timeout 400 scripts/sglang-gpu-check.sh --task norm_scale_shift --no-wrapper \
  --engine-timing --timing-only --placements 3 --timing-shapes wan13b-480p $DEPS > $L/log.txt 2>&1
echo "nss timing rc=$? ($(( $(date +%s) - T0 )) s): $(grep -E 'SGLANG-GPU-CHECK' $L/log.txt | tail -1)" >> $S
grep -E '^tvm_ffi|copy bandwidth|cases timed' $L/log.txt >> $S
f=$L/engine-timing-norm_scale_shift.json
if [ -f $f ]; then
  python3 scripts/engine_table.py $f > $L/tables-nss.txt 2>&1
  python3 scripts/engine_table.py --markdown --by-shape $f > $L/tables-nss.md 2>&1
  grep -E '^[a-z_]+: NVIDIA|^ako vs|^slower|^under' $L/tables-nss.txt | cut -c1-1500 >> $S
  xz -9 $f
fi
xz -9 $L/log.txt
echo "wall $(( $(date +%s) - T0 )) s" >> $S
tar cJf $OUT/nss.tar.xz -C $OUT nss && rm -rf $L
cat $S
