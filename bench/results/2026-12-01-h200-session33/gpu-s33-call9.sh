#!/usr/bin/env bash
# Session 33, call 9 (nvidia-h200; carry bundle-x rebuilt from this tree, .sgl-proof-nss33b, .sgl-proof-res33b):
# the tree with SURE in both norm fusions' and layernorm's H200 configs (the wan13b walk class, the text-512-cfg
# *-sure classes, layernorm's wan13b and text-512-cfg 16-bit affine classes).
# 1. GPU tests: every case of the three tasks correct with their references meeting the oracles, the frame-blind
#    candidates caught, layernorm's odd-width / streamed / variance tests;
# 2. both norm fusions' ports (scripts/sglang-port-check.sh on this tree, then --prepare: .sgl-proof-nss33b,
#    .sgl-proof-res33b) through SGLang 0.5.23's JIT and tvm-ffi: every case against float64, the bad-input,
#    stream and wrapper checks.
# Back: summary.txt (printed last), logs.tar.xz.
set -uo pipefail
OUT=$(realpath "$OUT")
S=$OUT/summary.txt; : > $S
T0=$(date +%s)
scripts/gpu-unpack-bundle.sh --if-needed > $OUT/unpack.txt 2>&1 || { cat $OUT/unpack.txt; exit 1; }
export AKO_CACHE_DIR=/tmp/ako-cache
L=$OUT/logs; mkdir -p $L
AKO_BIN=$PWD/bundle/bin/ako AKO_ROOT=$PWD timeout 200 bundle/bin/ako_gpu_tests \
  --gtest_filter='NormScaleShift.EveryCase*:NormScaleShift.FrameBlind*:ResidualGateNormScaleShift.EveryCase*:ResidualGateNormScaleShift.FrameBlind*:RunLayernorm.*' \
  > $L/gpu-tests.txt 2>&1
echo "gpu tests rc=$? ($(( $(date +%s) - T0 )) s): $(grep -E '^\[ +(OK|PASSED|FAILED) ' $L/gpu-tests.txt | sed 's/AreCorrect.*(/(/' | tr '\n' ' ')" >> $S
proof() {  # name task payload timeout
  local t1=$(date +%s)
  env OUT=$L/$1 SGL_PROOF=$PWD/$3 SGL_GPU_CHECK_BUILD=/tmp/sgc-build-$1 TVMFFI_TARGET=/tmp/tvmffi-s33-$1 \
    TVM_FFI_CACHE_DIR=/tmp/tvmffi-cache-s33-$1 timeout $4 scripts/sglang-gpu-check.sh --task $2 > $L/$1.txt 2>&1
  echo "$1 proof rc=$? ($(( $(date +%s) - t1 )) s): $(grep -E 'SGLANG-GPU-CHECK' $L/$1.txt | tail -1)" >> $S
  grep -E '^all [0-9]+ cases|^tvm_ffi' $L/$1.txt >> $S
  xz -9 $L/$1.txt
}
proof nss norm_scale_shift .sgl-proof-nss33b 150
proof res residual_gate_norm_scale_shift .sgl-proof-res33b 300
echo "wall $(( $(date +%s) - T0 )) s" >> $S
tar cJf $OUT/logs.tar.xz -C $OUT logs && rm -rf $L
cat $S
