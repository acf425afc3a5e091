#!/usr/bin/env bash
# Prepared in session 33 for a later session's call (not run in session 33: its device time was spent).
# The residual fusion's port of this tree (.sgl-proof-res33b, proven in call 9: `scripts/sglang-port-check.sh --task
# residual_gate_norm_scale_shift` then `--prepare`; rebuild it if the tree's config or kernel changed since) timed in
# SGLang's process against CuTe DSL and torch on every shape, --no-wrapper --engine-timing --timing-only
# --placements 3 (each timed case's output checked): the family's issue-14 count, last taken in session 28.
# The timing builds its module against the deps' tvm-ffi first (about 210 s), then times 158 cases (about 140 s).
# Needs the CuTe DSL deps on the machine: a call before this one, within ~30 s, carrying .sglang-deps/py312-1 ..
# py312-6 and running scripts/gpu-sglang-deps.sh (exit 3); this call carries .sglang-deps/py312-7, py312-8,
# .sgl-proof-res33b, peers and bundle-x. Back: summary.txt (printed last), res.tar.xz.
set -uo pipefail
OUT=$(realpath "$OUT")
S=$OUT/summary.txt; : > $S
T0=$(date +%s)
scripts/gpu-sglang-deps.sh > $OUT/deps.txt 2>&1; rc=$?; echo "deps rc=$rc: $(tail -1 $OUT/deps.txt)" >> $S
[ $rc -eq 0 ] || { cat $S; exit 1; }
scripts/gpu-unpack-bundle.sh --if-needed > $OUT/unpack.txt 2>&1 || { cat $OUT/unpack.txt; exit 1; }
export AKO_CACHE_DIR=/tmp/ako-cache
T=$OUT/res; mkdir -p $T
env OUT=$T SGL_PROOF=$PWD/.sgl-proof-res33b SGL_GPU_CHECK_BUILD=/tmp/sgc-build-rest TVMFFI_TARGET=/tmp/tvmffi-rest \
  TVM_FFI_CACHE_DIR=/tmp/tvmffi-cache-rest timeout 560 scripts/sglang-gpu-check.sh --task residual_gate_norm_scale_shift \
  --no-wrapper --engine-timing --timing-only --placements 3 --deps /tmp/sglang-deps/site > $T/log.txt 2>&1
echo "res timing rc=$? ($(( $(date +%s) - T0 )) s): $(grep -E 'SGLANG-GPU-CHECK' $T/log.txt | tail -1)" >> $S
grep -E '^tvm_ffi|copy bandwidth|cases timed' $T/log.txt >> $S
f=$T/engine-timing-residual_gate_norm_scale_shift.json
if [ -f $f ]; then
  python3 scripts/engine_table.py $f > $T/tables.txt 2>&1
  python3 scripts/engine_table.py --markdown --by-shape $f > $T/tables.md 2>&1
  grep -E '^[a-z_]+: NVIDIA|^ako vs|^slower|^under' $T/tables.txt | cut -c1-1500 >> $S
  xz -9 $f
fi
xz -9 $T/log.txt
tar cJf $OUT/res.tar.xz -C $OUT res && rm -rf $T
cat $S
