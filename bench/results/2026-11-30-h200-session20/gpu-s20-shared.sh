#!/usr/bin/env bash
# Session 20, call 6 (nvidia-h200-x2; carry bundle/bin/ako, ako-worker, bundle/lib; with ako_gpu_tests too where it fits):
# ITERATIONS.md norm_scale_shift iteration 18. The kernel before (variants/norm_scale_shift-before.cuh,
# commit 817b790's) as A against the committed one (32-bit shared addresses in inline PTX) as B,
# every case, A B B A: norm_scale_shift on GPU 0, the residual fusion on GPU 1 (the same H200
# configs for both); then each GPU runs its task's GPU tests (the kernel changed).
# Everything under $OUT/shared.tar.xz; summary.txt printed last.
set -uo pipefail
export AKO_CACHE_DIR=/tmp/ako-cache
A=bundle/bin/ako
H=bench/results/2026-11-30-h200-session20
R=$OUT/shared; mkdir -p $R; S=$OUT/summary.txt; : > $S
date -u +%FT%TZ > $R/start.txt
nvidia-smi --query-gpu=index,name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv > $R/smi.txt
run() {  # gpu tag task [args]
  local g=$1 tag=$2 task=$3; shift 3
  CUDA_VISIBLE_DEVICES=$g timeout 240 $A run task $task --device "NVIDIA H200" --no-progress --json $R/$tag.json "$@" \
    > $R/$tag.txt 2>&1
  echo "$tag rc=$?: $(grep -E '^CORRECT|^RUNTIME' $R/$tag.txt | tr '\n' ' ')" >> $R/runs-gpu$g.txt
}
abba() {  # gpu name task
  local g=$1 n=$2 t=$3 old="--solution $H/variants/norm_scale_shift-before.cuh"
  run $g $n-A1 $t $old; run $g $n-B1 $t; run $g $n-B2 $t; run $g $n-A2 $t $old
  python3 scripts/abba_cases.py $R/$n-{A1,B1,B2,A2}.json > $R/$n-cases.txt 2>&1
}
tests() {  # gpu filter name (skipped where the call did not carry the test binary)
  [ -x bundle/bin/ako_gpu_tests ] || { echo "$3 tests: not run (bundle/bin/ako_gpu_tests not carried)" >> $R/runs-gpu$1.txt; return; }
  CUDA_VISIBLE_DEVICES=$1 AKO_BIN=$PWD/bundle/bin/ako AKO_ROOT=$PWD timeout 240 bundle/bin/ako_gpu_tests \
    --gtest_filter="$2" > $R/$3-tests.log 2>&1
  echo "$3 tests rc=$?: $(grep -E '^\[  (PASSED|FAILED)  \]|tests ran' $R/$3-tests.log | tr '\n' ' ')" >> $R/runs-gpu$1.txt
}
( abba 0 nss norm_scale_shift; tests 0 'NormScaleShift.*' nss ) &
( abba 1 res residual_gate_norm_scale_shift; tests 1 'ResidualGateNormScaleShift.*' res ) &
wait
date -u +%FT%TZ > $R/end.txt
for g in 0 1; do echo "== GPU $g" >> $S; cat $R/runs-gpu$g.txt >> $S; done
for n in nss res; do echo "== $n: after / before" >> $S; tail -2 $R/$n-cases.txt >> $S
  awk '/B\/A/ { for (i = 1; i <= NF; ++i) if ($i == "B/A" && ($(i+1) > 1.01 || $(i+1) < 0.99)) print }' $R/$n-cases.txt >> $S; done
tar cJf $OUT/shared.tar.xz -C $OUT shared && rm -rf $R
cat $S
