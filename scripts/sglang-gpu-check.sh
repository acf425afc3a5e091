#!/usr/bin/env bash
# The GPU half of the real-SGLang proof of `ako port` (issue 4): build the ported RMSNorm kernel
# the way SGLang 0.5.23's JIT builds a module, load it with tvm-ffi, call it on torch CUDA tensors
# and compare it with a float32 RMSNorm; time it against torch and SGLang's own RMSNorm kernel.
#
#   scripts/sglang-gpu-check.sh --prepare ENGINE_TREE TVM_FFI_WHEEL SGLANG_WHEEL [TYPING_EXT_WHEEL]   (CPU)
#   scripts/sglang-gpu-check.sh [--build-only] [--quick]                            (GPU machine)
#
# --prepare fills .sgl-proof/ (git-ignored through .git/info/exclude, carried to the GPU
# machine) from the engine tree `scripts/sglang-port-check.sh` ported into (its
# <work>/sglang), the apache-tvm-ffi wheel and the sglang wheel (for SGLang's make_cpp_args):
# the sgl_kernel include tree, the ported kernel and Python wrapper, SGLang's own rmsnorm.cuh,
# the wheel(s), and a MANIFEST with sha256s. (tvm-ffi imports typing_extensions>=4.13; torch brings
# it, the optional TYPING_EXT_WHEEL is installed next to tvm-ffi only where it is missing.) Nothing of SGLang is committed to this repository.
#
# Without --prepare (from the repository root, no network): checks the MANIFEST, installs the
# tvm-ffi wheel with `pip install --no-deps --target /tmp/tvmffi`, then runs
# scripts/sglang_gpu_check.py, which
#   1. writes the wrapper unit SGLang's JIT generates (spec._wrapper_source: the five tvm-ffi
#      includes, the kernel by path, TVM_FFI_DLL_EXPORT_TYPED_FUNC inside namespace sglang) with
#      exports ako_rmsnorm_{w,nw}_{bf16,fp16} = AkoRmsnormKernel<true|false, bf16_t|fp16_t>::run,
#      and builds it with SGLang's flags (nvcc -Xcompiler -fPIC -gencode=arch=compute_90a,
#      code=sm_90a -DSGL_CUDA_ARCH=900 -std=c++20 -O3 --expt-relaxed-constexpr -I... -c; then
#      c++ -shared -L<tvm_ffi/lib> -ltvm_ffi -L$CUDA_HOME/lib64 -lcudart);
#   2. loads it with tvm_ffi.load_module and calls it on torch tensors (tvm-ffi converts them
#      through DLPack and sets its environment stream to torch's current stream for the call,
#      which is the stream SGLang's LaunchKernel reads), bf16 and fp16, with and without weight,
#      on the task's shapes and one shape per baked class; compares with a float32 RMSNorm at the
#      task's tolerances; checks nothing is written past `out`, the side-stream case, and that
#      wrong dtype / misalignment raise;
#   3. imports the ported Python wrapper (rmsnorm_jit.py) over a stand-in
#      sglang.kernels.jit.utils (SGLang's own make_cpp_args, cache_once's semantics, a load_jit
#      building one module per template-argument set as above) and calls ako_rmsnorm();
#   4. times ako, torch.nn.functional.rms_norm and SGLang's own RMSNorm kernel (weight present,
#      the widths it supports) with CUDA events.
# Writes the table and a log under $OUT (or /tmp/sglang-gpu-check). Exit 0 only if every check
# of the ako kernel and wrapper passed; 1 on any mismatch, build or load error; 2 on setup errors.
# --build-only stops after building and loading the module (works without a GPU or torch).
set -euo pipefail

REPO=$(cd "$(dirname "$0")/.." && pwd)
PAY=$REPO/.sgl-proof
ENGINE_REL=sglang/python/sglang/kernels

if [ "${1:-}" = "--prepare" ]; then
  [ $# -eq 4 ] || [ $# -eq 5 ] || { echo "usage: $0 --prepare ENGINE_TREE TVM_FFI_WHEEL SGLANG_WHEEL [TYPING_EXT_WHEEL]" >&2; exit 2; }
  TREE=$2; WHL=$3; SGL_WHL=$4; TE_WHL=${5:-}
  K=$TREE/python/sglang/kernels
  for f in "$K/jit/csrc/diffusion/rmsnorm.cuh" "$K/ops/diffusion/norm/rmsnorm_jit.py" \
           "$K/jit/csrc/elementwise/rmsnorm.cuh" "$K/jit/include/sgl_kernel/utils.cuh" "$WHL" "$SGL_WHL"; do
    [ -f "$f" ] || { echo "missing: $f" >&2; exit 2; }
  done
  rm -rf "$PAY"
  mkdir -p "$PAY/$ENGINE_REL/jit/csrc/diffusion" "$PAY/$ENGINE_REL/jit/csrc/elementwise" \
           "$PAY/$ENGINE_REL/ops/diffusion/norm" "$PAY/$ENGINE_REL/jit/utils/compile" "$PAY/wheels"
  cp -r "$K/jit/include" "$PAY/$ENGINE_REL/jit/"
  cp "$K/jit/csrc/diffusion/rmsnorm.cuh" "$PAY/$ENGINE_REL/jit/csrc/diffusion/"
  cp "$K/jit/csrc/elementwise/rmsnorm.cuh" "$PAY/$ENGINE_REL/jit/csrc/elementwise/"
  cp "$K/ops/diffusion/norm/rmsnorm_jit.py" "$PAY/$ENGINE_REL/ops/diffusion/norm/"
  python3 -c 'import sys, zipfile; open(sys.argv[2], "wb").write(zipfile.ZipFile(sys.argv[1]).read("sglang/kernels/jit/utils/compile/cpp_args.py"))' \
    "$SGL_WHL" "$PAY/$ENGINE_REL/jit/utils/compile/cpp_args.py"
  cp "$WHL" "$PAY/wheels/"
  [ -z "$TE_WHL" ] || cp "$TE_WHL" "$PAY/wheels/"
  {
    echo "# .sgl-proof payload for scripts/sglang-gpu-check.sh, prepared $(date -u +%FT%TZ)"
    echo "# engine tree: $TREE (HEAD $(git -C "$TREE" rev-parse --short HEAD 2>/dev/null || echo '?'), branch $(git -C "$TREE" branch --show-current 2>/dev/null || echo '?'))"
    echo "# tvm-ffi wheel: $(basename "$WHL"); make_cpp_args from $(basename "$SGL_WHL")"
    (cd "$PAY" && find . -type f ! -name MANIFEST | LC_ALL=C sort | xargs sha256sum)
  } > "$PAY/MANIFEST"
  du -sh "$PAY"; grep -c '  ' "$PAY/MANIFEST" | sed 's/$/ files/'
  exit 0
fi

OUTDIR=${OUT:-/tmp/sglang-gpu-check}
mkdir -p "$OUTDIR"
LOG=$OUTDIR/sglang-gpu-check.log
exec > >(tee "$LOG") 2>&1

echo "== payload $PAY"
[ -f "$PAY/MANIFEST" ] || { echo "no $PAY/MANIFEST: run $0 --prepare on the CPU machine and carry .sgl-proof"; exit 2; }
head -3 "$PAY/MANIFEST"
(cd "$PAY" && grep -v '^#' MANIFEST | sha256sum --quiet -c -) || { echo "payload does not match its MANIFEST"; exit 2; }
echo "payload: $(grep -vc '^#' "$PAY/MANIFEST") files, sha256 ok"

echo "== tvm-ffi: pip install --no-deps --target /tmp/tvmffi"
TVMFFI=${TVMFFI_TARGET:-/tmp/tvmffi}
WHEEL=$(ls "$PAY"/wheels/apache_tvm_ffi-*.whl)
if [ ! -f "$TVMFFI/tvm_ffi/__init__.py" ]; then
  python3 -m pip install --quiet --no-deps --no-index --target "$TVMFFI" "$WHEEL" \
    || { echo "pip install of $WHEEL failed (the wheel is for CPython $(basename "$WHEEL" | cut -d- -f3); this is $(python3 -V))"; exit 2; }
fi
if ! python3 -c 'from typing_extensions import get_annotations' 2>/dev/null; then
  TE=$(ls "$PAY"/wheels/typing_extensions-*.whl 2>/dev/null || true)
  [ -n "$TE" ] && [ ! -f "$TVMFFI/typing_extensions.py" ] && python3 -m pip install --quiet --no-deps --no-index --target "$TVMFFI" "$TE"
fi
export PYTHONPATH=$TVMFFI${PYTHONPATH:+:$PYTHONPATH}
export TVM_FFI_CACHE_DIR=${TVM_FFI_CACHE_DIR:-/tmp/tvmffi-cache}
CUDA_HOME=${CUDA_HOME:-$(dirname "$(dirname "$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)")")}
export CUDA_HOME
export LD_LIBRARY_PATH=$CUDA_HOME/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
echo "python: $(python3 -V); nvcc: $("$CUDA_HOME/bin/nvcc" --version | tail -2 | head -1)"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv,noheader 2>/dev/null || echo "nvidia-smi: no GPU visible"

set +e
python3 "$REPO/scripts/sglang_gpu_check.py" --payload "$PAY" --out "$OUTDIR" "$@"
RC=$?
set -e
echo
echo "log: $LOG"
[ "$RC" -eq 0 ] && echo "SGLANG-GPU-CHECK: passed" || echo "SGLANG-GPU-CHECK: FAILED (exit $RC)"
exit "$RC"
