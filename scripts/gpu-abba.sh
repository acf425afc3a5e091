#!/usr/bin/env bash
# On the GPU machine, from the repository root (carry bundle-x): one change measured beside run-to-run noise, the
# way most device calls of sessions 28-35 did it by hand: `ako run task TASK` four times, A1 B1 B2 A2, where A and
# B differ by their config file, their solution file, or both; then scripts/abba_cases.py per case.
#   OUT=DIR scripts/gpu-abba.sh TASK [ako run args ...]      e.g. --shapes wan13b-480p --where affine --size-copy
#     A_CONFIG / B_CONFIG      a config file for the A / B runs (each copied to solution/TASK/configs/
#                              device_name=ABBA_A.json / ABBA_B.json, run with --device ABBA_A / ABBA_B, removed at
#                              exit); without one a side runs the GPU's own config
#     A_SOLUTION / B_SOLUTION  a .cuh for the A / B runs (`ako run --solution`); without one, the task's file
#     LABEL                    the per-case ratio's name in the summary (default "B / A")
#     A                        the ako binary (default bundle/bin/ako, unpacked from bundle-x if needed)
#     RUN_TIMEOUT              seconds a run may take (default 300)
#     ROOT                     the workspace the runs use (default: this repository); TASK, a name or a task.json
#                              path, is read from there
# Writes $OUT/runs/{A1,B1,B2,A2}.json and .txt, $OUT/cases.txt (one line a case: B over A, the mean of each side's
# two IQMs, and the noise A2 / A1) and $OUT/summary.txt (printed last: the runs' verdicts and the two summary lines).
# Exit 0 when all four runs wrote their results, 1 otherwise, 2 on a usage error.
set -uo pipefail
[ $# -ge 1 ] || { sed -n 2,17p "$0" >&2; exit 2; }
TASK=$1; shift
for f in "${A_CONFIG:-}" "${B_CONFIG:-}" "${A_SOLUTION:-}" "${B_SOLUTION:-}"; do
  [ -z "$f" ] || [ -f "$f" ] || { echo "gpu-abba: no file $f" >&2; exit 2; }
done
# Config files are copied by absolute path before the cd: they may be named from the caller's folder.
A_CONFIG=${A_CONFIG:+$(realpath "$A_CONFIG")} B_CONFIG=${B_CONFIG:+$(realpath "$B_CONFIG")}
A_SOLUTION=${A_SOLUTION:+$(realpath "$A_SOLUTION")} B_SOLUTION=${B_SOLUTION:+$(realpath "$B_SOLUTION")}
OUT=$(realpath -m "${OUT:-out}")
SCRIPTS=$(cd "$(dirname "$0")" && pwd)
cd "${ROOT:-$SCRIPTS/..}" || exit 2
A=${A:-bundle/bin/ako}
[ "$A" != bundle/bin/ako ] || "$SCRIPTS/gpu-unpack-bundle.sh" --if-needed >&2
[ -x "$A" ] || { echo "gpu-abba: no $A; build it with scripts/make-bundle.sh and carry bundle-x/" >&2; exit 2; }
export AKO_CACHE_DIR=${AKO_CACHE_DIR:-/tmp/ako-cache}
SPEC_FILE=tasks/$TASK/task.json; [ -f "$TASK" ] && SPEC_FILE=$TASK  # a name, or a task.json path
# Where the task's config files live (its solution.config), for the A / B config copies.
CONFIGS=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["solution"]["config"])' "$SPEC_FILE" 2>/dev/null) \
  || { echo "gpu-abba: cannot read solution.config from $SPEC_FILE" >&2; exit 2; }
mkdir -p "$OUT/runs"; S=$OUT/summary.txt; : > "$S"
cleanup() { rm -f "$CONFIGS/device_name=ABBA_A.json" "$CONFIGS/device_name=ABBA_B.json"; }
trap cleanup EXIT
side_args() {  # A or B: the --device / --solution that side runs with
  local config solution
  if [ "$1" = A ]; then config=${A_CONFIG:-} solution=${A_SOLUTION:-}; else config=${B_CONFIG:-} solution=${B_SOLUTION:-}; fi
  if [ -n "$config" ]; then
    mkdir -p "$CONFIGS" && cp "$config" "$CONFIGS/device_name=ABBA_$1.json" && printf '%s\n' --device "ABBA_$1"
  fi
  [ -z "$solution" ] || printf '%s\n' --solution "$solution"
}
missing=0
for tag in A1 B1 B2 A2; do
  mapfile -t side < <(side_args "${tag:0:1}")
  t0=$(date +%s)
  timeout "${RUN_TIMEOUT:-300}" "$A" run task "$TASK" --no-progress "${side[@]}" "$@" --json "$OUT/runs/$tag.json" \
    > "$OUT/runs/$tag.txt" 2>&1
  echo "run $tag rc=$? ($(( $(date +%s) - t0 )) s): $(grep -E '^CORRECT|^STATIC_CHECK: refused' "$OUT/runs/$tag.txt" | tr '\n' ' ')" >> "$S"
  [ -f "$OUT/runs/$tag.json" ] || missing=1
done
python3 "$SCRIPTS/abba_cases.py" "$OUT"/runs/{A1,B1,B2,A2}.json --label "${LABEL:-B / A}" > "$OUT/cases.txt" 2>&1
tail -n 2 "$OUT/cases.txt" >> "$S"
cat "$S"
exit $missing
