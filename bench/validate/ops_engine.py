"""The `engine` backend: at each site, the kernel SGLang 0.5.23's diffusion runtime runs on CUDA,
where bench/peers can load it from peers/sglang-0.5.23 (bench/peers/sglang_loader.py, no sglang
install); the same calls as bench/peers/<family>.py's engine peers. Where the engine's kernel is
not callable from Python here (FlashInfer / sgl-kernel are not installed on the GPU machine: the
engine's qknorm, gated GELU; SGLang's JIT qknorm_rope), or its guard declines the site, the
site runs the torch form and the impl name says why (dispatch.py lists it).

Which kernel per family (context/sglang_modulation.md, bench/peers/*.py):
  rmsnorm                          SGLang's JIT RMSNorm (elementwise/rmsnorm.cuh) when the payload
                                   packs it, built by the ako backend's builder (attach_jit)
  norm_scale_shift                 fused_norm_scale_shift (CuTe DSL), C % 256 == 0 and C <= 8192;
                                   else FLUX's fused_layernorm_modulate (KDA Triton) for bf16 [B,C]
  residual_gate_norm_scale_shift   fused_scale_residual_norm_scale_shift (CuTe DSL), same guard
  layernorm                        norm_infer (Triton)
  scale_shift                      fuse_scale_shift_kernel (Triton)
  rope                             apply_rotary_embedding (Triton), interleaved and R == D
  gated_act                        fused_packed_silu_mul_bitexact (Triton), bf16 silu_and_mul"""
import functools

from . import ops_torch


@functools.lru_cache(maxsize=None)
def _load(module, needs):
    """The SGLang module, or the reason it cannot be loaded (a string)."""
    try:
        from peers.sglang_loader import load
        return load(module, needs=needs)
    except Exception as e:  # noqa: BLE001  (Unavailable, or an import error inside SGLang's file)
        return f"{type(e).__name__}: {e}"


CUTE = ("kernels.ops.diffusion.norm.scale_residual_norm_cutedsl", ("cutlass", "cuda.bindings", "tvm_ffi"))
LN_MOD = ("kernels.kda_kernels.layernorm_modulate_triton", ("triton",))
NORM_INFER = ("kernels.ops.diffusion.norm.norm_triton", ("triton",))
SCALE_SHIFT = ("kernels.ops.diffusion.modulate.scale_shift_triton", ("triton",))
ROTARY = ("kernels.ops.diffusion.rope.rotary_triton", ("triton",))
SWIGLU = ("kernels.ops.diffusion.activation.silu_mul_bitexact", ("triton",))


def _rms_class(d):
    """The RMSNorm struct SGLang 0.5.23 picks for hidden size d (None: not served)."""
    if not (d in (64, 128, 256) or (256 < d <= 8192 and d % 256 == 0) or (8192 <= d <= 16384 and d % 512 == 0)):
        return None
    if d in (64, 128, 256):
        return "RMSNormWarpKernel"
    return "RMSNormHalfKernel" if d == 512 or (d >= 2048 and d % 512 == 0) else "RMSNormKernel"


def torch_empty_like(t):
    import torch
    return torch.empty_like(t)


def _mod(t, B, C):
    """A [B,1,C] operand in the (B, C) form the CuTe DSL kernels take; a scalar [1] as it is."""
    return t if t is None or t.numel() == 1 else t.reshape(B, C)


class EngineOps:
    name = "engine"

    def __init__(self):
        self.why = dict(self.WHY)  # family -> why its last site ran the torch form
        self._cs = {}
        self.jit = None            # (Builder, tvm_ffi, payload): SGLang's own JIT kernels (attach_jit)
        self._rms = {}

    def attach_jit(self, builder, tvm_ffi, payload):
        """SGLang's JIT RMSNorm (elementwise/rmsnorm.cuh, which --prepare packs beside the ports
        when the tree has it), built with the ako backend's builder as SGLang's JIT would."""
        self.jit = (builder, tvm_ffi, payload)

    def __call__(self, family, *args, **kw):
        fn = getattr(self, family, None)
        got = fn(*args, **kw) if fn is not None else None
        if got is not None:
            return got
        why = self.why.get(family, "no engine kernel callable from Python here")
        return getattr(ops_torch, family)(*args, **kw), f"torch ({why})"

    WHY = {"rmsnorm": "SGLang's JIT RMSNorm is not in the payload (.sgl-proof) and sgl-kernel is not installed here",
           "qknorm": "SGLang's JIT fused_inplace_qknorm is not built by bench/peers",
           "qknorm_rope": "SGLang's JIT qknorm_rope is not built by bench/peers"}

    def _cute(self, C):
        if C % 256 or C > 8192:
            return None, f"C = {C}: SGLang's layer takes forward_native unless C % 256 == 0 and C <= 8192"
        m = _load(*CUTE)
        return (None, m) if isinstance(m, str) else (m, None)

    def norm_scale_shift(self, x, weight, bias, scale, shift, norm, eps):
        B, _, C = x.shape
        m, why = self._cute(C)
        if m is not None:
            return m.fused_norm_scale_shift(x, weight, bias, _mod(scale, B, C), _mod(shift, B, C), norm, eps), "sglang_cute"
        if norm == "layer" and weight is None and bias is None and x.dtype == scale.dtype == shift.dtype \
                and scale.numel() == B * C and C % 4 == 0 and C <= 8192:
            lm = _load(*LN_MOD)
            if not isinstance(lm, str):
                return lm.fused_layernorm_modulate(x, scale.reshape(B, C), shift.reshape(B, C), eps), "sglang_ln_modulate"
            why += f"; fused_layernorm_modulate: {lm}"
        self.why["norm_scale_shift"] = why
        return None

    def residual_gate_norm_scale_shift(self, residual, x, gate, weight, bias, scale, shift, norm, eps):
        B, _, C = x.shape
        m, why = self._cute(C)
        if m is None:
            self.why["residual_gate_norm_scale_shift"] = why
            return None
        y, res = m.fused_scale_residual_norm_scale_shift(residual, x, _mod(gate, B, C), weight, bias,
                                                         _mod(scale, B, C), _mod(shift, B, C), norm, eps)
        return (y, res), "sglang_cute"

    def rmsnorm(self, x, weight, eps):
        """sglang.kernels.ops.layernorm.norm's RMSNorm: its struct picked by hidden size as in
        scripts/sglang_gpu_check.py (weight required, PDL on sm_90)."""
        C = x.shape[-1]
        if self.jit is None or weight is None or not x.is_contiguous():
            return None
        builder, tvm_ffi, payload = self.jit
        if not (payload / "sglang/python/sglang/kernels/jit/csrc/elementwise/rmsnorm.cuh").is_file():
            return None
        cls = _rms_class(C)
        dt = {"torch.bfloat16": "bf16", "torch.float16": "fp16"}.get(str(x.dtype))
        if cls is None or dt is None:
            self.why["rmsnorm"] = f"SGLang's JIT RMSNorm takes no hidden size {C} / dtype {x.dtype}"
            return None
        key = (C, dt)
        if key not in self._rms:
            try:
                so = builder.build(f"sgl_rmsnorm_{C}_{dt}", ["elementwise/rmsnorm.cuh"],
                                   [("sgl_rmsnorm", f"{cls}<{C}, true, {dt}_t>::run")])
                self._rms[key] = tvm_ffi.load_module(str(so)).get_function("sgl_rmsnorm")
            except Exception as e:  # noqa: BLE001
                self._rms[key] = None
                self.why["rmsnorm"] = f"SGLang's JIT RMSNorm did not build: {str(e).splitlines()[0][:200]}"
        fn = self._rms[key]
        if fn is None:
            return None
        x2 = x.reshape(-1, C)
        out = torch_empty_like(x2)
        fn(x2, weight, out, eps)
        return out.view(x.shape), "sglang_jit"

    def layernorm(self, x, weight, bias, eps):
        m = _load(*NORM_INFER)
        if isinstance(m, str) or x.shape[-1] * x.element_size() >= 65536:
            self.why["layernorm"] = m if isinstance(m, str) else "norm_infer refuses rows of 64 KB or more"
            return None
        C = x.shape[-1]
        return m.norm_infer(x.reshape(-1, C), weight, bias, eps=eps, is_rms_norm=False).view(x.shape), "sglang_triton"

    def scale_shift(self, x, scale, shift):
        m = _load(*SCALE_SHIFT)
        if isinstance(m, str):
            self.why["scale_shift"] = m
            return None
        B, _, C = x.shape
        sc = scale if scale.numel() == 1 else scale.reshape(B, C)
        sh = shift if shift.numel() == 1 else shift.reshape(B, C)
        return m.fuse_scale_shift_kernel(x, sc, sh, scale_constant=1.0), "sglang_triton"

    def rope(self, q, k, cos_sin_cache, pos, neox):
        R, D = cos_sin_cache.shape[1], q.shape[-1]
        if neox or R != D:
            self.why["rope"] = "SGLang's Triton rotary takes interleaved pairs over the whole head only"
            return None
        m = _load(*ROTARY)
        if isinstance(m, str):
            self.why["rope"] = m
            return None
        key = (cos_sin_cache.data_ptr(), pos.data_ptr())
        if key not in self._cs:  # gathered once per forward in SGLang: not charged to the site
            rows = cos_sin_cache.index_select(0, pos)
            self._cs[key] = (rows[:, :R // 2].to(q.dtype).contiguous(), rows[:, R // 2:].to(q.dtype).contiguous())
        cos, sin = self._cs[key]
        apply = m.apply_rotary_embedding
        return (apply(q, cos, sin, interleaved=True), apply(k, cos, sin, interleaved=True)), "sglang_triton"

    def gated_act(self, x, act):
        import torch
        if act != "silu_and_mul" or x.dtype != torch.bfloat16:
            self.why["gated_act"] = ("FlashInfer's act_and_mul (sgl-kernel) is not installed here; SGLang's Triton "
                                     "SwiGLU serves bf16 silu_and_mul only")
            return None
        m = _load(*SWIGLU)
        if isinstance(m, str):
            self.why["gated_act"] = m
            return None
        return m.fused_packed_silu_mul_bitexact(x.view(1, -1, x.shape[-1])).view(x.shape[0], -1), "sglang_triton"
