#!/usr/bin/env bash
# Session 22, call 4 (nvidia-h200-x2; carry .sgl-proof, prepared from scripts/sglang-port-check.sh
# --task layernorm --task norm_scale_shift --task residual_gate_norm_scale_shift on this session's
# tree, then scripts/sglang-gpu-check.sh --prepare; the repository and .sgl-proof leave no room for
# bundle-s: call 5 runs the GPU tests and ncu).
#  GPU 0: the three ports through SGLang 0.5.23's JIT and tvm-ffi, every case against float64, the
#         bad-input, stream and wrapper checks.
#  GPU 1: layernorm's port timed in one process against SGLang's Triton norm_infer and torch
#         (--engine-timing; its cases checked first), tvm-ffi in a folder of its own.
# Everything under $OUT; summary.txt printed last.
set -uo pipefail
L=$OUT/logs; mkdir -p $L; S=$OUT/summary.txt; : > $S
date -u +%FT%TZ > $L/start.txt
nvidia-smi --query-gpu=index,name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv > $L/smi.txt
half0() {
  local t1=$(date +%s)
  CUDA_VISIBLE_DEVICES=0 OUT=$OUT/port timeout 400 scripts/sglang-gpu-check.sh --task layernorm --task norm_scale_shift \
    --task residual_gate_norm_scale_shift > $L/port.txt 2>&1
  echo "port check rc=$? $(( $(date +%s) - t1 ))s: $(grep -E 'SGLANG-GPU-CHECK' $L/port.txt | tail -1)" >> $L/gpu0.txt
}
half1() {
  local t1=$(date +%s)
  CUDA_VISIBLE_DEVICES=1 OUT=$OUT/timing TVMFFI_TARGET=/tmp/tvmffi-2 TVM_FFI_CACHE_DIR=/tmp/tvmffi-cache-2 timeout 400 \
    scripts/sglang-gpu-check.sh --task layernorm --no-wrapper --engine-timing > $L/timing.txt 2>&1
  echo "layernorm port + engine timing rc=$? $(( $(date +%s) - t1 ))s: $(grep -E 'SGLANG-GPU-CHECK' $L/timing.txt | tail -1)" >> $L/gpu1.txt
  grep -E '^tvm_ffi|copy bandwidth|cases timed' $L/timing.txt >> $L/gpu1.txt
}
( half0 ) & ( half1 ) & wait
date -u +%FT%TZ > $L/end.txt
echo "== GPU 0" >> $S; cat $L/gpu0.txt >> $S; echo "== GPU 1" >> $S; cat $L/gpu1.txt >> $S
if ls $OUT/timing/engine-timing-*.json > /dev/null 2>&1; then
  python3 scripts/engine_table.py $OUT/timing/engine-timing-*.json > $OUT/tables.txt 2>&1
  python3 scripts/engine_table.py --markdown $OUT/timing/engine-timing-*.json > $OUT/tables.md 2>&1
  grep -E '^[a-z_]+: NVIDIA|^ako vs|^slower|^under' $OUT/tables.txt | cut -c1-600 >> $S
  xz -9 $OUT/timing/engine-timing-*.json; mv $OUT/timing/engine-timing-*.json.xz $OUT/
fi
for d in port timing; do [ -d $OUT/$d ] && mv $OUT/$d $L/; done
tar cJf $OUT/logs.tar.xz -C $OUT logs && rm -rf $L
cat $S
