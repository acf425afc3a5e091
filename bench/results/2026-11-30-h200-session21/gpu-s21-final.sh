#!/usr/bin/env bash
# Session 21, call 4 (nvidia-h200-x2; carry bundle-s, bundle-t/ako_gpu_tests.xz): the configs with
# the EARLY_MOD 3 classes (ITERATIONS.md norm_scale_shift iteration 20).
#  GPU 0: `ako gate --update-baseline --threshold 5` for both norm fusions (bench/baseline.json is
#         its rewrite), then the NormScaleShift GPU tests;
#  GPU 1: the ResidualGateNormScaleShift GPU tests (its token-group test runs 7 launch forms).
# Everything under $OUT/final.tar.xz; summary.txt printed last.
set -uo pipefail
export AKO_CACHE_DIR=/tmp/ako-cache
A=bundle-s/bin/ako
R=$OUT/final; mkdir -p $R; S=$OUT/summary.txt; : > $S
date -u +%FT%TZ > $R/start.txt
nvidia-smi --query-gpu=index,name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv > $R/smi.txt
xz -dc bundle-t/ako_gpu_tests.xz > /tmp/ako_gpu_tests && chmod +x /tmp/ako_gpu_tests
tests() {  # gpu filter name limit
  CUDA_VISIBLE_DEVICES=$1 AKO_BIN=$PWD/$A AKO_ROOT=$PWD LD_LIBRARY_PATH=$PWD/bundle-s/lib timeout $4 /tmp/ako_gpu_tests \
    --gtest_filter="$2" > $R/$3-tests.log 2>&1
  echo "$3 tests rc=$?: $(grep -E '^\[  (PASSED|FAILED)  \]|^\[       OK \]|tests? from .* ran' $R/$3-tests.log | tr '\n' ' ')" >> $R/runs-gpu$1.txt
}
( t1=$(date +%s)
  CUDA_VISIBLE_DEVICES=0 timeout 330 $A gate --baseline bench/baseline.json --update-baseline --threshold 5 \
    --tasks norm_scale_shift,residual_gate_norm_scale_shift --no-progress > $R/gate-update.txt 2>&1
  echo "gate --update-baseline rc=$? ($(( $(date +%s)-t1 )) s): $(grep -E '^GATE|refusing' $R/gate-update.txt | cut -c1-300)" >> $R/runs-gpu0.txt
  cp bench/baseline.json $OUT/baseline.json
  tests 0 'NormScaleShift.*' nss 200 ) &
( tests 1 'ResidualGateNormScaleShift.*' res 540 ) &
wait
date -u +%FT%TZ > $R/end.txt
for g in 0 1; do echo "== GPU $g" >> $S; cat $R/runs-gpu$g.txt >> $S; done
tar cJf $OUT/final.tar.xz -C $OUT final && rm -rf $R
cat $S
