#!/usr/bin/env bash
# Session 22, call 2 (nvidia-h200-x2, or one H200 running both halves in turn; carry bundle-s).
# STATS is now a parameter of the three tasks (0 first: every class before keeps its kernel).
#  GPU 0: norm_scale_shift, every shape but text-512-cfg (its TOKENS 2 classes spill with STATS 1),
#         A B B A with B = --param STATS=1; then text-512-cfg, the config with the CuTe-shape
#         classes (B) against HEAD's (A: before/, run as device BEFORE).
#  GPU 1: the residual fusion and layernorm, every case, the configs with their STATS 1 classes
#         (B) against HEAD's (A: before/, device BEFORE).
# Everything under $OUT/classes.tar.xz; summary.txt printed last.
set -uo pipefail
export AKO_CACHE_DIR=/tmp/ako-cache
A=bundle-s/bin/ako
H=bench/results/2026-11-30-h200-session22
cp $H/before/nss-device_name=NVIDIA_H200.json solution/norm_scale_shift/configs/device_name=BEFORE.json
cp $H/before/res-device_name=NVIDIA_H200.json solution/residual_gate_norm_scale_shift/configs/device_name=BEFORE.json
cp $H/before/ln-device_name=NVIDIA_H200.json solution/layernorm/configs/device_name=BEFORE.json
R=$OUT/classes; mkdir -p $R; S=$OUT/summary.txt; : > $S
date -u +%FT%TZ > $R/start.txt
nvidia-smi --query-gpu=index,name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv > $R/smi.txt
NG=$(nvidia-smi -L | wc -l)
run() {  # gpu tag task device [args]
  local g=$1 tag=$2 task=$3 dev=$4; shift 4
  CUDA_VISIBLE_DEVICES=$g timeout 240 $A run task $task --device "$dev" --no-progress --json $R/$tag.json "$@" \
    > $R/$tag.txt 2>&1
  echo "$tag rc=$?: $(grep -E '^CORRECT|^RUNTIME' $R/$tag.txt | tr '\n' ' ')" >> $R/runs-gpu$g.txt
}
V="NVIDIA H200"
NSS_SHAPES=text-512,flux1-single,flux2-single,qwen-image,zimage,ltx-video,wan13b-480p,wan14b-480p,hunyuan-720p
half0() {
  local g=$1 t=norm_scale_shift s="--shapes $NSS_SHAPES"
  run $g nss-A1 $t "$V" $s; run $g nss-B1 $t "$V" $s --param STATS=1
  run $g nss-B2 $t "$V" $s --param STATS=1; run $g nss-A2 $t "$V" $s
  s="--shapes text-512-cfg"
  run $g t-A1 $t BEFORE $s; run $g t-B1 $t "$V" $s; run $g t-B2 $t "$V" $s; run $g t-A2 $t BEFORE $s
}
half1() {
  local g=$1 t
  for t in residual_gate_norm_scale_shift layernorm; do
    run $g $t-A1 $t BEFORE; run $g $t-B1 $t "$V"; run $g $t-B2 $t "$V"; run $g $t-A2 $t BEFORE
  done
}
if [ "$NG" -ge 2 ]; then ( half0 0 ) & ( half1 1 ) & wait; else half0 0; half1 0; fi
date -u +%FT%TZ > $R/end.txt
cmp() {  # name A-tag B-tag
  python3 scripts/abba_cases.py $R/${2}1.json $R/${3}1.json $R/${3}2.json $R/${2}2.json > $R/$1.txt 2>&1
  echo "== $1" >> $S; tail -2 $R/$1.txt >> $S
  awk '/B\/A/ { for (i = 1; i <= NF; ++i) if ($i == "B/A" && ($(i+1) > 1.01 || $(i+1) < 0.99)) print }' $R/$1.txt | cut -c1-150 >> $S
}
for g in 0 1; do [ -f $R/runs-gpu$g.txt ] && { echo "== GPU $g" >> $S; cat $R/runs-gpu$g.txt >> $S; }; done
cmp nss-stats nss-A nss-B; cmp nss-text-classes t-A t-B
cmp res-classes residual_gate_norm_scale_shift-A residual_gate_norm_scale_shift-B; cmp ln-classes layernorm-A layernorm-B
tar cJf $OUT/classes.tar.xz -C $OUT classes && rm -rf $R
cat $S
