#!/usr/bin/env bash
# On the GPU machine, from the repository root, with bundle/ built here by
# scripts/make-bundle.sh: the GPU test suite, `ako run task rmsnorm` cold and warm, and the
# torch comparison. Full logs go to $OUT (default out/); a short table is printed last.
#   scripts/gpu-check.sh [quick]     quick: skip the GPU test suite
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-out}
mkdir -p "$OUT"
B=bundle/bin
[ -x $B/ako ] || { echo "gpu-check: no bundle/bin/ako; run scripts/make-bundle.sh on the build machine and carry bundle/" >&2; exit 2; }
export AKO_CACHE_DIR=${AKO_CACHE_DIR:-/tmp/ako-cache}

nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv > "$OUT/device.txt" 2>&1
$B/ako version > "$OUT/version.txt" 2>&1

t0=$(date +%s.%N)
$B/ako run task rmsnorm --json "$OUT/run-cold.json" > "$OUT/run-cold.txt" 2>&1
cold_rc=$?
t1=$(date +%s.%N)
$B/ako run task rmsnorm --json "$OUT/run-warm.json" > "$OUT/run-warm.txt" 2>&1
warm_rc=$?
t2=$(date +%s.%N)

tests_summary="skipped (quick)"
if [ "${1:-}" != quick ]; then
  AKO_BIN=$PWD/$B/ako AKO_ROOT=$PWD $B/ako_gpu_tests --gtest_output="json:$OUT/gpu-tests.json" > "$OUT/gpu-tests.log" 2>&1
  tests_rc=$?
  tests_summary="$(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' "$OUT/gpu-tests.log" | tr '\n' ' ') (rc $tests_rc)"
fi

python3 bench/torch_rmsnorm.py --json "$OUT/torch.json" > "$OUT/torch.txt" 2>&1
torch_rc=$?

echo "== ako run task rmsnorm (warm cache), $(date -u +%Y-%m-%d) =="
cat "$OUT/run-warm.txt"
echo
if [ $torch_rc = 0 ]; then
  python3 scripts/compare_torch.py "$OUT/run-warm.json" "$OUT/torch.json" | tee "$OUT/compare.txt"
else
  echo "torch comparison failed (rc $torch_rc):"; tail -5 "$OUT/torch.txt"
fi
echo
echo "device:     $(tail -1 "$OUT/device.txt")"
echo "cold run:   rc $cold_rc, $(echo "$t1 - $t0" | bc) s (includes compiles and the bandwidth measurement)"
echo "warm run:   rc $warm_rc, $(echo "$t2 - $t1" | bc) s"
echo "GPU tests:  $tests_summary"
