#!/usr/bin/env bash
# The real-SGLang proof of `ako mirror` / `ako port` (issues 4 and 14), from scratch, outside the
# repository, for any task: build a small SGLang tree holding the engine kernel of each task
# (scripts/sglang_port_tasks.py: `mirror`), every sgl_kernel/* header the C++ ones and the ported
# files include, plus the tvm-ffi and dlpack headers; make it a git repository; mirror each kernel
# into a scratch copy of the ako workspace (a .cuh one's device part must compile with NVRTC
# against the tree's own device headers; a Triton / CuTe DSL one is recorded only); port each
# solution back (committed in the tree one after the other, as a user would); compile each ported
# file with nvcc the way SGLang's JIT does, one wrapper unit exporting every entry point the port
# made (flags x axis values x dtypes: every template instantiation, every baked config class).
#
#   scripts/sglang-port-check.sh [--task T]... [--sglang-wheel WHL] [--tvm-ffi-wheel WHL] [--work DIR] [--ako BIN] [--device NAME] [--strict-parity]
#
# Without --task: every task of scripts/sglang_port_tasks.py that tasks/ holds. The SGLang
# repository is too large to clone here, so the sources come from the sglang wheel on PyPI, which
# ships python/sglang/kernels/{jit,ops} of one release (a consistent snapshot). Without
# --sglang-wheel / --tvm-ffi-wheel the script runs `pip download` for the pinned versions below.
# Nothing is written into the ako repository: the workspace copy lives under --work.
# Step 6b compiles each solution kernel of the device's config (--device, default NVIDIA H200) with
# nvcc and the JIT's flags beside NVRTC's build (scripts/nvcc_nvrtc_regs.py --sass) and names every
# kernel whose registers fit fewer blocks an SM as nvcc builds it than as ako measured it, or whose
# machine code differs: there the port runs another kernel than the one ako timed (ITERATIONS.md
# norm_scale_shift iterations 17-18). A report; with --strict-parity such a kernel fails the check.
# Exit 0 when every step passed; the log names the failing step otherwise.
set -euo pipefail

SGLANG_VERSION=0.5.23
TVM_FFI_VERSION=0.1.15.post2
REPO=$(cd "$(dirname "$0")/.." && pwd)
WORK=/tmp/sglang-port-check
AKO=$REPO/build/ako
DEVICE="NVIDIA H200"
STRICT_PARITY=
SGLANG_WHEEL=
TVM_FFI_WHEEL=
TASKS=()
while [ $# -gt 0 ]; do
  case $1 in
    --task) TASKS+=("$2"); shift 2 ;;
    --sglang-wheel) SGLANG_WHEEL=$2; shift 2 ;;
    --tvm-ffi-wheel) TVM_FFI_WHEEL=$2; shift 2 ;;
    --work) WORK=$2; shift 2 ;;
    --ako) AKO=$2; shift 2 ;;
    --device) DEVICE=$2; shift 2 ;;
    --strict-parity) STRICT_PARITY=--strict; shift ;;
    *) echo "usage: $0 [--task T]... [--sglang-wheel WHL] [--tvm-ffi-wheel WHL] [--work DIR] [--ako BIN] [--device NAME] [--strict-parity]" >&2; exit 2 ;;
  esac
done
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
[ -x "$AKO" ] || { echo "no ako binary at $AKO (build it, or pass --ako)"; exit 2; }
[ -x "$NVCC" ] || { echo "no nvcc (set NVCC)"; exit 2; }
if [ ${#TASKS[@]} -eq 0 ]; then
  for t in $(python3 "$REPO/scripts/sglang_port_tasks.py" tasks); do
    [ -f "$REPO/tasks/$t/task.json" ] && TASKS+=("$t")
  done
fi
declare -A MIRROR
for t in "${TASKS[@]}"; do
  [ -f "$REPO/tasks/$t/task.json" ] || { echo "no task $t (tasks/$t/task.json)"; exit 2; }
  MIRROR[$t]=$(python3 "$REPO/scripts/sglang_port_tasks.py" mirror "$t") || exit 2
done
echo "tasks: ${TASKS[*]}"

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

step "2. the engine tree: each task's engine kernel, the sgl_kernel headers the C++ ones include (closure), tvm-ffi headers"
ENGINE=$WORK/sglang
python3 - "$SGLANG_WHEEL" "$TVM_FFI_WHEEL" "$ENGINE" "${MIRROR[@]}" <<'PY'
import re, sys, zipfile, pathlib
sglang_whl, tvm_whl, engine, *kernels = sys.argv[1:]
engine = pathlib.Path(engine)
z = zipfile.ZipFile(sglang_whl)
names = set(z.namelist())
inc_root = "sglang/kernels/jit/include/"
def put(member):
    dst = engine / "python" / member
    dst.parent.mkdir(parents=True, exist_ok=True)
    dst.write_bytes(z.read(member))
    return z.read(member).decode("utf-8", "replace")
# The kernels (engine-relative python/<member>), then every sgl_kernel header reachable from a C++
# one or from the ported files' includes.
todo = [k.removeprefix("python/") for k in kernels]
for k in todo:
    if k not in names: sys.exit(f"{k}: not in {sglang_whl}")
todo += [inc_root + h for h in ("sgl_kernel/tensor.h", "sgl_kernel/utils.h", "sgl_kernel/utils.cuh")]
# The ops package root the sglang-kernels profile takes as python_root: a task whose engine kernel is
# a JIT .cuh (qknorm) brings no ops/ file of its own.
todo.append("sglang/kernels/ops/__init__.py")
seen = set()
while todo:
    member = todo.pop()
    if member in seen: continue
    seen.add(member)
    text = put(member)
    if member.endswith(".py"): continue
    here = pathlib.PurePosixPath(member).parent
    for m in re.finditer(r'#\s*include\s*[<"]([^>"]+)[>"]', text):
        target = m.group(1)
        for cand in (inc_root + target, str(here / target)):
            if cand in names and cand not in seen:
                todo.append(cand)
                break
# The profile's python_root (which `ako mirror` takes as the mark of an engine checkout) and its
# kernel root exist in any SGLang checkout; a run whose tasks all mirror .cuh kernels (rmsnorm,
# gated_act) or all a .py kernel copies nothing into one of them, so both are made here.
(engine / "python/sglang/kernels/ops").mkdir(parents=True, exist_ok=True)
(engine / "python/sglang/kernels/jit/csrc").mkdir(parents=True, exist_ok=True)
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
G() { git -C "$ENGINE" -c user.name=ako-check -c user.email=check@ako "$@"; }
G init -q -b main
G add -A
G commit -q -m "sglang $SGLANG_VERSION: the families' engine kernels and their headers"
G log --oneline

step "3. a scratch ako workspace (the repository's tasks, references, solutions and engine profiles)"
WS=$WORK/ws
mkdir -p "$WS"
cp -r "$REPO/tasks" "$REPO/input" "$REPO/solution" "$REPO/engines" "$WS/"
for t in "${TASKS[@]}"; do rm -f "$WS/solution/$t/provenance.json" "$WS/solution/$t/PR.md"; done

K=python/sglang/kernels
INCLUDES="-I$ENGINE/$K/jit/include -I$ENGINE/third_party/tvm-ffi/include -I$ENGINE/third_party/dlpack/include"
# sglang.kernels.jit.utils.arch.get_default_target_flags() for an H100/H200 (SGL_CUDA_ARCH=900)
JIT_FLAGS="-DSGL_CUDA_ARCH=900 -std=c++20 -O3 --expt-relaxed-constexpr -arch=sm_90a"
n=0
for t in "${TASKS[@]}"; do
  n=$((n + 1))
  step "4.$n $t: ako mirror ${MIRROR[$t]} (profile sglang-kernels)"
  # Exit 0 required: a .cuh kernel's device part compiles with NVRTC for sm_90a against the tree's
  # own sgl_kernel/*.cuh headers behind the profile's overlays; a .py kernel is recorded only.
  (cd "$WS" && "$AKO" mirror --from "$ENGINE" --task "$t" --engine-profile sglang-kernels --path "${MIRROR[$t]}")
  python3 - "$WS/solution/$t/provenance.json" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))
print(f"provenance: {p['mirrored']['path']} @ {p['mirrored']['commit'][:12]}, {len(p['engine_headers'])} engine headers hashed")
assert p["engine_headers"] or p["mirrored"]["path"].endswith(".py"), "no engine headers recorded"
PY

  step "5.$n $t: ako port --dry-run, then ako port (committed in the tree)"
  (cd "$WS" && "$AKO" port --to "$ENGINE" --task "$t" --dry-run | tail -4)
  (cd "$WS" && "$AKO" port --to "$ENGINE" --task "$t")
  G status --short
  G add -A
  G commit -q -m "ako port $t"
  # The files are named by the task's port.op (default: the task's name), as the profile says.
  OP=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1])).get("port", {}).get("op", sys.argv[2]))' \
    "$REPO/tasks/$t/task.json" "$t")
  PORTED=$K/jit/csrc/diffusion/$OP.cuh
  WRAPPER=$K/ops/diffusion/norm/${OP}_jit.py

  step "6.$n $t: nvcc, as SGLang's JIT compiles a module: one unit exporting every entry point the port made"
  # sglang.kernels.jit.utils.compile.spec._wrapper_source: the tvm-ffi includes, the kernel by
  # path, one TVM_FFI_DLL_EXPORT_TYPED_FUNC per export inside namespace sglang; the template
  # arguments are what the wrapper's make_cpp_args gives (scripts/sglang_port_entries.py reads
  # them from task.json and the wrapper's own axis tables).
  python3 "$REPO/scripts/sglang_port_entries.py" "$REPO/tasks/$t/task.json" "$ENGINE/$WRAPPER" | sed 's/^/  /'
  # Two shares of the entries, compiled side by side (this machine's two cores).
  pids=()
  for i in 0 1; do
    CU=$WORK/jit_wrapper_${t}_$i.cu
    python3 "$REPO/scripts/sglang_port_entries.py" "$REPO/tasks/$t/task.json" "$ENGINE/$WRAPPER" --unit "$ENGINE/$PORTED" --shard "$i/2" > "$CU"
    echo "$NVCC $JIT_FLAGS $INCLUDES -Xptxas=-v -c $CU -o $WORK/jit_wrapper_${t}_$i.o"
    # shellcheck disable=SC2086
    "$NVCC" $JIT_FLAGS $INCLUDES -Xptxas=-v -c "$CU" -o "$WORK/jit_wrapper_${t}_$i.o" 2> "$WORK/ptxas_${t}_$i.log" &
    pids+=($!)
  done
  for i in 0 1; do
    wait "${pids[$i]}" || { cat "$WORK/ptxas_${t}_$i.log"; echo "nvcc failed for $t (share $i)"; exit 1; }
  done
  cat "$WORK"/ptxas_"${t}"_?.log > "$WORK/ptxas_$t.log"
  echo "entry points: $(cat "$WORK"/jit_wrapper_"${t}"_?.cu | grep -c TVM_FFI_DLL_EXPORT); kernels compiled for sm_90a: $(grep -c 'Compiling entry function' "$WORK/ptxas_$t.log")"
  SPILLS=$(grep -c -E '[1-9][0-9]* bytes spill (stores|loads)' "$WORK/ptxas_$t.log" || true)
  echo "kernels that spill: $SPILLS"; grep -m2 "registers" "$WORK/ptxas_$t.log" || true

  step "6b.$n $t: each solution kernel from nvcc (the JIT's flags) against NVRTC's build (what ako timed): registers, occupancy, machine code; $DEVICE config"
  set +e
  python3 "$REPO/scripts/nvcc_nvrtc_regs.py" "$t" --device "$DEVICE" --ako "$AKO" --nvcc "$NVCC" \
    --sass --json "$WORK/regs_$t.json" $STRICT_PARITY > "$WORK/regs_$t.txt" 2>&1
  rc=$?
  set -e
  cat "$WORK/regs_$t.txt"
  [ $rc -eq 1 ] && { echo "$t: nvcc_nvrtc_regs.py failed (above)"; exit 1; }
  [ $rc -eq 2 ] && { echo "$t: nvcc's build fits fewer blocks an SM than NVRTC's, or its machine code differs, on the kernels above (--strict-parity)"; exit 1; }

  step "7.$n $t: the Python wrapper is valid Python"
  # (the byte code goes under --work: a __pycache__ in the engine would be dirt that ako port refuses)
  python3 -c 'import py_compile, sys; py_compile.compile(sys.argv[1], cfile=sys.argv[2], doraise=True)' \
    "$ENGINE/$WRAPPER" "$WORK/wrapper_$t.pyc" || { echo "$WRAPPER: not valid Python"; exit 1; }
  echo "py_compile $WRAPPER: ok"
done

step "8. the engine's own C++ kernels through the same include tree (the tree is complete)"
for t in "${TASKS[@]}"; do
  case ${MIRROR[$t]} in
    *.cuh)
      printf '#include <tvm/ffi/container/tensor.h>\n#include "%s"\n' "$ENGINE/${MIRROR[$t]}" > "$WORK/engine_own_$t.cu"
      # shellcheck disable=SC2086
      "$NVCC" $JIT_FLAGS $INCLUDES -c "$WORK/engine_own_$t.cu" -o "$WORK/engine_own_$t.o"
      echo "compiled ${MIRROR[$t]}" ;;
    *) echo "${MIRROR[$t]}: Python, nothing to compile" ;;
  esac
done

step "9. idempotent re-port"
for t in "${TASKS[@]}"; do
  (cd "$WS" && "$AKO" port --to "$ENGINE" --task "$t" | tail -1) | grep -q "PORT: unchanged" \
    || { echo "$t: re-port changed the engine"; exit 1; }
  echo "$t: PORT: unchanged"
done

echo
echo "SGLANG-PORT-CHECK: passed for ${TASKS[*]} (engine tree $ENGINE, workspace $WS)"
