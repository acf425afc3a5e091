#!/usr/bin/env bash
# Session 27, call 2 (nvidia-h200-x2; carry bundle-x). scale_shift's per-token cases
# of the 512-token streams with fp32 modulation, under the 1.1x bar against SGLang's Triton kernel
# in session 26 (lc 1.018-1.049x, blc 1.082-1.113x); they share their shape's per-token class with
# the blc 16-bit ones (the lc 16-bit ones have classes of their own since call 1, ITERATIONS.md
# scale_shift iteration 7). The tree's config is call 1's (lc 16-bit classes in):
#  GPU 0: `ako tune --where "layout == 'lc' && mod_dtype == 'fp32'"` on text-512,text-512-cfg
#  GPU 1: the same for blc, in a copy of the tree (both tunes write the task's H200 config).
# Each by scripts/gpu-tune-abba.sh (evolve, 200 s; then A B B A against the committed config).
# Back: summary.txt, gpuN.tar.xz (gpu-tune-abba.sh's files; config-after.json outside the tar).
set -uo pipefail
OUT=$(realpath "$OUT")
S=$OUT/summary.txt; : > $S
scripts/gpu-unpack-bundle.sh > $OUT/unpack.txt 2>&1 || { cat $OUT/unpack.txt; exit 1; }
T2=/tmp/tree2; rm -rf $T2; cp -a . $T2
(CUDA_VISIBLE_DEVICES=0 AKO_CACHE_DIR=/tmp/ako-cache0 OUT=$OUT/g0 TUNE_TIME=200 \
   timeout 540 scripts/gpu-tune-abba.sh scale_shift text-512,text-512-cfg --where "layout == 'lc' && mod_dtype == 'fp32'" \
   > $OUT/g0.txt 2>&1; echo "gpu0 rc=$?" >> $OUT/g0.txt) &
(cd $T2 && CUDA_VISIBLE_DEVICES=1 AKO_CACHE_DIR=/tmp/ako-cache1 OUT=$OUT/g1 TUNE_TIME=200 \
   timeout 540 scripts/gpu-tune-abba.sh scale_shift text-512,text-512-cfg --where "layout == 'blc' && mod_dtype == 'fp32'" \
   > $OUT/g1.txt 2>&1; echo "gpu1 rc=$?" >> $OUT/g1.txt) &
wait
for g in 0 1; do
  echo "== GPU $g" >> $S; tail -1 $OUT/g$g.txt >> $S; cat $OUT/g$g/summary.txt >> $S 2>/dev/null
  grep -E "text-512.*layout=(lc|blc) mod_dtype=fp32" $OUT/g$g/cases.txt >> $S 2>/dev/null
  mv $OUT/g$g.txt $OUT/g$g/stdout.txt; cp $OUT/g$g/config-after.json $OUT/config-after-g$g.json 2>/dev/null
  tar cJf $OUT/gpu$g.tar.xz -C $OUT g$g && rm -rf $OUT/g$g
done
cat $S
