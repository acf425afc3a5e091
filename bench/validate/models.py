"""The models `ako validate` knows: real dims, token counts and the kind of each block, from
context/../research diffusion_shapes.md sections 1-2 (diffusers configs and pipelines; SGLang's
block implementations for which fused op serves which site). No torch here.

Per model:
  C, heads, head_dim     inner width, attention heads
  blocks                 ((kind, real count), ...) in the order a step runs them
  img, txt               image/video tokens and text tokens at the default resolution
  ffn                    FFN hidden width (the gated forms' fc1 gives 2 * ffn)
  act                    gated_act axis of the FFN: gelu_tanh (fc1 -> gelu -> fc2) or silu_and_mul
  norm                   AdaLN norm: layer or rms (no affine)
  eps, qk_eps            AdaLN norm eps, QK-norm eps
  qk                     how QK-norm and RoPE are done: fused (qknorm_rope on q, k per head),
                         across (QK RMSNorm across heads on the packed qkv, then RoPE)
  mod_fp32               modulation vectors in fp32 (Wan's scale_shift_table + temb.float())
  rope_axes, theta       RoPE frequencies per axis (their sum R / 2 <= head_dim / 2; the rest of
                         the head passes through, as LTX-Video's cos 1 / sin 0 padding), and theta
  grid                   the latent grid (frames, h, w) whose positions RoPE rotates (img tokens)
  note                   where the numbers come from"""
from dataclasses import dataclass


@dataclass(frozen=True)
class Model:
    name: str
    C: int
    heads: int
    head_dim: int
    blocks: tuple
    img: int
    txt: int
    ffn: int
    act: str
    norm: str
    eps: float
    qk_eps: float
    qk: str
    mod_fp32: bool
    rope_axes: tuple
    theta: float
    grid: tuple
    note: str


MODELS = {
    "flux1": Model("flux1", 3072, 24, 128, (("double", 19), ("single", 38)), 4096, 512, 4 * 3072, "gelu_tanh",
                   "layer", 1e-6, 1e-6, "fused", False, (8, 28, 28), 10000.0, (1, 64, 64),
                   "FLUX.1-dev 1024x1024: 64x64 latent tokens, 512 T5 tokens; single blocks run 4608"),
    "flux2": Model("flux2", 6144, 48, 128, (("double", 8), ("single", 48)), 4096, 512, 3 * 6144, "silu_and_mul",
                   "layer", 1e-6, 1e-6, "fused", False, (16, 16, 16, 16), 2000.0, (1, 64, 64),
                   "FLUX.2-dev 1024x1024; SwiGLU mlp_ratio 3"),
    "qwen-image": Model("qwen-image", 3072, 24, 128, (("double", 60),), 6889, 512, 4 * 3072, "gelu_tanh",
                        "layer", 1e-6, 1e-6, "fused", False, (8, 28, 28), 10000.0, (1, 83, 83),
                        "Qwen-Image 1328x1328: 83x83 tokens, up to 512 text tokens"),
    "hunyuan": Model("hunyuan", 3072, 24, 128, (("double", 20), ("single", 40)), 118800, 256, 4 * 3072, "gelu_tanh",
                     "layer", 1e-6, 1e-6, "fused", False, (8, 28, 28), 256.0, (33, 45, 80),
                     "HunyuanVideo 720p 1280x720x129: 33x45x80 tokens, 256 text tokens"),
    "wan13b": Model("wan13b", 1536, 12, 128, (("wan", 30),), 32760, 512, 8960, "gelu_tanh",
                    "layer", 1e-6, 1e-6, "across", True, (22, 21, 21), 10000.0, (21, 30, 52),
                    "Wan2.1 T2V-1.3B 480p 832x480x81: 21x30x52 tokens, 512 umT5 tokens (cross-attention)"),
    "wan14b": Model("wan14b", 5120, 40, 128, (("wan", 40),), 32760, 512, 13824, "gelu_tanh",
                    "layer", 1e-6, 1e-6, "across", True, (22, 21, 21), 10000.0, (21, 30, 52),
                    "Wan2.1 14B 480p 832x480x81: 21x30x52 tokens, 512 umT5 tokens (cross-attention)"),
    "zimage": Model("zimage", 3840, 30, 128, (("zimage", 30),), 4096, 32, 10240, "silu_and_mul",
                    "rms", 1e-5, 1e-5, "fused", False, (16, 24, 24), 256.0, (1, 64, 64),
                    "Z-Image 1024x1024: 64x64 tokens and a 32-token caption in one stream (SGLang's test: 4128)"),
    "ltx-video": Model("ltx-video", 2048, 32, 64, (("ltx", 28),), 6144, 128, 4 * 2048, "gelu_tanh",
                       "rms", 1e-6, 1e-5, "across", False, (10, 10, 10), 10000.0, (16, 16, 24),
                       "LTX-Video 768x512x121: 16x16x24 tokens, 128 T5 tokens (cross-attention)"),
}


def get(name):
    if name not in MODELS:
        raise KeyError(f"unknown model {name!r}; known: {', '.join(MODELS)}")
    return MODELS[name]


def tiny(m):
    """The same model at toy size (CPU smoke runs): 2 heads of 32, 64 image and 16 text tokens."""
    n = len(m.rope_axes)
    axes = (16 // n,) * (n - 1) + (16 - 16 // n * (n - 1),)
    return Model(m.name, 64, 2, 32, tuple((k, 1) for k, _ in m.blocks), 64, 16, 128, m.act, m.norm, m.eps, m.qk_eps,
                 m.qk, m.mod_fp32, axes, m.theta, (1, 8, 8), m.note + " (tiny)")


def stack(m, per_kind):
    """The blocks a step runs here: each kind's real count, capped at per_kind (0: all)."""
    return tuple((k, n if not per_kind else min(n, per_kind)) for k, n in m.blocks)
