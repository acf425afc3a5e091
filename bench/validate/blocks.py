"""The transformer blocks, in torch, with every ako family site called through the dispatch
`k(site, family, *args)` (dispatch.py). Random weights (std 1 / sqrt(fan-in)), attention through
torch SDPA, batch 1 (no CFG). Per block kind (models.py), after diffusers and SGLang's blocks
(research/diffusion_shapes.md 1a):

  double  FLUX.1 / FLUX.2 / Qwen-Image / HunyuanVideo dual-stream: per stream AdaLN-Zero
          (shift, scale, gate) x 2 from Linear(SiLU(temb)); norm1 + modulate (norm_scale_shift);
          q, k, v; QK-norm + RoPE; joint attention over text + image; the gated residual and
          norm2 + modulate in one op (residual_gate_norm_scale_shift); FFN with its activation
          (gated_act); x + gate_mlp * ff
  single  FLUX / HunyuanVideo single-stream: norm + modulate; q, k, v and proj_mlp in parallel;
          QK-norm + RoPE; proj_out(cat(attn, act(mlp))); x + gate * out
  wan     Wan 2.1: fp32 modulation from scale_shift_table + temb; norm1 + modulate; packed qkv,
          QK RMSNorm across heads (qknorm), RoPE; x + gate * attn and the affine norm2 in one op;
          cross-attention to the text with q / k RMSNorm across heads (rmsnorm); x + attn and
          norm3 + modulate in one op; GELU-tanh FFN; x + c_gate * ff
  zimage  Z-Image: RMSNorm sandwich: rms(x) * (1 + scale); x + tanh(gate) * rms(attn); SwiGLU
  ltx     LTX-Video: RMS norm + modulate; packed qkv, QK RMSNorm across heads, RoPE (R < D);
          ungated cross-attention with q / k RMSNorm across heads; RMS norm + modulate; GELU FFN

Text tokens of the dual- and single-stream blocks are rotated at position 0 (the identity; FLUX
gives text position ids of 0)."""
import torch
import torch.nn.functional as F


class Weights:
    """Random parameters from one generator, so every backend runs the same model."""

    def __init__(self, device, dtype, seed):
        self.device, self.dtype = device, dtype
        self.gen = torch.Generator(device=device).manual_seed(seed)

    def randn(self, *shape, std=1.0, dtype=None):
        t = torch.randn(*shape, generator=self.gen, device=self.device, dtype=torch.float32) * std
        return t.to(dtype or self.dtype)

    def linear(self, i, o):
        return self.randn(o, i, std=i ** -0.5), self.randn(o, std=0.02)

    def norm_weight(self, n):
        return 1 + self.randn(n, std=0.1)


def lin(x, wb):
    return F.linear(x, *wb)


def attend(q, k, v, heads):
    """SDPA over [N, H, D] q / k / v (batch 1); returns [1, N, H * D]."""
    def bhld(t):
        return t.unsqueeze(0).transpose(1, 2)
    o = F.scaled_dot_product_attention(bhld(q), bhld(k), bhld(v))
    return o.transpose(1, 2).reshape(1, q.shape[0], -1)


def heads3(t, m):
    return t.reshape(-1, m.heads, m.head_dim)


class Attention:
    """q, k, v projections and the QK-norm + RoPE sites, in the form the model's engine uses:
    fused (separate q, k, v; qknorm_rope) or across (packed qkv; qknorm across heads, RoPE)."""

    def __init__(self, w, m):
        self.m = m
        C = m.C
        if m.qk == "fused":
            self.q, self.k, self.v = w.linear(C, C), w.linear(C, C), w.linear(C, C)
            self.qw, self.kw = w.norm_weight(m.head_dim), w.norm_weight(m.head_dim)
        else:
            self.qkv = w.linear(C, 3 * C)
            self.qw, self.kw = w.norm_weight(C), w.norm_weight(C)

    def qkv_normed(self, k, site, h, cache, pos):
        m = self.m
        x = h.reshape(-1, m.C)
        if m.qk == "fused":
            q, kk, v = heads3(lin(x, self.q), m), heads3(lin(x, self.k), m), heads3(lin(x, self.v), m)
            q, kk = k(site + ".qk_norm_rope", "qknorm_rope", q, kk, self.qw, self.kw, cache, pos, m.qk_eps, False)
            return q, kk, v
        qkv = lin(x, self.qkv)
        q, kk, v = (heads3(t, m) for t in qkv.split(m.C, dim=-1))  # views of the packed qkv
        q, kk = k(site + ".qk_norm", "qknorm", q, kk, self.qw, self.kw, m.qk_eps, True)
        q, kk = q.contiguous(), kk.contiguous()
        q, kk = k(site + ".rope", "rope", q, kk, cache, pos, False)
        return q, kk, v


class CrossAttention:
    """Wan / LTX cross-attention to the text: q from x, k / v from the context, q / k RMSNorm
    across heads (the rmsnorm family over C)."""

    def __init__(self, w, m):
        self.m = m
        self.q, self.k, self.v, self.o = (w.linear(m.C, m.C) for _ in range(4))
        self.qw, self.kw = w.norm_weight(m.C), w.norm_weight(m.C)

    def __call__(self, k, site, h, ctx):
        m = self.m
        q = k(site + ".q_norm", "rmsnorm", lin(h, self.q), self.qw, m.qk_eps)
        kk = k(site + ".k_norm", "rmsnorm", lin(ctx, self.k), self.kw, m.qk_eps)
        return lin(attend(heads3(q, m), heads3(kk, m), heads3(lin(ctx, self.v), m), m.heads), self.o)


class FFN:
    def __init__(self, w, m):
        self.m = m
        width = 2 * m.ffn if m.act == "silu_and_mul" else m.ffn
        self.fc1, self.fc2 = w.linear(m.C, width), w.linear(m.ffn, m.C)

    def __call__(self, k, site, h):
        a = lin(h, self.fc1)
        y = k(site + ".act", "gated_act", a.reshape(-1, a.shape[-1]), self.m.act)
        return lin(y.view(1, -1, self.m.ffn), self.fc2)


def chunks(mod, n):
    return [c[:, None, :] for c in mod.chunk(n, dim=-1)]


class DoubleBlock:
    def __init__(self, w, m):
        self.m = m
        self.mod = {s: w.linear(m.C, 6 * m.C) for s in ("img", "txt")}
        self.attn = {s: Attention(w, m) for s in ("img", "txt")}
        self.out = {s: w.linear(m.C, m.C) for s in ("img", "txt")}
        self.ffn = {s: FFN(w, m) for s in ("img", "txt")}

    def __call__(self, k, site, state):
        m = self.m
        img, txt = state["img"], state["txt"]
        mods, qkv = {}, {}
        for s, x in (("img", img), ("txt", txt)):
            mods[s] = chunks(lin(F.silu(state["temb"]), self.mod[s]), 6)
            shift, scale = mods[s][0], mods[s][1]
            h = k(f"{site}.{s}.norm1", "norm_scale_shift", x, None, None, scale, shift, m.norm, m.eps)
            qkv[s] = self.attn[s].qkv_normed(k, f"{site}.{s}", h, *state["rope_" + s])
        q, kk, v = (torch.cat((qkv["txt"][i], qkv["img"][i])) for i in range(3))
        o = attend(q, kk, v, m.heads)
        o_s = {"txt": o[:, :txt.shape[1]], "img": o[:, txt.shape[1]:]}
        for s, x in (("img", img), ("txt", txt)):
            _, _, gate, shift2, scale2, gate2 = mods[s]
            h, x = k(f"{site}.{s}.norm2", "residual_gate_norm_scale_shift", x, lin(o_s[s], self.out[s]), gate,
                     None, None, scale2, shift2, m.norm, m.eps)
            state[s] = x + gate2 * self.ffn[s](k, f"{site}.{s}.ffn", h)


class SingleBlock:
    def __init__(self, w, m):
        self.m = m
        self.mod = w.linear(m.C, 3 * m.C)
        self.attn = Attention(w, m)
        width = 2 * m.ffn if m.act == "silu_and_mul" else m.ffn
        self.mlp = w.linear(m.C, width)
        self.out = w.linear(m.C + m.ffn, m.C)

    def __call__(self, k, site, state):
        m = self.m
        x = state["x"]
        shift, scale, gate = chunks(lin(F.silu(state["temb"]), self.mod), 3)
        h = k(site + ".norm", "norm_scale_shift", x, None, None, scale, shift, m.norm, m.eps)
        a = lin(h, self.mlp)
        mlp = k(site + ".act", "gated_act", a.reshape(-1, a.shape[-1]), m.act).view(1, -1, m.ffn)
        q, kk, v = self.attn.qkv_normed(k, site, h, *state["rope_x"])
        o = attend(q, kk, v, m.heads)
        state["x"] = x + gate * lin(torch.cat((o, mlp), -1), self.out)


class WanBlock:
    def __init__(self, w, m):
        self.m = m
        self.table = w.randn(1, 6, m.C, std=m.C ** -0.5, dtype=torch.float32)
        self.attn, self.o = Attention(w, m), w.linear(m.C, m.C)
        self.norm2 = (w.norm_weight(m.C), w.randn(m.C, std=0.02))
        self.cross, self.ffn = CrossAttention(w, m), FFN(w, m)
        self.zero = torch.zeros(1, device=w.device, dtype=torch.float32)

    def __call__(self, k, site, state):
        m = self.m
        x = state["x"]
        shift, scale, gate, c_shift, c_scale, c_gate = (self.table + state["temb6"]).chunk(6, dim=1)
        h = k(site + ".norm1", "norm_scale_shift", x, None, None, scale, shift, m.norm, m.eps)
        q, kk, v = self.attn.qkv_normed(k, site + ".self", h, *state["rope_x"])
        o = lin(attend(q, kk, v, m.heads), self.o)
        h, x = k(site + ".norm2", "residual_gate_norm_scale_shift", x, o, gate, *self.norm2, self.zero, self.zero,
                 m.norm, m.eps)
        o = self.cross(k, site + ".cross", h, state["ctx"])
        h, x = k(site + ".norm3", "residual_gate_norm_scale_shift", x, o, None, None, None, c_scale, c_shift,
                 m.norm, m.eps)
        state["x"] = (x + self.ffn(k, site + ".ffn", h) * c_gate).to(x.dtype)


class ZImageBlock:
    def __init__(self, w, m):
        self.m = m
        self.mod = w.linear(m.C, 4 * m.C)
        self.norms = [w.norm_weight(m.C) for _ in range(4)]
        self.attn, self.o, self.ffn = Attention(w, m), w.linear(m.C, m.C), FFN(w, m)

    def __call__(self, k, site, state):
        m = self.m
        x = state["x"]
        scale, gate, scale2, gate2 = chunks(lin(F.silu(state["temb"]), self.mod), 4)
        h = k(site + ".attention_norm1", "rmsnorm", x, self.norms[0], m.eps) * (1 + scale)
        q, kk, v = self.attn.qkv_normed(k, site, h, *state["rope_x"])
        o = lin(attend(q, kk, v, m.heads), self.o)
        x = x + torch.tanh(gate) * k(site + ".attention_norm2", "rmsnorm", o, self.norms[1], m.eps)
        h = k(site + ".ffn_norm1", "rmsnorm", x, self.norms[2], m.eps) * (1 + scale2)
        state["x"] = x + torch.tanh(gate2) * k(site + ".ffn_norm2", "rmsnorm", self.ffn(k, site + ".ffn", h),
                                               self.norms[3], m.eps)


class LtxBlock:
    def __init__(self, w, m):
        self.m = m
        self.mod = w.linear(m.C, 6 * m.C)
        self.attn, self.o = Attention(w, m), w.linear(m.C, m.C)
        self.cross, self.ffn = CrossAttention(w, m), FFN(w, m)

    def __call__(self, k, site, state):
        m = self.m
        x = state["x"]
        shift, scale, gate, shift2, scale2, gate2 = chunks(lin(F.silu(state["temb"]), self.mod), 6)
        h = k(site + ".norm1", "norm_scale_shift", x, None, None, scale, shift, m.norm, m.eps)
        q, kk, v = self.attn.qkv_normed(k, site + ".self", h, *state["rope_x"])
        x = x + gate * lin(attend(q, kk, v, m.heads), self.o)
        x = x + self.cross(k, site + ".cross", x, state["ctx"])
        h = k(site + ".norm2", "norm_scale_shift", x, None, None, scale2, shift2, m.norm, m.eps)
        state["x"] = x + gate2 * self.ffn(k, site + ".ffn", h)


KINDS = {"double": DoubleBlock, "single": SingleBlock, "wan": WanBlock, "zimage": ZImageBlock, "ltx": LtxBlock}
