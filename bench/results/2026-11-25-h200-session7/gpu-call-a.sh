#!/usr/bin/env bash
# Experiment call A (2026-11-25 session 7): L2 hint variants of rmsnorm and gated_act, and
# per-shape qknorm tunes for the across-heads form. OUT=out exp/gpu-call-a.sh
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-out}; D=$OUT/a; mkdir -p "$D"
A=bundle/bin/ako
export AKO_CACHE_DIR=/tmp/ako-cache
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu,power.draw --format=csv,noheader > "$D/device.txt" 2>&1
echo "start $(date -u +%T)" >> "$D/device.txt"
for t in rmsnorm gated_act; do
  for v in ldg-cs cs-cs cs-plain ldg-plain ldg-cs; do
    n=$t-$v; [ -f "$D/$n.json" ] && n=$t-$v-again
    $A run task $t --solution exp/hints/$t-$v.cuh --dtypes bf16 --no-progress --json "$D/$n.json" > "$D/$n.txt" 2>&1
    echo "$n rc $? $(date -u +%T)" >> "$D/device.txt"
  done
done
for s in wan13b-480p flux1; do
  timeout 150 $A tune task qknorm --strategy evolve --classes shape --shapes $s --dtypes bf16 --trials 1 --time 60 --write-config \
    > "$D/qknorm-tune-$s.txt" 2>&1
  echo "tune $s rc $? $(date -u +%T)" >> "$D/device.txt"
done
cp "solution/qknorm/configs/device_name=NVIDIA_H200.json" "$D/qknorm-config-h200.json"
$A run task qknorm --dtypes bf16,fp16 --no-progress --json "$D/qknorm-run.json" > "$D/qknorm-run.txt" 2>&1
echo "qknorm run rc $? $(date -u +%T)" >> "$D/device.txt"
python3 exp/summarize.py "$D"/rmsnorm-*.json > "$D/summary-rmsnorm.txt"
python3 exp/summarize.py "$D"/gated_act-*.json > "$D/summary-gated.txt"
python3 exp/summarize.py "$D/qknorm-run.json" > "$D/summary-qknorm.txt"
(cd "$OUT" && tar czf all.tgz a)
cat "$D/device.txt"; grep -h "rc\|wall" "$D"/summary-*.txt | head -5
# the short table: per variant, geomean of solution medians over the cases and the SGLang ratio
python3 - "$D" <<'PY'
import glob, json, math, sys
for f in sorted(glob.glob(sys.argv[1] + "/*.json")):
    if "config" in f: continue
    try: d = json.load(open(f))
    except Exception: continue
    ts = [c["solution_time"]["median_us"] for c in d["cases"] if c.get("kind") == "compare" and c.get("solution_time")]
    pc = [c["pct_copy_bw"] for c in d["cases"] if c.get("kind") == "compare" and c.get("pct_copy_bw")]
    rs = [b["time"]["median_us"] / c["solution_time"]["median_us"] for c in d["cases"] if c.get("kind") == "compare"
          for b in c.get("baselines", []) if (b.get("time") or {}).get("median_us") and b["name"] in ("sglang", "flashinfer")]
    g = lambda v: math.exp(sum(map(math.log, v)) / len(v)) if v else float("nan")
    print(f"{f.split('/')[-1]:32s} cases {len(ts):3d} geomean us {g(ts):8.3f} %copy min {min(pc, default=0):5.1f} "
          f"median {sorted(pc)[len(pc)//2] if pc else 0:5.1f}  vs baselines geomean {g(rs):.4f} min {min(rs, default=float('nan')):.4f}")
PY
