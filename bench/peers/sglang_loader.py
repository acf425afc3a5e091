"""Import SGLang 0.5.23's diffusion kernel modules from peers/sglang-0.5.23/ (scripts/fetch-sglang.sh)
without importing the sglang package.

`import sglang` runs sglang/__init__.py, which pulls in transformers, the server and the
language frontend; sglang.kernels' and sglang.kernels.ops.diffusion's __init__ files build
the kernel registry (msgspec). None of that is needed to call a kernel, and the GPU machine
has no network to install it. So the packages on the way to the kernel modules are registered
here as bare packages whose __path__ is the extracted folder: the kernel modules and the
light packages under them (norm/, modulate/, common/, kda_kernels/) then load from SGLang's own
files, unchanged. Four helpers that those files import from heavy modules are stood in for,
each doing what it does on a CUDA machine for the calls timed here:

  sglang.multimodal_gen.runtime.platforms.current_platform
      is_cuda() etc., from torch (SGLang asks its platform plugin registry);
  sglang.srt.utils.is_gfx1250_supported      -> False (an AMD gfx1250 check);
  sglang.srt.utils.custom_op.register_custom_op
      returns the function itself: SGLang wraps it as a torch custom op so torch.compile
      treats it as opaque; in eager mode the same function runs (CPU dispatch differs only);
  sglang.kernels.jit.utils (cache_once, get_jit_cuda_arch, load_jit, make_cpp_args)
      cache_once and get_jit_cuda_arch as SGLang's; load_jit raises: building JIT CUDA
      modules needs SGLang's build stack. On sm_90 the timed paths never reach it (the KDA
      native kernels behind it are Blackwell-only); where they would, the peer fails loudly;
  sglang.kernels.ops.quantization.fp8_kernel / fp8_utils
      fp8 constants (e4m3fn, +-448) that layernorm_modulate_triton passes to its kernel's
      unused FP8 branch (QUANTIZE_FP8=False in the timed call).

If einops is not installed, `rearrange` is given for the two patterns norm_fusion.py uses
('d -> 1 1 d', 'b d -> b 1 d': views), and `EINOPS_STOOD_IN` says so."""
import functools
import importlib
import importlib.util
import pathlib
import sys
import types

VERSION = "0.5.23"
ROOT = pathlib.Path(__file__).resolve().parents[2] / "peers" / f"sglang-{VERSION}"
HINT = "run scripts/fetch-sglang.sh (or scripts/fetch-sglang.sh --wheel FILE offline)"
EINOPS_STOOD_IN = False

# Packages registered bare (their __init__ is not run), with the folder they stand for.
_BARE = ("sglang", "sglang.kernels", "sglang.kernels.ops", "sglang.kernels.ops.diffusion", "sglang.kernels.jit",
         "sglang.kernels.ops.quantization", "sglang.srt", "sglang.multimodal_gen", "sglang.multimodal_gen.runtime")
_installed = False


class Unavailable(RuntimeError):
    """SGLang's files or a package its kernel needs are missing: the peer's column says this."""


def require_files(*relative):
    if not (ROOT / "MANIFEST").is_file():
        raise Unavailable(f"SGLang {VERSION} files missing: no {ROOT / 'MANIFEST'}; {HINT}")
    for r in relative:
        if not (ROOT / r).is_file():
            raise Unavailable(f"SGLang {VERSION} file missing: {ROOT / r}; {HINT}")


def _module(name, **attrs):
    m = types.ModuleType(name)
    m.__dict__.update(attrs)
    sys.modules[name] = m
    return m


def _platform():
    import torch

    cuda = torch.version.cuda is not None and torch.cuda.is_available()
    hip = torch.version.hip is not None and torch.cuda.is_available()
    no = staticmethod(lambda: False)

    class CurrentPlatform:
        is_cuda = staticmethod(lambda: cuda)
        is_hip = is_rocm = staticmethod(lambda: hip)
        is_npu = is_mps = is_musa = is_xpu = no
        is_cpu = staticmethod(lambda: not (cuda or hip))

    return CurrentPlatform()


def _register_custom_op(fn=None, **_):
    return fn if fn is not None else (lambda f: f)


def _cache_once(fn):
    return functools.lru_cache(maxsize=None)(fn)


def _load_jit(*args, **kwargs):
    raise Unavailable("this path needs SGLang's JIT CUDA build (sglang.kernels.jit.utils.load_jit), "
                      "which ako's loader does not provide; on sm_90 SGLang does not take it")


def _jit_cuda_arch():
    import torch

    major, minor = torch.cuda.get_device_capability()
    return types.SimpleNamespace(major=major, minor=minor)


def _fp8_dtype_to_triton(dtype):
    import torch
    import triton.language as tl

    return {torch.float8_e4m3fn: tl.float8e4nv, torch.float8_e5m2: tl.float8e5}[dtype]


def _rearrange(t, pattern):
    views = {"d -> 1 1 d": lambda t: t.reshape(1, 1, t.shape[0]), "b d -> b 1 d": lambda t: t[:, None, :]}
    if pattern not in views:
        raise NotImplementedError(f"ako's einops stand-in has no pattern {pattern!r}; install einops")
    return views[pattern](t)


def install():
    """Register the bare packages and the stand-ins (once)."""
    global _installed, EINOPS_STOOD_IN
    if _installed:
        return
    require_files()
    import torch

    for name in _BARE:
        if name in sys.modules and not getattr(sys.modules[name], "__ako_bare__", False):
            raise Unavailable(f"module {name} is already imported from elsewhere "
                              f"({getattr(sys.modules[name], '__file__', '?')}); run without an installed sglang on the path")
        folder = ROOT / name.replace(".", "/")
        _module(name, __path__=[str(folder)], __package__=name, __ako_bare__=True)
    _module("sglang.multimodal_gen.runtime.platforms", current_platform=_platform())
    _module("sglang.srt.utils", __path__=[], is_gfx1250_supported=lambda: False, __ako_bare__=True)
    _module("sglang.srt.utils.custom_op", register_custom_op=_register_custom_op)
    jit_utils = _module("sglang.kernels.jit.utils", cache_once=_cache_once, load_jit=_load_jit,
                        make_cpp_args=_load_jit, get_jit_cuda_arch=_jit_cuda_arch)
    jit_utils.__path__ = []
    _module("sglang.kernels.ops.quantization.fp8_kernel", fp8_dtype=torch.float8_e4m3fn, fp8_max=448.0, fp8_min=-448.0)
    _module("sglang.kernels.ops.quantization.fp8_utils", fp8_dtype_to_triton=_fp8_dtype_to_triton)
    if importlib.util.find_spec("einops") is None:
        _module("einops", rearrange=_rearrange)
        EINOPS_STOOD_IN = True
    _installed = True


def load(module, needs=()):
    """Import sglang.<module> from the extracted files; `needs`: packages to check first, so a
    missing one is reported by name rather than as an ImportError deep inside."""
    for pkg in needs:
        try:
            found = importlib.util.find_spec(pkg) is not None
        except (ImportError, ValueError):
            found = False
        if not found:
            raise Unavailable(f"needs the Python package providing '{pkg}', which is not installed")
    require_files("sglang/" + module.replace(".", "/") + ".py")
    install()
    try:
        return importlib.import_module("sglang." + module)
    except Unavailable:
        raise
    except ImportError as e:
        raise Unavailable(f"importing sglang.{module}: {e}") from e
