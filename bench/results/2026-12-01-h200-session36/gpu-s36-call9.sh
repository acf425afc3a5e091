#!/usr/bin/env bash
# Session 36, call 9 (nvidia-h200; carry bundle-x, peers). gated_act against SGLang's JIT act_and_mul_kernel: a tie at
# the copy (call 7: geomean 1.001x, 8 cases at 0.995-1.000x, both kernels at 94-102% of copy). SGLang's kernel stores
# with plain (write-back) stores; ako's with streaming ones (__stcs, evict-first) on every class, where qknorm, layernorm
# and the norm fusions found plain stores 1-3% faster on the long video shapes and streaming ones faster on flux1
# (their STORE_CS parameters). variants/gated_act-stwb.cuh: every store through __stwb (one 16-byte st.global.wb).
# Prediction: the video and large image shapes 0.5-1% faster, the text and small image shapes level or slower; the
# ties would then go to ako on the larger shapes only, so a STORE_CS parameter by class, not one switch.
# A B B A (scripts/gpu-abba.sh), every case, --size-copy. Back: summary.txt (printed last), abba.tar.xz.
set -uo pipefail
OUT=$(realpath "$OUT")
S=$OUT/summary.txt; : > $S
D=bench/results/2026-12-01-h200-session36/variants
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv,noheader >> $S
R=$OUT/abba; mkdir -p $R
OUT=$R B_SOLUTION=$D/gated_act-stwb.cuh LABEL="write-back stores / streaming" RUN_TIMEOUT=200 \
  scripts/gpu-abba.sh gated_act --no-checks --size-copy > $R/log.txt 2>&1
echo "abba rc=$?" >> $S
cat $R/summary.txt >> $S
cut -c1-70,90-150 $R/cases.txt >> $S
tar cJf $OUT/abba.tar.xz -C $OUT abba && rm -rf $R
cat $S
