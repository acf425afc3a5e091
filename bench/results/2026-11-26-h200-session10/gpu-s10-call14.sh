#!/usr/bin/env bash
# Session 10, call 14 (carry bundle, peers, .sgl-proof): norm_scale_shift with the text-512-cfg
# class for fp32 modulation (call 13's tuned params on those cases only): two runs of the shape,
# the gate entry of the task rewritten and checked, the ported kernel with that class through
# SGLang's JIT and tvm-ffi.
set -uo pipefail
export AKO_CACHE_DIR=/tmp/ako-cache
L=$OUT/logs; mkdir -p $L $OUT/ab; S=$OUT/summary.txt; : > $S
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv > $L/smi.txt
for i in 1 2; do
  timeout 100 bundle/bin/ako run task norm_scale_shift --shapes text-512-cfg --no-progress --json $OUT/ab/norm_scale_shift-split-$i.json > $L/run-$i.txt 2>&1
  echo "run $i rc=$?: $(grep -E '^CORRECT|^RUNTIME' $L/run-$i.txt | tr '\n' ' ')" >> $S
done
timeout 150 bundle/bin/ako gate --update-baseline --threshold 5 --tasks norm_scale_shift --baseline bench/baseline.json > $L/gate-update.txt 2>&1
echo "gate --update-baseline --tasks norm_scale_shift rc=$?: $(grep '^GATE' $L/gate-update.txt)" >> $S
cp bench/baseline.json $OUT/baseline.json
timeout 150 bundle/bin/ako gate --tasks norm_scale_shift --baseline bench/baseline.json > $L/gate.txt 2>&1
echo "gate --tasks norm_scale_shift rc=$?: $(grep '^GATE' $L/gate.txt)" >> $S
t0=$(date +%s)
OUT=$OUT/port timeout 200 scripts/sglang-gpu-check.sh --task norm_scale_shift > $L/port-proof.log 2>&1
echo "port proof rc=$? ($(( $(date +%s)-t0 )) s)" >> $S
tail -3 $L/port-proof.log >> $S
cat $S
xz -9 $OUT/ab/*.json
tar czf $OUT/logs.tgz -C $OUT logs ab port 2>/dev/null; rm -rf $L $OUT/ab $OUT/port
