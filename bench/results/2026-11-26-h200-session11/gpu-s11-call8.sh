#!/usr/bin/env bash
# Session 11, call 8: norm_scale_shift's port with the new class (shape-wan13b-480p-frame-same-mod)
# through SGLang's JIT and tvm-ffi on the GPU (carry .sgl-proof, prepared on the CPU by
# scripts/sglang-port-check.sh --task norm_scale_shift, then scripts/sglang-gpu-check.sh --prepare).
set -uo pipefail
mkdir -p $OUT/port; S=$OUT/summary.txt; : > $S
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv > $OUT/port/smi.txt
OUT=$OUT/port timeout 500 scripts/sglang-gpu-check.sh --task norm_scale_shift > $OUT/port/check.log 2>&1
echo "sglang-gpu-check rc=$?" >> $S
tail -15 $OUT/port/check.log >> $S
cat $S
tar cJf $OUT/call8.tar.xz -C $OUT port && rm -rf $OUT/port
