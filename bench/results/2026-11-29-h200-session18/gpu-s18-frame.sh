#!/usr/bin/env bash
# Session 18 (nvidia-h200-x2; carry bundle/bin/ako, bundle/bin/ako-worker, bundle/lib): the norm
# fusions' EARLY_MOD 2 (ITERATIONS.md norm_scale_shift iteration 14) against the committed H200
# configs, `ako run ... --param EARLY_MOD=2` A B B A per shape; GPU 0 the residual fusion, GPU 1
# norm_scale_shift, at the same time. wan14b's residual class (C-5120: 2 tokens a 256-thread
# block) does not fit 2 x 40 KB of staging: there B is the 128-thread one-token shape with
# EARLY_MOD 2 and C is that shape with EARLY_MOD 0, to tell the launch shape from the staging.
# Everything under $OUT/frame.tar.xz; summary.txt printed last.
set -uo pipefail
export AKO_CACHE_DIR=/tmp/ako-cache
A=bundle/bin/ako
R=$OUT/frame; mkdir -p $R; S=$OUT/summary.txt; : > $S
date -u +%FT%TZ > $R/start.txt
nvidia-smi --query-gpu=index,name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv > $R/smi.txt
run() {  # gpu tag task shape [--param ...]
  local gpu=$1 tag=$2 task=$3 shape=$4; shift 4
  CUDA_VISIBLE_DEVICES=$gpu timeout 200 $A run task $task --shapes $shape --no-progress --json $R/$tag.json "$@" \
    > $R/$tag.txt 2>&1
  echo "$tag rc=$?: $(grep -E '^CORRECT|^RUNTIME' $R/$tag.txt | tr '\n' ' ')" >> $R/runs-gpu$gpu.txt
}
abba() {  # gpu task shape name B-params...
  local gpu=$1 task=$2 shape=$3 name=$4; shift 4
  run $gpu $name-A1 $task $shape; run $gpu $name-B1 $task $shape "$@"
  run $gpu $name-B2 $task $shape "$@"; run $gpu $name-A2 $task $shape
  python3 scripts/abba_cases.py $R/$name-{A1,B1,B2,A2}.json > $R/$name-cases.txt 2>&1
}
RES=residual_gate_norm_scale_shift NSS=norm_scale_shift
( abba 0 $RES wan13b-480p res-wan13b --param EARLY_MOD=2
  abba 0 $RES wan14b-480p res-wan14b --param EARLY_MOD=2 --param BLOCK=128 --param ROWS_PER_BLOCK=1 --param MIN_BLOCKS=1
  abba 0 $RES wan14b-480p res-wan14b-shape --param BLOCK=128 --param ROWS_PER_BLOCK=1 --param MIN_BLOCKS=1 ) &
( abba 1 $NSS wan13b-480p nss-wan13b --param EARLY_MOD=2
  abba 1 $NSS wan14b-480p nss-wan14b --param EARLY_MOD=2 ) &
wait
date -u +%FT%TZ > $R/end.txt
for f in $R/runs-gpu*.txt; do cat $f >> $S; done
for f in $R/*-cases.txt; do echo "== $(basename $f)" >> $S; cat $f >> $S; done
tar cJf $OUT/frame.tar.xz -C $OUT frame && rm -rf $R
cat $S
