#!/usr/bin/env bash
# On the GPU machine (carry ["bundle","peers"]): a focused, longer tune of the cases a family
# is weakest on, one class per shape, then the task's run with the config written; the config
# file comes back as $OUT/<task>/config-<device>.json. TUNES lines: "<task> <shapes> <seconds>".
#   OUT=out scripts/gpu-tune-focus.sh
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-out}; mkdir -p "$OUT"
export AKO_CACHE_DIR=${AKO_CACHE_DIR:-/tmp/ako-cache}
S="$OUT/summary.txt"
while read -r task shapes secs; do
  [ -n "$task" ] || continue
  D="$OUT/$task"; mkdir -p "$D"
  bundle/bin/ako tune task "$task" --shapes "$shapes" --dtypes bf16 --classes shape --strategy evolve --budget 100% \
    --time "$secs" --trials 1 --write-config --db "$D/tune.jsonl" --json "$D/tune.json" --no-progress > "$D/tune.txt" 2>&1
  echo "$task tune ($shapes, ${secs}s) rc $?" | tee -a "$S"; grep -E "^(TUNE|wrote)" "$D/tune.txt" | tee -a "$S"
  for f in solution/"$task"/configs/device_name=*.json; do cp "$f" "$D/config-$(basename "$f" .json | cut -d= -f2).json"; done
  bundle/bin/ako run task "$task" --no-progress --json "$D/run.json" > "$D/run.txt" 2>&1
  echo "$task run rc $?" | tee -a "$S"; grep -E "^(CORRECT|SPEEDUP|BASELINE)" "$D/run.txt" | tee -a "$S"
done <<< "${TUNES:-gated_act text-512 90
rope flux1,zimage,qwen-image 90}"
(cd "$OUT" && tar -czf /tmp/focus.tgz . && mv /tmp/focus.tgz all.tgz)
