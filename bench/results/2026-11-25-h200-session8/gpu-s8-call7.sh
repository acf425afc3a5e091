#!/usr/bin/env bash
# Session 8, call 7: ncu on the residual fusion's wan14b cases (the solution's validation launch
# of each of the 4 cases) and on rmsnorm's wan14b solution (a kernel at 98-100% of copy), for
# the next iteration of the norm fusions (issue 14).
set -uo pipefail
export AKO_CACHE_DIR=/tmp/ako-cache
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
L=$OUT/logs; mkdir -p $L
prof() { local name=$1 task=$2 regex=$3 count=$4 shape=$5
  $NCU --target-processes all --kernel-name-base function --kernel-name "regex:$regex" --launch-count $count \
    --section SpeedOfLight --section MemoryWorkloadAnalysis --section LaunchStats --section Occupancy --section WarpStateStats \
    -f -o $L/$name bundle/bin/ako run task $task --shapes $shape --dtypes bf16 --no-checks --no-time --trials 1 --no-progress > $L/$name.log 2>&1
  echo "$name rc=$?"
  $NCU --import $L/$name.ncu-rep --csv --page details > $L/$name.csv 2>/dev/null
  python3 - $L/$name.csv <<'PY'
import csv, sys, collections
rows = list(csv.DictReader(open(sys.argv[1])))
want = ["Duration", "DRAM Throughput", "Memory Throughput", "L1/TEX Cache Throughput", "L2 Cache Throughput",
        "Registers Per Thread", "Block Size", "Achieved Occupancy", "Theoretical Occupancy", "Waves Per SM",
        "Warp Cycles Per Issued Instruction", "Mem Busy", "Max Bandwidth", "Mem Pipes Busy"]
by = collections.OrderedDict()
for r in rows:
    key = r.get("ID", "?")
    by.setdefault(key, {"name": r.get("Kernel Name", "")[:60]})
    n = r.get("Metric Name", "")
    if n in want and n not in by[key]: by[key][n] = f"{r.get('Metric Value','')} {r.get('Metric Unit','')}".strip()
for k, v in by.items():
    print(" ", k, v.pop("name"))
    print("    " + "; ".join(f"{n}: {v[n]}" for n in want if n in v))
PY
}
prof residual-wan14b residual_gate_norm_scale_shift residual_gate_norm_scale_shift_kernel 4 wan14b-480p
prof nss-wan14b norm_scale_shift norm_scale_shift_kernel 2 wan14b-480p
prof rmsnorm-wan14b rmsnorm rmsnorm_kernel 2 wan14b-480p
tar czf $OUT/ncu.tgz -C $OUT logs && rm -rf $L
