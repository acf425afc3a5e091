#!/usr/bin/env bash
# Session 24, the last call (nvidia-h200-x2; carry .sgl-proof and peers; the calls before it, on
# the same warm machine, carried the CuTe DSL packages' parts 1-9, cut into 7 MiB parts by
# scripts/fetch-sglang-deps.sh --resplit --part-mib 7 so that each fits beside the 56 MiB
# repository, and ran scripts/gpu-sglang-deps.sh). .sgl-proof: scripts/sglang-port-check.sh --task
# norm_scale_shift --task residual_gate_norm_scale_shift on this session's tree (the five Wan
# classes), then scripts/sglang-gpu-check.sh --prepare.
#  GPU 0: the residual fusion's port through SGLang 0.5.23's JIT and tvm-ffi: every case against
#         float64, the bad-input, stream and wrapper checks (norm_scale_shift's config and machine
#         code did not change since session 22's proof: not run again).
#  GPU 1: the residual fusion's port (its cases checked first) timed in one process against
#         SGLang's CuTe DSL kernel and torch eager, interleaved, CUPTI, cold L2 (--engine-timing);
#         tables by scripts/engine_table.py.
# Each half builds in its own folders (SGL_GPU_CHECK_BUILD, TVMFFI_TARGET, TVM_FFI_CACHE_DIR):
# session 23's call 17 lost its GPU 1 half to a build folder both shared.
# Back: summary.txt, tables.txt, tables.md, engine-timing-*.json.xz, logs.tar.xz.
set -uo pipefail
OUT=$(realpath "$OUT")
L=$OUT/logs; mkdir -p $L; S=$OUT/summary.txt; : > $S
date -u +%FT%TZ > $L/start.txt
nvidia-smi --query-gpu=index,name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv > $L/smi.txt
scripts/gpu-sglang-deps.sh > $L/deps.txt 2>&1; rc=$?; echo "deps rc=$rc: $(tail -1 $L/deps.txt)" >> $S
DEPS=""; [ $rc -eq 0 ] && DEPS="--deps /tmp/sglang-deps/site"
half() {  # GPU, log name, args...
  local g=$1 name=$2; shift 2
  local t1=$(date +%s)
  CUDA_VISIBLE_DEVICES=$g OUT=$L/$name SGL_GPU_CHECK_BUILD=/tmp/sgc-build-$g TVMFFI_TARGET=/tmp/tvmffi-s24-$g \
    TVM_FFI_CACHE_DIR=/tmp/tvmffi-cache-s24-$g timeout 400 scripts/sglang-gpu-check.sh \
    --task residual_gate_norm_scale_shift "$@" > $L/$name.txt 2>&1
  echo "$name rc=$? $(( $(date +%s) - t1 ))s: $(grep -E 'SGLANG-GPU-CHECK' $L/$name.txt | tail -1)" > $L/gpu$g.txt
  grep -E '^all [0-9]+ cases|^tvm_ffi|copy bandwidth|cases timed' $L/$name.txt >> $L/gpu$g.txt
}
half 0 port & half 1 timing --no-wrapper --engine-timing $DEPS & wait
date -u +%FT%TZ > $L/end.txt
echo "== GPU 0" >> $S; cat $L/gpu0.txt >> $S; echo "== GPU 1" >> $S; cat $L/gpu1.txt >> $S
if ls $L/timing/engine-timing-*.json > /dev/null 2>&1; then
  python3 scripts/engine_table.py $L/timing/engine-timing-*.json > $OUT/tables.txt 2>&1
  python3 scripts/engine_table.py --markdown --by-shape $L/timing/engine-timing-*.json > $OUT/tables.md 2>&1
  grep -E '^[a-z_]+: NVIDIA|^ako vs|^slower|^under' $OUT/tables.txt | cut -c1-600 >> $S
  xz -9 $L/timing/engine-timing-*.json; mv $L/timing/engine-timing-*.json.xz $OUT/
fi
tar cJf $OUT/logs.tar.xz -C $OUT logs && rm -rf $L
cat $S
