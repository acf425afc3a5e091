#!/usr/bin/env bash
# Prepared in session 32 for a later session's call (not run in session 32; carry bundle-x): the norm fusions with
# SURE 1 (no bounds test on the chunks k < CHUNKS - 1 the task's constraint keeps in the row; layernorm
# iteration 12 found 2-4% on wan13b's 16-bit affine LayerNorm that way) on every shape, each shape's cases A S1 S1 A
# (scripts/gpu-sweep-sets.sh with SPEC= the variant task; A is the same variant at SURE 0, the committed machine
# code). The pinned-occupancy classes that spill under SURE 1 are left out by WHERE (NVRTC, session 32: nss
# wan13b's same-dtype no-affine RMSNorm at MIN_BLOCKS 20, the residual fusion's wan13b fp32 per-frame affine
# cases with a [B, C] gate at MIN_BLOCKS 8 / 10). About 20 sweeps of four runs: if one call (600 s) does not
# hold them, split the loop over two calls. Back: summary.txt (printed last), sweeps.tar.xz.
set -uo pipefail
OUT=$(realpath "$OUT")
S=$OUT/summary.txt; : > $S
T0=$(date +%s)
scripts/gpu-unpack-bundle.sh --if-needed > $OUT/unpack.txt 2>&1 || { cat $OUT/unpack.txt; exit 1; }
export AKO_CACHE_DIR=/tmp/ako-cache
D=bench/results/2026-12-01-h200-session32
W=$OUT/sweeps; mkdir -p $W
sweep() {  # task spec shape where
  OUT=$W/$1-$3 SPEC=$D/variants/$2 WHERE="$4" RUN_TIMEOUT=120 scripts/gpu-sweep-sets.sh $1 $3 $D/sure-sets.txt > /dev/null 2>&1
  echo "== $1 $3 ($(( $(date +%s) - T0 )) s)" >> $S; grep -v '^run ' $W/$1-$3/summary.txt | cut -c1-1500 >> $S
  grep '^run ' $W/$1-$3/summary.txt | grep -vc 'rc=0.*CORRECT: yes' | sed 's/^/runs not rc=0 and correct: /' >> $S
}
for s in text-512 text-512-cfg flux1-single flux2-single qwen-image zimage ltx-video wan14b-480p hunyuan-720p; do
  sweep norm_scale_shift nss-task-sure.json $s ""
  sweep residual_gate_norm_scale_shift residual-task-sure.json $s ""
done
sweep norm_scale_shift nss-task-sure.json wan13b-480p "!(layout == 'bf1c' && mod_dtype == 'same' && !affine && norm == 'rms')"
sweep residual_gate_norm_scale_shift residual-task-sure.json wan13b-480p "!(layout == 'bf1c' && gate == 'bc' && mod_dtype == 'fp32' && affine)"
echo "wall $(( $(date +%s) - T0 )) s" >> $S
tar cJf $OUT/sweeps.tar.xz -C $OUT sweeps && rm -rf $W
cat $S
