#!/usr/bin/env bash
# Session 11, call 9: after the kernel cache's locking change (951360c: writers exclusive, loads
# shared, compile children drop inherited descriptors), the GPU tests that compile through the
# cache in several processes and threads at once (a tune with its compile children, --gpus all,
# a killed tune), a full rmsnorm run and the size copy, on the rebuilt bundle.
set -uo pipefail
export AKO_CACHE_DIR=/tmp/ako-cache
L=$OUT/logs; mkdir -p $L; S=$OUT/summary.txt; : > $S
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv > $L/smi.txt
t0=$(date +%s)
AKO_BIN=$PWD/bundle/bin/ako AKO_ROOT=$PWD timeout 150 bundle/bin/ako_gpu_tests \
  --gtest_filter='RunRmsnorm.EveryShapeAndDtypeIsCorrect:KillTune.*:MultiGpuTune.*:SizeCopy.*' \
  > $L/gpu-tests.log 2>&1
echo "tests rc=$? ($(( $(date +%s)-t0 )) s): $(grep -E '^\[  PASSED|^\[  FAILED|^\[  SKIPPED' $L/gpu-tests.log | tr '\n' ' ')" >> $S
cat $S
tar cJf $OUT/call9.tar.xz -C $OUT logs && rm -rf $L
