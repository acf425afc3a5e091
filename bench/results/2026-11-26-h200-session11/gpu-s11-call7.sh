#!/usr/bin/env bash
# Session 11, call 7: the hand class shape-wan13b-480p-frame-same-mod (C-1536's params with
# EARLY_MOD 1 for wan13b-480p's per-frame cases with same-dtype modulation and no affine).
# ABBA on wan13b-480p, both dtypes: the new config (A) against the same with --param EARLY_MOD=0
# (B: exactly the config before, since every other class of the shape has EARLY_MOD 0); the
# norm_scale_shift GPU tests; a full run; the gate entry of norm_scale_shift rewritten and checked.
set -uo pipefail
export AKO_CACHE_DIR=/tmp/ako-cache
D=bench/results/2026-11-26-h200-session11
L=$OUT/logs; mkdir -p $L $OUT/ab; S=$OUT/summary.txt; : > $S
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv > $L/smi.txt
i=0
for v in class before before class; do
  i=$((i+1))
  p=(); [ $v = before ] && p=(--param EARLY_MOD=0)
  timeout 120 bundle/bin/ako run task norm_scale_shift --shapes wan13b-480p "${p[@]}" --no-progress \
    --json $OUT/ab/norm_scale_shift-$v-$i.json > $L/$v-$i.txt 2>&1
  echo "$v $i rc=$?: $(grep -E '^CORRECT|^RUNTIME' $L/$v-$i.txt | tr '\n' ' ')" >> $S
done
python3 $D/../2026-11-25-h200-session9/ab_summary.py $OUT/ab before >> $S 2>&1
python3 - $OUT/ab >> $S <<'PY'
import glob, json, os, re, sys, collections
t = collections.defaultdict(lambda: collections.defaultdict(list))
for f in glob.glob(os.path.join(sys.argv[1], "*.json")):
    v = re.match(r".+-([a-z0-9]+)-\d+\.json$", os.path.basename(f)).group(1)
    for c in json.load(open(f))["cases"]:
        if c.get("kind") == "compare" and c.get("verdict") == "correct":
            a = c["axes"]
            t[(c["dtype"], a["layout"], a["mod_dtype"], a["norm"], c["flags"]["affine"], c["config_class"] if v == "class" else "")][v].append(c["solution_time"]["iqm_us"])
rows = collections.defaultdict(dict)
for k, d in t.items():
    for v, x in d.items(): rows[k[:5]][v] = (sum(x) / len(x), k[5])
for k in sorted(rows):
    r = rows[k]
    if "class" in r and "before" in r:
        print(f"{' '.join(map(str, k))}: before {r['before'][0]:.2f} us, class {r['class'][0]:.2f} ({r['class'][0]/r['before'][0]:.3f}x) [{r['class'][1]}]")
PY
AKO_BIN=$PWD/bundle/bin/ako AKO_ROOT=$PWD timeout 200 bundle/bin/ako_gpu_tests --gtest_filter='*NormScaleShift*' > $L/gpu-tests.log 2>&1
echo "gpu tests rc=$?: $(grep -E '^\[  PASSED|^\[  FAILED' $L/gpu-tests.log | tr '\n' ' ')" >> $S
timeout 120 bundle/bin/ako run task norm_scale_shift --no-progress --json $OUT/full.json > $L/full.txt 2>&1
echo "full run rc=$?: $(grep -E '^CORRECT|^RUNTIME' $L/full.txt | tr '\n' ' ')" >> $S
timeout 150 bundle/bin/ako gate --update-baseline --threshold 5 --tasks norm_scale_shift --baseline bench/baseline.json > $L/gate-update.txt 2>&1
echo "gate --update-baseline rc=$?: $(grep '^GATE' $L/gate-update.txt)" >> $S
cp bench/baseline.json $OUT/baseline.json
timeout 150 bundle/bin/ako gate --tasks norm_scale_shift --baseline bench/baseline.json > $L/gate.txt 2>&1
echo "gate rc=$?: $(grep '^GATE' $L/gate.txt)" >> $S
cat $S
tar cJf $OUT/call7.tar.xz -C $OUT ab logs full.json && rm -rf $L $OUT/ab $OUT/full.json
