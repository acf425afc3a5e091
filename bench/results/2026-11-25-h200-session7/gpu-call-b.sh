#!/usr/bin/env bash
# Experiment call B (2026-11-25 session 7): qknorm per-shape tunes with the tuner fix (6b0973f),
# and gated_act launch shapes like SGLang's JIT kernel (one 16-byte vector per thread).
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-out}; D=$OUT/b; mkdir -p "$D"
A=bundle/bin/ako
export AKO_CACHE_DIR=/tmp/ako-cache
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu,power.draw --format=csv,noheader > "$D/device.txt" 2>&1
echo "start $(date -u +%T)" >> "$D/device.txt"
IMG=flux1-image,flux1-single,flux2-single,qwen-image,zimage,ltx-video
$A run task gated_act --shapes $IMG --dtypes bf16 --no-progress --json "$D/gated-config.json" > "$D/gated-config.txt" 2>&1
for p in "256 1 8" "128 1 8" "512 1 8" "1024 1 8" "128 2 8" "256 2 8"; do
  set -- $p
  $A run task gated_act --shapes $IMG --dtypes bf16 --no-progress --param BLOCK=$1 --param UNROLL=$2 --param VEC=$3 \
    --json "$D/gated-b$1-u$2-v$3.json" > "$D/gated-b$1-u$2-v$3.txt" 2>&1
  echo "gated $p rc $? $(date -u +%T)" >> "$D/device.txt"
done
$A run task gated_act --shapes $IMG --dtypes bf16 --no-progress --json "$D/gated-config-again.json" > "$D/gated-config-again.txt" 2>&1
for s in wan13b-480p:60 flux1:60 ltx-video:45; do
  timeout 150 $A tune task qknorm --strategy evolve --classes shape --shapes ${s%:*} --dtypes bf16 --trials 1 --time ${s#*:} --write-config \
    > "$D/qknorm-tune-${s%:*}.txt" 2>&1
  echo "tune $s rc $? $(date -u +%T)" >> "$D/device.txt"
done
cp "solution/qknorm/configs/device_name=NVIDIA_H200.json" "$D/qknorm-config-h200.json"
cp bench/tuning/qknorm.jsonl "$D/qknorm-tune.jsonl" 2>/dev/null
$A run task qknorm --dtypes bf16,fp16 --no-progress --json "$D/qknorm-run.json" > "$D/qknorm-run.txt" 2>&1
echo "qknorm run rc $? $(date -u +%T)" >> "$D/device.txt"
python3 exp/summarize.py "$D"/gated-*.json > "$D/summary-gated.txt"
python3 exp/summarize.py "$D/qknorm-run.json" > "$D/summary-qknorm.txt"
(cd "$OUT" && tar czf all.tgz b)
cat "$D/device.txt"
python3 - "$D" <<'PY'
import glob, json, math, sys
for f in sorted(glob.glob(sys.argv[1] + "/*.json")):
    if "config-h200" in f: continue
    try: d = json.load(open(f))
    except Exception: continue
    cs = [c for c in d["cases"] if c.get("kind") == "compare" and c.get("solution_time")]
    ts = [c["solution_time"]["median_us"] for c in cs]
    pc = [c["pct_copy_bw"] for c in cs]
    rs = [b["time"]["median_us"] / c["solution_time"]["median_us"] for c in cs
          for b in c.get("baselines", []) if (b.get("time") or {}).get("median_us") and b["name"] in ("sglang",)]
    g = lambda v: math.exp(sum(map(math.log, v)) / len(v)) if v else float("nan")
    print(f"{f.split('/')[-1]:28s} cases {len(ts):3d} geomean us {g(ts):8.3f} %copy min {min(pc, default=0):5.1f} "
          f"median {sorted(pc)[len(pc)//2] if pc else 0:5.1f}  vs sglang geomean {g(rs):.4f} min {min(rs, default=float('nan')):.4f} n {len(rs)}")
PY
cat "$D/summary-qknorm.txt"
