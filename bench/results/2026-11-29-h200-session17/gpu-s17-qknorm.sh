#!/usr/bin/env bash
# Session 17 (carry bundle, peers): qknorm with call 3's config (qwen-image and hunyuan-720p in
# classes of their own): the full `ako run --size-copy` and its labelled bars, the GPU tests
# `RunQknorm.*`, then the ABBA tune of the two wan shapes (scripts/gpu-tune-abba.sh) under $OUT/abba.
set -uo pipefail
export AKO_CACHE_DIR=/tmp/ako-cache
A=bundle/bin/ako
L=$OUT/logs; mkdir -p $L $OUT/runs; S=$OUT/summary.txt; : > $S
date -u +%FT%TZ > $L/start.txt
nvidia-smi --query-gpu=index,name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv > $L/smi.txt
t1=$(date +%s)
timeout 90 $A run task qknorm --size-copy --no-progress --json $OUT/runs/qknorm-full.json > $L/qknorm-full.txt 2>&1
echo "qknorm --size-copy rc=$? ($(( $(date +%s)-t1 )) s): $(grep -E '^CORRECT|^SIZE COPY' $L/qknorm-full.txt | tr '\n' ' ')" >> $S
python3 scripts/engine_table.py $OUT/runs/qknorm-full.json > $OUT/runs/qknorm-full-bars.txt 2>&1
tail -5 $OUT/runs/qknorm-full-bars.txt | cut -c1-400 >> $S
t1=$(date +%s)
AKO_BIN=$PWD/bundle/bin/ako AKO_ROOT=$PWD timeout ${TEST_LIMIT:-90} bundle/bin/ako_gpu_tests \
  --gtest_filter='RunQknorm.*' > $L/gpu-tests.log 2>&1
echo "gpu tests rc=$? ($(( $(date +%s)-t1 )) s): $(grep -E '^\[  PASSED|^\[  FAILED|^\[       OK' $L/gpu-tests.log | tr '\n' ' ' | cut -c1-600)" >> $S
date -u +%FT%TZ > $L/end.txt
tar cJf $OUT/qknorm.tar.xz -C $OUT logs runs && rm -rf $L $OUT/runs
cat $S
mkdir -p $OUT/abba
TUNE_TIME=${TUNE_TIME:-150} OUT=$OUT/abba timeout 300 scripts/gpu-tune-abba.sh qknorm wan13b-480p,wan14b-480p
tar cJf $OUT/abba/runs.tar.xz -C $OUT/abba runs && rm -rf $OUT/abba/runs
