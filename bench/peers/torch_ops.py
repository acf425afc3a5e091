"""The torch side shared by the family modules: tensors for a case (as task.json describes them),
broadcast views of the modulation operands, the eager norms, and the float64 reference pieces.
Imports torch; the torch-free parts live in cases.py and family.py."""
import torch
import torch.nn.functional as F

TORCH_DTYPES = {"bf16": torch.bfloat16, "fp16": torch.float16, "fp32": torch.float32,
                "i32": torch.int32, "i64": torch.int64}


def make_tensors(case, seed, device="cuda"):
    """One tensor per buffer of the case (None where absent): inputs filled as their `init`
    says (normal / uniform / range) from a generator seeded per case, outputs left empty
    (each peer allocates its own), views made on their storage."""
    gen = torch.Generator(device=device).manual_seed(seed)
    out = {}
    for b in case.buffers.values():
        if not b.present:
            out[b.name] = None
            continue
        dt = TORCH_DTYPES[b.dtype]
        if b.view is not None:
            storage = out[b.view["of"]]
            out[b.name] = torch.as_strided(storage, b.shape, b.view["strides"], b.view["offset"])
            continue
        if b.role == "out":
            out[b.name] = None
            continue
        init = b.init
        if init.get("dist") == "range":
            t = torch.randint(int(init["low"]), int(init["high"]), b.shape, generator=gen, device=device, dtype=dt)
        elif init.get("dist") == "uniform":
            t = torch.rand(b.shape, generator=gen, device=device, dtype=torch.float32)
            t = (init["low"] + (init["high"] - init["low"]) * t).to(dt)
        else:
            t = torch.randn(b.shape, generator=gen, device=device, dtype=torch.float32)
            t = (init.get("mean", 0.0) + init.get("std", 1.0) * t).to(dt)
        out[b.name] = t
    return out


def operand(bound, tensors, role):
    """The tensor of a role viewed in its engine form (family.mod_form), or None."""
    buf = getattr(bound, role)
    if buf is None:
        return None
    t = tensors[buf.name]
    return t.view(bound.forms[role]) if role in bound.forms else t


def x3(bound, tensors):
    return tensors[bound.x.name].view(bound.B, bound.L, bound.C)


def per_frame(bound, *roles):
    """F when any of the roles is per frame ([B, F, 1, C]), else None."""
    for r in roles:
        form = bound.forms.get(r)
        if form is not None and len(form) == 4:
            return form[1]
    return None


def bview(t, form, frames, L):
    """View a modulation operand for broadcasting against [B, L, C], or against the per-frame
    [B, F, L / F, C] when frames is set (the way SGLang's native path and diffusers unflatten)."""
    if t is None or len(form) == 1:
        return t
    if frames is None:
        return t.view(form[0], 1, form[1]) if len(form) == 2 else t
    if len(form) == 4:
        return t
    if len(form) == 2:
        return t.view(form[0], 1, 1, form[1])
    return t.view(form[0], frames, L // frames, form[2])


def with_frames(x, frames, fn):
    """fn(x') with x' = x [B, L, C] as [B, F, L / F, C] when frames is set, flattened back."""
    if frames is None:
        return fn(x)
    return fn(x.unflatten(1, (frames, x.shape[1] // frames))).flatten(1, 2)


def norm(kind, x, weight, bias, eps):
    """LayerNorm (biased variance) or RMSNorm over the last dimension, in x's dtype, through
    torch's own kernels (F.layer_norm / F.rms_norm; affine optional)."""
    C = x.shape[-1]
    if kind == "rms":
        y = F.rms_norm(x, (C,), weight, eps)
        return y if bias is None else y + bias
    return F.layer_norm(x, (C,), weight, bias, eps)


def d(t):
    return None if t is None else t.double()
