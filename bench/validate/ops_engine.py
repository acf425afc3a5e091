"""The `engine` backend: at each site, the kernel SGLang 0.5.23's diffusion runtime runs on CUDA.
Its Triton and CuTe DSL kernels load from peers/sglang-0.5.23 (bench/peers/sglang_loader.py, no
sglang install), the same calls as bench/peers/<family>.py's engine peers; its JIT CUDA kernels
are built from the payload through SGLang's own Python wrappers (engine_jit.py). Where the
runtime's kernel is in sgl-kernel or FlashInfer (compiled wheels not installed on the GPU
machine), or its guard declines the site, the site runs the torch form and the impl name says
why; where the runtime itself runs torch, the impl name says that (dispatch.py lists each site).

Which kernel per family (context/sglang_modulation.md, bench/peers/*.py; the runtime's files in
sglang/multimodal_gen/runtime/{layers,models/dits}):
  rmsnorm            SGLang's JIT RMSNorm (elementwise/rmsnorm.cuh) through ops/layernorm/norm.py's
                     rmsnorm: the JIT twin of RMSNorm.forward_cuda's sgl_kernel.rmsnorm
  norm_scale_shift   fused_norm_scale_shift (CuTe DSL), C % 256 == 0 and C <= 8192;
                     else FLUX's fused_layernorm_modulate (KDA Triton) for bf16 [B,C]
  residual_gate_norm_scale_shift   fused_scale_residual_norm_scale_shift (CuTe DSL), same guard
  layernorm          norm_infer (Triton)
  scale_shift        fuse_scale_shift_kernel (Triton)
  rope               apply_rotary_embedding (Triton), interleaved and R == D
  qknorm_rope        fused_inplace_qknorm_rope (JIT diffusion/qknorm_rope.cuh) through
                     ops/diffusion/rope/qknorm_rope_jit.py, under apply_qk_norm_rope's conditions
                     and its guard can_use_fused_inplace_qknorm_rope: the attention of FLUX.1, FLUX.2,
                     Qwen-Image and Z-Image (apply_qk_norm_with_optional_rope). (SGLang's
                     HunyuanVideo block instead norms q / k (FlashInfer's qk_rmsnorm_cute, else the
                     Triton one-pass RMSNorm) and applies RoPE inside its Triton qkv pack; the
                     impl name says so on that model)
  qknorm             across heads (Wan, LTX: RMSNorm(C) on q and k): SGLang's JIT RMSNorm over the
                     C-wide rows, out of place as RMSNorm.forward_cuda returns, the twin of its
                     sgl_kernel.rmsnorm. (SGLang's Wan block fuses this norm with the RoPE in a CuTe
                     DSL kernel built on FlashInfer's norm utils, not installed; the validate step
                     keeps QK-norm and RoPE two sites.) Per head: fused_inplace_qknorm (JIT
                     elementwise/qknorm.cuh) under apply_qk_norm's conditions and guard
  gated_act          gelu_tanh: torch, as the runtime runs it (nn.GELU(approximate="tanh") in the
                     MLP; at quality "lossless" it folds the GELU into fc_in's cublasLt epilogue,
                     torch._addmm_activation, a GEMM fusion outside this site); gelu_tanh_and_mul:
                     torch (GeluAndMul.forward_cuda is forward_native); silu_and_mul: FLUX.2's
                     fused_packed_silu_mul_bitexact (Triton), Z-Image's SiluAndMul: the JIT
                     activation (elementwise/activation.cuh) through ops/activation/activation.py"""
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
PEER_MODULES = (CUTE, LN_MOD, NORM_INFER, SCALE_SHIFT, ROTARY, SWIGLU)

# gated_act where SGLang's runtime runs torch itself: the impl names the runtime's op
RUNTIME_TORCH = {
    "gelu_tanh": "torch: SGLang's MLP runs nn.GELU(approximate='tanh') here (at quality 'lossless' the GELU rides "
                 "fc_in's cublasLt epilogue, torch._addmm_activation: a GEMM fusion outside this site)",
    "gelu_tanh_and_mul": "torch: SGLang's GeluAndMul.forward_cuda is its forward_native",
}


def _mod(t, B, C):
    """A [B,1,C] operand in the (B, C) form the CuTe DSL kernels take; a scalar [1] as it is."""
    return t if t is None or t.numel() == 1 else t.reshape(B, C)


class EngineOps:
    name = "engine"

    def __init__(self, payload=None, model=None):
        self.why = dict(self.WHY)  # family -> why its last site ran the torch form
        self._cs = {}
        self.payload, self.model = payload, model
        self._env = None           # engine_jit.JitEnv, or why there is none (a string)

    def __call__(self, family, *args, **kw):
        fn = getattr(self, family, None)
        got = fn(*args, **kw) if fn is not None else None
        if got is not None:
            return got
        why = self.why.get(family, "no engine kernel callable from Python here")
        return getattr(ops_torch, family)(*args, **kw), f"torch ({why})"

    WHY = {"rmsnorm": "SGLang's JIT RMSNorm (ops/layernorm/norm.py) is not in the payload, and sgl-kernel is not installed here",
           "qknorm": "SGLang's JIT RMSNorm / fused_inplace_qknorm (ops/layernorm/norm.py) is not in the payload",
           "qknorm_rope": "SGLang's fused_inplace_qknorm_rope (ops/diffusion/rope/qknorm_rope_jit.py) is not in the payload"}

    def _wrapper(self, family, name):
        """SGLang's JIT wrapper module, or None with the family's why set."""
        if self._env is None:
            if self.payload is None:
                self._env = "no payload given (--payload)"
            else:
                try:
                    from . import engine_jit
                    self._env = engine_jit.setup(self.payload)
                except Exception as e:  # noqa: BLE001  no tvm-ffi, no payload: the JIT sites say so
                    self._env = f"SGLang's JIT set-up failed: {type(e).__name__}: {str(e).splitlines()[0][:200] if str(e) else ''}"
        m = self._env if isinstance(self._env, str) else self._env.wrapper(name)
        if isinstance(m, str):
            self.why[family] = m
            return None
        return m

    def _refused(self, family, why):
        self.why[family] = why
        return None

    def _ran(self, family, fn, **kw):
        """fn(**kw) (a JIT wrapper's entry); False with the family's why set when it raised (its
        first call builds the module: a build or a host check that fails is named, not fatal)."""
        try:
            fn(**kw)
            return True
        except Exception as e:  # noqa: BLE001
            self._refused(family, f"{fn.__module__}.{fn.__name__} raised {type(e).__name__}: "
                                  f"{str(e).splitlines()[0][:200] if str(e) else ''}")
            return False

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

    def _jit_rms(self, family, x2, weight, eps):
        """norm.rmsnorm on [N, C] rows (a row stride of its own is fine), out of place."""
        from .engine_jit import rmsnorm_refusal
        why = rmsnorm_refusal(str(x2.dtype), None if weight is None else str(weight.dtype), x2.shape[-1])
        if why is not None:
            return self._refused(family, why)
        m = self._wrapper(family, "sglang.kernels.ops.layernorm.norm")
        if m is None:
            return None
        out = x2.new_empty(x2.shape)  # contiguous, as the runtime's RMSNorm returns
        return out if self._ran(family, m.rmsnorm, input=x2, weight=weight, out=out, eps=eps) else None

    def rmsnorm(self, x, weight, eps):
        """SGLang's JIT RMSNorm (ops/layernorm/norm.py's rmsnorm: its kernel struct picked by hidden
        size, PDL from sm_90), for RMSNorm.forward_cuda's sgl_kernel.rmsnorm."""
        if weight is None or not x.is_contiguous():
            return self._refused("rmsnorm", "no weight, or strided rows: RMSNorm.forward_cuda's forms only")
        out = self._jit_rms("rmsnorm", x.reshape(-1, x.shape[-1]), weight, eps)
        return None if out is None else (out.view(x.shape), "sglang_jit rmsnorm")

    def qknorm(self, q, k, q_weight, k_weight, eps, across_heads):
        if across_heads:
            N = q.shape[0]
            outs = [self._jit_rms("qknorm", t.reshape(N, -1), w, eps) for t, w in ((q, q_weight), (k, k_weight))]
            if any(o is None for o in outs):
                return None
            return ((outs[0].view(q.shape), outs[1].view(k.shape)),
                    "sglang_jit rmsnorm across heads (Wan's block fuses it with RoPE: CuTe DSL on FlashInfer, not here)")
        D = q.shape[-1]
        if not (str(q.dtype) in ("torch.float16", "torch.bfloat16") and q_weight.dtype == q.dtype == k.dtype == k_weight.dtype):
            return self._refused("qknorm", f"dtype {q.dtype}: apply_qk_norm's fused path wants one half type")
        if not (q.is_contiguous() and k.is_contiguous()):
            return self._refused("qknorm", "q or k is not contiguous: apply_qk_norm runs RMSNorm per head there "
                                           "(triton_one_pass_rms_norm / sgl_kernel.rmsnorm)")
        m = self._wrapper("qknorm", "sglang.kernels.ops.layernorm.norm")
        if m is None:
            return None
        if not m.can_use_fused_inplace_qknorm(D, q.dtype):
            return self._refused("qknorm", f"can_use_fused_inplace_qknorm({D}, {q.dtype}) is False")
        if not self._ran("qknorm", m.fused_inplace_qknorm, q=q.view(q.shape[0], -1, D), k=k.view(k.shape[0], -1, D),
                         q_weight=q_weight, k_weight=k_weight, head_dim=D, eps=eps):
            return None
        return (q, k), "sglang_jit qknorm"

    def qknorm_rope(self, q, k, q_weight, k_weight, cos_sin_cache, pos, eps, neox):
        """apply_qk_norm_rope's fused path: fused_inplace_qknorm_rope on q, k [N, H, D] in place."""
        import os
        from .engine_jit import qknorm_rope_refusal
        D, R = q.shape[-1], cos_sin_cache.shape[-1]
        enabled = os.environ.get("SGLANG_ENABLE_FUSED_QKNORM_ROPE", "1").lower() not in {"0", "false", "off", "no"}
        why = qknorm_rope_refusal(str(q.dtype), str(k.dtype), (str(q_weight.dtype), str(k_weight.dtype)),
                                  q.is_contiguous() and k.is_contiguous(), R, D, enabled)
        if why is not None:
            return self._refused("qknorm_rope", why)
        m = self._wrapper("qknorm_rope", "sglang.kernels.ops.diffusion.rope.qknorm_rope_jit")
        if m is None:
            return None
        if not m.can_use_fused_inplace_qknorm_rope(head_dim=D, rope_dim=R, is_neox=neox, dtype=q.dtype,
                                                   cache_dtype=cos_sin_cache.dtype):
            return self._refused("qknorm_rope", f"can_use_fused_inplace_qknorm_rope(head_dim={D}, rope_dim={R}, "
                                                f"is_neox={neox}, {q.dtype}, cache {cos_sin_cache.dtype}) is False")
        if not self._ran("qknorm_rope", m.fused_inplace_qknorm_rope, q=q.view(-1, q.shape[-2], D),
                         k=k.view(-1, k.shape[-2], D), q_weight=q_weight, k_weight=k_weight, cos_sin_cache=cos_sin_cache,
                         positions=pos, is_neox=neox, eps=eps, head_dim=D, rope_dim=R):
            return None
        impl = "sglang_jit qknorm_rope"
        if self.model == "hunyuan":
            impl += (" (FLUX.1's path; SGLang's HunyuanVideo block norms q / k with FlashInfer's qk_rmsnorm_cute or "
                     "the Triton one-pass RMSNorm and applies RoPE in its Triton qkv pack)")
        return (q, k), impl

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
        """What SGLang's runtime runs at the FFN activation, by act (and model for silu_and_mul)."""
        import torch
        if act in RUNTIME_TORCH:
            return ops_torch.gated_act(x, act), RUNTIME_TORCH[act]
        if act != "silu_and_mul":
            return self._refused("gated_act", f"act {act}: no SGLang site")
        if self.model == "zimage":  # Z-Image's FeedForward: SiluAndMul.forward_cuda -> the JIT activation
            m = self._wrapper("gated_act", "sglang.kernels.ops.activation.activation")
            if m is None:
                return None
            out = x.new_empty(x.shape[0], x.shape[-1] // 2)
            return (out, "sglang_jit silu_and_mul") if self._ran("gated_act", m.silu_and_mul, input=x, out=out) else None
        if x.dtype != torch.bfloat16:  # FLUX.2's _flux2_swiglu: bf16 only, else torch
            return ops_torch.gated_act(x, act), "torch: SGLang's FLUX.2 SwiGLU runs torch for this dtype"
        m = _load(*SWIGLU)
        if isinstance(m, str):
            return self._refused("gated_act", m)
        return m.fused_packed_silu_mul_bitexact(x.view(1, -1, x.shape[-1])).view(x.shape[0], -1), "sglang_triton silu_mul_bitexact"
