#!/usr/bin/env bash
# Session 30, call 2 (nvidia-h200; carry bundle-x): EARLY_MOD 4 after call 1 (the off-stage tokens fold into
# the same registers; ITERATIONS.md norm_scale_shift iteration 38).
# 1. the GPU tests of the folded rows across frame and batch boundaries, both norm fusions;
# 2. scripts/gpu-sweep-sets.sh with WHERE: norm_scale_shift wan13b's affine cases (fold2-sets.txt), its fp32
#    per-frame no-affine cases (fold2-sets-noaffine.txt), the residual fusion's fp32 affine LayerNorm cases
#    (fold2-sets-residual.txt); each set against the committed config, A X1..Xn Xn..X1 A.
# Back: summary.txt (printed last), sweeps.tar.xz, tests.txt.
set -uo pipefail
OUT=$(realpath "$OUT")
S=$OUT/summary.txt; : > $S
T0=$(date +%s)
scripts/gpu-unpack-bundle.sh --if-needed > $OUT/unpack.txt 2>&1 || { cat $OUT/unpack.txt; exit 1; }
export AKO_CACHE_DIR=/tmp/ako-cache
D=bench/results/2026-12-01-h200-session30
timeout 300 bundle/bin/ako_gpu_tests --gtest_filter='*.FoldedRowsAreCorrectAcrossBatchAndFrameBoundaries' > $OUT/tests.txt 2>&1
echo "gpu tests rc=$? ($(( $(date +%s) - T0 )) s): $(grep -E '^\[ +(OK|PASSED|FAILED) ' $OUT/tests.txt | tr '\n' ' ')" >> $S
W=$OUT/sweeps; mkdir -p $W
sweep() {  # name task shape sets where
  OUT=$W/$1 WHERE="$5" RUN_TIMEOUT=150 scripts/gpu-sweep-sets.sh $2 $3 $4 > /dev/null 2>&1
  echo "== $1 [$5] ($(( $(date +%s) - T0 )) s)" >> $S; grep -v '^run ' $W/$1/summary.txt | cut -c1-1500 >> $S
  grep '^run ' $W/$1/summary.txt | grep -vc 'rc=0.*CORRECT: yes' | sed 's/^/runs not rc=0 and correct: /' >> $S
}
sweep nss-affine norm_scale_shift wan13b-480p $D/fold2-sets.txt "affine"
sweep nss-noaffine norm_scale_shift wan13b-480p $D/fold2-sets-noaffine.txt "!affine && layout == 'bf1c' && mod_dtype == 'fp32'"
sweep res-affine-layer residual_gate_norm_scale_shift wan13b-480p $D/fold2-sets-residual.txt \
  "affine && norm == 'layer' && mod_dtype == 'fp32'"
echo "wall $(( $(date +%s) - T0 )) s" >> $S
tar cJf $OUT/sweeps.tar.xz -C $OUT sweeps && rm -rf $W
cat $S
