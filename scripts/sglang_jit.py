"""Building and loading SGLang 0.5.23 JIT modules without SGLang installed: what
scripts/sglang_gpu_check.py (rmsnorm) and scripts/sglang_port_gpu.py (any ported task) share.

Nothing of SGLang is in this file: the wrapper unit and the build lines follow
sglang.kernels.jit.utils.compile (spec.py's _wrapper_source, ninja.py's rules, toolchain.py's
flags, arch.py's get_default_target_flags); the stand-in sglang.kernels.jit.utils below has
cache_once's semantics and SGLang's own make_cpp_args (read from the payload's cpp_args.py).
No torch at import: --build-only runs on a machine without it.
"""
from __future__ import annotations

import functools
import hashlib
import importlib.util
import os
import pathlib
import shutil
import subprocess
import sys
import time
import types

ENGINE_REL = "sglang/python/sglang/kernels"  # the engine tree's kernels folder inside the payload


def log(*a):
    print(*a, flush=True)


class Failure(Exception):
    pass


FFI_INCLUDES = (
    "#include <tvm/ffi/container/tensor.h>",
    "#include <tvm/ffi/dtype.h>",
    "#include <tvm/ffi/error.h>",
    "#include <tvm/ffi/extra/c_env_api.h>",
    "#include <tvm/ffi/function.h>",
)


def wrapper_source(files, wrappers):
    """spec._wrapper_source: the tvm-ffi includes, the kernel files by path, one export per wrapper."""
    lines = list(FFI_INCLUDES)
    lines += [f'#include "{p}"' for p in files]
    lines.append("namespace sglang {")
    lines += [f"TVM_FFI_DLL_EXPORT_TYPED_FUNC({e}, ({k}));" for e, k in wrappers]
    lines.append("}  // namespace sglang")
    return "\n".join(lines) + "\n"


def ffi_from_wheel(wheel: pathlib.Path, dest: pathlib.Path):
    """(include dirs, lib dir, lib name) of an apache-tvm-ffi wheel unpacked under dest, without
    importing it (a wheel for another CPython serves: the headers and libtvm_ffi.so are the same);
    for a Builder on a machine whose Python cannot import that wheel (the CPU tests)."""
    import zipfile
    z = zipfile.ZipFile(wheel)
    members = [m for m in z.namelist() if m.startswith(("tvm_ffi/include/", "tvm_ffi/3rdparty/dlpack/include/"))
               or m == "tvm_ffi/lib/libtvm_ffi.so"]
    z.extractall(dest, members)
    return ([str(dest / "tvm_ffi/include"), str(dest / "tvm_ffi/3rdparty/dlpack/include")],
            str(dest / "tvm_ffi/lib"), "tvm_ffi")


class Builder:
    def __init__(self, payload: pathlib.Path, build_root: pathlib.Path, arch: str, ffi=None):
        """ffi: (include dirs, lib dir, lib name); default: the installed tvm_ffi's (libinfo)."""
        self.kernel_path = (payload / ENGINE_REL / "jit").resolve()  # nvcc runs in the build folder
        self.build_root = build_root
        self.arch = arch  # "90a": sm_90a, SGL_CUDA_ARCH=900 (arch.py's jit_flag: major*100 + minor*10)
        digits = int("".join(c for c in arch if c.isdigit()))
        self.sgl_cuda_arch = (digits // 10) * 100 + (digits % 10) * 10
        if ffi is None:
            import tvm_ffi.libinfo as li
            lib = pathlib.Path(li.find_libtvm_ffi())
            ffi = ([li.find_include_path(), li.find_dlpack_include_path()], str(lib.parent), lib.stem.removeprefix("lib"))
        self.ffi_includes = list(dict.fromkeys(ffi[0]))
        self.ffi_libdir, self.ffi_lib = ffi[1], ffi[2]
        cuda_home = os.environ.get("CUDA_HOME") or str(pathlib.Path(shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc").parent.parent)
        self.cuda_home = cuda_home
        self.nvcc = os.path.join(cuda_home, "bin", "nvcc")
        self.cxx = os.environ.get("CXX") or shutil.which("c++") or "g++"

    def unit_folder(self, cuda_files, wrappers, extra_cuda_cflags=()):
        """(build folder, unit source, extra flags) of a unit: the folder is named by a key of the
        unit's text (it names the kernel files by absolute path), the extra flags and the kernel
        files' contents (scripts/sglang_prebuild.py's packs rely on this being all of it)."""
        files = [str((self.kernel_path / "csrc" / f).resolve()) for f in cuda_files]
        src = wrapper_source(files, wrappers)
        extra = [str(f) for f in extra_cuda_cflags]
        key = hashlib.sha256(src.encode() + "\0".join(extra).encode())
        for f in files:
            key.update(pathlib.Path(f).read_bytes())
        return self.build_root / f"{key.hexdigest()[:16]}", src, extra

    def build(self, name: str, cuda_files, wrappers, extra_cuda_cflags=()) -> pathlib.Path:
        """One module from one generated unit; the build folder is keyed by the unit's text, the
        extra nvcc flags (load_jit's extra_cuda_cflags: SGLang's activation asks --use_fast_math)
        and the kernel files' contents, so a load_jit asking for the same unit later finds it built
        (as SGLang's cache would), and a payload prepared again from a new port is built again."""
        d, src, extra = self.unit_folder(cuda_files, wrappers, extra_cuda_cflags)
        so = d / "module.so"
        if so.exists():
            return so
        shutil.rmtree(d, ignore_errors=True)
        d.mkdir(parents=True, exist_ok=True)
        (d / "cuda.cu").write_text(src)
        includes = [f"-I{p}" for p in self.ffi_includes + [str(self.kernel_path / "include")]]
        compile_cmd = [self.nvcc, "-MD", "-MF", "cuda.o.d", "-Xcompiler", "-fPIC",
                       f"-gencode=arch=compute_{self.arch},code=sm_{self.arch}",
                       f"-DSGL_CUDA_ARCH={self.sgl_cuda_arch}", "-std=c++20", "-O3", "--expt-relaxed-constexpr",
                       *extra, *includes, "-c", "cuda.cu", "-o", "cuda.o"]
        link_cmd = [self.cxx, "cuda.o", "-shared", f"-L{self.ffi_libdir}", f"-l{self.ffi_lib}",
                    f"-L{self.cuda_home}/lib64", "-lcudart", "-o", so.name]
        t0 = time.time()
        for cmd in (compile_cmd, link_cmd):
            with (d / "build.sh").open("a") as f:
                f.write(" ".join(cmd) + "\n")
            r = subprocess.run(cmd, cwd=d, capture_output=True, text=True)
            if r.returncode != 0:
                raise Failure(f"build of {name} failed: {' '.join(cmd)}\n{r.stdout}{r.stderr}")
        log(f"built {name}: {so} in {time.time() - t0:.1f}s")
        return so


def build_all(builder: Builder, units, jobs: int | None = None):
    """Build units [(name, cuda_files, wrappers)] in parallel (nvcc is one process per unit);
    returns [(unit, path or exception)] in the units' order."""
    from concurrent.futures import ThreadPoolExecutor
    jobs = jobs or int(os.environ.get("SGL_GPU_CHECK_JOBS", "0")) or max(1, min(len(units), os.cpu_count() or 1))
    t0 = time.time()
    with ThreadPoolExecutor(jobs) as pool:
        futures = [pool.submit(builder.build, *u) for u in units]
    log(f"{len(units)} units built in {time.time() - t0:.1f}s ({jobs} at a time)")
    return [(u, f.exception() if f.exception() is not None else f.result()) for u, f in zip(units, futures)]


def cache_once(fn):
    """sglang.kernels.jit.utils.common.cache_once: one result per argument tuple."""
    result_map = {}

    @functools.wraps(fn)
    def wrapper(*a, **kw):
        key = (a, tuple(sorted(kw.items())))
        if key not in result_map:
            result_map[key] = fn(*a, **kw)
        return result_map[key]
    return wrapper


def install_jit_utils(payload: pathlib.Path, builder: Builder, tvm_ffi, loads: list):
    """Register a stand-in sglang.kernels.jit.utils (cache_once, load_jit building with `builder`
    as SGLang's JIT would, SGLang's own make_cpp_args, and the arch helpers SGLang's own wrappers
    import: is_arch_support_pdl and get_activation_cuda_cflags as arch.py answers them on CUDA for
    the builder's target) so that a ported wrapper, or one of SGLang's own JIT wrappers, imports
    as in SGLang; `loads` collects each load_jit call's (names, cuda_wrappers)."""
    spec = importlib.util.spec_from_file_location("_sgl_cpp_args", payload / ENGINE_REL / "jit/utils/compile/cpp_args.py")
    cpp_args = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(cpp_args)  # needs only torch

    def load_jit(*names, cuda_files=None, cuda_wrappers=None, extra_cuda_cflags=None, **_):
        name = "_".join(str(n) for n in names).replace(" ", "").replace(",", "_")
        so = builder.build(f"jit_{hashlib.sha256(name.encode()).hexdigest()[:8]}", list(cuda_files or []),
                           list(cuda_wrappers or []), list(extra_cuda_cflags or []))
        loads.append((names, cuda_wrappers))
        return tvm_ffi.load_module(str(so))

    utils = types.ModuleType("sglang.kernels.jit.utils")
    utils.cache_once, utils.load_jit, utils.make_cpp_args = cache_once, load_jit, cpp_args.make_cpp_args
    # arch.py: PDL from sm_90 on; --use_fast_math for the activation kernels on CUDA
    utils.is_arch_support_pdl = cache_once(lambda: builder.sgl_cuda_arch >= 900)
    utils.get_activation_cuda_cflags = lambda: ["--use_fast_math"]
    for pkg in ("sglang", "sglang.kernels", "sglang.kernels.jit"):
        sys.modules.setdefault(pkg, types.ModuleType(pkg))
    sys.modules["sglang.kernels.jit.utils"] = utils
    return utils


def import_wrapper(path: pathlib.Path, module_name: str):
    """Import a ported wrapper file (after install_jit_utils) under its SGLang module name."""
    spec = importlib.util.spec_from_file_location(module_name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def make_expect_raise(torch, failures):
    """A checker for inputs the kernel's host checks must refuse before launching. A CUDA fault
    is not a refusal: it means the kernel ran on the bad input."""
    def expect_raise(tag, fn):
        torch.cuda.synchronize()  # a fault of an earlier step must not be blamed on this one
        try:
            fn()
            torch.cuda.synchronize()
        except Exception as e:  # noqa: BLE001
            first = str(e).splitlines()[0][:120] if str(e) else ""
            if "illegal memory access" in str(e) or type(e).__name__ == "AcceleratorError":
                failures.append(f"{tag}: launched and faulted instead of being refused ({first})")
                log(f"  {tag}: FAIL launched and faulted ({type(e).__name__}: {first})")
                return
            log(f"  {tag}: raised as it should ({type(e).__name__}: {first})")
            return
        failures.append(f"{tag}: accepted")
        log(f"  {tag}: FAIL (accepted)")
    return expect_raise


def cuda_event_median(torch, fn, iters=20, warm=5):
    """Median microseconds of fn between two CUDA events (L2-warm, launch latency included)."""
    for _ in range(warm):
        fn()
    ts = []
    for _ in range(iters):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        fn()
        b.record()
        b.synchronize()
        ts.append(a.elapsed_time(b) * 1e3)
    ts.sort()
    return ts[len(ts) // 2]
