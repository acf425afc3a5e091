"""Family norm_scale_shift: y = norm(x; w?, b?) * (1 + scale) + shift, norm LayerNorm or RMSNorm
(a string axis with values layer/rms picks it; LayerNorm without one), scale and shift in the
broadcast forms of scale_shift, in x's dtype or fp32; y in x's dtype.

Peers:
  torch               diffusers' two forms: with fp32 scale/shift (Wan) the norm runs on
                      x.float() and the result is cast back; otherwise norm(x) * (1 + scale) + shift
                      in x's dtype (FLUX, Qwen-Image, HunyuanVideo)
  sglang_cute         LayerNormScaleShift / RMSNormScaleShift.forward_cuda -> fused_norm_scale_shift
                      (CuTe DSL; on sm_90 the KDA native path in front of it declines), the layer
                      Wan, HunyuanVideo and Qwen-Image blocks build; C % 256 == 0 and C <= 8192
  sglang_ln_modulate  fused_layernorm_modulate (KDA Triton), FLUX.1 / FLUX.2 adaLN sites:
                      LayerNorm without affine, bf16 x, bf16 [B, C] scale and shift"""
from . import family

TASKS = ("norm_scale_shift",)
OUTPUTS = ("y",)


def bind(case):
    bound = family.bind(case, ("weight", "bias", "scale", "shift"), OUTPUTS, default_norm="layer")
    if bound.scale is None or bound.shift is None:
        raise family.BindError(f"task {case.task}: norm_scale_shift needs scale and shift in case {case.label}")
    return bound


def eager(bound, x, weight, bias, scale, shift):
    """The diffusers chain on x [B, L, C]: fp32 operands (Wan) upcast x first."""
    from .scale_shift import modulate
    from .torch_ops import norm
    if scale.dtype == shift.dtype and scale.dtype != x.dtype and scale.dtype.is_floating_point \
            and scale.element_size() > x.element_size():
        w = None if weight is None else weight.to(scale.dtype)
        b = None if bias is None else bias.to(scale.dtype)
        return modulate(bound, norm(bound.norm, x.to(scale.dtype), w, b, bound.eps), scale, shift, out_dtype=x.dtype)
    return modulate(bound, norm(bound.norm, x, weight, bias, bound.eps), scale, shift, out_dtype=x.dtype)


def reference(bound, tensors):
    from .scale_shift import modulate
    from .torch_ops import d, norm, operand, x3
    x = d(x3(bound, tensors))
    n = norm(bound.norm, x, d(operand(bound, tensors, "weight")), d(operand(bound, tensors, "bias")), bound.eps)
    return {"y": modulate(bound, n, d(operand(bound, tensors, "scale")), d(operand(bound, tensors, "shift")))}


def _args(bound, tensors):
    from .torch_ops import operand, x3
    return (x3(bound, tensors), operand(bound, tensors, "weight"), operand(bound, tensors, "bias"),
            operand(bound, tensors, "scale"), operand(bound, tensors, "shift"))


def _torch(bound, tensors):
    x, w, b, sc, sh = _args(bound, tensors)
    return lambda: {"y": eager(bound, x, w, b, sc, sh)}


CUTE_NEEDS = ("cutlass", "cuda.bindings", "tvm_ffi")
CUTE_FILE = "sglang/kernels/ops/diffusion/norm/scale_residual_norm_cutedsl.py"


def cute_applies(bound):
    """_NormScaleShift.forward_cuda's guard (layernorm.py:916) and the kernel's own checks."""
    if bound.C % 256 or bound.C > 8192:
        return (f"C = {bound.C}: SGLang's layer falls back to forward_native (torch.compile'd norm + "
                f"fuse_scale_shift_kernel) unless C % 256 == 0 and C <= 8192 (layernorm.py:916)")
    if bound.norm not in ("layer", "rms"):
        return f"norm type {bound.norm!r} is neither layer nor rms"
    return None


def _sglang_cute(bound, tensors):
    from .sglang_loader import load
    fn = load("kernels.ops.diffusion.norm.scale_residual_norm_cutedsl", needs=CUTE_NEEDS).fused_norm_scale_shift
    x, w, b, sc, sh = _args(bound, tensors)
    # _NormScaleShift.forward_cuda (layernorm.py:927-935): every operand .contiguous() (no-ops here)
    return lambda: {"y": fn(x, w, b, sc, sh, bound.norm, bound.eps)}


def ln_modulate_applies(bound):
    """flux.py:121-125 and layernorm_modulate_triton.py:411-445: plain LayerNorm, bf16 [B, S, D],
    D % 4 == 0 and <= 8192, packed bf16 [B, D] scale and shift rows."""
    if bound.norm != "layer" or bound.weight is not None or bound.bias is not None:
        return "FLUX's fused LN + modulate serves LayerNorm without affine only"
    if bound.x.dtype != "bf16":
        return "FLUX's fused LN + modulate is bf16 only"
    if bound.C % 4 or bound.C > 8192:
        return f"C = {bound.C}: needs C % 4 == 0 and C <= 8192"
    for role in ("scale", "shift"):
        buf, form = getattr(bound, role), bound.forms[role]
        if buf.dtype != "bf16" or form != (bound.B, bound.C):
            return f"{role} must be packed bf16 [B, C] rows, here {buf.dtype} {list(form)}"
    return None


def _sglang_ln_modulate(bound, tensors):
    from .sglang_loader import load
    fn = load("kernels.kda_kernels.layernorm_modulate_triton", needs=("triton",)).fused_layernorm_modulate
    x, _, _, sc, sh = _args(bound, tensors)
    return lambda: {"y": fn(x, sc, sh, bound.eps)}


PEERS = [
    family.Peer("torch", "torch eager norm * (1 + scale) + shift (diffusers)", _torch),
    family.Peer("sglang_cute", "SGLang 0.5.23 LayerNormScaleShift / RMSNormScaleShift: fused_norm_scale_shift "
                "(CuTe DSL)", _sglang_cute, applies=cute_applies, needs=CUTE_NEEDS, files=(CUTE_FILE,)),
    family.Peer("sglang_ln_modulate", "SGLang 0.5.23 FLUX adaLN site: fused_layernorm_modulate (KDA Triton)",
                _sglang_ln_modulate, applies=ln_modulate_applies, needs=("triton",),
                files=("sglang/kernels/kda_kernels/layernorm_modulate_triton.py",)),
]
