#!/usr/bin/env bash
# Session 28, call 6 (nvidia-h200-x2, or one H200 in turn; carry .sgl-proof-nss, bundle-x).
# .sgl-proof-nss: scripts/sglang-port-check.sh --task norm_scale_shift on commit ca5bd2c's tree (call 3's
# five sweep classes, ITERATIONS.md norm_scale_shift iteration 33), then SGL_PROOF=.sgl-proof-nss
# scripts/sglang-gpu-check.sh --prepare.
#  GPU 0: the norm_scale_shift port through SGLang 0.5.23's JIT and tvm-ffi (every case against float64,
#         the bad-input, stream and wrapper checks).
#  GPU 1: the config with the five classes against the one before (nss-h200-config-before.json, as
#         device BEFORE), `ako run task norm_scale_shift --shapes text-512,text-512-cfg`, A B B A; then the
#         H200 gate entry of norm_scale_shift rewritten by ako; then `NormScaleShift.*` while the call has time.
#  On one H200 the same in turn: the A B B A and the gate entry, the port, the tests while there is time.
# Back: summary.txt, baseline.json, nss.tar.xz, logs.tar.xz.
set -uo pipefail
OUT=$(realpath "$OUT")
L=$OUT/logs; mkdir -p $L $OUT/nss; S=$OUT/summary.txt; : > $S
T0=$(date +%s)
scripts/gpu-unpack-bundle.sh > $L/unpack.txt 2>&1 || { cat $L/unpack.txt; exit 1; }
NG=$(nvidia-smi -L | wc -l); G1=0; [ $NG -ge 2 ] && G1=1
C=solution/norm_scale_shift/configs
cp bench/results/2026-12-01-h200-session28/nss-h200-config-before.json $C/device_name=BEFORE.json
port() {
  local t1=$(date +%s)
  CUDA_VISIBLE_DEVICES=0 OUT=$L/port SGL_PROOF=$PWD/.sgl-proof-nss SGL_GPU_CHECK_BUILD=/tmp/sgc-build-nss TVMFFI_TARGET=/tmp/tvmffi-s28-nss \
    TVM_FFI_CACHE_DIR=/tmp/tvmffi-cache-s28-nss timeout 400 scripts/sglang-gpu-check.sh --task norm_scale_shift > $L/port.txt 2>&1
  echo "port rc=$? $(( $(date +%s) - t1 ))s: $(grep -E 'SGLANG-GPU-CHECK' $L/port.txt | tail -1)" >> $S
  grep -E '^all [0-9]+ cases|^tvm_ffi' $L/port.txt >> $S
}
one() {  # tag device
  CUDA_VISIBLE_DEVICES=$G1 AKO_CACHE_DIR=/tmp/ako-cache$G1 timeout 90 bundle/bin/ako run task norm_scale_shift \
    --shapes text-512,text-512-cfg --no-progress --device "$2" --json $OUT/nss/$1.json > $OUT/nss/$1.txt 2>&1
  echo "nss $1 ($2) rc=$?: $(grep -E '^CORRECT|^RUNTIME' $OUT/nss/$1.txt | tr '\n' ' ')" >> $OUT/nss/rcs.txt
}
rest() {
  one A1 BEFORE; one B1 "NVIDIA H200"; one B2 "NVIDIA H200"; one A2 BEFORE
  python3 - <<'PY'
import json
b = json.load(open("bench/baseline.json"))
b["devices"]["NVIDIA H200"]["tasks"].pop("norm_scale_shift")
open("/tmp/baseline-nss.json", "w").write(json.dumps(b, indent=2) + "\n")
PY
  local t0=$(date +%s)
  CUDA_VISIBLE_DEVICES=$G1 AKO_CACHE_DIR=/tmp/ako-cache$G1 timeout 200 bundle/bin/ako gate --baseline /tmp/baseline-nss.json \
    --update-baseline --threshold 5 --tasks norm_scale_shift --no-progress > $L/gate-update.txt 2>&1
  echo "norm_scale_shift gate --update-baseline rc=$? ($(( $(date +%s)-t0 )) s): $(grep -E '^GATE|refusing|updated' $L/gate-update.txt | cut -c1-300)" >> $S
  cp /tmp/baseline-nss.json $OUT/baseline.json
}
tests() {
  local t0 left=$(( 560 - ($(date +%s) - T0) ))
  if [ $left -gt 60 ]; then
    t0=$(date +%s)
    CUDA_VISIBLE_DEVICES=$G1 AKO_CACHE_DIR=/tmp/ako-cache$G1 AKO_BIN=$PWD/bundle/bin/ako AKO_ROOT=$PWD timeout $left \
      bundle/bin/ako_gpu_tests --gtest_filter='NormScaleShift.*' > $L/gpu-tests.txt 2>&1
    echo "NormScaleShift.* rc=$? ($(( $(date +%s)-t0 )) s): $(grep -E '^\[       OK|^\[  FAILED|^\[  PASSED' $L/gpu-tests.txt | tr '\n' ' ')" >> $S
  else
    echo "NormScaleShift.* not run: $left s left" >> $S
  fi
}
if [ $NG -ge 2 ]; then port & { rest; tests; } & wait; else rest; port; tests; fi
rm -f $C/device_name=BEFORE.json
{
  cat $OUT/nss/rcs.txt
  python3 scripts/abba_cases.py $OUT/nss/A1.json $OUT/nss/B1.json $OUT/nss/B2.json $OUT/nss/A2.json --label "sweep classes / before" > $OUT/nss/abba.txt 2>&1
  grep -E "^sweep|^noise" $OUT/nss/abba.txt
} >> $S 2>&1
tar cJf $OUT/nss.tar.xz -C $OUT nss && rm -rf $OUT/nss
tar cJf $OUT/logs.tar.xz -C $OUT logs && rm -rf $L
cat $S
