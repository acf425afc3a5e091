#!/usr/bin/env bash
# Session 12, call 4: the gate entries of both norm fusions rewritten on the H200 (their kernel
# instances are renamed by the TOKENS template parameter, and iteration 8's classes changed five
# case groups), then checked; the written bench/baseline.json comes back as $OUT/baseline.json.
set -uo pipefail
export AKO_CACHE_DIR=/tmp/ako-cache
L=$OUT/logs; mkdir -p $L; S=$OUT/summary.txt; : > $S
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv > $L/smi.txt
T=norm_scale_shift,residual_gate_norm_scale_shift
timeout 280 bundle/bin/ako gate --update-baseline --threshold 5 --tasks $T --baseline bench/baseline.json > $L/gate-update.txt 2>&1
echo "gate --update-baseline rc=$?: $(grep '^GATE' $L/gate-update.txt)" >> $S
cp bench/baseline.json $OUT/baseline.json
timeout 280 bundle/bin/ako gate --tasks $T --baseline bench/baseline.json > $L/gate.txt 2>&1
echo "gate rc=$?: $(grep '^GATE' $L/gate.txt)" >> $S
cat $S
tar czf $OUT/logs.tgz -C $OUT logs && rm -rf $L
