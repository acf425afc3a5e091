#!/usr/bin/env bash
# Session 22, call 9 (nvidia-h200-x2; carry .sgl-proof, prepared from scripts/sglang-port-check.sh
# --task layernorm --task norm_scale_shift --task residual_gate_norm_scale_shift on this session's
# tree, then scripts/sglang-gpu-check.sh --prepare; and bundle-x: bundle-s's ako and ako-worker and
# the GPU tests rebuilt with this session's tests, each xz'd, and bundle-s's lib: the repository,
# .sgl-proof and bundle-s would pass the 64 MiB carry limit).
#  GPU 0: the three ports through SGLang 0.5.23's JIT and tvm-ffi, every case against float64, the
#         bad-input, stream and wrapper checks; then the NormScaleShift token-group GPU test (now
#         with STATS 1 forms) and RunLayernorm.OddWidths* (now with STATS 1).
#  GPU 1: the ResidualGateNormScaleShift token-group GPU test (STATS 1 forms); then layernorm's
#         port timed in one process against SGLang's Triton norm_infer and torch (--engine-timing;
#         its cases checked first), tvm-ffi in a folder of its own.
# Everything under $OUT; summary.txt printed last.
set -uo pipefail
export AKO_CACHE_DIR=/tmp/ako-cache
L=$OUT/logs; mkdir -p $L; S=$OUT/summary.txt; : > $S
date -u +%FT%TZ > $L/start.txt
nvidia-smi --query-gpu=index,name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv > $L/smi.txt
B=/tmp/bx; rm -rf $B; mkdir -p $B/bin && cp -r bundle-x/lib $B/
for b in ako ako-worker ako_gpu_tests; do xz -dc bundle-x/$b.xz > $B/bin/$b && chmod +x $B/bin/$b; done
tests() {  # gpu filter name limit
  CUDA_VISIBLE_DEVICES=$1 AKO_BIN=$B/bin/ako AKO_ROOT=$PWD LD_LIBRARY_PATH=$B/lib timeout $4 $B/bin/ako_gpu_tests --gtest_filter="$2" \
    > $L/$3-tests.log 2>&1
  echo "$3 tests rc=$?: $(grep -E '^\[  (PASSED|FAILED)  \]|^\[       OK \]|tests? from .* ran' $L/$3-tests.log | tr '\n' ' ')" >> $L/gpu$1.txt
}
half0() {
  local t1=$(date +%s)
  CUDA_VISIBLE_DEVICES=0 OUT=$OUT/port timeout 330 scripts/sglang-gpu-check.sh --task layernorm --task norm_scale_shift \
    --task residual_gate_norm_scale_shift > $L/port.txt 2>&1
  echo "port check rc=$? $(( $(date +%s) - t1 ))s: $(grep -E 'SGLANG-GPU-CHECK' $L/port.txt | tail -1)" >> $L/gpu0.txt
  tests 0 'NormScaleShift.TokenGroups*:RunLayernorm.OddWidths*' nss-ln 200
}
half1() {
  tests 1 'ResidualGateNormScaleShift.TokenGroups*' res 330
  local t1=$(date +%s)
  CUDA_VISIBLE_DEVICES=1 OUT=$OUT/timing TVMFFI_TARGET=/tmp/tvmffi-2 TVM_FFI_CACHE_DIR=/tmp/tvmffi-cache-2 timeout 200 \
    scripts/sglang-gpu-check.sh --task layernorm --no-wrapper --engine-timing > $L/timing.txt 2>&1
  echo "layernorm port + engine timing rc=$? $(( $(date +%s) - t1 ))s: $(grep -E 'SGLANG-GPU-CHECK' $L/timing.txt | tail -1)" >> $L/gpu1.txt
  grep -E '^tvm_ffi|copy bandwidth|cases timed' $L/timing.txt >> $L/gpu1.txt
}
( half0 ) & ( half1 ) & wait
date -u +%FT%TZ > $L/end.txt
echo "== GPU 0" >> $S; cat $L/gpu0.txt >> $S; echo "== GPU 1" >> $S; cat $L/gpu1.txt >> $S
if ls $OUT/timing/engine-timing-*.json > /dev/null 2>&1; then
  python3 scripts/engine_table.py $OUT/timing/engine-timing-*.json > $OUT/tables.txt 2>&1
  python3 scripts/engine_table.py --markdown $OUT/timing/engine-timing-*.json > $OUT/tables.md 2>&1
  grep -E '^[a-z_]+: NVIDIA|^ako vs|^slower|^under' $OUT/tables.txt | cut -c1-700 >> $S
  xz -9 $OUT/timing/engine-timing-*.json; mv $OUT/timing/engine-timing-*.json.xz $OUT/
fi
for d in port timing; do [ -d $OUT/$d ] && mv $OUT/$d $L/; done
tar cJf $OUT/logs.tar.xz -C $OUT logs && rm -rf $L
cat $S
