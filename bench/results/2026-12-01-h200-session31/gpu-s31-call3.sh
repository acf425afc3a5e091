#!/usr/bin/env bash
# Session 31, call 3 (nvidia-h200; carry bundle-x, .sgl-proof-nss31): norm_scale_shift's two walk classes
# (shape-wan13b-480p-frame-layer-walk, shape-wan14b-480p-frame-walk; ITERATIONS.md iteration 40):
# 1. the config against the one before (nss-h200-config-before.json), A B B A on wan13b-480p and wan14b-480p;
# 2. the H200 gate entry rewritten by ako (--update-baseline --threshold 5);
# 3. the port (.sgl-proof-nss31: scripts/sglang-port-check.sh --task norm_scale_shift on this tree, then
#    --prepare) through SGLang 0.5.23's JIT and tvm-ffi on every case, the bad-input, stream and wrapper checks;
# 4. NormScaleShift.* GPU tests (the rest of the budget).
# Back: summary.txt (printed last), abba.tar.xz, baseline.json, logs.tar.xz.
set -uo pipefail
OUT=$(realpath "$OUT")
S=$OUT/summary.txt; : > $S
T0=$(date +%s)
scripts/gpu-unpack-bundle.sh --if-needed > $OUT/unpack.txt 2>&1 || { cat $OUT/unpack.txt; exit 1; }
export AKO_CACHE_DIR=/tmp/ako-cache
D=bench/results/2026-12-01-h200-session31
R=$OUT/abba; L=$OUT/logs; mkdir -p $R $L
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv,noheader >> $S
C=solution/norm_scale_shift/configs
cp $D/nss-h200-config-before.json $C/device_name=BEFORE.json
one() {  # tag device
  timeout 120 bundle/bin/ako run task norm_scale_shift --shapes wan13b-480p,wan14b-480p --no-progress --device "$2" \
    --json $R/nss-$1.json > $R/nss-$1.txt 2>&1
  echo "nss $1 ($2) rc=$?: $(grep -E '^CORRECT' $R/nss-$1.txt | tr '\n' ' ' | cut -c1-100)" >> $S
}
one A1 BEFORE; one B1 "NVIDIA H200"; one B2 "NVIDIA H200"; one A2 BEFORE
rm -f $C/device_name=BEFORE.json
python3 scripts/abba_cases.py $R/nss-A1.json $R/nss-B1.json $R/nss-B2.json $R/nss-A2.json --label "walk classes / before" \
  > $R/nss-abba.txt 2>&1
grep -E "^walk|^noise" $R/nss-abba.txt | cut -c1-2500 >> $S
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
if [ -d .sgl-proof-nss31 ]; then
  ENVS="SGL_PROOF=$PWD/.sgl-proof-nss31 SGL_GPU_CHECK_BUILD=/tmp/sgc-build-nss31 TVMFFI_TARGET=/tmp/tvmffi-s31-nss TVM_FFI_CACHE_DIR=/tmp/tvmffi-cache-s31-nss"
  env OUT=$L/port $ENVS timeout 400 scripts/sglang-gpu-check.sh --task norm_scale_shift > $L/port.txt 2>&1
  echo "nss proof rc=$? ($(( $(date +%s) - T0 )) s): $(grep -E 'SGLANG-GPU-CHECK' $L/port.txt | tail -1)" >> $S
  grep -E '^all [0-9]+ cases|^tvm_ffi' $L/port.txt >> $S
  xz -9 $L/port.txt
else
  echo "nss proof not run: no .sgl-proof-nss31" >> $S
fi
left=$(( 570 - ($(date +%s) - T0) ))
if [ $left -gt 60 ]; then
  t0=$(date +%s)
  AKO_BIN=$PWD/bundle/bin/ako AKO_ROOT=$PWD timeout $left bundle/bin/ako_gpu_tests --gtest_filter='NormScaleShift.*' > $L/gpu-tests.txt 2>&1
  echo "NormScaleShift.* rc=$? ($(( $(date +%s)-t0 )) s): $(grep -E '^\[       OK|^\[  FAILED|^\[  PASSED' $L/gpu-tests.txt | tr '\n' ' ')" >> $S
else
  echo "NormScaleShift.* not run: $left s left" >> $S
fi
echo "wall $(( $(date +%s) - T0 )) s" >> $S
tar cJf $OUT/abba.tar.xz -C $OUT abba && rm -rf $R
tar cJf $OUT/logs.tar.xz -C $OUT logs && rm -rf $L
cat $S
