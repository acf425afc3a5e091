#!/usr/bin/env bash
# On the GPU machine (bundle/ carried): ncu on the solution and each baseline of
# `ako run task TASK` for the named shapes, one launch each after warm-up, with the sections
# `ako iterate --ncu` reads. Writes $OUT/ncu-<shape>-<kernel>.csv (ncu's details page) and
# prints, per kernel, the lines that say what bounds it (duration, DRAM and memory
# throughput, waves per SM, occupancy, the stall breakdown's top).
#   OUT=out [KERNELS="regex ..."] scripts/gpu-ncu.sh TASK DTYPE SHAPE [SHAPE...]
# KERNELS: the kernel names (regexes over the function's base name) to profile, one report each;
# default rmsnorm's solution and FlashInfer's RMSNorm. ako runs with CUDA events (--no-cupti: ncu
# holds the profiling interface), one trial, and a case timeout long enough for ncu's replays.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-out}
mkdir -p "$OUT"
task=$1 dtype=$2; shift 2
NCU=${AKO_NCU:-$(command -v ncu || echo /usr/local/cuda/bin/ncu)}
export AKO_CACHE_DIR=${AKO_CACHE_DIR:-/tmp/ako-cache}
for shape in "$@"; do
  for kernel in ${KERNELS:-rmsnorm_kernel RMSNormKernel}; do
    rep="$OUT/ncu-$shape-$kernel"
    "$NCU" --clock-control none --target-processes all --kernel-name-base function --kernel-name "regex:$kernel" \
      --launch-skip 10 --launch-count 1 --section SpeedOfLight --section MemoryWorkloadAnalysis \
      --section LaunchStats --section Occupancy --section WarpStateStats -f -o "$rep" \
      bundle/bin/ako run task "$task" --shapes "$shape" --dtypes "$dtype" --no-checks --no-progress --max-time 0.002 \
      --no-cupti --trials 1 --case-timeout 600 \
      > "$rep.log" 2>&1 || { echo "ncu $shape $kernel failed:"; tail -5 "$rep.log"; continue; }
    "$NCU" --import "$rep.ncu-rep" --csv --page details > "$rep.csv" 2>/dev/null
    echo "== $shape $dtype $kernel =="
    python3 - "$rep.csv" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
want = ["Duration", "DRAM Throughput", "Memory Throughput", "L2 Cache Throughput", "Compute (SM) Throughput",
        "Block Size", "Grid Size", "Registers Per Thread", "Waves Per SM", "Achieved Occupancy",
        "Theoretical Occupancy", "Mem Busy", "Max Bandwidth"]
seen = {}
for r in rows:
    name = r.get("Metric Name", "")
    if name in want and name not in seen:
        seen[name] = f"{r.get('Metric Value', '')} {r.get('Metric Unit', '')}".strip()
if rows: print("kernel:", rows[0].get("Kernel Name", "?")[:100])
for n in want:
    if n in seen: print(f"  {n}: {seen[n]}")
PY
  done
done
