#!/usr/bin/env bash
# Session 8, call 4: two sampling passes (bundle/, main + the change) against one pass
# (bundle-exp/: main before it): 10 runs of wan13b each, alternating; the two-mode test 3 times;
# then the timing bars (order bias, warm wall) and the gate.
set -uo pipefail
export AKO_CACHE_DIR=/tmp/ako-cache
L=$OUT/logs; mkdir -p $L
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv > $L/smi.txt
bundle/bin/ako run task rmsnorm --no-progress > $L/warm-new.txt 2>&1
bundle-exp/bin/ako run task rmsnorm --no-progress > $L/warm-old.txt 2>&1
for i in $(seq 1 10); do
  bundle/bin/ako run task rmsnorm --shapes wan13b-480p --no-checks --no-progress --json $L/new-$i.json > /dev/null 2>&1
  bundle-exp/bin/ako run task rmsnorm --shapes wan13b-480p --no-checks --no-progress --json $L/old-$i.json > /dev/null 2>&1
done
python3 - <<'PY' > $OUT/passes.txt
import json, os, itertools, collections
L = os.path.join(os.environ["OUT"], "logs")
for kind in ["old", "new"]:
    by = collections.defaultdict(list)
    for i in range(1, 11):
        try: j = json.load(open(f"{L}/{kind}-{i}.json"))
        except Exception as e: print(kind, i, "missing", e); continue
        for c in j["cases"]:
            if c["kind"] != "compare": continue
            lab = f"{c['dtype']} {'w' if c['flags'].get('weight') else 'nw'}"
            by[lab + " sol"].append((c["solution_time"]["iqm_us"], c["solution_time"]["samples"]))
            for b in c.get("baselines", []):
                if isinstance(b.get("time"), dict): by[lab + " " + b["name"][:5]].append((b["time"]["iqm_us"], b["time"]["samples"]))
    print("==", kind, "(10 runs; pairs of runs more than 1% apart, the widest pair, samples)")
    for lab, v in sorted(by.items()):
        x = [a for a, _ in v]; n = [b for _, b in v]
        pairs = list(itertools.combinations(x, 2))
        bad = sum(abs(a / b - 1) > 0.01 for a, b in pairs)
        print(f"  {lab:22} >1%: {bad:2d}/{len(pairs)}  widest {100*(max(x)/min(x)-1):.2f}%  mean {sum(x)/len(x):.2f}  n {min(n)}-{max(n)}")
PY
cat $OUT/passes.txt
AKO_BIN=$PWD/bundle/bin/ako AKO_ROOT=$PWD bundle/bin/ako_gpu_tests --gtest_filter='RunRmsnorm.TwoModeShapes*' --gtest_repeat=3 > $L/two-mode.txt 2>&1
echo "two-mode test x3: $(grep -c '^\[       OK \]' $L/two-mode.txt) ok, $(grep -c '^\[  FAILED  \] RunRmsnorm' $L/two-mode.txt) failed" | tee -a $OUT/passes.txt
grep "two-mode\|Failure\|vs" $L/two-mode.txt | head -30 >> $OUT/passes.txt
OUT=$OUT/bars WARM=5 REPEAT=3 SUITE=0 scripts/gpu-timing-bars.sh > $L/bars.txt 2>&1
cp $OUT/bars/summary.txt $OUT/bars-summary.txt 2>/dev/null
bundle/bin/ako gate --baseline bench/baseline.json > $L/gate.txt 2>&1; echo "gate rc=$?" >> $OUT/passes.txt
grep "^GATE" $L/gate.txt >> $OUT/passes.txt
tail -30 $OUT/bars-summary.txt
tail -12 $OUT/passes.txt
tar czf $OUT/logs.tgz -C $OUT logs && rm -rf $L
