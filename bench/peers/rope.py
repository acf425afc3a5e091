"""Family rope: rotary embedding of q [N, H, D] and k [N, H, D] with the fp32 cache
cos_sin_cache [P, R] = [cos | sin] and positions [N]; interleaved (GPT-J) or NeoX pairs; elements
R..D-1 pass through.

Peers (each returns new q and k; the in-place engine path is the task's in-run baselines
"flashinfer" / "flashinfer_heads", FlashInfer's kernels behind apply_rope_with_cos_sin_cache_inplace):
  torch          diffusers' form: x.float() * cos + rotate(x) * sin with cos/sin [N, D] per token
                 (each frequency repeated for interleaved pairs, the halves repeated for NeoX;
                 cos 1 / sin 0 beyond R), cast once: what apply_rotary_emb computes in eager torch
  sglang_triton  SGLang's Triton _rotary_embedding_kernel (kernels/ops/diffusion/rope/rotary_triton.py,
                 apply_rotary_embedding(x, cos, sin, interleaved=True), one launch for q and one for
                 k): what _apply_rotary_emb runs for is_neox_style=False, the path HunyuanVideo's and
                 Z-Image's attention take. cos/sin [N, D/2] are gathered from the cache by position
                 once per forward in SGLang, so here once before timing, not charged.
The gathers of cos/sin rows by position are made before timing for both peers."""
from dataclasses import dataclass, field

from . import family

TASKS = ("rope",)
OUTPUTS = ("q", "k")


@dataclass
class Bound:
    case: object
    N: int
    H: int
    D: int
    R: int
    neox: bool
    outputs: dict
    forms: dict = field(default_factory=dict)


def bind(case):
    for name in ("q", "k", "cos_sin_cache", "pos"):
        if name not in case.buffers:
            raise family.BindError(f"task {case.task}: no buffer '{name}' (declared: {', '.join(case.buffers)})")
    d = case.dims
    return Bound(case, d["N"], d["H"], d["D"], d["R"], bool(case.flags.get("neox", False)), {"q": "q", "k": "k"})


def _cos_sin(bound, tensors, dtype):
    """cos, sin [N, R/2] of each token's position, in `dtype`."""
    cache = tensors["cos_sin_cache"]
    rows = cache.index_select(0, tensors["pos"].long())
    half = bound.R // 2
    return rows[:, :half].to(dtype), rows[:, half:].to(dtype)


def _rotate(bound, x, cos, sin):
    """x [N, H, D] rotated with cos/sin [N, R/2] (any floating dtype; computed in x's)."""
    import torch
    half = bound.R // 2
    c, s = cos[:, None, :], sin[:, None, :]
    rot = x[..., :bound.R]
    if bound.neox:
        a, b = rot[..., :half], rot[..., half:]
        out = torch.cat((a * c - b * s, b * c + a * s), dim=-1)
    else:
        a, b = rot[..., 0::2], rot[..., 1::2]
        out = torch.stack((a * c - b * s, b * c + a * s), dim=-1).flatten(-2)
    return torch.cat((out, x[..., bound.R:]), dim=-1) if bound.R < bound.D else out


def reference(bound, tensors):
    import torch
    cos, sin = _cos_sin(bound, tensors, torch.float64)
    return {n: _rotate(bound, tensors[n].double(), cos, sin) for n in ("q", "k")}


def _torch(bound, tensors):
    import torch
    q, k = tensors["q"], tensors["k"]
    cos, sin = _cos_sin(bound, tensors, torch.float32)
    pad = bound.D - bound.R
    if bound.neox:
        full_c, full_s = torch.cat((cos, cos), -1), torch.cat((sin, sin), -1)
    else:
        full_c, full_s = cos.repeat_interleave(2, -1), sin.repeat_interleave(2, -1)
    if pad:
        full_c = torch.cat((full_c, torch.ones_like(full_c[:, :1]).expand(-1, pad)), -1)
        full_s = torch.cat((full_s, torch.zeros_like(full_s[:, :1]).expand(-1, pad)), -1)
    full_c, full_s = full_c[:, None, :].contiguous(), full_s[:, None, :].contiguous()
    half = bound.R // 2

    def rotated(x):
        xf = x.float()
        if bound.neox:
            a, b, rest = xf[..., :half], xf[..., half:bound.R], xf[..., bound.R:]
            x_rot = torch.cat((-b, a, torch.zeros_like(rest)), -1)
        else:
            a, b = xf.unflatten(-1, (-1, 2)).unbind(-1)
            x_rot = torch.stack((-b, a), -1).flatten(-2)
        return (xf * full_c + x_rot * full_s).to(x.dtype)

    return lambda: {"q": rotated(q), "k": rotated(k)}


def _sglang_triton(bound, tensors):
    from .sglang_loader import load
    apply = load("kernels.ops.diffusion.rope.rotary_triton", needs=("triton",)).apply_rotary_embedding
    cos, sin = _cos_sin(bound, tensors, tensors["q"].dtype)
    cos, sin = cos.contiguous(), sin.contiguous()
    q, k = tensors["q"], tensors["k"]
    return lambda: {"q": apply(q, cos, sin, interleaved=True), "k": apply(k, cos, sin, interleaved=True)}


def _triton_applies(bound):
    if bound.neox:
        return "SGLang runs NeoX pairs in torch (_apply_rotary_emb's is_neox_style branch), not this kernel"
    if bound.R != bound.D:
        return f"the kernel rotates the whole head (cos/sin [N, D/2]); partial rotary R = {bound.R} < D = {bound.D}"
    return None


PEERS = [
    family.Peer("torch", "torch eager, diffusers' apply_rotary_emb form (fp32, cast once)", _torch),
    family.Peer("sglang_triton", "SGLang 0.5.23 apply_rotary_embedding (Triton _rotary_embedding_kernel), q and k",
                _sglang_triton, applies=_triton_applies, needs=("triton",),
                files=("sglang/kernels/ops/diffusion/rope/rotary_triton.py",)),
]
