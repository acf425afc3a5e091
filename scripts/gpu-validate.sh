#!/usr/bin/env bash
# On the GPU machine: `ako validate` (issue 18) for FLUX.1, Wan 14B and HunyuanVideo, eager and
# under CUDA graphs (one --graph run each), the logs and JSON under $OUT (validate-<model>.{log,json}). Carry ["bundle-x", "peers", ".sgl-proof"]:
#   bundle-x     scripts/make-bundle.sh (bundle/bin/ako with `ako validate`, packed; unpacked here)
#   peers        scripts/fetch-sglang.sh (SGLang 0.5.23's kernels: the engine backend)
#   .sgl-proof   scripts/sglang-port-check.sh (every task ported) then
#                scripts/sglang-gpu-check.sh --prepare ... (the ported kernels, SGLang's own JIT wrappers
#                and kernels from the sglang wheel -- the engine backend's QK-norm + RoPE, RMSNorm and
#                QK-norm, built here on first use under /tmp/ako-validate-build -- and the tvm-ffi wheel)
# SGLang's CuTe DSL norm kernels (the engine's norm_scale_shift / residual_gate_norm_scale_shift)
# need nvidia-cutlass-dsl: run scripts/gpu-sglang-deps.sh in the calls before (it unpacks
# /tmp/sglang-deps/site, used here when present; without it those sites run torch in the
# engine backend and the listing says so).
#   OUT=out [MODELS="flux1 wan14b hunyuan"] [STEPS=5] [BLOCKS=2] [ARGS=...] scripts/gpu-validate.sh
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-out}
mkdir -p "$OUT"
AKO=bundle/bin/ako
scripts/gpu-unpack-bundle.sh --if-needed >&2  # bundle-x carried and no bundle/: unpack it
[ -x "$AKO" ] || { echo "gpu-validate: no $AKO (scripts/make-bundle.sh, carry bundle-x)" >&2; exit 2; }
S="$OUT/summary.txt"
: > "$S"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv,noheader >> "$S" 2>&1
python3 -c 'import torch, triton; print("torch", torch.__version__, "cuda", torch.version.cuda, "triton", triton.__version__)' >> "$S" 2>&1

# tvm-ffi as scripts/sglang-gpu-check.sh installs it (the wheel in .sgl-proof, no network)
TVMFFI=${TVMFFI_TARGET:-/tmp/tvmffi}
WHEEL=$(ls .sgl-proof/wheels/apache_tvm_ffi-*.whl 2>/dev/null | head -1)
if [ -n "$WHEEL" ] && [ ! -f "$TVMFFI/tvm_ffi/__init__.py" ]; then
  python3 -m pip install --quiet --no-deps --no-index --target "$TVMFFI" "$WHEEL" >> "$S" 2>&1 \
    || echo "gpu-validate: pip install of $WHEEL failed: the ako backend will fall back (listed)" | tee -a "$S"
fi
export PYTHONPATH=$TVMFFI${PYTHONPATH:+:$PYTHONPATH}
export TVM_FFI_CACHE_DIR=${TVM_FFI_CACHE_DIR:-/tmp/tvmffi-cache}
CUDA_HOME=${CUDA_HOME:-$(dirname "$(dirname "$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)")")}
export CUDA_HOME LD_LIBRARY_PATH=$CUDA_HOME/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
DEPS=()
[ -d /tmp/sglang-deps/site ] && DEPS=(--deps /tmp/sglang-deps/site)
echo "payload: $(sed -n 4p .sgl-proof/MANIFEST 2>/dev/null || echo 'no .sgl-proof/MANIFEST')" | tee -a "$S"
# line 5 names SGLang's own files (a payload prepared before issue 18's engine fix lacks it: the
# engine's JIT sites then run torch, each saying why)
echo "engine: $(sed -n '5{/^# engine/p}' .sgl-proof/MANIFEST 2>/dev/null | cut -c1-200)" | tee -a "$S"
echo "deps: ${DEPS[*]:-none: the CuTe DSL sites of the engine run torch}" | tee -a "$S"

RC=0
# --graph: each backend's step timed and attributed eager and as a CUDA graph, in one run
for m in ${MODELS:-flux1 wan14b hunyuan}; do
  echo "== $m ($(date -u +%H:%M:%S))" | tee -a "$S"
  $AKO validate --model "$m" --steps "${STEPS:-5}" --blocks "${BLOCKS:-2}" --graph "${DEPS[@]}" \
    --json "$OUT/validate-$m.json" ${ARGS:-} > "$OUT/validate-$m.log" 2>&1
  rc=$?; [ $rc -gt $RC ] && RC=$rc
  echo "rc $rc" | tee -a "$S"
  sed -n '/^[a-z0-9-]* on /,$p' "$OUT/validate-$m.log" | tee -a "$S"
  [ $rc -ge 2 ] && tail -25 "$OUT/validate-$m.log" | tee -a "$S"
done
echo "gpu-validate: exit $RC (0 every verdict passed, 1 a verdict failed, 2 an error)" | tee -a "$S"
exit $RC
