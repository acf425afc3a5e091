"""A denoise step's stack of blocks for one model: the blocks (models.stack), their static inputs
(image / text hidden states, timestep embedding, text context, RoPE caches) and step(k), which
runs every block through the dispatch k and returns the output hidden states (one tensor)."""
import torch

from .blocks import KINDS, Weights


def rope_cache(m, n_txt, device):
    """cos_sin_cache [n_txt + img, R] fp32 = [cos | sin] (text rows at position 0, then the image
    grid's (t, h, w) positions, each axis its own frequencies theta^(-j / n_a)), and pos = arange."""
    freqs = [m.theta ** (-torch.arange(n, dtype=torch.float64) / n) for n in m.rope_axes]
    grids = torch.meshgrid(*[torch.arange(g, dtype=torch.float64) for g in m.grid], indexing="ij")
    pos = [g.reshape(-1) for g in grids]
    while len(pos) < len(freqs):  # FLUX.2's fourth axis: position 0 for image tokens
        pos.append(torch.zeros_like(pos[0]))
    angles = torch.cat([p[:, None] * f[None, :] for p, f in zip(pos, freqs)], dim=1)
    angles = torch.cat((torch.zeros(n_txt, angles.shape[1], dtype=torch.float64), angles))
    cache = torch.cat((angles.cos(), angles.sin()), dim=1).float().to(device)
    return cache, torch.arange(cache.shape[0], device=device, dtype=torch.int64)


class Stack:
    def __init__(self, m, per_kind, device, dtype=torch.bfloat16, seed=0):
        from .models import stack
        self.m, self.layout = m, stack(m, per_kind)
        w = Weights(device, dtype, seed)
        self.blocks = [(f"{kind}{i}", KINDS[kind](w, m)) for kind, n in self.layout for i in range(n)]
        kinds = {kind for kind, _ in self.layout}
        self.img = w.randn(1, m.img, m.C)
        self.txt = w.randn(1, m.txt, m.C)
        self.temb = w.randn(1, m.C)
        self.inputs = {"temb": self.temb}
        if kinds & {"double"}:
            c, p = rope_cache(m, 0, device)
            self.inputs["rope_img"] = (c, p)
            self.inputs["rope_txt"] = (torch.cat((torch.ones_like(c[:m.txt, :c.shape[1] // 2]),
                                                  torch.zeros_like(c[:m.txt, :c.shape[1] // 2])), 1).contiguous(),
                                       torch.arange(m.txt, device=device, dtype=torch.int64))
        if kinds & {"single", "zimage"}:
            self.inputs["rope_x"] = rope_cache(m, m.txt, device)
        if kinds & {"wan", "ltx"}:
            self.inputs["rope_x"] = rope_cache(m, 0, device)
            self.inputs["ctx"] = self.txt
        if "wan" in kinds:
            self.inputs["temb6"] = w.randn(1, 6, m.C, std=0.1, dtype=torch.float32)

    def tokens(self):
        """Tokens each block kind runs over (the JSON says so)."""
        m = self.m
        per = {"double": {"img": m.img, "txt": m.txt}, "single": {"x": m.img + m.txt}, "zimage": {"x": m.img + m.txt},
               "wan": {"x": m.img, "ctx": m.txt}, "ltx": {"x": m.img, "ctx": m.txt}}
        return {kind: per[kind] for kind, _ in self.layout}

    def step(self, k):
        state = dict(self.inputs)
        kinds = [kind for kind, _ in self.layout]
        if kinds[0] == "double":
            state["img"], state["txt"] = self.img, self.txt
        elif kinds[0] in ("single", "zimage"):
            state["x"] = torch.cat((self.txt, self.img), 1)
        else:
            state["x"] = self.img
        for name, block in self.blocks:
            if name.startswith("single") and "x" not in state:
                state["x"] = torch.cat((state["txt"], state["img"]), 1)
            block(k, name, state)
        return state["x"] if "x" in state else torch.cat((state["txt"], state["img"]), 1)

    def flops(self):
        """Attention FLOPs of one step (4 L_q L_k D H per self-attention), for the log."""
        m = self.m
        total = 0
        for kind, n in self.layout:
            L = m.img + (m.txt if kind in ("double", "single", "zimage") else 0)
            total += n * 4 * L * L * m.head_dim * m.heads
        return total

