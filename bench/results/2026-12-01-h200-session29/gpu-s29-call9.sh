#!/usr/bin/env bash
# Session 29, call 9 (nvidia-h200; carry bundle-x): launch sets from call9-sets.txt. norm_scale_shift's wan13b
# cases at staged points with one reduction (STATS 1), two tokens or per-row early modulation, for the fp32
# per-frame LayerNorm cases (70-79% of copy in SGLang's process); layernorm's zimage cases at six launch
# points (its no-affine 16-bit cases 0.985 / 0.990x SGLang's Triton kernel in call 2).
# Per shape A1 X1a .. Xna Xnb .. X1b A2 (ab_sets.py). Back: summary.txt, sets.tar.xz.
set -uo pipefail
OUT=$(realpath "$OUT")
S=$OUT/summary.txt; : > $S
scripts/gpu-unpack-bundle.sh --if-needed > $OUT/unpack.txt 2>&1 || { cat $OUT/unpack.txt; exit 1; }
export AKO_CACHE_DIR=/tmp/ako-cache
D=bench/results/2026-12-01-h200-session29
R=$OUT/sets; mkdir -p $R
run() {  # task shape tag [params...]
  local task=$1 shape=$2 tag=$3; shift 3
  local a=(); for p in "$@"; do a+=(--param $p); done
  timeout 90 bundle/bin/ako run task $task --shapes $shape --no-progress "${a[@]}" --json $R/$task-$shape-$tag.json \
    > $R/$task-$shape-$tag.txt 2>&1
  echo "$task $shape $tag rc=$? $(grep -E '^CORRECT' $R/$task-$shape-$tag.txt | cut -c1-70)" >> $R/log.txt
}
sweep() {  # task shape sets_file
  local task=$1 shape=$2 f=$3
  mapfile -t lines < <(awk -v s=$shape '$1 == s' $f)
  run $task $shape A1
  for l in "${lines[@]}"; do set -- $l; run $task $shape ${2}a ${@:3}; done
  for ((i=${#lines[@]}-1; i>=0; i--)); do set -- ${lines[$i]}; run $task $shape ${2}b ${@:3}; done
  run $task $shape A2
  python3 $D/ab_sets.py $R $task $shape $f >> $S 2>&1
}
T0=$(date +%s)
sweep norm_scale_shift wan13b-480p $D/call9-sets.txt
sweep layernorm zimage $D/call9-sets.txt
echo "wall $(( $(date +%s) - T0 )) s" >> $S
tar cJf $OUT/sets.tar.xz -C $OUT sets && rm -rf $R
cat $S
