#!/usr/bin/env bash
# Session 36, call 3 (nvidia-h200; carry bundle-x). From call 2: the 16-byte plain store through __stwb helped the
# per-head kernels (0.988-0.998) and not the across-heads ones (qwen-image's 3-chunk class 1.008-1.009 slower at 8
# more registers); the per-head mean by the exact reciprocal took wan13b and hunyuan per head a further ~0.7%.
# The candidate (variants/qknorm-wide-recip.cuh = the working tree's solution/qknorm/qknorm.cuh): per head __stwb and
# the reciprocal, across heads unchanged. Prediction: per head 0.988-0.992 on wan13b / hunyuan / qwen-image / ltx,
# wan14b's two-row class ~0.998, flux1 (streaming stores) level; across heads level (same kernels).
# Then (qknorm-wide-recip-wearly.cuh): per head the weight's chunks loaded with x instead of after the reduction
# (L1 hits taken off the way from the loads to the stores; 30 registers, 40 on the two-row classes). Prediction:
# 0.3-0.8% on wan13b / hunyuan / qwen-image per head, the two-row classes level or slower.
# A B B A each, every qknorm case, --size-copy. Back: summary.txt (printed last), abba.tar.xz.
set -uo pipefail
OUT=$(realpath "$OUT")
S=$OUT/summary.txt; : > $S
T0=$(date +%s)
D=bench/results/2026-12-01-h200-session36/variants
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv,noheader >> $S
R=$OUT/abba; mkdir -p $R
pair() {  # name A B
  OUT=$R/$1 A_SOLUTION=$D/qknorm-$2.cuh B_SOLUTION=$D/qknorm-$3.cuh LABEL="$3 / $2" RUN_TIMEOUT=200 \
    scripts/gpu-abba.sh qknorm --no-checks --size-copy > $R/$1.log 2>&1
  echo "== $1 rc=$?" >> $S
  cat $R/$1/summary.txt >> $S
  grep -E "across_heads=False" $R/$1/cases.txt | cut -c1-60,90-150 >> $S
}
pair candidate committed wide-recip
pair wearly wide-recip wide-recip-wearly
tar cJf $OUT/abba.tar.xz -C $OUT abba && rm -rf $R
echo "wall $(( $(date +%s) - T0 )) s" >> $S
cat $S
