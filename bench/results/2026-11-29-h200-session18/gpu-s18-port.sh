#!/usr/bin/env bash
# Session 18, the last call (nvidia-h200-x2, GPU 0; carry .sgl-proof prepared from
# `scripts/sglang-port-check.sh --task layernorm --task residual_gate_norm_scale_shift` with the
# configs as committed at the end of the session): both ports through SGLang's JIT and tvm-ffi,
# every compare, check and extra case against float64, no timing. Logs under $OUT/port.tar.xz.
set -uo pipefail
mkdir -p $OUT
t1=$(date +%s)
CUDA_VISIBLE_DEVICES=0 OUT=$OUT/port timeout ${LIMIT:-170} scripts/sglang-gpu-check.sh --task layernorm \
  --task residual_gate_norm_scale_shift --no-wrapper > $OUT/port.txt 2>&1
echo "sglang-gpu-check rc=$? ($(( $(date +%s)-t1 )) s): $(grep -E 'SGLANG-GPU-CHECK' $OUT/port.txt | tail -1)"
grep -E "cases|passed|FAIL" $OUT/port.txt | tail -8
[ -d $OUT/port ] && mv $OUT/port.txt $OUT/port/ && tar cJf $OUT/port.tar.xz -C $OUT port && rm -rf $OUT/port
