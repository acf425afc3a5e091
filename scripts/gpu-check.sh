#!/usr/bin/env bash
# On the GPU machine, from the repository root, with bundle/ built here by
# scripts/make-bundle.sh: the GPU test suite, `ako run task rmsnorm` cold and warm, and the
# torch comparison measured in the same session, and a later run against the warm one
# (run-to-run agreement). Carry ["bundle-x", "peers"]. Logs go to $OUT (default out/): a few files
# and logs.tgz with the rest; a short table is printed last.
#   scripts/gpu-check.sh [quick]     quick: skip the GPU test suite
# The suite (scripts/gpu-tests.sh) takes a device call of its own on one H200 (session 39: 535 s, the
# limit of its two phases): on that machine run `scripts/gpu-check.sh quick` and
# `scripts/gpu-tests.sh` (carry ako-cache-x too) in separate calls.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-out}
L="$OUT/logs"
mkdir -p "$L"
B=bundle/bin
scripts/gpu-unpack-bundle.sh --if-needed >&2  # bundle-x carried and no bundle/: unpack it
[ -x $B/ako ] || { echo "gpu-check: no bundle/bin/ako; run scripts/make-bundle.sh on the build machine and carry bundle-x/" >&2; exit 2; }
export AKO_CACHE_DIR=${AKO_CACHE_DIR:-/tmp/ako-cache}
# The iterate GPU test profiles with ncu and drives a throw-away repo with the git CLI.
export AKO_NCU=${AKO_NCU:-$(command -v ncu || echo /usr/local/cuda/bin/ncu)}
now() { date +%s.%N; }
secs() { python3 -c "print(f'{$2 - $1:.2f}')"; }

nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv > "$L/device.txt" 2>&1
$B/ako version > "$L/version.txt" 2>&1
for t in git "$AKO_NCU" compute-sanitizer; do echo "$t: $(command -v "$t" || echo missing)"; done > "$L/tools.txt"

t0=$(now)
$B/ako run task rmsnorm --json "$L/run-cold.json" > "$L/run-cold.txt" 2>&1
cold_rc=$?
t1=$(now)
$B/ako run task rmsnorm --json "$OUT/run-warm.json" > "$OUT/run-warm.txt" 2>&1
warm_rc=$?
t2=$(now)

tests_summary="skipped (quick)"
if [ "${1:-}" != quick ]; then
  OUT="$L" scripts/gpu-tests.sh > "$OUT/gpu-tests.log" 2>&1
  tests_rc=$?
  tests_summary="$(grep -m1 '^passed ' "$L/gpu-tests-summary.txt" 2>/dev/null) (rc $tests_rc; scripts/gpu-tests.sh)"
fi

python3 bench/torch_rmsnorm.py --json "$OUT/torch.json" > "$L/torch.txt" 2>&1
torch_rc=$?
# Run-to-run agreement: the warm run against one made minutes later (after the GPU tests).
$B/ako run task rmsnorm --no-checks --json "$L/run-later.json" > "$L/run-later.txt" 2>&1
repeat_line=$(python3 scripts/compare_runs.py "$OUT/run-warm.json" "$L/run-later.json" 1 2>&1 | head -12)

{
  echo "== ako run task rmsnorm (warm cache), $(date -u +%Y-%m-%dT%H:%MZ) =="
  cat "$OUT/run-warm.txt"
  echo
  if [ $torch_rc = 0 ]; then
    python3 scripts/compare_torch.py "$OUT/run-warm.json" "$OUT/torch.json"
  else
    echo "torch comparison failed (rc $torch_rc):"; tail -5 "$L/torch.txt"
  fi
  echo
  echo "device:     $(tail -1 "$L/device.txt")"
  echo "cold run:   rc $cold_rc, $(secs "$t0" "$t1") s wall (compiles, copy-bandwidth measurement)"
  echo "warm run:   rc $warm_rc, $(secs "$t1" "$t2") s wall"
  echo "GPU tests:  $tests_summary"
  echo "$repeat_line"
  [ -d peers ] || echo "peers/ missing: the baseline columns say 'not installed' (carry peers)"
} > "$OUT/summary.txt"
tar -czf "$OUT/logs.tgz" -C "$OUT" logs && rm -rf "$L"
cat "$OUT/summary.txt"
