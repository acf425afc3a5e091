#!/usr/bin/env bash
# Final call F5 (session 7): the timing bars again after the stopping rule's mixing floor
# (cold run, 5 warm runs, order bias twice, a warm run a minute later), the gate against the
# committed H200 entry, and the timing GPU tests. Carry ["bundle", "peers"].
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-out}; mkdir -p "$OUT"
export AKO_CACHE_DIR=/tmp/ako-cache AKO_BIN=$PWD/bundle/bin/ako AKO_ROOT=$PWD
S=$OUT/f5-summary.txt
OUT=$OUT/tb WARM=5 REPEAT=2 SUITE=0 scripts/gpu-timing-bars.sh > "$OUT/tb-console.txt" 2>&1
echo "timing bars rc $?" | tee -a "$S"; cat "$OUT/tb/summary.txt" >> "$S"
mkdir -p "$OUT/tbx" && tar xzf "$OUT/tb/all.tgz" -C "$OUT/tbx" ./logs/run-warm-5.json ./logs/run-warm-1.json 2>/dev/null
sleep 60
t0=$(date +%s.%N); bundle/bin/ako run task rmsnorm --no-progress --json "$OUT/run-late.json" > "$OUT/run-late.txt" 2>&1; rc=$?; t1=$(date +%s.%N)
echo "warm run a minute after warm run 5: rc $rc, $(python3 -c "print(f'{$t1 - $t0:.3f}')") s wall" | tee -a "$S"
echo "warm 5 vs a minute later: $(python3 scripts/compare_runs.py "$OUT/tbx/logs/run-warm-5.json" "$OUT/run-late.json" | head -1)" | tee -a "$S"
echo "warm 1 vs a minute later: $(python3 scripts/compare_runs.py "$OUT/tbx/logs/run-warm-1.json" "$OUT/run-late.json" | head -1)" | tee -a "$S"
timeout 200 bundle/bin/ako gate --baseline bench/baseline.json > "$OUT/gate.txt" 2>&1
echo "gate rc $?: $(grep -E '^GATE' "$OUT/gate.txt")" | tee -a "$S"
timeout 200 bundle/bin/ako_gpu_tests --gtest_filter='RunRmsnorm.*:InterleavedTiming.*:Timer*.*:Cupti*.*' > "$OUT/gpu-tests.log" 2>&1
echo "GPU tests (timing) rc $? $(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' "$OUT/gpu-tests.log" | tr '\n' ' ')" | tee -a "$S"
grep -E '^\[  FAILED  \] [A-Za-z]' "$OUT/gpu-tests.log" | sort -u | tee -a "$S"
(cd "$OUT" && tar czf /tmp/f5.tgz --exclude=tb/all.tgz . && mv /tmp/f5.tgz all-f5.tgz)
cat "$S"
