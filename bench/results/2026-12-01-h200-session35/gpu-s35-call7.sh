#!/usr/bin/env bash
# Session 35, call 7 (nvidia-h200; carry bundle-x). norm_scale_shift's wan13b no-affine [B, C] LayerNorm cases with
# fp32 modulation (bf16, fp16) under the sets of nss-bc-tokens-sets.txt (two tokens a thread),
# A X..X A against the committed config (scripts/gpu-sweep-sets.sh, --where those two cases).
# Back: summary.txt (printed last), sweep.tar.xz.
set -uo pipefail
OUT=$(realpath "$OUT")
S=$OUT/summary.txt; : > $S
T0=$(date +%s)
scripts/gpu-unpack-bundle.sh --if-needed > $OUT/unpack.txt 2>&1 || { cat $OUT/unpack.txt; exit 1; }
export AKO_CACHE_DIR=/tmp/ako-cache
D=bench/results/2026-12-01-h200-session35
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv,noheader >> $S
W=$OUT/sweep; mkdir -p $W
OUT=$W/nss-bc WHERE="layout == 'bc' && mod_dtype == 'fp32' && !affine && norm == 'layer'" RUN_TIMEOUT=60 \
  scripts/gpu-sweep-sets.sh norm_scale_shift wan13b-480p $D/nss-bc-tokens-sets.txt > /dev/null 2>&1
cat $W/nss-bc/summary.txt >> $S
tar cJf $OUT/sweep.tar.xz -C $OUT sweep && rm -rf $W
echo "wall $(( $(date +%s) - T0 )) s" >> $S
cat $S
