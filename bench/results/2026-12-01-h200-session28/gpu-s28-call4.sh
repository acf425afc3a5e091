#!/usr/bin/env bash
# Session 28, call 4 (nvidia-h200, warm after call 3; carry .sglang-deps/py312-7 .. py312-9, .sgl-proof,
# .sgl-proof-ss, peers, bundle-x).
# .sgl-proof: scripts/sglang-port-check.sh --task residual_gate_norm_scale_shift on this session's tree
# (the sweep classes, commit e8c4eb3's config), then scripts/sglang-gpu-check.sh --prepare;
# .sgl-proof-ss: session 27's (commit 36bea54's scale_shift, unchanged since).
#  1. the residual fusion's port through SGLang 0.5.23's JIT and tvm-ffi: every case against float64,
#     the bad-input, stream and wrapper checks;
#  2. scale_shift's port against SGLang's Triton kernel and torch in one process, --placements 5 (each
#     case in five rounds, every tensor elsewhere each round; the median round reported): whether the
#     two cases behind Triton in session 27 (text-512-cfg fp16 lc 0.972x, flux1-single bf16 blc 0.997x)
#     are behind wherever their tensors fall (call 1 timed ako's port alone: 1-6% between placements).
#  On an x2 machine, GPU 1 meanwhile: the residual fusion's port against CuTe DSL and torch in one
#  process, --placements 3 --timing-only (the port proven on GPU 0; each timed case's output checked).
#  (On one H200 that job does not run here; it was meant for a call of its own, not needed on x2.)
# Back: summary.txt, logs.tar.xz, ss-timing.tar.xz (and timing.tar.xz on x2).
set -uo pipefail
OUT=$(realpath "$OUT")
L=$OUT/logs; mkdir -p $L; S=$OUT/summary.txt; : > $S
T0=$(date +%s)
nvidia-smi --query-gpu=index,name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv > $L/smi.txt
scripts/gpu-sglang-deps.sh > $L/deps.txt 2>&1; rc=$?; echo "deps rc=$rc: $(tail -1 $L/deps.txt)" >> $S
DEPS=""; [ $rc -eq 0 ] && DEPS="--deps /tmp/sglang-deps/site"
half() {  # log name, timeout, args...
  local name=$1 ht=$2; shift 2
  local t1=$(date +%s)
  OUT=$L/$name SGL_PROOF=${SGL_PROOF:-$PWD/.sgl-proof} SGL_GPU_CHECK_BUILD=/tmp/sgc-build-$name TVMFFI_TARGET=/tmp/tvmffi-s28-$name \
    TVM_FFI_CACHE_DIR=/tmp/tvmffi-cache-s28-$name timeout $ht scripts/sglang-gpu-check.sh "$@" > $L/$name.txt 2>&1
  echo "$name rc=$? $(( $(date +%s) - t1 ))s: $(grep -E 'SGLANG-GPU-CHECK' $L/$name.txt | tail -1)" >> $S
  grep -E '^all [0-9]+ cases|^tvm_ffi|copy bandwidth|cases timed|timing-only' $L/$name.txt >> $S
}
gpu0() {
  CUDA_VISIBLE_DEVICES=0 half port 330 --task residual_gate_norm_scale_shift
  CUDA_VISIBLE_DEVICES=0 SGL_PROOF=$PWD/.sgl-proof-ss half ss $(( 585 - ($(date +%s) - T0) )) --task scale_shift --no-wrapper --engine-timing --placements 5 $DEPS
}
rtiming() {  # the residual fusion against CuTe DSL on GPU 1
  local R=$OUT/r; mkdir -p $R/timing
  CUDA_VISIBLE_DEVICES=1 OUT=$R/timing SGL_PROOF=$PWD/.sgl-proof SGL_GPU_CHECK_BUILD=/tmp/sgc-build-timing TVMFFI_TARGET=/tmp/tvmffi-s28-timing \
    TVM_FFI_CACHE_DIR=/tmp/tvmffi-cache-s28-timing timeout $(( 585 - ($(date +%s) - T0) )) scripts/sglang-gpu-check.sh \
    --task residual_gate_norm_scale_shift --no-wrapper --engine-timing --timing-only --placements 3 $DEPS > $R/log.txt 2>&1
  echo "residual timing rc=$? $(( $(date +%s) - T0 ))s: $(grep -E 'SGLANG-GPU-CHECK' $R/log.txt | tail -1)" >> $S
  grep -E '^tvm_ffi|copy bandwidth|cases timed|timing-only' $R/log.txt >> $S
  local f=$R/timing/engine-timing-residual_gate_norm_scale_shift.json
  if [ -f $f ]; then
    python3 scripts/engine_table.py $f > $R/timing/tables-residual.txt 2>&1
    python3 scripts/engine_table.py --markdown --by-shape $f > $R/timing/tables-residual.md 2>&1
    grep -E '^[a-z_]+: NVIDIA|^ako vs|^slower|^under' $R/timing/tables-residual.txt | cut -c1-900 >> $S
    xz -9 $f
  fi
  xz -9 -c $R/log.txt > $R/timing/log.txt.xz
  tar cJf $OUT/timing.tar.xz -C $R timing && rm -rf $R
}
if [ $(nvidia-smi -L | wc -l) -ge 2 ]; then gpu0 & rtiming & wait; else gpu0; fi
mkdir -p $OUT/ss
if [ -f $L/ss/engine-timing-scale_shift.json ]; then
  python3 scripts/engine_table.py $L/ss/engine-timing-scale_shift.json > $OUT/ss/tables-scale_shift.txt 2>&1
  python3 scripts/engine_table.py --markdown --by-shape $L/ss/engine-timing-scale_shift.json > $OUT/ss/tables-scale_shift.md 2>&1
  grep -E '^[a-z_]+: NVIDIA|^ako vs|^slower|^under' $OUT/ss/tables-scale_shift.txt | cut -c1-900 >> $S
  xz -9 -c $L/ss/engine-timing-scale_shift.json > $OUT/ss/engine-timing-scale_shift.json.xz
fi
tar cJf $OUT/ss-timing.tar.xz -C $OUT ss && rm -rf $OUT/ss
tar cJf $OUT/logs.tar.xz -C $OUT logs && rm -rf $L
cat $S
