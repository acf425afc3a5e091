#!/usr/bin/env bash
# On the GPU machine (carry ["bundle-x", "peers"]): the norm and modulation families (issue 14) in
# one call. Per task: tune on this GPU and write its config file (evolve, bf16 unless TUNE_DTYPES, time-bounded),
# run the task with that config (ako's table: reference, solution, in-run baselines), time torch
# eager and SGLang's own kernel from Python on the same cases (bench/peer_timing.py), and join
# the two into one table (scripts/compare_torch.py). Then the GPU tests of the families.
# Everything lands in $OUT/all.tgz (configs under $OUT/<task>/); $OUT/summary.txt is printed.
#   OUT=out [TASKS="layernorm scale_shift"] [TUNE=1] [BUDGET=30%] [TUNE_TIME=90] [TUNE_DTYPES=bf16] [TUNE_ARGS=...] [PEERS=1]
#     [PEER_ARGS="--deps /tmp/sglang-deps/site"] [GPU_TESTS=1] scripts/gpu-families.sh
# (carry ["bundle-x", "peers"]; peer_timing's CuTe DSL column needs scripts/gpu-sglang-deps.sh first)
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-out}
mkdir -p "$OUT"
B=bundle/bin
scripts/gpu-unpack-bundle.sh --if-needed >&2  # bundle-x carried and no bundle/: unpack it
[ -x $B/ako ] || { echo "gpu-families: no bundle/bin/ako (scripts/make-bundle.sh, carry bundle-x)" >&2; exit 2; }
export AKO_CACHE_DIR=${AKO_CACHE_DIR:-/tmp/ako-cache}
TASKS=${TASKS:-"layernorm scale_shift norm_scale_shift residual_gate_norm_scale_shift"}
S="$OUT/summary.txt"
step() { echo "== $* ($(date -u +%H:%M:%S))" | tee -a "$S"; }

nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv,noheader >> "$S" 2>&1
for t in $TASKS; do
  [ -f "tasks/$t/task.json" ] || { echo "$t: no tasks/$t/task.json, skipped" | tee -a "$S"; continue; }
  D="$OUT/$t"; mkdir -p "$D"
  if [ "${TUNE:-1}" = 1 ]; then
    step "$t: ako tune --strategy evolve --budget ${BUDGET:-30%} --time ${TUNE_TIME:-90} --write-config"
    tune() {
      $B/ako tune task "$t" --strategy evolve --budget "${BUDGET:-30%}" --dtypes "${TUNE_DTYPES:-bf16}" --trials 1 --time "${TUNE_TIME:-90}" \
        --write-config --db "$D/tune.jsonl" --json "$D/tune.json" --no-progress ${TUNE_ARGS:-} "$@" > "$D/tune.txt" 2>&1
    }
    tune; rc=$?
    # A config whose classes depend on axes is tuned one class per shape (ako says so, exit 2).
    if [ $rc = 2 ] && grep -q -- "--classes shape" "$D/tune.txt"; then
      echo "tune: the config's classes depend on axes; again with --classes shape" | tee -a "$S"
      tune --classes shape; rc=$?
    fi
    echo "tune rc $rc" | tee -a "$S"; grep -E "^(wrote|TUNE|STOPPED|ako:)" "$D/tune.txt" | tee -a "$S"
    # (a file name with "=" does not come back from the device tool: copy it under another)
    for f in solution/"$t"/configs/device_name=*.json; do [ -f "$f" ] && cp "$f" "$D/config-$(basename "$f" .json | cut -d= -f2).json"; done
  fi
  step "$t: ako run"
  $B/ako run task "$t" --no-progress --json "$D/run.json" > "$D/run.txt" 2>&1
  echo "run rc $?" | tee -a "$S"; grep -E "^(config|CORRECT|SPEEDUP|BASELINE)" "$D/run.txt" | tee -a "$S"
  if [ "${PEERS:-1}" = 1 ]; then
    step "$t: torch and SGLang from Python (bench/peer_timing.py)"
    # The peers are checked at SGLang's own test tolerance: the eager and Triton chains round in
    # bf16 and cannot meet scale_shift's one-ulp contract (context/sglang_modulation.md).
    PYTHONUNBUFFERED=1 python3 bench/peer_timing.py "$t" --tolerance 5e-2 5e-2 ${PEER_ARGS:-} \
      --json "$D/peers.json" > "$D/peers.txt" 2>&1
    echo "peers rc $?" | tee -a "$S"; tail -3 "$D/peers.txt" | tee -a "$S"
    python3 scripts/compare_torch.py "$D/run.json" "$D/peers.json" > "$D/table.txt" 2>&1
    echo "compare rc $?" | tee -a "$S"
  fi
done

if [ "${GPU_TESTS:-1}" = 1 ]; then
step "GPU tests of the families"
filter=$(for t in $TASKS; do printf '*%s*:' "$(echo "$t" | sed -E 's/(^|_)([a-z])/\U\2/g')"; done)
$B/ako_gpu_tests --gtest_filter="${filter%:}" > "$OUT/gpu-tests.log" 2>&1
echo "GPU tests rc $? ($(grep -E '^\[  (PASSED|FAILED)  \]' "$OUT/gpu-tests.log" | tr '\n' ' '))" | tee -a "$S"
fi

(cd "$OUT" && tar -czf all.tgz --exclude=all.tgz --exclude=summary.txt . )
cat "$S"
