#!/usr/bin/env bash
# Session 27, call 3 (nvidia-h200-x2; carry bundle-x). scale_shift's broadcast layouts (scalar, [C],
# [B, C]) on the image shapes, most of its cases "within reach" under the 1.1x bar against SGLang's
# Triton kernel in session 26 (flux1-single 1.079-1.092x, qwen-image fp16 scalar 1.082 / 1.097x,
# zimage bf16 scalar 1.074x, ltx-video fp32 [C] / [B, C] 1.095-1.098x): each shape's class serves
# every layout with one point; here the broadcast ones get a class of their own per shape
# (ITERATIONS.md scale_shift iteration 8). The tree's config is the committed one (calls 1-2's):
#  GPU 0: `ako tune --where "layout == 'scalar' || layout == 'c' || layout == 'bc'"` on flux1-single,ltx-video
#  GPU 1: the same on qwen-image,zimage, in a copy of the tree (both tunes write the task's H200 config).
# Each by scripts/gpu-tune-abba.sh (evolve, 200 s; then A B B A against the committed config).
# Back: summary.txt, gpuN.tar.xz (gpu-tune-abba.sh's files; config-after.json outside the tar).
set -uo pipefail
OUT=$(realpath "$OUT")
S=$OUT/summary.txt; : > $S
scripts/gpu-unpack-bundle.sh > $OUT/unpack.txt 2>&1 || { cat $OUT/unpack.txt; exit 1; }
T2=/tmp/tree2; rm -rf $T2; cp -a . $T2
(CUDA_VISIBLE_DEVICES=0 AKO_CACHE_DIR=/tmp/ako-cache0 OUT=$OUT/g0 TUNE_TIME=200 \
   timeout 540 scripts/gpu-tune-abba.sh scale_shift flux1-single,ltx-video --where "layout == 'scalar' || layout == 'c' || layout == 'bc'" \
   > $OUT/g0.txt 2>&1; echo "gpu0 rc=$?" >> $OUT/g0.txt) &
(cd $T2 && CUDA_VISIBLE_DEVICES=1 AKO_CACHE_DIR=/tmp/ako-cache1 OUT=$OUT/g1 TUNE_TIME=200 \
   timeout 540 scripts/gpu-tune-abba.sh scale_shift qwen-image,zimage --where "layout == 'scalar' || layout == 'c' || layout == 'bc'" \
   > $OUT/g1.txt 2>&1; echo "gpu1 rc=$?" >> $OUT/g1.txt) &
wait
for g in 0 1; do
  echo "== GPU $g" >> $S; tail -1 $OUT/g$g.txt >> $S; cat $OUT/g$g/summary.txt >> $S 2>/dev/null
  grep -E "layout=(scalar|c|bc) " $OUT/g$g/cases.txt >> $S 2>/dev/null
  mv $OUT/g$g.txt $OUT/g$g/stdout.txt; cp $OUT/g$g/config-after.json $OUT/config-after-g$g.json 2>/dev/null
  tar cJf $OUT/gpu$g.tar.xz -C $OUT g$g && rm -rf $OUT/g$g
done
cat $S
