#!/usr/bin/env bash
# Session 20, call 17 (one nvidia-h200; carry .sglang-deps/py312-7, .sgl-proof, peers; after calls 10-16
# carried the CuTe DSL packages' parts 1-6, cut into 10 MiB parts since the repository grew): both norm
# fusions as `ako port` wrote them into SGLang 0.5.23 with the final kernel of ITERATIONS.md
# norm_scale_shift iteration 18 (the same machine code as NVRTC's build), every case checked
# through SGLang's JIT and tvm-ffi, then timed in one process against SGLang's CuTe DSL kernels and
# torch (session 13's gpu-s13-call3.sh). Everything under $OUT/engine; summary printed last.
set -uo pipefail
OUT=$OUT/engine TASKS="norm_scale_shift residual_gate_norm_scale_shift" LIMIT=${LIMIT:-420} \
  bash bench/results/2026-11-29-h200-session13/gpu-s13-call3.sh
rm -f $OUT/engine/tables.txt $OUT/engine/tables.md  # made from the JSONs here (the 8-file limit)
