#!/usr/bin/env bash
# Session 10, calls 9a and 9b (each carries one 30 MiB part, .sglang-deps/py312-1 then -2, and
# nothing else: with the repository a part fills the 64 MiB a call may carry): SGLang's CuTe DSL
# packages, kept in /tmp for call 10 on the same warm machine.
set -uo pipefail
scripts/gpu-sglang-deps.sh > $OUT/deps.txt 2>&1; echo "deps rc=$?: $(tail -1 $OUT/deps.txt)" | tee $OUT/summary.txt
