#!/usr/bin/env bash
# Session 35, call 11 (nvidia-h200; carry bundle-x). The 16-byte row loads with the L2::256B prefetch-size hint
# (variants/*-l2-256b.cuh: the L2 asked to fetch the 256-byte block around each access) against the committed kernels,
# A B B A per task (--solution), on the shapes nearest their copy bars: qknorm wan13b / wan14b / hunyuan (wan13b per
# head 94.6% of copy against 95%, 98.6% of a copy of its bytes: the strided q / k rows skip v), scale_shift wan13b /
# qwen-image / hunyuan, layernorm qwen-image / flux2-single / wan13b (16-bit affine 85-89% against 90%).
# Prediction (before the run): level within 0.5% on the contiguous rows (a warp already reads 512 contiguous bytes);
# 0.5-1% on qknorm's strided rows if the DRAM fetch granularity is what holds them.
# Back: summary.txt (printed last), abba.tar.xz.
set -uo pipefail
OUT=$(realpath "$OUT")
S=$OUT/summary.txt; : > $S
T0=$(date +%s)
scripts/gpu-unpack-bundle.sh --if-needed > $OUT/unpack.txt 2>&1 || { cat $OUT/unpack.txt; exit 1; }
export AKO_CACHE_DIR=/tmp/ako-cache
D=bench/results/2026-12-01-h200-session35
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv,noheader >> $S
R=$OUT/abba; mkdir -p $R
abba() {  # task shapes variant
  local task=$1 shapes=$2 var=$D/variants/$3
  for tag in A1 B1 B2 A2; do
    local sol=(); [ "${tag:0:1}" = B ] && sol=(--solution $var)
    timeout 150 bundle/bin/ako run task $task --shapes $shapes --no-checks --size-copy --no-progress --device "NVIDIA H200" \
      "${sol[@]}" --json $R/$task-$tag.json > $R/$task-$tag.txt 2>&1
    echo "$task $tag rc=$?: $(grep -E '^CORRECT' $R/$task-$tag.txt | cut -c1-80)" >> $S
  done
  python3 scripts/abba_cases.py $R/$task-A1.json $R/$task-B1.json $R/$task-B2.json $R/$task-A2.json \
    --label "$task L2::256B / committed" > $R/$task-abba.txt 2>&1
  tail -2 $R/$task-abba.txt >> $S
}
abba qknorm wan13b-480p,wan14b-480p,hunyuan-720p qknorm-l2-256b.cuh
abba scale_shift wan13b-480p,qwen-image,hunyuan-720p scale_shift-l2-256b.cuh
abba layernorm qwen-image,flux2-single,wan13b-480p layernorm-l2-256b.cuh
grep -h "wan13b-480p bf16 across_heads=False\|qwen-image bf16 affine=True\|wan13b-480p bf16 layout=bc mod_dtype=same" $R/*-abba.txt | cut -c1-200 >> $S
tar cJf $OUT/abba.tar.xz -C $OUT abba && rm -rf $R
echo "wall $(( $(date +%s) - T0 )) s" >> $S
cat $S
