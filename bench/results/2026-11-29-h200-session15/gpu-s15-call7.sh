#!/usr/bin/env bash
# Session 15, call 7 (carry bundle, peers, .sgl-proof prepared from `scripts/sglang-port-check.sh
# --task qknorm --task layernorm --task scale_shift --task norm_scale_shift --task
# residual_gate_norm_scale_shift`, passed on the CPU): the five changed families as `ako port`
# wrote them into SGLang, built with SGLang's JIT flags, through tvm-ffi against the float64
# reference (scripts/sglang-gpu-check.sh); `ako run task qknorm --size-copy` for issue 15's table;
# then the GPU tests of the changed tasks as far as the time allows.
set -uo pipefail
export AKO_CACHE_DIR=/tmp/ako-cache
A=bundle/bin/ako
L=$OUT/logs; mkdir -p $L $OUT/runs; S=$OUT/summary.txt; : > $S
date -u +%FT%TZ > $L/start.txt
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv > $L/smi.txt
t1=$(date +%s)
timeout ${PORT_LIMIT:-300} scripts/sglang-gpu-check.sh --task qknorm --task layernorm --task scale_shift \
  --task norm_scale_shift --task residual_gate_norm_scale_shift > $L/port.txt 2>&1
echo "port rc=$? ($(( $(date +%s)-t1 )) s): $(grep -E 'SGLANG-GPU-CHECK|cases of' $L/port.txt | tail -6 | cut -c1-200 | tr '\n' ' ')" >> $S
t1=$(date +%s)
timeout 60 $A run task qknorm --size-copy --no-progress --json $OUT/runs/qknorm-full.json > $L/qknorm-full.txt 2>&1
echo "qknorm --size-copy rc=$? ($(( $(date +%s)-t1 )) s): $(grep -E '^CORRECT|^SIZE COPY' $L/qknorm-full.txt | tr '\n' ' ')" >> $S
python3 scripts/engine_table.py $OUT/runs/qknorm-full.json > $OUT/runs/qknorm-full-bars.txt 2>&1
t1=$(date +%s)
AKO_BIN=$PWD/bundle/bin/ako AKO_ROOT=$PWD timeout ${TEST_LIMIT:-90} bundle/bin/ako_gpu_tests \
  --gtest_filter='RunQknorm.*:RunLayernorm.*:ScaleShift.*' > $L/gpu-tests.log 2>&1
echo "gpu tests rc=$? ($(( $(date +%s)-t1 )) s): $(grep -E '^\[  PASSED|^\[  FAILED|^\[       OK' $L/gpu-tests.log | tr '\n' ' ' | cut -c1-900)" >> $S
date -u +%FT%TZ > $L/end.txt
tar cJf $OUT/call7.tar.xz -C $OUT logs runs && rm -rf $L $OUT/runs
cat $S
