#!/usr/bin/env bash
# Session 36, call 8 (nvidia-h200; carry bundle-x). qknorm's lesson (iteration 8 there: an L1 round trip for the weight
# between a row's loads and its store costs) on qknorm_rope's by-token path, which the image shapes and hunyuan run
# (SPLIT > 0): a group steps over 2H / SPLIT heads of its token and loads the head's weight chunk (q's or k's, the same
# chunk for every head of a tensor) at each step, after x has landed. variants/qknorm_rope-weights-once.cuh loads q's
# and k's chunks once before the steps (8 more registers, no spill under the classes' 40 / 48 caps).
# Call 7: flux1 fp16, zimage bf16 and qwen-image fp16 (interleaved, i64) at 1.077-1.100x SGLang's JIT kernel, which is
# under 90% of copy there (1.1x asked). Prediction: 0.5-2% faster on the image shapes, hunyuan level.
# A B B A (scripts/gpu-abba.sh), the five by-token shapes. Back: summary.txt (printed last), abba.tar.xz.
set -uo pipefail
OUT=$(realpath "$OUT")
S=$OUT/summary.txt; : > $S
D=bench/results/2026-12-01-h200-session36/variants
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv,noheader >> $S
R=$OUT/abba; mkdir -p $R
OUT=$R B_SOLUTION=$D/qknorm_rope-weights-once.cuh LABEL="weights once / tree" RUN_TIMEOUT=200 \
  scripts/gpu-abba.sh qknorm_rope --shapes flux1,flux2,zimage,qwen-image,hunyuan-720p --no-checks --size-copy > $R/log.txt 2>&1
echo "abba rc=$?" >> $S
cat $R/summary.txt >> $S
cut -c1-60,90-150 $R/cases.txt >> $S
tar cJf $OUT/abba.tar.xz -C $OUT abba && rm -rf $R
cat $S
