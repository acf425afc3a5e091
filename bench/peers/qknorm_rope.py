"""Family qknorm_rope: per-head RMSNorm (separate q / k weights) then RoPE, in place on q [N, H, D]
and k [N, H, D], with the fp32 cache cos_sin_cache [P, R] and positions [N]; the RoPE part as the
rope family (bench/peers/rope.py).

Peers:
  torch  diffusers' chain in eager torch: RMSNorm(head_dim) (x.float() * rsqrt(mean(x^2) + eps),
         cast, times the weight: torch.nn.RMSNorm's form rounds the norm to the dtype before the
         weight and the rotation) then apply_rotary_emb's fp32 form, cast once. Checked at the
         tolerance peer_timing is given (its extra roundings are about one ulp).
SGLang's own fused kernel (JIT qknorm_rope.cuh) is not timed here yet (context/qknorm_rope.md)."""
from . import family, rope

TASKS = ("qknorm_rope",)
OUTPUTS = ("q", "k")


def bind(case):
    for name in ("q_weight", "k_weight"):
        if name not in case.buffers:
            raise family.BindError(f"task {case.task}: no buffer '{name}' (declared: {', '.join(case.buffers)})")
    b = rope.bind(case)
    b.eps = float(case.scalars.get("eps", 1e-6))
    return b


def _normed(bound, x, w):
    import torch
    xf = x.double() if x.dtype == torch.float64 else x.float()
    return xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + bound.eps) * w.to(xf.dtype)


def reference(bound, tensors):
    import torch
    cos, sin = rope._cos_sin(bound, tensors, torch.float64)
    out = {}
    for n, w in (("q", "q_weight"), ("k", "k_weight")):
        y = _normed(bound, tensors[n].double(), tensors[w])
        out[n] = rope._rotate(bound, y, cos, sin)
    return out


def _torch(bound, tensors):
    import torch
    cos, sin = rope._cos_sin(bound, tensors, torch.float32)

    def run():
        out = {}
        for n, w in (("q", "q_weight"), ("k", "k_weight")):
            x = tensors[n]
            xf = x.float()
            y = (xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + bound.eps)).to(x.dtype) * tensors[w]
            out[n] = rope._rotate(bound, y.float(), cos, sin).to(x.dtype)
        return out

    return run


PEERS = [
    family.Peer("torch", "torch eager: RMSNorm(head_dim) as torch.nn.RMSNorm, then RoPE in fp32, cast", _torch),
]
