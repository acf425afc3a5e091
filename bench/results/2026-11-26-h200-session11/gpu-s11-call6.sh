#!/usr/bin/env bash
# Session 11, call 6: the per-frame rows prefetched into L1 right after the row loads
# (variants/nss-prefetch-frame.cuh; call 4's ncu: the per-frame kernel misses L1 on 1.06M more
# sectors, 132 SMs x 21 frames x 384, each SM fetching every frame's row once, and waits on it
# after the reductions). ABBA against the committed kernel, bf16, wan13b-480p and wan14b-480p, both
# norm fusions (the residual kernel shares the code).
# The variants ran as full copies, variants/nss-<v>.cuh; kept here as variants/nss-<v>.patch against
# solution/norm_scale_shift/norm_scale_shift.cuh (unchanged since bcdc9ff); to rerun, first, from the
# repository root, with D as below: patch -o $D/variants/nss-<v>.cuh solution/norm_scale_shift/norm_scale_shift.cuh $D/variants/nss-<v>.patch
set -uo pipefail
export AKO_CACHE_DIR=/tmp/ako-cache
D=bench/results/2026-11-26-h200-session11
L=$OUT/logs; mkdir -p $L $OUT/ab; S=$OUT/summary.txt; : > $S
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv > $L/smi.txt
for t in norm_scale_shift residual_gate_norm_scale_shift; do
  i=0
  for v in committed prefetch prefetch committed; do
    i=$((i+1))
    sol=(); [ $v = prefetch ] && sol=(--solution $D/variants/nss-prefetch-frame.cuh)
    timeout 120 bundle/bin/ako run task $t --shapes wan13b-480p,wan14b-480p --dtypes bf16 "${sol[@]}" --no-progress \
      --json $OUT/ab/$t-$v-$i.json > $L/$t-$v-$i.txt 2>&1
    echo "$t $v $i rc=$?: $(grep -E '^CORRECT|^RUNTIME' $L/$t-$v-$i.txt | tr '\n' ' ')" >> $S
  done
done
python3 $D/../2026-11-25-h200-session9/ab_summary.py $OUT/ab committed >> $S 2>&1
python3 - $OUT/ab >> $S <<'PY'
import glob, json, os, re, sys, collections
t = collections.defaultdict(lambda: collections.defaultdict(list))
for f in glob.glob(os.path.join(sys.argv[1], "*.json")):
    task, v = re.match(r"(.+)-([a-z0-9]+)-\d+\.json$", os.path.basename(f)).groups()
    for c in json.load(open(f))["cases"]:
        if c.get("kind") == "compare" and c.get("verdict") == "correct":
            a = c["axes"]
            t[(task[:8], c["shape"][:6], a["layout"], a.get("gate", "-"), a["mod_dtype"], a["norm"], c["flags"]["affine"])][v].append(c["solution_time"]["iqm_us"])
for k in sorted(t):
    if "committed" not in t[k] or "prefetch" not in t[k]: continue
    base = sum(t[k]["committed"]) / len(t[k]["committed"]); p = sum(t[k]["prefetch"]) / len(t[k]["prefetch"])
    print(f"{' '.join(map(str, k))}: committed {base:.2f} us, prefetch {p:.2f} ({p/base:.3f}x)")
PY
cat $S
tar cJf $OUT/call6.tar.xz -C $OUT ab logs && rm -rf $L $OUT/ab
