#!/usr/bin/env bash
# Session 15, call 5 (carry bundle, peers): the STORE_CS parameter (streaming or plain stores)
# with the H200 configs that set STORE_CS = 0 where call 3-4's A/B found plain stores faster,
# against the configs before (<task>-config-before.json as device "BEFORE": the same kernels as
# before, STORE_CS = 1 being every class's default), ABBA per task, every shape; then
# `ako gate --update-baseline` for the five tasks. Run again as call 6 with TASKS="scale_shift
# residual_gate_norm_scale_shift" BEFORE=call5: the class splits by layout (scale_shift wan14b /
# hunyuan bc) and by case (the residual fusion's C-1536) against the configs of call 5.
set -uo pipefail
export AKO_CACHE_DIR=/tmp/ako-cache
A=bundle/bin/ako
R=bench/results/2026-11-29-h200-session15
L=$OUT/logs; mkdir -p $L $OUT/runs; S=$OUT/summary.txt; : > $S
date -u +%FT%TZ > $L/start.txt
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv > $L/smi.txt
run() {  # $1 task, $2 tag, $3 device
  local t=$1 tag=$2 dev=$3
  local t1=$(date +%s)
  timeout 200 $A run task $t --device "$dev" --no-progress --json $OUT/runs/$t-$tag.json > $L/$t-$tag.txt 2>&1
  echo "$t $tag rc=$? ($(( $(date +%s)-t1 )) s): $(grep -E '^CORRECT|^RUNTIME' $L/$t-$tag.txt | tr '\n' ' ')" >> $S
}
TASKS=${TASKS:-"qknorm layernorm scale_shift norm_scale_shift residual_gate_norm_scale_shift"}
for t in $TASKS; do
  cp $R/$t-config-${BEFORE:-before}.json "solution/$t/configs/device_name=BEFORE.json"
  run $t before-1 BEFORE; run $t after-1 "NVIDIA H200"; run $t after-2 "NVIDIA H200"; run $t before-2 BEFORE
  rm -f "solution/$t/configs/device_name=BEFORE.json"
  for p in before-1:after-1 before-2:after-2 before-1:before-2; do
    echo "  compare ${p/:/ -> }: $(python3 scripts/compare_runs.py $OUT/runs/$t-${p%%:*}.json $OUT/runs/$t-${p##*:}.json 1 2>/dev/null | sed -n 1p)" >> $S
  done
done
cp bench/baseline.json $OUT/baseline-before.json
G=$(echo $TASKS | tr ' ' ',')
timeout 300 $A gate --baseline bench/baseline.json --update-baseline --threshold 5 --tasks $G --no-progress > $L/gate-update.txt 2>&1
echo "gate --update-baseline rc=$?: $(grep -E '^GATE' $L/gate-update.txt)" >> $S
cp bench/baseline.json $OUT/baseline-after.json
date -u +%FT%TZ > $L/end.txt
tar cJf $OUT/${TAR:-call5}.tar.xz -C $OUT logs runs && rm -rf $L $OUT/runs
cat $S
