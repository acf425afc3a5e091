#!/usr/bin/env bash
# On the GPU machine, from the repository root, with bundle/ built here by
# scripts/make-bundle.sh: tune rmsnorm exhaustively on the H100 (filling a tuning database),
# then an evolve run of its own on the GPU with a quarter of the budget, then replay random
# and evolve on the exhaustive database over several seeds (no GPU time), and print the
# comparison for bench/RESULTS.md. Logs and databases go to $OUT (default out/).
#   scripts/gpu-tune.sh                      # one shape per config class, bf16
#   SHAPES=all DTYPES=bf16,fp16 scripts/gpu-tune.sh
# Knobs: SHAPES (comma list or "all"), DTYPES, MAX_TIME (s per kernel and case), TRIALS, SEEDS.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-out}
mkdir -p "$OUT"
B=bundle/bin
[ -x $B/ako ] || { echo "gpu-tune: no bundle/bin/ako; run scripts/make-bundle.sh on the build machine and carry bundle/" >&2; exit 2; }
export AKO_CACHE_DIR=${AKO_CACHE_DIR:-/tmp/ako-cache}
SHAPES=${SHAPES:-qknorm-flux,wan13b-480p,ltx-video,flux1-single,zimage,flux2-single}
DTYPES=${DTYPES:-bf16}
MAX_TIME=${MAX_TIME:-0.02}
TRIALS=${TRIALS:-1}
SEEDS=${SEEDS:-"1 2 3 4 5"}
sel=(--dtypes "$DTYPES" --max-time "$MAX_TIME" --trials "$TRIALS" --no-progress)
rsel=(--no-progress)
[ "$SHAPES" = all ] || { sel+=(--shapes "$SHAPES"); rsel+=(--shapes "$SHAPES"); }
now() { date +%s.%N; }
secs() { python3 -c "print(f'{$2 - $1:.1f}')"; }

nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv > "$OUT/tune-device.txt" 2>&1
rm -f "$OUT/tune-exhaustive.jsonl" "$OUT/tune-evolve.jsonl"

t0=$(now)
$B/ako tune task rmsnorm --strategy exhaustive --db "$OUT/tune-exhaustive.jsonl" "${sel[@]}" > "$OUT/tune-exhaustive.txt" 2>&1
ex_rc=$?
t1=$(now)
$B/ako tune task rmsnorm --strategy evolve --budget 25% --seed 1 --db "$OUT/tune-evolve.jsonl" "${sel[@]}" > "$OUT/tune-evolve-gpu.txt" 2>&1
ev_rc=$?
t2=$(now)

for s in $SEEDS; do
  for st in evolve random; do
    $B/ako tune task rmsnorm --replay "$OUT/tune-exhaustive.jsonl" --strategy $st --budget 25% --seed $s \
      "${rsel[@]}" > "$OUT/tune-replay-$st-$s.txt" 2>&1
  done
done

{
  echo "== ako tune task rmsnorm, $(date -u +%Y-%m-%dT%H:%MZ), $(tail -1 "$OUT/tune-device.txt") =="
  echo "shapes $SHAPES, dtypes $DTYPES, max-time $MAX_TIME s, trials $TRIALS"
  echo
  echo "-- exhaustive on the GPU: rc $ex_rc, $(secs "$t0" "$t1") s wall"
  cat "$OUT/tune-exhaustive.txt"
  echo
  echo "-- evolve on the GPU (budget 25%, its own database): rc $ev_rc, $(secs "$t1" "$t2") s wall"
  grep -E "^(class|TUNE:)|^[a-z].*  [0-9]+/[0-9]+ " "$OUT/tune-evolve-gpu.txt"
  echo
  echo "-- strategies replayed on the exhaustive database (budget 25% per class): class score vs exhaustive"
  python3 - "$OUT" $SEEDS <<'PY'
import re, sys, glob
out, seeds = sys.argv[1], sys.argv[2:]
def scores(path):
    s = {}
    for line in open(path):
        m = re.match(r"^(\S+)\s+\S+\s+(\d+)/(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(.+?)\s{2,}([0-9.]+)\s", line)
        if m: s[m.group(1)] = (float(m.group(8)), int(m.group(4)), int(m.group(2)))
    return s
ex = scores(f"{out}/tune-exhaustive.txt")
print(f"{'strategy':<8} {'seed':>4} {'class':<14} {'tried':>6} {'valid':>6} {'score_us':>9} {'exh_us':>9} {'gap':>7}")
worst = {}
for st in ("evolve", "random"):
    for s in seeds:
        for c, (sc, tried, valid) in scores(f"{out}/tune-replay-{st}-{s}.txt").items():
            if c not in ex: continue
            gap = 100 * (sc / ex[c][0] - 1)
            worst[st] = max(worst.get(st, -1e9), gap)
            print(f"{st:<8} {s:>4} {c:<14} {tried:>6} {valid:>6} {sc:>9.2f} {ex[c][0]:>9.2f} {gap:>6.2f}%")
for st, g in worst.items(): print(f"worst gap of {st} over seeds and classes: {g:.2f}% (bar: evolve within 2%)")
PY
} > "$OUT/tune-summary.txt"
cat "$OUT/tune-summary.txt"
