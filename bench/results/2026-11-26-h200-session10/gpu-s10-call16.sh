#!/usr/bin/env bash
# Session 10, call 16: qknorm_rope's head-parallel path now calls the shared norm-rotate-store
# step (same ptxas register counts): its GPU tests, then A/B against the kernel before (exp/qr-before.cuh: solution/qknorm_rope/qknorm_rope.cuh of 41d7c66, copied there for the call, not kept),
# ABBA, the small shapes (their SPLIT 0 classes) and zimage forced to SPLIT 0.
set -uo pipefail
export AKO_CACHE_DIR=/tmp/ako-cache
L=$OUT/logs; mkdir -p $L $OUT/ab; S=$OUT/summary.txt; : > $S
AKO_BIN=$PWD/bundle/bin/ako AKO_ROOT=$PWD timeout 200 bundle/bin/ako_gpu_tests --gtest_filter='RunQknormRope.*' > $L/tests.log 2>&1
echo "RunQknormRope tests rc=$?: $(grep -E '^\[  PASSED  \]|^\[  FAILED  \]' $L/tests.log | tr '\n' ' ')" >> $S
sol() { case $1 in before) echo "--solution exp/qr-before.cuh";; *) echo "";; esac; }
i=0
for v in before now now before; do
  i=$((i+1))
  timeout 100 bundle/bin/ako run task qknorm_rope --shapes partial-r64,neox-r32,d64,d256-r128 --no-progress $(sol $v) --json $OUT/ab/small-$v-$i.json > $L/small-$v-$i.txt 2>&1
  echo "small $v $i rc=$?: $(grep -E '^CORRECT|^BASELINE' $L/small-$v-$i.txt | tr '\n' ' ')" >> $S
  timeout 100 bundle/bin/ako run task qknorm_rope --shapes zimage,hunyuan-720p --param SPLIT=0 --param HPG=1 --param LANES=16 --param EPL=8 --param BLOCK=128 --param REGS=0 --no-progress $(sol $v) --json $OUT/ab/split0-$v-$i.json > $L/split0-$v-$i.txt 2>&1
  echo "split0 $v $i rc=$?: $(grep -E '^CORRECT' $L/split0-$v-$i.txt | tr '\n' ' ')" >> $S
done
timeout 100 bundle/bin/ako run task qknorm_rope --no-progress > $L/full.txt 2>&1
echo "full run rc=$?: $(grep -E '^CORRECT|^BASELINE' $L/full.txt | tr '\n' ' ')" >> $S
python3 bench/results/2026-11-25-h200-session9/ab_summary.py $OUT/ab before > $OUT/ab-summary.txt 2>&1
cat $S $OUT/ab-summary.txt
tar czf $OUT/logs.tgz -C $OUT logs ab && rm -rf $L $OUT/ab
