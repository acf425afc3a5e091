#!/usr/bin/env bash
# Session 15, call 1 (carry bundle, peers): (1) gated_act with the polynomial erf GELU against the
# erff solution before it (variants/gated_act-erff.cuh), ABBA, every case with --size-copy;
# (2) qknorm_rope's shared-memory stages (STAGES > 0) on the four image shapes: the committed
# config (A) and six staged points by --param, ABCDEFG-GFEDCBA; (3) full `ako run --size-copy`
# of qknorm, rope, qknorm_rope (committed config) for the bar's table; (4) the GPU tests of the
# two tasks.
set -uo pipefail
export AKO_CACHE_DIR=/tmp/ako-cache
A=bundle/bin/ako
R=bench/results/2026-11-29-h200-session15
L=$OUT/logs; mkdir -p $L $OUT/runs; S=$OUT/summary.txt; : > $S
date -u +%FT%TZ > $L/start.txt
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv > $L/smi.txt
run() {  # $1 task, $2 tag, $3 seconds, rest: ako run options
  local t=$1 tag=$2 lim=$3; shift 3
  local t1=$(date +%s)
  timeout $lim $A run task $t --no-progress --json $OUT/runs/$t-$tag.json "$@" > $L/$t-$tag.txt 2>&1
  echo "$t $tag rc=$? ($(( $(date +%s)-t1 )) s): $(grep -E '^CORRECT|^RUNTIME|^SIZE COPY' $L/$t-$tag.txt | tr '\n' ' ')" >> $S
}
# (1) gated_act
run gated_act new-1 150 --size-copy
run gated_act erff-1 150 --size-copy --solution $R/variants/gated_act-erff.cuh
run gated_act erff-2 150 --size-copy --solution $R/variants/gated_act-erff.cuh
run gated_act new-2 150 --size-copy
for p in erff-1:new-1 erff-2:new-2 new-1:new-2 erff-1:erff-2; do
  echo "compare ${p/:/ -> }: $(python3 scripts/compare_runs.py $OUT/runs/gated_act-${p%%:*}.json $OUT/runs/gated_act-${p##*:}.json 1 | head -1)" >> $S
done
# (2) qknorm_rope staged points
SH="--shapes flux1,flux2,zimage,qwen-image"
BASE="--param LANES=16 --param EPL=8 --param HPG=1 --param SPLIT=0 --param PIPE=0 --param REGS=0"
cand() {
  case $1 in
    A) ;;
    B) echo "$BASE --param STAGES=3 --param TPB=8 --param BLOCK=256" ;;
    C) echo "$BASE --param STAGES=2 --param TPB=8 --param BLOCK=256" ;;
    D) echo "$BASE --param STAGES=4 --param TPB=16 --param BLOCK=256" ;;
    E) echo "$BASE --param STAGES=3 --param TPB=8 --param BLOCK=128" ;;
    F) echo "$BASE --param STAGES=3 --param TPB=16 --param BLOCK=512" ;;
    G) echo "$BASE --param STAGES=4 --param TPB=32 --param BLOCK=256" ;;
  esac
}
for c in A B C D E F G; do run qknorm_rope $c-1 90 $SH $(cand $c); done
for c in G F E D C B A; do run qknorm_rope $c-2 90 $SH $(cand $c); done
# (3) the bar's table: full runs with a copy of each case's own bytes
for t in qknorm rope qknorm_rope; do run $t full 200 --size-copy; done
for t in gated_act-new-1 gated_act-new-2 qknorm-full rope-full qknorm_rope-full; do
  python3 scripts/size_copy_table.py $OUT/runs/$t.json > $OUT/runs/$t-table.md 2>&1
done
# (4) GPU tests of the two changed kernels
t1=$(date +%s)
AKO_BIN=$PWD/bundle/bin/ako AKO_ROOT=$PWD timeout 240 bundle/bin/ako_gpu_tests --gtest_filter='RunGatedAct.*:RunQknormRope.*' > $L/gpu-tests.log 2>&1
echo "gpu tests rc=$? ($(( $(date +%s)-t1 )) s): $(grep -E '^\[  PASSED|^\[  FAILED' $L/gpu-tests.log | tr '\n' ' ')" >> $S
date -u +%FT%TZ > $L/end.txt
tar cJf $OUT/call1.tar.xz -C $OUT logs runs && rm -rf $L $OUT/runs
cat $S
