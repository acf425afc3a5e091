#!/usr/bin/env bash
# Session 19, call 1 (nvidia-h200-x2; carry bundle/bin/ako, bundle/bin/ako-worker, bundle/lib):
# GPU 0: layernorm's WB_EARLY (weight and bias loaded with x; ITERATIONS.md layernorm iteration 5)
#   by --param, A B B A, then `ako tune --where affine` of text-512 with WB_EARLY in the space.
# GPU 1: scale_shift's per-token text-512 cases at SGLang Triton's launch shape (96 blocks of 128
#   threads, 16 rows a thread; ITERATIONS.md scale_shift iteration 5) and two neighbours,
#   A B C D D C B A by --param.
# Everything under $OUT/call1.tar.xz; summary.txt printed last.
set -uo pipefail
export AKO_CACHE_DIR=/tmp/ako-cache
A=bundle/bin/ako
R=$OUT/call1; mkdir -p $R; S=$OUT/summary.txt; : > $S
date -u +%FT%TZ > $R/start.txt
nvidia-smi --query-gpu=index,name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv > $R/smi.txt
run() {  # gpu tag task shapes [--param ...]
  local gpu=$1 tag=$2 task=$3 shapes=$4; shift 4
  CUDA_VISIBLE_DEVICES=$gpu timeout 200 $A run task $task --shapes $shapes --no-progress --json $R/$tag.json "$@" \
    > $R/$tag.txt 2>&1
  echo "$tag rc=$?: $(grep -E '^CORRECT|^RUNTIME' $R/$tag.txt | tr '\n' ' ')" >> $R/runs-gpu$gpu.txt
}
cases() { python3 scripts/abba_cases.py $R/$1.json $R/$2.json $R/$3.json $R/$4.json > $R/$5-cases.txt 2>&1; }
LN=text-512,text-512-cfg,flux1-single,wan14b-480p
SS=text-512,text-512-cfg
( run 0 ln-A1 layernorm $LN; run 0 ln-B1 layernorm $LN --param WB_EARLY=1
  run 0 ln-B2 layernorm $LN --param WB_EARLY=1; run 0 ln-A2 layernorm $LN
  cases ln-A1 ln-B1 ln-B2 ln-A2 ln-wb-early
  CUDA_VISIBLE_DEVICES=0 OUT=$R/ln-tune TUNE_TIME=120 timeout 420 bash scripts/gpu-tune-abba.sh layernorm text-512 --where affine \
    > $R/ln-tune.out 2>&1 ) &
( B="--param ROWS_PER_THREAD=16 --param TX=32 --param TY=4 --param VEC=8"
  C="--param ROWS_PER_THREAD=8 --param TX=32 --param TY=4 --param VEC=8"
  D="--param ROWS_PER_THREAD=8 --param TX=32 --param TY=8 --param VEC=8"
  run 1 ss-A1 scale_shift $SS; run 1 ss-B1 scale_shift $SS $B; run 1 ss-C1 scale_shift $SS $C; run 1 ss-D1 scale_shift $SS $D
  run 1 ss-D2 scale_shift $SS $D; run 1 ss-C2 scale_shift $SS $C; run 1 ss-B2 scale_shift $SS $B; run 1 ss-A2 scale_shift $SS
  cases ss-A1 ss-B1 ss-B2 ss-A2 ss-r16-tx32-ty4
  cases ss-A1 ss-C1 ss-C2 ss-A2 ss-r8-tx32-ty4
  cases ss-A1 ss-D1 ss-D2 ss-A2 ss-r8-tx32-ty8 ) &
wait
date -u +%FT%TZ > $R/end.txt
for f in $R/runs-gpu*.txt; do cat $f >> $S; done
for f in $R/*-cases.txt; do echo "== $(basename $f)" >> $S; cat $f >> $S; done
echo "== layernorm tune" >> $S; tail -4 $R/ln-tune.out >> $S
tar cJf $OUT/call1.tar.xz -C $OUT call1 && rm -rf $R
cat $S
