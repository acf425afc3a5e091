#!/usr/bin/env bash
# Session 27, call 6 (nvidia-h200; carry bundle-x). The GPU tests of rope after its partial-r64
# interleaved class (ITERATIONS.md rope iteration 5): RunRope.*. Back: summary.txt, gpu-tests.txt.
set -uo pipefail
OUT=$(realpath "$OUT")
scripts/gpu-unpack-bundle.sh > $OUT/unpack.txt 2>&1 || { cat $OUT/unpack.txt; exit 1; }
t0=$(date +%s)
AKO_CACHE_DIR=/tmp/ako-cache AKO_BIN=$PWD/bundle/bin/ako AKO_ROOT=$PWD timeout 240 \
  bundle/bin/ako_gpu_tests --gtest_filter='RunRope.*' > $OUT/gpu-tests.txt 2>&1
echo "RunRope.* rc=$? ($(( $(date +%s)-t0 )) s): $(grep -E '^\[  (PASSED|FAILED) ' $OUT/gpu-tests.txt | tr '\n' ' ')" | tee $OUT/summary.txt
