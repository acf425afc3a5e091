#!/usr/bin/env bash
# Session 34, call 11 (nvidia-h200; carry bundle-x): layernorm iteration 15's Next, ncu on qwen-image's bf16 affine
# and no-affine kernels (the affine one at 85.4% of copy, the no-affine one at 89.8%, call 8), one launch each after
# warm-ups, no clock control, the same sections as call 7; then each report's SASS with executed counts.
# Back: summary.txt (printed last), ncu.tar.xz.
set -uo pipefail
OUT=$(realpath "$OUT")
S=$OUT/summary.txt; : > $S
T0=$(date +%s)
scripts/gpu-unpack-bundle.sh --if-needed > $OUT/unpack.txt 2>&1 || { cat $OUT/unpack.txt; exit 1; }
export AKO_CACHE_DIR=/tmp/ako-cache
N=$OUT/ncu; mkdir -p $N
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
SECTIONS="--section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy --section LaunchStats --section SchedulerStats --section WarpStateStats --section InstructionStats --section SourceCounters"
digest() {  # name
  "$NCU" --import $N/$1.ncu-rep --csv --page details > $N/$1.csv 2>/dev/null
  "$NCU" --import $N/$1.ncu-rep --page source --csv --print-source sass > $N/$1-sass.csv 2>/dev/null
  python3 - $N/$1.csv >> $S <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
want = ["Duration", "DRAM Throughput", "L1/TEX Cache Throughput", "L2 Cache Throughput", "Registers Per Thread",
        "Grid Size", "Block Size", "Achieved Occupancy", "Theoretical Occupancy", "Issued Warp Per Scheduler",
        "Warp Cycles Per Issued Instruction", "Executed Instructions", "SM Active Cycles", "Elapsed Cycles"]
seen = {}
for r in rows:
    n = r.get("Metric Name", "")
    if n in want and n not in seen: seen[n] = f"{r.get('Metric Value', '')} {r.get('Metric Unit', '')}".strip()
if rows: print("  kernel:", rows[0].get("Kernel Name", "?")[:150])
print("  " + "; ".join(f"{n}: {seen[n]}" for n in want if n in seen))
PY
}
for form in affine noaffine; do
  W="affine"; [ $form = noaffine ] && W="!affine"
  timeout 120 "$NCU" --clock-control none --target-processes all --kernel-name regex:layernorm_kernel \
    --launch-skip 1 --launch-count 1 $SECTIONS -f -o $N/ln-$form bundle/bin/ako run task layernorm \
    --device "NVIDIA H200" --shapes qwen-image --dtypes bf16 --where "$W" --no-cupti --no-checks --trials 1 \
    --max-time 0.05 --case-timeout 300 --no-progress > $N/ln-$form.log 2>&1
  echo "ncu layernorm qwen-image bf16 $form rc=$? ($(( $(date +%s) - T0 )) s)" >> $S; digest ln-$form
done
echo "wall $(( $(date +%s) - T0 )) s" >> $S
tar cJf $OUT/ncu.tar.xz -C $OUT ncu && rm -rf $N
cat $S
