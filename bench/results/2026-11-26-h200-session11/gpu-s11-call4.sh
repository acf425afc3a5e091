#!/usr/bin/env bash
# Session 11, call 4: ncu of norm_scale_shift's wan13b-480p bf16 kernel, LayerNorm, no affine,
# fp32 modulation, in the [B, C] layout (96% of a copy of its bytes) and the per-frame [B, F, 1, C]
# layout (73%): same class, same registers (48), same bytes. One launch each after the validation launch, `--set full`, as
# `ako iterate --ncu` runs ako (--no-cupti: ncu holds the profiling interface). Run three times:
# the first time's regex spelled the template arguments as NVRTC does, not as ncu's demangler does;
# the second's section list profiled nothing ("No kernels were profiled"), as session 10's calls 4-5.
set -uo pipefail
export AKO_CACHE_DIR=/tmp/ako-cache
L=$OUT/logs; mkdir -p $L; S=$OUT/summary.txt; : > $S
NCU=${AKO_NCU:-$(command -v ncu || echo /usr/local/cuda/bin/ncu)}
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv > $L/smi.txt
for lay in bc:3 bf1c:6; do
  name=${lay%%:*} idx=${lay##*:}
  rep=$OUT/ncu-$name
  timeout 280 "$NCU" --clock-control none --target-processes all --kernel-name-base demangled \
    --kernel-name "regex:norm_scale_shift_kernel<__nv_bfloat16, float, \(Norm\)0, \(Layout\)$idx, \(bool\)0" \
    --launch-skip 1 --launch-count 1 --set full -f -o "$rep" \
    bundle/bin/ako run task norm_scale_shift --shapes wan13b-480p --dtypes bf16 --no-checks --no-progress --max-time 0.002 \
    --no-cupti --trials 1 --case-timeout 600 > $L/ncu-$name.log 2>&1
  echo "ncu $name rc=$?" >> $S
  "$NCU" --import "$rep.ncu-rep" --csv --page details > $OUT/ncu-$name.csv 2>/dev/null
  "$NCU" --import "$rep.ncu-rep" --csv --page raw > $L/ncu-$name-raw.csv 2>/dev/null
done
python3 - $OUT/ncu-bc.csv $OUT/ncu-bf1c.csv >> $S <<'PY'
import csv, sys
want = ["Duration", "DRAM Throughput", "Memory Throughput", "L1/TEX Cache Throughput", "L2 Cache Throughput",
        "L1/TEX Hit Rate", "L2 Hit Rate", "Mem Busy", "Max Bandwidth", "Mem Pipes Busy", "Achieved Occupancy",
        "Registers Per Thread", "Issue Slots Busy", "Executed Ipc Active", "Warp Cycles Per Issued Instruction",
        "No Eligible", "Active Warps Per Scheduler", "Eligible Warps Per Scheduler"]
vals = []
for f in sys.argv[1:]:
    seen = {}
    try:
        rows = list(csv.DictReader(open(f)))
    except Exception as e:
        rows = []
    for r in rows:
        n = r.get("Metric Name", "")
        if n in want and n not in seen: seen[n] = f"{r.get('Metric Value', '')} {r.get('Metric Unit', '')}".strip()
    vals.append(seen)
print(f"{'metric':40s} {'bc':>20s} {'bf1c':>20s}")
for n in want:
    print(f"{n:40s} {vals[0].get(n, '-'):>20s} {vals[1].get(n, '-'):>20s}")
PY
cat $S
rm -f $OUT/*.ncu-rep
tar cJf $OUT/call4.tar.xz -C $OUT logs ncu-bc.csv ncu-bf1c.csv && rm -rf $L $OUT/ncu-*.csv
