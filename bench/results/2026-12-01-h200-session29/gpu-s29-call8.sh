#!/usr/bin/env bash
# Session 29, call 8 (nvidia-h200, warm after call 7; carry .sglang-deps/py312-7 .. py312-9, .sgl-proof-nss29, peers):
# the CuTe DSL deps completed; norm_scale_shift's port with the two TOKENS 2 classes (.sgl-proof-nss29: the CPU
# port check on this session's tree, port-check-cpu-nss.txt) proven through SGLang 0.5.23's JIT and tvm-ffi
# on every case (the bad-input, stream and wrapper checks too); then, --timing-only --no-wrapper, its wan13b
# cases timed in that process against CuTe DSL and torch at three placements.
# Back: summary.txt, nss.tar.xz.
set -uo pipefail
OUT=$(realpath "$OUT")
S=$OUT/summary.txt; : > $S
T0=$(date +%s)
scripts/gpu-sglang-deps.sh > $OUT/deps.txt 2>&1; rc=$?; echo "deps rc=$rc: $(tail -1 $OUT/deps.txt)" >> $S
DEPS=""; [ $rc -eq 0 ] && DEPS="--deps /tmp/sglang-deps/site"
L=$OUT/nss; mkdir -p $L
ENVS="SGL_PROOF=$PWD/.sgl-proof-nss29 SGL_GPU_CHECK_BUILD=/tmp/sgc-build-nss29 TVMFFI_TARGET=/tmp/tvmffi-s29-nss TVM_FFI_CACHE_DIR=/tmp/tvmffi-cache-s29-nss29"
env OUT=$L/port $ENVS timeout 400 scripts/sglang-gpu-check.sh --task norm_scale_shift > $L/port.txt 2>&1
echo "nss proof rc=$? $(( $(date +%s) - T0 ))s: $(grep -E 'SGLANG-GPU-CHECK' $L/port.txt | tail -1)" >> $S
grep -E '^all [0-9]+ cases|^tvm_ffi' $L/port.txt >> $S
env OUT=$L $ENVS timeout $(( 570 - ($(date +%s) - T0) )) scripts/sglang-gpu-check.sh --task norm_scale_shift --no-wrapper \
  --engine-timing --timing-only --placements 3 --timing-shapes wan13b-480p $DEPS > $L/log.txt 2>&1
echo "nss timing rc=$? $(( $(date +%s) - T0 ))s: $(grep -E 'SGLANG-GPU-CHECK' $L/log.txt | tail -1)" >> $S
grep -E '^tvm_ffi|copy bandwidth|cases timed' $L/log.txt >> $S
f=$L/engine-timing-norm_scale_shift.json
if [ -f $f ]; then
  python3 scripts/engine_table.py $f > $L/tables-nss.txt 2>&1
  python3 scripts/engine_table.py --markdown --by-shape $f > $L/tables-nss.md 2>&1
  grep -E '^[a-z_]+: NVIDIA|^ako vs|^slower|^under' $L/tables-nss.txt | cut -c1-1500 >> $S
  xz -9 $f
fi
xz -9 $L/log.txt $L/port.txt
tar cJf $OUT/nss.tar.xz -C $OUT nss && rm -rf $L
cat $S
