#!/usr/bin/env bash
# Session 11, call 1 (run twice: the first run's copies had a few-KB tail, see README): `ako run --size-copy` on the H200. The GPU test of the new column, then
# every task's full run with a copy of each case's own bytes timed beside its kernels, and the
# per-shape table (scripts/size_copy_table.py) of where a plain copy of that size lands.
set -uo pipefail
export AKO_CACHE_DIR=/tmp/ako-cache
L=$OUT/logs; mkdir -p $L; S=$OUT/summary.txt; : > $S
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv > $L/smi.txt
t0=$(date +%s)
AKO_BIN=$PWD/bundle/bin/ako AKO_ROOT=$PWD timeout 120 bundle/bin/ako_gpu_tests --gtest_filter='SizeCopy.*:InterleavedTiming.*' \
  > $L/gpu-tests.log 2>&1
echo "tests rc=$? ($(( $(date +%s)-t0 )) s): $(grep -E '^\[  PASSED|^\[  FAILED' $L/gpu-tests.log | tr '\n' ' ')" >> $S
grep "^size copy" $L/gpu-tests.log >> $S
for t in rmsnorm qknorm rope qknorm_rope gated_act layernorm scale_shift norm_scale_shift residual_gate_norm_scale_shift; do
  t1=$(date +%s)
  timeout 150 bundle/bin/ako run task $t --size-copy --no-progress --json $OUT/$t.json > $L/$t.txt 2>&1
  echo "$t rc=$? ($(( $(date +%s)-t1 )) s): $(grep -E '^CORRECT|^SIZE COPY' $L/$t.txt | tr '\n' ' ')" >> $S
done
# The same copy with the L2 left clean by the flush (a read): what the dirty lines cost a copy.
for t in rmsnorm qknorm_rope; do
  timeout 60 bundle/bin/ako run task $t --size-copy --l2-flush read --dtypes bf16 --no-progress --json $OUT/$t-read.json > $L/$t-read.txt 2>&1
  echo "$t --l2-flush read rc=$?: $(grep -E '^CORRECT|^SIZE COPY' $L/$t-read.txt | tr '\n' ' ')" >> $S
done
for t in rmsnorm qknorm rope qknorm_rope gated_act layernorm scale_shift norm_scale_shift residual_gate_norm_scale_shift rmsnorm-read qknorm_rope-read; do
  [ -f $OUT/$t.json ] && python3 scripts/size_copy_table.py $OUT/$t.json > $OUT/$t-table.md 2>&1
done
cat $S
# One archive: a call returns a limited number of files.
mkdir -p $OUT/runs && mv $OUT/*.json $OUT/*-table.md $OUT/runs/ 2>/dev/null
tar cJf $OUT/call1.tar.xz -C $OUT runs logs && rm -rf $L $OUT/runs
