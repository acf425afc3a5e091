#!/usr/bin/env bash
# Prepared in session 39 for a later call (nvidia-h200, warm after the calls that brought the CuTe DSL deps' other
# parts; carry the last .sglang-deps part, .sgl-proof-res39, peers). The residual fusion's "behind" count (11 in
# session 34 call 2's one run: flux1-single fp16 no-affine LayerNorm 0.968x, ten at 0.989-1.000x, most of them wan13b)
# counted as issue 15's accounting and session 39's call 2 counted layernorm and scale_shift: RUNS runs (default 2) of
# the port against SGLang's CuTe DSL kernel and torch in SGLang's process, on the shapes those cases are on, every case
# at three placements (as session 34), then scripts/engine_table.py --runs: which misses repeat. The payload
# .sgl-proof-res39 is scripts/sglang-port-check.sh --task residual_gate_norm_scale_shift on session 39's tree (the
# fusion's kernel and config unchanged since session 33), then --prepare.
# The deps (scripts/fetch-sglang-deps.sh, made in session 39: .sglang-deps/py312-1..4 of 16 MiB, py312-5 of 1.6) ride
# along with the calls before, each started within 30 s of the last so /tmp survives: e.g. the suite call carrying
# py312-1 (`scripts/gpu-sglang-deps.sh; OUT=$OUT scripts/gpu-tests.sh`), gpu-s40-ln-l1.sh's call carrying py312-2 and
# py312-3 (the same prefix), then this one carrying py312-4, py312-5, .sgl-proof-res39 and peers.
#   OUT=DIR [RUNS=2] [SHAPES=flux1-single,flux2-single,wan13b-480p] bash gpu-s40-res-runs.sh
# Back: summary.txt (printed last), res-runs.tar.xz.
set -uo pipefail
OUT=$(realpath "$OUT")
S=$OUT/summary.txt; : > "$S"
T0=$(date +%s)
nvidia-smi --query-gpu=name,uuid,driver_version --format=csv,noheader >> "$S"
scripts/gpu-sglang-deps.sh > "$OUT/deps.txt" 2>&1; rc=$?; echo "deps rc=$rc: $(tail -1 "$OUT/deps.txt")" >> "$S"
[ $rc -eq 0 ] || { cat "$S"; exit 1; }
W=$OUT/res-runs; mkdir -p "$W"
task=residual_gate_norm_scale_shift
for run in $(seq 1 "${RUNS:-2}"); do
  T=$W/run$run; mkdir -p "$T"; t=$(date +%s)
  env OUT="$T" SGL_PROOF=$PWD/.sgl-proof-res39 SGL_GPU_CHECK_BUILD=/tmp/sgc-build-res TVMFFI_TARGET=/tmp/tvmffi-res \
    TVM_FFI_CACHE_DIR=/tmp/tvmffi-cache-res timeout 260 scripts/sglang-gpu-check.sh --task $task --no-wrapper \
    --engine-timing --timing-only --placements 3 --deps /tmp/sglang-deps/site \
    --timing-shapes "${SHAPES:-flux1-single,flux2-single,wan13b-480p}" > "$T/log.txt" 2>&1
  echo "run $run rc=$? ($(( $(date +%s) - t )) s, $(date -u +%H:%M) UTC): $(grep -E 'SGLANG-GPU-CHECK' "$T/log.txt" | tail -1)" >> "$S"
  f=$T/engine-timing-$task.json
  [ -f "$f" ] && python3 scripts/engine_table.py "$f" > "$T/tables.txt" 2>&1 &&
    grep -E '^[a-z_]+: NVIDIA|^ako vs|^slower|^under' "$T/tables.txt" | cut -c1-600 >> "$S"
done
runs=$(ls "$W"/run*/engine-timing-$task.json 2>/dev/null)
[ -n "$runs" ] && python3 scripts/engine_table.py --runs $runs > "$W/runs.txt" 2>&1 && { echo "== across runs"; cut -c1-400 "$W/runs.txt"; } >> "$S"
for f in "$W"/*/engine-timing-*.json "$W"/*/log.txt; do [ -f "$f" ] && xz -9 "$f"; done
tar cJf "$OUT/res-runs.tar.xz" -C "$OUT" res-runs && rm -rf "$W"
echo "wall $(( $(date +%s) - T0 )) s" >> "$S"
cat "$S"
