#!/usr/bin/env bash
# Prepared in session 40 for a later session (nvidia-h200). norm_scale_shift against SGLang's CuTe DSL kernel has not
# been counted since sessions 29 (all shapes), 33 (wan13b) and 34 (text-512-cfg), while iterations 36-47 kept new
# classes for Wan's per-frame cases (TOKENS 2, STATS 1, EARLY_MOD 4, the walk, MIN_BLOCKS 10, SURE): the digest's 22
# copy-bar misses (wan13b 16 at 88.5-93.9%) and its other counts are older than the kernels. This counts it as issue
# 15's accounting does, every shape, in SGLang's process at three placements a case, RUNS times, then
# scripts/engine_table.py --runs over every run kept on the machine (/tmp/family-runs/<TASK>/, so a later call's runs
# count with an earlier call's while the machine stays warm).
# The payload .sgl-proof-nss40 is scripts/sglang-port-check.sh --task norm_scale_shift on session 40's tree (the kernel
# and configs unchanged since iteration 47; log: port-check-cpu-nss.txt), then scripts/sglang-gpu-check.sh --prepare,
# then scripts/sglang_prebuild.py (its 16 units built here, packed in the payload's prebuilt/: a fresh machine built
# them in ~180 s of a call). A run of the 158 cases should take ~160 s after that (session 34 call 2: the residual
# fusion's 158 cases timed in 151 s, its build 196 s), so RUNS="1 2" fits one call; where the pack is not used (the
# summary's "prebuilt:" line says why), run RUNS=1 and then RUNS=2 in a second call.
# The same for the residual fusion over every shape (session 40 call 3 counted only the shapes of its behind cases):
# TASK=residual_gate_norm_scale_shift PROOF=.sgl-proof-res39 (session 39's payload of the same kernels, its pack made
# here in session 40 too), carry .sgl-proof-res39 and peers, in the call after.
# The CuTe DSL deps (.sglang-deps/py312-1..5) ride along with the calls before, each started within 30 s of the last:
#   carry .sglang-deps/py312-5, .sgl-proof-nss40, peers:   OUT=$OUT RUNS="1 2" bash gpu-s41-family-runs.sh
# (TASK / PROOF default to norm_scale_shift / .sgl-proof-nss40; RUN_TIMEOUT, default 270 s, bounds each run.)
# Back: summary.txt (printed last), <TASK>-runs.tar.xz (each run's log, engine-timing JSON and tables).
set -uo pipefail
OUT=$(realpath "$OUT")
S=$OUT/summary.txt; : > "$S"
T0=$(date +%s)
nvidia-smi --query-gpu=name,uuid,driver_version --format=csv,noheader >> "$S"
scripts/gpu-sglang-deps.sh > "$OUT/deps.txt" 2>&1; rc=$?; echo "deps rc=$rc: $(tail -1 "$OUT/deps.txt")" >> "$S"
[ $rc -eq 0 ] || { cat "$S"; exit 1; }
task=${TASK:-norm_scale_shift}
proof=${PROOF:-.sgl-proof-nss40}
[ -f "$proof/MANIFEST" ] || { echo "no payload $proof (carry it)" >> "$S"; cat "$S"; exit 2; }
K=/tmp/family-runs/$task
W=$OUT/$task-runs; mkdir -p "$W"
for run in ${RUNS:-1}; do
  T=$W/run$run; mkdir -p "$T"; t=$(date +%s)
  env OUT="$T" SGL_PROOF=$PWD/$proof SGL_GPU_CHECK_BUILD=/tmp/sgc-build-$task TVMFFI_TARGET=/tmp/tvmffi-$task \
    TVM_FFI_CACHE_DIR=/tmp/tvmffi-cache-$task timeout "${RUN_TIMEOUT:-270}" scripts/sglang-gpu-check.sh --task $task \
    --no-wrapper --engine-timing --timing-only --placements 3 --deps /tmp/sglang-deps/site > "$T/log.txt" 2>&1
  echo "run $run rc=$? ($(( $(date +%s) - t )) s, $(date -u +%H:%M) UTC): $(grep -E 'SGLANG-GPU-CHECK' "$T/log.txt" | tail -1)" >> "$S"
  grep -m1 -E '^prebuilt:' "$T/log.txt" >> "$S"; grep -m1 -E 'units built in' "$T/log.txt" >> "$S"
  f=$T/engine-timing-$task.json
  if [ -f "$f" ]; then
    mkdir -p "$K" && cp "$f" "$K/run$run.json"
    python3 scripts/engine_table.py "$f" > "$T/tables.txt" 2>&1
    grep -E '^[a-z_]+: NVIDIA|^ako vs|^slower|^under' "$T/tables.txt" | cut -c1-600 >> "$S"
  fi
done
runs=$(ls "$K"/run*.json 2>/dev/null)
if [ "$(echo "$runs" | grep -c .)" -gt 1 ]; then
  python3 scripts/engine_table.py --runs $runs > "$W/runs.txt" 2>&1 && { echo "== across runs"; cut -c1-400 "$W/runs.txt"; } >> "$S"
fi
for g in "$W"/*/engine-timing-*.json "$W"/*/log.txt; do [ -f "$g" ] && xz -9 "$g"; done
tar cJf "$OUT/$task-runs.tar.xz" -C "$OUT" "$task-runs" && rm -rf "$W"
echo "wall $(( $(date +%s) - T0 )) s" >> "$S"
cat "$S"
