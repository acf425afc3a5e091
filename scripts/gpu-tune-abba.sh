#!/usr/bin/env bash
# On the GPU machine, from the repository root (carry bundle-x): tune some shapes of a task as
# classes of their own and measure the written config against the committed one, ABBA on the
# same machine, so that a tune's gain is seen beside run-to-run noise before it is kept.
#   OUT=DIR scripts/gpu-tune-abba.sh TASK SHAPES [more ako tune args]
#     SHAPES      comma separated, e.g. qwen-image,hunyuan-720p
#     BUDGET      per class (default 30%), TUNE_TIME (default 240 s), STRATEGY (default evolve)
# Writes under $OUT five files (the device returns at most 8 a call, $OUT/a/b/file the deepest):
# summary.txt (printed last), cases.txt (per case), config-after.json (the device's config file as
# the tune wrote it; the tree on the GPU machine is thrown away, so keep a config by copying it
# into solution/TASK/configs/ here), config.diff, and details.tar.xz holding config-before.json,
# tune.json, tune.jsonl.xz, runs/*.json (before-1, after-1, after-2, before-2: `ako run --shapes
# SHAPES`, the committed config as device BEFORE) and logs/.
set -uo pipefail
[ $# -ge 2 ] || { sed -n 2,13p "$0" >&2; exit 2; }
TASK=$1 SHAPES=$2; shift 2
cd "$(dirname "$0")/.."
OUT=${OUT:-out}
A=${A:-bundle/bin/ako}
[ "$A" != bundle/bin/ako ] || scripts/gpu-unpack-bundle.sh --if-needed >&2  # bundle-x carried and no bundle/: unpack it
[ -x "$A" ] || { echo "gpu-tune-abba: no $A; build it with scripts/make-bundle.sh and carry bundle-x/" >&2; exit 2; }
export AKO_CACHE_DIR=${AKO_CACHE_DIR:-/tmp/ako-cache}
L=$OUT/logs; mkdir -p "$L" "$OUT/runs"; S=$OUT/summary.txt; : > "$S"
date -u +%FT%TZ > "$L/start.txt"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv > "$L/smi.txt" 2>&1
DEVICE=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
C="solution/$TASK/configs"
CONFIG="$C/device_name=${DEVICE// /_}.json"
[ -f "$CONFIG" ] || { echo "gpu-tune-abba: no $CONFIG (the device's config) to measure against" >&2; exit 2; }
cp "$CONFIG" "$OUT/config-before.json"
cp "$CONFIG" "$C/device_name=BEFORE.json"
trap 'rm -f "$C/device_name=BEFORE.json"' EXIT

run() {  # $1 tag, $2 device
  local t0=$(date +%s)
  timeout 300 "$A" run task "$TASK" --shapes "$SHAPES" --device "$2" --no-progress --json "$OUT/runs/$1.json" \
    > "$L/run-$1.txt" 2>&1
  echo "run $1 rc=$? ($(( $(date +%s) - t0 )) s): $(grep -E '^CORRECT|^RUNTIME' "$L/run-$1.txt" | tr '\n' ' ')" >> "$S"
}
run before-1 BEFORE
t0=$(date +%s)
timeout $(( ${TUNE_TIME:-240} + 120 )) "$A" tune task "$TASK" --shapes "$SHAPES" --classes shape \
  --strategy "${STRATEGY:-evolve}" --budget "${BUDGET:-30%}" --time "${TUNE_TIME:-240}" --db "$OUT/tune.jsonl" \
  --json "$OUT/tune.json" --no-progress --write-config "$@" > "$L/tune.txt" 2>&1
echo "tune rc=$? ($(( $(date +%s) - t0 )) s): $(grep -E '^TUNE|^STOPPED|^drift' "$L/tune.txt" | cut -c1-300 | tr '\n' ' ')" >> "$S"
cp "$CONFIG" "$OUT/config-after.json"
diff <(python3 -m json.tool "$OUT/config-before.json") <(python3 -m json.tool "$OUT/config-after.json") > "$OUT/config.diff"
echo "config: $(grep -c '^[<>]' "$OUT/config.diff") lines changed (config.diff)" >> "$S"
run after-1 "$DEVICE"; run after-2 "$DEVICE"; run before-2 BEFORE
# Per case (cases.txt): the mean of the two after-IQMs over the mean of the two before-IQMs, and
# the noise for scale, before-2 over before-1; its two summary lines go into the summary.
python3 scripts/abba_cases.py "$OUT"/runs/{before-1,after-1,after-2,before-2}.json \
  --label "ABBA after / before" --noise-label "noise before-2 / before-1" > "$OUT/cases.txt" 2>&1
tail -n 2 "$OUT/cases.txt" >> "$S"
date -u +%FT%TZ > "$L/end.txt"
[ -f "$OUT/tune.jsonl" ] && xz -9 "$OUT/tune.jsonl"
details=(logs runs config-before.json)
for f in tune.json tune.jsonl.xz; do [ -f "$OUT/$f" ] && details+=("$f"); done
tar cJf "$OUT/details.tar.xz" -C "$OUT" "${details[@]}" && (cd "$OUT" && rm -rf "${details[@]}")
cat "$S"
