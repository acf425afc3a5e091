#!/usr/bin/env bash
# On the GPU machine, from the repository root (carry bundle-x, peers and ako-cache-x): the GPU test suite, made
# to fit one device call. Run as one gtest process it no longer fits the call's 600 s on one H200
# (session 38: half of the suite, one test after another, was cut at 540 s), and most of that time
# is NVRTC compiling cold kernels. So the tests that only judge correctness run first, JOBS at a
# time, each in its own gtest process, longest first (the seconds each took in a recorded run,
# scripts/gpu-test-seconds.txt; a test not listed there counts as longest): session 39's first call
# split them with gtest's sharding instead, and one shard drew two of the longest tests and was cut
# while the others had ended 100-250 s before. The few whose kernels make the GPU fault (FAULT
# below) end the first phase, one at a time, after the others. Then the tests that time, profile or
# tune (TIMED below) run alone, one after another, once nothing of the first phase is left: their
# numbers must not share the GPU or the CPU with anything. Before all of it the copy bandwidth that
# every test's ako reads from the kernel cache is measured once, on the idle GPU.
#   OUT=DIR [JOBS=6] [FILTER=PATTERN] scripts/gpu-tests.sh      the suite (FILTER: a gtest positive
#                                                               filter, e.g. 'RunQknorm.*', to run part of it)
#   scripts/gpu-tests.sh --check-timed [TESTS]                  each TIMED and FAULT pattern names a test of TESTS
#                                                               (default bundle/bin/ako_gpu_tests): exit 1 if
#                                                               one names none (a renamed timing test would
#                                                               otherwise run beside the others unseen)
# TESTS=path picks the test binary (default bundle/bin/ako_gpu_tests, unpacked from bundle-x if need
# be); PAR_TIMEOUT / TIMED_TIMEOUT (default 330 / 300 s) bound the two phases (a test of the first
# phase not started by its end is counted as not run); TEST_SECONDS=file another list of test
# lengths. A carried ako-cache-x/ (scripts/warm-gpu-test-cache.sh, made on the build machine) is
# unpacked into the kernel cache first (CARRIED_CACHE=DIR: another folder; NO_CARRIED_CACHE=1:
# none), and the summary says how many entries it brought and how many the run still had to compile.
# Between the phases, any process of the first still alive (found by a mark in the environment
# each inherits, so a test's ako or worker that left its group is found too) is killed and named
# in the summary.
# Writes $OUT/gpu-tests.tar.xz (each process's log and gtest JSON), $OUT/gpu-test-seconds.txt (this
# run's length of each test, longest first: copy it over scripts/gpu-test-seconds.txt when the suite
# changes) and $OUT/gpu-tests-summary.txt, printed last. Exit 0: every test that ran passed (tests
# skip with their reason where no GPU is found); 1: a test failed, or was cut or not started by its
# phase's timeout (the summary names them); 2: no test binary.
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
# Tests whose kernels make the GPU fault (trap, illegal or misaligned address): session 40's first
# call had a correctness test beside them find no progress in a launch for 2 s, and a reference of
# ~10 us take 862 us. They run after the other tests of the first phase, one at a time.
FAULT_PATTERNS=(
  'Rmsnorm/BrokenKernel.IsCaughtAndTheRunGoesOn/illegal_address' 'Rmsnorm/BrokenKernel.IsCaughtAndTheRunGoesOn/trap'
  'Rmsnorm/AttackKernel.GetsItsExactVerdict/misaligned' 'Tasks/BaselineBlame.*/faulting_baseline'
  'Tasks/ReferenceBlame.*/faulting_reference' 'OracleBlame.*'
)
FAULT=$(IFS=:; echo "${FAULT_PATTERNS[*]}")

if [ "${1:-}" = --check-timed ]; then
  T=${2:-bundle/bin/ako_gpu_tests}
  [ -x "$T" ] || { echo "gpu-tests: no test binary $T" >&2; exit 2; }
  bad=0
  # check_patterns KIND PATTERN...: each pattern names at least one test of $T.
  check_patterns() {
    local kind=$1 p; shift
    for p in "$@"; do
      [ "$("$T" --gtest_list_tests --gtest_filter="$p" | grep -c '^  ')" -gt 0 ] ||
        { echo "gpu-tests: $kind pattern '$p' names no test of $T"; bad=1; }
    done
  }
  check_patterns TIMED "${TIMED_PATTERNS[@]}"
  check_patterns FAULT "${FAULT_PATTERNS[@]}"
  [ $bad = 0 ] && echo "gpu-tests: every TIMED and FAULT pattern names a test (${#TIMED_PATTERNS[@]} + ${#FAULT_PATTERNS[@]} patterns)"
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
source scripts/gpu-tests-cache-path.sh
export AKO_CACHE_DIR=${AKO_CACHE_DIR:-$GPU_TESTS_CACHE}
# The iterate tests profile with ncu.
export AKO_NCU=${AKO_NCU:-$(command -v ncu || echo /usr/local/cuda/bin/ncu)}
L=$OUT/gpu-tests
rm -rf "$L"; mkdir -p "$L"
cache_line="kernel cache $AKO_CACHE_DIR: nothing carried"
X=${CARRIED_CACHE:-ako-cache-x}
carried=""
if [ -f "$X/cache.tar.xz" ] && [ -z "${NO_CARRIED_CACHE:-}" ]; then
  mkdir -p "$AKO_CACHE_DIR"
  if tar xJf "$X/cache.tar.xz" -C "$AKO_CACHE_DIR"; then
    carried="$X ($(head -1 "$X/MANIFEST" 2>/dev/null))"
  else
    cache_line="kernel cache $AKO_CACHE_DIR: $X/cache.tar.xz would not unpack; every kernel compiled here"
  fi
fi
entries_before=$(cache_entries "$AKO_CACHE_DIR")
[ -z "$carried" ] || cache_line="kernel cache $AKO_CACHE_DIR: $entries_before entries after unpacking $carried"
S=$OUT/gpu-tests-summary.txt
FILTER=${FILTER:-*}

# Suite.Name of each test a gtest filter selects, one a line; listed once for each phase.
names() { "$T" --gtest_list_tests --gtest_filter="$1" | awk '/^[^ ]/ { s = $1 } /^  / { print s $1 }'; }
all_tests=$(names "$FILTER")
par_tests=$(names "$FILTER-$TIMED")
fault_tests=$(comm -12 <(printf '%s\n' "$par_tests" | sort) <(names "$FAULT" | sort))
side_tests=$(comm -23 <(printf '%s\n' "$par_tests" | sort) <(printf '%s\n' "$fault_tests" | sort))
n_all=$(printf '%s' "$all_tests" | grep -c .)
n_par=$(printf '%s' "$par_tests" | grep -c .)
n_fault=$(printf '%s' "$fault_tests" | grep -c .)
n_timed=$((n_all - n_par))
# A log whose gtest process reached its end (a test verdict for the run, or no test to run).
ended() { grep -qE '^\[  (PASSED|FAILED) |^\[==========\] 0 tests' "$1"; }

# The first phase's tests, longest first: by TEST_SECONDS's "seconds name" lines, a test not
# listed ahead of all (its length unknown), ties by name.
by_length() {
  awk -v f="$TEST_SECONDS" 'BEGIN { while ((getline l < f) > 0) if (l !~ /^#/) { split(l, a, " "); s[a[2]] = a[1] } }
    { print (($0 in s) ? s[$0] : 1e9), $0 }' | sort -k1,1gr -k2,2 | cut -d' ' -f2
}
# One test in its own process, bounded by what is left of the phase; a test the phase has no time
# left for gets a log that says so.
run_one() {
  local left=$((deadline - $(date +%s)))
  if [ "$left" -le 0 ]; then
    echo "[ NOT RUN  ] $2: the first phase's ${PAR_TIMEOUT:-330} s had run out" >"$L/par-$1.log"
    return 0
  fi
  timeout "$left" "$T" --gtest_filter="$2" --gtest_output="json:$L/par-$1.json" >"$L/par-$1.log" 2>&1
  return 0
}
# The first phase's processes carry RUN_MARK in their environment (this shell does not export it):
# every process still alive that has it.
RUN_MARK="AKO_GPU_TESTS_RUN=$$-$(date +%s%N)"
leftovers() { grep -lzx -- "$RUN_MARK" /proc/[0-9]*/environ 2>/dev/null | cut -d/ -f3 | sort -un; }
TEST_SECONDS=${TEST_SECONDS:-scripts/gpu-test-seconds.txt}
export -f run_one
export T L PAR_TIMEOUT

# The copy bandwidth every ako process of the run reads from the cache (it judges plausibility and
# % of copy by it), measured once on an idle GPU: the first test's ako measured it with five
# processes beside it in session 40 (3922 GB/s, not ~4300) and gated_act's cases ran "faster than a
# copy". With no ako to run (a stand-in test binary), nothing is measured.
copy_line="copy bandwidth: not measured ahead (no ako binary)"
if [ -x "${AKO_BIN:-}" ]; then
  "$AKO_BIN" run task rmsnorm --shapes text-512 --dtypes bf16 --no-time --no-checks --no-progress \
    --remeasure-bandwidth >"$L/copy-bandwidth.log" 2>&1
  gbs=$(grep -o 'copy bandwidth [0-9.]* GB/s (measured' "$L/copy-bandwidth.log" | head -1 | cut -d' ' -f3)
  if [ -n "$gbs" ]; then
    copy_line="copy bandwidth $gbs GB/s, measured alone before the first phase"
  else
    copy_line="copy bandwidth: the measurement ahead failed (copy-bandwidth.log); each test's ako measures its own"
  fi
fi

t0=$(date +%s)
export deadline=$((t0 + ${PAR_TIMEOUT:-330}))
printf '%s\n' "$side_tests" | grep . | by_length | awk '{ print NR, $0 }' | env "$RUN_MARK" xargs -r -P "$JOBS" -L 1 bash -c 'run_one "$0" "$1"'
tf=$(date +%s)
printf '%s\n' "$fault_tests" | grep . | by_length | awk '{ print "f" NR, $0 }' | env "$RUN_MARK" xargs -r -P 1 -L 1 bash -c 'run_one "$0" "$1"'
left_pids=$(leftovers)
left_line=""
if [ -n "$left_pids" ]; then
  left_line="left alive after the first phase, killed: $(ps -o pid=,args= -p "$(echo $left_pids | tr ' ' ,)" | sed "s/^ *//" | cut -c1-100 | paste -sd';' -)"
  kill -KILL $left_pids 2>/dev/null
  sleep 1
fi
t1=$(date +%s)
if [ "$n_timed" -gt 0 ]; then
  # Only the TIMED tests within FILTER: gtest takes one positive and one negative list, so the
  # positive list is TIMED itself when FILTER is everything, else each FILTER test that TIMED names.
  if [ "$FILTER" = '*' ]; then
    timed_filter=$TIMED
  else
    timed_filter=$(comm -23 <(printf '%s\n' "$all_tests" | sort) <(printf '%s\n' "$par_tests" | sort) | paste -sd: -)
  fi
  timeout "${TIMED_TIMEOUT:-300}" "$T" --gtest_filter="$timed_filter" --gtest_output="json:$L/timed.json" >"$L/timed.log" 2>&1
fi
t2=$(date +%s)

failed=0
{
  echo "GPU tests ($T): $n_all tests; $((n_par - n_fault)) a process each, $JOBS at a time, longest first ($((tf - t0)) s), then $n_fault that make the GPU fault one at a time ($((t1 - tf)) s); $n_timed timed alone ($((t2 - t1)) s)"
  echo "$cache_line; $(( $(cache_entries "$AKO_CACHE_DIR") - entries_before )) entries compiled during the run"
  echo "$copy_line"
  [ -z "$left_line" ] || echo "$left_line"
  for log in "$L"/par-*.log "$L"/timed.log; do
    [ -f "$log" ] || continue
    if ended "$log"; then
      grep -qE '^\[  FAILED  \]' "$log" && failed=1
    elif ! grep -q '^\[ NOT RUN  \]' "$log"; then
      failed=1
      phase=first; [ "$(basename "$log")" = timed.log ] && phase=timed
      echo "  cut by the $phase phase's timeout, during: $(grep -E '^\[ RUN' "$log" | tail -1 | sed 's/^\[ RUN      \] //')"
    fi
  done
  not_run=$(cat "$L"/*.log | sed -n 's/^\[ NOT RUN  \] \([^:]*\):.*/\1/p')
  [ -z "$not_run" ] || echo "  not started, the first phase's time spent: $(echo $not_run)"
  ok=$(cat "$L"/*.log | grep -c '^\[       OK \]')
  skipped=$(cat "$L"/*.log | grep -c '^\[  SKIPPED \] .* (')
  failures=$(cat "$L"/*.log | grep -E '^\[  FAILED  \] .* \(' | sed 's/^\[  FAILED  \] /  FAILED /; s/ (.*//' | sort -u)
  echo "passed $ok, skipped $skipped, failed $(printf '%s' "$failures" | grep -c FAILED), of $n_all"
  [ -z "$failures" ] || echo "$failures"
  reasons=$(cat "$L"/*.log | grep -A1 ': Skipped$' | grep -vE ': Skipped$|^--$' | sort | uniq -c | sort -rn | head -3)
  [ -z "$reasons" ] || { echo "skipped because:"; echo "$reasons"; }
} >"$S"
# Each test's seconds in this run, longest first (the order of the next run's first phase); a
# test cut by its phase counts the whole phase.
{
  cat "$L"/*.log | sed -nE 's/^\[ +(OK|FAILED|SKIPPED) +\] ([^ ]+) \(([0-9]+) ms\)$/\3 \2/p' | awk '{ printf "%.1f %s\n", $1 / 1000, $2 }'
  for log in "$L"/par-*.log; do
    [ -f "$log" ] || continue
    ended "$log" || grep -q '^\[ NOT RUN' "$log" || grep -E '^\[ RUN' "$log" | tail -1 | sed "s/^\[ RUN      \] /$((t1 - t0)) /"
  done
} | sort -k1,1gr -k2,2 | awk '!seen[$2]++' >"$OUT/gpu-test-seconds.txt"
[ $((ok + skipped)) -eq "$n_all" ] || failed=1   # a test that never ran (its process cut short) fails the run
tar cJf "$OUT/gpu-tests.tar.xz" -C "$OUT" gpu-tests && rm -rf "$L"
cat "$S"
exit $failed
