#!/usr/bin/env bash
# Session 21, call 1 (nvidia-h200-x2, or one H200 running both halves in turn; carry bundle-s):
# the residual fusion at SGLang CuTe DSL's launch shapes (ITERATIONS.md residual iteration 19).
# CuTe gives a row 32 * ceil(C / 256 / per_warp) threads, per_warp the largest divisor of C / 256
# leaving >= 5 warps (>= 10 with a gate and an affine weight): C = 3072 -> 192 threads x 2 chunks
# of 8 (384 x 1), 5120 -> 160 x 4 (320 x 2). Iteration 9 tried C / 8 threads x 1 chunk only.
# `--param` overrides BLOCK / ROWS_PER_BLOCK / CHUNKS on every case of the shapes named; the other
# parameters stay the case's class's. A = the committed config. Runs A B C D D C B A (text-512-cfg
# on GPU 0, wan14b on GPU 1). Everything under $OUT/shapes.tar.xz;
# summary.txt printed last.
set -uo pipefail
export AKO_CACHE_DIR=/tmp/ako-cache
A=bundle-s/bin/ako
R=$OUT/shapes; mkdir -p $R; S=$OUT/summary.txt; : > $S
date -u +%FT%TZ > $R/start.txt
nvidia-smi --query-gpu=index,name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv > $R/smi.txt
NG=$(nvidia-smi -L | wc -l)
T=residual_gate_norm_scale_shift
run() {  # gpu tag shapes [args]
  local g=$1 tag=$2 shapes=$3; shift 3
  CUDA_VISIBLE_DEVICES=$g timeout 280 $A run task $T --device "NVIDIA H200" --shapes $shapes --no-progress \
    --json $R/$tag.json "$@" > $R/$tag.txt 2>&1
  echo "$tag rc=$?: $(grep -E '^CORRECT|^RUNTIME' $R/$tag.txt | tr '\n' ' ')" >> $R/runs-gpu$g.txt
}
p() { local o=; for kv in "$@"; do o="$o --param $kv"; done; echo $o; }
TB=$(p VEC=8 BLOCK=192 ROWS_PER_BLOCK=1 CHUNKS=2)
TC=$(p VEC=8 BLOCK=192 ROWS_PER_BLOCK=1 CHUNKS=2 EARLY_MOD=0)
TD=$(p VEC=8 BLOCK=384 ROWS_PER_BLOCK=2 CHUNKS=2)
text() {
  local g=$1
  run $g t-A1 text-512-cfg; run $g t-B1 text-512-cfg $TB; run $g t-C1 text-512-cfg $TC; run $g t-D1 text-512-cfg $TD
  run $g t-D2 text-512-cfg $TD; run $g t-C2 text-512-cfg $TC; run $g t-B2 text-512-cfg $TB; run $g t-A2 text-512-cfg
}
W14B=$(p VEC=8 BLOCK=160 ROWS_PER_BLOCK=1 CHUNKS=4); W14C=$(p VEC=8 BLOCK=320 ROWS_PER_BLOCK=1 CHUNKS=2)
W14D=$(p VEC=8 BLOCK=320 ROWS_PER_BLOCK=2 CHUNKS=4)
wan() {
  local g=$1
  run $g w14-A1 wan14b-480p; run $g w14-B1 wan14b-480p $W14B; run $g w14-C1 wan14b-480p $W14C
  run $g w14-D1 wan14b-480p $W14D; run $g w14-D2 wan14b-480p $W14D
  run $g w14-C2 wan14b-480p $W14C; run $g w14-B2 wan14b-480p $W14B; run $g w14-A2 wan14b-480p
}
if [ "$NG" -ge 2 ]; then ( text 0 ) & ( wan 1 ) & wait; else text 0; wan 0; fi
date -u +%FT%TZ > $R/end.txt
cmp() {  # name A-tag B-tag
  python3 scripts/abba_cases.py $R/${2}1.json $R/${3}1.json $R/${3}2.json $R/${2}2.json > $R/$1.txt 2>&1
  echo "== $1" >> $S; tail -2 $R/$1.txt >> $S
}
for g in 0 1; do [ -f $R/runs-gpu$g.txt ] && { echo "== GPU $g" >> $S; cat $R/runs-gpu$g.txt >> $S; }; done
cmp text-B t-A t-B; cmp text-C t-A t-C; cmp text-D t-A t-D
cmp w14-B w14-A w14-B; cmp w14-C w14-A w14-C; cmp w14-D w14-A w14-D
tar cJf $OUT/shapes.tar.xz -C $OUT shapes && rm -rf $R
cat $S
