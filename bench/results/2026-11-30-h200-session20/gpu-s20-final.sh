#!/usr/bin/env bash
# Session 20, call 9 (nvidia-h200-x2; carry bundle-s: bundle/'s ako, ako-worker, ako_gpu_tests and
# lib stripped of symbols, so they fit beside the repository). ITERATIONS.md norm_scale_shift
# iteration 18 (final form: one shared array per reduction) and layernorm iteration 7, every case,
# A B B A, the kernel before by --solution as A:
#  GPU 0: norm_scale_shift (A: variants/norm_scale_shift-before.cuh, commit 817b790's), layernorm
#         (A: variants/layernorm-before.cuh); then `ako gate --update-baseline --threshold 5` for the
#         three tasks (their H200 entries removed before the call: NVRTC's counts moved); then the
#         GPU tests of norm_scale_shift and layernorm
#  GPU 1: the residual fusion (A: variants/norm_scale_shift-before.cuh); then its GPU tests
set -uo pipefail
export AKO_CACHE_DIR=/tmp/ako-cache
A=bundle-s/bin/ako
H=bench/results/2026-11-30-h200-session20
R=$OUT/final; mkdir -p $R; S=$OUT/summary.txt; : > $S
date -u +%FT%TZ > $R/start.txt
nvidia-smi --query-gpu=index,name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv > $R/smi.txt
run() {  # gpu tag task [args]
  local g=$1 tag=$2 task=$3; shift 3
  CUDA_VISIBLE_DEVICES=$g timeout 240 $A run task $task --device "NVIDIA H200" --no-progress --json $R/$tag.json "$@" \
    > $R/$tag.txt 2>&1
  echo "$tag rc=$?: $(grep -E '^CORRECT|^RUNTIME' $R/$tag.txt | tr '\n' ' ')" >> $R/runs-gpu$g.txt
}
abba() {  # gpu name task before.cuh
  local g=$1 n=$2 t=$3 old="--solution $H/variants/$4"
  run $g $n-A1 $t $old; run $g $n-B1 $t; run $g $n-B2 $t; run $g $n-A2 $t $old
  python3 scripts/abba_cases.py $R/$n-{A1,B1,B2,A2}.json > $R/$n-cases.txt 2>&1
}
tests() {  # gpu filter name
  CUDA_VISIBLE_DEVICES=$1 AKO_BIN=$PWD/$A AKO_ROOT=$PWD timeout 300 bundle-s/bin/ako_gpu_tests \
    --gtest_filter="$2" > $R/$3-tests.log 2>&1
  echo "$3 tests rc=$?: $(grep -E '^\[  (PASSED|FAILED)  \]|tests? from .* ran' $R/$3-tests.log | tr '\n' ' ')" >> $R/runs-gpu$1.txt
}
( abba 0 nss norm_scale_shift norm_scale_shift-before.cuh
  abba 0 ln layernorm layernorm-before.cuh
  t1=$(date +%s)
  CUDA_VISIBLE_DEVICES=0 timeout 300 $A gate --baseline bench/baseline.json --update-baseline --threshold 5 \
    --tasks norm_scale_shift,residual_gate_norm_scale_shift,layernorm --no-progress > $R/gate-update.txt 2>&1
  echo "gate --update-baseline rc=$? ($(( $(date +%s)-t1 )) s): $(grep -E '^GATE|refusing' $R/gate-update.txt | cut -c1-300)" >> $R/runs-gpu0.txt
  cp bench/baseline.json $OUT/baseline.json
  tests 0 'NormScaleShift.*:RunLayernorm.*' nss-ln ) &
( abba 1 res residual_gate_norm_scale_shift norm_scale_shift-before.cuh
  tests 1 'ResidualGateNormScaleShift.*' res ) &
wait
date -u +%FT%TZ > $R/end.txt
for g in 0 1; do echo "== GPU $g" >> $S; cat $R/runs-gpu$g.txt >> $S; done
for n in nss res ln; do echo "== $n: after / before" >> $S; tail -2 $R/$n-cases.txt >> $S
  awk '/B\/A/ { for (i = 1; i <= NF; ++i) if ($i == "B/A" && ($(i+1) > 1.01 || $(i+1) < 0.99)) print }' $R/$n-cases.txt >> $S; done
tar cJf $OUT/final.tar.xz -C $OUT final && rm -rf $R
cat $S
