#!/usr/bin/env bash
# Session 22, call 12 (nvidia-h200-x2, GPU 0; carry bundle-x): a measurement for the next session.
# The residual fusion's fp32 per-frame RMSNorm kernels (EARLY_MOD 3, 128 x 2 tokens) take 54
# registers; pinned at 10 blocks of 128 (MIN_BLOCKS 10, a new value) they take 48 without a
# spill. B = a config with that class first (variants/res-device_name=TRY.json, device TRY), A =
# the session's config; the residual fusion on wan13b, A B B A. As run, the carried tree's task
# spec had MIN_BLOCKS 10 among the values (not committed: the class is not adopted until its port
# is proven); the sed below makes the same change on the device's copy.
set -uo pipefail
export AKO_CACHE_DIR=/tmp/ako-cache
H=bench/results/2026-11-30-h200-session22
B=/tmp/bx; rm -rf $B; mkdir -p $B/bin && cp -r bundle-x/lib $B/
for b in ako ako-worker; do xz -dc bundle-x/$b.xz > $B/bin/$b && chmod +x $B/bin/$b; done
sed -i 's/"MIN_BLOCKS": \[0, 1\],/"MIN_BLOCKS": [0, 1, 10],/' tasks/residual_gate_norm_scale_shift/task.json
cp $H/variants/res-device_name=TRY.json solution/residual_gate_norm_scale_shift/configs/device_name=TRY.json
R=$OUT/try; mkdir -p $R; S=$OUT/summary.txt; : > $S
run() {  # tag device
  CUDA_VISIBLE_DEVICES=0 timeout 120 $B/bin/ako run task residual_gate_norm_scale_shift --device "$2" --shapes wan13b-480p \
    --no-progress --size-copy --json $R/$1.json > $R/$1.txt 2>&1
  echo "$1 rc=$?: $(grep -E '^CORRECT|^RUNTIME' $R/$1.txt | tr '\n' ' ')" >> $S
}
run A1 "NVIDIA H200"; run B1 TRY; run B2 TRY; run A2 "NVIDIA H200"
python3 scripts/abba_cases.py $R/{A1,B1,B2,A2}.json > $R/cases.txt 2>&1
tail -2 $R/cases.txt >> $S
awk '/B\/A/ { for (i = 1; i <= NF; ++i) if ($i == "B/A" && ($(i+1) > 1.01 || $(i+1) < 0.99)) print }' $R/cases.txt | cut -c1-150 >> $S
grep "norm=rms" $R/cases.txt | grep "bf1c mod_dtype=fp32\|layout=bf1c" | grep fp32 | cut -c1-150 >> $S
tar cJf $OUT/try.tar.xz -C $OUT try && rm -rf $R
cat $S
