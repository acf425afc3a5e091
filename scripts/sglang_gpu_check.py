#!/usr/bin/env python3
"""Build, load, check and time the `ako port`ed RMSNorm kernel as SGLang 0.5.23's JIT would.

Driven by scripts/sglang-gpu-check.sh (which installs tvm-ffi and sets PYTHONPATH); see there.
The payload (.sgl-proof/) holds the SGLang sources; nothing of SGLang is in this file: the
wrapper unit and the build lines below follow sglang.kernels.jit.utils.compile (spec.py's
_wrapper_source, ninja.py's rules, toolchain.py's flags, arch.py's get_default_target_flags).
Exit 0: every ako check passed; 1: a mismatch, build, load or wrapper failure; 2: setup error.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import pathlib
import shutil
import subprocess
import sys
import time
import traceback
import types

REPO = pathlib.Path(__file__).resolve().parent.parent
ENGINE_REL = "sglang/python/sglang/kernels"

# tasks/rmsnorm/task.json shapes (rows x cols), then one shape for each baked class the task
# shapes do not reach (the dispatch in the ported file: cols-odd, cols-mult-2, cols-mult-4,
# head-dim-64/128/256, cols-512 ... cols-8192, default), then the task's check shapes.
TASK = json.loads((REPO / "tasks/rmsnorm/task.json").read_text())
TASK_SHAPES = [(s["name"], s["rows"], s["cols"]) for s in TASK["shapes"]]
CLASS_SHAPES = [
    ("cls-odd", 257, 4097), ("cls-mult2", 129, 514), ("cls-mult4", 3, 100), ("cls-hd64", 6144 * 32, 64),
    ("cls-hd256", 4097, 256), ("cls-512", 1000, 512), ("cls-1024", 999, 1024), ("cls-4096", 6144, 4096),
    ("cls-8192", 513, 8192), ("cls-default", 300, 16384),
]
CHECK_SHAPES = [(s["name"], s["rows"], s["cols"]) for s in TASK["check_shapes"]]
QUICK = {"text-512", "flux1-single", "wan14b-480p", "qknorm-flux", "cls-odd", "cls-hd64", "cls-default", "check-3x100"}
EPS = 1e-6


def log(*a):
    print(*a, flush=True)


class Failure(Exception):
    pass


# ---------------------------------------------------------------- build, as SGLang's JIT does
FFI_INCLUDES = (
    "#include <tvm/ffi/container/tensor.h>",
    "#include <tvm/ffi/dtype.h>",
    "#include <tvm/ffi/error.h>",
    "#include <tvm/ffi/extra/c_env_api.h>",
    "#include <tvm/ffi/function.h>",
)


def wrapper_source(files, wrappers):
    lines = list(FFI_INCLUDES)
    lines += [f'#include "{p}"' for p in files]
    lines.append("namespace sglang {")
    lines += [f"TVM_FFI_DLL_EXPORT_TYPED_FUNC({e}, ({k}));" for e, k in wrappers]
    lines.append("}  // namespace sglang")
    return "\n".join(lines) + "\n"


class Builder:
    def __init__(self, payload: pathlib.Path, build_root: pathlib.Path, arch: str):
        import tvm_ffi.libinfo as li

        self.kernel_path = payload / ENGINE_REL / "jit"
        self.build_root = build_root
        self.arch = arch  # "90a": sm_90a, SGL_CUDA_ARCH=900 (arch.py's jit_flag: major*100 + minor*10)
        digits = int("".join(c for c in arch if c.isdigit()))
        self.sgl_cuda_arch = (digits // 10) * 100 + (digits % 10) * 10
        lib = pathlib.Path(li.find_libtvm_ffi())
        self.ffi_includes = list(dict.fromkeys([li.find_include_path(), li.find_dlpack_include_path()]))
        self.ffi_libdir, self.ffi_lib = str(lib.parent), lib.stem.removeprefix("lib")
        cuda_home = os.environ.get("CUDA_HOME") or str(pathlib.Path(shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc").parent.parent)
        self.cuda_home = cuda_home
        self.nvcc = os.path.join(cuda_home, "bin", "nvcc")
        self.cxx = os.environ.get("CXX") or shutil.which("c++") or "g++"

    def build(self, name: str, cuda_files, wrappers) -> pathlib.Path:
        """One module from one generated unit; the build folder is keyed by the unit's text, so a
        load_jit asking for the same unit later finds it built (as SGLang's cache would)."""
        files = [str((self.kernel_path / "csrc" / f).resolve()) for f in cuda_files]
        src = wrapper_source(files, wrappers)
        d = self.build_root / f"{hashlib.sha256(src.encode()).hexdigest()[:16]}"
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
                       *includes, "-c", "cuda.cu", "-o", "cuda.o"]
        link_cmd = [self.cxx, "cuda.o", "-shared", f"-L{self.ffi_libdir}", f"-l{self.ffi_lib}",
                    f"-L{self.cuda_home}/lib64", "-lcudart", "-o", so.name]
        t0 = time.time()
        for cmd in (compile_cmd, link_cmd):
            (d / "build.sh").open("a").write(" ".join(cmd) + "\n")
            r = subprocess.run(cmd, cwd=d, capture_output=True, text=True)
            if r.returncode != 0:
                raise Failure(f"build of {name} failed: {' '.join(cmd)}\n{r.stdout}{r.stderr}")
        log(f"built {name}: {so} in {time.time() - t0:.1f}s")
        return so


AKO_EXPORTS = [(f"ako_rmsnorm_{'w' if w else 'nw'}_{dt}", f"AkoRmsnormKernel<{'true' if w else 'false'}, {dt}_t>::run")
               for w in (True, False) for dt in ("bf16", "fp16")]


# sglang.kernels.ops.layernorm.norm picks its RMSNorm struct by hidden size (0.5.23):
def sgl_kernel_class(d: int) -> str | None:
    if not (d in (64, 128, 256) or (d > 256 and d % 256 == 0 and d <= 8192) or (d >= 8192 and d % 512 == 0 and d <= 16384)):
        return None
    if d in (64, 128, 256):
        return "RMSNormWarpKernel"
    if d == 512 or (d >= 2048 and d % 512 == 0):
        return "RMSNormHalfKernel"
    return "RMSNormKernel"


def timing_shapes(args):
    return TASK_SHAPES if not args.quick else [s for s in TASK_SHAPES if s[0] in QUICK]


def sgl_baseline_unit(args):
    """SGLang's own RMSNorm (elementwise/rmsnorm.cuh, weight required, kUsePDL = true on sm_90 as
    is_arch_support_pdl() says) for the timing shapes' widths it supports."""
    exports = []
    for cols in sorted({c for _, _, c in timing_shapes(args)}):
        k = sgl_kernel_class(cols)
        if k:
            exports += [(f"sgl_rmsnorm_{cols}_{dt}", f"{k}<{cols}, true, {dt}_t>::run") for dt in ("bf16", "fp16")]
    return ("sgl_rmsnorm_baseline", ["elementwise/rmsnorm.cuh"], exports)


# ---------------------------------------------------------------- checks
def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--payload", required=True, type=pathlib.Path)
    ap.add_argument("--out", required=True, type=pathlib.Path)
    ap.add_argument("--arch", default="90a")
    ap.add_argument("--build-only", action="store_true")
    ap.add_argument("--quick", action="store_true", help="fewer shapes")
    ap.add_argument("--no-sglang-baseline", action="store_true")
    ap.add_argument("--no-wrapper", action="store_true", help="skip stage 3 (the ported Python wrapper)")
    args = ap.parse_args()
    out_dir: pathlib.Path = args.out
    build_root = pathlib.Path(os.environ.get("SGL_GPU_CHECK_BUILD", "/tmp/sglang-gpu-check-build"))

    torch = None
    try:
        import torch  # noqa: F811  (tvm_ffi imports torch first too)
    except ImportError:
        if not args.build_only:
            log("torch is not importable: only --build-only can run here")
            return 2
    if torch is not None and not (hasattr(torch.Tensor, "__dlpack_c_exchange_api__") or hasattr(torch.Tensor, "__c_dlpack_exchange_api__")):
        # No fast DLPack exchange in this torch: tvm-ffi would JIT-build an addon (slow, needs torch's
        # headers); its fallback (torch.utils.dlpack + torch's current raw stream) is used instead.
        os.environ.setdefault("TVM_FFI_DISABLE_TORCH_C_DLPACK", "1")
    try:
        import tvm_ffi
    except Exception as e:  # noqa: BLE001
        log(f"cannot import tvm_ffi: {e}")
        return 2
    log(f"tvm_ffi {getattr(tvm_ffi, '__version__', '?')} from {pathlib.Path(tvm_ffi.__file__).parent}")
    if torch is not None:
        log(f"torch {torch.__version__} (CUDA {torch.version.cuda}); DLPack exchange API on torch.Tensor: "
            f"{hasattr(torch.Tensor, '__dlpack_c_exchange_api__')}")

    builder = Builder(args.payload, build_root, args.arch)
    log("\n== 1. the wrapper unit SGLang's JIT generates, built with its flags")
    # Every unit this run needs, built at once (nvcc is one process per unit): the four-export
    # check unit, the four units the Python wrapper's load_jit asks for (one per template-argument
    # set, export "ako_rmsnorm"), SGLang's own kernel for the timing baseline.
    units = [("ako_rmsnorm_check", ["diffusion/rmsnorm.cuh"], AKO_EXPORTS)]
    units += [(f"ako_rmsnorm<{w}, {dt}>", ["diffusion/rmsnorm.cuh"], [("ako_rmsnorm", f"AkoRmsnormKernel<{w}, {dt}>::run")])
              for w in ("true", "false") for dt in ("bf16_t", "fp16_t")]
    if not args.no_sglang_baseline:
        units.append(sgl_baseline_unit(args))
    from concurrent.futures import ThreadPoolExecutor
    t0 = time.time()
    with ThreadPoolExecutor(len(units)) as pool:
        futures = [pool.submit(builder.build, *u) for u in units]
    log(f"{len(units)} units built in {time.time() - t0:.1f}s (in parallel)")
    for u, f in zip(units, futures):
        if f.exception() is not None:
            log(f"{'FAIL' if u[0] != 'sgl_rmsnorm_baseline' else 'note (baseline only)'}: {f.exception()}")
            if u[0] != "sgl_rmsnorm_baseline":
                return 1
        elif args.build_only:
            m = tvm_ffi.load_module(str(f.result()))
            log(f"  loaded {u[0]}: {', '.join(e for e, _ in u[2] if m.get_function(e) is not None)}")
    try:
        so = builder.build("ako_rmsnorm_check", ["diffusion/rmsnorm.cuh"], AKO_EXPORTS)
        log((so.parent / "build.sh").read_text().rstrip())
        shutil.copy(so.parent / "cuda.cu", out_dir / "ako_rmsnorm_wrapper_unit.cu")
        mod = tvm_ffi.load_module(str(so))
        fns = {e: mod.get_function(e) for e, _ in AKO_EXPORTS}
    except Exception as e:  # noqa: BLE001
        log(f"FAIL: {e}")
        return 1
    log(f"loaded {so.name}: exports {', '.join(fns)}")
    if args.build_only:
        return 0
    if not torch.cuda.is_available():
        log("no CUDA device visible to torch")
        return 2
    dev = torch.device("cuda")
    log(f"device: {torch.cuda.get_device_name()}")

    failures: list[str] = []
    rows_out: list[dict] = []
    tol = TASK["tolerance"]
    dts = {"bf16": torch.bfloat16, "fp16": torch.float16}

    def reference(x, w, eps):
        xf = x.float()
        y = xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + eps)
        return y * w.float() if w is not None else y

    def compare(tag, out, ref, dt):
        atol, rtol = tol[dt]["atol"], tol[dt]["rtol"]
        o = out.float()
        err = (o - ref).abs()
        bad = ~(err <= atol + rtol * ref.abs())  # NaN counts as bad
        nbad = int(bad.sum())
        maxerr = float(err.nan_to_num(float("inf")).max()) if err.numel() else 0.0
        if nbad:
            i = int(bad.reshape(-1).to(torch.uint8).argmax())
            r, c = divmod(i, o.shape[-1])
            failures.append(f"{tag}: {nbad} elements beyond atol {atol} rtol {rtol}; max abs err {maxerr:.3g}; "
                            f"first at [{r}, {c}]: got {float(o.reshape(-1)[i])}, want {float(ref.reshape(-1)[i])}")
        return maxerr, nbad

    def call(dt, has_w, out, x, w, eps):
        fns[f"ako_rmsnorm_{'w' if has_w else 'nw'}_{dt}"](out, x, w if w is not None else x, eps)

    log("\n== 2. correctness against a float32 RMSNorm (tolerances of tasks/rmsnorm/task.json)")
    shapes = TASK_SHAPES + CLASS_SHAPES + CHECK_SHAPES
    if args.quick:
        shapes = [s for s in shapes if s[0] in QUICK]
    g = torch.Generator(device=dev).manual_seed(1234)
    SENTINEL = -7.5  # exact in bf16 and fp16
    for name, rows, cols in shapes:
        for dt, tdt in dts.items():
            x = torch.randn(rows, cols, generator=g, device=dev, dtype=torch.float32).to(tdt)
            w = (1.0 + 0.25 * torch.randn(cols, generator=g, device=dev, dtype=torch.float32)).to(tdt)
            for has_w in (True, False):
                tag = f"{name} {rows}x{cols} {dt} {'w' if has_w else 'nw'}"
                # out is the head of a bigger buffer: the tail must stay untouched
                buf = torch.full((rows * cols + 4096,), SENTINEL, device=dev, dtype=tdt)
                out = buf[: rows * cols].view(rows, cols)
                try:
                    call(dt, has_w, out, x, w if has_w else None, EPS)
                    torch.cuda.synchronize()
                except Exception as e:  # noqa: BLE001
                    failures.append(f"{tag}: raised {type(e).__name__}: {e}")
                    log(f"  {tag}: FAIL raised {e}")
                    continue
                ref = reference(x, w if has_w else None, EPS)
                maxerr, nbad = compare(tag, out, ref, dt)
                tail_ok = bool((buf[rows * cols:] == SENTINEL).all())
                if not tail_ok:
                    failures.append(f"{tag}: wrote past the end of out")
                rows_out.append({"shape": name, "rows": rows, "cols": cols, "dtype": dt, "weight": has_w,
                                 "max_abs_err": maxerr, "bad": nbad, "tail_ok": tail_ok})
                log(f"  {tag:<40} max|err| {maxerr:.3g}  {'ok' if nbad == 0 and tail_ok else 'FAIL'}")
                del buf, out, ref
            del x, w
    torch.cuda.empty_cache()

    log("\n== 2b. eps 1e-5, a side stream (tvm-ffi must hand torch's current stream to LaunchKernel), bad inputs")
    try:
        rows, cols = 4096, 3840  # Z-Image, eps 1e-5
        x = torch.randn(rows, cols, device=dev, dtype=torch.bfloat16)
        w = torch.randn(cols, device=dev, dtype=torch.bfloat16)
        out = torch.empty_like(x)
        call("bf16", True, out, x, w, 1e-5)
        torch.cuda.synchronize()
        before = len(failures)
        compare("zimage eps=1e-5 bf16 w", out, reference(x, w, 1e-5), "bf16")
        log(f"  eps 1e-5: {'ok' if len(failures) == before else 'FAIL'}")

        # On side stream s: sleep, then overwrite x, then the kernel. If the kernel were launched on
        # any other stream it would read x before the overwrite (and the check below would fail).
        rows, cols = 32760, 5120
        x_old = torch.randn(rows, cols, device=dev, dtype=torch.bfloat16)
        x_new = torch.randn(rows, cols, device=dev, dtype=torch.bfloat16)
        x = x_old.clone()
        w = torch.randn(cols, device=dev, dtype=torch.bfloat16)
        out = torch.zeros_like(x)
        torch.cuda.synchronize()
        s = torch.cuda.Stream()
        with torch.cuda.stream(s):
            torch.cuda._sleep(200_000_000)  # ~0.1 s of spinning on s
            x.copy_(x_new)
            call("bf16", True, out, x, w, EPS)
        s.synchronize()
        torch.cuda.synchronize()
        before = len(failures)
        compare("side-stream wan14b bf16 w", out, reference(x_new, w, EPS), "bf16")
        log(f"  side stream: {'ok' if len(failures) == before else 'FAIL (kernel did not run on torch current stream)'}")
        del x_old, x_new, x, out

        expect_raise = make_expect_raise(torch, failures)

        x = torch.randn(64, 3072 + 8, device=dev, dtype=torch.bfloat16)
        w = torch.randn(3072, device=dev, dtype=torch.bfloat16)
        o = torch.empty(64, 3072, device=dev, dtype=torch.bfloat16)
        expect_raise("fp16 out into the bf16 entry", lambda: call("bf16", True, o.half(), x[:, :3072].contiguous(), w, EPS))
        expect_raise("misaligned x (offset by one element)", lambda: call("bf16", True, o, x.view(-1)[1:1 + 64 * 3072].view(64, 3072), w, EPS))
        expect_raise("non-contiguous x", lambda: call("bf16", True, o, x[:, :3072], w, EPS))
        expect_raise("weight of the wrong width", lambda: call("bf16", True, o, x[:, :3072].contiguous(), w[:3064], EPS))
    except Exception as e:  # noqa: BLE001
        failures.append(f"stage 2b: {type(e).__name__}: {e}")
        traceback.print_exc()

    log("\n== 3. the ported Python wrapper (rmsnorm_jit.py) over a stand-in sglang.kernels.jit.utils")
    try:
        if args.no_wrapper:
            log("  skipped (--no-wrapper)")
        else:
            wrapper_check(args.payload, builder, tvm_ffi, torch, dev, failures, reference, compare)
    except Exception as e:  # noqa: BLE001
        failures.append(f"wrapper: {type(e).__name__}: {e}")
        traceback.print_exc()

    log("\n== 4. timing (CUDA events, median of 20 after 5 warm-ups; weight present)")
    timings = []
    try:
        timings = time_all(args, builder, tvm_ffi, torch, dev, fns, failures, reference, compare)
    except Exception as e:  # noqa: BLE001
        log(f"timing failed (not a correctness failure): {type(e).__name__}: {e}")
        traceback.print_exc()

    # Last: a kernel that accepted host pointers would fault and poison the CUDA context for
    # everything after it, so this case runs when nothing else is left to run.
    log("\n== 5. CPU tensors (must be refused before any launch)")
    try:
        xc = torch.randn(64, 3072, dtype=torch.bfloat16)
        make_expect_raise(torch, failures)(
            "CPU tensors", lambda: call("bf16", True, torch.empty_like(xc), xc, torch.randn(3072, dtype=torch.bfloat16), EPS))
    except Exception as e:  # noqa: BLE001
        failures.append(f"stage 5: {type(e).__name__}: {e}")
        traceback.print_exc()

    (out_dir / "sglang-gpu-check.json").write_text(json.dumps(
        {"device": torch.cuda.get_device_name(), "torch": torch.__version__, "tvm_ffi": getattr(tvm_ffi, "__version__", "?"),
         "correctness": rows_out, "timings": timings, "failures": failures}, indent=1))
    log(f"\nwrote {out_dir / 'sglang-gpu-check.json'}")
    if failures:
        log(f"\n{len(failures)} FAILURE(S):")
        for f in failures[:50]:
            log("  " + f)
        return 1
    log(f"\nall {len(rows_out)} correctness cases, the stream, bad-input and wrapper checks passed")
    return 0


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


def wrapper_check(payload, builder, tvm_ffi, torch, dev, failures, reference, compare):
    """Import the generated wrapper as SGLang would, with load_jit replaced by this builder."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("_sgl_cpp_args", payload / ENGINE_REL / "jit/utils/compile/cpp_args.py")
    cpp_args = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(cpp_args)  # SGLang's own make_cpp_args (needs only torch)

    def cache_once(fn):  # sglang.kernels.jit.utils.common.cache_once
        import functools
        result_map = {}

        @functools.wraps(fn)
        def wrapper(*a, **kw):
            key = (a, tuple(sorted(kw.items())))
            if key not in result_map:
                result_map[key] = fn(*a, **kw)
            return result_map[key]
        return wrapper

    loads = []

    def load_jit(*names, cuda_files=None, cuda_wrappers=None, **_):
        name = "_".join(str(n) for n in names).replace(" ", "").replace(",", "_")
        so = builder.build(f"jit_{hashlib.sha256(name.encode()).hexdigest()[:8]}", list(cuda_files or []), list(cuda_wrappers or []))
        loads.append((names, cuda_wrappers))
        return tvm_ffi.load_module(str(so))

    utils = types.ModuleType("sglang.kernels.jit.utils")
    utils.cache_once, utils.load_jit, utils.make_cpp_args = cache_once, load_jit, cpp_args.make_cpp_args
    for pkg in ("sglang", "sglang.kernels", "sglang.kernels.jit"):
        sys.modules.setdefault(pkg, types.ModuleType(pkg))
    sys.modules["sglang.kernels.jit.utils"] = utils
    path = payload / ENGINE_REL / "ops/diffusion/norm/rmsnorm_jit.py"
    spec = importlib.util.spec_from_file_location("sglang.kernels.ops.diffusion.norm.rmsnorm_jit", path)
    wrap = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(wrap)

    for dt, tdt in (("bf16", torch.bfloat16), ("fp16", torch.float16)):
        for has_w in (True, False):
            rows, cols = 4608, 3072
            x = torch.randn(rows, cols, device=dev, dtype=tdt)
            w = torch.randn(cols, device=dev, dtype=tdt) if has_w else None
            out = torch.empty_like(x)
            tag = f"wrapper ako_rmsnorm {rows}x{cols} {dt} {'w' if has_w else 'nw'}"
            try:
                ok = wrap.ako_rmsnorm(out, x, w, 1e-6)
                torch.cuda.synchronize()
            except Exception as e:  # noqa: BLE001
                failures.append(f"{tag}: raised {type(e).__name__}: {e}")
                log(f"  {tag}: FAIL raised {type(e).__name__}: {e}")
                continue
            if ok is not True:
                failures.append(f"{tag}: returned {ok!r} (fell back) on a supported case")
                log(f"  {tag}: FAIL returned {ok!r}")
                continue
            before = len(failures)
            maxerr, _ = compare(tag, out, reference(x, w, 1e-6), dt)
            log(f"  {tag}: {'ok' if len(failures) == before else 'FAIL'} (max|err| {maxerr:.3g})")
    # Fallbacks: the wrapper must answer False and write nothing.
    x = torch.randn(8, 3072, device=dev, dtype=torch.float32)
    out = torch.zeros_like(x)
    for tag, args in (("fp32 (unsupported dtype)", (out, x, None)),
                      ("non-contiguous x", (torch.zeros(8, 1536, device=dev, dtype=torch.bfloat16),
                                            torch.randn(8, 3072, device=dev, dtype=torch.bfloat16)[:, ::2], None))):
        try:
            r = wrap.ako_rmsnorm(*args, 1e-6)
        except Exception as e:  # noqa: BLE001
            failures.append(f"wrapper fallback {tag}: raised {type(e).__name__}: {e}")
            log(f"  wrapper fallback {tag}: FAIL raised {type(e).__name__}: {e}")
            continue
        if r is not False or bool(args[0].abs().sum() != 0):
            failures.append(f"wrapper fallback {tag}: returned {r!r} or wrote")
        log(f"  wrapper fallback {tag}: {'ok' if r is False else 'FAIL'}")
    log(f"  load_jit calls: {[(n, w) for n, w in loads]}")


def time_all(args, builder, tvm_ffi, torch, dev, fns, failures, reference, compare):
    import torch.nn.functional as F

    shapes = timing_shapes(args)
    sgl = {}
    if not args.no_sglang_baseline:
        try:
            name, files, exports = sgl_baseline_unit(args)
            smod = tvm_ffi.load_module(str(builder.build(name, files, exports)))
            sgl = {(int(e.split("_")[2]), e.split("_")[3]): smod.get_function(e) for e, _ in exports}
        except Exception as e:  # noqa: BLE001
            log(f"SGLang's own kernel not built, no baseline column: {str(e)[:2000]}")
            sgl = {}

    def bench(fn, iters=20, warm=5):
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

    res = []
    hdr = f"{'shape':<14} {'rows x cols':>15} {'dt':<4} {'ako us':>9} {'GB/s':>6} {'torch us':>9} {'sglang us':>9} {'vs torch':>8} {'vs sglang':>9}"
    log(hdr)
    log("-" * len(hdr))
    for name, rows, cols in shapes:
        for dt, tdt in (("bf16", torch.bfloat16), ("fp16", torch.float16)):
            x = torch.randn(rows, cols, device=dev, dtype=tdt)
            w = torch.randn(cols, device=dev, dtype=tdt)
            out = torch.empty_like(x)
            f = fns[f"ako_rmsnorm_w_{dt}"]
            t_ako = bench(lambda: f(out, x, w, EPS))
            t_torch = bench(lambda: F.rms_norm(x, (cols,), w, EPS))
            t_sgl = None
            if (cols, dt) in sgl:
                out2 = torch.empty_like(x)
                g = sgl[(cols, dt)]
                t_sgl = bench(lambda: g(x, w, out2, EPS))
                before = len(failures)
                compare(f"sglang's own {name} {dt}", out2, reference(x, w, EPS), dt)
                if len(failures) > before:  # SGLang's kernel is not under test: note, do not fail
                    log("  note: " + failures.pop())
                del out2
            gbs = (2 * rows * cols + cols) * x.element_size() / (t_ako * 1e-6) / 1e9
            r = {"shape": name, "rows": rows, "cols": cols, "dtype": dt, "ako_us": t_ako, "torch_us": t_torch,
                 "sglang_us": t_sgl, "ako_GBps": gbs}
            res.append(r)
            log(f"{name:<14} {f'{rows}x{cols}':>15} {dt:<4} {t_ako:9.1f} {gbs:6.0f} {t_torch:9.1f} "
                f"{(f'{t_sgl:9.1f}' if t_sgl else '        -')} {t_torch / t_ako:7.2f}x "
                f"{(f'{t_sgl / t_ako:8.2f}x' if t_sgl else '        -')}")
            del x, w, out
    torch.cuda.empty_cache()
    return res


if __name__ == "__main__":
    sys.exit(main())
