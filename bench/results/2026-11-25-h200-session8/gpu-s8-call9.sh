#!/usr/bin/env bash
# Session 8, call 9: the pass floors halved (10 samples, 32 or 15 ms per pass): warm wall and
# order bias (timing bars), the two-mode test x3, 6 wan13b runs (pairs over 1%), the gate.
set -uo pipefail
export AKO_CACHE_DIR=/tmp/ako-cache
L=$OUT/logs; mkdir -p $L
OUT=$OUT/bars WARM=5 REPEAT=2 SUITE=0 scripts/gpu-timing-bars.sh > $L/bars.txt 2>&1
cp $OUT/bars/summary.txt $OUT/bars-summary.txt
for i in 1 2 3 4 5 6; do bundle/bin/ako run task rmsnorm --shapes wan13b-480p --no-checks --no-progress --json $L/wan-$i.json > /dev/null 2>&1; done
python3 - <<'PY' > $OUT/summary.txt
import json, os, itertools, collections
L = os.path.join(os.environ["OUT"], "logs")
by = collections.defaultdict(list)
for i in range(1, 7):
    j = json.load(open(f"{L}/wan-{i}.json"))
    for c in j["cases"]:
        if c["kind"] != "compare": continue
        lab = f"{c['dtype']} {'w' if c['flags'].get('weight') else 'nw'}"
        by[lab + " sol"].append((c["solution_time"]["iqm_us"], c["solution_time"]["samples"]))
        for b in c.get("baselines", []):
            if isinstance(b.get("time"), dict): by[lab + " " + b["name"][:5]].append((b["time"]["iqm_us"], b["time"]["samples"]))
print("wan13b, 6 runs: pairs over 1%, widest, samples")
for lab, v in sorted(by.items()):
    x = [a for a, _ in v]; n = [b for _, b in v]
    pairs = list(itertools.combinations(x, 2))
    print(f"  {lab:16} {sum(abs(a/b-1) > 0.01 for a, b in pairs)}/{len(pairs)}  widest {100*(max(x)/min(x)-1):.2f}%  n {min(n)}-{max(n)}")
PY
AKO_BIN=$PWD/bundle/bin/ako AKO_ROOT=$PWD bundle/bin/ako_gpu_tests --gtest_filter='RunRmsnorm.TwoModeShapes*' --gtest_repeat=3 > $L/two-mode.txt 2>&1
echo "two-mode test x3: $(grep -c '^\[       OK \]' $L/two-mode.txt) ok, $(grep -c '^\[  FAILED  \] RunRmsnorm' $L/two-mode.txt) failed" >> $OUT/summary.txt
bundle/bin/ako gate --baseline bench/baseline.json > $L/gate.txt 2>&1; echo "gate rc=$? $(grep '^GATE' $L/gate.txt)" >> $OUT/summary.txt
grep -E "^  FAIL" $L/gate.txt | head >> $OUT/summary.txt
grep -E "warm run|run-to-run|order-bias" $OUT/bars-summary.txt | cut -c1-200
cat $OUT/summary.txt
tar czf $OUT/logs.tgz -C $OUT logs && rm -rf $L
