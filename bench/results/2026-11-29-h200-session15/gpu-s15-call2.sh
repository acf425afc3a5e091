#!/usr/bin/env bash
# Session 15, call 2 (carry bundle, peers, .sgl-proof): (1) gated_act's geglu / gelu_tanh launch
# pair (BLOCK, UNROLL) on the shapes of class cols-mult-4096, now that geglu is cheap: the
# committed (64, 2) and four others by --param, ABCDE-EDCBA; (2) qknorm: rows in flight per
# thread, ROWS (per head) and AROWS (across heads) by --param on the image and video shapes,
# ABCDE-EDCBA; (3) gated_act as `ako port` wrote it into SGLang, through SGLang's JIT flags and
# tvm-ffi against the float64 reference (scripts/sglang-gpu-check.sh --task gated_act).
set -uo pipefail
export AKO_CACHE_DIR=/tmp/ako-cache
A=bundle/bin/ako
L=$OUT/logs; mkdir -p $L $OUT/runs; S=$OUT/summary.txt; : > $S
date -u +%FT%TZ > $L/start.txt
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv > $L/smi.txt
run() {  # $1 task, $2 tag, $3 seconds, rest: ako run options
  local t=$1 tag=$2 lim=$3; shift 3
  local t1=$(date +%s)
  timeout $lim $A run task $t --no-progress --json $OUT/runs/$t-$tag.json "$@" > $L/$t-$tag.txt 2>&1
  echo "$t $tag rc=$? ($(( $(date +%s)-t1 )) s): $(grep -E '^CORRECT|^RUNTIME' $L/$t-$tag.txt | tr '\n' ' ')" >> $S
}
# (1) gated_act, class cols-mult-4096's shapes
SH="--shapes flux1-image,flux1-single,qwen-image,ltx-video,hunyuan-720p"
gcand() {
  case $1 in
    A) ;;
    B) echo "--param BLOCK=128 --param UNROLL=2" ;;
    C) echo "--param BLOCK=256 --param UNROLL=1" ;;
    D) echo "--param BLOCK=256 --param UNROLL=2" ;;
    E) echo "--param BLOCK=128 --param UNROLL=4" ;;
  esac
}
for c in A B C D E; do run gated_act $c-1 90 $SH $(gcand $c); done
for c in E D C B A; do run gated_act $c-2 90 $SH $(gcand $c); done
# (2) qknorm
SH="--shapes flux1,qwen-image,wan13b-480p,wan14b-480p,hunyuan-720p"
qcand() {
  case $1 in
    A) ;;
    B) echo "--param ROWS=2 --param AROWS=2" ;;
    C) echo "--param ROWS=4 --param AROWS=1" ;;
    D) echo "--param ROWS=1 --param AROWS=2" ;;
    E) echo "--param ROWS=2 --param AROWS=1" ;;
  esac
}
for c in A B C D E; do run qknorm $c-1 90 $SH $(qcand $c); done
for c in E D C B A; do run qknorm $c-2 90 $SH $(qcand $c); done
# (3) the port of gated_act on the GPU
t1=$(date +%s)
timeout 300 scripts/sglang-gpu-check.sh --task gated_act > $L/port-gated_act.txt 2>&1
echo "port gated_act rc=$? ($(( $(date +%s)-t1 )) s): $(grep -E 'SGLANG-GPU-CHECK|passed|failed' $L/port-gated_act.txt | tail -3 | tr '\n' ' ')" >> $S
date -u +%FT%TZ > $L/end.txt
tar cJf $OUT/call2.tar.xz -C $OUT logs runs && rm -rf $L $OUT/runs
cat $S
