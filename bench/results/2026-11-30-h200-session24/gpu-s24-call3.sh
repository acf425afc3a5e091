#!/usr/bin/env bash
# Session 24, call 3 (nvidia-h200-x2; carry bundle-x), commit 50417a5's config.
# GPU 0: the residual fusion's H200 gate entry removed and rewritten (`ako gate --update-baseline
#   --threshold 5`); bench/baseline.json comes back.
# GPU 1: the GPU tests of both fusions (`ResidualGateNormScaleShift.*`, `NormScaleShift.*`).
set -uo pipefail
OUT=$(realpath "$OUT")
B=/tmp/bx; rm -rf $B; mkdir -p $B/bin && cp -r bundle-x/lib $B/
for b in ako ako-worker ako_gpu_tests; do xz -dc bundle-x/$b.xz > $B/bin/$b && chmod +x $B/bin/$b; done
export LD_LIBRARY_PATH=$B/lib:${LD_LIBRARY_PATH:-}
S=$OUT/summary.txt; : > $S
( t0=$(date +%s)
  CUDA_VISIBLE_DEVICES=1 AKO_CACHE_DIR=/tmp/ako-cache1 AKO_BIN=$B/bin/ako AKO_ROOT=$PWD timeout 500 $B/bin/ako_gpu_tests \
    --gtest_filter='ResidualGateNormScaleShift.*:NormScaleShift.*' > $OUT/gpu-tests.txt 2>&1
  echo "GPU 1 gpu tests rc=$? ($(( $(date +%s)-t0 )) s): $(grep -E '^\[  (PASSED|FAILED|  SKIPPED) ' $OUT/gpu-tests.txt | tr '\n' ' ')" > $OUT/gpu1.txt ) &
python3 - <<'PY'
import json
p = "bench/baseline.json"; b = json.load(open(p))
b["devices"]["NVIDIA H200"]["tasks"].pop("residual_gate_norm_scale_shift")
open(p, "w").write(json.dumps(b, indent=2) + "\n")
PY
t0=$(date +%s)
CUDA_VISIBLE_DEVICES=0 AKO_CACHE_DIR=/tmp/ako-cache0 timeout 400 $B/bin/ako gate --baseline bench/baseline.json --update-baseline \
  --threshold 5 --tasks residual_gate_norm_scale_shift --no-progress > $OUT/gate-update.txt 2>&1
echo "residual gate --update-baseline rc=$? ($(( $(date +%s)-t0 )) s): $(grep -E '^GATE|refusing|updated' $OUT/gate-update.txt | cut -c1-300)" >> $S
cp bench/baseline.json $OUT/baseline.json
wait
cat $OUT/gpu1.txt >> $S
cat $S
