#!/usr/bin/env bash
# Session 21, call 2 (nvidia-h200-x2, or one H200 running both halves in turn; carry bundle-s):
# EARLY_MOD 3 (ITERATIONS.md norm_scale_shift iteration 20): the block's first token's scale /
# shift rows staged once in shared memory for all ROWS_PER_BLOCK tokens of the block, against the
# committed config (A), on Wan's shapes, where the per-frame rows run at 70-92% of copy.
# `--param` sets BLOCK / ROWS_PER_BLOCK / CHUNKS / VEC / MIN_BLOCKS / EARLY_MOD on every case of
# the shape; the rest stays the case's class's. norm_scale_shift on GPU 0, the residual fusion on
# GPU 1; each A B C [D] [D] C B A with --size-copy. Everything under $OUT/em3.tar.xz; summary.txt last.
set -uo pipefail
export AKO_CACHE_DIR=/tmp/ako-cache
A=bundle-s/bin/ako
R=$OUT/em3; mkdir -p $R; S=$OUT/summary.txt; : > $S
date -u +%FT%TZ > $R/start.txt
nvidia-smi --query-gpu=index,name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv > $R/smi.txt
NG=$(nvidia-smi -L | wc -l)
run() {  # gpu tag task shapes [args]
  local g=$1 tag=$2 task=$3 shapes=$4; shift 4
  CUDA_VISIBLE_DEVICES=$g timeout 280 $A run task $task --device "NVIDIA H200" --shapes $shapes --size-copy --no-progress \
    --json $R/$tag.json "$@" > $R/$tag.txt 2>&1
  echo "$tag rc=$?: $(grep -E '^CORRECT|^RUNTIME' $R/$tag.txt | tr '\n' ' ')" >> $R/runs-gpu$g.txt
}
p() { local o=; for kv in "$@"; do o="$o --param $kv"; done; echo $o; }
E="VEC=8 MIN_BLOCKS=0 EARLY_MOD=3"
W13B=$(p $E BLOCK=256 ROWS_PER_BLOCK=4 CHUNKS=3); W13C=$(p $E BLOCK=512 ROWS_PER_BLOCK=8 CHUNKS=3)
W13D=$(p $E BLOCK=1024 ROWS_PER_BLOCK=16 CHUNKS=3)
W14B=$(p $E BLOCK=256 ROWS_PER_BLOCK=2 CHUNKS=5); W14C=$(p $E BLOCK=512 ROWS_PER_BLOCK=4 CHUNKS=5)
abcd() {  # gpu prefix task shape B C [D]
  local g=$1 n=$2 t=$3 s=$4 b=$5 c=$6 d=${7:-}
  run $g $n-A1 $t $s; run $g $n-B1 $t $s $b; run $g $n-C1 $t $s $c
  if [ -n "$d" ]; then run $g $n-D1 $t $s $d; run $g $n-D2 $t $s $d; fi
  run $g $n-C2 $t $s $c; run $g $n-B2 $t $s $b; run $g $n-A2 $t $s
}
nss() { abcd $1 n13 norm_scale_shift wan13b-480p "$W13B" "$W13C" "$W13D"; abcd $1 n14 norm_scale_shift wan14b-480p "$W14B" "$W14C"; }
res() { abcd $1 r13 residual_gate_norm_scale_shift wan13b-480p "$W13B" "$W13C"; abcd $1 r14 residual_gate_norm_scale_shift wan14b-480p "$W14B" "$W14C"; }
tests() {  # gpu filter name: the GPU tests that force EARLY_MOD 3 across frame and batch boundaries
  [ -f bundle-t/ako_gpu_tests.xz ] || { echo "$3 tests: not run (bundle-t/ako_gpu_tests.xz not carried)" >> $R/runs-gpu$1.txt; return; }
  [ -x /tmp/ako_gpu_tests ] || { xz -dc bundle-t/ako_gpu_tests.xz > /tmp/ako_gpu_tests.$1 && chmod +x /tmp/ako_gpu_tests.$1 && mv /tmp/ako_gpu_tests.$1 /tmp/ako_gpu_tests; }
  CUDA_VISIBLE_DEVICES=$1 AKO_BIN=$PWD/$A AKO_ROOT=$PWD LD_LIBRARY_PATH=$PWD/bundle-s/lib timeout 280 /tmp/ako_gpu_tests \
    --gtest_filter="$2" > $R/$3-tests.log 2>&1
  echo "$3 tests rc=$?: $(grep -E '^\[  (PASSED|FAILED)  \]|tests ran' $R/$3-tests.log | tr '\n' ' ')" >> $R/runs-gpu$1.txt
}
if [ "$NG" -ge 2 ]; then ( tests 0 'NormScaleShift.TokenGroups*' nss; nss 0 ) & ( sleep 2; tests 1 'ResidualGateNormScaleShift.TokenGroups*' res; res 1 ) & wait
else tests 0 'NormScaleShift.TokenGroups*' nss; tests 0 'ResidualGateNormScaleShift.TokenGroups*' res; nss 0; res 0; fi
date -u +%FT%TZ > $R/end.txt
cmp() {  # name A-tag B-tag
  [ -f $R/${3}1.json ] || return
  python3 scripts/abba_cases.py $R/${2}1.json $R/${3}1.json $R/${3}2.json $R/${2}2.json > $R/$1.txt 2>&1
  echo "== $1" >> $S; tail -2 $R/$1.txt >> $S
}
for g in 0 1; do [ -f $R/runs-gpu$g.txt ] && { echo "== GPU $g" >> $S; cat $R/runs-gpu$g.txt >> $S; }; done
for n in n13 n14 r13 r14; do for v in B C D; do cmp $n-$v $n-A $n-$v; done; done
tar cJf $OUT/em3.tar.xz -C $OUT em3 && rm -rf $R
cat $S
