#!/usr/bin/env bash
# Session 20 (carry .sglang-deps/py312-5, .sgl-proof, peers, bundle/bin/ako, bundle/bin/ako-worker,
# bundle/lib; after calls carrying the CuTe DSL packages' parts 1-4, each running
# scripts/gpu-sglang-deps.sh): ITERATIONS.md norm_scale_shift iteration 17.
#  engine (GPU 1 where there are two, else first): both norm fusions as `ako port` wrote them into
#         SGLang 0.5.23 (.sgl-proof), every case checked through SGLang's JIT and tvm-ffi, then timed
#         in one process against SGLang's CuTe DSL kernels and torch (session 13's gpu-s13-call3.sh)
#  ako    (GPU 0): the configs against before/*.json (HEAD's), A B B A: norm_scale_shift wan13b,
#         the residual fusion's text-512-cfg fp16 cases; then `ako gate --update-baseline
#         --threshold 5` for both tasks (bench/baseline.json comes back)
# Everything under $OUT (engine/, ako.tar.xz); summary.txt printed last.
set -uo pipefail
export AKO_CACHE_DIR=/tmp/ako-cache
A=bundle/bin/ako
H=bench/results/2026-11-30-h200-session20
R=$OUT/ako; mkdir -p $R; S=$OUT/summary.txt; : > $S
date -u +%FT%TZ > $R/start.txt
nvidia-smi --query-gpu=index,name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv > $R/smi.txt
NGPU=$(nvidia-smi -L | wc -l)
RES=residual_gate_norm_scale_shift NSS=norm_scale_shift
for t in $RES $NSS; do cp $H/before/$t.json "solution/$t/configs/device_name=BEFORE.json"; done
trap 'rm -f solution/*/configs/device_name=BEFORE.json' EXIT
run() {  # tag task shapes device [args]
  local tag=$1 task=$2 shapes=$3 dev=$4; shift 4
  CUDA_VISIBLE_DEVICES=0 timeout 200 $A run task $task --shapes $shapes --device "$dev" --no-progress --json $R/$tag.json "$@" \
    > $R/$tag.txt 2>&1
  echo "$tag rc=$?: $(grep -E '^CORRECT|^RUNTIME' $R/$tag.txt | tr '\n' ' ')" >> $R/runs.txt
}
abba() {  # name task shapes [args]
  local n=$1 task=$2 shapes=$3; shift 3
  run $n-A1 $task $shapes BEFORE "$@"; run $n-B1 $task $shapes "NVIDIA H200" "$@"
  run $n-B2 $task $shapes "NVIDIA H200" "$@"; run $n-A2 $task $shapes BEFORE "$@"
  python3 scripts/abba_cases.py $R/$n-{A1,B1,B2,A2}.json > $R/$n-cases.txt 2>&1
}
engine() {
  OUT=$OUT/engine TASKS="$NSS $RES" LIMIT=${LIMIT:-400} bash bench/results/2026-11-29-h200-session13/gpu-s13-call3.sh \
    > $OUT/engine.out 2>&1
}
ako_side() {
  abba nss $NSS wan13b-480p
  abba res $RES text-512-cfg --dtypes fp16
  t1=$(date +%s)
  CUDA_VISIBLE_DEVICES=0 timeout 240 $A gate --baseline bench/baseline.json --update-baseline --threshold 5 \
    --tasks $NSS,$RES --no-progress > $R/gate-update.txt 2>&1
  echo "gate --update-baseline rc=$? ($(( $(date +%s)-t1 )) s): $(grep -E '^GATE' $R/gate-update.txt | cut -c1-300)" >> $R/runs.txt
  cp bench/baseline.json $OUT/baseline.json
}
if [ "$NGPU" -ge 2 ]; then
  ( export CUDA_VISIBLE_DEVICES=1; engine ) &
  ako_side
  wait
else
  engine
  ako_side
fi
date -u +%FT%TZ > $R/end.txt
echo "== ako run / gate (GPU 0)" >> $S; cat $R/runs.txt >> $S
for n in nss res; do echo "== $n: after / before" >> $S; tail -2 $R/$n-cases.txt >> $S
  grep -E "norm=rms.*bf1c.*same|bf1c.*same.*norm=rms|layout=lc" $R/$n-cases.txt | grep -E "bf1c|fp16" >> $S; done
grep -E "FAIL" $R/gate-update.txt | head -20 >> $S
echo "== port and engine timing" >> $S; cat $OUT/engine.out >> $S
tar cJf $OUT/ako.tar.xz -C $OUT ako && rm -rf $R
cat $S
