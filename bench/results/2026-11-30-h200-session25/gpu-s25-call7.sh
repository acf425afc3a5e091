#!/usr/bin/env bash
# Session 25, call 7 (nvidia-h200-x2; carry bundle-x and .sgl-proof). The residual fusion with
# call 6's class at MIN_BLOCKS 8 (commit 944d5c9). .sgl-proof: scripts/sglang-port-check.sh --task
# norm_scale_shift --task residual_gate_norm_scale_shift on that tree, then
# scripts/sglang-gpu-check.sh --prepare.
#  GPU 0: the residual fusion's port through SGLang 0.5.23's JIT and tvm-ffi: every case against
#         float64, the bad-input, stream and wrapper checks.
#  GPU 1: the H200 gate entry removed and rewritten; then `ResidualGateNormScaleShift.*`.
# Back: summary.txt, baseline.json, logs.tar.xz.
set -uo pipefail
OUT=$(realpath "$OUT")
L=$OUT/logs; mkdir -p $L; S=$OUT/summary.txt; : > $S
nvidia-smi --query-gpu=index,name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv > $L/smi.txt
scripts/gpu-unpack-bundle.sh > $L/unpack.txt 2>&1 || { cat $L/unpack.txt; exit 1; }
A=$PWD/bundle/bin/ako
T=residual_gate_norm_scale_shift

port() {
  local t1=$(date +%s)
  CUDA_VISIBLE_DEVICES=0 OUT=$L/port SGL_GPU_CHECK_BUILD=/tmp/sgc-build-0 TVMFFI_TARGET=/tmp/tvmffi-s25-0 \
    TVM_FFI_CACHE_DIR=/tmp/tvmffi-cache-s25-0 timeout 420 scripts/sglang-gpu-check.sh --task $T > $L/port.txt 2>&1
  echo "port check rc=$? $(( $(date +%s) - t1 ))s: $(grep -E 'SGLANG-GPU-CHECK' $L/port.txt | tail -1)" > $L/gpu0.txt
  grep -E '^all [0-9]+ cases|entry points|^tvm_ffi' $L/port.txt | cut -c1-200 >> $L/gpu0.txt
}
gate_tests() {
  export CUDA_VISIBLE_DEVICES=1 AKO_CACHE_DIR=/tmp/ako-cache1
  python3 - <<'PY'
import json
p = "bench/baseline.json"; b = json.load(open(p))
b["devices"]["NVIDIA H200"]["tasks"].pop("residual_gate_norm_scale_shift")
open(p, "w").write(json.dumps(b, indent=2) + "\n")
PY
  local t0=$(date +%s)
  timeout 200 $A gate --baseline bench/baseline.json --update-baseline --threshold 5 --tasks $T --no-progress > $L/gate-update.txt 2>&1
  echo "$T gate --update-baseline rc=$? ($(( $(date +%s)-t0 )) s): $(grep -E '^GATE|refusing|updated' $L/gate-update.txt | cut -c1-300)" > $L/gpu1.txt
  cp bench/baseline.json $OUT/baseline.json
  t0=$(date +%s)
  AKO_BIN=$A AKO_ROOT=$PWD timeout 200 bundle/bin/ako_gpu_tests --gtest_filter='ResidualGateNormScaleShift.*' > $L/tests.txt 2>&1
  echo "ResidualGateNormScaleShift.* rc=$? ($(( $(date +%s)-t0 )) s): $(grep -E '^\[  (PASSED|FAILED) |^\[       OK|^\[  FAILED  \]' $L/tests.txt | tr '\n' ' ' | cut -c1-400)" >> $L/gpu1.txt
}
port & gate_tests & wait
echo "== GPU 0" >> $S; cat $L/gpu0.txt >> $S; echo "== GPU 1" >> $S; cat $L/gpu1.txt >> $S
tar cJf $OUT/logs.tar.xz -C $OUT logs && rm -rf $L
cat $S
