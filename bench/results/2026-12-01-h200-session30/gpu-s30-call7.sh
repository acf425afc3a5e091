#!/usr/bin/env bash
# Session 30, call 7 (nvidia-h200; carry bundle-x, .sgl-proof-nss30c): EARLY_MOD 4's output pass split in two
# loops (the tree: a thread whose tokens all read the staged rows takes an unrolled loop without the
# off-stage fold and returns; the off-stage loop after it, not unrolled) against the one-loop form of commit
# bb0b349 (variants/nss-one-loop.cuh, by --solution).
# 1. the folded GPU tests (both paths: blocks across frames and batches);
# 2. A B B A on wan13b's four fp32 per-frame affine cases (`--where`), A = the one-loop file;
# 3. the H200 gate entry rewritten by ako; 4. the port (.sgl-proof-nss30c, from the CPU port check on this
#    tree) through SGLang 0.5.23's JIT and tvm-ffi on every case. (3 and 4 are kept only if 2 says faster.)
# Back: summary.txt (printed last), abba.tar.xz, baseline.json, logs.tar.xz.
set -uo pipefail
OUT=$(realpath "$OUT")
S=$OUT/summary.txt; : > $S
T0=$(date +%s)
scripts/gpu-unpack-bundle.sh --if-needed > $OUT/unpack.txt 2>&1 || { cat $OUT/unpack.txt; exit 1; }
export AKO_CACHE_DIR=/tmp/ako-cache
D=bench/results/2026-12-01-h200-session30
R=$OUT/abba; L=$OUT/logs; mkdir -p $R $L
timeout 150 bundle/bin/ako_gpu_tests --gtest_filter='*.FoldedRowsAreCorrectAcrossBatchAndFrameBoundaries' > $L/folded-tests.txt 2>&1
echo "folded tests rc=$? ($(( $(date +%s) - T0 )) s): $(grep -E '^\[ +(OK|PASSED|FAILED) ' $L/folded-tests.txt | tr '\n' ' ')" >> $S
W="affine && mod_dtype == 'fp32' && layout == 'bf1c'"
one() {  # tag [--solution FILE]
  local tag=$1; shift
  timeout 90 bundle/bin/ako run task norm_scale_shift --shapes wan13b-480p --where "$W" --no-progress "$@" \
    --json $R/nss-$tag.json > $R/nss-$tag.txt 2>&1
  echo "nss $tag rc=$?: $(grep -E '^CORRECT' $R/nss-$tag.txt | tr '\n' ' ' | cut -c1-100)" >> $S
}
one A1 --solution $D/variants/nss-one-loop.cuh; one B1; one B2; one A2 --solution $D/variants/nss-one-loop.cuh
python3 scripts/abba_cases.py $R/nss-A1.json $R/nss-B1.json $R/nss-B2.json $R/nss-A2.json --label "two loops / one loop" \
  > $R/nss-abba.txt 2>&1
grep -E "^two loops|^noise" $R/nss-abba.txt | cut -c1-1500 >> $S
python3 - <<'PY'
import json
b = json.load(open("bench/baseline.json"))
b["devices"]["NVIDIA H200"]["tasks"].pop("norm_scale_shift")
open("/tmp/baseline-nss.json", "w").write(json.dumps(b, indent=2) + "\n")
PY
timeout 200 bundle/bin/ako gate --baseline /tmp/baseline-nss.json --update-baseline --threshold 5 --tasks norm_scale_shift \
  --no-progress > $L/gate-update.txt 2>&1
echo "norm_scale_shift gate --update-baseline rc=$? ($(( $(date +%s)-T0 )) s): $(grep -E '^GATE|refusing|updated' $L/gate-update.txt | cut -c1-300)" >> $S
cp /tmp/baseline-nss.json $OUT/baseline.json
ENVS="SGL_PROOF=$PWD/.sgl-proof-nss30c SGL_GPU_CHECK_BUILD=/tmp/sgc-build-nss30c TVMFFI_TARGET=/tmp/tvmffi-s30-nssc TVM_FFI_CACHE_DIR=/tmp/tvmffi-cache-s30-nssc"
env OUT=$L/port $ENVS timeout 200 scripts/sglang-gpu-check.sh --task norm_scale_shift > $L/port.txt 2>&1
echo "nss proof rc=$? ($(( $(date +%s) - T0 )) s): $(grep -E 'SGLANG-GPU-CHECK' $L/port.txt | tail -1)" >> $S
grep -E '^all [0-9]+ cases|^tvm_ffi' $L/port.txt >> $S
echo "wall $(( $(date +%s) - T0 )) s" >> $S
xz -9 $L/port.txt
tar cJf $OUT/abba.tar.xz -C $OUT abba && rm -rf $R
tar cJf $OUT/logs.tar.xz -C $OUT logs && rm -rf $L
cat $S
