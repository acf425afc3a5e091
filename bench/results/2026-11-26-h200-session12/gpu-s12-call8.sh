#!/usr/bin/env bash
# Session 12, call 8: after call 7's gate caught shape-wan13b-480p-frame-mod (6 of its 16 cases
# 4-11% slower: affine ones the A/B of call 5 had shown slower too), that class removed. The
# residual fusion's gate entry rewritten, then every task's gate checked; then rope alone again
# (call 7's full gate found 11 of its 2 µs cases 3.0-3.4% slower than the entry, code unchanged).
set -uo pipefail
export AKO_CACHE_DIR=/tmp/ako-cache
L=$OUT/logs; mkdir -p $L; S=$OUT/summary.txt; : > $S
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv > $L/smi.txt
start=$(date +%s)
timeout 200 bundle/bin/ako gate --update-baseline --threshold 5 --tasks residual_gate_norm_scale_shift \
  --baseline bench/baseline.json > $L/gate-update.txt 2>&1
echo "gate --update-baseline residual rc=$? $(( $(date +%s) - start ))s: $(grep '^GATE' $L/gate-update.txt)" >> $S
cp bench/baseline.json $OUT/baseline.json
timeout 250 bundle/bin/ako gate --baseline bench/baseline.json > $L/gate-all.txt 2>&1
echo "gate (every task) rc=$? $(( $(date +%s) - start ))s: $(grep '^GATE' $L/gate-all.txt)" >> $S
grep -E "^\s+FAIL " $L/gate-all.txt | cut -c1-200 >> $S
timeout 100 bundle/bin/ako gate --tasks rope --baseline bench/baseline.json > $L/gate-rope.txt 2>&1
echo "gate rope again rc=$? $(( $(date +%s) - start ))s: $(grep '^GATE' $L/gate-rope.txt)" >> $S
cat $S
tar czf $OUT/logs.tgz -C $OUT logs && rm -rf $L
