#!/usr/bin/env bash
# Session 29, call 3 (nvidia-h200; carry bundle-x, .sglang-deps/py312-1 .. py312-6): call 2's ncu of layernorm's
# affine and no-affine bf16 kernels again with the demangled name ncu matches ("(bool)1", not "true"); then the
# CuTe DSL deps parts 1-6 onto the machine (scripts/gpu-sglang-deps.sh, exit 3 expected: call 4 brings 7-9).
# Back: summary.txt, ncu.tar.xz.
set -uo pipefail
OUT=$(realpath "$OUT")
S=$OUT/summary.txt; : > $S
scripts/gpu-unpack-bundle.sh --if-needed > $OUT/unpack.txt 2>&1 || { cat $OUT/unpack.txt; exit 1; }
export AKO_CACHE_DIR=/tmp/ako-cache
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
N=$OUT/ncu; mkdir -p $N
T0=$(date +%s)
for shape in qwen-image wan13b-480p; do for form in 1 0; do
  rep=$N/$shape-affine$form
  timeout 150 "$NCU" --clock-control none --target-processes all --kernel-name-base demangled \
    --kernel-name "regex:layernorm_kernel<__nv_bfloat16, \(bool\)$form" --launch-skip 5 --launch-count 1 \
    --section SpeedOfLight --section MemoryWorkloadAnalysis --section MemoryWorkloadAnalysis_Tables \
    --section WarpStateStats --section Occupancy --section InstructionStats --section LaunchStats \
    --section SchedulerStats --section SourceCounters -f -o $rep \
    bundle/bin/ako run task layernorm --shapes $shape --dtypes bf16 --no-checks --no-progress --max-time 0.002 \
    --no-cupti --trials 1 --case-timeout 300 > $rep.log 2>&1
  echo "ncu $shape affine=$form rc=$? $(( $(date +%s) - T0 ))s" >> $S
  "$NCU" --import $rep.ncu-rep --csv --page details > $rep.csv 2>/dev/null
  "$NCU" --import $rep.ncu-rep --page source --csv --print-source sass > $rep-sass.csv 2>/dev/null
  python3 - $rep.csv >> $S <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
want = ["Duration", "DRAM Throughput", "L1/TEX Hit Rate", "L2 Hit Rate", "Registers Per Thread", "Achieved Occupancy",
        "Theoretical Occupancy", "Executed Ipc Active", "Issue Slots Busy", "No Eligible", "Warp Cycles Per Issued Instruction",
        "Executed Instructions", "L1/TEX Cache Throughput", "Mem Busy", "Max Bandwidth"]
seen = {}
for r in rows:
    n = r.get("Metric Name", "")
    if n in want and n not in seen: seen[n] = f"{r.get('Metric Value', '')} {r.get('Metric Unit', '')}".strip()
print("  " + "; ".join(f"{k} {v}" for k, v in seen.items()))
PY
done; done
tar cJf $OUT/ncu.tar.xz -C $OUT ncu && rm -rf $N
scripts/gpu-sglang-deps.sh > $OUT/deps.txt 2>&1; echo "deps rc=$? (3 expected): $(tail -1 $OUT/deps.txt)" >> $S
cat $S
