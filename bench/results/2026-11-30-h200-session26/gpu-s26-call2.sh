#!/usr/bin/env bash
# Session 26, call 2 (nvidia-h200-x2; carry bundle-x, peers). rope with PF (the whole cos/sin cache
# prefetched into L2 by the grid before the positions arrive; ITERATIONS.md rope iteration 3):
# the committed config (A) against --param PF=1 (B) on the four small shapes, both dtypes, every
# position dtype and pairing, A B B A on GPU 0 and B A A B on GPU 1, with the FlashInfer columns
# (peers) and the size copy. Back: summary.txt, gpuN.tar.xz (the run JSONs and logs).
set -uo pipefail
OUT=$(realpath "$OUT")
S=$OUT/summary.txt; : > $S
scripts/gpu-unpack-bundle.sh > $OUT/unpack.txt 2>&1 || { cat $OUT/unpack.txt; exit 1; }
SHAPES=partial-r64,partial-r40,odd-r36-d96,d256
one() {  # gpu name args...
  local g=$1 n=$2; shift 2
  CUDA_VISIBLE_DEVICES=$g AKO_CACHE_DIR=/tmp/ako-cache$g timeout 150 bundle/bin/ako run task rope --shapes $SHAPES \
    --size-copy --no-progress --json $OUT/g$g/$n.json "$@" > $OUT/g$g/$n.txt 2>&1
  echo "gpu$g $n rc=$?" >> $OUT/g$g/rcs.txt
}
gpu() {  # gpu order...
  local g=$1; shift; mkdir -p $OUT/g$g
  # warm the kernel cache for both configs first (compile, no timing)
  CUDA_VISIBLE_DEVICES=$g AKO_CACHE_DIR=/tmp/ako-cache$g bundle/bin/ako run task rope --shapes $SHAPES --no-time --no-progress > $OUT/g$g/warm-a.txt 2>&1
  CUDA_VISIBLE_DEVICES=$g AKO_CACHE_DIR=/tmp/ako-cache$g bundle/bin/ako run task rope --shapes $SHAPES --no-time --no-progress --param PF=1 > $OUT/g$g/warm-b.txt 2>&1
  local i=0
  for x in "$@"; do
    i=$((i+1))
    if [ $x = A ]; then one $g $x$i; else one $g $x$i --param PF=1; fi
  done
}
gpu 0 A B B A & gpu 1 B A A B & wait
{
  echo "== GPU 0 (A B B A)"; cat $OUT/g0/rcs.txt
  python3 scripts/abba_cases.py $OUT/g0/A1.json $OUT/g0/B2.json $OUT/g0/B3.json $OUT/g0/A4.json --label "PF=1 / committed"
  echo "== GPU 1 (B A A B)"; cat $OUT/g1/rcs.txt
  python3 scripts/abba_cases.py $OUT/g1/A2.json $OUT/g1/B1.json $OUT/g1/B4.json $OUT/g1/A3.json --label "PF=1 / committed"
} >> $S 2>&1
for g in 0 1; do
  python3 scripts/engine_table.py $(ls $OUT/g$g/B*.json | head -1) > $OUT/g$g/engine-B.txt 2>&1
  python3 scripts/engine_table.py $(ls $OUT/g$g/A*.json | head -1) > $OUT/g$g/engine-A.txt 2>&1
  grep -E "^rope|^under|^slower" $OUT/g$g/engine-B.txt | cut -c1-400 | sed "s/^/gpu$g B: /" >> $S
  tar cJf $OUT/gpu$g.tar.xz -C $OUT g$g && rm -rf $OUT/g$g
done
cat $S
