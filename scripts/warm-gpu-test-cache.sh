#!/usr/bin/env bash
# On the build machine (no GPU needed): compile every kernel the GPU test suite will ask NVRTC for,
# ahead of a device call, and pack ako's kernel cache for scripts/gpu-tests.sh to take along. Most
# of the suite's time on the GPU machine is NVRTC compiling cold kernels (session 38: 83 tests took
# two calls of 436-540 s); a cache entry is keyed by the source and its headers, the options, the
# arch, the NVRTC build and the toolkit's home and identity (harness/jit/prepare.cpp, toolkit.cpp);
# the GPU machine has the same NVRTC build (its runs' JSON: same build-id) and the checkout at the
# same path, so kernels compiled here should be hits there, unless its toolkit differs (a
# version.json this machine's lacks, another home): gpu-tests.sh's summary says how many entries it
# was given and how many it still had to compile. Seen there 2026-12-02 (session 39, calls 1 and 3):
# every carried entry was a hit; the runs still compiled 60, the kernels of the tests that ran ako
# on a scratch workspace in a random folder (the keys name a kernel's absolute paths; those folders
# are now named by the test, tests/gpu/gpu_test_support.hpp's test_workspace).
# Cost, 2026-12-02 on a 2-core build machine: 862 s for the whole suite, 336 entries, 389 MiB
# unpacked, 24 MiB packed (carried with bundle-x and peers: about 42 of a call's 64 MiB); a second
# run of the scratch-workspace tests with --add compiled nothing new.
#
# How: the suite runs here against the test build's stand-in driver (tests/support/fake_gpu/: one
# device named "NVIDIA H200", sm_90a, so every run picks the H200 configs) and stand-in worker, so
# each `ako run` / `ako tune` the tests start compiles its real kernels and then "measures" them
# without a GPU; the tests' verdicts mean nothing here and are not judged.
#   scripts/warm-gpu-test-cache.sh [--filter PATTERN] [--jobs N] [--out DIR] [--add]
#     --filter  a gtest filter: warm only those tests' kernels (default every test but KillTune.*,
#               which waits for a worker to be measuring on a real GPU and would wait here until its timeout)
#     --jobs    gtest processes side by side (default 1; NVRTC uses every CPU within each)
#     --out     where to write (default ako-cache-x, git-ignored)
#     --add     start from the entries already packed there and pack them with this run's, so that
#               a run of a few tests after a change keeps the other tests' kernels
# Writes cache.tar.xz and MANIFEST (when and how it was made, the commit, the NVRTC build, the
# entries). Carry ako-cache-x with bundle-x; run it again after a kernel, config or task changes
# (stale entries are only unused: gpu-tests.sh compiles what it misses).
# Exit 0: packed; 1: the tests compiled nothing (the log's end is printed); 2: no test build (run
# scripts/setup.sh) or bad arguments.
set -uo pipefail
cd "$(dirname "$0")/.."
FILTER='*-KillTune.*'
JOBS=1
X=ako-cache-x
ADD=0
while [ $# -gt 0 ]; do
  case $1 in
    --filter) FILTER=${2:?--filter needs a pattern}; shift 2 ;;
    --jobs) JOBS=${2:?--jobs needs a count}; shift 2 ;;
    --out) X=${2:?--out needs a folder}; shift 2 ;;
    --add) ADD=1; shift ;;
    *) sed -n '2,/^set -uo/p' "$0" | sed '$d' >&2; exit 2 ;;
  esac
done
B=$(realpath -m "${AKO_BUILD_DIR:-build}")
source scripts/gpu-tests-cache-path.sh
for f in "$B/ako" "$B/tests/ako_gpu_tests" "$B/tests/ako_fake_worker" "$B/tests/fake_cuda/libcuda.so.1"; do
  [ -e "$f" ] || { echo "warm-gpu-test-cache: no $f; build the tests first (scripts/setup.sh)" >&2; exit 2; }
done
# The cache at the path scripts/gpu-tests.sh gives it on the GPU machine: ako writes its support
# kernels' sources into the cache folder and their keys name that path, so on another path they
# would miss there (one more compile a run). One warm run at a time holds it.
cache=$GPU_TESTS_CACHE
exec 9>"$cache.lock"
flock -n 9 || { echo "warm-gpu-test-cache: another warm run holds $cache" >&2; exit 2; }
work=$(mktemp -d /tmp/ako-warm-XXXXXX)
trap 'rm -rf "$work" "$cache"' EXIT
rm -rf "$cache"
mkdir -p "$cache"
added_from=""
if [ $ADD = 1 ] && [ -f "$X/cache.tar.xz" ]; then
  tar xJf "$X/cache.tar.xz" -C "$cache" || { echo "warm-gpu-test-cache: $X/cache.tar.xz would not unpack" >&2; exit 2; }
  added_from="$X as it was ($(head -1 "$X/MANIFEST" 2>/dev/null))"
fi
before=$(cache_entries "$cache")
echo "warm-gpu-test-cache: the GPU suite ($FILTER) against the stand-in H200, $JOBS process(es)" >&2
t0=$(date +%s)
for i in $(seq 0 $((JOBS - 1))); do
  LD_LIBRARY_PATH="$B/tests/fake_cuda${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" AKO_FAKE_GPU_NAMES="NVIDIA H200" \
    AKO_WORKER="$B/tests/ako_fake_worker" AKO_CACHE_DIR="$cache" AKO_BIN="$B/ako" AKO_ROOT="$PWD" \
    AKO_NCU=/bin/false GTEST_TOTAL_SHARDS=$JOBS GTEST_SHARD_INDEX=$i \
    "$B/tests/ako_gpu_tests" --gtest_filter="$FILTER" >"$work/warm$i.log" 2>&1 &
done
wait
t1=$(date +%s)
entries=$(cache_entries "$cache")
if [ "$entries" -eq 0 ]; then
  echo "warm-gpu-test-cache: nothing was compiled; the test log ends:" >&2
  tail -n 15 "$work"/warm*.log >&2
  exit 1
fi
mkdir -p "$X"
tar cf - -C "$cache" . | xz -T0 -6 >"$X/cache.tar.xz.new" && mv "$X/cache.tar.xz.new" "$X/cache.tar.xz"
{
  echo "made $(date -u +%Y-%m-%dT%H:%MZ) by scripts/warm-gpu-test-cache.sh --filter '$FILTER' in $((t1 - t0)) s"
  echo "commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown)$(git diff --quiet HEAD -- 2>/dev/null || echo ' (with uncommitted changes)')"
  [ -z "$added_from" ] || echo "added to: $before entries of $added_from"
  "$B/ako" version 2>/dev/null | grep -i nvrtc
  echo "entries $entries, $((entries - before)) of them new ($(du -sh "$cache" | cut -f1) unpacked, $(du -h "$X/cache.tar.xz" | cut -f1) packed)"
} >"$X/MANIFEST"
cat "$X/MANIFEST"
echo "warm-gpu-test-cache: carry [\"bundle-x\", \"peers\", \"ako-cache-x\"]; scripts/gpu-tests.sh unpacks it" >&2
