#!/usr/bin/env bash
# Session 23, call 3 (nvidia-h200-x2; carry bundle-x, peers). qknorm_rope with iteration 4's classes.
# GPU 0: the H200 gate entry of qknorm_rope removed (ASYNC renamed every kernel) and rewritten,
#   `ako gate --update-baseline --threshold 5`; then the full `ako run task qknorm_rope --size-copy`
#   (every case, SGLang's JIT kernel as a column) and scripts/engine_table.py on it.
# GPU 1: ResidualGateNormScaleShift.EveryCaseIsCorrectAndTheReferenceMeetsItsOracle (the pinned
#   class, iteration 24); then a longer tune of qknorm_rope's zimage and flux1 (`gpu-tune-abba.sh`,
#   200 s, in a copy of the tree: a measurement; its config comes back in gpu1.tar.xz).
# Everything comes back in at most 8 files (the device returns no more): summary.txt,
# baseline.json, gpu0.tar.xz, gpu1.tar.xz.
set -uo pipefail
export AKO_CACHE_DIR=/tmp/ako-cache
B=/tmp/bx; rm -rf $B; mkdir -p $B/bin && cp -r bundle-x/lib $B/
for b in ako ako-worker ako_gpu_tests; do xz -dc bundle-x/$b.xz > $B/bin/$b && chmod +x $B/bin/$b; done
export LD_LIBRARY_PATH=$B/lib:${LD_LIBRARY_PATH:-}
S=$OUT/summary.txt; : > $S
G0=$OUT/gpu0; G1=$OUT/gpu1; mkdir -p $G0 $G1
nvidia-smi --query-gpu=index,name,driver_version,uuid --format=csv > $G0/smi.txt 2>&1

gpu1() {
  CUDA_VISIBLE_DEVICES=1 AKO_BIN=$B/bin/ako AKO_ROOT=$PWD timeout 200 $B/bin/ako_gpu_tests \
    --gtest_filter='ResidualGateNormScaleShift.EveryCaseIsCorrectAndTheReferenceMeetsItsOracle' > $G1/tests-residual.txt 2>&1
  echo "ResidualGateNormScaleShift.EveryCase... rc=$?: $(grep -E '^\[  (PASSED|FAILED) ' $G1/tests-residual.txt | tr '\n' ' ')" > $G1/summary.txt
  rm -rf /tmp/w1 && mkdir /tmp/w1 && tar c --exclude=./.git --exclude='./bundle*' --exclude=./.sgl-proof . | tar x -C /tmp/w1
  mkdir -p /tmp/w1/bundle && cp -r $B/bin $B/lib /tmp/w1/bundle/
  local t0=$(date +%s)
  (cd /tmp/w1 && CUDA_VISIBLE_DEVICES=1 TUNE_TIME=200 OUT=$G1/tune bash scripts/gpu-tune-abba.sh qknorm_rope zimage,flux1 \
     --dtypes bf16 > $G1/tune-stdout.txt 2>&1)
  echo "tune-abba zimage,flux1 rc=$? ($(( $(date +%s)-t0 )) s)" >> $G1/summary.txt
  cat $G1/tune/summary.txt >> $G1/summary.txt 2>/dev/null
}
gpu1 &

python3 - <<'PY'
import json
p = "bench/baseline.json"; b = json.load(open(p))
b["devices"]["NVIDIA H200"]["tasks"].pop("qknorm_rope")
open(p, "w").write(json.dumps(b, indent=2) + "\n")
PY
t0=$(date +%s)
CUDA_VISIBLE_DEVICES=0 timeout 200 $B/bin/ako gate --baseline bench/baseline.json --update-baseline --threshold 5 \
  --tasks qknorm_rope --no-progress > $G0/gate-update.txt 2>&1
echo "qknorm_rope gate --update-baseline rc=$? ($(( $(date +%s)-t0 )) s): $(grep -E '^GATE|refusing|updated' $G0/gate-update.txt | cut -c1-300)" >> $S
cp bench/baseline.json $OUT/baseline.json
CUDA_VISIBLE_DEVICES=0 timeout 300 $B/bin/ako run task qknorm_rope --size-copy --no-progress --json $G0/full.json > $G0/full.txt 2>&1
echo "full run rc=$?: $(grep -E '^CORRECT|^RUNTIME' $G0/full.txt | tr '\n' ' ')" >> $S
python3 scripts/engine_table.py $G0/full.json > $G0/engine-table.txt 2>&1; cat $G0/engine-table.txt >> $S
python3 scripts/engine_table.py --by-shape $G0/full.json > $G0/engine-table-by-shape.txt 2>&1
wait
echo "== GPU 1" >> $S; cat $G1/summary.txt >> $S
cp $S $G0/
tar cJf $OUT/gpu0.tar.xz -C $OUT gpu0 && rm -rf $G0
tar cJf $OUT/gpu1.tar.xz -C $OUT gpu1 && rm -rf $G1
cat $S
