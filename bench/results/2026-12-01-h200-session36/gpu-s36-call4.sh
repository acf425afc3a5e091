#!/usr/bin/env bash
# Session 36, call 4 (nvidia-h200; carry bundle-x, peers, .sgl-proof-qk36: scripts/sglang-port-check.sh --task qknorm
# on this tree, 20 of 20 kernels the same machine code under nvcc, then --prepare). The tree's qknorm kernel: per head
# the 16-byte store through __stwb, the mean by the exact 1 / HEAD_DIM, the weight loaded with x (call 3).
#  1. the weight loaded with x across heads too (variants/qknorm-across-wearly.cuh; NVRTC: 2-chunk classes 32
#     registers as before, 3-chunk 32 -> 48, wan14b's 6-chunk 36 -> 40) against the tree, A B B A, every case.
#     Prediction: level on the 2-chunk classes (wan13b, ltx), slower on qwen-image / hunyuan (48 registers), wan14b
#     level or 0.5% faster.
#  2. qknorm's H200 gate entry rewritten by ako (ako gate --update-baseline --threshold 5);
#  3. RunQknorm.* (GPU tests);
#  4. the port through SGLang 0.5.23's JIT and tvm-ffi on the GPU (bad-input, stream, wrapper checks);
#  5. `ako run task qknorm --size-copy` with the engines' kernels as columns (SGLang's JIT qknorm, FlashInfer's
#     QKRMSNorm and RMSNorm), scripts/engine_table.py on it: the issue-15 count.
# Back: summary.txt (printed last), abba.tar.xz, baseline.json, logs.tar.xz, run.tar.xz.
set -uo pipefail
OUT=$(realpath "$OUT")
S=$OUT/summary.txt; : > $S
T0=$(date +%s)
D=bench/results/2026-12-01-h200-session36
scripts/gpu-unpack-bundle.sh --if-needed > $OUT/unpack.txt 2>&1 || { cat $OUT/unpack.txt; exit 1; }
export AKO_CACHE_DIR=/tmp/ako-cache
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv,noheader >> $S
R=$OUT/abba; L=$OUT/logs; mkdir -p $R $L
OUT=$R/across-wearly B_SOLUTION=$D/variants/qknorm-across-wearly.cuh LABEL="across-wearly / tree" RUN_TIMEOUT=200 \
  scripts/gpu-abba.sh qknorm --no-checks --size-copy > $R/across-wearly.log 2>&1
echo "== across-wearly rc=$?" >> $S
cat $R/across-wearly/summary.txt >> $S
grep -E "across_heads=True" $R/across-wearly/cases.txt | cut -c1-60,90-150 >> $S
python3 - <<'PY'
import json
b = json.load(open("bench/baseline.json"))
b["devices"]["NVIDIA H200"]["tasks"].pop("qknorm")
open("/tmp/baseline-s36.json", "w").write(json.dumps(b, indent=2) + "\n")
PY
t1=$(date +%s)
timeout 200 bundle/bin/ako gate --baseline /tmp/baseline-s36.json --update-baseline --threshold 5 --tasks qknorm \
  --no-progress > $L/gate-update-qknorm.txt 2>&1
echo "qknorm gate --update-baseline rc=$? ($(( $(date +%s)-t1 )) s): $(grep -E '^GATE|refusing|updated' $L/gate-update-qknorm.txt | cut -c1-300)" >> $S
cp /tmp/baseline-s36.json $OUT/baseline.json
t1=$(date +%s)
AKO_BIN=$PWD/bundle/bin/ako AKO_ROOT=$PWD timeout 150 bundle/bin/ako_gpu_tests --gtest_filter='RunQknorm.*' > $L/tests.txt 2>&1
echo "RunQknorm.* rc=$? $(( $(date +%s) - t1 ))s: $(grep -E '^\[  (PASSED|FAILED)' $L/tests.txt | tr '\n' ' ')" >> $S
t1=$(date +%s)
env OUT=$L/proof SGL_PROOF=$PWD/.sgl-proof-qk36 SGL_GPU_CHECK_BUILD=/tmp/sgc-build-qk TVMFFI_TARGET=/tmp/tvmffi-s36-qk \
  TVM_FFI_CACHE_DIR=/tmp/tvmffi-cache-s36-qk timeout 200 scripts/sglang-gpu-check.sh --task qknorm > $L/proof.txt 2>&1
echo "qknorm proof rc=$? ($(( $(date +%s) - t1 )) s): $(grep -E 'SGLANG-GPU-CHECK' $L/proof.txt | tail -1)" >> $S
grep -E '^all [0-9]+ cases|^tvm_ffi' $L/proof.txt >> $S
T=$OUT/run; mkdir -p $T; t1=$(date +%s)
timeout 200 bundle/bin/ako run task qknorm --size-copy --no-progress --json $T/run.json > $T/run.txt 2>&1
echo "ako run qknorm rc=$? ($(( $(date +%s) - t1 )) s): $(grep -E '^CORRECT|^SPEEDUP|^RUNTIME|^BASELINE|^SIZE' $T/run.txt | tr '\n' ' ')" >> $S
python3 scripts/engine_table.py $T/run.json > $T/tables.txt 2>&1
python3 scripts/engine_table.py --markdown --by-shape $T/run.json > $T/tables.md 2>&1
grep -E '^[a-z_]+: NVIDIA|^ako vs|^slower|^under' $T/tables.txt | cut -c1-1500 >> $S
grep -E "wan13b|wan14b" $T/run.txt | cut -c1-130 >> $S
tar cJf $OUT/abba.tar.xz -C $OUT abba && rm -rf $R
tar cJf $OUT/logs.tar.xz -C $OUT logs && rm -rf $L
tar cJf $OUT/run.tar.xz -C $OUT run && rm -rf $T
echo "wall $(( $(date +%s) - T0 )) s" >> $S
cat $S
