#!/usr/bin/env bash
# On the GPU machine: is the bimodal timing of rmsnorm's wan13b-480p cases a property of the
# config? Each PARAMS set runs the bf16 noweight case with every sample logged
# (AKO_SAMPLE_LOG), then prints samples taken, median, and the share of samples above the
# midpoint of the 5th-95th percentile range (about 0.5 for two equal modes, near 0 or 1 for one).
#   OUT=out scripts/gpu-bimodal-probe.sh
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-out}; mkdir -p "$OUT"
export AKO_CACHE_DIR=${AKO_CACHE_DIR:-/tmp/ako-cache}
i=0
while read -r params; do
  i=$((i + 1)); d="$OUT/probe-$i"; mkdir -p "$d"
  args=""; for p in $params; do args="$args --param $p"; done
  AKO_SAMPLE_LOG="$d" bundle/bin/ako run task rmsnorm --shapes wan13b-480p --dtypes bf16 --no-progress --no-checks \
    $args --json "$d/run.json" > "$d/run.txt" 2>&1
  python3 - "$d" "$params" <<'PY' | tee -a "$OUT/summary.txt"
import glob, json, statistics, sys
d, params = sys.argv[1], sys.argv[2]
for f in sorted(glob.glob(d + "/case-*.json")):
    c = json.load(open(f))
    if "noweight" not in c.get("label", ""): continue
    for k in c["kernels"]:
        xs = sorted(s[0] for s in k["samples"])
        if len(xs) < 10: continue
        lo, hi = xs[len(xs) // 20], xs[-len(xs) // 20]
        mid = (lo + hi) / 2
        print(f"{params:45s} {k['role']:22s} n {len(xs):5d} median {statistics.median(xs):8.2f} p5 {lo:8.2f} p95 {hi:8.2f} above-mid {sum(x > mid for x in xs) / len(xs):.2f}")
PY
done <<'LIST'
BLOCK=128 VEC=4 ROWS_PER_BLOCK=1 CHUNKS=3
BLOCK=64 VEC=8 ROWS_PER_BLOCK=1 CHUNKS=3
BLOCK=256 VEC=2 ROWS_PER_BLOCK=1 CHUNKS=3
BLOCK=128 VEC=8 ROWS_PER_BLOCK=2 CHUNKS=3
BLOCK=256 VEC=8 ROWS_PER_BLOCK=4 CHUNKS=3
BLOCK=512 VEC=8 ROWS_PER_BLOCK=8 CHUNKS=3
BLOCK=256 VEC=4 ROWS_PER_BLOCK=2 CHUNKS=3
LIST
