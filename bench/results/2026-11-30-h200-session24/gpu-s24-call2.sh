#!/usr/bin/env bash
# Session 24, call 2 (nvidia-h200-x2; carry bundle-x). The residual fusion.
# GPU 0: wan13b and wan14b, session 23's config (A: variants/res-device_name=BEFORE24.json) against
#   this tree's (N2: call 1's class plus three classes picked from call 1's tune databases) and E
#   (N2 with a class in front: 64 x 3 chunks, EARLY_MOD 1, MIN_BLOCKS 1 for wan13b's affine fp32
#   scalar-modulation and per-frame-gate same-dtype LayerNorm cases; variants/res-device_name=TRYE.json),
#   A N2 E E N2 A.
# GPU 1 (a copy of the tree): scripts/gpu-tune-abba.sh on text-512-cfg's seven fp16 cases behind
#   CuTe DSL in session 23's call 19 (--dtypes fp16 --where), for the tune database.
# Back: summary.txt, gpu0.tar.xz, gpu1.tar.xz.
set -uo pipefail
OUT=$(realpath "$OUT")
B=/tmp/bx; rm -rf $B; mkdir -p $B/bin && cp -r bundle-x/lib $B/
for b in ako ako-worker ako_gpu_tests; do xz -dc bundle-x/$b.xz > $B/bin/$b && chmod +x $B/bin/$b; done
export LD_LIBRARY_PATH=$B/lib:${LD_LIBRARY_PATH:-}
T=residual_gate_norm_scale_shift
V=bench/results/2026-11-30-h200-session24/variants
S=$OUT/summary.txt; : > $S
copy_tree() { rm -rf $1 && mkdir $1 && tar c --exclude=./.git --exclude='./bundle*' --exclude='./.sgl-proof*' . | tar x -C $1; }
mkdir -p $OUT/g0 $OUT/g1
gpu1() {
  copy_tree /tmp/w1
  local t0=$(date +%s)
  (cd /tmp/w1 && CUDA_VISIBLE_DEVICES=1 AKO_CACHE_DIR=/tmp/ako-cache1 A=$B/bin/ako TUNE_TIME=240 OUT=$OUT/g1/tune-text \
     bash scripts/gpu-tune-abba.sh $T text-512-cfg --dtypes fp16 --where \
     "(!affine && gate == 'bc' && (norm == 'rms' && (layout == 'scalar' || layout == 'c') || layout == 'bc' && mod_dtype == 'same')) || (affine && gate == 'none' && norm == 'layer' && mod_dtype == 'same')" \
     > $OUT/g1/stdout.txt 2>&1)
  echo "GPU 1 tune-abba text-512-cfg fp16 rc=$? ($(( $(date +%s)-t0 )) s)" > $OUT/g1/summary.txt
  cat $OUT/g1/tune-text/summary.txt >> $OUT/g1/summary.txt
}
gpu1 &
export CUDA_VISIBLE_DEVICES=0 AKO_CACHE_DIR=/tmp/ako-cache0
C=solution/$T/configs
for t in BEFORE24 TRYE; do cp $V/res-device_name=$t.json $C/device_name=$t.json; done
R=$OUT/g0/ab; mkdir -p $R
run() {  # tag args...
  local tag=$1; shift
  timeout 90 $B/bin/ako run task $T --shapes wan13b-480p,wan14b-480p --no-progress --json $R/$tag.json "$@" > $R/$tag.txt 2>&1
  echo "$tag rc=$?: $(grep -E '^CORRECT|^RUNTIME' $R/$tag.txt | tr '\n' ' ')" >> $S
}
run A1 --device BEFORE24; run N1; run E1 --device TRYE; run E2 --device TRYE; run N2; run A2 --device BEFORE24
rm $C/device_name=BEFORE24.json $C/device_name=TRYE.json
python3 scripts/abba_cases.py $R/A1.json $R/N1.json $R/N2.json $R/A2.json --label "N2 / A" > $R/cases-N.txt 2>&1
python3 scripts/abba_cases.py $R/N1.json $R/E1.json $R/E2.json $R/N2.json --label "E / N2" --noise-label "noise N2 / N1" > $R/cases-E.txt 2>&1
echo "== N2 / A (changed classes)" >> $S
grep -E "wan14b|layout=bf1c mod_dtype=fp32 norm=layer|gate=bf1c layout=bc" $R/cases-N.txt | grep -v "^N2\|^noise" | cut -c1-150 >> $S
tail -n 2 $R/cases-N.txt | cut -c1-220 >> $S
echo "== E / N2 (the try class's cases)" >> $S
grep -E "wan13b.*norm=layer" $R/cases-E.txt | grep -E "layout=scalar mod_dtype=fp32|gate=bf1c layout=bc mod_dtype=same" | cut -c1-150 >> $S
tail -n 2 $R/cases-E.txt | cut -c1-220 >> $S
wait
echo "== GPU 1" >> $S; cat $OUT/g1/summary.txt >> $S
cp $S $OUT/g0/
tar cJf $OUT/gpu0.tar.xz -C $OUT g0 && rm -rf $OUT/g0
tar cJf $OUT/gpu1.tar.xz -C $OUT g1 && rm -rf $OUT/g1
cat $S
