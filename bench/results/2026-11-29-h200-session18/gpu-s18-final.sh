#!/usr/bin/env bash
# Session 18 (nvidia-h200-x2; carry .sglang-deps/py312-5, .sgl-proof, peers, bundle/bin/ako,
# bundle/bin/ako-worker, bundle/lib; after calls carrying the CuTe DSL packages' parts 1-4), the
# kernel as committed after call 7 (EARLY_MOD 0 and 1 compile as before EARLY_MOD 2 came):
#  GPU 0: the new H200 classes against before/*.json, A B B A (as gpu-s18-configs.sh), residual
#         fusion (wan13b, wan14b) then norm_scale_shift (wan13b); then `ako gate
#         --update-baseline --threshold 5` for both tasks (bench/baseline.json comes back); then
#         rope's ltx-video fp16 tuned over its whole space (exhaustive) and A B B A -> rope/;
#         layernorm's affine text-512 cases tuned as a class of their own, A B B A -> layernorm/
#  GPU 1: both tasks as `ako port` wrote them into SGLang 0.5.23 (.sgl-proof), every case checked
#         through SGLang's JIT and tvm-ffi, then timed in one process against SGLang's CuTe DSL
#         kernels and torch (session 13's gpu-s13-call3.sh) -> engine/; then scale_shift's
#         per-token text-512 cases (lc, blc) tuned as a class of their own, A B B A -> scale_shift/
set -uo pipefail
export AKO_CACHE_DIR=/tmp/ako-cache
A=bundle/bin/ako
H=bench/results/2026-11-29-h200-session18
R=$OUT/final; mkdir -p $R; S=$OUT/summary.txt; : > $S
date -u +%FT%TZ > $R/start.txt
nvidia-smi --query-gpu=index,name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv > $R/smi.txt
RES=residual_gate_norm_scale_shift NSS=norm_scale_shift
for t in $RES $NSS; do cp $H/before/$t.json "solution/$t/configs/device_name=BEFORE.json"; done
trap 'rm -f solution/*/configs/device_name=BEFORE.json' EXIT
run() {  # gpu tag task shapes device
  CUDA_VISIBLE_DEVICES=$1 timeout 200 $A run task $3 --shapes $4 --device "$5" --no-progress --json $R/$2.json > $R/$2.txt 2>&1
  echo "$2 rc=$?: $(grep -E '^CORRECT|^RUNTIME' $R/$2.txt | tr '\n' ' ')" >> $R/runs-gpu$1.txt
}
abba() {  # gpu task shapes name
  run $1 $4-A1 $2 $3 BEFORE; run $1 $4-B1 $2 $3 "NVIDIA H200"; run $1 $4-B2 $2 $3 "NVIDIA H200"; run $1 $4-A2 $2 $3 BEFORE
  python3 scripts/abba_cases.py $R/$4-{A1,B1,B2,A2}.json > $R/$4-cases.txt 2>&1
}
( abba 0 $RES wan13b-480p,wan14b-480p res
  abba 0 $NSS wan13b-480p nss
  t1=$(date +%s)
  CUDA_VISIBLE_DEVICES=0 timeout 200 $A gate --baseline bench/baseline.json --update-baseline --threshold 5 \
    --tasks $NSS,$RES --no-progress > $R/gate-update.txt 2>&1
  echo "gate --update-baseline rc=$? ($(( $(date +%s)-t1 )) s): $(grep -E '^GATE' $R/gate-update.txt | cut -c1-300)" >> $R/runs-gpu0.txt
  cp bench/baseline.json $OUT/baseline.json
  # rope iteration 2's next step: the whole space for ltx-video fp16 (210 points).
  CUDA_VISIBLE_DEVICES=0 STRATEGY=exhaustive BUDGET=100% TUNE_TIME=90 OUT=$R/rope timeout 200 \
    scripts/gpu-tune-abba.sh rope ltx-video --where "dtype == 'fp16'" > $R/rope.out 2>&1
  # layernorm's affine text-512 cases (behind SGLang's Triton kernel: 0.919x / 0.949x) in a class of their own.
  CUDA_VISIBLE_DEVICES=0 TUNE_TIME=120 OUT=$R/layernorm timeout 280 \
    scripts/gpu-tune-abba.sh layernorm text-512 --where "affine" > $R/layernorm.out 2>&1 ) &
( export CUDA_VISIBLE_DEVICES=1
  OUT=$R/engine TASKS="$NSS $RES" LIMIT=${LIMIT:-400} bash bench/results/2026-11-29-h200-session13/gpu-s13-call3.sh \
    > $R/engine.out 2>&1
  # scale_shift's per-token text-512 cases (behind SGLang's Triton kernel: 0.936-0.948x) in a class of their own.
  TUNE_TIME=120 OUT=$R/scale_shift timeout 280 \
    scripts/gpu-tune-abba.sh scale_shift text-512 --where "layout == 'lc' || layout == 'blc'" > $R/scale_shift.out 2>&1 ) &
wait
date -u +%FT%TZ > $R/end.txt
for f in $R/runs-gpu*.txt; do cat $f >> $S; done
for f in $R/*-cases.txt; do echo "== $(basename $f)" >> $S; tail -1 $f >> $S; grep -E "same|wan14b" $f >> $S; done
echo "== GPU 0: rope exhaustive" >> $S; cat $R/rope.out >> $S
echo "== GPU 0: layernorm text-512 affine" >> $S; cat $R/layernorm.out >> $S
echo "== GPU 1: port and engine timing" >> $S; cat $R/engine.out >> $S
echo "== GPU 1: scale_shift text-512 per-token" >> $S; cat $R/scale_shift.out >> $S
grep -E "FAIL" $R/gate-update.txt | head -20 >> $S
tar cJf $OUT/final.tar.xz -C $OUT final && rm -rf $R
cat $S
