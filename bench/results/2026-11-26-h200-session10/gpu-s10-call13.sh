#!/usr/bin/env bash
# Session 10, call 13: norm_scale_shift's text-512-cfg (1024 rows of 3072; behind SGLang's CuTe DSL
# kernel on 21 of 80 cases in call 10): two runs of the shape with the committed config, a
# 240 s per-shape evolve tune on fp16 (where the gap is widest), two runs with the config it wrote.
set -uo pipefail
export AKO_CACHE_DIR=/tmp/ako-cache
L=$OUT/logs; mkdir -p $L $OUT/ab; S=$OUT/summary.txt; : > $S
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv > $L/smi.txt
run() { timeout 100 bundle/bin/ako run task norm_scale_shift --shapes text-512-cfg --no-progress --json $OUT/ab/norm_scale_shift-$1-$2.json > $L/run-$1-$2.txt 2>&1
        echo "run $1 $2 rc=$?: $(grep -E '^CORRECT|^RUNTIME' $L/run-$1-$2.txt | tr '\n' ' ')" >> $S; }
run base 1; run base 2
cp solution/norm_scale_shift/configs/device_name=NVIDIA_H200.json $OUT/config-before.json
t0=$(date +%s)
timeout 300 bundle/bin/ako tune task norm_scale_shift --strategy evolve --classes shape --shapes text-512-cfg --dtypes fp16 \
  --trials 1 --time 240 --write-config --db $OUT/tune.jsonl > $L/tune.txt 2>&1
echo "tune rc=$? ($(( $(date +%s)-t0 )) s): $(grep '^TUNE' $L/tune.txt)" >> $S
cp solution/norm_scale_shift/configs/device_name=NVIDIA_H200.json $OUT/config-after.json
run tuned 3; run tuned 4
python3 bench/results/2026-11-25-h200-session9/ab_summary.py $OUT/ab base > $OUT/ab-summary.txt 2>&1
cat $S $OUT/ab-summary.txt
xz -9 $OUT/tune.jsonl
tar czf $OUT/logs.tgz -C $OUT logs ab && rm -rf $L $OUT/ab
