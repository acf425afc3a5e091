"""Family layernorm: y = (x - mean) * rsqrt(var + eps) * w + b over the last dimension, biased
variance, affine optional.

Peers:
  torch          F.layer_norm(x, (C,), w, b, eps): diffusers' nn.LayerNorm, one aten kernel
  sglang_triton  SGLang's LayerNorm.forward_cuda -> norm_infer (Triton _norm_infer_kernel), the
                 layer FLUX.1's and Helios' blocks build (context/sglang_modulation.md)"""
from . import family

TASKS = ("layernorm",)
OUTPUTS = ("y",)


def bind(case):
    return family.bind(case, ("weight", "bias"), OUTPUTS, default_norm="layer")


def _inputs(bound, tensors):
    from .torch_ops import operand
    x = tensors[bound.x.name]
    return x.view(-1, bound.C), operand(bound, tensors, "weight"), operand(bound, tensors, "bias")


def reference(bound, tensors):
    from .torch_ops import d, norm
    x, w, b = _inputs(bound, tensors)
    return {"y": norm("layer", d(x), d(w), d(b), bound.eps)}


def _torch(bound, tensors):
    from .torch_ops import norm
    x, w, b = _inputs(bound, tensors)
    return lambda: {"y": norm("layer", x, w, b, bound.eps)}


def _sglang_triton(bound, tensors):
    from .sglang_loader import load
    norm_infer = load("kernels.ops.diffusion.norm.norm_triton", needs=("triton",)).norm_infer
    x, w, b = _inputs(bound, tensors)
    # LayerNorm.forward_triton (layernorm.py:423-431): norm_infer(x.view(-1, hidden), w, b, eps, is_rms_norm=False)
    return lambda: {"y": norm_infer(x, w, b, eps=bound.eps, is_rms_norm=False)}


def _triton_applies(bound):
    if bound.C * (2 if bound.x.dtype != "fp32" else 4) > 65536:
        return f"norm_infer refuses rows of 64 KB or more (C = {bound.C})"
    return None


PEERS = [
    family.Peer("torch", "torch eager F.layer_norm (diffusers nn.LayerNorm)", _torch),
    family.Peer("sglang_triton", "SGLang 0.5.23 LayerNorm.forward_cuda: norm_infer (Triton)", _sglang_triton,
                applies=_triton_applies, needs=("triton",),
                files=("sglang/kernels/ops/diffusion/norm/norm_triton.py",)),
]
