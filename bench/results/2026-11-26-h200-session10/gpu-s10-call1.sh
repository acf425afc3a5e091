#!/usr/bin/env bash
# Session 10, call 1: the gate against the H200 entry (the CPU fixes since the last GPU run and
# qknorm_rope's new SPLIT / PIPE parameters, whose defaults are the committed kernel), then
# qknorm_rope's token-split layout: A/B of hand-picked points against the committed config
# (ABCDEFFEDCBA; 16 lanes of 16 bytes, 128 threads; registers 40, 40, 40, 40, 64 for the
# five split points), bf16 and fp16 on the five model shapes; then a per-shape evolve tune with
# SPLIT / PIPE in the space (150 s) and a full run with the config it wrote.
set -uo pipefail
export AKO_CACHE_DIR=/tmp/ako-cache
L=$OUT/logs; mkdir -p $L $OUT/ab; S=$OUT/summary.txt; : > $S
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv > $L/smi.txt
t0=$(date +%s)
timeout 170 bundle/bin/ako gate --baseline bench/baseline.json > $L/gate.txt 2>&1; echo "gate rc=$? ($(( $(date +%s)-t0 )) s)" >> $S
grep -E "^  FAIL|^GATE" $L/gate.txt | head -20 >> $S
SH=flux1,flux2,zimage,qwen-image,hunyuan-720p
P="--param LANES=16 --param EPL=8 --param BLOCK=128"
var() { case $1 in
  base) echo "";;
  s2h1) echo "$P --param SPLIT=2 --param HPG=1 --param PIPE=0 --param REGS=0";;
  s4h1) echo "$P --param SPLIT=4 --param HPG=1 --param PIPE=0 --param REGS=0";;
  s2p1) echo "$P --param SPLIT=2 --param HPG=1 --param PIPE=1 --param REGS=40";;
  s4p1) echo "$P --param SPLIT=4 --param HPG=1 --param PIPE=1 --param REGS=40";;
  s4h2) echo "$P --param SPLIT=4 --param HPG=2 --param PIPE=0 --param REGS=0";;
esac; }
i=0
for v in base s2h1 s4h1 s2p1 s4p1 s4h2 s4h2 s4p1 s2p1 s4h1 s2h1 base; do
  i=$((i+1)); t0=$(date +%s.%N)
  timeout 120 bundle/bin/ako run task qknorm_rope --shapes $SH --dtypes bf16,fp16 --no-progress $(var $v) --json $OUT/ab/qknorm_rope-$v-$i.json > $L/qknorm_rope-$v-$i.txt 2>&1
  echo "qknorm_rope $v run $i rc=$? $(python3 -c "print(f'{$(date +%s.%N)-$t0:.1f}')") s $(grep -E '^CORRECT|^BASELINE' $L/qknorm_rope-$v-$i.txt | tr '\n' ' ')" >> $S
done
python3 bench/results/2026-11-25-h200-session9/ab_summary.py $OUT/ab base > $OUT/ab-summary.txt 2>&1
cp solution/qknorm_rope/configs/device_name=NVIDIA_H200.json $OUT/config-before.json
t0=$(date +%s)
timeout 240 bundle/bin/ako tune task qknorm_rope --strategy evolve --classes shape --shapes $SH --dtypes bf16 --trials 1 \
  --time 150 --write-config --db $OUT/tune.jsonl > $L/tune.txt 2>&1
echo "tune rc=$? ($(( $(date +%s)-t0 )) s): $(grep '^TUNE' $L/tune.txt)" >> $S
cp solution/qknorm_rope/configs/device_name=NVIDIA_H200.json $OUT/config-after.json
timeout 120 bundle/bin/ako run task qknorm_rope --no-progress --json $OUT/after-tune.json > $L/after-tune.txt 2>&1
echo "full run, tuned config rc=$?: $(grep -E '^CORRECT|^BASELINE' $L/after-tune.txt | tr '\n' ' ')" >> $S
cat $S $OUT/ab-summary.txt
xz -9 $OUT/tune.jsonl $OUT/after-tune.json 2>/dev/null
tar czf $OUT/logs.tgz -C $OUT logs ab && rm -rf $L $OUT/ab
