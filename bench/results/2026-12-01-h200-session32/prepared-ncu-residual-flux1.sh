#!/usr/bin/env bash
# Prepared in session 32 for a later session's call (not run in session 32): residual fusion iteration 34's Next,
# ncu on flux1-single's no-affine [B, C] LayerNorm case (same-dtype modulation, [B, C] gate), the one image case
# behind CuTe DSL (0.968x in fp16, level in bf16, session 28), both dtypes: ako's class kernel (`ako run`) and
# SGLang's CuTe DSL kernel (bench/peer_timing.py --where ..., the peer sglang_cute), one launch each after
# warm-ups, no clock control; then each report's SASS with executed counts.
# Needs the CuTe DSL deps on the machine: a call before this one, within ~30 s, carrying .sglang-deps/py312-1 ..
# py312-6 and running scripts/gpu-sglang-deps.sh (exit 3); this call carries .sglang-deps/py312-7, py312-8,
# bundle-x and peers. Back: summary.txt (printed last), ncu.tar.xz.
set -uo pipefail
OUT=$(realpath "$OUT")
S=$OUT/summary.txt; : > $S
T0=$(date +%s)
scripts/gpu-sglang-deps.sh > $OUT/deps.txt 2>&1; echo "deps rc=$?: $(tail -1 $OUT/deps.txt)" >> $S
scripts/gpu-unpack-bundle.sh --if-needed > $OUT/unpack.txt 2>&1 || { cat $OUT/unpack.txt; exit 1; }
export AKO_CACHE_DIR=/tmp/ako-cache
N=$OUT/ncu; mkdir -p $N
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
SECTIONS="--section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy --section LaunchStats --section SchedulerStats --section WarpStateStats --section InstructionStats --section SourceCounters"
WH="!affine && layout == 'bc' && gate == 'bc' && mod_dtype == 'same' && norm == 'layer'"
digest() {  # name
  "$NCU" --import $N/$1.ncu-rep --csv --page details > $N/$1.csv 2>/dev/null
  "$NCU" --import $N/$1.ncu-rep --page source --csv --print-source sass > $N/$1-sass.csv 2>/dev/null
  python3 - $N/$1.csv >> $S <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
want = ["Duration", "DRAM Throughput", "L1/TEX Cache Throughput", "L2 Cache Throughput", "Registers Per Thread",
        "Grid Size", "Block Size", "Achieved Occupancy", "Issued Warp Per Scheduler", "Warp Cycles Per Issued Instruction",
        "Executed Instructions", "SM Active Cycles", "Elapsed Cycles"]
seen = {}
for r in rows:
    n = r.get("Metric Name", "")
    if n in want and n not in seen: seen[n] = f"{r.get('Metric Value', '')} {r.get('Metric Unit', '')}".strip()
if rows: print("  kernel:", rows[0].get("Kernel Name", "?")[:150])
print("  " + "; ".join(f"{n}: {seen[n]}" for n in want if n in seen))
PY
}
for dt in fp16 bf16; do
  timeout 120 "$NCU" --clock-control none --target-processes all --kernel-name regex:residual_gate_norm_scale_shift_kernel \
    --launch-skip 1 --launch-count 1 $SECTIONS -f -o $N/ako-$dt bundle/bin/ako run task residual_gate_norm_scale_shift \
    --device "NVIDIA H200" --shapes flux1-single --dtypes $dt --where "$WH" --no-cupti --no-checks --trials 1 \
    --max-time 0.05 --case-timeout 300 --no-progress > $N/ako-$dt.log 2>&1
  echo "ncu ako $dt rc=$? ($(( $(date +%s) - T0 )) s)" >> $S; digest ako-$dt
  timeout 200 "$NCU" --clock-control none --target-processes all --kernel-name regex:kernel_cutlass_kernel_sglang \
    --launch-skip 5 --launch-count 1 $SECTIONS -f -o $N/cute-$dt python3 bench/peer_timing.py residual_gate_norm_scale_shift \
    --shapes flux1-single --dtypes $dt --where "$WH" --peers sglang_cute --deps /tmp/sglang-deps/site --samples 50 \
    > $N/cute-$dt.log 2>&1
  echo "ncu cute $dt rc=$? ($(( $(date +%s) - T0 )) s)" >> $S; digest cute-$dt
done
echo "wall $(( $(date +%s) - T0 )) s" >> $S
tar cJf $OUT/ncu.tar.xz -C $OUT ncu && rm -rf $N
cat $S
