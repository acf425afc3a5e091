#!/usr/bin/env bash
# Session 31, call 5 (nvidia-h200, warm after call 4, which brought the CuTe DSL deps parts 1-6; carry
# .sglang-deps/py312-7, py312-8, .sgl-proof-nss31, peers, bundle-x):
# 1. the deps completed; norm_scale_shift's port (.sgl-proof-nss31, proven in call 3) timed in SGLang's
#    process against CuTe DSL and torch on wan13b and wan14b, --no-wrapper --engine-timing --timing-only
#    --placements 3 (every timed case's output checked);
# 2. ncu (one launch after the first, no clock control, the sections below) on wan13b bf16: the walk class's
#    fp32 per-frame affine LayerNorm kernel, the [B, C] fp32 no-affine LayerNorm kernel (its class), and the
#    walk point on that [B, C] case (ITERATIONS.md norm_scale_shift iteration 40's Next).
# Back: summary.txt (printed last), nss.tar.xz, ncu.tar.xz.
set -uo pipefail
OUT=$(realpath "$OUT")
S=$OUT/summary.txt; : > $S
T0=$(date +%s)
scripts/gpu-sglang-deps.sh > $OUT/deps.txt 2>&1; rc=$?; echo "deps rc=$rc: $(tail -1 $OUT/deps.txt)" >> $S
DEPS=""; [ $rc -eq 0 ] && DEPS="--deps /tmp/sglang-deps/site"
scripts/gpu-unpack-bundle.sh --if-needed > $OUT/unpack.txt 2>&1 || { cat $OUT/unpack.txt; exit 1; }
export AKO_CACHE_DIR=/tmp/ako-cache
L=$OUT/nss; mkdir -p $L
ENVS="SGL_PROOF=$PWD/.sgl-proof-nss31 SGL_GPU_CHECK_BUILD=/tmp/sgc-build-nss31t TVMFFI_TARGET=/tmp/tvmffi-s31-nsst TVM_FFI_CACHE_DIR=/tmp/tvmffi-cache-s31-nsst"
env OUT=$L $ENVS timeout 330 scripts/sglang-gpu-check.sh --task norm_scale_shift --no-wrapper \
  --engine-timing --timing-only --placements 3 --timing-shapes wan13b-480p,wan14b-480p $DEPS > $L/log.txt 2>&1
echo "nss timing rc=$? ($(( $(date +%s) - T0 )) s): $(grep -E 'SGLANG-GPU-CHECK' $L/log.txt | tail -1)" >> $S
grep -E '^tvm_ffi|copy bandwidth|cases timed' $L/log.txt >> $S
f=$L/engine-timing-norm_scale_shift.json
if [ -f $f ]; then
  python3 scripts/engine_table.py $f > $L/tables-nss.txt 2>&1
  python3 scripts/engine_table.py --markdown --by-shape $f > $L/tables-nss.md 2>&1
  grep -E '^[a-z_]+: NVIDIA|^ako vs|^slower|^under' $L/tables-nss.txt | cut -c1-1500 >> $S
  xz -9 $f
fi
xz -9 $L/log.txt
tar cJf $OUT/nss.tar.xz -C $OUT nss && rm -rf $L
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
