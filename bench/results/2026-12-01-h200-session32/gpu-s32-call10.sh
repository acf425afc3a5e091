#!/usr/bin/env bash
# Session 32, call 10 (nvidia-h200; carry bundle-x, peers): ncu on layernorm's zimage bf16 no-affine case, ako's
# kernel (its H200 class) and SGLang's Triton norm_infer (ncu_norm_infer.py), one launch each after warm-ups, no
# clock control, the sections of session 31's call 6 (ITERATIONS.md layernorm iteration 11's Next: where Triton's
# 1-1.5% on this case comes from).
# Back: summary.txt (printed last), ncu.tar.xz.
set -uo pipefail
OUT=$(realpath "$OUT")
S=$OUT/summary.txt; : > $S
T0=$(date +%s)
scripts/gpu-unpack-bundle.sh --if-needed > $OUT/unpack.txt 2>&1 || { cat $OUT/unpack.txt; exit 1; }
export AKO_CACHE_DIR=/tmp/ako-cache
D=bench/results/2026-12-01-h200-session32
N=$OUT/ncu; mkdir -p $N
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
SECTIONS="--section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy --section LaunchStats --section SchedulerStats --section WarpStateStats --section InstructionStats"
digest() {  # report
  "$NCU" --import "$1.ncu-rep" --csv --page details > "$1.csv" 2>/dev/null
  python3 - "$1.csv" >> $S <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
want = ["Duration", "DRAM Throughput", "L1/TEX Cache Throughput", "L2 Cache Throughput", "Registers Per Thread",
        "Grid Size", "Block Size", "Achieved Occupancy", "Theoretical Occupancy", "Issued Warp Per Scheduler",
        "No Eligible", "Warp Cycles Per Issued Instruction", "Executed Instructions", "L1/TEX Hit Rate",
        "SM Active Cycles", "Elapsed Cycles", "Static Shared Memory Per Block"]
seen = {}
for r in rows:
    n = r.get("Metric Name", "")
    if n in want and n not in seen: seen[n] = f"{r.get('Metric Value', '')} {r.get('Metric Unit', '')}".strip()
if rows: print("  kernel:", rows[0].get("Kernel Name", "?")[:150])
print("  " + "; ".join(f"{n}: {seen[n]}" for n in want if n in seen))
PY
}
timeout 120 "$NCU" --clock-control none --target-processes all --kernel-name regex:layernorm_kernel --launch-skip 1 \
  --launch-count 1 $SECTIONS -f -o $N/ako bundle/bin/ako run task layernorm --device "NVIDIA H200" --shapes zimage \
  --dtypes bf16 --where '!affine' --no-cupti --no-checks --trials 1 --max-time 0.05 --case-timeout 300 --no-progress \
  > $N/ako.log 2>&1
echo "ncu ako rc=$? ($(( $(date +%s) - T0 )) s)" >> $S; digest $N/ako
timeout 150 "$NCU" --clock-control none --target-processes all --kernel-name regex:_norm_infer_kernel --launch-skip 2 \
  --launch-count 1 $SECTIONS -f -o $N/triton python3 $D/ncu_norm_infer.py > $N/triton.log 2>&1
echo "ncu triton rc=$? ($(( $(date +%s) - T0 )) s): $(grep 'max abs' $N/triton.log)" >> $S; digest $N/triton
tail -3 $N/triton.log >> $S
echo "wall $(( $(date +%s) - T0 )) s" >> $S
tar cJf $OUT/ncu.tar.xz -C $OUT ncu && rm -rf $N
cat $S
