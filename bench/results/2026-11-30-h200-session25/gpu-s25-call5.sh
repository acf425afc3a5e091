#!/usr/bin/env bash
# Session 25, call 5 (nvidia-h200-x2; carry bundle-x). EARLY_MOD 3's staged rows with weight and
# bias folded in (variants/nss-fold.cuh: scale' = w (1 + scale), shift' = b (1 + scale) + shift,
# once a block) against the committed kernel, same configs, A F F A (--solution), on Wan's shapes.
# Call 4's ncu: the residual fusion's wan13b affine fp32 per-frame LayerNorm at 83% of L1's LSU
# wavefronts and 37.5% occupancy (78 registers), its no-affine sibling 67% and 56%.
# GPU 0: residual_gate_norm_scale_shift; GPU 1: norm_scale_shift. Back: summary.txt, gpu{0,1}.tar.xz.
set -uo pipefail
OUT=$(realpath "$OUT")
S=$OUT/summary.txt; : > $S
scripts/gpu-unpack-bundle.sh > $OUT/unpack.txt 2>&1 || { cat $OUT/unpack.txt; exit 1; }
A=$PWD/bundle/bin/ako
V=$PWD/bench/results/2026-11-30-h200-session25/variants/nss-fold.cuh
nvidia-smi --query-gpu=index,name,driver_version,uuid --format=csv > $OUT/smi.txt 2>&1
afa() {  # gpu task
  local g=$1 task=$2 R=$OUT/g$1; mkdir -p $R
  export CUDA_VISIBLE_DEVICES=$g AKO_CACHE_DIR=/tmp/ako-cache$g
  for tag in A1 F1 F2 A2; do
    local extra=""; [ ${tag:0:1} = F ] && extra="--solution $V"
    timeout 200 $A run task $task --shapes wan13b-480p,wan14b-480p --no-progress --json $R/$tag.json $extra > $R/$tag.txt 2>&1
    echo "$task $tag rc=$?: $(grep -E '^CORRECT|^RUNTIME' $R/$tag.txt | tr '\n' ' ' | cut -c1-170)" >> $R/summary.txt
  done
  python3 scripts/abba_cases.py $R/A1.json $R/F1.json $R/F2.json $R/A2.json --label "fold / committed" > $R/cases.txt 2>&1
  grep -E "True|affine=True|fp32" $R/cases.txt | grep -v "affine=False" | cut -c1-160 >> $R/summary.txt
  tail -n 2 $R/cases.txt | cut -c1-220 >> $R/summary.txt
  tar cJf $OUT/gpu$g.tar.xz -C $OUT g$g
}
afa 1 norm_scale_shift &
afa 0 residual_gate_norm_scale_shift
wait
cat $OUT/g0/summary.txt $OUT/g1/summary.txt >> $S
rm -rf $OUT/g0 $OUT/g1
cat $S
