#!/usr/bin/env bash
# Session 32, call 4 (nvidia-h200; carry bundle-x built from this tree): the walk with TOKENS tokens a step
# (walked_rows after this session's change: a step's tokens share one reduction, TOKENS independent chains a
# group; TOKENS 1 is the walk of before, NVRTC's machine code the same on wan14b's two walk kernels and not on
# wan13b's four).
# 1. GPU tests NormScaleShift / ResidualGateNormScaleShift .WalkedRowsAreCorrectAcrossBatchAndFrameBoundaries
#    (now with TOKENS 2 points whose frames and batches end inside a step);
# 2. the committed config on the tree's kernel (A) against the kernel before the change (B,
#    variants/nss-walk-before.cuh by --solution), A B B A, wan13b's and wan14b's per-frame LayerNorm cases;
# 3. walk-pairs-sets.txt on those cases (scripts/gpu-sweep-sets.sh, A X1..Xn Xn..X1 A).
# Back: summary.txt (printed last), runs.tar.xz.
set -uo pipefail
OUT=$(realpath "$OUT")
S=$OUT/summary.txt; : > $S
T0=$(date +%s)
scripts/gpu-unpack-bundle.sh --if-needed > $OUT/unpack.txt 2>&1 || { cat $OUT/unpack.txt; exit 1; }
export AKO_CACHE_DIR=/tmp/ako-cache
D=bench/results/2026-12-01-h200-session32
WH="layout == 'bf1c' && norm == 'layer'"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader >> $S
R=$OUT/runs; mkdir -p $R
AKO_BIN=$PWD/bundle/bin/ako AKO_ROOT=$PWD timeout 240 bundle/bin/ako_gpu_tests --gtest_filter='*.WalkedRowsAreCorrectAcrossBatchAndFrameBoundaries' > $R/gpu-tests.txt 2>&1
echo "walk tests rc=$? ($(( $(date +%s) - T0 )) s): $(grep -E '^\[ +(OK|PASSED|FAILED) ' $R/gpu-tests.txt | tr '\n' ' ')" >> $S
run() {  # tag [args]
  local tag=$1; shift
  timeout 100 bundle/bin/ako run task norm_scale_shift --shapes wan13b-480p,wan14b-480p --where "$WH" --no-progress "$@" \
    --json $R/$tag.json > $R/$tag.txt 2>&1
  echo "run $tag rc=$? $(grep -E '^CORRECT' $R/$tag.txt | tr '\n' ' ')" >> $S
}
run tree1; run before1 --solution $D/variants/nss-walk-before.cuh; run before2 --solution $D/variants/nss-walk-before.cuh; run tree2
python3 scripts/abba_cases.py $R/tree1.json $R/before1.json $R/before2.json $R/tree2.json --label "before / tree" >> $S 2>&1
for sh in wan13b-480p wan14b-480p; do
  OUT=$R/sweep-$sh WHERE="$WH" RUN_TIMEOUT=100 scripts/gpu-sweep-sets.sh norm_scale_shift $sh $D/walk-pairs-sets.txt > /dev/null 2>&1
  echo "== $sh ($(( $(date +%s) - T0 )) s)" >> $S; grep -v '^run ' $R/sweep-$sh/summary.txt | cut -c1-1500 >> $S
  grep '^run ' $R/sweep-$sh/summary.txt | grep -vc 'rc=0.*CORRECT: yes' | sed 's/^/runs not rc=0 and correct: /' >> $S
done
echo "wall $(( $(date +%s) - T0 )) s" >> $S
tar cJf $OUT/runs.tar.xz -C $OUT runs && rm -rf $R
cat $S
