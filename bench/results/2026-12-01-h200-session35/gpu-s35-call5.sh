#!/usr/bin/env bash
# Session 35, call 5 (nvidia-h200; carry peers, .sgl-proof-ss35). Call 4's timing again with SGLang's Triton column:
# call 4 did not carry peers/ (SGLang 0.5.23's Python sources, where the Triton kernel is read from), so its
# sglang_triton column was unavailable. scale_shift's port against Triton and torch in SGLang's process, every case
# at five placements (--placements 5, the median round), as session 28's call 4.
# Back: summary.txt (printed last), ss-timing.tar.xz.
set -uo pipefail
OUT=$(realpath "$OUT")
S=$OUT/summary.txt; : > $S
T0=$(date +%s)
T=$OUT/ss; mkdir -p $T
env OUT=$T SGL_PROOF=$PWD/.sgl-proof-ss35 SGL_GPU_CHECK_BUILD=/tmp/sgc-build-sst TVMFFI_TARGET=/tmp/tvmffi-s35-sst \
  TVM_FFI_CACHE_DIR=/tmp/tvmffi-cache-s35-sst timeout 500 scripts/sglang-gpu-check.sh \
  --task scale_shift --no-wrapper --engine-timing --timing-only --placements 5 > $T/log.txt 2>&1
echo "scale_shift timing rc=$? ($(( $(date +%s) - T0 )) s): $(grep -E 'SGLANG-GPU-CHECK' $T/log.txt | tail -1)" >> $S
grep -E 'copy bandwidth|cases timed' $T/log.txt >> $S
f=$T/engine-timing-scale_shift.json
if [ -f $f ]; then
  python3 scripts/engine_table.py $f > $T/tables-scale_shift.txt 2>&1
  python3 scripts/engine_table.py --markdown --by-shape $f > $T/tables-scale_shift.md 2>&1
  grep -E '^[a-z_]+: NVIDIA|^ako vs|^slower|^under' $T/tables-scale_shift.txt | cut -c1-1500 >> $S
  xz -9 $f
fi
xz -9 $T/log.txt
tar cJf $OUT/ss-timing.tar.xz -C $OUT ss && rm -rf $T
echo "wall $(( $(date +%s) - T0 )) s" >> $S
cat $S
