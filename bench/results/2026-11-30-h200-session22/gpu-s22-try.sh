#!/usr/bin/env bash
# Session 22, call 7 (nvidia-h200-x2, GPU 0; carry bundle-s): call 6's ncu put the fp32 per-frame
# EARLY_MOD 3 kernels' gap in registers (LayerNorm 48 -> 62.5% occupancy, RMSNorm 40 -> 75%);
# the affine RMSNorm one takes 44 and fits 40 without a spill at MIN_BLOCKS 6 (a new value). B = a
# config with that class (variants/nss-device_name=TRY.json, run as device TRY), A = the
# session's config; norm_scale_shift wan13b, A B B A.
set -uo pipefail
export AKO_CACHE_DIR=/tmp/ako-cache
A=bundle-s/bin/ako
H=bench/results/2026-11-30-h200-session22
cp $H/variants/nss-device_name=TRY.json solution/norm_scale_shift/configs/device_name=TRY.json
R=$OUT/try; mkdir -p $R; S=$OUT/summary.txt; : > $S
run() {  # tag device
  CUDA_VISIBLE_DEVICES=0 timeout 120 $A run task norm_scale_shift --device "$2" --shapes wan13b-480p --no-progress \
    --size-copy --json $R/$1.json > $R/$1.txt 2>&1
  echo "$1 rc=$?: $(grep -E '^CORRECT|^RUNTIME' $R/$1.txt | tr '\n' ' ')" >> $S
}
run A1 "NVIDIA H200"; run B1 TRY; run B2 TRY; run A2 "NVIDIA H200"
python3 scripts/abba_cases.py $R/{A1,B1,B2,A2}.json > $R/cases.txt 2>&1
tail -2 $R/cases.txt >> $S
awk '/B\/A/ { for (i = 1; i <= NF; ++i) if ($i == "B/A" && ($(i+1) > 1.01 || $(i+1) < 0.99)) print }' $R/cases.txt | cut -c1-150 >> $S
grep -E "rms.*fp32|fp32.*rms" $R/A1.txt | head -8 >> $S
tar cJf $OUT/try.tar.xz -C $OUT try && rm -rf $R
cat $S
