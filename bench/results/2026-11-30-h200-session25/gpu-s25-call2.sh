#!/usr/bin/env bash
# Session 25, call 2 (nvidia-h200-x2; carry bundle-x, peers). qknorm's copy-bar misses, and issue
# 15's four tasks with their engine columns (call 1 ran without peers/: no engine column).
# GPU 0: scripts/gpu-tune-abba.sh qknorm wan13b-480p --where "!across_heads" (per head at
#   94.3-94.6% of copy in call 1); then `ako run --size-copy` of gated_act and qknorm, engine tables.
# GPU 1: scripts/gpu-tune-abba.sh qknorm wan14b-480p --where "across_heads" (94.6-95.0%); then
#   rope and qknorm_rope likewise.
# Each tune in a copy of the tree (its config written there); each GPU its own kernel cache.
# Back: summary.txt, gpu0.tar.xz, gpu1.tar.xz.
set -uo pipefail
OUT=$(realpath "$OUT")
S=$OUT/summary.txt; : > $S
scripts/gpu-unpack-bundle.sh > $OUT/unpack.txt 2>&1 || { cat $OUT/unpack.txt; exit 1; }
A=$PWD/bundle/bin/ako
nvidia-smi --query-gpu=index,name,driver_version,uuid --format=csv > $OUT/smi.txt 2>&1
copy_tree() { rm -rf $1 && mkdir $1 && tar c --exclude=./.git --exclude='./bundle*' --exclude='./.sgl-proof*' . | tar x -C $1; }

job() {  # gpu shape where tasks...
  local g=$1 shape=$2 where=$3; shift 3
  local R=$OUT/g$g; mkdir -p $R
  export CUDA_VISIBLE_DEVICES=$g AKO_CACHE_DIR=/tmp/ako-cache$g
  copy_tree /tmp/w$g
  local t0=$(date +%s)
  (cd /tmp/w$g && A=$A TUNE_TIME=240 OUT=$R/tune bash scripts/gpu-tune-abba.sh qknorm $shape --where "$where" > $R/tune-stdout.txt 2>&1)
  echo "== GPU $g tune-abba qknorm $shape --where '$where' rc=$? ($(( $(date +%s)-t0 )) s)" > $R/summary.txt
  cat $R/tune/summary.txt >> $R/summary.txt
  for t in "$@"; do
    local t1=$(date +%s)
    timeout 200 $A run task $t --size-copy --no-progress --json $R/$t.json > $R/$t.txt 2>&1
    echo "== $t full run rc=$? ($(( $(date +%s)-t1 )) s): $(grep -E '^CORRECT|^RUNTIME' $R/$t.txt | tr '\n' ' ')" >> $R/summary.txt
    python3 scripts/engine_table.py $R/$t.json > $R/$t-engine-table.txt 2>&1
    python3 scripts/engine_table.py --by-shape --markdown $R/$t.json > $R/$t-by-shape.md 2>&1
    grep -E "^ako vs|^slower|^under" $R/$t-engine-table.txt | cut -c1-700 >> $R/summary.txt
  done
  tar cJf $OUT/gpu$g.tar.xz -C $OUT g$g
}
job 1 wan14b-480p "across_heads" rope qknorm_rope &
job 0 wan13b-480p "!across_heads" gated_act qknorm
wait
cat $OUT/g0/summary.txt $OUT/g1/summary.txt >> $S
rm -rf $OUT/g0 $OUT/g1
cat $S
