#!/usr/bin/env bash
# On the GPU machine, from the repository root (carry bundle-x and peers): the GPU test suite, made
# to fit one device call. Run as one gtest process it no longer fits the call's 600 s on one H200
# (session 38: half of the suite, one test after another, was cut at 540 s; the other 61 tests ran
# as below in 436 s), and most of that time is NVRTC compiling cold kernels on the CPU. So the
# tests that only judge correctness run first in JOBS gtest processes side by side (gtest's own
# sharding; ako's compile cache takes concurrent writers), then the tests that time, profile or
# tune (TIMED below) run alone, one after another: their numbers must not share the GPU or the CPU
# with anything.
#   OUT=DIR [JOBS=6] [FILTER=PATTERN] scripts/gpu-tests.sh      the suite (FILTER: a gtest positive
#                                                               filter, e.g. 'RunQknorm.*', to run part of it)
#   scripts/gpu-tests.sh --check-timed [TESTS]                  each TIMED pattern names a test of TESTS
#                                                               (default bundle/bin/ako_gpu_tests): exit 1 if
#                                                               one names none (a renamed timing test would
#                                                               otherwise run beside the others unseen)
# TESTS=path picks the test binary (default bundle/bin/ako_gpu_tests, unpacked from bundle-x if need
# be); PAR_TIMEOUT / TIMED_TIMEOUT (default 330 / 230 s) bound the two phases. A carried ako-cache-x/
# (scripts/warm-gpu-test-cache.sh, made on the build machine) is unpacked into the kernel cache first
# (CARRIED_CACHE=DIR: another folder; NO_CARRIED_CACHE=1: none), and the summary says how many
# entries it brought and how many the run still had to compile.
# Writes $OUT/gpu-tests.tar.xz (each process's log and gtest JSON) and $OUT/gpu-tests-summary.txt,
# printed last. Exit 0: every test that ran passed (tests skip with their reason where no GPU is
# found); 1: a test failed, or a phase was cut by its timeout (the summary names the test it was
# in); 2: no test binary.
set -uo pipefail
cd "$(dirname "$0")/.."

# Tests whose result depends on time, on a profiler or on having the machine to themselves.
TIMED_PATTERNS=(
  'GateGpu.*' 'InterleavedTiming.*' 'SizeCopy.*' 'Baselines.*' 'IterateGpu.*' 'MultiGpuTune.*' 'KillTune.*'
  'RunRmsnorm.TimingRepeatsWithinTwoPercentOnLargeShapes' 'RunRmsnorm.TwoModeShapesStopEarlyAndRepeatWithinOnePercent'
  'RunRmsnorm.WarmCacheRunTakesUnderTenSeconds' 'Precision.CostOfAFullWarmRmsnormRun'
  'AttackKernels.HangIsStoppedOnTheReferencesScale' 'AttackKernels.SkipOnRepeatedInputsGainsNothing'
  'Rmsnorm/BrokenKernel.IsCaughtAndTheRunGoesOn/hang'
)
TIMED=$(IFS=:; echo "${TIMED_PATTERNS[*]}")

if [ "${1:-}" = --check-timed ]; then
  T=${2:-bundle/bin/ako_gpu_tests}
  [ -x "$T" ] || { echo "gpu-tests: no test binary $T" >&2; exit 2; }
  bad=0
  for p in "${TIMED_PATTERNS[@]}"; do
    n=$("$T" --gtest_list_tests --gtest_filter="$p" | grep -c '^  ')
    [ "$n" -gt 0 ] || { echo "gpu-tests: TIMED pattern '$p' names no test of $T"; bad=1; }
  done
  [ $bad = 0 ] && echo "gpu-tests: every TIMED pattern names a test (${#TIMED_PATTERNS[@]} patterns)"
  exit $bad
fi
[ $# -eq 0 ] || { sed -n '2,/^set -uo/p' "$0" | sed '$d' >&2; exit 2; }

OUT=${OUT:-out}
JOBS=${JOBS:-6}
T=${TESTS:-bundle/bin/ako_gpu_tests}
if [ "$T" = bundle/bin/ako_gpu_tests ]; then
  scripts/gpu-unpack-bundle.sh --if-needed >&2
  export AKO_BIN=${AKO_BIN:-$PWD/bundle/bin/ako}
fi
[ -x "$T" ] || { echo "gpu-tests: no test binary $T; build it with scripts/make-bundle.sh and carry bundle-x/" >&2; exit 2; }
export AKO_ROOT=${AKO_ROOT:-$PWD}
export AKO_CACHE_DIR=${AKO_CACHE_DIR:-/tmp/ako-cache}
# The iterate tests profile with ncu.
export AKO_NCU=${AKO_NCU:-$(command -v ncu || echo /usr/local/cuda/bin/ncu)}
L=$OUT/gpu-tests
rm -rf "$L"; mkdir -p "$L"
entries() { find "$AKO_CACHE_DIR" -name '*.cubin' 2>/dev/null | wc -l; }
cache_line="kernel cache $AKO_CACHE_DIR: nothing carried"
X=${CARRIED_CACHE:-ako-cache-x}
if [ -f "$X/cache.tar.xz" ] && [ -z "${NO_CARRIED_CACHE:-}" ]; then
  mkdir -p "$AKO_CACHE_DIR"
  if tar xJf "$X/cache.tar.xz" -C "$AKO_CACHE_DIR"; then
    cache_line="kernel cache $AKO_CACHE_DIR: $(entries) entries after unpacking $X ($(head -1 "$X/MANIFEST" 2>/dev/null))"
  else
    cache_line="kernel cache $AKO_CACHE_DIR: $X/cache.tar.xz would not unpack; every kernel compiled here"
  fi
fi
entries_before=$(entries)
S=$OUT/gpu-tests-summary.txt
FILTER=${FILTER:-*}

# Suite.Name of each test a gtest filter selects, one a line.
names() { "$T" --gtest_list_tests --gtest_filter="$1" | awk '/^[^ ]/ { s = $1 } /^  / { print s $1 }'; }
n_all=$(names "$FILTER" | wc -l)
n_par=$(names "$FILTER-$TIMED" | wc -l)
n_timed=$((n_all - n_par))

t0=$(date +%s)
for i in $(seq 0 $((JOBS - 1))); do
  GTEST_TOTAL_SHARDS=$JOBS GTEST_SHARD_INDEX=$i timeout "${PAR_TIMEOUT:-330}" "$T" --gtest_filter="$FILTER-$TIMED" \
    --gtest_output="json:$L/par$i.json" >"$L/par$i.log" 2>&1 &
done
wait
t1=$(date +%s)
if [ "$n_timed" -gt 0 ]; then
  # Only the TIMED tests within FILTER: gtest takes one positive and one negative list, so the
  # positive list is TIMED itself when FILTER is everything, else each FILTER test that TIMED names.
  if [ "$FILTER" = '*' ]; then
    timed_filter=$TIMED
  else
    timed_filter=$(comm -23 <(names "$FILTER" | sort) <(names "$FILTER-$TIMED" | sort) | paste -sd: -)
  fi
  timeout "${TIMED_TIMEOUT:-230}" "$T" --gtest_filter="$timed_filter" --gtest_output="json:$L/timed.json" >"$L/timed.log" 2>&1
fi
t2=$(date +%s)

failed=0
{
  echo "GPU tests ($T): $n_all tests, $n_par in $JOBS processes side by side ($((t1 - t0)) s), $n_timed timed alone ($((t2 - t1)) s)"
  echo "$cache_line; $(( $(entries) - entries_before )) entries compiled during the run"
  for log in "$L"/par*.log "$L"/timed.log; do
    [ -f "$log" ] || continue
    name=$(basename "$log" .log)
    if grep -qE '^\[  (PASSED|FAILED) ' "$log" || grep -q '^\[==========\] 0 tests' "$log"; then
      grep -qE '^\[  FAILED  \]' "$log" && failed=1
    else
      failed=1
      echo "  $name: cut before its end, during: $(grep -E '^\[ RUN' "$log" | tail -1 | sed 's/^\[ RUN      \] //')"
    fi
  done
  ok=$(cat "$L"/*.log | grep -c '^\[       OK \]')
  skipped=$(cat "$L"/*.log | grep -c '^\[  SKIPPED \] .* (')
  failures=$(cat "$L"/*.log | grep -E '^\[  FAILED  \] .* \(' | sed 's/^\[  FAILED  \] /  FAILED /; s/ (.*//' | sort -u)
  echo "passed $ok, skipped $skipped, failed $(printf '%s' "$failures" | grep -c FAILED), of $n_all"
  [ -z "$failures" ] || echo "$failures"
  reasons=$(cat "$L"/*.log | grep -A1 ': Skipped$' | grep -vE ': Skipped$|^--$' | sort | uniq -c | sort -rn | head -3)
  [ -z "$reasons" ] || { echo "skipped because:"; echo "$reasons"; }
} >"$S"
[ $((ok + skipped)) -eq "$n_all" ] || failed=1   # a test that never ran (its process cut short) fails the run
tar cJf "$OUT/gpu-tests.tar.xz" -C "$OUT" gpu-tests && rm -rf "$L"
cat "$S"
exit $failed
