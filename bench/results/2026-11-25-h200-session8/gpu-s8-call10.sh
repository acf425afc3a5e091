#!/usr/bin/env bash
# Session 8, call 10: issue 19 on one H200: the MultiGpuTune GPU test (rmsnorm, random 24 per
# class: a warm-up, one GPU, then --gpus all; same bests, UUID on every record, no slower).
set -uo pipefail
export AKO_CACHE_DIR=/tmp/ako-cache
mkdir -p $OUT
nvidia-smi -L > $OUT/gpus.txt
AKO_BIN=$PWD/bundle/bin/ako AKO_ROOT=$PWD timeout 220 bundle/bin/ako_gpu_tests --gtest_filter='MultiGpuTune.*' > $OUT/multi-gpu-test.log 2>&1
echo "rc=$?"
grep -E "ako tune rmsnorm|OK \]|FAILED|Failure|Expected|Which is|required|error" $OUT/multi-gpu-test.log | head -24
