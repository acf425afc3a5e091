#!/usr/bin/env bash
# Session 35, call 8 (nvidia-h200; carry bundle-x). norm_scale_shift's wan13b [B, C] cases of every form (norm,
# modulation dtype, affine; the task's `when` widened: variants/nss-task-wan13b-bc.json) under C-1536's kernel and
# the points of nss-bc-forms-sets.txt, A X..X A; then ncu on the bf16 no-affine same-dtype LayerNorm and RMSNorm
# kernels of C-1536 (one launch each, no clock control), digested by scripts/ncu_details.py and ncu_stalls.py.
# Back: summary.txt (printed last), sweep.tar.xz, ncu.tar.xz.
set -uo pipefail
OUT=$(realpath "$OUT")
S=$OUT/summary.txt; : > $S
T0=$(date +%s)
scripts/gpu-unpack-bundle.sh --if-needed > $OUT/unpack.txt 2>&1 || { cat $OUT/unpack.txt; exit 1; }
export AKO_CACHE_DIR=/tmp/ako-cache
D=bench/results/2026-12-01-h200-session35
V=$D/variants/nss-task-wan13b-bc.json
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv,noheader >> $S
W=$OUT/sweep; mkdir -p $W
OUT=$W/forms SPEC=$V WHERE="layout == 'bc'" RUN_TIMEOUT=60 \
  scripts/gpu-sweep-sets.sh norm_scale_shift wan13b-480p $D/nss-bc-forms-sets.txt > /dev/null 2>&1
cat $W/forms/summary.txt | cut -c1-400 >> $S
python3 - $W/forms/runs/A1.json $W/forms/runs/A2.json >> $S <<'PY'
import json, sys
runs = [{(c["dtype"], c["axes"]["norm"], c["axes"]["mod_dtype"], c["flags"].get("affine")): c["solution_time"]["iqm_us"]
         for c in json.load(open(p))["cases"] if c.get("kind") == "compare" and c.get("verdict") == "correct"} for p in sys.argv[1:]]
print("A (C-1536) per form, the mean of A1 and A2, us:")
for k in sorted(runs[0]):
    print(f"  {k[0]} {k[1]:5s} mod {k[2]:4s} affine={k[3]}: {(runs[0][k] + runs[1][k]) / 2:.2f}")
PY
tar cJf $OUT/sweep.tar.xz -C $OUT sweep && rm -rf $W
N=$OUT/ncu; mkdir -p $N
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
SECTIONS="--section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy --section LaunchStats --section SchedulerStats --section WarpStateStats --section InstructionStats --section SourceCounters"
for norm in layer rms; do
  timeout 120 "$NCU" --clock-control none --target-processes all --kernel-name regex:norm_scale_shift_kernel \
    --launch-skip 1 --launch-count 1 $SECTIONS -f -o $N/$norm bundle/bin/ako run task $V --device "NVIDIA H200" \
    --shapes wan13b-480p --dtypes bf16 --where "layout == 'bc' && mod_dtype == 'same' && !affine && norm == '$norm'" \
    --no-cupti --no-checks --trials 1 --max-time 0.05 --case-timeout 300 --no-progress > $N/$norm.log 2>&1
  echo "ncu $norm rc=$? ($(( $(date +%s) - T0 )) s)" >> $S
  "$NCU" --import $N/$norm.ncu-rep --csv --page details > $N/$norm.csv 2>/dev/null
  "$NCU" --import $N/$norm.ncu-rep --page source --csv --print-source sass > $N/$norm-sass.csv 2>/dev/null
  python3 scripts/ncu_details.py $N/$norm.csv >> $S 2>&1
  python3 scripts/ncu_stalls.py $N/$norm-sass.csv >> $S 2>&1
done
tar cJf $OUT/ncu.tar.xz -C $OUT ncu && rm -rf $N
echo "wall $(( $(date +%s) - T0 )) s" >> $S
cat $S
