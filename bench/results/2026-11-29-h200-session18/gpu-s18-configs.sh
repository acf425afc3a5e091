#!/usr/bin/env bash
# Session 18 (nvidia-h200-x2; carry bundle rebuilt with the EARLY_MOD 2 tests): the norm fusions'
# new H200 classes (norm_scale_shift iteration 14) against the configs before them (before/*.json,
# run as device BEFORE), `ako run` A B B A where A = before, B = now; GPU 0 the residual fusion's
# wan13b and wan14b then `ako gate --update-baseline --threshold 5` for both tasks (bench/baseline.json
# comes back), GPU 1 norm_scale_shift's wan13b then the two tasks' GPU tests. Everything under
# $OUT/configs.tar.xz but baseline.json; summary.txt printed last.
set -uo pipefail
export AKO_CACHE_DIR=/tmp/ako-cache
A=bundle/bin/ako
H=bench/results/2026-11-29-h200-session18
R=$OUT/configs; mkdir -p $R; S=$OUT/summary.txt; : > $S
date -u +%FT%TZ > $R/start.txt
nvidia-smi --query-gpu=index,name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv > $R/smi.txt
RES=residual_gate_norm_scale_shift NSS=norm_scale_shift
for t in $RES $NSS; do cp $H/before/$t.json "solution/$t/configs/device_name=BEFORE.json"; done
trap 'rm -f solution/*/configs/device_name=BEFORE.json' EXIT
run() {  # gpu tag task shapes device
  CUDA_VISIBLE_DEVICES=$1 timeout 200 $A run task $3 --shapes $4 --device "$5" --no-progress --json $R/$2.json > $R/$2.txt 2>&1
  echo "$2 rc=$?: $(grep -E '^CORRECT|^RUNTIME' $R/$2.txt | tr '\n' ' ')" >> $R/runs-gpu$1.txt
}
abba() {  # gpu task shapes name
  run $1 $4-A1 $2 $3 BEFORE; run $1 $4-B1 $2 $3 "NVIDIA H200"; run $1 $4-B2 $2 $3 "NVIDIA H200"; run $1 $4-A2 $2 $3 BEFORE
  python3 scripts/abba_cases.py $R/$4-{A1,B1,B2,A2}.json > $R/$4-cases.txt 2>&1
}
( abba 0 $RES wan13b-480p,wan14b-480p res
  t1=$(date +%s)
  CUDA_VISIBLE_DEVICES=0 timeout 300 $A gate --baseline bench/baseline.json --update-baseline --threshold 5 \
    --tasks $NSS,$RES --no-progress > $R/gate-update.txt 2>&1
  echo "gate --update-baseline rc=$? ($(( $(date +%s)-t1 )) s): $(grep -E '^GATE' $R/gate-update.txt | cut -c1-300)" >> $R/runs-gpu0.txt
  cp bench/baseline.json $OUT/baseline.json ) &
( abba 1 $NSS wan13b-480p nss
  t1=$(date +%s)
  CUDA_VISIBLE_DEVICES=1 AKO_BIN=$PWD/bundle/bin/ako AKO_ROOT=$PWD timeout 360 bundle/bin/ako_gpu_tests \
    --gtest_filter='NormScaleShift.*:ResidualGateNormScaleShift.*' > $R/gpu-tests.log 2>&1
  echo "gpu tests rc=$? ($(( $(date +%s)-t1 )) s): $(grep -E '^\[  PASSED|^\[  FAILED|^\[       OK' $R/gpu-tests.log | tr '\n' ' ' | cut -c1-900)" >> $R/runs-gpu1.txt ) &
wait
date -u +%FT%TZ > $R/end.txt
for f in $R/runs-gpu*.txt; do cat $f >> $S; done
for f in $R/*-cases.txt; do echo "== $(basename $f)" >> $S; tail -1 $f >> $S; grep -E "bf1c|wan14b" $f | awk '{print}' >> $S; done
tar cJf $OUT/configs.tar.xz -C $OUT configs && rm -rf $R
cat $S
