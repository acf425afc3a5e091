#!/usr/bin/env bash
# Session 27, call 5 (nvidia-h200-x2; carry bundle-x). The residual fusion's text-512-cfg [1, L, C]
# cases (six of eight 16-bit ones under the 1.1x bar against CuTe DSL, 1.065-1.097x in session 26),
# at launch shapes of the kind scale_shift's lc cases gained 8-9% from (ITERATIONS.md scale_shift
# iteration 7: wide blocks, several rows a thread, plain stores): four configs, each the committed one
# with a class ahead for `B == 2 && C == 3072 && L == 512 && layout == 'lc'` (variants/, as devices
# LCV1, LCV2, LCV4, LCV5; ITERATIONS.md norm_scale_shift iteration 30):
#   LCV1 384 threads, 2 chunks of 4, 4 tokens a thread   LCV2 384, 1 chunk of 8, 4 tokens
#   LCV4 192, 2 chunks of 8, 4 tokens                     LCV5 384, 1 chunk of 8, 1 token
#   (all one token a row, modulation loaded before the reductions, plain stores)
# GPU 0: A V1 V2 V2 V1 A, GPU 1: A V4 V5 V5 V4 A, `ako run task residual_gate_norm_scale_shift --shapes text-512-cfg`.
# Back: summary.txt, gpuN.tar.xz.
set -uo pipefail
OUT=$(realpath "$OUT")
S=$OUT/summary.txt; : > $S
scripts/gpu-unpack-bundle.sh > $OUT/unpack.txt 2>&1 || { cat $OUT/unpack.txt; exit 1; }
C=solution/residual_gate_norm_scale_shift/configs
for n in LCV1 LCV2 LCV4 LCV5; do cp bench/results/2026-11-30-h200-session27/variants/residual-h200-config-$n.json $C/device_name=$n.json; done
one() {  # gpu tag device
  CUDA_VISIBLE_DEVICES=$1 AKO_CACHE_DIR=/tmp/ako-cache$1 timeout 150 bundle/bin/ako run task residual_gate_norm_scale_shift \
    --shapes text-512-cfg --no-progress --device "$3" --json $OUT/g$1/$2.json > $OUT/g$1/$2.txt 2>&1
  echo "gpu$1 $2 ($3) rc=$?: $(grep -E '^CORRECT|^RUNTIME' $OUT/g$1/$2.txt | tr '\n' ' ')" >> $OUT/g$1/rcs.txt
}
gpu() {  # gpu, then tag:device pairs
  local g=$1; shift; mkdir -p $OUT/g$g
  for x in "$@"; do one $g "${x%%:*}" "${x#*:}"; done
}
gpu 0 A1:"NVIDIA H200" V1a:LCV1 V2a:LCV2 V2b:LCV2 V1b:LCV1 A2:"NVIDIA H200" &
gpu 1 A1:"NVIDIA H200" V4a:LCV4 V5a:LCV5 V5b:LCV5 V4b:LCV4 A2:"NVIDIA H200" &
wait
{
  for g in 0 1; do echo "== GPU $g"; cat $OUT/g$g/rcs.txt; done
  for p in "0 V1" "0 V2" "1 V4" "1 V5"; do set -- $p
    echo "== GPU $1 $2 / committed (lc cases)"
    python3 scripts/abba_cases.py $OUT/g$1/A1.json $OUT/g$1/${2}a.json $OUT/g$1/${2}b.json $OUT/g$1/A2.json --label "$2 / committed" \
      | grep -E "layout=lc|geomean"
  done
} >> $S 2>&1
rm -f $C/device_name=LCV*.json
for g in 0 1; do tar cJf $OUT/gpu$g.tar.xz -C $OUT g$g && rm -rf $OUT/g$g; done
cat $S
