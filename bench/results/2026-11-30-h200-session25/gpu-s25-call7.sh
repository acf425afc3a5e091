#!/usr/bin/env bash
# Session 25, call 7 (nvidia-h200-x2; carry .sgl-proof and .sgl-proof-qk). The ports of this
# session's two config changes, each through SGLang 0.5.23's JIT and tvm-ffi 0.1.15.post2: every
# case against float64, the bad-input, stream and wrapper checks.
#  GPU 0: the residual fusion with its wan13b affine fp32 per-frame LayerNorm class at MIN_BLOCKS 8
#         (.sgl-proof: scripts/sglang-port-check.sh --task norm_scale_shift --task
#         residual_gate_norm_scale_shift on commit 944d5c9's tree, then --prepare).
#  GPU 1: qknorm with its class shape-wan14b-480p-across_heads and the across-heads sums through
#         32-bit shared addresses (.sgl-proof-qk: the port check --task qknorm on commit 75a181d's
#         tree, nvcc's build the same machine code as NVRTC's on 20 of 20 kernels, then
#         SGL_PROOF=.sgl-proof-qk ... --prepare).
# Back: summary.txt, logs.tar.xz.
set -uo pipefail
OUT=$(realpath "$OUT")
L=$OUT/logs; mkdir -p $L; S=$OUT/summary.txt; : > $S
nvidia-smi --query-gpu=index,name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv > $L/smi.txt
half() {  # GPU task payload
  local g=$1 t=$2 p=$3 t1=$(date +%s)
  CUDA_VISIBLE_DEVICES=$g SGL_PROOF=$PWD/$p OUT=$L/port-$t SGL_GPU_CHECK_BUILD=/tmp/sgc-build-$g \
    TVMFFI_TARGET=/tmp/tvmffi-s25-$g TVM_FFI_CACHE_DIR=/tmp/tvmffi-cache-s25-$g timeout 420 \
    scripts/sglang-gpu-check.sh --task $t > $L/port-$t.txt 2>&1
  echo "$t port check rc=$? $(( $(date +%s) - t1 ))s: $(grep -E 'SGLANG-GPU-CHECK' $L/port-$t.txt | tail -1)" > $L/gpu$g.txt
  grep -E '^all [0-9]+ cases|entry points|^tvm_ffi' $L/port-$t.txt | cut -c1-200 >> $L/gpu$g.txt
}
half 0 residual_gate_norm_scale_shift .sgl-proof & half 1 qknorm .sgl-proof-qk & wait
echo "== GPU 0" >> $S; cat $L/gpu0.txt >> $S; echo "== GPU 1" >> $S; cat $L/gpu1.txt >> $S
tar cJf $OUT/logs.tar.xz -C $OUT logs && rm -rf $L
cat $S
