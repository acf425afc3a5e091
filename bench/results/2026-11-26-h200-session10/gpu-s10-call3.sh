#!/usr/bin/env bash
# Session 10, call 3: qknorm_rope's per-shape tune of call 1 resumed on the four image shapes
# (its db, another 240 s), a full run with the config it writes, then the gate entry of
# qknorm_rope rewritten (the kernel instances now carry SPLIT and PIPE) and checked.
set -uo pipefail
export AKO_CACHE_DIR=/tmp/ako-cache
D=bench/results/2026-11-26-h200-session10
L=$OUT/logs; mkdir -p $L; S=$OUT/summary.txt; : > $S
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv > $L/smi.txt
xz -dc $D/call1/tune.jsonl.xz > $OUT/tune.jsonl
t0=$(date +%s)
timeout 300 bundle/bin/ako tune task qknorm_rope --strategy evolve --classes shape --shapes flux1,flux2,zimage,qwen-image --dtypes bf16 \
  --trials 1 --time 240 --write-config --db $OUT/tune.jsonl > $L/tune.txt 2>&1
echo "tune rc=$? ($(( $(date +%s)-t0 )) s): $(grep '^TUNE' $L/tune.txt)" >> $S
cp solution/qknorm_rope/configs/device_name=NVIDIA_H200.json $OUT/config-after.json
timeout 120 bundle/bin/ako run task qknorm_rope --no-progress --json $OUT/run.json > $L/run.txt 2>&1
echo "full run rc=$?: $(grep -E '^CORRECT|^BASELINE' $L/run.txt | tr '\n' ' ')" >> $S
timeout 120 bundle/bin/ako gate --update-baseline --threshold 5 --tasks qknorm_rope --baseline bench/baseline.json > $L/gate-update.txt 2>&1
echo "gate --update-baseline rc=$?: $(grep '^GATE' $L/gate-update.txt)" >> $S
cp bench/baseline.json $OUT/baseline.json
timeout 120 bundle/bin/ako gate --tasks qknorm_rope --baseline bench/baseline.json > $L/gate.txt 2>&1
echo "gate rc=$?: $(grep '^GATE' $L/gate.txt)" >> $S
cat $S
xz -9 $OUT/tune.jsonl $OUT/run.json
tar czf $OUT/logs.tgz -C $OUT logs && rm -rf $L
