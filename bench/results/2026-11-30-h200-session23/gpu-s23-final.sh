#!/usr/bin/env bash
# Session 23, the last call (nvidia-h200-x2; carry .sglang-deps/py312-8, .sgl-proof; the calls
# before it, on the same warm machine, carried the CuTe DSL packages' parts 1-7 (cut into 8 MiB
# parts by scripts/fetch-sglang-deps.sh --resplit --part-mib 8: 10 MiB ones no longer fit beside
# the repository) and ran scripts/gpu-sglang-deps.sh). .sgl-proof: scripts/sglang-port-check.sh --task norm_scale_shift
# --task residual_gate_norm_scale_shift on this session's tree (the residual fusion's pinned class),
# then scripts/sglang-gpu-check.sh --prepare.
#  GPU 0: the residual fusion's port through SGLang 0.5.23's JIT and tvm-ffi: every case against
#         float64, the bad-input, stream and wrapper checks (norm_scale_shift's port, whose config
#         and machine code did not change since session 22's proof, is not run again).
#  GPU 1: the CuTe DSL packages unpacked; the residual fusion's port (its cases checked first)
#         timed in one process against SGLang's CuTe DSL kernel and torch eager, interleaved,
#         CUPTI, cold L2 (--engine-timing); tables by
#         scripts/engine_table.py. Back: summary.txt, tables.txt, tables.md, engine-timing-*.json.xz,
#         logs.tar.xz.
set -uo pipefail
L=$OUT/logs; mkdir -p $L; S=$OUT/summary.txt; : > $S
date -u +%FT%TZ > $L/start.txt
nvidia-smi --query-gpu=index,name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv > $L/smi.txt
scripts/gpu-sglang-deps.sh > $L/deps.txt 2>&1; rc=$?; echo "deps rc=$rc: $(tail -1 $L/deps.txt)" >> $S
DEPS=""; [ $rc -eq 0 ] && DEPS="--deps /tmp/sglang-deps/site"
half0() {
  local t1=$(date +%s)
  CUDA_VISIBLE_DEVICES=0 OUT=$L/port timeout 330 scripts/sglang-gpu-check.sh \
    --task residual_gate_norm_scale_shift > $L/port.txt 2>&1
  echo "port check rc=$? $(( $(date +%s) - t1 ))s: $(grep -E 'SGLANG-GPU-CHECK' $L/port.txt | tail -1)" >> $L/gpu0.txt
  grep -E '^all [0-9]+ cases' $L/port.txt >> $L/gpu0.txt
}
half1() {
  local t1=$(date +%s)
  CUDA_VISIBLE_DEVICES=1 OUT=$L/timing TVMFFI_TARGET=/tmp/tvmffi-2 TVM_FFI_CACHE_DIR=/tmp/tvmffi-cache-2 timeout 330 \
    scripts/sglang-gpu-check.sh --task residual_gate_norm_scale_shift --no-wrapper --engine-timing $DEPS \
    > $L/timing.txt 2>&1
  echo "ports + engine timing rc=$? $(( $(date +%s) - t1 ))s: $(grep -E 'SGLANG-GPU-CHECK' $L/timing.txt | tail -1)" >> $L/gpu1.txt
  grep -E '^tvm_ffi|copy bandwidth|cases timed' $L/timing.txt >> $L/gpu1.txt
}
( half0 ) & ( half1 ) & wait
date -u +%FT%TZ > $L/end.txt
echo "== GPU 0" >> $S; cat $L/gpu0.txt >> $S; echo "== GPU 1" >> $S; cat $L/gpu1.txt >> $S
if ls $L/timing/engine-timing-*.json > /dev/null 2>&1; then
  python3 scripts/engine_table.py $L/timing/engine-timing-*.json > $OUT/tables.txt 2>&1
  python3 scripts/engine_table.py --markdown --by-shape $L/timing/engine-timing-*.json > $OUT/tables.md 2>&1
  grep -E '^[a-z_]+: NVIDIA|^ako vs|^slower|^under' $OUT/tables.txt | cut -c1-400 >> $S
  xz -9 $L/timing/engine-timing-*.json; mv $L/timing/engine-timing-*.json.xz $OUT/
fi
tar cJf $OUT/logs.tar.xz -C $OUT logs && rm -rf $L
cat $S
