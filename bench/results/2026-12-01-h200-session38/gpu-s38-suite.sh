#!/usr/bin/env bash
# Session 38: the whole GPU test suite on one H200, in two calls (one call's 600 s cannot hold it):
#   SHARD=0 OUT=$OUT bash bench/results/2026-12-01-h200-session38/gpu-s38-suite.sh   (carry bundle-x, peers)
#   SHARD=1 ...
# gtest's own sharding splits the 83 tests; each shard runs them one after another on the one GPU.
set -uo pipefail
cd "$(dirname "$0")/../../.."
OUT=${OUT:-out}; SHARD=${SHARD:-0}; SHARDS=${SHARDS:-2}
mkdir -p "$OUT"
scripts/gpu-unpack-bundle.sh --if-needed >"$OUT/unpack.txt" 2>&1
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv >"$OUT/device.txt" 2>&1
export AKO_CACHE_DIR=/tmp/ako-cache AKO_NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
t0=$(date +%s)
GTEST_TOTAL_SHARDS=$SHARDS GTEST_SHARD_INDEX=$SHARD AKO_BIN=$PWD/bundle/bin/ako AKO_ROOT=$PWD \
  timeout ${SUITE_TIMEOUT:-540} bundle/bin/ako_gpu_tests --gtest_output="json:$OUT/gpu-tests-shard$SHARD.json" \
  >"$OUT/gpu-tests-shard$SHARD.log" 2>&1
rc=$?
t1=$(date +%s)
xz -k "$OUT/gpu-tests-shard$SHARD.log" 2>/dev/null
{
  echo "device: $(tail -1 "$OUT/device.txt")"
  echo "shard $SHARD of $SHARDS: rc $rc, $((t1 - t0)) s"
  grep -E '^\[       OK \]|^\[  FAILED  \]|^\[  SKIPPED \]' "$OUT/gpu-tests-shard$SHARD.log" | sed 's/^/  /' | sort | uniq | head -80
  grep -E '^\[  (PASSED|FAILED|SKIPPED) ' "$OUT/gpu-tests-shard$SHARD.log"
} | tee "$OUT/summary.txt"
