#!/usr/bin/env bash
# Session 36, call 2 (nvidia-h200; carry bundle-x). Call 1 put qknorm's wan13b per-head kernel 2.2% behind an in-place
# read-and-write-back of the same strided bytes (100.48 against 98.28 us), and its PTX (NVRTC and nvcc alike) stores
# each 16-byte chunk as four 32-bit stores on every class with plain stores (STORE_CS 0: 16 of the H200 config's 20
# kernels), where the identity kernel stores one 16-byte vector. Variants (variants/): qknorm-stwb.cuh, the plain
# store through __stwb (st.global.wb.v4, the same write-back policy as a plain store, one 16-byte access);
# qknorm-stwb-recip.cuh, that and the per-head mean as sum * (1 / HEAD_DIM) instead of a full fp32 division (exact:
# HEAD_DIM is a power of two). Registers (NVRTC): per head 28 -> 29, across heads 32-36 -> 32-40.
# Prediction (before the run): stwb 1-2% faster on every STORE_CS 0 class (wan13b per head over the 95% bar), level on
# flux1 and the D = 64 narrow class (STORE_CS 1); the reciprocal a further 0-0.5% on the per-head cases.
# A B B A each, every qknorm case, --size-copy. Back: summary.txt (printed last), stwb/ and stwb-recip/ (runs, cases).
set -uo pipefail
OUT=$(realpath "$OUT")
S=$OUT/summary.txt; : > $S
T0=$(date +%s)
D=bench/results/2026-12-01-h200-session36
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv,noheader >> $S
for v in stwb stwb-recip; do
  OUT=$OUT/$v B_SOLUTION=$D/variants/qknorm-$v.cuh LABEL="$v / committed" RUN_TIMEOUT=200 \
    scripts/gpu-abba.sh qknorm --no-checks --size-copy > $OUT/$v.log 2>&1
  echo "== $v rc=$?" >> $S
  cat $OUT/$v/summary.txt >> $S
  grep -E "wan13b|wan14b|hunyuan" $OUT/$v/cases.txt | cut -c1-200 >> $S
done
echo "wall $(( $(date +%s) - T0 )) s" >> $S
cat $S
