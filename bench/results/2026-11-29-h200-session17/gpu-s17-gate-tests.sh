#!/usr/bin/env bash
# Session 17, the last call (nvidia-h200-x2, carry bundle built with the probe fix, peers):
# `ako gate --update-baseline --threshold 5 --tasks qknorm` for qknorm's new H200 classes
# (bench/baseline.json comes back under $OUT), then the GPU tests of the tune's multi-GPU and
# stop paths, `MultiGpuTune.*` and `KillTune.*`, as far as TEST_LIMIT allows.
set -uo pipefail
export AKO_CACHE_DIR=/tmp/ako-cache
A=bundle/bin/ako
L=$OUT/logs; mkdir -p $L; S=$OUT/summary.txt; : > $S
date -u +%FT%TZ > $L/start.txt
nvidia-smi --query-gpu=index,name,uuid,driver_version,clocks.sm,temperature.gpu --format=csv > $L/gpus.txt
t1=$(date +%s)
timeout ${GATE_LIMIT:-120} $A gate --baseline bench/baseline.json --update-baseline --threshold 5 --tasks qknorm \
  --no-progress > $L/gate-update.txt 2>&1
echo "gate --update-baseline rc=$? ($(( $(date +%s)-t1 )) s): $(grep -E '^GATE' $L/gate-update.txt | cut -c1-300)" >> $S
cp bench/baseline.json $OUT/baseline.json
t1=$(date +%s)
AKO_BIN=$PWD/bundle/bin/ako AKO_ROOT=$PWD timeout ${TEST_LIMIT:-170} bundle/bin/ako_gpu_tests \
  --gtest_filter='MultiGpuTune.*:KillTune.*' > $L/gpu-tests.log 2>&1
echo "gpu tests rc=$? ($(( $(date +%s)-t1 )) s): $(grep -E '^\[  PASSED|^\[  FAILED|^\[       OK' $L/gpu-tests.log | tr '\n' ' ' | cut -c1-700)" >> $S
date -u +%FT%TZ > $L/end.txt
tar cJf $OUT/logs.tar.xz -C $OUT logs && rm -rf $L
cat $S
