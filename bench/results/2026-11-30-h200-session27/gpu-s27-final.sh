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
#         columns (scripts/engine_table.py).
#  GPU 1: the residual fusion's port timed in one process against SGLang's CuTe DSL kernel and
#         torch eager (--engine-timing: interleaved, CUPTI, cold L2), then scale_shift's against
#         SGLang's Triton kernel; tables by scripts/engine_table.py.
# Back: summary.txt, tables-*.txt, tables-*.md, engine-timing-*.json.xz, rope.json.xz, rope-*.txt, logs.tar.xz.
set -uo pipefail
OUT=$(realpath "$OUT")
L=$OUT/logs; mkdir -p $L; S=$OUT/summary.txt; : > $S
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
  local t0=$(date +%s)
  scripts/gpu-unpack-bundle.sh > $L/unpack.txt 2>&1
  CUDA_VISIBLE_DEVICES=0 AKO_CACHE_DIR=/tmp/ako-cache0 timeout 200 bundle/bin/ako run task rope --size-copy --no-progress \
    --json $OUT/rope.json > $OUT/rope-table.txt 2>&1
  echo "rope run rc=$? ($(( $(date +%s)-t0 )) s): $(grep -E '^CORRECT' $OUT/rope-table.txt)" >> $L/gpu0.txt
  python3 scripts/engine_table.py $OUT/rope.json > $OUT/rope-engine-table.txt 2>&1
  grep -E '^ako vs|^slower|^under' $OUT/rope-engine-table.txt | cut -c1-1500 >> $L/gpu0.txt
  xz -9 $OUT/rope.json
}
timing() {
  HT=420 half 1 timing --task residual_gate_norm_scale_shift --no-wrapper --engine-timing $DEPS
  HT=140 SGL_PROOF=$PWD/.sgl-proof-ss half 1 timing-ss --task scale_shift --no-wrapper --engine-timing $DEPS
}
port & timing & wait
date -u +%FT%TZ > $L/end.txt
echo "== GPU 0" >> $S; cat $L/gpu0.txt >> $S; echo "== GPU 1" >> $S; cat $L/gpu1.txt >> $S
for f in $L/timing/engine-timing-*.json $L/timing-ss/engine-timing-*.json; do
  [ -f "$f" ] || continue
  t=$(basename $f .json); t=${t#engine-timing-}
  python3 scripts/engine_table.py $f > $OUT/tables-$t.txt 2>&1
  python3 scripts/engine_table.py --markdown --by-shape $f > $OUT/tables-$t.md 2>&1
  grep -E '^[a-z_]+: NVIDIA|^ako vs|^slower|^under' $OUT/tables-$t.txt | cut -c1-700 >> $S
  xz -9 $f; mv $f.xz $OUT/
done
tar cJf $OUT/logs.tar.xz -C $OUT logs && rm -rf $L
cat $S
