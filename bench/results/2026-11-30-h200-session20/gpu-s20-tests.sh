#!/usr/bin/env bash
# Session 20, call 7 (nvidia-h200-x2; carry bundle-s: scripts/make-bundle.sh's ako, ako-worker,
# ako_gpu_tests and lib with their symbols stripped, so the call fits the carry limit beside the
# repository): both norm fusions' GPU tests after ITERATIONS.md norm_scale_shift iteration 18's
# kernel change, norm_scale_shift on GPU 0 and the residual fusion on GPU 1 at once.
set -uo pipefail
export AKO_CACHE_DIR=/tmp/ako-cache
R=$OUT/tests; mkdir -p $R; S=$OUT/summary.txt; : > $S
t() {  # gpu filter name
  CUDA_VISIBLE_DEVICES=$1 AKO_BIN=$PWD/bundle-s/bin/ako AKO_ROOT=$PWD timeout 500 bundle-s/bin/ako_gpu_tests \
    --gtest_filter="$2" > $R/$3.log 2>&1
  echo "$3 rc=$?: $(grep -E '^\[  (PASSED|FAILED)  \]|^\[==========\]' $R/$3.log | tr '\n' ' ')" > $R/$3.rc
}
t 0 'NormScaleShift.*' nss & t 1 'ResidualGateNormScaleShift.*' res & wait
cat $R/*.rc >> $S; grep -h "FAILED\|Failure" $R/*.log | head -20 >> $S
tar cJf $OUT/tests.tar.xz -C $OUT tests && rm -rf $R
cat $S
