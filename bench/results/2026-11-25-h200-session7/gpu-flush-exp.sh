#!/usr/bin/env bash
# Experiment (session 7): does the flush's size or pattern decide wan13b's two modes? bundle-exp
# (branch exp-flush: AKO_EXP_FLUSH_MULT, AKO_EXP_FLUSH_CONST). Carry ["bundle-exp", "peers"].
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-out}; D=$OUT/fx; mkdir -p "$D"
export AKO_CACHE_DIR=/tmp/ako-cache
A=bundle-exp/bin/ako
$A run task rmsnorm --shapes wan13b-480p --dtypes bf16 --no-checks --no-progress > /dev/null 2>&1   # compile once
for setting in "2 0" "2 1" "4 0" "1 0" "8 0" "2 0 read" "2 0"; do
  set -- $setting; m=$1; c=$2; extra=""; tag="m$m-c$c"; [ "${3:-}" = read ] && { extra="--l2-flush read"; tag="read"; }
  for r in 1 2; do
    d="$D/$tag-r$r"; [ -d "$d" ] && d="$D/$tag-again-r$r"; mkdir -p "$d"
    AKO_EXP_FLUSH_MULT=$m AKO_EXP_FLUSH_CONST=$c AKO_SAMPLE_LOG="$d" $A run task rmsnorm --shapes wan13b-480p --dtypes bf16 \
      --no-checks --no-progress $extra --json "$d/run.json" > "$d/run.txt" 2>&1
    python3 - "$d" "$(basename "$d")" <<'PY' | tee -a "$D/summary.txt"
import glob, json, sys
d, tag = sys.argv[1], sys.argv[2]
def iqm(xs):
    s = sorted(xs); n = len(s); g = n // 4; core = s[g:n - g]; return sum(core) / len(core)
for f in sorted(glob.glob(d + "/case-*.json")):
    c = json.load(open(f))
    for k in c["kernels"]:
        if k["role"] == "reference": continue
        xs = [s[0] for s in k["samples"]]
        if len(xs) < 10: continue
        s = sorted(xs); lo, hi = s[len(s) // 20], s[-len(s) // 20 - 1]; mid = (lo + hi) / 2
        print(f"{tag:16s} {c.get('label','')[:30]:30s} {k['role'][:18]:18s} n {len(xs):5d} iqm {iqm(xs):8.2f} p5 {lo:7.2f} p95 {hi:7.2f} above-mid {sum(x > mid for x in xs) / len(xs):.2f}")
PY
  done
done
(cd "$OUT" && tar czf all.tgz fx/summary.txt)
cat "$D/summary.txt"
