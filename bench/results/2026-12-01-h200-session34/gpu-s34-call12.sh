#!/usr/bin/env bash
# Session 34, call 12 (nvidia-h200; carry bundle-x): norm_scale_shift iteration 50's Next, ncu of wan13b's walk
# (bf16 affine LayerNorm with fp32 per-frame modulation, the walk class) against the one-token kernel on the same
# bytes without broadcast work (bf16 no-affine same-dtype per-frame LayerNorm, ~51 µs), one launch each after
# warm-ups, no clock control; each report's warp-stall shares and hottest SASS lines (scripts/ncu_stalls.py).
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
  python3 scripts/ncu_stalls.py $N/$1-sass.csv >> $S 2>&1
}
declare -A WH=([walk]="affine && layout == 'bf1c' && mod_dtype == 'fp32' && norm == 'layer'"
               [plain]="!affine && layout == 'bf1c' && mod_dtype == 'same' && norm == 'layer'")
for k in walk plain; do
  timeout 120 "$NCU" --clock-control none --target-processes all --kernel-name regex:norm_scale_shift_kernel \
    --launch-skip 1 --launch-count 1 $SECTIONS -f -o $N/nss-$k bundle/bin/ako run task norm_scale_shift \
    --device "NVIDIA H200" --shapes wan13b-480p --dtypes bf16 --where "${WH[$k]}" --no-cupti --no-checks --trials 1 \
    --max-time 0.05 --case-timeout 300 --no-progress > $N/nss-$k.log 2>&1
  echo "ncu norm_scale_shift wan13b bf16 $k rc=$? ($(( $(date +%s) - T0 )) s)" >> $S; digest nss-$k
done
echo "wall $(( $(date +%s) - T0 )) s" >> $S
tar cJf $OUT/ncu.tar.xz -C $OUT ncu && rm -rf $N
cat $S
