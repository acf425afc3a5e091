"""SGLang's own JIT kernels, called through SGLang's own Python wrappers, for the engine backend
(ops_engine.py); and the JIT set-up the ako backend (ops_ako.py) shares.

`scripts/sglang-gpu-check.sh --prepare` packs into the payload (.sgl-proof), from the sglang
wheel, the wrappers and CUDA sources the engine's JIT sites need (scripts/sglang_engine_files.py:
ops/layernorm/norm.py, ops/diffusion/rope/qknorm_rope_jit.py, ops/activation/activation.py and
their .cuh closure). setup() stands in sglang.kernels.jit.utils with scripts/sglang_jit.py's
(load_jit builds the unit SGLang's would, with its flags, through ako's Builder, and loads it
with tvm-ffi), then imports each wrapper file unchanged under its SGLang module name: its
guards (can_use_fused_inplace_qknorm_rope, ...), template arguments and calls are SGLang's.

The runtime's conditions around a wrapper (layernorm.py's apply_qk_norm_rope checks dtypes,
eps and layout before it asks the guard) are in the torch-free functions below, so the CPU
tests read them (bench/tests/test_validate.py)."""
import os
import pathlib
import sys

REPO = pathlib.Path(__file__).resolve().parents[2]
KERNELS = "sglang/python/sglang/kernels"  # the engine tree's kernels folder inside the payload

# module name -> payload file (kernels-relative), as scripts/sglang_engine_files.py packs them
WRAPPERS = {"sglang.kernels.ops.layernorm.norm": "ops/layernorm/norm.py",
            "sglang.kernels.ops.diffusion.rope.qknorm_rope_jit": "ops/diffusion/rope/qknorm_rope_jit.py",
            "sglang.kernels.ops.activation.activation": "ops/activation/activation.py"}
HALF = ("torch.float16", "torch.bfloat16")


def qknorm_rope_refusal(dtype, k_dtype, weight_dtypes, contiguous, cache_width, head_dim, enabled=True):
    """Why apply_qk_norm_rope (layernorm.py) would not take the fused JIT kernel before asking its
    guard (None: it asks can_use_fused_inplace_qknorm_rope). One eps serves q and k here, and
    allow_inplace is the runtime's default; the cache holds half-width cos | sin rows."""
    if not enabled:
        return "SGLANG_ENABLE_FUSED_QKNORM_ROPE is off"
    if dtype not in HALF or k_dtype != dtype or any(w != dtype for w in weight_dtypes):
        return f"dtypes {dtype} / {k_dtype} / weights {', '.join(weight_dtypes)}: the fused path wants one half type"
    if not contiguous:
        return "q or k is not contiguous (allow_strided_qk is off at these call sites)"
    if cache_width % 2 or cache_width > head_dim:
        return f"cos_sin_cache width {cache_width}: must be even and <= head_dim {head_dim}"
    return None


def rmsnorm_refusal(dtype, weight_dtype, hidden):
    """Why RMSNorm.forward_cuda's kernel (sgl_kernel.rmsnorm, whose JIT twin norm.rmsnorm serves
    here) would not take rows of `hidden` (None: it takes them): fp32 rows go to forward_native,
    rows of at most 128 to the Triton one-pass norm, and norm.rmsnorm's own hidden sizes."""
    if dtype not in HALF or weight_dtype != dtype:
        return f"dtype {dtype} / weight {weight_dtype}: the JIT RMSNorm takes one half type"
    if hidden <= 128:
        return f"hidden {hidden} <= 128: the runtime takes triton_one_pass_rms_norm there"
    if not (hidden in (64, 128, 256) or (256 < hidden <= 8192 and hidden % 256 == 0)
            or (8192 <= hidden <= 16384 and hidden % 512 == 0)):
        return f"hidden {hidden}: not a size SGLang's JIT RMSNorm serves"
    return None


_ENV = {}


class JitEnv:
    """The Builder, tvm_ffi, the stand-in utils and SGLang's wrappers imported so far."""

    def __init__(self, payload, builder, tvm_ffi, utils, loads):
        self.payload, self.builder, self.tvm_ffi, self.utils, self.loads = payload, builder, tvm_ffi, utils, loads
        self._mods = {}

    def wrapper(self, name):
        """SGLang's wrapper module `name` (WRAPPERS), or why it cannot be had (a string)."""
        if name not in self._mods:
            path = self.payload / KERNELS / WRAPPERS[name]
            if not path.is_file():
                self._mods[name] = (f"no {path.relative_to(self.payload)} in the payload (scripts/sglang-gpu-check.sh "
                                    "--prepare packs SGLang's own wrappers since issue 18: prepare it again)")
            else:
                try:
                    from sglang_jit import import_wrapper
                    self._mods[name] = import_wrapper(path, name)
                except Exception as e:  # noqa: BLE001  an import error inside SGLang's file
                    self._mods[name] = f"importing {name}: {type(e).__name__}: {e}"
        return self._mods[name]


def setup(payload, arch="90a"):
    """The process's JitEnv for `payload` (built once): the engine's Triton / CuTe DSL modules are
    loaded first (bench/peers/sglang_loader.py registers SGLang's bare packages and binds them to
    its own jit utils), then sglang.kernels.jit.utils is stood in by the builder's, SGLang's
    kernel_api_logging (which norm.py's entry points wear) is registered from the payload."""
    payload = pathlib.Path(payload)
    key = (str(payload.resolve()), arch)
    if key in _ENV:
        return _ENV[key]
    if not (payload / "MANIFEST").is_file():
        raise FileNotFoundError(f"no {payload / 'MANIFEST'}: run scripts/sglang-gpu-check.sh --prepare and carry .sgl-proof")
    if str(REPO / "scripts") not in sys.path:
        sys.path.insert(0, str(REPO / "scripts"))
    import torch
    if not (hasattr(torch.Tensor, "__dlpack_c_exchange_api__") or hasattr(torch.Tensor, "__c_dlpack_exchange_api__")):
        os.environ.setdefault("TVM_FFI_DISABLE_TORCH_C_DLPACK", "1")  # as scripts/sglang_port_gpu.py
    from sglang_jit import Builder, import_wrapper, install_jit_utils
    import tvm_ffi
    from . import ops_engine
    for m in ops_engine.PEER_MODULES:
        ops_engine._load(*m)  # the engine's modules first: they bind SGLang's own jit utils
    try:  # SGLang's bare packages and register_custom_op's stand-in, even with no Triton module loaded
        from peers.sglang_loader import install
        install()
    except Exception:  # noqa: BLE001  no peers/: a wrapper that needs them says so when imported
        pass
    before = sys.modules.get("sglang.kernels.jit.utils")
    build_root = pathlib.Path(os.environ.get("AKO_VALIDATE_BUILD", "/tmp/ako-validate-build"))
    builder = Builder(payload, build_root, arch)
    loads = []
    utils = install_jit_utils(payload, builder, tvm_ffi, loads)
    if before is not None and hasattr(before, "get_jit_cuda_arch"):
        utils.get_jit_cuda_arch = before.get_jit_cuda_arch
    logging_py = payload / KERNELS / "kernel_api_logging.py"
    if logging_py.is_file() and "sglang.kernels.kernel_api_logging" not in sys.modules:
        sys.modules["sglang.kernels.kernel_api_logging"] = import_wrapper(logging_py, "sglang.kernels.kernel_api_logging")
    env = _ENV[key] = JitEnv(payload, builder, tvm_ffi, utils, loads)
    return env
