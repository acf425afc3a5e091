#!/usr/bin/env bash
# Print each test ctest skipped with its reason, from ctest's log of the last run
# (build/Testing/Temporary/LastTest.log). ctest itself only says "***Skipped"; GoogleTest's
# GTEST_SKIP writes the reason into the test's output ("file:line: Skipped", then the message).
#   scripts/skipped-tests.sh [LOG]
set -euo pipefail
LOG=${1:-${AKO_BUILD_DIR:-build}/Testing/Temporary/LastTest.log}
[ -f "$LOG" ] || { echo "skipped-tests: no ctest log at $LOG" >&2; exit 2; }
awk '
  # One block per test: "N/M Testing: NAME", its output, then "Test Pass Reason:" when skipped.
  /^[0-9]+\/[0-9]+ Testing: / { name = $0; sub(/^[0-9]+\/[0-9]+ Testing: /, "", name); reason = ""; in_reason = 0; next }
  /^<end of output>$/ { in_reason = 0; next }
  /:[0-9]+: Skipped$/ && name != "" { in_reason = 1; next }
  in_reason && (/^$/ || /^\[  SKIPPED \]/) { in_reason = 0; next }
  in_reason { reason = reason (reason == "" ? "" : " ") $0; next }
  /^Skip (regular expression|return code)/ && name != "" {
    skipped[++n] = name ": " (reason == "" ? "(no reason given)" : reason)
    name = ""
  }
  END {
    if (n == 0) exit
    printf "\nSkipped tests (%d), with their reasons:\n", n
    for (i = 1; i <= n; i++) print "  " skipped[i]
  }
' "$LOG"
