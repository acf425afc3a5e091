#!/usr/bin/env bash
# Session 27, the last call (nvidia-h200-x2; carry .sglang-deps/py312-7 .. py312-9, .sgl-proof,
# .sgl-proof-ss, .sgl-proof-rope, peers and bundle-x; the deps call before it, on the same warm
# machine, carried parts 1-6).
# .sgl-proof: scripts/sglang-port-check.sh --task residual_gate_norm_scale_shift on commit 19b63f3's
# tree (zimage's fp16 RMSNorm class at MIN_BLOCKS 8, ITERATIONS.md norm_scale_shift iteration 29), then
# scripts/sglang-gpu-check.sh --prepare; .sgl-proof-ss: the same for scale_shift on commit 36bea54's
# (its lc classes, scale_shift iteration 7); .sgl-proof-rope: the same for rope on commit
# ba32742's (partial-r64's interleaved class, rope iteration 5).
#  GPU 0: the three ports through SGLang 0.5.23's JIT and tvm-ffi: every case against float64, the
#         bad-input, stream and wrapper checks; then `ako run task rope --size-copy` with FlashInfer's
#         columns (scripts/engine_table.py) and rope's H200 gate entry rewritten (baseline.json);
#         then the residual fusion's text-512-cfg with a token order in which a thread's two tokens are one position of both cfg batches (variants/*torder*, in a copy of
#         the workspace: ITERATIONS.md norm_scale_shift iteration 31): A B B A, A the committed kernel and
#         config, B the variant at TOKENS 2, TORDER 1; then A C C A, C the committed kernel at TOKENS 2.
#  GPU 1: the residual fusion's port timed in one process against SGLang's CuTe DSL kernel and
#         torch eager (--engine-timing: interleaved, CUPTI, cold L2), then scale_shift's against
#         SGLang's Triton kernel; tables by scripts/engine_table.py.
# Back (the device returns 8 files at most): summary.txt, baseline.json, timing.tar.xz (tables-*.txt,
# tables-*.md, engine-timing-*.json.xz), rope.tar.xz (rope.json.xz, rope-table.txt, rope-engine-table.txt),
# torder.tar.xz, logs.tar.xz.
set -uo pipefail
OUT=$(realpath "$OUT")
L=$OUT/logs; mkdir -p $L; S=$OUT/summary.txt; : > $S
T0=$(date +%s)  # the call's limit is 600 s: the experiment on GPU 0 runs only while there is time
date -u +%FT%TZ > $L/start.txt
nvidia-smi --query-gpu=index,name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv > $L/smi.txt
scripts/gpu-sglang-deps.sh > $L/deps.txt 2>&1; rc=$?; echo "deps rc=$rc: $(tail -1 $L/deps.txt)" >> $S
DEPS=""; [ $rc -eq 0 ] && DEPS="--deps /tmp/sglang-deps/site"
half() {  # GPU, log name, args...
  local g=$1 name=$2; shift 2
  local t1=$(date +%s)
  CUDA_VISIBLE_DEVICES=$g OUT=$L/$name SGL_PROOF=${SGL_PROOF:-$PWD/.sgl-proof} SGL_GPU_CHECK_BUILD=/tmp/sgc-build-$name TVMFFI_TARGET=/tmp/tvmffi-s27-$name \
    TVM_FFI_CACHE_DIR=/tmp/tvmffi-cache-s27-$name timeout ${HT:-500} scripts/sglang-gpu-check.sh "$@" > $L/$name.txt 2>&1
  echo "$name rc=$? $(( $(date +%s) - t1 ))s: $(grep -E 'SGLANG-GPU-CHECK' $L/$name.txt | tail -1)" >> $L/gpu$g.txt
  grep -E '^all [0-9]+ cases|^tvm_ffi|copy bandwidth|cases timed' $L/$name.txt >> $L/gpu$g.txt
}
port() {
  half 0 port --task residual_gate_norm_scale_shift
  SGL_PROOF=$PWD/.sgl-proof-ss half 0 port-ss --task scale_shift
  SGL_PROOF=$PWD/.sgl-proof-rope half 0 port-rope --task rope
  local t0=$(date +%s); mkdir -p $OUT/rope
  scripts/gpu-unpack-bundle.sh > $L/unpack.txt 2>&1
  CUDA_VISIBLE_DEVICES=0 AKO_CACHE_DIR=/tmp/ako-cache0 timeout 200 bundle/bin/ako run task rope --size-copy --no-progress \
    --json $OUT/rope/rope.json > $OUT/rope/rope-table.txt 2>&1
  echo "rope run rc=$? ($(( $(date +%s)-t0 )) s): $(grep -E '^CORRECT' $OUT/rope/rope-table.txt)" >> $L/gpu0.txt
  python3 scripts/engine_table.py $OUT/rope/rope.json > $OUT/rope/rope-engine-table.txt 2>&1
  grep -E '^ako vs|^slower|^under' $OUT/rope/rope-engine-table.txt | cut -c1-1500 >> $L/gpu0.txt
  xz -9 $OUT/rope/rope.json; tar cJf $OUT/rope.tar.xz -C $OUT rope && rm -rf $OUT/rope
  rope_gate
  torder
}
rope_gate() {  # rope's H200 gate entry removed and rewritten with the partial-r64 interleaved class
  python3 - <<'PY'
import json
p = "bench/baseline.json"; b = json.load(open(p))
b["devices"]["NVIDIA H200"]["tasks"].pop("rope")
open("/tmp/baseline-rope.json", "w").write(json.dumps(b, indent=2) + "\n")
PY
  local t0=$(date +%s)
  CUDA_VISIBLE_DEVICES=0 AKO_CACHE_DIR=/tmp/ako-cache0 timeout 120 bundle/bin/ako gate --baseline /tmp/baseline-rope.json \
    --update-baseline --threshold 5 --tasks rope --no-progress > $L/gate-update-rope.txt 2>&1
  echo "rope gate --update-baseline rc=$? ($(( $(date +%s)-t0 )) s): $(grep -E '^GATE|refusing|updated' $L/gate-update-rope.txt | cut -c1-300)" >> $L/gpu0.txt
  cp /tmp/baseline-rope.json $OUT/baseline.json
}
torder() {  # the token-order experiment on GPU 0 (ITERATIONS.md norm_scale_shift iteration 31)
  local V=bench/results/2026-11-30-h200-session27/variants W=/tmp/ws-torder T=$OUT/torder
  [ $(( $(date +%s) - T0 )) -lt 380 ] || { echo "torder skipped: $(( $(date +%s) - T0 )) s into the call" >> $L/gpu0.txt; return; }
  mkdir -p $T; rm -rf $W; mkdir -p $W; cp -r tasks input solution engines $W/
  cp $V/norm_scale_shift-torder.cuh $W/solution/norm_scale_shift/norm_scale_shift.cuh
  cp $V/residual_gate_norm_scale_shift-task-torder.json $W/tasks/residual_gate_norm_scale_shift/task.json
  r() {  # tag, args...
    local tag=$1; shift
    [ $(( $(date +%s) - T0 )) -lt 510 ] || { echo "torder $tag skipped: $(( $(date +%s) - T0 )) s into the call" >> $L/gpu0.txt; return; }
    CUDA_VISIBLE_DEVICES=0 AKO_CACHE_DIR=/tmp/ako-cache0 timeout 120 bundle/bin/ako run task residual_gate_norm_scale_shift \
      --shapes text-512-cfg --no-progress --json $T/$tag.json "$@" > $T/$tag.txt 2>&1
    echo "torder $tag rc=$?: $(grep -E '^CORRECT|^RUNTIME' $T/$tag.txt | tr '\n' ' ')" >> $L/gpu0.txt
  }
  r A1; r B1 --root $W --param TOKENS=2 --param TORDER=1; r B2 --root $W --param TOKENS=2 --param TORDER=1; r A2
  r C1 --param TOKENS=2; r C2 --param TOKENS=2; r A3
  for p in "B A1 B1 B2 A2" "C A2 C1 C2 A3"; do set -- $p
    echo "== $1 / committed, text-512-cfg lc" >> $L/gpu0.txt
    python3 scripts/abba_cases.py $T/$2.json $T/$3.json $T/$4.json $T/$5.json --label "$1 / committed" \
      | grep -E "layout=lc|geomean" >> $L/gpu0.txt 2>&1
  done
  tar cJf $OUT/torder.tar.xz -C $OUT torder && rm -rf $T
}
timing() {
  HT=420 half 1 timing --task residual_gate_norm_scale_shift --no-wrapper --engine-timing $DEPS
  HT=140 SGL_PROOF=$PWD/.sgl-proof-ss half 1 timing-ss --task scale_shift --no-wrapper --engine-timing $DEPS
}
port & timing & wait
date -u +%FT%TZ > $L/end.txt
echo "== GPU 0" >> $S; cat $L/gpu0.txt >> $S; echo "== GPU 1" >> $S; cat $L/gpu1.txt >> $S
mkdir -p $OUT/timing
for f in $L/timing/engine-timing-*.json $L/timing-ss/engine-timing-*.json; do
  [ -f "$f" ] || continue
  t=$(basename $f .json); t=${t#engine-timing-}
  python3 scripts/engine_table.py $f > $OUT/timing/tables-$t.txt 2>&1
  python3 scripts/engine_table.py --markdown --by-shape $f > $OUT/timing/tables-$t.md 2>&1
  grep -E '^[a-z_]+: NVIDIA|^ako vs|^slower|^under' $OUT/timing/tables-$t.txt | cut -c1-700 >> $S
  xz -9 $f; mv $f.xz $OUT/timing/
done
tar cJf $OUT/timing.tar.xz -C $OUT timing && rm -rf $OUT/timing
tar cJf $OUT/logs.tar.xz -C $OUT logs && rm -rf $L
cat $S
