#!/usr/bin/env bash
# Session 19, call 6 (one nvidia-h200; carry bundle/bin/ako, ako-worker, bundle/lib): the residual
# fusion's text-512-cfg fp16 cases, the committed classes (A) against --param STORE_CS=1 (B) and
# --param EARLY_MOD=0 (C), A B C C B A (ITERATIONS.md norm_scale_shift iteration 16).
# Everything under $OUT/call6.tar.xz; summary.txt printed last.
set -uo pipefail
export AKO_CACHE_DIR=/tmp/ako-cache
R=$OUT/call6; mkdir -p $R; S=$OUT/summary.txt; : > $S
date -u +%FT%TZ > $R/start.txt
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv > $R/smi.txt
run() {  # tag [--param ...]
  local tag=$1; shift
  timeout 60 bundle/bin/ako run task residual_gate_norm_scale_shift --shapes text-512-cfg --dtypes fp16 --no-progress \
    --json $R/$tag.json "$@" > $R/$tag.txt 2>&1
  echo "$tag rc=$?: $(grep -E '^CORRECT|^RUNTIME' $R/$tag.txt | tr '\n' ' ')" >> $S
}
run A1; run B1 --param STORE_CS=1; run C1 --param EARLY_MOD=0; run C2 --param EARLY_MOD=0; run B2 --param STORE_CS=1; run A2
date -u +%FT%TZ > $R/end.txt
for x in B C; do echo "== $x / A" >> $S; python3 scripts/abba_cases.py $R/A1.json $R/${x}1.json $R/${x}2.json $R/A2.json > $R/$x-cases.txt 2>&1
  grep -E "layout=lc|cases:" $R/$x-cases.txt >> $S; done
tar cJf $OUT/call6.tar.xz -C $OUT call6 && rm -rf $R
cat $S
