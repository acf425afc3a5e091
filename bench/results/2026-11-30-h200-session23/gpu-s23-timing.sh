#!/usr/bin/env bash
# Session 23, calls 18-19 (nvidia-h200-x2, warm after call 17, the CuTe DSL packages still unpacked
# in /tmp/sglang-deps; carry .sgl-proof and, in call 19, peers: SGLang's CuTe DSL source is read
# from peers/sglang-0.5.23/). The GPU 1 half of gpu-s23-final.sh alone, its own tvm-ffi folders:
# the residual fusion's port (its cases checked first) timed in one process against SGLang's CuTe
# DSL kernel and torch, interleaved, CUPTI, cold L2. Calls 18-19 ran this as one inline command
# (TVMFFI_TARGET /tmp/tvmffi-3, then -4); this file is that command.
set -uo pipefail
L=$OUT/logs; mkdir -p $L; S=$OUT/summary.txt
scripts/gpu-sglang-deps.sh > $L/deps.txt 2>&1; rc=$?; echo "deps rc=$rc: $(tail -1 $L/deps.txt)" > $S
t1=$(date +%s)
CUDA_VISIBLE_DEVICES=1 OUT=$L/timing TVMFFI_TARGET=/tmp/tvmffi-4 TVM_FFI_CACHE_DIR=/tmp/tvmffi-cache-4 timeout 300 \
  scripts/sglang-gpu-check.sh --task residual_gate_norm_scale_shift --no-wrapper --engine-timing --deps /tmp/sglang-deps/site \
  > $L/timing.txt 2>&1
echo "port + engine timing rc=$? $(( $(date +%s) - t1 ))s: $(grep -E 'SGLANG-GPU-CHECK' $L/timing.txt | tail -1)" >> $S
grep -E '^tvm_ffi|copy bandwidth|cases timed' $L/timing.txt >> $S
if ls $L/timing/engine-timing-*.json > /dev/null 2>&1; then
  python3 scripts/engine_table.py $L/timing/engine-timing-*.json > $OUT/tables.txt 2>&1
  python3 scripts/engine_table.py --markdown --by-shape $L/timing/engine-timing-*.json > $OUT/tables.md 2>&1
  grep -E '^[a-z_]+: NVIDIA|^ako vs|^slower|^under' $OUT/tables.txt | cut -c1-600 >> $S
  xz -9 $L/timing/engine-timing-*.json; mv $L/timing/engine-timing-*.json.xz $OUT/
fi
tar cJf $OUT/logs.tar.xz -C $OUT logs && rm -rf $L
cat $S
