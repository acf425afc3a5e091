#!/usr/bin/env bash
# Session 28, call 1 (nvidia-h200-x2; carry bundle-x, .sgl-proof-ss, peers).
# GPU 0 and 1: the residual fusion's 512-token cases (text-512, text-512-cfg) under 14 launch
#   parameter sets (residual-sweep-sets.txt: every param set a text-512-cfg class of the H200 config
#   holds, and three with plain stores or STATS 1), each set applied to every case by --param,
#   against the committed config: GPU 0 A S1..S7 S7..S1 A, GPU 1 A S8..S14 S14..S8 A
#   (ITERATIONS.md norm_scale_shift iteration 32: which case runs fastest under which params; 19 of the
#   48 bf16 / fp16 twins run different classes, the fp16 ones up to 6.5% slower).
# GPU 0 after: scale_shift's port (.sgl-proof-ss, commit 36bea54's tree) timed against Triton in
#   SGLang's process with --placements 5 (each case in five rounds, every tensor elsewhere each round):
#   is the fp16 lc case's 4% behind its bf16 twin (session 27's final call) where its tensors fell?
# Back: summary.txt, g0.tar.xz, g1.tar.xz, ss-timing.tar.xz.
set -uo pipefail
OUT=$(realpath "$OUT")
S=$OUT/summary.txt; : > $S
T0=$(date +%s)
D=bench/results/2026-12-01-h200-session28
scripts/gpu-unpack-bundle.sh > $OUT/unpack.txt 2>&1 || { cat $OUT/unpack.txt; exit 1; }
nvidia-smi --query-gpu=index,name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv > $OUT/smi.txt
one() {  # gpu tag [params...]
  local g=$1 tag=$2; shift 2
  local args=(); for p in "$@"; do args+=(--param "$p"); done
  CUDA_VISIBLE_DEVICES=$g AKO_CACHE_DIR=/tmp/ako-cache$g timeout 120 bundle/bin/ako run task residual_gate_norm_scale_shift \
    --shapes text-512,text-512-cfg --no-progress "${args[@]}" --json $OUT/g$g/$tag.json > $OUT/g$g/$tag.txt 2>&1
  echo "gpu$g $tag rc=$? $(( $(date +%s) - T0 ))s: $(grep -E '^CORRECT|^RUNTIME' $OUT/g$g/$tag.txt | tr '\n' ' ')" >> $OUT/g$g/rcs.txt
}
set_params() { grep "^$1 " $D/residual-sweep-sets.txt | cut -d' ' -f2-; }
sweep() {  # gpu, set tags...
  local g=$1; shift; mkdir -p $OUT/g$g
  one $g A1
  for s in "$@"; do one $g ${s}a $(set_params $s); done
  local rev=(); for s in "$@"; do rev=("$s" "${rev[@]}"); done
  for s in "${rev[@]}"; do one $g ${s}b $(set_params $s); done
  one $g A2
}
sstiming() {
  local t1=$(date +%s) L=$OUT/ss
  mkdir -p $L
  CUDA_VISIBLE_DEVICES=0 OUT=$L SGL_PROOF=$PWD/.sgl-proof-ss SGL_GPU_CHECK_BUILD=/tmp/sgc-build-ss TVMFFI_TARGET=/tmp/tvmffi-s28-ss \
    TVM_FFI_CACHE_DIR=/tmp/tvmffi-cache-s28-ss timeout $(( 590 - ($(date +%s) - T0) )) scripts/sglang-gpu-check.sh --task scale_shift \
    --engine-timing --placements 5 > $L/log.txt 2>&1
  echo "scale_shift --engine-timing --placements 5 rc=$? $(( $(date +%s) - t1 ))s: $(grep -E 'SGLANG-GPU-CHECK' $L/log.txt | tail -1)" >> $S
  python3 scripts/engine_table.py $L/engine-timing-scale_shift.json > $L/table.txt 2>&1
}
( sweep 0 S1 S2 S3 S4 S5 S6 S7; sstiming ) &
sweep 1 S8 S9 S10 S11 S12 S13 S14 &
wait
{
  for g in 0 1; do echo "== GPU $g"; cat $OUT/g$g/rcs.txt; done
  for s in S1 S2 S3 S4 S5 S6 S7 S8 S9 S10 S11 S12 S13 S14; do
    g=0; [ ${s#S} -ge 8 ] && g=1
    python3 scripts/abba_cases.py $OUT/g$g/A1.json $OUT/g$g/${s}a.json $OUT/g$g/${s}b.json $OUT/g$g/A2.json --label "$s / committed" > $OUT/g$g/abba-$s.txt 2>&1
    grep -E "^$s / committed|^noise" $OUT/g$g/abba-$s.txt
  done
  echo "== scale_shift placements"; grep -E '^ako vs|^slower|^behind' $OUT/ss/table.txt | cut -c1-600
} >> $S 2>&1
for g in 0 1; do tar cJf $OUT/g$g.tar.xz -C $OUT g$g && rm -rf $OUT/g$g; done
[ -d $OUT/ss ] && { xz -9 $OUT/ss/engine-timing-scale_shift.json 2>/dev/null; tar cJf $OUT/ss-timing.tar.xz -C $OUT ss && rm -rf $OUT/ss; }
cat $S
