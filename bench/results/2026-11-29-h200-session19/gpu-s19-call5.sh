#!/usr/bin/env bash
# Session 19, call 5 (nvidia-h200-x2; carry bundle/bin/ako, ako-worker, bundle/lib,
# peers/flashinfer-python-0.7.2):
# GPU 0: `ako gate --update-baseline --threshold 5` for layernorm with FlashInfer's headers present
#   (call 2's update ran without them and dropped the FlashInfer timings of the entry).
# GPU 1: the residual fusion's text-512-cfg per-token cases tuned as a class of their own:
#   scripts/gpu-tune-abba.sh residual_gate_norm_scale_shift text-512-cfg --where "layout == 'lc'".
# Everything under $OUT/call5.tar.xz and $OUT/baseline.json; summary.txt printed last.
set -uo pipefail
R=$OUT/call5; mkdir -p $R; S=$OUT/summary.txt; : > $S
date -u +%FT%TZ > $R/start.txt
nvidia-smi --query-gpu=index,name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv > $R/smi.txt
( CUDA_VISIBLE_DEVICES=1 AKO_CACHE_DIR=/tmp/tune-cache OUT=$R/res-tune TUNE_TIME=240 timeout 560 \
    bash scripts/gpu-tune-abba.sh residual_gate_norm_scale_shift text-512-cfg --where "layout == 'lc'" > $R/res-tune.out 2>&1 ) &
( t1=$(date +%s)
  CUDA_VISIBLE_DEVICES=0 AKO_CACHE_DIR=/tmp/gate-cache timeout 200 bundle/bin/ako gate --baseline bench/baseline.json \
    --update-baseline --threshold 5 --tasks layernorm --no-progress > $R/gate-update.txt 2>&1
  echo "gate --update-baseline layernorm rc=$? ($(( $(date +%s)-t1 )) s): $(grep -E '^GATE' $R/gate-update.txt)" > $R/gate.txt
  cp bench/baseline.json $OUT/baseline.json ) &
wait
date -u +%FT%TZ > $R/end.txt
cat $R/gate.txt >> $S; echo "== residual tune (text-512-cfg lc)" >> $S; cat $R/res-tune/summary.txt >> $S 2>&1
[ -d $R/res-tune/runs ] && python3 scripts/abba_cases.py $R/res-tune/runs/{before-1,after-1,after-2,before-2}.json | grep -E "layout=lc|cases:" >> $S 2>&1
tar cJf $OUT/call5.tar.xz -C $OUT call5 && rm -rf $R
cat $S
