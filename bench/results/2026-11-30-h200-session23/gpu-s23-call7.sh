#!/usr/bin/env bash
# Session 23, call 7 (one H200; carry .sgl-proof-q, prepared from scripts/sglang-port-check.sh
# --task qknorm_rope on this session's final qknorm_rope (commit 3cc9228; passed on the CPU, 40 of 40
# kernels the same machine code from nvcc as from NVRTC: port-check-cpu-qknorm_rope.txt), then
# SGL_PROOF=.sgl-proof-q scripts/sglang-gpu-check.sh --prepare). qknorm_rope as `ako port` wrote
# it into SGLang 0.5.23, built with SGLang's JIT flags, loaded through tvm-ffi: every case against
# float64, the bad-input, stream and wrapper checks. Back: summary.txt, port.tar.xz.
set -uo pipefail
S=$OUT/summary.txt; : > $S
nvidia-smi --query-gpu=index,name,driver_version,uuid --format=csv > $OUT/smi.txt 2>&1
t0=$(date +%s)
SGL_PROOF=$PWD/.sgl-proof-q OUT=$OUT/port timeout 400 scripts/sglang-gpu-check.sh --task qknorm_rope > $OUT/port.txt 2>&1
echo "qknorm_rope port check rc=$? ($(( $(date +%s)-t0 )) s): $(grep -E 'SGLANG-GPU-CHECK' $OUT/port.txt | tail -1)" >> $S
grep -E '^tvm_ffi|cases|passed|FAIL' $OUT/port.txt | tail -12 | cut -c1-200 >> $S
mkdir -p $OUT/p && mv $OUT/port.txt $OUT/smi.txt $OUT/p/ && { [ -d $OUT/port ] && mv $OUT/port $OUT/p/; true; }
tar cJf $OUT/port.tar.xz -C $OUT p && rm -rf $OUT/p
cat $S
