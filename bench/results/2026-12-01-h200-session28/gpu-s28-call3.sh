#!/usr/bin/env bash
# Session 28, call 3 (nvidia-h200; carry .sglang-deps/py312-1 .. py312-6 and bundle-x): the first six
# CuTe DSL deps parts onto the machine (scripts/gpu-sglang-deps.sh: exit 3 expected; calls 4 and 5
# follow on the warm machine), then, with the residual fusion's sweep classes (norm_scale_shift
# iteration 32): its H200 gate entry removed and rewritten by ako (`ako gate --update-baseline
# --threshold 5`: the zimage fp16 pinned kernel of iteration 29 and the six new classes get budgets), and
# the GPU tests `ResidualGateNormScaleShift.*`. Back: summary.txt, baseline.json, gate-update.txt, gpu-tests.txt.
set -uo pipefail
OUT=$(realpath "$OUT")
S=$OUT/summary.txt; : > $S
scripts/gpu-sglang-deps.sh > $OUT/deps.txt 2>&1; echo "deps rc=$?: $(tail -1 $OUT/deps.txt)" >> $S
scripts/gpu-unpack-bundle.sh > $OUT/unpack.txt 2>&1 || { cat $OUT/unpack.txt; exit 1; }
T=residual_gate_norm_scale_shift
python3 - <<'PY'
import json
p = "bench/baseline.json"; b = json.load(open(p))
b["devices"]["NVIDIA H200"]["tasks"].pop("residual_gate_norm_scale_shift")
open("/tmp/baseline-residual.json", "w").write(json.dumps(b, indent=2) + "\n")
PY
t0=$(date +%s)
AKO_CACHE_DIR=/tmp/ako-cache0 timeout 300 bundle/bin/ako gate --baseline /tmp/baseline-residual.json \
  --update-baseline --threshold 5 --tasks $T --no-progress > $OUT/gate-update.txt 2>&1
echo "$T gate --update-baseline rc=$? ($(( $(date +%s)-t0 )) s): $(grep -E '^GATE|refusing|updated' $OUT/gate-update.txt | cut -c1-300)" >> $S
cp /tmp/baseline-residual.json $OUT/baseline.json
t0=$(date +%s)
AKO_CACHE_DIR=/tmp/ako-cache0 AKO_BIN=$PWD/bundle/bin/ako AKO_ROOT=$PWD timeout 200 \
  bundle/bin/ako_gpu_tests --gtest_filter='ResidualGateNormScaleShift.*' > $OUT/gpu-tests.txt 2>&1
echo "ResidualGateNormScaleShift.* rc=$? ($(( $(date +%s)-t0 )) s): $(grep -E '^\[  (PASSED|FAILED) ' $OUT/gpu-tests.txt | tr '\n' ' ')" >> $S
cat $S
