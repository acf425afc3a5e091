#!/usr/bin/env bash
# Session 34, call 1 (nvidia-h200, cold; carry .sglang-deps/py312-1 .. py312-6 and bundle-x rebuilt from this
# session's tree with the new GPU test). Call 2 follows within ~30 s and needs the deps on this machine.
# 1. the CuTe DSL deps parts 1-6 (exit 3 expected: parts 7-8 come with call 2);
# 2. GPU tests RunLayernorm.* (the new RowsOfAnyWholeWarpCountAreCorrect: rows over 3, 6, 12, 15 warps);
# 3. ln-warps-sets.txt: layernorm's rows over whole warps that are not a power of two, exact fits of each width,
#    A X1..Xn Xn..X1 A per shape (scripts/gpu-sweep-sets.sh); shapes skipped once 480 s have passed.
# Back: summary.txt (printed last), runs.tar.xz.
set -uo pipefail
OUT=$(realpath "$OUT")
S=$OUT/summary.txt; : > $S
T0=$(date +%s)
scripts/gpu-sglang-deps.sh > $OUT/deps.txt 2>&1; echo "deps rc=$? (3 expected): $(tail -1 $OUT/deps.txt)" >> $S
scripts/gpu-unpack-bundle.sh --if-needed > $OUT/unpack.txt 2>&1 || { cat $OUT/unpack.txt; exit 1; }
export AKO_CACHE_DIR=/tmp/ako-cache
D=bench/results/2026-12-01-h200-session34
R=$OUT/runs; mkdir -p $R
AKO_BIN=$PWD/bundle/bin/ako AKO_ROOT=$PWD timeout 200 bundle/bin/ako_gpu_tests --gtest_filter='RunLayernorm.*' > $R/gpu-tests.txt 2>&1
echo "RunLayernorm.* rc=$? ($(( $(date +%s) - T0 )) s): $(grep -E '^\[ +(OK|PASSED|FAILED) ' $R/gpu-tests.txt | tr '\n' ' ')" >> $S
for s in zimage qwen-image flux1-single text-512-cfg wan13b-480p flux2-single wan14b-480p text-512 hunyuan-720p; do
  [ $(( $(date +%s) - T0 )) -lt 480 ] || { echo "== $s skipped (time)" >> $S; continue; }
  OUT=$R/$s RUN_TIMEOUT=100 scripts/gpu-sweep-sets.sh layernorm $s $D/ln-warps-sets.txt > /dev/null 2>&1
  echo "== $s ($(( $(date +%s) - T0 )) s)" >> $S; grep -v '^run ' $R/$s/summary.txt | cut -c1-1500 >> $S
  grep '^run ' $R/$s/summary.txt | grep -vc 'rc=0.*CORRECT: yes' | sed 's/^/runs not rc=0 and correct: /' >> $S
done
echo "wall $(( $(date +%s) - T0 )) s" >> $S
tar cJf $OUT/runs.tar.xz -C $OUT runs && rm -rf $R
cat $S
