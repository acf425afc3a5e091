#!/usr/bin/env bash
# Session 22, call 5 (nvidia-h200-x2; carry bundle-s, bundle-t/ako_gpu_tests.xz), and call 6 with
# the kernel regexes mended (call 5's matched nothing: ncu spells the arguments with casts) and
# SKIP_TESTS=1.
#  GPU 0: the broken-candidate GPU tests of the three tasks (their candidates now take STATS); then
#         ncu on the [B, C] fp32 no-affine LayerNorm case (below).
#  GPU 1: ncu (--set full, one launch after the validation launch, no clock control) on
#         norm_scale_shift wan13b bf16: the fp32 per-frame no-affine LayerNorm and RMSNorm
#         (EARLY_MOD 3, 256 x 4 tokens; ITERATIONS.md norm_scale_shift iteration 21's Next).
# Everything under $OUT; summary.txt printed last.
set -uo pipefail
export AKO_CACHE_DIR=/tmp/ako-cache
A=bundle-s/bin/ako
L=$OUT/logs; mkdir -p $L $OUT/ncu; S=$OUT/summary.txt; : > $S
date -u +%FT%TZ > $L/start.txt
nvidia-smi --query-gpu=index,name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv > $L/smi.txt
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
ncu_one() {  # gpu name regex
  local g=$1 rep=$OUT/ncu/ncu-$2
  CUDA_VISIBLE_DEVICES=$g AKO_CACHE_DIR=/tmp/ako-cache-$g timeout 150 "$NCU" --clock-control none --target-processes all \
    --kernel-name-base demangled --kernel-name "regex:$3" --launch-skip 1 --launch-count 1 --set full -f -o "$rep" \
    $A run task norm_scale_shift --device "NVIDIA H200" --shapes wan13b-480p --dtypes bf16 --no-cupti --no-checks \
    --trials 1 --max-time 0.05 --case-timeout 600 --no-progress > "$rep.log" 2>&1
  echo "ncu $2 rc=$?" >> $L/gpu$g.txt
  "$NCU" --import "$rep.ncu-rep" --csv --page details > "$rep.csv" 2>/dev/null
  python3 - "$rep.csv" >> $L/gpu$g.txt <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
want = ["Duration", "DRAM Throughput", "Memory Throughput", "L1/TEX Cache Throughput", "L2 Cache Throughput",
        "Registers Per Thread", "Grid Size", "Block Size", "Waves Per SM", "Achieved Occupancy", "Theoretical Occupancy",
        "Issued Warp Per Scheduler", "No Eligible", "L1/TEX Hit Rate", "L2 Hit Rate", "Static Shared Memory Per Block"]
seen = {}
for r in rows:
    n = r.get("Metric Name", "")
    if n in want and n not in seen: seen[n] = f"{r.get('Metric Value', '')} {r.get('Metric Unit', '')}".strip()
if rows: print("  kernel:", rows[0].get("Kernel Name", "?")[:110])
print("  " + "; ".join(f"{n}: {seen[n]}" for n in want if n in seen))
PY
}
# ncu's demangled names spell the template arguments with casts: (Norm)0, (bool)0, (int)256.
F='__nv_bfloat16, float, \(Norm\)0'; R='__nv_bfloat16, float, \(Norm\)1'; I='\(int\)'
half0() {
  if [ -z "${SKIP_TESTS:-}" ]; then
  xz -dc bundle-t/ako_gpu_tests.xz > /tmp/ako_gpu_tests && chmod +x /tmp/ako_gpu_tests
  CUDA_VISIBLE_DEVICES=0 AKO_BIN=$PWD/$A AKO_ROOT=$PWD LD_LIBRARY_PATH=$PWD/bundle-s/lib timeout 150 /tmp/ako_gpu_tests \
    --gtest_filter='NormScaleShift.FrameBlind*:ResidualGateNormScaleShift.FrameBlind*:RunLayernorm.VarianceAroundZero*' > $L/broken-tests.log 2>&1
  echo "broken-candidate tests rc=$?: $(grep -E '^\[  (PASSED|FAILED)  \]|^\[       OK \]|tests? from .* ran' $L/broken-tests.log | tr '\n' ' ')" >> $L/gpu0.txt
  fi
  ncu_one 0 bc-fp32-layer "norm_scale_shift_kernel<$F, \(Layout\)3, \(bool\)0, ${I}64, ${I}8, ${I}1, ${I}3, ${I}0,"
}
half1() {
  ncu_one 1 frame-fp32-layer "norm_scale_shift_kernel<$F, \(Layout\)6, \(bool\)0, ${I}256, ${I}8, ${I}4, ${I}3, ${I}3,"
  ncu_one 1 frame-fp32-rms "norm_scale_shift_kernel<$R, \(Layout\)6, \(bool\)0, ${I}256, ${I}8, ${I}4, ${I}3, ${I}3,"
}
( half0 ) & ( half1 ) & wait
date -u +%FT%TZ > $L/end.txt
echo "== GPU 0" >> $S; cat $L/gpu0.txt >> $S; echo "== GPU 1" >> $S; cat $L/gpu1.txt >> $S
tar cJf $OUT/logs.tar.xz -C $OUT logs && rm -rf $L
tar cJf $OUT/ncu.tar.xz -C $OUT ncu && rm -rf $OUT/ncu
cat $S
