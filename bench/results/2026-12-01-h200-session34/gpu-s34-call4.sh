#!/usr/bin/env bash
# Session 34, call 4 (nvidia-h200; carry bundle-x, .sgl-proof-ln34, peers). .sgl-proof-ln34: scripts/sglang-port-check.sh
# --task layernorm on this session's tree (call 3's five classes; nvcc's build the same machine code as NVRTC's on
# every configured kernel), then --prepare.
# 1. layernorm's H200 gate entry rewritten by ako (`ako gate --update-baseline --threshold 5`);
# 2. layernorm's port through SGLang 0.5.23's JIT and tvm-ffi: every case against float64, the bad-input, stream and
#    wrapper checks;
# 3. the port in SGLang's process against Triton `norm_infer` and torch on every shape, --no-wrapper --engine-timing
#    --timing-only --placements 3 (each timed case's output checked): the family's issue-14 count, last taken on every
#    shape in session 29.
# Back: summary.txt (printed last), baseline.json, logs.tar.xz, ln.tar.xz.
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
b["devices"]["NVIDIA H200"]["tasks"].pop("layernorm")
open("/tmp/baseline-s34.json", "w").write(json.dumps(b, indent=2) + "\n")
PY
t0=$(date +%s)
timeout 200 bundle/bin/ako gate --baseline /tmp/baseline-s34.json --update-baseline --threshold 5 --tasks layernorm \
  --no-progress > $L/gate-update-layernorm.txt 2>&1
echo "layernorm gate --update-baseline rc=$? ($(( $(date +%s)-t0 )) s): $(grep -E '^GATE|refusing|updated' $L/gate-update-layernorm.txt | cut -c1-300)" >> $S
cp /tmp/baseline-s34.json $OUT/baseline.json
t1=$(date +%s)
env OUT=$L/ln SGL_PROOF=$PWD/.sgl-proof-ln34 SGL_GPU_CHECK_BUILD=/tmp/sgc-build-ln TVMFFI_TARGET=/tmp/tvmffi-s34-ln \
  TVM_FFI_CACHE_DIR=/tmp/tvmffi-cache-s34-ln timeout 150 scripts/sglang-gpu-check.sh --task layernorm > $L/ln-proof.txt 2>&1
echo "layernorm proof rc=$? ($(( $(date +%s) - t1 )) s): $(grep -E 'SGLANG-GPU-CHECK' $L/ln-proof.txt | tail -1)" >> $S
grep -E '^all [0-9]+ cases|^tvm_ffi' $L/ln-proof.txt >> $S
T=$OUT/ln; mkdir -p $T; t1=$(date +%s)
OUT=$T SGL_PROOF=$PWD/.sgl-proof-ln34 SGL_GPU_CHECK_BUILD=/tmp/sgc-build-lnt TVMFFI_TARGET=/tmp/tvmffi-s34-lnt \
  TVM_FFI_CACHE_DIR=/tmp/tvmffi-cache-s34-lnt timeout 280 scripts/sglang-gpu-check.sh --task layernorm --no-wrapper \
  --engine-timing --timing-only --placements 3 > $T/log.txt 2>&1
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
