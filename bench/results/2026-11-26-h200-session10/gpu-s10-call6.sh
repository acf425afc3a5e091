#!/usr/bin/env bash
# Session 10, call 6: ncu on qknorm_rope's zimage and hunyuan-720p bf16 cases, ako's tuned kernel
# and SGLang's, run as `ako iterate --ncu` runs it (--no-cupti: CUPTI's timer and ncu do not share
# the device; calls 4 and 5 had no report), one launch after the validation launch.
set -uo pipefail
export AKO_CACHE_DIR=/tmp/ako-cache
mkdir -p $OUT/ncu; S=$OUT/summary.txt; : > $S
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
for shape in zimage hunyuan-720p; do
  for kernel in qknorm_rope_kernel sglang_qknorm_rope; do
    rep=$OUT/ncu/ncu-$shape-$kernel
    timeout 150 "$NCU" --clock-control none --target-processes all --kernel-name-base function --kernel-name "regex:$kernel" \
      --launch-skip 1 --launch-count 1 --set full -f -o "$rep" \
      bundle/bin/ako run task qknorm_rope --shapes $shape --dtypes bf16 --no-cupti --no-checks --trials 1 --max-time 0.05 \
      --case-timeout 600 --no-progress > "$rep.log" 2>&1
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
cat $S
tar czf $OUT/ncu.tgz -C $OUT ncu && rm -rf $OUT/ncu
