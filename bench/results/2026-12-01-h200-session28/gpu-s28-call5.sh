#!/usr/bin/env bash
# Session 28, call 5 (nvidia-h200, warm after call 4: the CuTe DSL deps unpacked, the port's modules
# built; carry .sgl-proof, peers): the residual fusion's port (proven in call 4) against SGLang's CuTe
# DSL kernel and torch in one process, --placements 3 --timing-only (each case in three rounds, every
# tensor elsewhere each round, the median round reported; each timed case's output checked).
# Back: summary.txt, timing.tar.xz, log.txt.xz.
set -uo pipefail
OUT=$(realpath "$OUT")
S=$OUT/summary.txt; : > $S
T0=$(date +%s)
scripts/gpu-sglang-deps.sh > $OUT/deps.txt 2>&1; rc=$?; echo "deps rc=$rc: $(tail -1 $OUT/deps.txt)" >> $S
DEPS=""; [ $rc -eq 0 ] && DEPS="--deps /tmp/sglang-deps/site"
L=$OUT/timing; mkdir -p $L
OUT=$L SGL_PROOF=$PWD/.sgl-proof SGL_GPU_CHECK_BUILD=/tmp/sgc-build-port TVMFFI_TARGET=/tmp/tvmffi-s28-timing \
  TVM_FFI_CACHE_DIR=/tmp/tvmffi-cache-s28-timing timeout $(( 580 - ($(date +%s) - T0) )) scripts/sglang-gpu-check.sh \
  --task residual_gate_norm_scale_shift --no-wrapper --engine-timing --timing-only --placements 3 $DEPS > $OUT/log.txt 2>&1
echo "timing rc=$? $(( $(date +%s) - T0 ))s: $(grep -E 'SGLANG-GPU-CHECK' $OUT/log.txt | tail -1)" >> $S
grep -E '^tvm_ffi|copy bandwidth|cases timed|timing-only' $OUT/log.txt >> $S
f=$L/engine-timing-residual_gate_norm_scale_shift.json
if [ -f $f ]; then
  python3 scripts/engine_table.py $f > $L/tables-residual.txt 2>&1
  python3 scripts/engine_table.py --markdown --by-shape $f > $L/tables-residual.md 2>&1
  grep -E '^[a-z_]+: NVIDIA|^ako vs|^slower|^under' $L/tables-residual.txt | cut -c1-900 >> $S
  xz -9 $f
fi
xz -9 $OUT/log.txt
tar cJf $OUT/timing.tar.xz -C $OUT timing && rm -rf $L
cat $S
