#!/usr/bin/env bash
# Session 31, call 10 (nvidia-h200; carry bundle-x): the residual fusion walked (walked_rows with residual and x
# in the ring, the gate folded with the broadcast rows; ITERATIONS.md norm_scale_shift iteration 42):
# 1. ResidualGateNormScaleShift.WalkedRowsAreCorrectAcrossBatchAndFrameBoundaries;
# 2. walk-sets-residual.txt on the per-frame cases of wan13b and wan14b (WHERE "layout == 'bf1c' || gate ==
#    'bf1c'"), each set against the committed config, A X1..Xn Xn..X1 A.
# Back: summary.txt (printed last), sweeps.tar.xz, tests.txt.
set -uo pipefail
OUT=$(realpath "$OUT")
S=$OUT/summary.txt; : > $S
T0=$(date +%s)
scripts/gpu-unpack-bundle.sh --if-needed > $OUT/unpack.txt 2>&1 || { cat $OUT/unpack.txt; exit 1; }
export AKO_CACHE_DIR=/tmp/ako-cache
D=bench/results/2026-12-01-h200-session31
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv,noheader >> $S
AKO_BIN=$PWD/bundle/bin/ako AKO_ROOT=$PWD timeout 100 bundle/bin/ako_gpu_tests \
  --gtest_filter='ResidualGateNormScaleShift.WalkedRowsAreCorrectAcrossBatchAndFrameBoundaries' > $OUT/tests.txt 2>&1
echo "walk test rc=$? ($(( $(date +%s) - T0 )) s): $(grep -E '^\[       OK|^\[  FAILED|^\[  PASSED' $OUT/tests.txt | tr '\n' ' ')" >> $S
W=$OUT/sweeps; mkdir -p $W
sweep() {  # name task shape sets
  OUT=$W/$1 WHERE="layout == 'bf1c' || gate == 'bf1c'" RUN_TIMEOUT=40 scripts/gpu-sweep-sets.sh $2 $3 $4 > /dev/null 2>&1
  echo "== $1 ($(( $(date +%s) - T0 )) s)" >> $S; grep -v '^run ' $W/$1/summary.txt | cut -c1-2500 >> $S
  grep '^run ' $W/$1/summary.txt | grep -vc 'rc=0.*CORRECT: yes' | sed 's/^/runs not rc=0 and correct: /' >> $S
}
sweep wan13b residual_gate_norm_scale_shift wan13b-480p $D/walk-sets-residual.txt
sweep wan14b residual_gate_norm_scale_shift wan14b-480p $D/walk-sets-residual.txt
echo "wall $(( $(date +%s) - T0 )) s" >> $S
tar cJf $OUT/sweeps.tar.xz -C $OUT sweeps && rm -rf $W
cat $S
