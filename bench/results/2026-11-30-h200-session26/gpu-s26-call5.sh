#!/usr/bin/env bash
# Session 26, call 5 (nvidia-h200-x2; carry bundle-x). The residual fusion's zimage fp16 case at 8
# blocks of 256 (ITERATIONS.md norm_scale_shift iteration 29): its class (shape-zimage, MIN_BLOCKS 0)
# takes 40 registers in fp16 and 32 in bf16 (6 blocks an SM against 8), and the fp16 case was
# 0.974x CuTe DSL in the final call where bf16 was 0.995x. The tree's config has the pinned class
# (MIN_BLOCKS 8: 32 registers, no spill); the committed one runs as device BEFORE.
# GPU 0: A B B A, GPU 1: B A A B, `ako run task residual_gate_norm_scale_shift --shapes zimage --size-copy`.
# Back: summary.txt, gpuN.tar.xz.
set -uo pipefail
OUT=$(realpath "$OUT")
S=$OUT/summary.txt; : > $S
scripts/gpu-unpack-bundle.sh > $OUT/unpack.txt 2>&1 || { cat $OUT/unpack.txt; exit 1; }
C=solution/residual_gate_norm_scale_shift/configs
cp bench/results/2026-11-30-h200-session26/variants/residual-h200-config-before-call5.json $C/device_name=BEFORE.json
one() {  # gpu name device
  CUDA_VISIBLE_DEVICES=$1 AKO_CACHE_DIR=/tmp/ako-cache$1 timeout 120 bundle/bin/ako run task residual_gate_norm_scale_shift \
    --shapes zimage --size-copy --no-progress --device "$3" --json $OUT/g$1/$2.json > $OUT/g$1/$2.txt 2>&1
  echo "gpu$1 $2 rc=$?" >> $OUT/g$1/rcs.txt
}
gpu() {
  local g=$1; shift; mkdir -p $OUT/g$g; local i=0
  for x in "$@"; do i=$((i+1)); if [ $x = A ]; then one $g A$i BEFORE; else one $g B$i "NVIDIA H200"; fi; done
}
gpu 0 A B B A & gpu 1 B A A B & wait
{
  echo "== GPU 0 (A B B A)"; cat $OUT/g0/rcs.txt
  python3 scripts/abba_cases.py $OUT/g0/A1.json $OUT/g0/B2.json $OUT/g0/B3.json $OUT/g0/A4.json --label "pinned / committed"
  echo "== GPU 1 (B A A B)"; cat $OUT/g1/rcs.txt
  python3 scripts/abba_cases.py $OUT/g1/A2.json $OUT/g1/B1.json $OUT/g1/B4.json $OUT/g1/A3.json --label "pinned / committed"
} >> $S 2>&1
rm -f $C/device_name=BEFORE.json
for g in 0 1; do tar cJf $OUT/gpu$g.tar.xz -C $OUT g$g && rm -rf $OUT/g$g; done
cat $S
