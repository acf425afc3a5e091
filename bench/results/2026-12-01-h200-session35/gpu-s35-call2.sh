#!/usr/bin/env bash
# Session 35, call 2 (nvidia-h200; carry bundle-x).
#  1. scale_shift's wan13b cases and qwen-image's [B, C] cases under the sets of ss-rowcache-sets.txt
#     (A X1..Xn Xn..X1 A against the committed config, scripts/gpu-sweep-sets.sh);
#  2. the config with ROW_CACHE 1 on wan14b's and hunyuan's four classes against the config before
#     (ss-h200-config-before.json), A B B A on those two shapes. Prediction (call 1's all-classes run):
#     2-4.5% faster on all twelve cases.
# Back: summary.txt (printed last), sweep.tar.xz, abba.tar.xz.
set -uo pipefail
OUT=$(realpath "$OUT")
S=$OUT/summary.txt; : > $S
T0=$(date +%s)
scripts/gpu-unpack-bundle.sh --if-needed > $OUT/unpack.txt 2>&1 || { cat $OUT/unpack.txt; exit 1; }
export AKO_CACHE_DIR=/tmp/ako-cache
D=bench/results/2026-12-01-h200-session35
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv,noheader >> $S
W=$OUT/sweep; mkdir -p $W
echo "== wan13b-480p" >> $S
OUT=$W/wan13b RUN_TIMEOUT=60 scripts/gpu-sweep-sets.sh scale_shift wan13b-480p $D/ss-rowcache-sets.txt > /dev/null 2>&1
cat $W/wan13b/summary.txt >> $S
echo "== qwen-image, layout bc" >> $S
OUT=$W/qwen WHERE="layout == 'bc'" RUN_TIMEOUT=60 scripts/gpu-sweep-sets.sh scale_shift qwen-image $D/ss-rowcache-sets.txt > /dev/null 2>&1
cat $W/qwen/summary.txt >> $S
echo "sweeps done $(( $(date +%s) - T0 )) s" >> $S
tar cJf $OUT/sweep.tar.xz -C $OUT sweep && rm -rf $W
R=$OUT/abba; mkdir -p $R
C=solution/scale_shift/configs
cp $D/ss-h200-config-before.json $C/device_name=BEFORE.json
for r in "A1 BEFORE" "B1 NVIDIA H200" "B2 NVIDIA H200" "A2 BEFORE"; do
  tag=${r%% *} dev=${r#* }
  t1=$(date +%s)
  timeout 120 bundle/bin/ako run task scale_shift --shapes wan14b-480p,hunyuan-720p --no-checks --size-copy --no-progress \
    --device "$dev" --json $R/ss-$tag.json > $R/ss-$tag.txt 2>&1
  echo "$tag ($dev) rc=$? $(( $(date +%s) - t1 ))s: $(grep -E '^CORRECT' $R/ss-$tag.txt | tr '\n' ' ' | cut -c1-100)" >> $S
done
rm -f $C/device_name=BEFORE.json
python3 scripts/abba_cases.py $R/ss-A1.json $R/ss-B1.json $R/ss-B2.json $R/ss-A2.json --label "ROW_CACHE 1 on wan14b, hunyuan / before" > $R/abba.txt 2>&1
cat $R/abba.txt | cut -c1-200 >> $S
tar cJf $OUT/abba.tar.xz -C $OUT abba && rm -rf $R
echo "wall $(( $(date +%s) - T0 )) s" >> $S
cat $S
