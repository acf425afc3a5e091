#!/usr/bin/env bash
# Session 34, call 2 (nvidia-h200, warm after call 1, which brought the CuTe DSL deps parts 1-6; carry
# .sglang-deps/py312-7, py312-8, .sgl-proof-res33b, .sgl-proof-nss33b, peers, bundle-x). The two proof payloads are
# session 33's (scripts/sglang-port-check.sh of each norm fusion, then --prepare), proven in its call 9; neither
# fusion's kernel or config changed since. Session 33's prepared-residual-timing.sh, with norm_scale_shift's
# text-512-cfg after it:
# 1. the residual fusion's port timed in SGLang's process against CuTe DSL and torch on every shape, --no-wrapper
#    --engine-timing --timing-only --placements 3 (each timed case's output checked): its issue-14 count, last taken
#    in session 28, before session 33's SURE classes;
# 2. norm_scale_shift's port the same way on text-512-cfg (session 33's SURE classes; last count session 29).
# Back: summary.txt (printed last), res.tar.xz, nss.tar.xz.
set -uo pipefail
OUT=$(realpath "$OUT")
S=$OUT/summary.txt; : > $S
T0=$(date +%s)
scripts/gpu-sglang-deps.sh > $OUT/deps.txt 2>&1; rc=$?; echo "deps rc=$rc: $(tail -1 $OUT/deps.txt)" >> $S
[ $rc -eq 0 ] || { cat $S; exit 1; }
scripts/gpu-unpack-bundle.sh --if-needed > $OUT/unpack.txt 2>&1 || { cat $OUT/unpack.txt; exit 1; }
export AKO_CACHE_DIR=/tmp/ako-cache
time_port() {  # tag task proof timeout [--timing-shapes S]
  local tag=$1 task=$2 proof=$3 limit=$4; shift 4
  local T=$OUT/$tag; mkdir -p $T; local t1=$(date +%s)
  env OUT=$T SGL_PROOF=$PWD/$proof SGL_GPU_CHECK_BUILD=/tmp/sgc-build-$tag TVMFFI_TARGET=/tmp/tvmffi-$tag \
    TVM_FFI_CACHE_DIR=/tmp/tvmffi-cache-$tag timeout $limit scripts/sglang-gpu-check.sh --task $task \
    --no-wrapper --engine-timing --timing-only --placements 3 --deps /tmp/sglang-deps/site "$@" > $T/log.txt 2>&1
  echo "$tag timing rc=$? ($(( $(date +%s) - t1 )) s): $(grep -E 'SGLANG-GPU-CHECK' $T/log.txt | tail -1)" >> $S
  grep -E '^tvm_ffi|copy bandwidth|cases timed' $T/log.txt >> $S
  local f=$T/engine-timing-$task.json
  if [ -f $f ]; then
    python3 scripts/engine_table.py $f > $T/tables.txt 2>&1
    python3 scripts/engine_table.py --markdown --by-shape $f > $T/tables.md 2>&1
    grep -E '^[a-z_]+: NVIDIA|^ako vs|^slower|^under' $T/tables.txt | cut -c1-1500 >> $S
    xz -9 $f
  fi
  xz -9 $T/log.txt
  tar cJf $OUT/$tag.tar.xz -C $OUT $tag && rm -rf $T
}
time_port res residual_gate_norm_scale_shift .sgl-proof-res33b 400
time_port nss norm_scale_shift .sgl-proof-nss33b 150 --timing-shapes text-512-cfg
echo "wall $(( $(date +%s) - T0 )) s" >> $S
cat $S
