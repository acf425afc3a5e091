#!/usr/bin/env bash
# Session 11, call 5: norm_scale_shift's per-frame layout with the frame index l / (L / F) taken
# from a float estimate and exact integer corrections instead of two integer divisions (call 4's
# ncu: the per-frame kernel issues 12% more instructions than the [B, C] one, 25% longer).
# wan13b-480p bf16, ABCCBA: the committed kernel, variants/nss-floordiv-loop.cuh (corrections
# in loops, exact for any int) and variants/nss-floordiv-1step.cuh (one step each way).
# The variants ran as full copies, variants/nss-<v>.cuh; kept here as variants/nss-<v>.patch against
# solution/norm_scale_shift/norm_scale_shift.cuh (unchanged since bcdc9ff); to rerun, first, from the
# repository root, with D as below: patch -o $D/variants/nss-<v>.cuh solution/norm_scale_shift/norm_scale_shift.cuh $D/variants/nss-<v>.patch
set -uo pipefail
export AKO_CACHE_DIR=/tmp/ako-cache
D=bench/results/2026-11-26-h200-session11
L=$OUT/logs; mkdir -p $L $OUT/ab; S=$OUT/summary.txt; : > $S
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv > $L/smi.txt
i=0
for v in committed loop onestep onestep loop committed; do
  i=$((i+1))
  case $v in committed) sol=();; loop) sol=(--solution $D/variants/nss-floordiv-loop.cuh);; onestep) sol=(--solution $D/variants/nss-floordiv-1step.cuh);; esac
  timeout 120 bundle/bin/ako run task norm_scale_shift --shapes wan13b-480p --dtypes bf16 "${sol[@]}" --no-progress \
    --json $OUT/ab/norm_scale_shift-$v-$i.json > $L/$v-$i.txt 2>&1
  echo "$v $i rc=$?: $(grep -E '^CORRECT|^RUNTIME' $L/$v-$i.txt | tr '\n' ' ')" >> $S
done
python3 $D/../2026-11-25-h200-session9/ab_summary.py $OUT/ab committed >> $S 2>&1
python3 - $OUT/ab >> $S <<'PY'
import glob, json, os, sys, collections
t = collections.defaultdict(lambda: collections.defaultdict(list))
for f in glob.glob(os.path.join(sys.argv[1], "*.json")):
    v = os.path.basename(f).split("-")[1]
    for c in json.load(open(f))["cases"]:
        if c.get("kind") == "compare" and c.get("verdict") == "correct":
            t[(c["axes"]["layout"], c["axes"]["mod_dtype"], c["axes"]["norm"], c["flags"]["affine"])][v].append(c["solution_time"]["iqm_us"])
for k in sorted(t):
    base = sum(t[k]["committed"]) / len(t[k]["committed"])
    print(f"{k}: committed {base:.2f} us; " + "; ".join(f"{v} {sum(x)/len(x):.2f} ({sum(x)/len(x)/base:.3f}x)" for v, x in sorted(t[k].items()) if v != "committed"))
PY
cat $S
tar cJf $OUT/call5.tar.xz -C $OUT ab logs && rm -rf $L $OUT/ab
