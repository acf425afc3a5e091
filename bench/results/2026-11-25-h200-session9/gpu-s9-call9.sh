#!/usr/bin/env bash
# Session 9, call 9: rope's partial-r40 class back on the params it ran with before the
# class-choice fix; rope's gate entry rewritten (d256's own class: new kernel instances), then
# the gate on every task.
set -uo pipefail
export AKO_CACHE_DIR=/tmp/ako-cache
L=$OUT/logs; mkdir -p $L; S=$OUT/summary.txt; : > $S
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv > $L/smi.txt
timeout 100 bundle/bin/ako gate --update-baseline --tasks rope --baseline bench/baseline.json > $L/gate-update-rope.txt 2>&1
echo "gate --update-baseline --tasks rope rc=$?: $(grep '^GATE' $L/gate-update-rope.txt)" >> $S
grep -E "^  FAIL" $L/gate-update-rope.txt | head >> $S
cp bench/baseline.json $OUT/baseline.json
timeout 200 bundle/bin/ako gate --baseline bench/baseline.json > $L/gate.txt 2>&1; echo "gate rc=$?: $(grep '^GATE' $L/gate.txt)" >> $S
grep -E "^  FAIL" $L/gate.txt | head -20 >> $S
cat $S
tar czf $OUT/logs.tgz -C $OUT logs && rm -rf $L
