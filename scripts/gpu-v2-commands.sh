#!/usr/bin/env bash
# On the GPU machine, from the repository root, with bundle/ built by scripts/make-bundle.sh:
# every command a new family needs, run on the capability tasks of tests/tasks/ (format v2,
# issue 12): tune writes the H200's config, run picks it up, gate records a baseline entry
# and then passes against it. Logs under $OUT/v2 (default out/v2); a short table last.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-out}
L="$OUT/v2"
mkdir -p "$L"
B=$PWD/bundle/bin
W=tests/tasks
export AKO_CACHE_DIR=${AKO_CACHE_DIR:-/tmp/ako-cache}
rows=()
step() {  # name, command...
  local name=$1; shift
  "$@" > "$L/$name.txt" 2>&1
  local rc=$?
  rows+=("$(printf '%-28s rc %s  %s' "$name" "$rc" "$(grep -E '^(CORRECT|GATE|TUNE|BEST|config):' "$L/$name.txt" | head -2 | tr '\n' ' ')")")
}
for t in modulate qk_view; do
  step "tune-$t" "$B/ako" tune task $t --root $W --classes shape --write-config --db "$L/$t.jsonl" --json "$L/tune-$t.json"
  step "run-$t" "$B/ako" run task $t --root $W --json "$L/run-$t.json"
done
step gate-update "$B/ako" gate --root $W --tasks modulate,qk_view --baseline "$L/baseline.json" --update-baseline
step gate-check "$B/ako" gate --root $W --tasks modulate,qk_view --baseline "$L/baseline.json" --json "$L/gate.json"
for t in modulate qk_view; do cp $W/solution/$t/configs/device_name=*.json "$L/config-$t.json" 2>/dev/null; done
printf '%s\n' "${rows[@]}" | tee "$L/summary.txt"
