#!/usr/bin/env bash
# Session 9, call 8: main after the class-choice fix (fd05072): the gate on every task, then the
# whole GPU suite.
set -uo pipefail
export AKO_CACHE_DIR=/tmp/ako-cache
L=$OUT/logs; mkdir -p $L; S=$OUT/summary.txt; : > $S
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv > $L/smi.txt
t0=$(date +%s)
timeout 150 bundle/bin/ako gate --baseline bench/baseline.json > $L/gate.txt 2>&1; echo "gate rc=$? ($(( $(date +%s)-t0 )) s)" >> $S
grep -E "^  FAIL|^GATE" $L/gate.txt | head -20 >> $S
t0=$(date +%s)
AKO_BIN=$PWD/bundle/bin/ako AKO_ROOT=$PWD timeout 480 bundle/bin/ako_gpu_tests > $L/gpu-tests.log 2>&1; echo "suite rc=$? ($(( $(date +%s)-t0 )) s)" >> $S
grep -E "^\[  PASSED  \]|^\[  FAILED  \]|tests ran" $L/gpu-tests.log >> $S
echo "tests ok: $(grep -c '^\[       OK \]' $L/gpu-tests.log)" >> $S
cat $S
tar czf $OUT/logs.tgz -C $OUT logs && rm -rf $L
