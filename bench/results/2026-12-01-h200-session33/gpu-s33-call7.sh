#!/usr/bin/env bash
# Session 33, call 7 (nvidia-h200, warm after call 6, which brought the CuTe DSL deps parts 1-6; carry
# .sglang-deps/py312-7, py312-8, .sgl-proof-nss33, peers, bundle-x). .sgl-proof-nss33: scripts/sglang-port-check.sh
# --task norm_scale_shift on this session's tree (SURE 1 in the wan13b walk class), then --prepare.
# 1. the deps completed;
# 2. norm_scale_shift's port through SGLang 0.5.23's JIT and tvm-ffi: every case against float64, the bad-input,
#    stream and wrapper checks;
# 3. the port timed in SGLang's process against CuTe DSL and torch on wan13b-480p, --no-wrapper --engine-timing
#    --timing-only --placements 3 (every timed case's output checked).
# Back: summary.txt (printed last), logs.tar.xz, nss.tar.xz.
set -uo pipefail
OUT=$(realpath "$OUT")
S=$OUT/summary.txt; : > $S
T0=$(date +%s)
scripts/gpu-sglang-deps.sh > $OUT/deps.txt 2>&1; rc=$?; echo "deps rc=$rc: $(tail -1 $OUT/deps.txt)" >> $S
DEPS=""; [ $rc -eq 0 ] && DEPS="--deps /tmp/sglang-deps/site"
scripts/gpu-unpack-bundle.sh --if-needed > $OUT/unpack.txt 2>&1 || { cat $OUT/unpack.txt; exit 1; }
export AKO_CACHE_DIR=/tmp/ako-cache
L=$OUT/logs; mkdir -p $L
t1=$(date +%s)
env OUT=$L/nss SGL_PROOF=$PWD/.sgl-proof-nss33 SGL_GPU_CHECK_BUILD=/tmp/sgc-build-nss TVMFFI_TARGET=/tmp/tvmffi-s33-nss \
  TVM_FFI_CACHE_DIR=/tmp/tvmffi-cache-s33-nss timeout 200 scripts/sglang-gpu-check.sh --task norm_scale_shift > $L/nss.txt 2>&1
echo "nss proof rc=$? ($(( $(date +%s) - t1 )) s): $(grep -E 'SGLANG-GPU-CHECK' $L/nss.txt | tail -1)" >> $S
grep -E '^all [0-9]+ cases|^tvm_ffi' $L/nss.txt >> $S
xz -9 $L/nss.txt
T=$OUT/nss; mkdir -p $T; t1=$(date +%s)
env OUT=$T SGL_PROOF=$PWD/.sgl-proof-nss33 SGL_GPU_CHECK_BUILD=/tmp/sgc-build-nsst TVMFFI_TARGET=/tmp/tvmffi-s33-nsst \
  TVM_FFI_CACHE_DIR=/tmp/tvmffi-cache-s33-nsst timeout 250 scripts/sglang-gpu-check.sh --task norm_scale_shift --no-wrapper \
  --engine-timing --timing-only --placements 3 --timing-shapes wan13b-480p $DEPS > $T/log.txt 2>&1
echo "nss timing rc=$? ($(( $(date +%s) - t1 )) s): $(grep -E 'SGLANG-GPU-CHECK' $T/log.txt | tail -1)" >> $S
grep -E '^tvm_ffi|copy bandwidth|cases timed' $T/log.txt >> $S
f=$T/engine-timing-norm_scale_shift.json
if [ -f $f ]; then
  python3 scripts/engine_table.py $f > $T/tables.txt 2>&1
  python3 scripts/engine_table.py --markdown --by-shape $f > $T/tables.md 2>&1
  grep -E '^[a-z_]+: NVIDIA|^ako vs|^slower|^under' $T/tables.txt | cut -c1-1500 >> $S
  xz -9 $f
fi
xz -9 $T/log.txt
tar cJf $OUT/nss.tar.xz -C $OUT nss && rm -rf $T
echo "wall $(( $(date +%s) - T0 )) s" >> $S
tar cJf $OUT/logs.tar.xz -C $OUT logs && rm -rf $L
cat $S
