#!/usr/bin/env bash
# Session 35, call 4 (nvidia-h200, warm after call 3, which brought the deps parts 1-6; carry .sglang-deps/py312-7,
# py312-8, bundle-x, .sgl-proof-ss35: scripts/sglang-port-check.sh --task scale_shift on this tree, then --prepare).
#  1. scale_shift's port through SGLang 0.5.23's JIT and tvm-ffi on every case (bad-input, stream, wrapper checks);
#  2. the port against SGLang's Triton kernel and torch in SGLang's process, every case at five placements
#     (--placements 5, the median round), as session 28's call 4 timed the config before.
# Back: summary.txt (printed last), logs.tar.xz, ss-timing.tar.xz.
set -uo pipefail
OUT=$(realpath "$OUT")
S=$OUT/summary.txt; : > $S
T0=$(date +%s)
scripts/gpu-sglang-deps.sh > $OUT/deps.txt 2>&1; rc=$?; echo "deps rc=$rc: $(tail -1 $OUT/deps.txt)" >> $S
DEPS=""; [ $rc -eq 0 ] && DEPS="--deps /tmp/sglang-deps/site"
L=$OUT/logs; mkdir -p $L
t1=$(date +%s)
env OUT=$L/proof SGL_PROOF=$PWD/.sgl-proof-ss35 SGL_GPU_CHECK_BUILD=/tmp/sgc-build-ss TVMFFI_TARGET=/tmp/tvmffi-s35-ss \
  TVM_FFI_CACHE_DIR=/tmp/tvmffi-cache-s35-ss timeout 200 scripts/sglang-gpu-check.sh --task scale_shift > $L/proof.txt 2>&1
echo "scale_shift proof rc=$? ($(( $(date +%s) - t1 )) s): $(grep -E 'SGLANG-GPU-CHECK' $L/proof.txt | tail -1)" >> $S
grep -E '^all [0-9]+ cases|^tvm_ffi' $L/proof.txt >> $S
T=$OUT/ss; mkdir -p $T; t1=$(date +%s)
env OUT=$T SGL_PROOF=$PWD/.sgl-proof-ss35 SGL_GPU_CHECK_BUILD=/tmp/sgc-build-sst TVMFFI_TARGET=/tmp/tvmffi-s35-sst \
  TVM_FFI_CACHE_DIR=/tmp/tvmffi-cache-s35-sst timeout $(( 585 - ($(date +%s) - T0) )) scripts/sglang-gpu-check.sh \
  --task scale_shift --no-wrapper --engine-timing --timing-only --placements 5 $DEPS > $T/log.txt 2>&1
echo "scale_shift timing rc=$? ($(( $(date +%s) - t1 )) s): $(grep -E 'SGLANG-GPU-CHECK' $T/log.txt | tail -1)" >> $S
grep -E 'copy bandwidth|cases timed' $T/log.txt >> $S
f=$T/engine-timing-scale_shift.json
if [ -f $f ]; then
  python3 scripts/engine_table.py $f > $T/tables-scale_shift.txt 2>&1
  python3 scripts/engine_table.py --markdown --by-shape $f > $T/tables-scale_shift.md 2>&1
  grep -E '^[a-z_]+: NVIDIA|^ako vs|^slower|^under' $T/tables-scale_shift.txt | cut -c1-1500 >> $S
  xz -9 $f
fi
xz -9 $T/log.txt
tar cJf $OUT/ss-timing.tar.xz -C $OUT ss && rm -rf $T
tar cJf $OUT/logs.tar.xz -C $OUT logs && rm -rf $L
echo "wall $(( $(date +%s) - T0 )) s" >> $S
cat $S
