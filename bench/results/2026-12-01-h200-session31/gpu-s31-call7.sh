#!/usr/bin/env bash
# Session 31, call 7 (nvidia-h200; carry bundle-x, .sgl-proof-nss31b): the walk without a division a token
# (call 6: 0.980-0.982 on wan13b's walk cases, 0.923-0.932 on wan14b's) as the tree's kernel:
# 1. walk3-sets.txt on the per-frame cases of wan13b and wan14b (WHERE "layout == 'bf1c'");
# 2. the H200 gate entry rewritten by ako (--update-baseline --threshold 5);
# 3. the port (.sgl-proof-nss31b: scripts/sglang-port-check.sh --task norm_scale_shift on this tree, then
#    --prepare) through SGLang 0.5.23's JIT and tvm-ffi on every case, the bad-input, stream and wrapper checks;
# 4. NormScaleShift.WalkedRowsAreCorrectAcrossBatchAndFrameBoundaries.
# Back: summary.txt (printed last), sweeps.tar.xz, baseline.json, logs.tar.xz.
set -uo pipefail
OUT=$(realpath "$OUT")
S=$OUT/summary.txt; : > $S
T0=$(date +%s)
scripts/gpu-unpack-bundle.sh --if-needed > $OUT/unpack.txt 2>&1 || { cat $OUT/unpack.txt; exit 1; }
export AKO_CACHE_DIR=/tmp/ako-cache
D=bench/results/2026-12-01-h200-session31
L=$OUT/logs; W=$OUT/sweeps; mkdir -p $L $W
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv,noheader >> $S
sweep() {  # name task shape sets
  OUT=$W/$1 WHERE="layout == 'bf1c'" RUN_TIMEOUT=100 scripts/gpu-sweep-sets.sh $2 $3 $4 > /dev/null 2>&1
  echo "== $1 ($(( $(date +%s) - T0 )) s)" >> $S; grep -v '^run ' $W/$1/summary.txt | cut -c1-1500 >> $S
  grep '^run ' $W/$1/summary.txt | grep -vc 'rc=0.*CORRECT: yes' | sed 's/^/runs not rc=0 and correct: /' >> $S
}
sweep wan13b norm_scale_shift wan13b-480p $D/walk3-sets.txt
sweep wan14b norm_scale_shift wan14b-480p $D/walk3-sets.txt
tar cJf $OUT/sweeps.tar.xz -C $OUT sweeps && rm -rf $W
python3 - <<'PY'
import json
b = json.load(open("bench/baseline.json"))
b["devices"]["NVIDIA H200"]["tasks"].pop("norm_scale_shift")
open("/tmp/baseline-nss.json", "w").write(json.dumps(b, indent=2) + "\n")
PY
t0=$(date +%s)
timeout 200 bundle/bin/ako gate --baseline /tmp/baseline-nss.json --update-baseline --threshold 5 --tasks norm_scale_shift \
  --no-progress > $L/gate-update.txt 2>&1
echo "norm_scale_shift gate --update-baseline rc=$? ($(( $(date +%s)-t0 )) s): $(grep -E '^GATE|refusing|updated' $L/gate-update.txt | cut -c1-300)" >> $S
cp /tmp/baseline-nss.json $OUT/baseline.json
ENVS="SGL_PROOF=$PWD/.sgl-proof-nss31b SGL_GPU_CHECK_BUILD=/tmp/sgc-build-nss31b TVMFFI_TARGET=/tmp/tvmffi-s31-nssb TVM_FFI_CACHE_DIR=/tmp/tvmffi-cache-s31-nssb"
env OUT=$L/port $ENVS timeout 300 scripts/sglang-gpu-check.sh --task norm_scale_shift > $L/port.txt 2>&1
echo "nss proof rc=$? ($(( $(date +%s) - T0 )) s): $(grep -E 'SGLANG-GPU-CHECK' $L/port.txt | tail -1)" >> $S
grep -E '^all [0-9]+ cases|^tvm_ffi' $L/port.txt >> $S
xz -9 $L/port.txt
t0=$(date +%s)
AKO_BIN=$PWD/bundle/bin/ako AKO_ROOT=$PWD timeout 150 bundle/bin/ako_gpu_tests --gtest_filter='*.WalkedRowsAreCorrectAcrossBatchAndFrameBoundaries' > $L/gpu-tests.txt 2>&1
echo "walk test rc=$? ($(( $(date +%s)-t0 )) s): $(grep -E '^\[       OK|^\[  FAILED|^\[  PASSED' $L/gpu-tests.txt | tr '\n' ' ')" >> $S
echo "wall $(( $(date +%s) - T0 )) s" >> $S
tar cJf $OUT/logs.tar.xz -C $OUT logs && rm -rf $L
cat $S
