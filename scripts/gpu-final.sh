#!/usr/bin/env bash
# On the GPU machine (carry ["bundle","peers"]): the checks of one session in one call, logs in
# $OUT: the whole GPU test suite (the iterate test keeps its `ako report`, AKO_REPORT_OUT), three
# warm `ako run task rmsnorm` timed from outside, and `ako run task layernorm`.
#   OUT=out [FILTER=<gtest filter>] scripts/gpu-final.sh
# FILTER limits the GPU tests (default: all of them). Each warm run's line adds the precision
# check's seconds by step, summed over the cases (check_parts_s in the run JSON).
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-out}; mkdir -p "$OUT"
B=bundle/bin; S="$OUT/summary.txt"
export AKO_CACHE_DIR=${AKO_CACHE_DIR:-/tmp/ako-cache} AKO_BIN=$PWD/$B/ako AKO_ROOT=$PWD
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader >> "$S"
OUT="$OUT" WARM=3 scripts/gpu-warm-rmsnorm.sh   # the cold run, three warm runs, their lines in $S
$B/ako run task layernorm --no-progress --json "$OUT/layernorm-run.json" > "$OUT/layernorm-run.txt" 2>&1
echo "layernorm run rc $?; precision $(python3 scripts/precision_split.py "$OUT/layernorm-run.json")" | tee -a "$S"; grep -E "^(config|CORRECT|SPEEDUP|BASELINE)" "$OUT/layernorm-run.txt" | tee -a "$S"
AKO_REPORT_OUT=$OUT/report $B/ako_gpu_tests --gtest_filter="${FILTER:-*}" --gtest_output="json:$OUT/gpu-tests.json" > "$OUT/gpu-tests.log" 2>&1
echo "GPU tests rc $? $(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' "$OUT/gpu-tests.log" | tr '\n' ' ')" | tee -a "$S"
grep -E '^\[  FAILED  \] [A-Za-z]' "$OUT/gpu-tests.log" | sort -u | tee -a "$S"
(cd "$OUT" && tar -czf /tmp/final.tgz --exclude=summary.txt . && mv /tmp/final.tgz all.tgz)
cat "$S"
