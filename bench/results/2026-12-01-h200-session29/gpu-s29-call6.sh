#!/usr/bin/env bash
# Session 29, call 6 (nvidia-h200; carry bundle-x): TOKENS 2 on norm_scale_shift's Wan shapes (nss-tokens-sets.txt), with
# variants/nss-tokens-task.json: the task without its constraint `TOKENS == 1 || B * L <= 8192` (a pruning
# of the search space, not a correctness bound: the token groups cross frame boundaries correctly, GPU tests).
# The per-frame fp32 cases at 71-79% of copy read 12 KB of fp32 scale / shift per 3 KB row. Per shape A1
# X1a .. Xna Xnb .. X1b A2 (ab_sets.py).
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
  timeout 90 bundle/bin/ako run task ${SPEC:-$task} --shapes $shape --no-progress "${a[@]}" --json $R/$task-$shape-$tag.json \
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
SPEC=$D/variants/nss-tokens-task.json sweep norm_scale_shift wan13b-480p $D/nss-tokens-sets.txt
SPEC=$D/variants/nss-tokens-task.json sweep norm_scale_shift wan14b-480p $D/nss-tokens-sets.txt
echo "wall $(( $(date +%s) - T0 )) s" >> $S
tar cJf $OUT/sets.tar.xz -C $OUT sets && rm -rf $R
cat $S
