#!/usr/bin/env bash
# Session 30, call 1 (nvidia-h200; carry bundle-x): EARLY_MOD 4 (ITERATIONS.md norm_scale_shift iteration 38).
# 1. The GPU tests of both norm fusions' token groups (EARLY_MOD 4 across frame and batch boundaries among them)
#    and the tests `ako run --where` touches;
# 2. scripts/gpu-sweep-sets.sh on norm_scale_shift's wan13b and wan14b cases (fold-sets.txt) and the residual
#    fusion's wan13b cases (fold-sets-residual.txt): each set against the committed config, A X1..Xn Xn..X1 A.
# Back: summary.txt (printed last), sweeps.tar.xz, tests.txt.
set -uo pipefail
OUT=$(realpath "$OUT")
S=$OUT/summary.txt; : > $S
T0=$(date +%s)
scripts/gpu-unpack-bundle.sh --if-needed > $OUT/unpack.txt 2>&1 || { cat $OUT/unpack.txt; exit 1; }
export AKO_CACHE_DIR=/tmp/ako-cache
D=bench/results/2026-12-01-h200-session30
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv,noheader >> $S
timeout 420 bundle/bin/ako_gpu_tests --gtest_filter='NormScaleShift.TokenGroups*:ResidualGateNormScaleShift.TokenGroups*' \
  > $OUT/tests.txt 2>&1
echo "gpu tests rc=$? ($(( $(date +%s) - T0 )) s): $(grep -E '^\[  (PASSED|FAILED) ' $OUT/tests.txt | tr '\n' ' ')" >> $S
W=$OUT/sweeps; mkdir -p $W
sweep() {  # name task shape sets
  OUT=$W/$1 RUN_TIMEOUT=150 scripts/gpu-sweep-sets.sh $2 $3 $4 > /dev/null 2>&1
  echo "== $1 ($(( $(date +%s) - T0 )) s)" >> $S; grep -v '^run ' $W/$1/summary.txt | cut -c1-900 >> $S
  grep -c 'rc=0' $W/$1/summary.txt | sed 's/^/runs rc=0: /' >> $S
}
sweep nss-wan13b norm_scale_shift wan13b-480p $D/fold-sets.txt
sweep nss-wan14b norm_scale_shift wan14b-480p $D/fold-sets.txt
sweep res-wan13b residual_gate_norm_scale_shift wan13b-480p $D/fold-sets-residual.txt
echo "wall $(( $(date +%s) - T0 )) s" >> $S
tar cJf $OUT/sweeps.tar.xz -C $OUT sweeps && rm -rf $W
cat $S
