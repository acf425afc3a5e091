#!/usr/bin/env bash
# Session 29, call 10 (nvidia-h200; carry bundle-x, .sgl-proof-nss29b): norm_scale_shift's fp32 per-frame no-affine
# LayerNorm class at call 9's L4 point (ITERATIONS.md norm_scale_shift iteration 37):
# 1. the config against the one before it (nss-h200-config-before-layer.json) on wan13b-480p, A B B A;
# 2. the port (.sgl-proof-nss29b: the CPU port check on this tree, port-check-cpu-nss-layer.txt) through SGLang
#    0.5.23's JIT and tvm-ffi, every case, the bad-input, stream and wrapper checks;
# 3. norm_scale_shift's H200 gate entry rewritten by ako; 4. NormScaleShift.* with the time left.
# Back: summary.txt, sets.tar.xz, baseline.json, logs.tar.xz.
set -uo pipefail
OUT=$(realpath "$OUT")
S=$OUT/summary.txt; : > $S
T0=$(date +%s)
scripts/gpu-unpack-bundle.sh --if-needed > $OUT/unpack.txt 2>&1 || { cat $OUT/unpack.txt; exit 1; }
export AKO_CACHE_DIR=/tmp/ako-cache
D=bench/results/2026-12-01-h200-session29
R=$OUT/sets; L=$OUT/logs; mkdir -p $R $L
C=solution/norm_scale_shift/configs
cp $D/nss-h200-config-before-layer.json $C/device_name=BEFORE.json
one() {  # tag device
  timeout 90 bundle/bin/ako run task norm_scale_shift --shapes wan13b-480p --no-progress --device "$2" \
    --json $R/nss-$1.json > $R/nss-$1.txt 2>&1
  echo "nss $1 ($2) rc=$?: $(grep -E '^CORRECT|^RUNTIME' $R/nss-$1.txt | tr '\n' ' ' | cut -c1-160)" >> $S
}
one A1 BEFORE; one B1 "NVIDIA H200"; one B2 "NVIDIA H200"; one A2 BEFORE
rm -f $C/device_name=BEFORE.json
python3 scripts/abba_cases.py $R/nss-A1.json $R/nss-B1.json $R/nss-B2.json $R/nss-A2.json --label "layer two-token class / before" \
  > $R/nss-abba.txt 2>&1
grep -E "^layer two-token|^noise" $R/nss-abba.txt | cut -c1-600 >> $S
t0=$(date +%s)
env OUT=$L/port SGL_PROOF=$PWD/.sgl-proof-nss29b SGL_GPU_CHECK_BUILD=/tmp/sgc-build-nss29b TVMFFI_TARGET=/tmp/tvmffi-s29-nss29b \
  TVM_FFI_CACHE_DIR=/tmp/tvmffi-cache-s29-nss29b timeout 200 scripts/sglang-gpu-check.sh --task norm_scale_shift > $L/port.txt 2>&1
echo "nss proof rc=$? $(( $(date +%s) - t0 ))s: $(grep -E 'SGLANG-GPU-CHECK' $L/port.txt | tail -1)" >> $S
grep -E '^all [0-9]+ cases|^tvm_ffi' $L/port.txt >> $S
python3 - <<'PY'
import json
b = json.load(open("bench/baseline.json"))
b["devices"]["NVIDIA H200"]["tasks"].pop("norm_scale_shift")
open("/tmp/baseline-nss.json", "w").write(json.dumps(b, indent=2) + "\n")
PY
t0=$(date +%s)
timeout 120 bundle/bin/ako gate --baseline /tmp/baseline-nss.json --update-baseline --threshold 5 --tasks norm_scale_shift \
  --no-progress > $L/gate-update.txt 2>&1
echo "norm_scale_shift gate --update-baseline rc=$? ($(( $(date +%s)-t0 )) s): $(grep -E '^GATE|refusing|updated' $L/gate-update.txt | cut -c1-300)" >> $S
cp /tmp/baseline-nss.json $OUT/baseline.json
left=$(( 300 - ($(date +%s) - T0) ))
if [ $left -gt 60 ]; then
  t0=$(date +%s)
  AKO_BIN=$PWD/bundle/bin/ako AKO_ROOT=$PWD timeout $left bundle/bin/ako_gpu_tests --gtest_filter='NormScaleShift.*' > $L/gpu-tests.txt 2>&1
  echo "NormScaleShift.* rc=$? ($(( $(date +%s)-t0 )) s): $(grep -E '^\[       OK|^\[  FAILED|^\[  PASSED' $L/gpu-tests.txt | tr '\n' ' ')" >> $S
else
  echo "NormScaleShift.* not run: $left s left" >> $S
fi
xz -9 $L/port.txt
tar cJf $OUT/sets.tar.xz -C $OUT sets && rm -rf $R
tar cJf $OUT/logs.tar.xz -C $OUT logs && rm -rf $L
cat $S
