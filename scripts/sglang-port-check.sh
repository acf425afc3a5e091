#!/usr/bin/env bash
# The real-SGLang proof of `ako mirror` / `ako port` (issue 4), from scratch, outside the
# repository: build a small SGLang tree holding its RMSNorm JIT kernel and every sgl_kernel/*
# header that kernel and the ported file include, plus the tvm-ffi and dlpack headers; make it a
# git repository; mirror the kernel into a scratch copy of the ako workspace (its device part must
# compile with NVRTC against the tree's own device headers); port the rmsnorm solution back;
# compile the ported file with nvcc the way SGLang's JIT does.
#
#   scripts/sglang-port-check.sh [--sglang-wheel WHL] [--tvm-ffi-wheel WHL] [--work DIR] [--ako BIN]
#
# The SGLang repository is too large to clone here, so the sources come from the sglang wheel
# on PyPI, which ships python/sglang/kernels/jit/{csrc,include} of one release (a consistent
# snapshot: files taken one by one from the repository come from different commits). Without
# --sglang-wheel / --tvm-ffi-wheel the script runs `pip download` for the pinned versions below.
# Nothing is written into the ako repository: the workspace copy lives under --work.
# Exit 0 when every step passed; the log names the failing step otherwise.
set -euo pipefail

SGLANG_VERSION=0.5.23
TVM_FFI_VERSION=0.1.15.post2
REPO=$(cd "$(dirname "$0")/.." && pwd)
WORK=/tmp/sglang-port-check
AKO=$REPO/build/ako
SGLANG_WHEEL=
TVM_FFI_WHEEL=
while [ $# -gt 0 ]; do
  case $1 in
    --sglang-wheel) SGLANG_WHEEL=$2; shift 2 ;;
    --tvm-ffi-wheel) TVM_FFI_WHEEL=$2; shift 2 ;;
    --work) WORK=$2; shift 2 ;;
    --ako) AKO=$2; shift 2 ;;
    *) echo "usage: $0 [--sglang-wheel WHL] [--tvm-ffi-wheel WHL] [--work DIR] [--ako BIN]" >&2; exit 2 ;;
  esac
done
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
[ -x "$AKO" ] || { echo "no ako binary at $AKO (build it, or pass --ako)"; exit 2; }
[ -x "$NVCC" ] || { echo "no nvcc (set NVCC)"; exit 2; }

step() { echo; echo "== $*"; }
rm -rf "$WORK"
mkdir -p "$WORK/dl"

step "1. sources: sglang $SGLANG_VERSION and apache-tvm-ffi $TVM_FFI_VERSION wheels"
if [ -z "$SGLANG_WHEEL" ]; then
  pip download --no-deps --only-binary=:all: --python-version 3.11 --platform manylinux_2_34_x86_64 \
    "sglang==$SGLANG_VERSION" -d "$WORK/dl" >/dev/null
  SGLANG_WHEEL=$(ls "$WORK"/dl/sglang-*.whl)
fi
if [ -z "$TVM_FFI_WHEEL" ]; then
  pip download --no-deps --only-binary=:all: --python-version 3.12 --platform manylinux_2_28_x86_64 \
    "apache-tvm-ffi==$TVM_FFI_VERSION" -d "$WORK/dl" >/dev/null
  TVM_FFI_WHEEL=$(ls "$WORK"/dl/apache_tvm_ffi-*.whl)
fi
echo "$SGLANG_WHEEL"; echo "$TVM_FFI_WHEEL"

step "2. the engine tree: the RMSNorm kernel and the sgl_kernel headers it includes (closure), tvm-ffi headers"
ENGINE=$WORK/sglang
KERNEL=python/sglang/kernels/jit/csrc/elementwise/rmsnorm.cuh
python3 - "$SGLANG_WHEEL" "$TVM_FFI_WHEEL" "$ENGINE" "$KERNEL" <<'PY'
import re, sys, zipfile, pathlib
sglang_whl, tvm_whl, engine, kernel = sys.argv[1:]
engine = pathlib.Path(engine)
z = zipfile.ZipFile(sglang_whl)
names = set(z.namelist())
inc_root = "sglang/kernels/jit/include/"
def put(member, rel):
    dst = engine / rel
    dst.parent.mkdir(parents=True, exist_ok=True)
    dst.write_bytes(z.read(member))
    return z.read(member).decode("utf-8", "replace")
# The kernel, then every sgl_kernel header reachable from it or from the ported file's includes.
todo = [("sglang/kernels/jit/csrc/elementwise/rmsnorm.cuh", kernel)]
todo += [(inc_root + h, "python/" + inc_root + h) for h in
         ("sgl_kernel/tensor.h", "sgl_kernel/utils.h", "sgl_kernel/utils.cuh")]
seen = set()
while todo:
    member, rel = todo.pop()
    if member in seen: continue
    seen.add(member)
    text = put(member, "python/" + member if not rel else rel)
    here = pathlib.PurePosixPath(member).parent
    for m in re.finditer(r'#\s*include\s*[<"]([^>"]+)[>"]', text):
        target = m.group(1)
        for cand in (inc_root + target, str(here / target)):
            if cand in names and cand not in seen:
                todo.append((cand, "python/" + cand))
                break
print(f"{len(seen)} files from the sglang wheel:")
for s in sorted(seen): print("  python/" + s)
t = zipfile.ZipFile(tvm_whl)
count = 0
for m in t.namelist():
    for prefix, dest in (("tvm_ffi/include/", "third_party/tvm-ffi/include/"),
                         ("tvm_ffi/3rdparty/dlpack/include/", "third_party/dlpack/include/")):
        if m.startswith(prefix) and not m.endswith("/"):
            p = engine / dest / m[len(prefix):]
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_bytes(t.read(m)); count += 1
print(f"{count} tvm-ffi / dlpack headers")
PY
git -C "$ENGINE" init -q -b main
git -C "$ENGINE" -c user.name=ako-check -c user.email=check@ako add -A
git -C "$ENGINE" -c user.name=ako-check -c user.email=check@ako commit -q -m "sglang $SGLANG_VERSION: rmsnorm kernel and its headers"
git -C "$ENGINE" log --oneline

step "3. a scratch ako workspace (the repository's rmsnorm task, solution and engine profiles)"
WS=$WORK/ws
mkdir -p "$WS"
cp -r "$REPO/tasks" "$REPO/input" "$REPO/solution" "$REPO/engines" "$WS/"
rm -f "$WS/solution/rmsnorm/provenance.json" "$WS/solution/rmsnorm/PR.md"

step "4. ako mirror (profile sglang-kernels): provenance, and NVRTC compiles the device part against the engine's headers"
# Exit 0 required: the device part (host glue and host-only includes taken out) compiles with
# NVRTC for sm_90a against the tree's own sgl_kernel/*.cuh device headers, behind the profile's
# overlays (engines/nvrtc_std, engines/sglang_nvrtc: stand-ins for the host-side headers).
(cd "$WS" && "$AKO" mirror --from "$ENGINE" --task rmsnorm --engine-profile sglang-kernels --path "$KERNEL")
python3 - "$WS/solution/rmsnorm/provenance.json" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))
print(f"provenance: {p['mirrored']['path']} @ {p['mirrored']['commit'][:12]}, {len(p['engine_headers'])} engine headers hashed")
assert p["engine_headers"], "no engine headers recorded"
PY

step "5. ako port --dry-run, then ako port"
(cd "$WS" && "$AKO" port --to "$ENGINE" --task rmsnorm --dry-run | tail -4)
(cd "$WS" && "$AKO" port --to "$ENGINE" --task rmsnorm)
git -C "$ENGINE" status --short
PORTED=python/sglang/kernels/jit/csrc/diffusion/rmsnorm.cuh
WRAPPER=python/sglang/kernels/ops/diffusion/norm/rmsnorm_jit.py

step "6. nvcc, as SGLang's JIT compiles a module (its generated wrapper unit, its flags)"
# sglang.kernels.jit.utils.compile.spec._wrapper_source: the tvm-ffi includes, the kernel by
# path, then one TVM_FFI_DLL_EXPORT_TYPED_FUNC per export inside namespace sglang. The
# template arguments are what the Python wrapper's make_cpp_args(weight, dtype) gives; the flags
# are sglang.kernels.jit.utils.arch.get_default_target_flags() for an H100 (SGL_CUDA_ARCH=900).
CU=$WORK/jit_wrapper.cu
cat > "$CU" <<EOF
#include <tvm/ffi/container/tensor.h>
#include <tvm/ffi/dtype.h>
#include <tvm/ffi/error.h>
#include <tvm/ffi/extra/c_env_api.h>
#include <tvm/ffi/function.h>
#include "$ENGINE/$PORTED"
namespace sglang {
TVM_FFI_DLL_EXPORT_TYPED_FUNC(ako_rmsnorm_w_bf16, (AkoRmsnormKernel<true, bf16_t>::run));
TVM_FFI_DLL_EXPORT_TYPED_FUNC(ako_rmsnorm_nw_bf16, (AkoRmsnormKernel<false, bf16_t>::run));
TVM_FFI_DLL_EXPORT_TYPED_FUNC(ako_rmsnorm_w_fp16, (AkoRmsnormKernel<true, fp16_t>::run));
TVM_FFI_DLL_EXPORT_TYPED_FUNC(ako_rmsnorm_nw_fp16, (AkoRmsnormKernel<false, fp16_t>::run));
}  // namespace sglang
EOF
INCLUDES="-I$ENGINE/python/sglang/kernels/jit/include -I$ENGINE/third_party/tvm-ffi/include -I$ENGINE/third_party/dlpack/include"
set -x
"$NVCC" -DSGL_CUDA_ARCH=900 -std=c++20 -O3 --expt-relaxed-constexpr -arch=sm_90a $INCLUDES -Xptxas=-v -c "$CU" -o "$WORK/jit_wrapper.o" 2> "$WORK/ptxas.log"
set +x
grep -c "Compiling entry function" "$WORK/ptxas.log" | sed 's/^/kernels compiled for sm_90a: /'
grep -m3 "registers" "$WORK/ptxas.log" || true

step "7. the engine's own kernel through the same include tree (the tree is complete)"
cat > "$WORK/engine_own.cu" <<EOF
#include <tvm/ffi/container/tensor.h>
#include "$ENGINE/$KERNEL"
EOF
"$NVCC" -DSGL_CUDA_ARCH=900 -std=c++20 -O3 --expt-relaxed-constexpr -arch=sm_90a $INCLUDES -c "$WORK/engine_own.cu" -o "$WORK/engine_own.o"
echo "compiled $KERNEL"

step "8. the Python wrapper is valid Python"
# (the byte code goes under --work: a __pycache__ in the engine would be dirt that ako port refuses)
python3 -c 'import py_compile, sys; py_compile.compile(sys.argv[1], cfile=sys.argv[2], doraise=True)' \
  "$ENGINE/$WRAPPER" "$WORK/wrapper.pyc" && echo "py_compile $WRAPPER: ok"

step "9. idempotent re-port"
(cd "$WS" && "$AKO" port --to "$ENGINE" --task rmsnorm | tail -1)

echo
echo "SGLANG-PORT-CHECK: passed (engine tree $ENGINE, workspace $WS)"
