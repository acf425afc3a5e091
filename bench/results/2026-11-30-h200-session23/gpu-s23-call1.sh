#!/usr/bin/env bash
# Session 23, call 1 (nvidia-h200-x2; carry bundle-x). qknorm_rope's cp.async ring (ASYNC,
# ITERATIONS.md qknorm_rope iteration 4) and the residual fusion's pinned fp32 per-frame class.
# GPU 0: qknorm_rope on the five D = 128 model shapes, bf16, the config (A) against ASYNC by
#   --param (B: ASYNC 1 at 40 registers, C: ASYNC 2 at 48, D: ASYNC 3 at 48, E: ASYNC 1 at 48),
#   A B C D E E D C B A; each run also times a copy of each case's own bytes (--size-copy).
#   Then `RunQknormRope.*` (the ASYNC forms among them).
# GPU 1: scripts/gpu-tune-abba.sh on the same shapes (ASYNC in the space), in a copy of the tree
#   (the tune writes the config the GPU 0 runs read); then the residual fusion's H200 gate entry
#   removed and rewritten in this tree (`ako gate --update-baseline --threshold 5`).
set -uo pipefail
export AKO_CACHE_DIR=/tmp/ako-cache
B=/tmp/bx; rm -rf $B; mkdir -p $B/bin && cp -r bundle-x/lib $B/
for b in ako ako-worker ako_gpu_tests; do xz -dc bundle-x/$b.xz > $B/bin/$b && chmod +x $B/bin/$b; done
export LD_LIBRARY_PATH=$B/lib:${LD_LIBRARY_PATH:-}
S=$OUT/summary.txt; : > $S
nvidia-smi --query-gpu=index,name,driver_version,uuid --format=csv > $OUT/smi.txt 2>&1
SHAPES=flux1,flux2,zimage,qwen-image,hunyuan-720p

gpu1() {
  rm -rf /tmp/w1 && mkdir /tmp/w1 && tar c --exclude=./.git --exclude='./bundle*' --exclude=./.sgl-proof . | tar x -C /tmp/w1
  mkdir -p /tmp/w1/bundle && cp -r $B/bin $B/lib /tmp/w1/bundle/
  local t0=$(date +%s)
  (cd /tmp/w1 && CUDA_VISIBLE_DEVICES=1 TUNE_TIME=180 OUT=$OUT/tune bash scripts/gpu-tune-abba.sh qknorm_rope $SHAPES \
     --dtypes bf16 > $OUT/tune-stdout.txt 2>&1)
  echo "GPU 1 tune-abba rc=$? ($(( $(date +%s)-t0 )) s)" > $OUT/gpu1.txt
  cat $OUT/tune/summary.txt >> $OUT/gpu1.txt 2>/dev/null
  python3 - <<'PY'
import json
p = "bench/baseline.json"; b = json.load(open(p))
b["devices"]["NVIDIA H200"]["tasks"].pop("residual_gate_norm_scale_shift")
open(p, "w").write(json.dumps(b, indent=2) + "\n")
PY
  t0=$(date +%s)
  CUDA_VISIBLE_DEVICES=1 timeout 300 $B/bin/ako gate --baseline bench/baseline.json --update-baseline --threshold 5 \
    --tasks residual_gate_norm_scale_shift --no-progress > $OUT/gate-update.txt 2>&1
  echo "residual gate --update-baseline rc=$? ($(( $(date +%s)-t0 )) s): $(grep -E '^GATE|refusing|updated' $OUT/gate-update.txt | cut -c1-300)" >> $OUT/gpu1.txt
  cp bench/baseline.json $OUT/baseline.json
}
gpu1 &

R=$OUT/ab; mkdir -p $R
run() {  # tag params...
  local tag=$1; shift
  CUDA_VISIBLE_DEVICES=0 timeout 200 $B/bin/ako run task qknorm_rope --shapes $SHAPES --dtypes bf16 --no-progress --size-copy \
    --json $R/$tag.json "$@" > $R/$tag.txt 2>&1
  echo "$tag rc=$?: $(grep -E '^CORRECT|^RUNTIME' $R/$tag.txt | tr '\n' ' ')" >> $S
}
V_B="--param ASYNC=1 --param PIPE=0 --param REGS=40"
V_C="--param ASYNC=2 --param PIPE=0 --param REGS=48"
V_D="--param ASYNC=3 --param PIPE=0 --param REGS=48"
V_E="--param ASYNC=1 --param PIPE=0 --param REGS=48"
run A1; run B1 $V_B; run C1 $V_C; run D1 $V_D; run E1 $V_E
run E2 $V_E; run D2 $V_D; run C2 $V_C; run B2 $V_B; run A2
for v in B C D E; do
  echo "== $v / A" >> $S
  python3 scripts/abba_cases.py $R/A1.json $R/${v}1.json $R/${v}2.json $R/A2.json > $R/cases-$v.txt 2>&1
  grep -v "^B / A\|^noise" $R/cases-$v.txt | cut -c1-150 >> $S; grep "^B / A" $R/cases-$v.txt | cut -c1-120 >> $S
done
grep "^noise" $R/cases-B.txt | cut -c1-120 >> $S
CUDA_VISIBLE_DEVICES=0 AKO_BIN=$B/bin/ako AKO_ROOT=$PWD timeout 240 $B/bin/ako_gpu_tests --gtest_filter='RunQknormRope.*' \
  > $OUT/tests-qknorm_rope.txt 2>&1
echo "RunQknormRope.* rc=$?: $(grep -E '^\[  (PASSED|FAILED) ' $OUT/tests-qknorm_rope.txt | tr '\n' ' ')" >> $S
wait
echo "== GPU 1" >> $S; cat $OUT/gpu1.txt >> $S
tar cJf $OUT/ab.tar.xz -C $OUT ab && rm -rf $R
cat $S
