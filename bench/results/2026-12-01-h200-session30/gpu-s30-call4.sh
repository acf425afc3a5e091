#!/usr/bin/env bash
# Session 30, call 4 (nvidia-h200; carry bundle-x, .sgl-proof-nss30b): norm_scale_shift with the final class
# (`shape-wan13b-480p-frame-fp32-mod-affine-folded`: fp32 modulation only; the same-dtype affine RMSNorm back on
# its EARLY_MOD 3 class, its kernel the one before this session):
# 1. the H200 gate entry rewritten by ako (--update-baseline --threshold 5; call 3's entry had the folded
#    same-dtype kernel);
# 2. the port (.sgl-proof-nss30b: scripts/sglang-port-check.sh --task norm_scale_shift on this tree, then
#    --prepare) through SGLang 0.5.23's JIT and tvm-ffi on every case, the bad-input, stream and wrapper checks.
# Back: summary.txt (printed last), baseline.json, logs.tar.xz.
set -uo pipefail
OUT=$(realpath "$OUT")
S=$OUT/summary.txt; : > $S
T0=$(date +%s)
scripts/gpu-unpack-bundle.sh --if-needed > $OUT/unpack.txt 2>&1 || { cat $OUT/unpack.txt; exit 1; }
export AKO_CACHE_DIR=/tmp/ako-cache
L=$OUT/logs; mkdir -p $L
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
ENVS="SGL_PROOF=$PWD/.sgl-proof-nss30b SGL_GPU_CHECK_BUILD=/tmp/sgc-build-nss30 TVMFFI_TARGET=/tmp/tvmffi-s30-nss TVM_FFI_CACHE_DIR=/tmp/tvmffi-cache-s30-nss"
env OUT=$L/port $ENVS timeout 400 scripts/sglang-gpu-check.sh --task norm_scale_shift > $L/port.txt 2>&1
echo "nss proof rc=$? ($(( $(date +%s) - T0 )) s): $(grep -E 'SGLANG-GPU-CHECK' $L/port.txt | tail -1)" >> $S
grep -E '^all [0-9]+ cases|^tvm_ffi' $L/port.txt >> $S
echo "wall $(( $(date +%s) - T0 )) s" >> $S
xz -9 $L/port.txt
tar cJf $OUT/logs.tar.xz -C $OUT logs && rm -rf $L
cat $S
