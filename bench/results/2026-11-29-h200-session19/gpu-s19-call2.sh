#!/usr/bin/env bash
# Session 19, call 2 (nvidia-h200-x2; carry bundle/bin/ako, ako-worker, ako_gpu_tests, bundle/lib):
# GPU 0: `ako gate --update-baseline --threshold 5` for layernorm (its text-512 affine class now
# WB_EARLY 1), then the GPU suite's shard 0 of 2; GPU 1: shard 1 of 2 (gtest's own sharding:
# GTEST_TOTAL_SHARDS / GTEST_SHARD_INDEX). Each shard has its own kernel cache and TMPDIR.
# Everything under $OUT/call2.tar.xz and $OUT/baseline.json; summary.txt printed last.
set -uo pipefail
R=$OUT/call2; mkdir -p $R; S=$OUT/summary.txt; : > $S
date -u +%FT%TZ > $R/start.txt
nvidia-smi --query-gpu=index,name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv > $R/smi.txt
shard() {  # gpu index
  mkdir -p /tmp/shard$2
  CUDA_VISIBLE_DEVICES=$1 TMPDIR=/tmp/shard$2 AKO_CACHE_DIR=/tmp/shard$2/cache GTEST_TOTAL_SHARDS=2 GTEST_SHARD_INDEX=$2 \
    AKO_BIN=$PWD/bundle/bin/ako AKO_ROOT=$PWD timeout ${SHARD_LIMIT:-500} bundle/bin/ako_gpu_tests > $R/suite-shard$2.log 2>&1
  echo "suite shard $2 rc=$?: $(grep -E '^\[  PASSED|^\[  FAILED|^\[  SKIPPED' $R/suite-shard$2.log | tr '\n' ' ')" >> $R/suite.txt
}
( t1=$(date +%s)
  CUDA_VISIBLE_DEVICES=0 AKO_CACHE_DIR=/tmp/gate-cache timeout 150 bundle/bin/ako gate --baseline bench/baseline.json \
    --update-baseline --threshold 5 --tasks layernorm --no-progress > $R/gate-update.txt 2>&1
  echo "gate --update-baseline layernorm rc=$? ($(( $(date +%s)-t1 )) s): $(grep -E '^GATE' $R/gate-update.txt)" > $R/gate.txt
  cp bench/baseline.json $OUT/baseline.json
  shard 0 0 ) &
( shard 1 1 ) &
wait
date -u +%FT%TZ > $R/end.txt
cat $R/gate.txt $R/suite.txt >> $S
grep -hE '^\[  FAILED|^\[  SKIPPED' $R/suite-shard*.log | sort | uniq >> $S
grep -hE '^\[       OK|^\[  FAILED  \] [A-Z]' $R/suite-shard*.log | awk '{print $NF}' | tr -d '()' | awk '{s+=$1} END {print "tests ms total:", s}' >> $S
tar cJf $OUT/call2.tar.xz -C $OUT call2 && rm -rf $R
cat $S
