#!/usr/bin/env bash
# On the GPU machine (carry ["bundle","peers"]): the warm-run bar of `ako run task rmsnorm`:
# one cold run, then WARM (default 3) warm runs timed from outside, each line with the validate
# phase and the precision check's seconds by step (scripts/precision_split.py). Logs in $OUT.
#   OUT=out [WARM=3] scripts/gpu-warm-rmsnorm.sh
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-out}; mkdir -p "$OUT"
B=bundle/bin; S="$OUT/summary.txt"
export AKO_CACHE_DIR=${AKO_CACHE_DIR:-/tmp/ako-cache}
$B/ako run task rmsnorm --no-progress --json "$OUT/rms-cold.json" > "$OUT/rms-cold.txt" 2>&1
for i in $(seq 1 "${WARM:-3}"); do
  t0=$(date +%s.%N); $B/ako run task rmsnorm --no-progress --json "$OUT/rms-warm-$i.json" > "$OUT/rms-warm-$i.txt" 2>&1; rc=$?
  t1=$(date +%s.%N)
  echo "warm rmsnorm $i: rc $rc $(python3 -c "print(f'{$t1-$t0:.3f}')") s; validate $(python3 -c "import json;print(round(json.load(open('$OUT/rms-warm-$i.json'))['phases']['validate_s'],3))") s; precision $(python3 scripts/precision_split.py "$OUT/rms-warm-$i.json")" | tee -a "$S"
done
grep -E "^(CORRECT|SPEEDUP|BASELINE)" "$OUT/rms-warm-1.txt" | tee -a "$S"
