#!/usr/bin/env bash
# Session 9, call 1: the whole GPU suite on main (never run on a GPU since the --gpus/tune split,
# the shared global-as-device adapters and the MPI heartbeat), then the gate.
set -uo pipefail
export AKO_CACHE_DIR=/tmp/ako-cache
L=$OUT/logs; mkdir -p $L
S=$OUT/summary.txt
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv > $L/smi.txt
git log --oneline -1 > $L/commit.txt 2>/dev/null || true
t0=$(date +%s)
AKO_BIN=$PWD/bundle/bin/ako AKO_ROOT=$PWD timeout 420 bundle/bin/ako_gpu_tests > $L/gpu-tests.log 2>&1; echo "suite rc=$? ($(( $(date +%s)-t0 )) s)" >> $S
grep -E "^\[  PASSED  \]|^\[  FAILED  \]|^\[  SKIPPED \]|tests ran" $L/gpu-tests.log >> $S
t0=$(date +%s)
timeout 150 bundle/bin/ako gate --baseline bench/baseline.json > $L/gate.txt 2>&1; echo "gate rc=$? ($(( $(date +%s)-t0 )) s)" >> $S
grep -E "^  FAIL|^GATE" $L/gate.txt | head -20 >> $S
cat $S
tar czf $OUT/logs.tgz -C $OUT logs && rm -rf $L
