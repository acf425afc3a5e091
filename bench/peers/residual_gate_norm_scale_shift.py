"""Family residual_gate_norm_scale_shift: residual_out = residual + gate * x (gate absent: + x),
then y = norm(residual_out; w?, b?) * (1 + scale) + shift; both outputs, as SGLang returns them
(y, residual_out), residual_out rounded to x's dtype before the norm reads it.

Peers:
  torch        diffusers' Wan chain: (residual + x * gate) in the promoted dtype, cast back to
               x's dtype (.type_as), then the norm_scale_shift eager chain on it
  sglang_cute  ScaleResidualLayerNormScaleShift / ScaleResidualRMSNormScaleShift.forward_cuda ->
               fused_scale_residual_norm_scale_shift (CuTe DSL; on sm_90 the KDA native path in
               front of it declines): Wan, HunyuanVideo, Qwen-Image; C % 256 == 0 and C <= 8192"""
from . import family
from .norm_scale_shift import CUTE_FILE, CUTE_NEEDS, cute_applies, eager

TASKS = ("residual_gate_norm_scale_shift",)
OUTPUTS = ("y", "residual_out")


def bind(case):
    bound = family.bind(case, ("residual", "gate", "weight", "bias", "scale", "shift"), OUTPUTS, default_norm="layer")
    if bound.residual is None or bound.scale is None or bound.shift is None:
        raise family.BindError(f"task {case.task}: needs residual, scale and shift in case {case.label}")
    return bound


def gated_residual(bound, residual, x, gate):
    """residual + gate * x on [B, L, C], gate in its broadcast form (None: + x)."""
    from .torch_ops import bview, per_frame, with_frames
    if gate is None:
        return residual + x
    frames = per_frame(bound, "gate")
    g = bview(gate, bound.forms["gate"], frames, bound.L)
    return residual + with_frames(x, frames, lambda xv: xv * g)


def _args(bound, tensors):
    from .torch_ops import operand
    r = tensors[bound.residual.name].view(bound.B, bound.L, bound.C)
    x = tensors[bound.x.name].view(bound.B, bound.L, bound.C)
    return (r, x, operand(bound, tensors, "gate"), operand(bound, tensors, "weight"), operand(bound, tensors, "bias"),
            operand(bound, tensors, "scale"), operand(bound, tensors, "shift"))


def reference(bound, tensors):
    from .torch_ops import d
    r, x, g, w, b, sc, sh = _args(bound, tensors)
    # residual_out is stored in x's dtype and the norm reads that rounded value (SGLang's kernel,
    # scale_residual_norm_cutedsl.py:156-162): the reference rounds it once, there, too
    res = gated_residual(bound, d(r), d(x), d(g)).to(x.dtype)
    y = _nss(bound, res, w, b, sc, sh)
    return {"y": y, "residual_out": res.double()}


def _nss(bound, res, w, b, sc, sh):
    from .scale_shift import modulate
    from .torch_ops import d, norm
    n = norm(bound.norm, d(res), d(w), d(b), bound.eps)
    return modulate(bound, n, d(sc), d(sh))


def _torch(bound, tensors):
    r, x, g, w, b, sc, sh = _args(bound, tensors)

    def run():
        res = gated_residual(bound, r, x, g).to(x.dtype)
        return {"y": eager(bound, res, w, b, sc, sh), "residual_out": res}
    return run


def _sglang_cute(bound, tensors):
    from .sglang_loader import load
    fn = load("kernels.ops.diffusion.norm.scale_residual_norm_cutedsl",
              needs=CUTE_NEEDS).fused_scale_residual_norm_scale_shift
    r, x, g, w, b, sc, sh = _args(bound, tensors)

    def run():
        # _ScaleResidualNormScaleShift.forward_cuda (layernorm.py:674-684); a gate of int 1 is None
        y, res = fn(r, x, g, w, b, sc, sh, bound.norm, bound.eps)
        return {"y": y, "residual_out": res}
    return run


PEERS = [
    family.Peer("torch", "torch eager residual + gate * x, then norm * (1 + scale) + shift (diffusers)", _torch),
    family.Peer("sglang_cute", "SGLang 0.5.23 ScaleResidual{Layer,RMS}NormScaleShift: "
                "fused_scale_residual_norm_scale_shift (CuTe DSL)", _sglang_cute,
                applies=cute_applies, needs=CUTE_NEEDS, files=(CUTE_FILE,)),
]
