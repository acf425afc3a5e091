#!/usr/bin/env bash
# Session 27, call 4 (nvidia-h200-x2; carry bundle-x).
#  GPU 0: rope partial-r64's interleaved cases in a class of their own (ITERATIONS.md rope iteration 5):
#         `scripts/gpu-tune-abba.sh rope partial-r64 --where "!neox"`, exhaustive; then scale_shift's H200
#         gate entry removed and rewritten after its lc classes (`ako gate --update-baseline --threshold 5`).
#  GPU 1: the GPU tests ScaleShift.* with the lc classes (scale_shift iteration 7).
# Back: summary.txt, gpu0.tar.xz (gpu-tune-abba.sh's files), config-after-rope.json, baseline.json,
# gate and test logs.
set -uo pipefail
OUT=$(realpath "$OUT")
S=$OUT/summary.txt; : > $S
scripts/gpu-unpack-bundle.sh > $OUT/unpack.txt 2>&1 || { cat $OUT/unpack.txt; exit 1; }
gpu0() {
  cp "solution/rope/configs/device_name=NVIDIA_H200.json" /tmp/rope-config-committed.json
  CUDA_VISIBLE_DEVICES=0 AKO_CACHE_DIR=/tmp/ako-cache0 OUT=$OUT/g0 STRATEGY=exhaustive BUDGET=100% TUNE_TIME=120 \
    timeout 300 scripts/gpu-tune-abba.sh rope partial-r64 --where "!neox" > $OUT/g0.txt 2>&1
  echo "rope tune-abba rc=$?" >> $OUT/g0.txt
  # the tune wrote the tree's rope config: restore the committed one before the gate reads configs
  cp /tmp/rope-config-committed.json "solution/rope/configs/device_name=NVIDIA_H200.json"
  python3 - <<'PY'
import json
p = "bench/baseline.json"; b = json.load(open(p))
b["devices"]["NVIDIA H200"]["tasks"].pop("scale_shift")
open("/tmp/baseline-ss.json", "w").write(json.dumps(b, indent=2) + "\n")
PY
  local t0=$(date +%s)
  CUDA_VISIBLE_DEVICES=0 AKO_CACHE_DIR=/tmp/ako-cache0 timeout 240 bundle/bin/ako gate --baseline /tmp/baseline-ss.json \
    --update-baseline --threshold 5 --tasks scale_shift --no-progress > $OUT/gate-update-scale_shift.txt 2>&1
  echo "scale_shift gate --update-baseline rc=$? ($(( $(date +%s)-t0 )) s): $(grep -E '^GATE|refusing|updated' $OUT/gate-update-scale_shift.txt | cut -c1-300)" > $OUT/gate.sum
  cp /tmp/baseline-ss.json $OUT/baseline.json
}
gpu1() {
  local t0=$(date +%s)
  CUDA_VISIBLE_DEVICES=1 AKO_CACHE_DIR=/tmp/ako-cache1 AKO_BIN=$PWD/bundle/bin/ako AKO_ROOT=$PWD timeout 400 \
    bundle/bin/ako_gpu_tests --gtest_filter='ScaleShift.*' > $OUT/gpu-tests.txt 2>&1
  echo "ScaleShift.* rc=$? ($(( $(date +%s)-t0 )) s): $(grep -E '^\[  (PASSED|FAILED) ' $OUT/gpu-tests.txt | tr '\n' ' ')" > $OUT/tests.sum
}
gpu0 & gpu1 & wait
{
  echo "== GPU 0"; tail -1 $OUT/g0.txt; cat $OUT/g0/summary.txt 2>/dev/null; cat $OUT/gate.sum
  echo "== GPU 1"; cat $OUT/tests.sum
} >> $S
cp $OUT/g0/config-after.json $OUT/config-after-rope.json 2>/dev/null
mv $OUT/g0.txt $OUT/g0/stdout.txt; tar cJf $OUT/gpu0.tar.xz -C $OUT g0 && rm -rf $OUT/g0
rm -f $OUT/*.sum
cat $S
