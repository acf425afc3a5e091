#!/usr/bin/env bash
# Session 19, call 4 (nvidia-h200-x2; carry bundle/bin/ako, ako-worker, ako_gpu_tests, bundle/lib,
# peers/flashinfer-python-0.7.2):
# GPU 0: layernorm's affine image shapes (under issue 14's 90% copy bar) tuned as classes of their
#   own with WB_EARLY in the space: scripts/gpu-tune-abba.sh layernorm <4 shapes> --where affine.
# GPU 1: RunLayernorm.* (the broken candidate now has WB_EARLY in its template; the odd widths
#   run with WB_EARLY 0 and 1), FlashInfer's headers present.
# Everything under $OUT/call4.tar.xz; summary.txt printed last.
set -uo pipefail
R=$OUT/call4; mkdir -p $R; S=$OUT/summary.txt; : > $S
date -u +%FT%TZ > $R/start.txt
nvidia-smi --query-gpu=index,name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv > $R/smi.txt
# The tests read a copy of the tree taken before the tune writes its config into this one.
mkdir -p /tmp/tree && cp -r tasks input solution tests peers engines /tmp/tree/
( CUDA_VISIBLE_DEVICES=0 AKO_CACHE_DIR=/tmp/tune-cache OUT=$R/ln-tune TUNE_TIME=300 timeout 560 \
    bash scripts/gpu-tune-abba.sh layernorm flux1-single,flux2-single,qwen-image,zimage --where affine > $R/ln-tune.out 2>&1 ) &
( mkdir -p /tmp/t1; CUDA_VISIBLE_DEVICES=1 TMPDIR=/tmp/t1 AKO_CACHE_DIR=/tmp/t1/cache AKO_BIN=$PWD/bundle/bin/ako AKO_ROOT=/tmp/tree \
    timeout 400 bundle/bin/ako_gpu_tests --gtest_filter='RunLayernorm.*' > $R/layernorm-tests.log 2>&1
  echo "RunLayernorm.* rc=$?: $(grep -E '^\[  PASSED|^\[  FAILED' $R/layernorm-tests.log | tr '\n' ' ')" > $R/tests.txt ) &
wait
date -u +%FT%TZ > $R/end.txt
cat $R/tests.txt >> $S; echo "== layernorm tune (affine image shapes)" >> $S; cat $R/ln-tune/summary.txt >> $S 2>&1
[ -d $R/ln-tune/runs ] && python3 scripts/abba_cases.py $R/ln-tune/runs/{before-1,after-1,after-2,before-2}.json >> $S 2>&1
tar cJf $OUT/call4.tar.xz -C $OUT call4 && rm -rf $R
cat $S
