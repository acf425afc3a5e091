#!/usr/bin/env bash
# Session 33, call 5 (nvidia-h200; carry bundle-x rebuilt with the SureChunks GPU tests, .sgl-proof-ln33, peers):
# 1. GPU tests *.SureChunksAreCorrectAcrossBatchAndFrameBoundaries (both norm fusions with SURE 1: fused rows one
#    and two tokens a thread, walked groups; a partial last chunk at 320 threads a token);
# 2. layernorm's port of this tree (.sgl-proof-ln33, proven in call 4) against SGLang's Triton `norm_infer` and
#    torch in one process on the two shapes whose classes changed (wan13b-480p, text-512-cfg), --placements 3
#    --timing-only (each timed case's output checked).
# Back: summary.txt (printed last), logs.tar.xz, ln.tar.xz.
set -uo pipefail
OUT=$(realpath "$OUT")
S=$OUT/summary.txt; : > $S
T0=$(date +%s)
scripts/gpu-unpack-bundle.sh --if-needed > $OUT/unpack.txt 2>&1 || { cat $OUT/unpack.txt; exit 1; }
export AKO_CACHE_DIR=/tmp/ako-cache
L=$OUT/logs; mkdir -p $L
AKO_BIN=$PWD/bundle/bin/ako AKO_ROOT=$PWD timeout 300 bundle/bin/ako_gpu_tests \
  --gtest_filter='*.SureChunksAreCorrectAcrossBatchAndFrameBoundaries' > $L/gpu-tests.txt 2>&1
echo "gpu tests rc=$? ($(( $(date +%s) - T0 )) s): $(grep -E '^\[ +(OK|PASSED|FAILED) ' $L/gpu-tests.txt | tr '\n' ' ')" >> $S
T=$OUT/ln; mkdir -p $T; t1=$(date +%s)
OUT=$T SGL_PROOF=$PWD/.sgl-proof-ln33 SGL_GPU_CHECK_BUILD=/tmp/sgc-build-lnt TVMFFI_TARGET=/tmp/tvmffi-s33-lnt \
  TVM_FFI_CACHE_DIR=/tmp/tvmffi-cache-s33-lnt timeout 200 scripts/sglang-gpu-check.sh --task layernorm --no-wrapper \
  --engine-timing --timing-only --placements 3 --timing-shapes wan13b-480p,text-512-cfg > $T/log.txt 2>&1
echo "layernorm timing rc=$? ($(( $(date +%s) - t1 )) s): $(grep -E 'SGLANG-GPU-CHECK' $T/log.txt | tail -1)" >> $S
grep -E 'copy bandwidth|cases timed|timing-only' $T/log.txt >> $S
f=$T/engine-timing-layernorm.json
if [ -f $f ]; then
  python3 scripts/engine_table.py $f > $T/tables-layernorm.txt 2>&1
  python3 scripts/engine_table.py --markdown --by-shape $f > $T/tables-layernorm.md 2>&1
  grep -E '^[a-z_]+: NVIDIA|^ako vs|^slower|^under' $T/tables-layernorm.txt | cut -c1-1500 >> $S
  xz -9 $f
fi
xz -9 $T/log.txt
echo "wall $(( $(date +%s) - T0 )) s" >> $S
tar cJf $OUT/ln.tar.xz -C $OUT ln && rm -rf $T
tar cJf $OUT/logs.tar.xz -C $OUT logs && rm -rf $L
cat $S
