#!/usr/bin/env bash
# Session 33, call 4 (nvidia-h200; carry bundle-x built from this tree, .sgl-proof-ln33): SURE in the tree for both
# norm fusions (off but in the wan13b walk class) and in layernorm's wan13b class and a text-512-cfg 16-bit affine class.
# 1. GPU tests *.SureChunksAreCorrectAcrossBatchAndFrameBoundaries (both norm fusions);
# 2. each changed config against the one before (HEAD's, *-h200-config-before.json), A B B A: norm_scale_shift on
#    wan13b-480p, layernorm on wan13b-480p and text-512-cfg;
# 3. the H200 gate entry of both tasks rewritten by ako (--update-baseline --threshold 5);
# 4. layernorm's port (scripts/sglang-port-check.sh on this tree, then --prepare: .sgl-proof-ln33) through SGLang
#    0.5.23's JIT and tvm-ffi on the GPU.
# Back: summary.txt (printed last), abba.tar.xz, baseline.json, logs.tar.xz.
set -uo pipefail
OUT=$(realpath "$OUT")
S=$OUT/summary.txt; : > $S
T0=$(date +%s)
scripts/gpu-unpack-bundle.sh --if-needed > $OUT/unpack.txt 2>&1 || { cat $OUT/unpack.txt; exit 1; }
export AKO_CACHE_DIR=/tmp/ako-cache
D=bench/results/2026-12-01-h200-session33
R=$OUT/abba; L=$OUT/logs; mkdir -p $R $L
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv,noheader >> $S
AKO_BIN=$PWD/bundle/bin/ako AKO_ROOT=$PWD timeout 240 bundle/bin/ako_gpu_tests \
  --gtest_filter='*.SureChunksAreCorrectAcrossBatchAndFrameBoundaries' > $L/gpu-tests.txt 2>&1
echo "gpu tests rc=$? ($(( $(date +%s) - T0 )) s): $(grep -E '^\[ +(OK|PASSED|FAILED) ' $L/gpu-tests.txt | tr '\n' ' ')" >> $S
abba() {  # task shapes before-config label
  local C=solution/$1/configs
  cp $D/$3 $C/device_name=BEFORE.json
  for r in "A1 BEFORE" "B1 NVIDIA H200" "B2 NVIDIA H200" "A2 BEFORE"; do
    local tag=${r%% *} dev=${r#* }
    timeout 150 bundle/bin/ako run task $1 --shapes $2 --no-progress --device "$dev" --json $R/$1-$tag.json > $R/$1-$tag.txt 2>&1
    echo "$1 $tag ($dev) rc=$?: $(grep -E '^CORRECT' $R/$1-$tag.txt | tr '\n' ' ' | cut -c1-100)" >> $S
  done
  rm -f $C/device_name=BEFORE.json
  python3 scripts/abba_cases.py $R/$1-A1.json $R/$1-B1.json $R/$1-B2.json $R/$1-A2.json --label "$4" > $R/$1-abba.txt 2>&1
  grep -E "^$4|^noise" $R/$1-abba.txt | cut -c1-2000 >> $S
}
abba norm_scale_shift wan13b-480p nss-h200-config-before.json "nss SURE walk / before"
grep -E "layout=bf1c" $R/norm_scale_shift-abba.txt | grep "norm=layer" | cut -c1-200 >> $S
abba layernorm wan13b-480p,text-512-cfg layernorm-h200-config-before.json "layernorm SURE classes / before"
grep -E "B/A" $R/layernorm-abba.txt | cut -c1-200 >> $S
python3 - <<'PY'
import json
b = json.load(open("bench/baseline.json"))
for t in ("norm_scale_shift", "layernorm"):
    b["devices"]["NVIDIA H200"]["tasks"].pop(t)
open("/tmp/baseline-s33.json", "w").write(json.dumps(b, indent=2) + "\n")
PY
for t in layernorm norm_scale_shift; do
  t0=$(date +%s)
  timeout 240 bundle/bin/ako gate --baseline /tmp/baseline-s33.json --update-baseline --threshold 5 --tasks $t \
    --no-progress > $L/gate-update-$t.txt 2>&1
  echo "$t gate --update-baseline rc=$? ($(( $(date +%s)-t0 )) s): $(grep -E '^GATE|refusing|updated' $L/gate-update-$t.txt | cut -c1-300)" >> $S
done
cp /tmp/baseline-s33.json $OUT/baseline.json
t1=$(date +%s)
env OUT=$L/ln SGL_PROOF=$PWD/.sgl-proof-ln33 SGL_GPU_CHECK_BUILD=/tmp/sgc-build-ln TVMFFI_TARGET=/tmp/tvmffi-s33-ln \
  TVM_FFI_CACHE_DIR=/tmp/tvmffi-cache-s33-ln timeout 150 scripts/sglang-gpu-check.sh --task layernorm > $L/ln-proof.txt 2>&1
echo "layernorm proof rc=$? ($(( $(date +%s) - t1 )) s): $(grep -E 'SGLANG-GPU-CHECK' $L/ln-proof.txt | tail -1)" >> $S
grep -E '^all [0-9]+ cases|^tvm_ffi' $L/ln-proof.txt >> $S
echo "wall $(( $(date +%s) - T0 )) s" >> $S
tar cJf $OUT/abba.tar.xz -C $OUT abba && rm -rf $R
tar cJf $OUT/logs.tar.xz -C $OUT logs && rm -rf $L
cat $S
