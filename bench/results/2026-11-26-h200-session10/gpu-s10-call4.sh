#!/usr/bin/env bash
# Session 10, call 4: (a) full runs of rope and gated_act (their engine columns, today's machine);
# (b) gated_act per-shape tune of the image shapes with both launch pairs in the space (120 s),
# then a full run with the config it wrote; (c) ncu on qknorm_rope's zimage and hunyuan-720p
# bf16 cases: ako's tuned kernel and SGLang's, one launch each after warm-up.
set -uo pipefail
export AKO_CACHE_DIR=/tmp/ako-cache
L=$OUT/logs; mkdir -p $L $OUT/ncu; S=$OUT/summary.txt; : > $S
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv > $L/smi.txt
for task in rope gated_act; do
  timeout 120 bundle/bin/ako run task $task --no-progress --json $OUT/$task-run.json > $L/$task-run.txt 2>&1
  echo "$task run rc=$?: $(grep -E '^CORRECT|^BASELINE' $L/$task-run.txt | tr '\n' ' ')" >> $S
done
cp solution/gated_act/configs/device_name=NVIDIA_H200.json $OUT/gated_act-config-before.json
IMG=flux1-image,flux1-single,flux2-single,qwen-image,zimage,ltx-video
t0=$(date +%s)
timeout 200 bundle/bin/ako tune task gated_act --strategy evolve --classes shape --shapes $IMG --dtypes bf16 --trials 1 \
  --time 120 --write-config --db $OUT/gated_act-tune.jsonl > $L/gated_act-tune.txt 2>&1
echo "gated_act tune rc=$? ($(( $(date +%s)-t0 )) s): $(grep '^TUNE' $L/gated_act-tune.txt)" >> $S
cp solution/gated_act/configs/device_name=NVIDIA_H200.json $OUT/gated_act-config-after.json
timeout 120 bundle/bin/ako run task gated_act --no-progress --json $OUT/gated_act-run-tuned.json > $L/gated_act-run-tuned.txt 2>&1
echo "gated_act run, tuned config rc=$?: $(grep -E '^CORRECT|^BASELINE' $L/gated_act-run-tuned.txt | tr '\n' ' ')" >> $S
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
for shape in zimage hunyuan-720p; do
  for kernel in qknorm_rope_kernel sglang_qknorm_rope; do
    rep=$OUT/ncu/ncu-$shape-$kernel
    timeout 120 "$NCU" --clock-control none --target-processes all --kernel-name-base function --kernel-name "regex:$kernel" \
      --launch-skip 10 --launch-count 1 --set full -f -o "$rep" \
      bundle/bin/ako run task qknorm_rope --shapes $shape --dtypes bf16 --no-checks --no-progress --max-time 0.002 > "$rep.log" 2>&1
    echo "ncu $shape $kernel rc=$?" >> $S
    "$NCU" --import "$rep.ncu-rep" --csv --page details > "$rep.csv" 2>/dev/null
    python3 - "$rep.csv" >> $S <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
want = ["Duration", "DRAM Throughput", "Memory Throughput", "L1/TEX Cache Throughput", "L2 Cache Throughput",
        "Compute (SM) Throughput", "Registers Per Thread", "Waves Per SM", "Achieved Occupancy",
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
cat $S
xz -9 $OUT/*.json $OUT/gated_act-tune.jsonl 2>/dev/null
tar czf $OUT/logs.tgz -C $OUT logs && rm -rf $L
tar czf $OUT/ncu.tgz -C $OUT ncu && rm -rf $OUT/ncu
