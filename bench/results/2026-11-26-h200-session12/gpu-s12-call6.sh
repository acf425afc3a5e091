#!/usr/bin/env bash
# Session 12, call 6: the whole GPU suite on this session's tree (TOKENS, the hand classes of
# iterations 8 and 9, the token-group tests): `bundle/bin/ako_gpu_tests`, one command.
set -uo pipefail
export AKO_CACHE_DIR=/tmp/ako-cache
L=$OUT/logs; mkdir -p $L; S=$OUT/summary.txt; : > $S
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv > $L/smi.txt
t0=$(date +%s)
AKO_BIN=$PWD/bundle/bin/ako AKO_ROOT=$PWD timeout 570 bundle/bin/ako_gpu_tests > $L/gpu-tests.log 2>&1
echo "GPU suite rc=$? ($(( $(date +%s) - t0 )) s): $(grep -E '^\[  PASSED|^\[  FAILED|tests ran' $L/gpu-tests.log | tr '\n' ' ')" >> $S
grep -E "^\[  FAILED  \]" $L/gpu-tests.log >> $S
cat $S
tar czf $OUT/logs.tgz -C $OUT logs && rm -rf $L
