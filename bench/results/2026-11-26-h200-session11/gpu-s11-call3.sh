#!/usr/bin/env bash
# Session 11, call 3: norm_scale_shift's per-frame ([B, F, 1, C]) modulation on the Wan shapes,
# 73-86% of a copy of its bytes where the [B, C] form of the same shape is at 96-97% (call 1).
# The committed params with EARLY_MOD / ROW_CACHE flipped (wan13b-480p, bf16), then a 150 s
# per-shape tune of wan13b-480p and wan14b-480p (bf16), then the shapes and the full task with
# the config it wrote, all with --size-copy.
set -uo pipefail
export AKO_CACHE_DIR=/tmp/ako-cache
L=$OUT/logs; mkdir -p $L $OUT/runs; S=$OUT/summary.txt; : > $S
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv > $L/smi.txt
run() {  # name, then ako run arguments
  local n=$1; shift
  timeout 120 bundle/bin/ako run task norm_scale_shift --size-copy --no-progress --json $OUT/runs/$n.json "$@" > $L/$n.txt 2>&1
  echo "$n rc=$?: $(grep -E '^CORRECT|^RUNTIME|^SIZE COPY' $L/$n.txt | tr '\n' ' ')" >> $S
}
W="--shapes wan13b-480p --dtypes bf16"
run w13-committed $W
run w13-early $W --param EARLY_MOD=1
run w13-nocache $W --param ROW_CACHE=0
run w13-early-nocache $W --param EARLY_MOD=1 --param ROW_CACHE=0
run w13-committed-2 $W
cp solution/norm_scale_shift/configs/device_name=NVIDIA_H200.json $OUT/config-before.json
t0=$(date +%s)
timeout 200 bundle/bin/ako tune task norm_scale_shift --strategy evolve --classes shape --shapes wan13b-480p,wan14b-480p \
  --dtypes bf16 --trials 1 --time 150 --write-config --db $OUT/tune.jsonl > $L/tune.txt 2>&1
echo "tune rc=$? ($(( $(date +%s)-t0 )) s): $(grep '^TUNE' $L/tune.txt | tr '\n' ' ')" >> $S
cp solution/norm_scale_shift/configs/device_name=NVIDIA_H200.json $OUT/config-after.json
run wan-tuned --shapes wan13b-480p,wan14b-480p
run full-tuned
for f in $OUT/runs/*.json; do python3 scripts/size_copy_table.py $f > ${f%.json}-table.md 2>&1; done
python3 - $OUT/runs >> $S <<'PY'
import json, os, sys
d = sys.argv[1]
def cases(n):
    p = os.path.join(d, n + ".json")
    if not os.path.exists(p): return {}
    out = {}
    for c in json.load(open(p))["cases"]:
        if c.get("kind") == "compare" and c.get("solution_time") and c["shape"].startswith("wan"):
            out[(c["shape"], c["dtype"], json.dumps(c["flags"]), json.dumps(c["axes"], sort_keys=True))] = (c["solution_time"]["iqm_us"], c.get("pct_size_copy", 0), c["config_class"])
    return out
base = cases("w13-committed")
for n in ["w13-early", "w13-nocache", "w13-early-nocache", "w13-committed-2"]:
    o = cases(n)
    r = [o[k][0] / base[k][0] for k in base if k in o]
    if r: print(f"{n}: time / committed {min(r):.3f}-{max(r):.3f} over {len(r)} cases")
for k, v in sorted(cases("wan-tuned").items()):
    print(f"  {k[0]} {k[1]} {k[2]} {k[3]}: {v[0]:.2f} us, {v[1]:.1f}% of size copy ({v[2]})")
PY
cat $S
mkdir -p $OUT/keep && mv $OUT/runs $OUT/tune.jsonl $OUT/config-*.json $OUT/keep/ 2>/dev/null
tar cJf $OUT/call3.tar.xz -C $OUT keep logs && rm -rf $L $OUT/keep
