#!/usr/bin/env bash
# Session 21, call 5 (nvidia-h200-x2; carry bundle-s, bundle-t/ako_gpu_tests.xz): the H200 configs
# with this session's classes (ITERATIONS.md norm_scale_shift iterations 19-20) against HEAD's
# (before/*.json, run as device BEFORE), A B B A:
#  GPU 0: the residual fusion's text-512-cfg (the CuTe-shape classes), then `ako gate
#         --update-baseline --threshold 5 --tasks residual_gate_norm_scale_shift`;
#  GPU 1: wan13b of both fusions (the EARLY_MOD 3 classes), then the residual fusion's
#         every-case GPU test.
# Everything under $OUT/confirm.tar.xz; summary.txt printed last.
set -uo pipefail
export AKO_CACHE_DIR=/tmp/ako-cache
A=bundle-s/bin/ako
H=bench/results/2026-11-30-h200-session21
R=$OUT/confirm; mkdir -p $R; S=$OUT/summary.txt; : > $S
date -u +%FT%TZ > $R/start.txt
for t in norm_scale_shift residual_gate_norm_scale_shift; do cp $H/before/$t.json "solution/$t/configs/device_name=BEFORE.json"; done
trap 'rm -f solution/*/configs/device_name=BEFORE.json' EXIT
xz -dc bundle-t/ako_gpu_tests.xz > /tmp/ako_gpu_tests && chmod +x /tmp/ako_gpu_tests
run() {  # gpu tag task shapes device
  CUDA_VISIBLE_DEVICES=$1 timeout 200 $A run task $3 --device "$5" --shapes $4 --size-copy --no-progress \
    --json $R/$2.json > $R/$2.txt 2>&1
  echo "$2 rc=$?: $(grep -E '^CORRECT|^RUNTIME' $R/$2.txt | tr '\n' ' ')" >> $R/runs-gpu$1.txt
}
abba() {  # gpu name task shapes
  run $1 $2-A1 $3 $4 BEFORE; run $1 $2-B1 $3 $4 "NVIDIA H200"; run $1 $2-B2 $3 $4 "NVIDIA H200"; run $1 $2-A2 $3 $4 BEFORE
  python3 scripts/abba_cases.py $R/$2-{A1,B1,B2,A2}.json > $R/$2-cases.txt 2>&1
}
( abba 0 text residual_gate_norm_scale_shift text-512-cfg
  t1=$(date +%s)
  CUDA_VISIBLE_DEVICES=0 timeout 200 $A gate --baseline bench/baseline.json --update-baseline --threshold 5 \
    --tasks residual_gate_norm_scale_shift --no-progress > $R/gate-update.txt 2>&1
  echo "gate --update-baseline rc=$? ($(( $(date +%s)-t1 )) s): $(grep -E '^GATE|refusing' $R/gate-update.txt | cut -c1-300)" >> $R/runs-gpu0.txt
  cp bench/baseline.json $OUT/baseline.json ) &
( abba 1 nss13 norm_scale_shift wan13b-480p; abba 1 res13 residual_gate_norm_scale_shift wan13b-480p
  CUDA_VISIBLE_DEVICES=1 AKO_BIN=$PWD/$A AKO_ROOT=$PWD LD_LIBRARY_PATH=$PWD/bundle-s/lib timeout 120 /tmp/ako_gpu_tests \
    --gtest_filter='ResidualGateNormScaleShift.EveryCase*' > $R/res-tests.log 2>&1
  echo "res tests rc=$?: $(grep -E '^\[  (PASSED|FAILED)  \]' $R/res-tests.log | tr '\n' ' ')" >> $R/runs-gpu1.txt ) &
wait
date -u +%FT%TZ > $R/end.txt
for g in 0 1; do echo "== GPU $g" >> $S; cat $R/runs-gpu$g.txt >> $S; done
for n in text nss13 res13; do echo "== $n: after / before" >> $S; tail -2 $R/$n-cases.txt | cut -c1-400 >> $S; done
tar cJf $OUT/confirm.tar.xz -C $OUT confirm && rm -rf $R
cat $S
