#!/usr/bin/env bash
# Session 26, call 3 (nvidia-h200-x2; carry bundle-x). The small shapes under issue 15's 1.1x bar,
# split by pairing (the committed classes serve both pairings of a shape with one set of params):
#  GPU 0: rope partial-r64's NeoX cases (2.31-2.35 µs, 6-7% over a copy of their bytes where the
#         interleaved ones run at the copy's time): `ako tune --where "neox"`, the whole space.
#  GPU 1: qknorm_rope partial-r64's interleaved cases (2.43-2.47 µs, 14% over a copy; SGLang's
#         kernel 2.50-2.54): `ako tune --where "!neox"`, evolve, 240 s.
# Each by scripts/gpu-tune-abba.sh (the tune, then its config against the committed one, A B B A).
# Back: summary.txt, gpuN.tar.xz (gpu-tune-abba.sh's files).
set -uo pipefail
OUT=$(realpath "$OUT")
S=$OUT/summary.txt; : > $S
scripts/gpu-unpack-bundle.sh > $OUT/unpack.txt 2>&1 || { cat $OUT/unpack.txt; exit 1; }
(CUDA_VISIBLE_DEVICES=0 AKO_CACHE_DIR=/tmp/ako-cache0 OUT=$OUT/g0 STRATEGY=exhaustive BUDGET=100% TUNE_TIME=200 \
   timeout 420 scripts/gpu-tune-abba.sh rope partial-r64 --where "neox" > $OUT/g0.txt 2>&1; echo "gpu0 rc=$?" >> $OUT/g0.txt) &
(CUDA_VISIBLE_DEVICES=1 AKO_CACHE_DIR=/tmp/ako-cache1 OUT=$OUT/g1 TUNE_TIME=240 \
   timeout 420 scripts/gpu-tune-abba.sh qknorm_rope partial-r64 --where "!neox" > $OUT/g1.txt 2>&1; echo "gpu1 rc=$?" >> $OUT/g1.txt) &
wait
for g in 0 1; do
  echo "== GPU $g" >> $S; tail -1 $OUT/g$g.txt >> $S; cat $OUT/g$g/summary.txt >> $S 2>/dev/null
  mv $OUT/g$g.txt $OUT/g$g/stdout.txt; tar cJf $OUT/gpu$g.tar.xz -C $OUT g$g && rm -rf $OUT/g$g
done
cat $S
