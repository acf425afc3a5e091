#!/usr/bin/env bash
# Session 9, call 3: the norm fusions' row streams again: __ldcs (committed), __ldg, plain ld.global, __ldg with
# plain stores; bf16 full runs of both tasks, ABCDDCBA order; summary by ab_summary.py.
set -uo pipefail
export AKO_CACHE_DIR=/tmp/ako-cache
S=bench/results/2026-11-25-h200-session9; V=$S/variants
L=$OUT/logs; mkdir -p $L $OUT/ab; : > $OUT/summary.txt
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv > $L/smi.txt
sol() { case $1 in base) echo "";; ldg) echo "--solution $V/nss-ldg.cuh";; plain) echo "--solution $V/nss-plain.cuh";; ldgst) echo "--solution $V/nss-ldgst.cuh";; esac; }
for task in residual_gate_norm_scale_shift norm_scale_shift; do
  i=0
  for var in base ldg plain ldgst ldgst plain ldg base; do
    i=$((i+1)); t0=$(date +%s.%N)
    timeout 150 bundle/bin/ako run task $task --dtypes bf16 --no-progress $(sol $var) --json $OUT/ab/$task-$var-$i.json > $L/$task-$var-$i.txt 2>&1
    echo "$task $var run $i rc=$? $(python3 -c "print(f'{$(date +%s.%N)-$t0:.1f}')") s $(grep -E '^CORRECT' $L/$task-$var-$i.txt)" >> $OUT/summary.txt
  done
done
python3 $S/ab_summary.py $OUT/ab base > $OUT/ab-summary.txt 2>&1
cat $OUT/summary.txt $OUT/ab-summary.txt
tar czf $OUT/logs.tgz -C $OUT logs ab && rm -rf $L $OUT/ab
