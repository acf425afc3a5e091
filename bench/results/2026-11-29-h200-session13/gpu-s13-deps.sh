#!/usr/bin/env bash
# Session 13, calls 1 and 2 (each carries one 30 MiB part, .sglang-deps/py312-1 then -2, and nothing
# else): SGLang's CuTe DSL packages, kept in /tmp for call 3 on the same warm machine.
set -uo pipefail
scripts/gpu-sglang-deps.sh > $OUT/deps.txt 2>&1; echo "deps rc=$?: $(tail -1 $OUT/deps.txt)" | tee $OUT/summary.txt
