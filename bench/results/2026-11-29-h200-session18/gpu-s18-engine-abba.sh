#!/usr/bin/env bash
# Session 18 (nvidia-h200-x2; carry .sglang-deps/py312-5, .sgl-proof, peers, bundle/bin/ako,
# bundle/bin/ako-worker, bundle/lib;
# started while the last call's machine is warm, after the calls before it carried the CuTe DSL
# packages' parts 1-4 of 15 MiB). Two independent jobs, one per GPU, at the same time:
#  GPU 0: issue 14's four families as `ako port` wrote them into SGLang 0.5.23, every case checked
#         against float64, then timed in one process against SGLang's own kernels (CuTe DSL,
#         Triton) and torch eager, samples interleaved (session 13's gpu-s13-call3.sh) -> engine/
#  GPU 1: ABBA tunes (scripts/gpu-tune-abba.sh) of two classes named by --where: gated_act's
#         ungated gelu_tanh on the shapes where it sits at the 95% copy line, and rope's
#         ltx-video fp16 cases (1.099x over FlashInfer against the 1.1x bar) -> gated_act/, rope/
set -uo pipefail
mkdir -p "$OUT"
( export CUDA_VISIBLE_DEVICES=0
  OUT=$OUT/engine TASKS="layernorm scale_shift norm_scale_shift residual_gate_norm_scale_shift" LIMIT=${LIMIT:-540} \
    bash bench/results/2026-11-29-h200-session13/gpu-s13-call3.sh ) > "$OUT/engine.out" 2>&1 &
( export CUDA_VISIBLE_DEVICES=1
  TUNE_TIME=150 OUT=$OUT/gated_act timeout 290 scripts/gpu-tune-abba.sh gated_act flux1-image,flux1-single,ltx-video \
    --where "act == 'gelu_tanh'"
  TUNE_TIME=120 OUT=$OUT/rope timeout 250 scripts/gpu-tune-abba.sh rope ltx-video --where "dtype == 'fp16'"
  for d in gated_act rope; do [ -d "$OUT/$d/runs" ] && tar cJf "$OUT/$d/runs.tar.xz" -C "$OUT/$d" runs && rm -rf "$OUT/$d/runs"; done
) > "$OUT/abba.out" 2>&1 &
wait
echo "== GPU 0: engine timing"; cat "$OUT/engine.out"
echo "== GPU 1: ABBA tunes"; cat "$OUT/abba.out"
