#!/usr/bin/env bash
# Session 10, call 5: (a) ncu on qknorm_rope's zimage and hunyuan-720p bf16 cases, ako's tuned
# kernel and SGLang's (call 4's attempt lost every launch to ako's per-launch watchdog: here
# --case-timeout 600, as `ako iterate --ncu` sets); (b) rope's d256 shape (1.8% behind FlashInfer's
# head-parallel kernel on two fp16 cases in call 4): exhaustive per-shape tune, then full runs.
set -uo pipefail
export AKO_CACHE_DIR=/tmp/ako-cache
L=$OUT/logs; mkdir -p $L $OUT/ncu; S=$OUT/summary.txt; : > $S
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv > $L/smi.txt
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
for shape in zimage hunyuan-720p; do
  for kernel in qknorm_rope_kernel sglang_qknorm_rope; do
    rep=$OUT/ncu/ncu-$shape-$kernel
    timeout 150 "$NCU" --clock-control none --target-processes all --kernel-name-base function --kernel-name "regex:$kernel" \
      --launch-skip 10 --launch-count 1 --set full -f -o "$rep" \
      bundle/bin/ako run task qknorm_rope --shapes $shape --dtypes bf16 --no-checks --no-progress --max-time 0.002 \
      --case-timeout 600 > "$rep.log" 2>&1
    echo "ncu $shape $kernel rc=$?" >> $S
    "$NCU" --import "$rep.ncu-rep" --csv --page details > "$rep.csv" 2>/dev/null
    python3 - "$rep.csv" >> $S <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
want = ["Duration", "DRAM Throughput", "Memory Throughput", "L1/TEX Cache Throughput", "L2 Cache Throughput",
        "Compute (SM) Throughput", "Registers Per Thread", "Grid Size", "Block Size", "Waves Per SM", "Achieved Occupancy",
        "Theoretical Occupancy", "Issue Slots Busy", "Issued Warp Per Scheduler", "No Eligible", "L1/TEX Hit Rate", "L2 Hit Rate"]
seen = {}
for r in rows:
    n = r.get("Metric Name", "")
    if n in want and n not in seen: seen[n] = f"{r.get('Metric Value', '')} {r.get('Metric Unit', '')}".strip()
if rows: print("  kernel:", rows[0].get("Kernel Name", "?")[:90])
print("  " + "; ".join(f"{n}: {seen[n]}" for n in want if n in seen))
PY
  done
done
for i in 1 2; do
  timeout 60 bundle/bin/ako run task rope --shapes d256 --no-progress --json $OUT/rope-d256-before-$i.json > $L/rope-d256-before-$i.txt 2>&1
  echo "rope d256 before $i rc=$?: $(grep -E '^BASELINE' $L/rope-d256-before-$i.txt | tr '\n' ' ')" >> $S
done
cp solution/rope/configs/device_name=NVIDIA_H200.json $OUT/rope-config-before.json
timeout 150 bundle/bin/ako tune task rope --strategy exhaustive --classes shape --shapes d256 --dtypes bf16 --trials 1 \
  --write-config --db $OUT/rope-tune.jsonl > $L/rope-tune.txt 2>&1
echo "rope d256 tune rc=$?: $(grep '^TUNE' $L/rope-tune.txt)" >> $S
cp solution/rope/configs/device_name=NVIDIA_H200.json $OUT/rope-config-after.json
for i in 1 2; do
  timeout 60 bundle/bin/ako run task rope --shapes d256 --no-progress --json $OUT/rope-d256-after-$i.json > $L/rope-d256-after-$i.txt 2>&1
  echo "rope d256 after $i rc=$?: $(grep -E '^BASELINE' $L/rope-d256-after-$i.txt | tr '\n' ' ')" >> $S
done
timeout 120 bundle/bin/ako run task rope --no-progress --json $OUT/rope-run-after.json > $L/rope-run-after.txt 2>&1
echo "rope full run after rc=$?: $(grep -E '^CORRECT|^BASELINE' $L/rope-run-after.txt | tr '\n' ' ')" >> $S
cat $S
xz -9 $OUT/*.json $OUT/rope-tune.jsonl 2>/dev/null
tar czf $OUT/logs.tgz -C $OUT logs && rm -rf $L
tar czf $OUT/ncu.tgz -C $OUT ncu && rm -rf $OUT/ncu
