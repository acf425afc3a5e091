#!/usr/bin/env bash
# Session 26, call 4 (nvidia-h200-x2; carry bundle-x, peers). After rope's partial-r64 NeoX class
# (ITERATIONS.md rope iteration 4):
#  GPU 0: `ako run task rope --size-copy` in full with its FlashInfer columns; scripts/engine_table.py.
#  GPU 1: rope's H200 gate entry removed and rewritten (`ako gate --update-baseline --threshold 5`),
#         then the GPU tests RunRope.*.
# Back: summary.txt, rope.json, rope-table.txt, rope-engine-table.txt, baseline.json, gate and test logs.
set -uo pipefail
OUT=$(realpath "$OUT")
S=$OUT/summary.txt; : > $S
scripts/gpu-unpack-bundle.sh > $OUT/unpack.txt 2>&1 || { cat $OUT/unpack.txt; exit 1; }
full() {
  local t0=$(date +%s)
  CUDA_VISIBLE_DEVICES=0 AKO_CACHE_DIR=/tmp/ako-cache0 timeout 300 bundle/bin/ako run task rope --size-copy --no-progress \
    --json $OUT/rope.json > $OUT/rope-table.txt 2>&1
  echo "rope run rc=$? ($(( $(date +%s)-t0 )) s): $(grep -E '^CORRECT' $OUT/rope-table.txt)" > $OUT/full.sum
  python3 scripts/engine_table.py $OUT/rope.json > $OUT/rope-engine-table.txt 2>&1
  grep -E '^ako vs|^slower|^under' $OUT/rope-engine-table.txt | cut -c1-2000 >> $OUT/full.sum
}
gate() {
  python3 - <<'PY'
import json
p = "bench/baseline.json"; b = json.load(open(p))
b["devices"]["NVIDIA H200"]["tasks"].pop("rope")
open("/tmp/baseline-rope.json", "w").write(json.dumps(b, indent=2) + "\n")
PY
  local t0=$(date +%s)
  CUDA_VISIBLE_DEVICES=1 AKO_CACHE_DIR=/tmp/ako-cache1 timeout 200 bundle/bin/ako gate --baseline /tmp/baseline-rope.json \
    --update-baseline --threshold 5 --tasks rope --no-progress > $OUT/gate-update-rope.txt 2>&1
  echo "rope gate --update-baseline rc=$? ($(( $(date +%s)-t0 )) s): $(grep -E '^GATE|refusing|updated' $OUT/gate-update-rope.txt | cut -c1-300)" > $OUT/gate.sum
  cp /tmp/baseline-rope.json $OUT/baseline.json
  t0=$(date +%s)
  CUDA_VISIBLE_DEVICES=1 AKO_CACHE_DIR=/tmp/ako-cache1 AKO_BIN=$PWD/bundle/bin/ako AKO_ROOT=$PWD timeout 200 \
    bundle/bin/ako_gpu_tests --gtest_filter='RunRope.*' > $OUT/gpu-tests.txt 2>&1
  echo "RunRope.* rc=$? ($(( $(date +%s)-t0 )) s): $(grep -E '^\[  (PASSED|FAILED) ' $OUT/gpu-tests.txt | tr '\n' ' ')" >> $OUT/gate.sum
}
full & gate & wait
cat $OUT/full.sum $OUT/gate.sum >> $S; rm -f $OUT/*.sum
cat $S
