#!/usr/bin/env bash
# Session 10, call 8: the whole GPU suite on the session's last commit (the bundle rebuilt after
# the CLI's number checks and the tuner's partial mark; the final qknorm_rope and rope configs).
set -uo pipefail
export AKO_CACHE_DIR=/tmp/ako-cache
L=$OUT/logs; mkdir -p $L; S=$OUT/summary.txt; : > $S
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv > $L/smi.txt
git log --oneline -1 > $L/commit.txt 2>/dev/null || true
t0=$(date +%s)
AKO_BIN=$PWD/bundle/bin/ako AKO_ROOT=$PWD timeout 540 bundle/bin/ako_gpu_tests > $L/gpu-tests.log 2>&1; echo "suite rc=$? ($(( $(date +%s)-t0 )) s)" >> $S
grep -E "^\[  PASSED  \]|^\[  FAILED  \]|^\[  SKIPPED \]|tests ran" $L/gpu-tests.log >> $S
cat $S
tar czf $OUT/logs.tgz -C $OUT logs && rm -rf $L
