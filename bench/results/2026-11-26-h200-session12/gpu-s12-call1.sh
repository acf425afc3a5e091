#!/usr/bin/env bash
# Session 12, call 1: norm_scale_shift iteration 8 (TOKENS), first measurement. Both norm
# fusions on the 512-token text shapes, both dtypes, ABCDEF then FEDCBA:
#   base  the committed configs (TOKENS 1: the kernel of before)
#   t2/t4 the same params with TOKENS 2 / 4
#   w1/w2/w4  CuTe DSL's launch shape (384 threads a token, one 16-byte chunk each) with TOKENS 1/2/4
# Then the image shapes with TOKENS 1 / 2 / 4 on the committed params. Per-case tables against
# session 10's CuTe DSL timings (another H200, same model).
set -uo pipefail
export AKO_CACHE_DIR=/tmp/ako-cache
D=bench/results/2026-11-26-h200-session12
P=bench/results/2026-11-26-h200-session10
L=$OUT/logs; mkdir -p $L $OUT/ab; S=$OUT/summary.txt; : > $S
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv > $L/smi.txt
W="--param BLOCK=384 --param VEC=8 --param ROWS_PER_BLOCK=1 --param CHUNKS=1 --param EARLY_MOD=0 --param MIN_BLOCKS=1"
args() {
  case $1 in
    base) echo "";; t2) echo "--param TOKENS=2";; t4) echo "--param TOKENS=4";;
    w1) echo "$W --param TOKENS=1";; w2) echo "$W --param TOKENS=2";; w4) echo "$W --param TOKENS=4";;
  esac
}
start=$(date +%s)
# First: the TOKENS paths correct across batch and frame boundaries (tests/gpu, both tasks).
AKO_BIN=$PWD/bundle/bin/ako AKO_ROOT=$PWD timeout 300 bundle/bin/ako_gpu_tests \
  --gtest_filter='*TokenGroupsAreCorrectAcrossBatchAndFrameBoundaries*' > $L/gpu-tests-tokens.log 2>&1
echo "token-group GPU tests rc=$? $(( $(date +%s) - start ))s: $(grep -E '^\[  PASSED|^\[  FAILED' $L/gpu-tests-tokens.log | tr '\n' ' ')" >> $S
for task in norm_scale_shift residual_gate_norm_scale_shift; do
  i=0
  for v in base t2 t4 w1 w2 w4 w4 w2 w1 t4 t2 base; do
    i=$((i+1))
    [ $(( $(date +%s) - start )) -gt 480 ] && { echo "$task $v $i: skipped (the call's time)" >> $S; continue; }
    timeout 150 bundle/bin/ako run task $task --shapes text-512,text-512-cfg $(args $v) --no-progress \
      --json $OUT/ab/$task-$v-$i.json > $L/$task-$v-$i.txt 2>&1
    echo "$task $v $i rc=$? $(( $(date +%s) - start ))s: $(grep -E '^CORRECT|^RUNTIME' $L/$task-$v-$i.txt | tr '\n' ' ')" >> $S
  done
done
# The image shapes (B * L <= 8192: TOKENS allowed), committed params with TOKENS 1 / 2 / 4.
mkdir -p $OUT/ab-image
for task in norm_scale_shift residual_gate_norm_scale_shift; do
  i=0
  for v in base t2 t4 t4 t2 base; do
    i=$((i+1))
    [ $(( $(date +%s) - start )) -gt 430 ] && { echo "image $task $v $i: skipped (the call's time)" >> $S; continue; }
    # zimage's residual case spills with TOKENS 2 / 4 at its class's 256 threads (the static
    # checks would refuse the whole run): left out there.
    shapes=flux1-single,qwen-image,zimage,ltx-video
    [ $task = residual_gate_norm_scale_shift ] && shapes=flux1-single,qwen-image,ltx-video
    timeout 150 bundle/bin/ako run task $task --shapes $shapes $(args $v) --no-progress \
      --json $OUT/ab-image/$task-$v-$i.json > $L/image-$task-$v-$i.txt 2>&1
    echo "image $task $v $i rc=$? $(( $(date +%s) - start ))s: $(grep -E '^CORRECT|^RUNTIME' $L/image-$task-$v-$i.txt | tr '\n' ' ')" >> $S
  done
done
python3 $D/variant_table.py $OUT/ab-image base $P/call10/peers-norm_scale_shift.json.xz \
  $P/call11/peers-residual_gate_norm_scale_shift.json.xz > $OUT/variant-table-image.txt 2>&1
python3 $P/../2026-11-25-h200-session9/ab_summary.py $OUT/ab base >> $S 2>&1
python3 $D/variant_table.py $OUT/ab base $P/call10/peers-norm_scale_shift.json.xz \
  $P/call11/peers-residual_gate_norm_scale_shift.json.xz > $OUT/variant-table.txt 2>&1
grep -E "^==|^best" $OUT/variant-table.txt >> $S
python3 $P/../2026-11-25-h200-session9/ab_summary.py $OUT/ab-image base >> $S 2>&1
cat $S
tar cJf $OUT/call1.tar.xz -C $OUT ab ab-image logs variant-table.txt variant-table-image.txt && rm -rf $L $OUT/ab $OUT/ab-image
