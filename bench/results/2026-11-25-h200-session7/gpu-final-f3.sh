#!/usr/bin/env bash
# Final call F3 (session 7): issue 11's timing bars with the IQM (cold run, 5 warm runs timed
# from outside, order bias 3 times), a warm run a minute after the last, then the gate baseline
# rewritten on the H200 and the gate run against it. Carry ["bundle", "peers"].
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-out}; mkdir -p "$OUT"
export AKO_CACHE_DIR=/tmp/ako-cache
S=$OUT/f3-summary.txt
OUT=$OUT/tb WARM=5 REPEAT=3 SUITE=0 scripts/gpu-timing-bars.sh > "$OUT/tb-console.txt" 2>&1
echo "timing bars rc $?" | tee -a "$S"; cat "$OUT/tb/summary.txt" >> "$S"
mkdir -p "$OUT/tbx" && tar xzf "$OUT/tb/all.tgz" -C "$OUT/tbx" ./logs/run-warm-5.json ./logs/run-warm-1.json 2>/dev/null
sleep 60
t0=$(date +%s.%N); bundle/bin/ako run task rmsnorm --no-progress --json "$OUT/run-late.json" > "$OUT/run-late.txt" 2>&1; rc=$?; t1=$(date +%s.%N)
echo "warm run a minute after warm run 5: rc $rc, $(python3 -c "print(f'{$t1 - $t0:.3f}')") s wall" | tee -a "$S"
echo "warm 5 vs a minute later: $(python3 scripts/compare_runs.py "$OUT/tbx/logs/run-warm-5.json" "$OUT/run-late.json" | head -1)" | tee -a "$S"
echo "warm 1 vs a minute later: $(python3 scripts/compare_runs.py "$OUT/tbx/logs/run-warm-1.json" "$OUT/run-late.json" | head -1)" | tee -a "$S"
cp bench/baseline.json "$OUT/baseline-before.json"
timeout 400 bundle/bin/ako gate --update-baseline --baseline bench/baseline.json > "$OUT/gate-update.txt" 2>&1
echo "gate --update-baseline rc $?: $(grep -E '^GATE' "$OUT/gate-update.txt")" | tee -a "$S"
cp bench/baseline.json "$OUT/baseline-after.json"
(cd "$OUT" && tar czf /tmp/f3.tgz --exclude=tb/all.tgz . && mv /tmp/f3.tgz all-f3.tgz)
cat "$S"
