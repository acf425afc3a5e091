#!/usr/bin/env bash
# Session 26, the last call (nvidia-h200-x2; carry .sgl-proof, .sgl-proof-rope and peers; the nine
# calls before it, on the same warm machine, carried the CuTe DSL deps parts 1-9 and ran
# scripts/gpu-sglang-deps.sh). .sgl-proof: scripts/sglang-port-check.sh --task
# residual_gate_norm_scale_shift --task scale_shift on commit 26cab95's tree (the port's dispatch now
# takes the Wan / Hunyuan classes on their [B, C] and scalar cases, F no longer in their when),
# then scripts/sglang-gpu-check.sh --prepare; .sgl-proof-rope: the same for rope on commit 1507f43's
# (the partial-r64 NeoX class).
#  GPU 0: the three ports through SGLang 0.5.23's JIT and tvm-ffi: every case against float64, the
#         bad-input, stream and wrapper checks.
#  GPU 1: the residual fusion's port timed in one process against SGLang's CuTe DSL kernel and
#         torch eager (--engine-timing: interleaved, CUPTI, cold L2), then scale_shift's against
#         SGLang's Triton kernel; tables by scripts/engine_table.py.
# Back: summary.txt, tables-*.txt, tables-*.md, engine-timing-*.json.xz, logs.tar.xz.
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
  CUDA_VISIBLE_DEVICES=$g OUT=$L/$name SGL_PROOF=${SGL_PROOF:-$PWD/.sgl-proof} SGL_GPU_CHECK_BUILD=/tmp/sgc-build-$name TVMFFI_TARGET=/tmp/tvmffi-s26-$name \
    TVM_FFI_CACHE_DIR=/tmp/tvmffi-cache-s26-$name timeout 500 scripts/sglang-gpu-check.sh "$@" > $L/$name.txt 2>&1
  echo "$name rc=$? $(( $(date +%s) - t1 ))s: $(grep -E 'SGLANG-GPU-CHECK' $L/$name.txt | tail -1)" >> $L/gpu$g.txt
  grep -E '^all [0-9]+ cases|^tvm_ffi|copy bandwidth|cases timed' $L/$name.txt >> $L/gpu$g.txt
}
port() {
  half 0 port --task residual_gate_norm_scale_shift --task scale_shift
  SGL_PROOF=$PWD/.sgl-proof-rope half 0 port-rope --task rope
}
timing() { half 1 timing --task residual_gate_norm_scale_shift --task scale_shift --no-wrapper --engine-timing $DEPS; }
port & timing & wait
date -u +%FT%TZ > $L/end.txt
echo "== GPU 0" >> $S; cat $L/gpu0.txt >> $S; echo "== GPU 1" >> $S; cat $L/gpu1.txt >> $S
for f in $L/timing/engine-timing-*.json; do
  [ -f "$f" ] || continue
  t=$(basename $f .json); t=${t#engine-timing-}
  python3 scripts/engine_table.py $f > $OUT/tables-$t.txt 2>&1
  python3 scripts/engine_table.py --markdown --by-shape $f > $OUT/tables-$t.md 2>&1
  grep -E '^[a-z_]+: NVIDIA|^ako vs|^slower|^under' $OUT/tables-$t.txt | cut -c1-700 >> $S
  xz -9 $f; mv $f.xz $OUT/
done
tar cJf $OUT/logs.tar.xz -C $OUT logs && rm -rf $L
cat $S
