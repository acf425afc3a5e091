#!/usr/bin/env bash
# On the GPU machine, from the repository root (carry bundle-x): a task's cases of one shape under several
# launch-parameter sets, each against the committed config in one mirrored order on the same GPU, so a
# set's gain is seen beside run-to-run noise: A1 X1a .. Xna Xnb .. X1b A2, where A is `ako run task TASK
# --shapes SHAPE` with the committed config and Xi the same with `--param` for every NAME=VALUE of set i
# (every case of the shape under the set; a set the static checks refuse fails its runs and is named).
#   OUT=DIR scripts/gpu-sweep-sets.sh TASK SHAPE SETS_FILE
#     SETS_FILE  one set a line: `SHAPE TAG NAME=VALUE ...` (other shapes' lines and # comments skipped),
#                as scripts/sweep_sets.py reads it; check the sets with `ako compile TASK --shapes SHAPE
#                --param ...` on the CPU first (a spilling kernel refuses the whole run)
#     SPEC       the task to run (default TASK): a task.json path, e.g. a copy with a constraint relaxed
#     A          the ako binary (default bundle/bin/ako, unpacked from bundle-x if needed)
#     WHERE      only the cases this expression holds for, in every run (`ako run --where`), e.g. "affine"
#     SOLUTION   a variant .cuh in place of the task's solution file, in every run (`ako run --solution`): the
#                sets measured on a kernel not yet committed, against the committed config on the same file
# Writes $OUT/runs/<A1|A2|TAGa|TAGb>.json and .txt, and $OUT/summary.txt (printed last): the run lines, then
# scripts/sweep_sets.py's noise line and one line per set.
set -uo pipefail
[ $# -eq 3 ] || { sed -n 2,17p "$0" >&2; exit 2; }
TASK=$1 SHAPE=$2
SETS=$(realpath -m "$3")  # named from the caller's folder, read after the cd below
cd "$(dirname "$0")/.."
OUT=${OUT:-out}
A=${A:-bundle/bin/ako}
[ "$A" != bundle/bin/ako ] || scripts/gpu-unpack-bundle.sh --if-needed >&2
[ -x "$A" ] || { echo "gpu-sweep-sets: no $A; build it with scripts/make-bundle.sh and carry bundle-x/" >&2; exit 2; }
[ -f "$SETS" ] || { echo "gpu-sweep-sets: no sets file $SETS" >&2; exit 2; }
export AKO_CACHE_DIR=${AKO_CACHE_DIR:-/tmp/ako-cache}
mkdir -p "$OUT/runs"; S=$OUT/summary.txt; : > "$S"
mapfile -t LINES < <(awk -v s="$SHAPE" '$1 == s' "$SETS")
[ ${#LINES[@]} -gt 0 ] || { echo "gpu-sweep-sets: $SETS has no set for shape $SHAPE" >&2; exit 2; }

run() {  # tag [NAME=VALUE...]
  local tag=$1; shift
  local params=(); for p in "$@"; do params+=(--param "$p"); done
  local t0=$(date +%s)
  [ -z "${WHERE:-}" ] || params+=(--where "$WHERE")
  [ -z "${SOLUTION:-}" ] || params+=(--solution "$SOLUTION")
  timeout "${RUN_TIMEOUT:-120}" "$A" run task "${SPEC:-$TASK}" --shapes "$SHAPE" --no-progress "${params[@]}" \
    --json "$OUT/runs/$tag.json" > "$OUT/runs/$tag.txt" 2>&1
  echo "run $tag rc=$? ($(( $(date +%s) - t0 )) s): $(grep -E '^CORRECT|^STATIC_CHECK: refused' "$OUT/runs/$tag.txt" | tr '\n' ' ')" >> "$S"
}
run A1
for line in "${LINES[@]}"; do set -- $line; run "${2}a" "${@:3}"; done
for ((i = ${#LINES[@]} - 1; i >= 0; i--)); do set -- ${LINES[$i]}; run "${2}b" "${@:3}"; done
run A2
python3 scripts/sweep_sets.py "$OUT/runs" "$SHAPE" "$SETS" >> "$S" 2>&1
cat "$S"
