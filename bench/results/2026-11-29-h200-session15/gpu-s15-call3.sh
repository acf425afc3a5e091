#!/usr/bin/env bash
# Session 15, call 3 (carry bundle, peers): plain stores against the streaming st.global.cs ones
# (__stcs) the solutions use, ABBA per task, every shape (variants/<file>-plain-stores.cuh: the
# solution with each __stcs(p, v) written *p = v); then `ako gate --update-baseline` for gated_act
# (iteration 2). TASKS picks the tasks (default qknorm layernorm scale_shift).
set -uo pipefail
export AKO_CACHE_DIR=/tmp/ako-cache
A=bundle/bin/ako
V=bench/results/2026-11-29-h200-session15/variants
L=$OUT/logs; mkdir -p $L $OUT/runs; S=$OUT/summary.txt; : > $S
date -u +%FT%TZ > $L/start.txt
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv > $L/smi.txt
run() {  # $1 task, $2 tag, $3 seconds, rest: ako run options
  local t=$1 tag=$2 lim=$3; shift 3
  local t1=$(date +%s)
  timeout $lim $A run task $t --no-progress --json $OUT/runs/$t-$tag.json "$@" > $L/$t-$tag.txt 2>&1
  echo "$t $tag rc=$? ($(( $(date +%s)-t1 )) s): $(grep -E '^CORRECT|^RUNTIME' $L/$t-$tag.txt | tr '\n' ' ')" >> $S
}
file_of() { case $1 in residual_gate_norm_scale_shift) echo norm_scale_shift ;; *) echo $1 ;; esac; }
for t in ${TASKS:-qknorm layernorm scale_shift}; do
  P="--solution $V/$(file_of $t)-plain-stores.cuh"
  run $t cs-1 200; run $t plain-1 200 $P; run $t plain-2 200 $P; run $t cs-2 200
  for p in cs-1:plain-1 cs-2:plain-2 cs-1:cs-2; do
    echo "  compare ${p/:/ -> }: $(python3 scripts/compare_runs.py $OUT/runs/$t-${p%%:*}.json $OUT/runs/$t-${p##*:}.json 1 | head -1)" >> $S
  done
done
if [ -n "${GATE:-}" ]; then
  cp bench/baseline.json $OUT/baseline-before.json
  timeout 200 $A gate --baseline bench/baseline.json --update-baseline --threshold 5 --tasks $GATE --no-progress > $L/gate-update.txt 2>&1
  echo "gate --update-baseline $GATE rc=$?: $(grep -E '^GATE' $L/gate-update.txt)" >> $S
  cp bench/baseline.json $OUT/baseline-after.json
fi
date -u +%FT%TZ > $L/end.txt
tar cJf $OUT/call3.tar.xz -C $OUT logs runs && rm -rf $L $OUT/runs
cat $S
