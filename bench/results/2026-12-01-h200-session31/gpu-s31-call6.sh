#!/usr/bin/env bash
# Session 31, call 6 (nvidia-h200; carry bundle-x): the walk's row test without a division a token
# (variants/nss-walk-no-division.cuh, the tree's kernel) against the committed walk kernel
# (variants/nss-walk-committed.cuh), both by --solution, on wan13b's and wan14b's per-frame cases:
# 1. the H200 config, A B B A (the walk classes' six cases move; the rest run the same kernels: noise);
# 2. every per-frame case at call 1's W7 walk point (64 x 3 chunks, WALK 8, DEPTH 4), A B B A;
# 3. ncu on the tree's kernel (call 5's third step again: its script stopped after the first report on an
#    unbound $1, fixed).
# Back: summary.txt (printed last), abba.tar.xz, ncu.tar.xz.
set -uo pipefail
OUT=$(realpath "$OUT")
S=$OUT/summary.txt; : > $S
T0=$(date +%s)
scripts/gpu-unpack-bundle.sh --if-needed > $OUT/unpack.txt 2>&1 || { cat $OUT/unpack.txt; exit 1; }
export AKO_CACHE_DIR=/tmp/ako-cache
D=bench/results/2026-12-01-h200-session31
R=$OUT/abba; mkdir -p $R
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv,noheader >> $S
W7="--param BLOCK=64 --param ROWS_PER_BLOCK=1 --param CHUNKS=3 --param VEC=8 --param MIN_BLOCKS=1 --param WALK=8 --param DEPTH=4 --param EARLY_MOD=0 --param ROW_CACHE=0 --param TOKENS=1 --param STATS=1 --param STORE_CS=0"
one() {  # tag solution [args]
  local tag=$1 sol=$2; shift 2
  timeout 120 bundle/bin/ako run task norm_scale_shift --shapes wan13b-480p,wan14b-480p --where "layout == 'bf1c'" \
    --no-progress --solution $sol "$@" --json $R/$tag.json > $R/$tag.txt 2>&1
  echo "$tag rc=$?: $(grep -E '^CORRECT' $R/$tag.txt | tr '\n' ' ' | cut -c1-100)" >> $S
}
A=$D/variants/nss-walk-committed.cuh B=solution/norm_scale_shift/norm_scale_shift.cuh
one A1 $A; one B1 $B; one B2 $B; one A2 $A
python3 scripts/abba_cases.py $R/A1.json $R/B1.json $R/B2.json $R/A2.json --label "no division / committed (config)" > $R/abba-config.txt 2>&1
grep -E "^no division|^noise" $R/abba-config.txt | cut -c1-2500 >> $S
one wA1 $A $W7; one wB1 $B $W7; one wB2 $B $W7; one wA2 $A $W7
python3 scripts/abba_cases.py $R/wA1.json $R/wB1.json $R/wB2.json $R/wA2.json --label "no division / committed (W7)" > $R/abba-w7.txt 2>&1
grep -E "^no division|^noise" $R/abba-w7.txt | cut -c1-2500 >> $S
tar cJf $OUT/abba.tar.xz -C $OUT abba && rm -rf $R
N=$OUT/ncu; mkdir -p $N
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
WALK="--param BLOCK=64 --param ROWS_PER_BLOCK=1 --param CHUNKS=3 --param VEC=8 --param MIN_BLOCKS=1 --param WALK=8 --param DEPTH=4 --param EARLY_MOD=0 --param ROW_CACHE=0 --param TOKENS=1 --param STATS=1 --param STORE_CS=0"
ncu_one() {  # name where [ako args...]
  local name=$1 rep=$N/ncu-$1 where=$2; shift 2
  timeout 120 "$NCU" --clock-control none --target-processes all --kernel-name regex:norm_scale_shift_kernel \
    --launch-skip 1 --launch-count 1 --section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy \
    --section LaunchStats --section SchedulerStats --section WarpStateStats --section InstructionStats -f -o "$rep" \
    bundle/bin/ako run task norm_scale_shift --device "NVIDIA H200" --shapes wan13b-480p --dtypes bf16 --where "$where" \
    --no-cupti --no-checks --trials 1 --max-time 0.05 --case-timeout 300 --no-progress "$@" > "$rep.log" 2>&1
  echo "ncu $name rc=$? ($(( $(date +%s) - T0 )) s)" >> $S
  "$NCU" --import "$rep.ncu-rep" --csv --page details > "$rep.csv" 2>/dev/null
  python3 - "$rep.csv" >> $S <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
want = ["Duration", "DRAM Throughput", "Memory Throughput", "L1/TEX Cache Throughput", "L2 Cache Throughput",
        "Registers Per Thread", "Grid Size", "Block Size", "Waves Per SM", "Achieved Occupancy", "Theoretical Occupancy",
        "Issued Warp Per Scheduler", "No Eligible", "Warp Cycles Per Issued Instruction", "Executed Instructions",
        "L1/TEX Hit Rate", "L2 Hit Rate", "Static Shared Memory Per Block"]
seen = {}
for r in rows:
    n = r.get("Metric Name", "")
    if n in want and n not in seen: seen[n] = f"{r.get('Metric Value', '')} {r.get('Metric Unit', '')}".strip()
if rows: print("  kernel:", rows[0].get("Kernel Name", "?")[:150])
print("  " + "; ".join(f"{n}: {seen[n]}" for n in want if n in seen))
PY
}
ncu_one walk-frame-affine "layout == 'bf1c' && affine && norm == 'layer' && mod_dtype == 'fp32'"
ncu_one bc-class "layout == 'bc'"
ncu_one walk-bc "layout == 'bc'" $WALK
tar cJf $OUT/ncu.tar.xz -C $OUT ncu && rm -rf $N
echo "wall $(( $(date +%s) - T0 )) s" >> $S
cat $S
