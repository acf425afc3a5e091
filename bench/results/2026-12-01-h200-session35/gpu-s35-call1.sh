#!/usr/bin/env bash
# Session 35, call 1 (nvidia-h200; carry bundle-x). scale_shift's x (and blc's per-token rows) through the
# read-only cache (ROW_CACHE 1) against evict-first (ROW_CACHE 0, every class until now), on every case:
# A = the H200 config as committed, B = the same classes with ROW_CACHE 1 (device_name=RC1.json), A B B A,
# each run with --size-copy. Prediction (written before the run): the norm fusions' iteration 4 measured
# the same switch 2-4% faster on their large shapes and 2% slower on the 512-token text stream, so here
# wan13b, wan14b, hunyuan, qwen-image, flux2 1-3% faster (wan13b's five cases at 94.3-95.0% of copy and
# qwen-image's fp32 [B, C] two at 89.5-90.0% over their bars), text-512 level or slower.
# Then the family's GPU tests (ROW_CACHE 1 on every layout with ragged tiles in the params test).
# Back: summary.txt (printed last), abba.tar.xz, tests.txt.
set -uo pipefail
OUT=$(realpath "$OUT")
S=$OUT/summary.txt; : > $S
T0=$(date +%s)
scripts/gpu-unpack-bundle.sh --if-needed > $OUT/unpack.txt 2>&1 || { cat $OUT/unpack.txt; exit 1; }
export AKO_CACHE_DIR=/tmp/ako-cache
R=$OUT/abba; mkdir -p $R
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv,noheader >> $S
for r in "A1 NVIDIA H200" "B1 RC1" "B2 RC1" "A2 NVIDIA H200"; do
  tag=${r%% *} dev=${r#* }
  t1=$(date +%s)
  timeout 200 bundle/bin/ako run task scale_shift --no-checks --size-copy --no-progress --device "$dev" \
    --json $R/ss-$tag.json > $R/ss-$tag.txt 2>&1
  echo "$tag ($dev) rc=$? $(( $(date +%s) - t1 ))s: $(grep -E '^CORRECT' $R/ss-$tag.txt | tr '\n' ' ' | cut -c1-100)" >> $S
done
python3 scripts/abba_cases.py $R/ss-A1.json $R/ss-B1.json $R/ss-B2.json $R/ss-A2.json --label "ROW_CACHE 1 / 0" > $R/abba.txt 2>&1
tail -2 $R/abba.txt >> $S
echo "wall $(( $(date +%s) - T0 )) s" >> $S
tar cJf $OUT/abba.tar.xz -C $OUT abba && rm -rf $R
t1=$(date +%s)
AKO_BIN=$PWD/bundle/bin/ako AKO_ROOT=$PWD timeout $(( 580 - ($(date +%s) - T0) )) bundle/bin/ako_gpu_tests \
  --gtest_filter='ScaleShift.*' > $OUT/tests.txt 2>&1
echo "ScaleShift.* rc=$? $(( $(date +%s) - t1 ))s: $(grep -E '^\[  (PASSED|FAILED)' $OUT/tests.txt | tr '\n' ' ')" >> $S
echo "wall $(( $(date +%s) - T0 )) s" >> $S
cat $S
