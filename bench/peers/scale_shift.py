"""Family scale_shift: y = x * (1 + scale) + shift over x [B, L, C], scale and shift in any of
the broadcast forms SGLang takes (family.mod_form), in x's dtype or fp32; y in x's dtype.

Peers:
  torch          x * (1 + scale) + shift, broadcast as diffusers writes it (per-frame operands
                 through x.unflatten(1, (F, L / F)) as SGLang's MulAdd.forward_native), cast back
                 to x's dtype when fp32 operands promoted it (diffusers' Wan: .type_as(x))
  sglang_triton  fuse_scale_shift_kernel (Triton): MulAdd.forward_cuda with k = 1 and the
                 fallback of the norm + scale/shift layers; every form but a per-frame shift
                 (it indexes shift per token when scale is per frame, scale_shift_triton.py:497)
The JIT CUDA modulate_scale_shift (FLUX.1's [B, C] same-dtype modulate) is an in-run NVRTC
baseline of the task instead (input/scale_shift/peers/sglang_modulate.cuh)."""
from . import family

TASKS = ("scale_shift",)
OUTPUTS = ("y",)


def bind(case):
    bound = family.bind(case, ("scale", "shift"), OUTPUTS)
    if bound.scale is None or bound.shift is None:
        raise family.BindError(f"task {case.task}: scale_shift needs scale and shift in case {case.label}")
    return bound


def modulate(bound, x, scale, shift, out_dtype=None):
    """x * (1 + scale) + shift with SGLang's broadcast forms; x is [B, L, C]."""
    from .torch_ops import bview, per_frame, with_frames
    frames = per_frame(bound, "scale", "shift")
    sc = bview(scale, bound.forms["scale"], frames, bound.L)
    sh = bview(shift, bound.forms["shift"], frames, bound.L)
    y = with_frames(x, frames, lambda xv: xv * (1 + sc) + sh)
    return y if out_dtype is None or y.dtype == out_dtype else y.to(out_dtype)


def reference(bound, tensors):
    from .torch_ops import d, operand, x3
    return {"y": modulate(bound, d(x3(bound, tensors)), d(operand(bound, tensors, "scale")),
                          d(operand(bound, tensors, "shift")))}


def _torch(bound, tensors):
    from .torch_ops import operand, x3
    x, sc, sh = x3(bound, tensors), operand(bound, tensors, "scale"), operand(bound, tensors, "shift")
    return lambda: {"y": modulate(bound, x, sc, sh, out_dtype=x.dtype)}


def _triton_form(t, form):
    # fuse_scale_shift_kernel takes [1] / [B, C] / 3-D / [B, F, 1, C] but no 1-D [C]: a caller
    # hands [C] as [1, C] (a view), which it broadcasts the same way
    return t.view(1, form[0]) if len(form) == 1 and form[0] > 1 else t


def _sglang_triton(bound, tensors):
    from .sglang_loader import load
    from .torch_ops import operand, x3
    fuse = load("kernels.ops.diffusion.modulate.scale_shift_triton", needs=("triton",)).fuse_scale_shift_kernel
    x = x3(bound, tensors)
    sc = _triton_form(operand(bound, tensors, "scale"), bound.forms["scale"])
    sh = _triton_form(operand(bound, tensors, "shift"), bound.forms["shift"])
    return lambda: {"y": fuse(x, sc, sh, scale_constant=1.0)}


def triton_applies(bound, scale_role="scale", shift_role="shift"):
    """Where fuse_scale_shift_kernel runs as SGLang calls it on CUDA (scale_shift_triton.py:463-591)."""
    sc, sh = bound.forms[scale_role], bound.forms[shift_role]
    if len(sc) == 4 and sh != (bound.B, bound.L, bound.C):
        return (f"fuse_scale_shift_kernel indexes shift per token [B, L, C] when scale is per frame "
                f"(scale_shift_triton.py:497-498); shift here is {list(sh)}")
    if len(sc) != 4 and len(sh) == 4:
        return "fuse_scale_shift_kernel takes a per-frame shift only with a per-frame scale"
    return None


PEERS = [
    family.Peer("torch", "torch eager x * (1 + scale) + shift (diffusers)", _torch),
    family.Peer("sglang_triton", "SGLang 0.5.23 fuse_scale_shift_kernel (Triton; MulAdd.forward_cuda)",
                _sglang_triton, applies=triton_applies, needs=("triton",),
                files=("sglang/kernels/ops/diffusion/modulate/scale_shift_triton.py",)),
]
