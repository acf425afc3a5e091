"""The `torch` backend: every family site in eager torch, as diffusers writes it (the path a model
runs without the engine's kernels). Every backend implements these signatures (dispatch.py):

  norm_scale_shift(x [B,L,C], weight, bias, scale, shift, norm, eps) -> y
  residual_gate_norm_scale_shift(residual, x, gate, weight, bias, scale, shift, norm, eps) -> (y, residual_out)
  rmsnorm(x [..., C], weight, eps) -> y
  layernorm(x [..., C], weight, bias, eps) -> y
  scale_shift(x [B,L,C], scale, shift) -> y
  qknorm(q, k, q_weight, k_weight, eps, across_heads) -> (q, k)       q, k [N,H,D] views of a packed qkv
  rope(q, k, cos_sin_cache, pos, neox) -> (q, k)                      q, k [N,H,D] contiguous
  qknorm_rope(q, k, q_weight, k_weight, cos_sin_cache, pos, eps, neox) -> (q, k)
  gated_act(x [rows, 2d or d], act) -> y [rows, d]

Modulation operands (scale, shift, gate) are [B,1,C] (per batch) or [1] (a scalar), in x's dtype
or fp32 (Wan); gate None means + x. cos_sin_cache [P,R] fp32 = [cos | sin], pos [N] int64."""
import torch
import torch.nn.functional as F


def _norm(kind, x, weight, bias, eps):
    C = x.shape[-1]
    if kind == "rms":
        y = F.rms_norm(x, (C,), weight, eps)
        return y if bias is None else y + bias
    return F.layer_norm(x, (C,), weight, bias, eps)


def norm_scale_shift(x, weight, bias, scale, shift, norm, eps):
    if scale.dtype != x.dtype:  # Wan: FP32LayerNorm on x.float(), fp32 modulation, cast back
        w = None if weight is None else weight.float()
        b = None if bias is None else bias.float()
        return (_norm(norm, x.float(), w, b, eps) * (1 + scale) + shift).to(x.dtype)
    return _norm(norm, x, weight, bias, eps) * (1 + scale) + shift


def residual_gate_norm_scale_shift(residual, x, gate, weight, bias, scale, shift, norm, eps):
    res = (residual + x if gate is None else residual + x * gate).to(x.dtype)
    return norm_scale_shift(res, weight, bias, scale, shift, norm, eps), res


def rmsnorm(x, weight, eps):
    return F.rms_norm(x, (x.shape[-1],), weight, eps)


def layernorm(x, weight, bias, eps):
    return F.layer_norm(x, (x.shape[-1],), weight, bias, eps)


def scale_shift(x, scale, shift):
    return (x * (1 + scale) + shift).to(x.dtype)


def qknorm(q, k, q_weight, k_weight, eps, across_heads):
    for t, w in ((q, q_weight), (k, k_weight)):
        v = t.reshape(t.shape[0], -1) if across_heads else t  # a token's heads are contiguous: a view
        v.copy_(F.rms_norm(v, (v.shape[-1],), w, eps))
    return q, k


_FULL = {}


def _full_cos_sin(cache, pos, neox, D):
    """diffusers' form: cos/sin [N, 1, D] per token, each frequency repeated for interleaved pairs
    (the halves for NeoX), cos 1 / sin 0 beyond R. Made once per cache, as a model makes its
    rotary embedding once per forward."""
    key = (cache.data_ptr(), pos.data_ptr(), neox, D)
    if key not in _FULL:
        rows = cache.index_select(0, pos)
        half = cache.shape[1] // 2
        cos, sin = rows[:, :half], rows[:, half:]
        if neox:
            c, s = torch.cat((cos, cos), -1), torch.cat((sin, sin), -1)
        else:
            c, s = cos.repeat_interleave(2, -1), sin.repeat_interleave(2, -1)
        pad = D - 2 * half
        if pad:
            c = torch.cat((c, torch.ones_like(c[:, :1]).expand(-1, pad)), -1)
            s = torch.cat((s, torch.zeros_like(s[:, :1]).expand(-1, pad)), -1)
        _FULL[key] = (c[:, None, :].contiguous(), s[:, None, :].contiguous(), 2 * half)
    return _FULL[key]


def _rotate(x, c, s, R, neox):
    xf = x.float()
    if neox:
        half = R // 2
        a, b, rest = xf[..., :half], xf[..., half:R], xf[..., R:]
        x_rot = torch.cat((-b, a, torch.zeros_like(rest)), -1)
    else:
        a, b = xf.unflatten(-1, (-1, 2)).unbind(-1)
        x_rot = torch.stack((-b, a), -1).flatten(-2)
    return (xf * c + x_rot * s).to(x.dtype)


def rope(q, k, cos_sin_cache, pos, neox):
    c, s, R = _full_cos_sin(cos_sin_cache, pos, neox, q.shape[-1])
    return _rotate(q, c, s, R, neox), _rotate(k, c, s, R, neox)


def _head_rms(x, w, eps):
    # torch.nn.RMSNorm(head_dim) as diffusers' attention processors call it
    xf = x.float()
    return (xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + eps)).to(x.dtype) * w


def qknorm_rope(q, k, q_weight, k_weight, cos_sin_cache, pos, eps, neox):
    return rope(_head_rms(q, q_weight, eps), _head_rms(k, k_weight, eps), cos_sin_cache, pos, neox)


def gated_act(x, act):
    if act == "gelu_tanh":
        return F.gelu(x, approximate="tanh")
    a, b = x.chunk(2, dim=-1)
    if act == "gelu_tanh_and_mul":
        return F.gelu(a, approximate="tanh") * b
    if act == "silu_and_mul":
        return F.silu(a) * b
    raise ValueError(f"unknown act {act!r}")


FAMILIES = ("rmsnorm", "layernorm", "scale_shift", "norm_scale_shift", "residual_gate_norm_scale_shift",
            "qknorm", "rope", "qknorm_rope", "gated_act")


class TorchOps:
    """The backend object dispatch.py calls: family -> (function, impl name)."""
    name = "torch"

    def __init__(self):
        self.fns = {f: globals()[f] for f in FAMILIES}

    def __call__(self, family, *args, **kw):
        return self.fns[family](*args, **kw), "torch"
