#!/usr/bin/env bash
# Session 12, call 10 (carry bundle, peers, .sgl-proof): norm_scale_shift's text-512-cfg affine
# LayerNorm classes chosen again for the slower dtype against call 3c's CuTe DSL timings
# ([B, C] same-dtype TOKENS 4 -> 2; fp32 [B, L, C] to the 384-thread class). ABBA against the
# config before (before-configs/norm_scale_shift-call10.json as device "BEFORE"); the gate entry
# rewritten and checked; the ported kernel with these classes through SGLang's JIT and tvm-ffi.
set -uo pipefail
export AKO_CACHE_DIR=/tmp/ako-cache
D=bench/results/2026-11-26-h200-session12
L=$OUT/logs; mkdir -p $L $OUT/ab; S=$OUT/summary.txt; : > $S
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv > $L/smi.txt
cp $D/before-configs/norm_scale_shift-call10.json "solution/norm_scale_shift/configs/device_name=BEFORE.json"
start=$(date +%s); task=norm_scale_shift; i=0
for v in new before before new; do
  i=$((i+1))
  dev=(); [ $v = before ] && dev=(--device BEFORE)
  timeout 100 bundle/bin/ako run task $task --shapes text-512-cfg "${dev[@]}" --no-progress \
    --json $OUT/ab/$task-$v-$i.json > $L/$task-$v-$i.txt 2>&1
  echo "$task $v $i rc=$? $(( $(date +%s) - start ))s: $(grep -E '^CORRECT|^RUNTIME' $L/$task-$v-$i.txt | tr '\n' ' ')" >> $S
done
rm -f "solution/norm_scale_shift/configs/device_name=BEFORE.json"
python3 $D/../2026-11-25-h200-session9/ab_summary.py $OUT/ab before >> $S 2>&1
python3 $D/variant_table.py $OUT/ab before $D/call3c/peers-norm_scale_shift.json.xz > $OUT/variant-table.txt 2>&1
timeout 150 bundle/bin/ako gate --update-baseline --threshold 5 --tasks $task --baseline bench/baseline.json > $L/gate-update.txt 2>&1
echo "gate --update-baseline rc=$? $(( $(date +%s) - start ))s: $(grep '^GATE' $L/gate-update.txt)" >> $S
cp bench/baseline.json $OUT/baseline.json
timeout 150 bundle/bin/ako gate --tasks $task --baseline bench/baseline.json > $L/gate.txt 2>&1
echo "gate rc=$? $(( $(date +%s) - start ))s: $(grep '^GATE' $L/gate.txt)" >> $S
if [ -d .sgl-proof ]; then
  OUT=$OUT/port timeout 200 scripts/sglang-gpu-check.sh --task $task > $L/port.txt 2>&1
  echo "port proof rc=$? $(( $(date +%s) - start ))s: $(grep -E 'SGLANG-GPU-CHECK' $L/port.txt | tail -1)" >> $S
  [ -d $OUT/port ] && mv $OUT/port $L/
fi
cat $S
tar cJf $OUT/call10.tar.xz -C $OUT ab logs variant-table.txt && rm -rf $L $OUT/ab
