#!/usr/bin/env bash
# Session 12, call 2: norm_scale_shift iteration 8's hand classes (TOKENS 2 / 4 for text-512-cfg's
# affine LayerNorm cases; CuTe DSL's launch shape for its per-token layouts and for the residual
# fusion's text-512). The token-group GPU tests of both tasks (the residual one fixed: its
# workspace copy lacked input/norm_scale_shift); ABBA on the text shapes, the new configs (A)
# against the committed ones (B, before-configs/, run as device "BEFORE"); full runs of both tasks.
set -uo pipefail
export AKO_CACHE_DIR=/tmp/ako-cache
D=bench/results/2026-11-26-h200-session12
P=bench/results/2026-11-26-h200-session10
L=$OUT/logs; mkdir -p $L $OUT/ab; S=$OUT/summary.txt; : > $S
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv > $L/smi.txt
for t in norm_scale_shift residual_gate_norm_scale_shift; do
  cp $D/before-configs/$t.json "solution/$t/configs/device_name=BEFORE.json"
done
start=$(date +%s)
AKO_BIN=$PWD/bundle/bin/ako AKO_ROOT=$PWD timeout 330 bundle/bin/ako_gpu_tests \
  --gtest_filter='*TokenGroupsAreCorrectAcrossBatchAndFrameBoundaries*' > $L/gpu-tests-tokens.log 2>&1
echo "token-group GPU tests rc=$? $(( $(date +%s) - start ))s: $(grep -E '^\[  PASSED|^\[  FAILED' $L/gpu-tests-tokens.log | tr '\n' ' ')" >> $S
for task in norm_scale_shift residual_gate_norm_scale_shift; do
  i=0
  for v in new before before new; do
    i=$((i+1))
    [ $(( $(date +%s) - start )) -gt 470 ] && { echo "$task $v $i: skipped (the call's time)" >> $S; continue; }
    dev=(); [ $v = before ] && dev=(--device BEFORE)
    timeout 120 bundle/bin/ako run task $task --shapes text-512,text-512-cfg "${dev[@]}" --no-progress \
      --json $OUT/ab/$task-$v-$i.json > $L/$task-$v-$i.txt 2>&1
    echo "$task $v $i rc=$? $(( $(date +%s) - start ))s: $(grep -E '^CORRECT|^RUNTIME' $L/$task-$v-$i.txt | tr '\n' ' ')" >> $S
  done
done
python3 $P/../2026-11-25-h200-session9/ab_summary.py $OUT/ab before >> $S 2>&1
python3 $D/variant_table.py $OUT/ab before $P/call10/peers-norm_scale_shift.json.xz \
  $P/call11/peers-residual_gate_norm_scale_shift.json.xz > $OUT/variant-table.txt 2>&1
grep -E "^==|^best" $OUT/variant-table.txt >> $S
for task in norm_scale_shift residual_gate_norm_scale_shift; do
  [ $(( $(date +%s) - start )) -gt 500 ] && { echo "full $task: skipped (the call's time)" >> $S; continue; }
  timeout 90 bundle/bin/ako run task $task --no-progress --json $OUT/full-$task.json > $L/full-$task.txt 2>&1
  echo "full run $task rc=$? $(( $(date +%s) - start ))s: $(grep -E '^CORRECT|^RUNTIME|^SPEEDUP' $L/full-$task.txt | tr '\n' ' ')" >> $S
done
rm -f solution/*/configs/device_name=BEFORE.json
cat $S
tar cJf $OUT/call2.tar.xz -C $OUT ab logs variant-table.txt $(cd $OUT && ls full-*.json 2>/dev/null) && rm -rf $L $OUT/ab $OUT/full-*.json
