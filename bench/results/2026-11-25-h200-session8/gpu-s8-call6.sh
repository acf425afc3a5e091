#!/usr/bin/env bash
# Session 8, call 6: the pass-agreement rule at the committed target (AKO_EXP_AGREE=1) against
# half of it (0.5) and against one pass (bundle-exp, main at a416acf); full rmsnorm warm runs
# and wan13b runs, alternating; run-to-run pairs over 1%.
set -uo pipefail
export AKO_CACHE_DIR=/tmp/ako-cache
L=$OUT/logs; mkdir -p $L
bundle-tight/bin/ako run task rmsnorm --no-progress > $L/warm-a.txt 2>&1
bundle-exp/bin/ako run task rmsnorm --no-progress > $L/warm-b.txt 2>&1
v() { case $1 in agree1) echo "env AKO_EXP_AGREE=1 bundle-tight/bin/ako";; agree05) echo "env AKO_EXP_AGREE=0.5 bundle-tight/bin/ako";; onepass) echo "bundle-exp/bin/ako";; esac; }
for i in 1 2 3 4; do
  for k in agree1 agree05 onepass; do
    s=$(date +%s.%N); $(v $k) run task rmsnorm --no-progress --json $L/full-$k-$i.json > /dev/null 2>&1; e=$(date +%s.%N)
    echo "$k $i $(python3 -c "print(f'{$e-$s:.3f}')")" >> $OUT/walls.txt
  done
done
for i in 1 2 3 4 5 6; do
  for k in agree1 agree05 onepass; do
    $(v $k) run task rmsnorm --shapes wan13b-480p --no-checks --no-progress --json $L/wan-$k-$i.json > /dev/null 2>&1
  done
done
python3 - <<'PY' > $OUT/summary.txt
import json, os, itertools, collections
L = os.path.join(os.environ["OUT"], "logs")
def load(f):
    j = json.load(open(f)); out = {}
    for c in j["cases"]:
        if c["kind"] != "compare": continue
        k = (c["shape"], c["dtype"], "w" if c["flags"].get("weight") else "nw")
        out[k + ("sol",)] = (c["solution_time"]["iqm_us"], c["solution_time"]["samples"], c["solution_time"]["stable"])
        for b in c.get("baselines", []):
            if isinstance(b.get("time"), dict): out[k + (b["name"][:5],)] = (b["time"]["iqm_us"], b["time"]["samples"], b["time"]["stable"])
    return out
for prefix, runs in [("full", 4), ("wan", 6)]:
    print(f"== {prefix}: pairs of runs more than 1% apart (solution / baselines), worst pair, total samples, unstable")
    for k in ["agree1", "agree05", "onepass"]:
        rs = []
        for i in range(1, runs + 1):
            try: rs.append(load(f"{L}/{prefix}-{k}-{i}.json"))
            except Exception as e: print(k, i, "missing", e)
        keys = set(rs[0])
        bad_s = bad_b = tot_s = tot_b = 0; worst = (0, None); samples = unstable = 0
        for key in keys:
            vals = [r[key][0] for r in rs if key in r]
            for a, b in itertools.combinations(vals, 2):
                d = abs(a / b - 1)
                if key[-1] == "sol": tot_s += 1; bad_s += d > 0.01
                else: tot_b += 1; bad_b += d > 0.01
                if d > worst[0]: worst = (d, key)
        for r in rs:
            for v in r.values(): samples += v[1]; unstable += not v[2]
        print(f"  {k:8} solution {bad_s}/{tot_s}  baselines {bad_b}/{tot_b}  worst {100*worst[0]:.2f}% {worst[1]}  samples/run {samples//len(rs)}  unstable {unstable}")
PY
awk '{w[$1]=w[$1]" "$3} END {for (k in w) print "wall", k, w[k]}' $OUT/walls.txt >> $OUT/summary.txt
cat $OUT/summary.txt
tar czf $OUT/logs.tgz -C $OUT logs && rm -rf $L
