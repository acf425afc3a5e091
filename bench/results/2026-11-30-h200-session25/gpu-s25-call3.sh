#!/usr/bin/env bash
# Session 25, call 3 (nvidia-h200-x2; carry bundle-x, peers). Two launch-shape experiments, each
# variant against the committed config in one mirrored order (A V1 V2 V3 V3 V2 V1 A), per case
# through scripts/abba_cases.py.
# GPU 0: gated_act's PERSIST (blocks walking the tiles, grid at most 132 x PERSIST) at 8, 16, 32
#   on the image shapes flux1-image, zimage, qwen-image, ltx-video (every form; the engines run too).
# GPU 1: qknorm wan13b-480p per head at 12 or 24 rows a block: BLOCK 192 (AGROUP 64, CHUNKS 3 so the
#   across-heads cases stay valid), BLOCK 384 (AGROUP 128), BLOCK 192 with ROWS 2; the committed
#   config is BLOCK 128, GROUP 16, ROWS 1 (8 rows a block) and the across-heads form of the same
#   bytes ran 1% faster in call 2.
# Back: summary.txt, gpu0.tar.xz, gpu1.tar.xz.
set -uo pipefail
OUT=$(realpath "$OUT")
S=$OUT/summary.txt; : > $S
scripts/gpu-unpack-bundle.sh > $OUT/unpack.txt 2>&1 || { cat $OUT/unpack.txt; exit 1; }
A=$PWD/bundle/bin/ako
nvidia-smi --query-gpu=index,name,driver_version,uuid --format=csv > $OUT/smi.txt 2>&1

mirrored() {  # gpu task shapes tag0 "params0" tag1 "params1" ...
  local g=$1 task=$2 shapes=$3; shift 3
  local R=$OUT/g$g; mkdir -p $R
  export CUDA_VISIBLE_DEVICES=$g AKO_CACHE_DIR=/tmp/ako-cache$g
  local -a tags=() params=()
  while [ $# -gt 0 ]; do tags+=("$1"); params+=("$2"); shift 2; done
  local n=${#tags[@]} order=()
  for ((i = 0; i < n; i++)); do order+=($i); done
  for ((i = n - 1; i >= 0; i--)); do order+=($i); done
  local seen=()
  for i in "${order[@]}"; do
    local rep=1; [[ " ${seen[*]} " == *" $i "* ]] && rep=2; seen+=($i)
    local tag=${tags[$i]}$rep
    timeout 120 $A run task $task --shapes $shapes --no-progress --json $R/$tag.json ${params[$i]} > $R/$tag.txt 2>&1
    echo "$task $tag (${params[$i]:-committed}) rc=$?: $(grep -E '^CORRECT|^RUNTIME' $R/$tag.txt | tr '\n' ' ' | cut -c1-160)" >> $R/summary.txt
  done
  for ((i = 1; i < n; i++)); do
    python3 scripts/abba_cases.py $R/${tags[0]}1.json $R/${tags[$i]}1.json $R/${tags[$i]}2.json $R/${tags[0]}2.json \
      --label "${tags[$i]} / ${tags[0]}" > $R/cases-${tags[$i]}.txt 2>&1
    echo "== ${tags[$i]} / ${tags[0]} (${params[$i]})" >> $R/summary.txt
    cat $R/cases-${tags[$i]}.txt | cut -c1-150 >> $R/summary.txt
  done
  tar cJf $OUT/gpu$g.tar.xz -C $OUT g$g
}
mirrored 1 qknorm wan13b-480p base "" \
  b192 "--param BLOCK=192 --param AGROUP=64 --param CHUNKS=3" \
  b384 "--param BLOCK=384" \
  b192r2 "--param BLOCK=192 --param AGROUP=64 --param CHUNKS=3 --param ROWS=2" &
mirrored 0 gated_act flux1-image,zimage,qwen-image,ltx-video base "" \
  p8 "--param PERSIST=8" p16 "--param PERSIST=16" p32 "--param PERSIST=32"
wait
cat $OUT/g0/summary.txt $OUT/g1/summary.txt >> $S
rm -rf $OUT/g0 $OUT/g1
cat $S
