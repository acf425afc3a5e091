#!/usr/bin/env bash
# Session 34, call 3 (nvidia-h200; carry bundle-x). Layernorm's config with call 1's six classes over whole warps that
# are not a power of two (zimage affine at 160 threads x 3 chunks, hunyuan and flux1-single 16-bit no-affine at
# 192 x 2, wan14b fp32 no-affine at 640 x 1 and 16-bit affine at 160 x 4, text-512-cfg fp32 no-affine at 96 x 4)
# against the config before them (layernorm-h200-config-before.json), A B B A on the five shapes they serve.
# Back: summary.txt (printed last), abba.tar.xz.
set -uo pipefail
OUT=$(realpath "$OUT")
S=$OUT/summary.txt; : > $S
T0=$(date +%s)
scripts/gpu-unpack-bundle.sh --if-needed > $OUT/unpack.txt 2>&1 || { cat $OUT/unpack.txt; exit 1; }
export AKO_CACHE_DIR=/tmp/ako-cache
D=bench/results/2026-12-01-h200-session34
R=$OUT/abba; mkdir -p $R
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader >> $S
C=solution/layernorm/configs
cp $D/layernorm-h200-config-before.json $C/device_name=BEFORE.json
for r in "A1 BEFORE" "B1 NVIDIA H200" "B2 NVIDIA H200" "A2 BEFORE"; do
  tag=${r%% *} dev=${r#* }
  timeout 150 bundle/bin/ako run task layernorm --shapes zimage,hunyuan-720p,flux1-single,wan14b-480p,text-512-cfg \
    --no-progress --device "$dev" --json $R/ln-$tag.json > $R/ln-$tag.txt 2>&1
  echo "$tag ($dev) rc=$?: $(grep -E '^CORRECT' $R/ln-$tag.txt | tr '\n' ' ' | cut -c1-100)" >> $S
done
rm -f $C/device_name=BEFORE.json
python3 scripts/abba_cases.py $R/ln-A1.json $R/ln-B1.json $R/ln-B2.json $R/ln-A2.json --label "warps classes / before" > $R/abba.txt 2>&1
cut -c1-3000 $R/abba.txt >> $S
echo "wall $(( $(date +%s) - T0 )) s" >> $S
tar cJf $OUT/abba.tar.xz -C $OUT abba && rm -rf $R
cat $S
