#!/usr/bin/env bash
# Session 22, call 1 (nvidia-h200-x2, or one H200 running both halves in turn; carry bundle-s).
# 1. LayerNorm's statistics in one reduction (STATS 1: Chan's pairwise merge of per-thread mean
#    and m2) against the two reductions of HEAD, every case, A B B A; B runs the solution with
#    STATS defaulting to 1 (variants/*-stats1.cuh: the working tree's kernels, default flipped),
#    the configs unchanged. RMSNorm cases run the same code in A and B: the noise floor.
#    GPU 0: norm_scale_shift, then layernorm; GPU 1: the residual fusion.
# 2. GPU 1 after: norm_scale_shift text-512-cfg at SGLang CuTe DSL's launch shape (C = 3072: 192
#    threads x 2 chunks of 8, or 384 x 2 rows) by --param, A B C D E E D C B A.
# Everything under $OUT/stats.tar.xz; summary.txt printed last.
set -uo pipefail
export AKO_CACHE_DIR=/tmp/ako-cache
A=bundle-s/bin/ako
H=bench/results/2026-11-30-h200-session22
R=$OUT/stats; mkdir -p $R; S=$OUT/summary.txt; : > $S
date -u +%FT%TZ > $R/start.txt
nvidia-smi --query-gpu=index,name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv > $R/smi.txt
NG=$(nvidia-smi -L | wc -l)
run() {  # gpu tag task [args]
  local g=$1 tag=$2 task=$3; shift 3
  CUDA_VISIBLE_DEVICES=$g timeout 240 $A run task $task --device "NVIDIA H200" --no-progress --json $R/$tag.json "$@" \
    > $R/$tag.txt 2>&1
  echo "$tag rc=$?: $(grep -E '^CORRECT|^RUNTIME' $R/$tag.txt | tr '\n' ' ')" >> $R/runs-gpu$g.txt
}
abba() {  # gpu name task variant.cuh
  local g=$1 n=$2 t=$3 new="--solution $H/variants/$4"
  run $g $n-A1 $t; run $g $n-B1 $t $new; run $g $n-B2 $t $new; run $g $n-A2 $t
}
p() { local o=; for kv in "$@"; do o="$o --param $kv"; done; echo $o; }
TB=$(p VEC=8 BLOCK=192 ROWS_PER_BLOCK=1 CHUNKS=2)
TC=$(p VEC=8 BLOCK=192 ROWS_PER_BLOCK=1 CHUNKS=2 EARLY_MOD=0)
TD=$(p VEC=8 BLOCK=384 ROWS_PER_BLOCK=2 CHUNKS=2)
TE=$(p VEC=8 BLOCK=192 ROWS_PER_BLOCK=1 CHUNKS=2 TOKENS=1)
shapes() {
  local g=$1 t=norm_scale_shift s="--shapes text-512-cfg"
  run $g t-A1 $t $s; run $g t-B1 $t $s $TB; run $g t-C1 $t $s $TC; run $g t-D1 $t $s $TD; run $g t-E1 $t $s $TE
  run $g t-E2 $t $s $TE; run $g t-D2 $t $s $TD; run $g t-C2 $t $s $TC; run $g t-B2 $t $s $TB; run $g t-A2 $t $s
}
half0() { abba $1 nss norm_scale_shift norm_scale_shift-stats1.cuh; abba $1 ln layernorm layernorm-stats1.cuh; }
half1() { abba $1 res residual_gate_norm_scale_shift norm_scale_shift-stats1.cuh; shapes $1; }
if [ "$NG" -ge 2 ]; then ( half0 0 ) & ( half1 1 ) & wait; else half0 0; half1 0; fi
date -u +%FT%TZ > $R/end.txt
cmp() {  # name A-tag B-tag
  python3 scripts/abba_cases.py $R/${2}1.json $R/${3}1.json $R/${3}2.json $R/${2}2.json > $R/$1.txt 2>&1
  echo "== $1" >> $S; tail -2 $R/$1.txt >> $S
}
for g in 0 1; do [ -f $R/runs-gpu$g.txt ] && { echo "== GPU $g" >> $S; cat $R/runs-gpu$g.txt >> $S; }; done
cmp nss-stats nss-A nss-B; cmp res-stats res-A res-B; cmp ln-stats ln-A ln-B
cmp text-B t-A t-B; cmp text-C t-A t-C; cmp text-D t-A t-D; cmp text-E t-A t-E
tar cJf $OUT/stats.tar.xz -C $OUT stats && rm -rf $R
cat $S
