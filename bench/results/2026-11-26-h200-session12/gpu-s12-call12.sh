#!/usr/bin/env bash
# Session 12, call 12: the two norm fusions' GPU tests on the configs as committed (after call 6's
# whole suite: the wan13b residual class removed, two text-512-cfg classes chosen again).
set -uo pipefail
export AKO_CACHE_DIR=/tmp/ako-cache
L=$OUT/logs; mkdir -p $L; S=$OUT/summary.txt; : > $S
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv > $L/smi.txt
t0=$(date +%s)
AKO_BIN=$PWD/bundle/bin/ako AKO_ROOT=$PWD timeout 560 bundle/bin/ako_gpu_tests \
  --gtest_filter='NormScaleShift.*:ResidualGateNormScaleShift.*' > $L/gpu-tests.log 2>&1
echo "norm-fusion GPU tests rc=$? ($(( $(date +%s) - t0 )) s): $(grep -E '^\[  PASSED|^\[  FAILED|tests ran' $L/gpu-tests.log | tr '\n' ' ')" >> $S
cat $S
tar czf $OUT/logs.tgz -C $OUT logs && rm -rf $L
