#!/usr/bin/env bash
# Run the tests of a build made by scripts/setup.sh. Without a GPU the GPU tests report
# themselves skipped with the reason; on a GPU machine they run.
#   scripts/test.sh            all tests (ctest)
#   AKO_BUILD_DIR=dir scripts/test.sh
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${AKO_BUILD_DIR:-build}
[ -d "$BUILD_DIR" ] || { echo "test: no build in $BUILD_DIR; run scripts/setup.sh first" >&2; exit 2; }
ctest --test-dir "$BUILD_DIR" --output-on-failure -j "$(nproc)" "$@"
