#!/usr/bin/env bash
# Run the tests of a build made by scripts/setup.sh. Without a GPU the GPU tests report
# themselves skipped with the reason; on a GPU machine they run. After ctest's own summary
# (its "N% tests passed, M tests failed out of K" line is kept as it is: CI reads it) each
# skipped test is listed with its reason. The exit status is ctest's.
#   scripts/test.sh            all tests (ctest)
#   AKO_BUILD_DIR=dir scripts/test.sh
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${AKO_BUILD_DIR:-build}
[ -d "$BUILD_DIR" ] || { echo "test: no build in $BUILD_DIR; run scripts/setup.sh first" >&2; exit 2; }
status=0
ctest --test-dir "$BUILD_DIR" --output-on-failure -j "$(nproc)" "$@" || status=$?
LOG="$BUILD_DIR/Testing/Temporary/LastTest.log"
[ ! -f "$LOG" ] || scripts/skipped-tests.sh "$LOG"
exit "$status"
