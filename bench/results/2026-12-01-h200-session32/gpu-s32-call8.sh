#!/usr/bin/env bash
# Session 32, call 8 (nvidia-h200, warm after call 7, which brought the CuTe DSL deps parts 1-6; carry
# .sglang-deps/py312-7, py312-8, .sgl-proof-nss32, .sgl-proof-res32, peers, bundle-x):
# .sgl-proof-nss32: scripts/sglang-port-check.sh --task norm_scale_shift on this session's tree (the walk
# class at MIN_BLOCKS 10), then --prepare; .sgl-proof-res32: the same for residual_gate_norm_scale_shift on
# HEAD's tree (its kernels unchanged since session 31's CPU check; not proven on a GPU since session 28's).
# 1. the deps completed;
# 2. both ports through SGLang 0.5.23's JIT and tvm-ffi: every case against float64, the bad-input, stream
#    and wrapper checks;
# 3. norm_scale_shift's port timed in SGLang's process against CuTe DSL and torch on wan13b-480p,
#    --no-wrapper --engine-timing --timing-only --placements 3 (every timed case's output checked);
# 4. the residual fusion's port the same way on wan13b-480p, in what is left of the call.
# Back: summary.txt (printed last), logs.tar.xz, nss.tar.xz, res.tar.xz.
set -uo pipefail
OUT=$(realpath "$OUT")
S=$OUT/summary.txt; : > $S
T0=$(date +%s)
scripts/gpu-sglang-deps.sh > $OUT/deps.txt 2>&1; rc=$?; echo "deps rc=$rc: $(tail -1 $OUT/deps.txt)" >> $S
DEPS=""; [ $rc -eq 0 ] && DEPS="--deps /tmp/sglang-deps/site"
scripts/gpu-unpack-bundle.sh --if-needed > $OUT/unpack.txt 2>&1 || { cat $OUT/unpack.txt; exit 1; }
export AKO_CACHE_DIR=/tmp/ako-cache
L=$OUT/logs; mkdir -p $L
proof() {  # name task payload timeout
  local t1=$(date +%s)
  env OUT=$L/$1 SGL_PROOF=$PWD/$3 SGL_GPU_CHECK_BUILD=/tmp/sgc-build-$1 TVMFFI_TARGET=/tmp/tvmffi-s32-$1 \
    TVM_FFI_CACHE_DIR=/tmp/tvmffi-cache-s32-$1 timeout $4 scripts/sglang-gpu-check.sh --task $2 > $L/$1.txt 2>&1
  echo "$1 proof rc=$? ($(( $(date +%s) - t1 )) s): $(grep -E 'SGLANG-GPU-CHECK' $L/$1.txt | tail -1)" >> $S
  grep -E '^all [0-9]+ cases|^tvm_ffi' $L/$1.txt >> $S
  xz -9 $L/$1.txt
}
proof nss norm_scale_shift .sgl-proof-nss32 200
proof res residual_gate_norm_scale_shift .sgl-proof-res32 300
timing() {  # name task payload timeout
  local T=$OUT/$1 t1=$(date +%s); mkdir -p $T
  env OUT=$T SGL_PROOF=$PWD/$3 SGL_GPU_CHECK_BUILD=/tmp/sgc-build-$1t TVMFFI_TARGET=/tmp/tvmffi-s32-$1t \
    TVM_FFI_CACHE_DIR=/tmp/tvmffi-cache-s32-$1t timeout $4 scripts/sglang-gpu-check.sh --task $2 --no-wrapper \
    --engine-timing --timing-only --placements 3 --timing-shapes wan13b-480p $DEPS > $T/log.txt 2>&1
  echo "$1 timing rc=$? ($(( $(date +%s) - t1 )) s): $(grep -E 'SGLANG-GPU-CHECK' $T/log.txt | tail -1)" >> $S
  grep -E '^tvm_ffi|copy bandwidth|cases timed' $T/log.txt >> $S
  local f=$T/engine-timing-$2.json
  if [ -f $f ]; then
    python3 scripts/engine_table.py $f > $T/tables.txt 2>&1
    python3 scripts/engine_table.py --markdown --by-shape $f > $T/tables.md 2>&1
    grep -E '^[a-z_]+: NVIDIA|^ako vs|^slower|^under' $T/tables.txt | cut -c1-1500 >> $S
    xz -9 $f
  fi
  xz -9 $T/log.txt
  tar cJf $OUT/$1.tar.xz -C $OUT $1 && rm -rf $T
}
timing nss norm_scale_shift .sgl-proof-nss32 150
left=$(( 585 - ($(date +%s) - T0) ))
if [ $left -gt 60 ]; then timing res residual_gate_norm_scale_shift .sgl-proof-res32 $left; else echo "res timing not run: $left s left" >> $S; fi
echo "wall $(( $(date +%s) - T0 )) s" >> $S
tar cJf $OUT/logs.tar.xz -C $OUT logs && rm -rf $L
cat $S
