#!/usr/bin/env bash
# Session 14, call 2 (carry bundle): (1) norm_scale_shift iteration 11's config (the replayed
# tune's per-token params, c-bc split by dtype) against the committed one, `ako run --shapes
# text-512-cfg` ABBAAB (the committed one as device "BEFORE"), then `ako gate --tasks
# norm_scale_shift`. (2) residual_gate_norm_scale_shift's text-512-cfg: eight launch shapes
# (A = the config's C-3072-text, the rest by --param for every case) in ABCDEFGH-HGFEDCBA order.
set -uo pipefail
export AKO_CACHE_DIR=/tmp/ako-cache
A=bundle/bin/ako
R=bench/results/2026-11-29-h200-session14
L=$OUT/logs; mkdir -p $L $OUT/runs; S=$OUT/summary.txt; : > $S
date -u +%FT%TZ > $L/start.txt
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv > $L/smi.txt
T=norm_scale_shift
cp $R/nss-config-committed.json "solution/$T/configs/device_name=BEFORE.json"
run() {  # $1 task, $2 tag, $3 device, rest: ako run options
  local t=$1 tag=$2 dev=$3; shift 3
  timeout 120 $A run task $t --shapes text-512-cfg --device "$dev" --no-progress --json $OUT/runs/$t-$tag.json "$@" > $L/$t-run-$tag.txt 2>&1
  echo "$t $tag rc=$?: $(grep -E '^CORRECT|^RUNTIME' $L/$t-run-$tag.txt | tr '\n' ' ')" >> $S
}
run $T before-1 BEFORE; run $T after-1 "NVIDIA H200"; run $T after-2 "NVIDIA H200"
run $T before-2 BEFORE; run $T before-3 BEFORE; run $T after-3 "NVIDIA H200"
rm -f "solution/$T/configs/device_name=BEFORE.json"
timeout 200 $A gate --baseline bench/baseline.json --tasks $T --no-progress > $L/gate-$T.txt 2>&1
echo "gate $T rc=$?: $(grep -E '^GATE' $L/gate-$T.txt)" >> $S
T=residual_gate_norm_scale_shift
cand() {
  case $1 in
    A) ;;
    B) echo "--param BLOCK=256 --param CHUNKS=3 --param ROWS_PER_BLOCK=1 --param VEC=4 --param TOKENS=2 --param EARLY_MOD=0 --param ROW_CACHE=0 --param MIN_BLOCKS=0" ;;
    C) echo "--param BLOCK=256 --param CHUNKS=3 --param ROWS_PER_BLOCK=1 --param VEC=4 --param TOKENS=1 --param EARLY_MOD=0 --param ROW_CACHE=0 --param MIN_BLOCKS=0" ;;
    D) echo "--param BLOCK=384 --param CHUNKS=1 --param ROWS_PER_BLOCK=1 --param VEC=8 --param TOKENS=1 --param EARLY_MOD=0 --param ROW_CACHE=0 --param MIN_BLOCKS=1" ;;
    E) echo "--param BLOCK=128 --param CHUNKS=3 --param ROWS_PER_BLOCK=1 --param VEC=8 --param TOKENS=2 --param EARLY_MOD=0 --param ROW_CACHE=0 --param MIN_BLOCKS=0" ;;
    F) echo "--param BLOCK=256 --param CHUNKS=3 --param ROWS_PER_BLOCK=2 --param VEC=8 --param TOKENS=2 --param EARLY_MOD=0 --param ROW_CACHE=0 --param MIN_BLOCKS=0" ;;
    G) echo "--param BLOCK=256 --param CHUNKS=3 --param ROWS_PER_BLOCK=2 --param VEC=8 --param TOKENS=1 --param EARLY_MOD=1 --param ROW_CACHE=0 --param MIN_BLOCKS=0" ;;
    H) echo "--param BLOCK=256 --param CHUNKS=3 --param ROWS_PER_BLOCK=1 --param VEC=4 --param TOKENS=4 --param EARLY_MOD=0 --param ROW_CACHE=0 --param MIN_BLOCKS=0" ;;
  esac
}
for c in A B C D E F G H; do run $T $c-1 "NVIDIA H200" $(cand $c); done
for c in H G F E D C B A; do run $T $c-2 "NVIDIA H200" $(cand $c); done
date -u +%FT%TZ > $L/end.txt
tar cJf $OUT/call2.tar.xz -C $OUT logs runs && rm -rf $L $OUT/runs
cat $S
