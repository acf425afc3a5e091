#!/usr/bin/env bash
# On the GPU machine, from the repository root, with bundle/ (scripts/make-bundle.sh) and peers/
# (scripts/fetch-peers.sh): the two timing bars of the H200 issue in one call, logs in $OUT.
#   1. order bias: the reference timed against itself as the solution
#      (InterleavedTiming.NoOrderBiasWhenTheSolutionIsTheReference), REPEAT times, each with
#      every sample logged (AKO_SAMPLE_LOG: the input set and output copy of each sample);
#   2. warm `ako run task rmsnorm` (the FlashInfer column, 40 cases) wall time: a cold run, then
#      WARM warm runs, each timed from outside (`date`) and broken down by the run's `phases`;
#      one more with the sample log; BASE_BUNDLE (a bundle of another commit), when given, is
#      timed the same way right after, on the same machine, for an A/B;
#   then the whole GPU test suite. Everything lands in $OUT/all.tgz; $OUT/summary.txt is printed.
#   OUT=out [WARM=3] [REPEAT=5] [BASE_BUNDLE=dir] [READ_FLUSH=1] [SUITE=0] scripts/gpu-timing-bars.sh
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-out}
L="$OUT/logs"
mkdir -p "$L"
B=bundle/bin
[ -x $B/ako ] || { echo "gpu-timing-bars: no bundle/bin/ako (scripts/make-bundle.sh)" >&2; exit 2; }
export AKO_CACHE_DIR=${AKO_CACHE_DIR:-/tmp/ako-cache}
export AKO_NCU=${AKO_NCU:-$(command -v ncu || echo /usr/local/cuda/bin/ncu)}
S="$OUT/summary.txt"
now() { date +%s.%N; }
secs() { python3 -c "print(f'{$2 - $1:.3f}')"; }
phases() {  # the run's own account of its wall time, one line
  python3 - "$1" <<'EOF'
import json, sys
j = json.load(open(sys.argv[1])); p = j.get("phases", {})
keys = ["prepare_s", "gpu_probe_s", "compile_s", "worker_start_s", "worker_to_first_case_s", "cases_s",
        "validate_s", "time_s", "worker_exit_s", "finish_s"]
print("wall_s %.3f | " % j["wall_s"] + " ".join("%s %.3f" % (k[:-2], p[k]) for k in keys if k in p),
      "| prestarted" if p.get("worker_prestarted") else "",
      "| setup", {k: round(v, 3) for k, v in p.get("worker_setup_s", {}).items()})
EOF
}

nvidia-smi --query-gpu=name,driver_version,persistence_mode,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv > "$L/device.txt" 2>&1
cat "$L/device.txt" >> "$S"

t0=$(now); $B/ako run task rmsnorm --no-progress --json "$L/run-cold.json" > "$L/run-cold.txt" 2>&1; rc=$?; t1=$(now)
echo "cold run: rc $rc, $(secs "$t0" "$t1") s wall; $(phases "$L/run-cold.json")" | tee -a "$S"
base=""
if [ -n "${BASE_BUNDLE:-}" ] && [ -x "$BASE_BUNDLE/bin/ako" ]; then
  base=$BASE_BUNDLE/bin/ako   # another build, timed alternately with this one (A/B on one machine)
  $base run task rmsnorm --no-progress --json "$L/base-fill.json" > "$L/base-fill.txt" 2>&1   # its kernel cache
fi
for i in $(seq 1 "${WARM:-3}"); do
  t0=$(now); $B/ako run task rmsnorm --no-progress --json "$L/run-warm-$i.json" > "$L/run-warm-$i.txt" 2>&1; rc=$?; t1=$(now)
  echo "warm run $i: rc $rc, $(secs "$t0" "$t1") s wall; $(phases "$L/run-warm-$i.json")" | tee -a "$S"
  if [ -n "$base" ]; then
    t0=$(now); $base run task rmsnorm --no-progress --json "$L/base-warm-$i.json" > "$L/base-warm-$i.txt" 2>&1; rc=$?; t1=$(now)
    echo "  base warm run $i ($BASE_BUNDLE): rc $rc, $(secs "$t0" "$t1") s wall; $(phases "$L/base-warm-$i.json")" | tee -a "$S"
  fi
done
grep -E "^(CORRECT|SPEEDUP|BASELINE)" "$L/run-warm-1.txt" | tee -a "$S"
agree() {  # per-case solution and baseline IQMs of two runs (scripts/compare_runs.py), one line
  echo "$3: $(python3 scripts/compare_runs.py "$1" "$2" | head -1)"
}
W=${WARM:-3}
agree "$L/run-warm-1.json" "$L/run-warm-$W.json" "warm run 1 vs warm run $W" | tee -a "$S"
[ -n "$base" ] && agree "$L/run-warm-1.json" "$L/base-warm-1.json" "this bundle vs BASE_BUNDLE (warm run 1)" | tee -a "$S"
AKO_SAMPLE_LOG="$L/samples-run" $B/ako run task rmsnorm --no-progress --json "$L/run-samples.json" > "$L/run-samples.txt" 2>&1
echo "sample-logged run: rc $?" | tee -a "$S"
if [ "${READ_FLUSH:-0}" = 1 ]; then   # the same with --l2-flush read (the L2 left clean), sample-logged
  AKO_SAMPLE_LOG="$L/samples-read" $B/ako run task rmsnorm --l2-flush read --no-progress --no-checks --json "$L/run-read.json" > "$L/run-read.txt" 2>&1
  echo "--l2-flush read run: rc $?; $(phases "$L/run-read.json")" | tee -a "$S"
fi

export AKO_BIN=$PWD/$B/ako AKO_ROOT=$PWD
for i in $(seq 1 "${REPEAT:-5}"); do
  AKO_SAMPLE_LOG="$L/samples-self-$i" $B/ako_gpu_tests --gtest_filter='InterleavedTiming.NoOrderBias*' > "$L/self-$i.log" 2>&1
  echo "order-bias test $i: rc $? $(grep -E '^self-vs-self:' "$L/self-$i.log")" | tee -a "$S"
done
if [ "${SUITE:-1}" = 1 ]; then
  $B/ako_gpu_tests --gtest_output="json:$L/gpu-tests.json" > "$OUT/gpu-tests.log" 2>&1
  echo "GPU tests: rc $? $(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' "$OUT/gpu-tests.log" | tr '\n' ' ')" | tee -a "$S"
fi
tar -czf /tmp/gpu-timing-bars.tgz -C "$OUT" --exclude=summary.txt . && mv /tmp/gpu-timing-bars.tgz "$OUT/all.tgz"
find "$OUT" -mindepth 1 -not -name all.tgz -not -name summary.txt -not -name gpu-tests.log -delete
cat "$S"
