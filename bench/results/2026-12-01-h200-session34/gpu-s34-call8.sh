#!/usr/bin/env bash
# Session 34, call 8 (nvidia-h200; carry bundle-x). On the committed tree (c1616ac):
# 1. GPU tests RunLayernorm.* (every shape, dtype and form of the final config correct, the odd widths, rows over
#    3-15 warps, the streamed path, a broken variance caught);
# 2. `ako run task layernorm --size-copy`: every case in ako's harness with a copy of its own bytes beside it;
# 3. nss-scalar-rms-sets.txt: norm_scale_shift's two text-512-cfg no-affine scalar same-dtype RMSNorm cases at
#    seven points, A X..X A (--where those two).
# Back: summary.txt (printed last), runs.tar.xz.
set -uo pipefail
OUT=$(realpath "$OUT")
S=$OUT/summary.txt; : > $S
T0=$(date +%s)
scripts/gpu-unpack-bundle.sh --if-needed > $OUT/unpack.txt 2>&1 || { cat $OUT/unpack.txt; exit 1; }
export AKO_CACHE_DIR=/tmp/ako-cache
D=bench/results/2026-12-01-h200-session34
R=$OUT/runs; mkdir -p $R
AKO_BIN=$PWD/bundle/bin/ako AKO_ROOT=$PWD timeout 200 bundle/bin/ako_gpu_tests --gtest_filter='RunLayernorm.*' > $R/gpu-tests.txt 2>&1
echo "RunLayernorm.* rc=$? ($(( $(date +%s) - T0 )) s): $(grep -E '^\[ +(OK|PASSED|FAILED) ' $R/gpu-tests.txt | tr '\n' ' ')" >> $S
t1=$(date +%s)
timeout 200 bundle/bin/ako run task layernorm --size-copy --no-progress --json $R/layernorm-run.json > $R/layernorm-run.txt 2>&1
echo "ako run task layernorm --size-copy rc=$? ($(( $(date +%s) - t1 )) s): $(grep -E '^(CORRECT|SPEEDUP|RUNTIME)' $R/layernorm-run.txt | tr '\n' ' ')" >> $S
OUT=$R/nss WHERE="layout == 'scalar' && mod_dtype == 'same' && norm == 'rms' && !affine" RUN_TIMEOUT=60 \
  scripts/gpu-sweep-sets.sh norm_scale_shift text-512-cfg $D/nss-scalar-rms-sets.txt > /dev/null 2>&1
echo "== nss text-512-cfg scalar same-dtype no-affine RMSNorm ($(( $(date +%s) - T0 )) s)" >> $S
grep -v '^run ' $R/nss/summary.txt | cut -c1-800 >> $S
grep '^run ' $R/nss/summary.txt | grep -vc 'rc=0.*CORRECT: yes' | sed 's/^/runs not rc=0 and correct: /' >> $S
echo "wall $(( $(date +%s) - T0 )) s" >> $S
tar cJf $OUT/runs.tar.xz -C $OUT runs && rm -rf $R
cat $S
