#!/usr/bin/env bash
# Session 29, call 7 (nvidia-h200; carry bundle-x, .sglang-deps/py312-1 .. py312-6):
# 1. the CuTe DSL deps parts 1-6 onto the machine (exit 3 expected; call 8 brings 7-9);
# 2. norm_scale_shift's config with the two TOKENS 2 classes (iteration 36) against the one before
#    (nss-h200-config-before.json) on wan13b-480p, A B B A;
# 3. the residual fusion's wan13b cases at three TOKENS 2 points (residual-tokens-sets.txt, the task read
#    from variants/residual-tokens-task.json without the TOKENS constraint), A X1..X3 X3..X1 A;
# 4. norm_scale_shift's H200 gate entry rewritten by ako (--update-baseline --threshold 5);
# 5. NormScaleShift.* (the GPU tests, TOKENS 2 and 4 across frame boundaries among them).
# Back: summary.txt, sets.tar.xz, baseline.json, logs.tar.xz.
set -uo pipefail
OUT=$(realpath "$OUT")
S=$OUT/summary.txt; : > $S
T0=$(date +%s)
scripts/gpu-sglang-deps.sh > $OUT/deps.txt 2>&1; echo "deps rc=$? (3 expected): $(tail -1 $OUT/deps.txt | cut -c1-80)" >> $S
scripts/gpu-unpack-bundle.sh --if-needed > $OUT/unpack.txt 2>&1 || { cat $OUT/unpack.txt; exit 1; }
export AKO_CACHE_DIR=/tmp/ako-cache
D=bench/results/2026-12-01-h200-session29
R=$OUT/sets; L=$OUT/logs; mkdir -p $R $L
C=solution/norm_scale_shift/configs
cp $D/nss-h200-config-before.json $C/device_name=BEFORE.json
one() {  # tag device
  timeout 90 bundle/bin/ako run task norm_scale_shift --shapes wan13b-480p --no-progress --device "$2" \
    --json $R/nss-$1.json > $R/nss-$1.txt 2>&1
  echo "nss $1 ($2) rc=$?: $(grep -E '^CORRECT|^RUNTIME' $R/nss-$1.txt | tr '\n' ' ' | cut -c1-160)" >> $S
}
one A1 BEFORE; one B1 "NVIDIA H200"; one B2 "NVIDIA H200"; one A2 BEFORE
rm -f $C/device_name=BEFORE.json
python3 scripts/abba_cases.py $R/nss-A1.json $R/nss-B1.json $R/nss-B2.json $R/nss-A2.json --label "two-token classes / before" \
  > $R/nss-abba.txt 2>&1
grep -E "^two-token|^noise" $R/nss-abba.txt | cut -c1-600 >> $S
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
SPEC=$D/variants/residual-tokens-task.json sweep residual_gate_norm_scale_shift wan13b-480p $D/residual-tokens-sets.txt
echo "sweeps done $(( $(date +%s) - T0 )) s" >> $S
python3 - <<'PY'
import json
b = json.load(open("bench/baseline.json"))
b["devices"]["NVIDIA H200"]["tasks"].pop("norm_scale_shift")
open("/tmp/baseline-nss.json", "w").write(json.dumps(b, indent=2) + "\n")
PY
t0=$(date +%s)
timeout 200 bundle/bin/ako gate --baseline /tmp/baseline-nss.json --update-baseline --threshold 5 --tasks norm_scale_shift \
  --no-progress > $L/gate-update.txt 2>&1
echo "norm_scale_shift gate --update-baseline rc=$? ($(( $(date +%s)-t0 )) s): $(grep -E '^GATE|refusing|updated' $L/gate-update.txt | cut -c1-300)" >> $S
cp /tmp/baseline-nss.json $OUT/baseline.json
left=$(( 570 - ($(date +%s) - T0) ))
if [ $left -gt 60 ]; then
  t0=$(date +%s)
  AKO_BIN=$PWD/bundle/bin/ako AKO_ROOT=$PWD timeout $left bundle/bin/ako_gpu_tests --gtest_filter='NormScaleShift.*' > $L/gpu-tests.txt 2>&1
  echo "NormScaleShift.* rc=$? ($(( $(date +%s)-t0 )) s): $(grep -E '^\[       OK|^\[  FAILED|^\[  PASSED' $L/gpu-tests.txt | tr '\n' ' ')" >> $S
else
  echo "NormScaleShift.* not run: $left s left" >> $S
fi
tar cJf $OUT/sets.tar.xz -C $OUT sets && rm -rf $R
tar cJf $OUT/logs.tar.xz -C $OUT logs && rm -rf $L
cat $S
