#!/usr/bin/env bash
# Session 24, call 1 (nvidia-h200-x2; carry bundle-x). The residual fusion on Wan.
# GPU 0 (this tree): the config with the new class shape-wan13b-480p-frame-gate-bc-mod-cute-shape
#   (N) against session 23's (A, variants/res-device_name=BEFORE24.json as device BEFORE24),
#   wan13b, A N N A; then, in a copy of the tree, scripts/gpu-tune-abba.sh on wan13b's affine fp32
#   per-frame LayerNorm cases (the copy-bar misses, 89.7%: --where).
# GPU 1 (another copy): scripts/gpu-tune-abba.sh on wan14b's fp32-modulation LayerNorm cases
#   (behind CuTe DSL by 0.7-2.2% in session 23's call 19, two of them under the copy bar).
# Back: summary.txt, gpu0.tar.xz, gpu1.tar.xz.
set -uo pipefail
OUT=$(realpath "$OUT")
B=/tmp/bx; rm -rf $B; mkdir -p $B/bin && cp -r bundle-x/lib $B/
for b in ako ako-worker ako_gpu_tests; do xz -dc bundle-x/$b.xz > $B/bin/$b && chmod +x $B/bin/$b; done
export LD_LIBRARY_PATH=$B/lib:${LD_LIBRARY_PATH:-}
T=residual_gate_norm_scale_shift
S=$OUT/summary.txt; : > $S
nvidia-smi --query-gpu=index,name,driver_version,uuid --format=csv > $OUT/smi.txt 2>&1
copy_tree() { rm -rf $1 && mkdir $1 && tar c --exclude=./.git --exclude='./bundle*' --exclude='./.sgl-proof*' . | tar x -C $1; }

gpu1() {
  copy_tree /tmp/w1
  local t0=$(date +%s)
  (cd /tmp/w1 && CUDA_VISIBLE_DEVICES=1 AKO_CACHE_DIR=/tmp/ako-cache1 A=$B/bin/ako TUNE_TIME=240 OUT=$OUT/g1/tune-wan14b \
     bash scripts/gpu-tune-abba.sh $T wan14b-480p --where "mod_dtype == 'fp32' && norm == 'layer'" > $OUT/g1/stdout.txt 2>&1)
  echo "GPU 1 tune-abba wan14b rc=$? ($(( $(date +%s)-t0 )) s)" > $OUT/g1/summary.txt
  cat $OUT/g1/tune-wan14b/summary.txt >> $OUT/g1/summary.txt
}
mkdir -p $OUT/g0 $OUT/g1
gpu1 &

export CUDA_VISIBLE_DEVICES=0 AKO_CACHE_DIR=/tmp/ako-cache0
C=solution/$T/configs
cp bench/results/2026-11-30-h200-session24/variants/res-device_name=BEFORE24.json $C/device_name=BEFORE24.json
R=$OUT/g0/ab; mkdir -p $R
run() {  # tag args...
  local tag=$1; shift
  timeout 60 $B/bin/ako run task $T --shapes wan13b-480p --no-progress --json $R/$tag.json "$@" > $R/$tag.txt 2>&1
  echo "$tag rc=$?: $(grep -E '^CORRECT|^RUNTIME' $R/$tag.txt | tr '\n' ' ')" >> $S
}
run A1 --device BEFORE24; run N1; run N2; run A2 --device BEFORE24
rm $C/device_name=BEFORE24.json
python3 scripts/abba_cases.py $R/A1.json $R/N1.json $R/N2.json $R/A2.json --label "N / A" > $R/cases.txt 2>&1
echo "== N / A, gate=bf1c layout=bc" >> $S
grep "gate=bf1c layout=bc" $R/cases.txt | cut -c1-150 >> $S; tail -n 2 $R/cases.txt | cut -c1-200 >> $S
copy_tree /tmp/w0
t0=$(date +%s)
(cd /tmp/w0 && A=$B/bin/ako TUNE_TIME=200 OUT=$OUT/g0/tune-wan13b \
   bash scripts/gpu-tune-abba.sh $T wan13b-480p --where "layout == 'bf1c' && mod_dtype == 'fp32' && norm == 'layer' && affine" \
   > $OUT/g0/tune-stdout.txt 2>&1)
echo "== GPU 0 tune-abba wan13b affine fp32 per-frame LayerNorm rc=$? ($(( $(date +%s)-t0 )) s)" >> $S
cat $OUT/g0/tune-wan13b/summary.txt >> $S
grep "layout=bf1c" $OUT/g0/tune-wan13b/cases.txt | grep "mod_dtype=fp32 norm=layer" | cut -c1-150 >> $S
wait
echo "== GPU 1" >> $S; cat $OUT/g1/summary.txt >> $S
grep "mod_dtype=fp32 norm=layer" $OUT/g1/tune-wan14b/cases.txt | cut -c1-150 >> $S
cp $S $OUT/g0/
tar cJf $OUT/gpu0.tar.xz -C $OUT g0 && rm -rf $OUT/g0
tar cJf $OUT/gpu1.tar.xz -C $OUT g1 && rm -rf $OUT/g1
cat $S
