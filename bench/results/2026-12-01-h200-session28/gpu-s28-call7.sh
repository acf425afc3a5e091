#!/usr/bin/env bash
# Session 28, call 7 (nvidia-h200-x2, warm after call 6; carry bundle-x): the residual fusion's flux1-single
# cases at five launch points against the shape's class (ITERATIONS.md norm_scale_shift iteration 34),
# A X1..X5 X5..X1 A on GPU 0. Run as one command line (this file is that line, split for reading).
# Back: f.tar.xz.
mkdir -p $OUT/f; B="BLOCK=256 CHUNKS=2 VEC=8 ROWS_PER_BLOCK=1 EARLY_MOD=0 MIN_BLOCKS=0 ROW_CACHE=1 TOKENS=1"
declare -A P=([A]="" [X1]="$B STORE_CS=1 STATS=1" [X2]="$B STORE_CS=0 STATS=0"
  [X3]="BLOCK=256 CHUNKS=2 VEC=8 ROWS_PER_BLOCK=1 EARLY_MOD=0 MIN_BLOCKS=0 ROW_CACHE=0 TOKENS=1 STORE_CS=1 STATS=0"
  [X4]="BLOCK=192 CHUNKS=2 VEC=8 ROWS_PER_BLOCK=1 EARLY_MOD=0 MIN_BLOCKS=0 ROW_CACHE=1 TOKENS=1 STORE_CS=1 STATS=1"
  [X5]="BLOCK=384 CHUNKS=1 VEC=8 ROWS_PER_BLOCK=1 EARLY_MOD=0 MIN_BLOCKS=0 ROW_CACHE=1 TOKENS=1 STORE_CS=1 STATS=1")
r(){ a=(); for p in ${P[${1%?}]}; do a+=(--param $p); done
  CUDA_VISIBLE_DEVICES=0 AKO_CACHE_DIR=/tmp/ako-cache0 timeout 40 bundle/bin/ako run task residual_gate_norm_scale_shift \
    --shapes flux1-single --no-progress "${a[@]}" --json $OUT/f/$1.json > $OUT/f/$1.txt 2>&1
  echo "$1 rc=$? $(grep -E '^CORRECT' $OUT/f/$1.txt)"; }
for t in A1 X11 X21 X31 X41 X51 X52 X42 X32 X22 X12 A2; do r $t; done
for x in X1 X2 X3 X4 X5; do python3 scripts/abba_cases.py $OUT/f/A1.json $OUT/f/${x}1.json $OUT/f/${x}2.json $OUT/f/A2.json \
  --label "$x / committed" | grep -E 'B/A|noise' | sed "s/^/$x /" | cut -c1-200; done
tar cJf $OUT/f.tar.xz -C $OUT f && rm -rf $OUT/f
