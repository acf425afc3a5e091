"""Family gated_act: the DiT feed-forward activations, by the task's axis `act` (d = cols):
  gelu_tanh_and_mul  gelu_tanh(x[:, :d]) * x[:, d:]     x [rows, 2d]
  silu_and_mul       silu(x[:, :d]) * x[:, d:]          x [rows, 2d]
  geglu              x[:, :d] * gelu_erf(x[:, d:])      x [rows, 2d] (diffusers' GEGLU)
  gelu_tanh          gelu_tanh(x)                       x [rows, d]

Peers:
  torch          eager, as the models write it: F.gelu(a, approximate="tanh") * b, F.silu(a) * b,
                 a * F.gelu(b) (diffusers' GEGLU.forward), F.gelu(x, approximate="tanh")
                 (nn.GELU after fc1): two kernels for the gated forms, the activation rounded
                 to x's dtype before the multiply
  sglang_triton  SGLang's FLUX.2 SwiGLU, fused_packed_silu_mul_bitexact (Triton; bf16, bit-exact
                 with torch eager: the same two roundings), context/gated_act.md
FlashInfer's act_and_mul_kernel (what sgl-kernel's silu_and_mul / gelu_tanh_and_mul run) is the
task's in-run baseline "flashinfer"."""
from . import family

TASKS = ("gated_act",)
OUTPUTS = ("y",)
ACTS = ("gelu_tanh_and_mul", "silu_and_mul", "geglu", "gelu_tanh")


def bind(case):
    act = case.axes.get("act")
    if act not in ACTS:
        raise family.BindError(f"task {case.task}: axis act is {act!r}, expected one of {', '.join(ACTS)}")
    bound = family.bind(case, (), OUTPUTS)
    d = case.dims["cols"]
    width = d if act == "gelu_tanh" else 2 * d
    if bound.C != width:
        raise family.BindError(f"task {case.task}: x is {bound.x.shape}, expected [rows, {width}] for act={act}")
    return bound


def _act(bound):
    return bound.case.axes["act"]


def _halves(bound, x):
    x = x.view(-1, bound.C)
    d = bound.case.dims["cols"]
    return x[:, :d], x[:, d:]


def _eager(bound, x):
    import torch.nn.functional as F
    act = _act(bound)
    if act == "gelu_tanh":
        return F.gelu(x.view(-1, bound.C), approximate="tanh")
    a, b = _halves(bound, x)
    if act == "gelu_tanh_and_mul":
        return F.gelu(a, approximate="tanh") * b
    if act == "silu_and_mul":
        return F.silu(a) * b
    return a * F.gelu(b)  # geglu: hidden_states * gelu(gate), gate the second half


def reference(bound, tensors):
    from .torch_ops import d
    return {"y": _eager(bound, d(tensors[bound.x.name]))}


def _torch(bound, tensors):
    x = tensors[bound.x.name]
    return lambda: {"y": _eager(bound, x)}


def _sglang_triton(bound, tensors):
    from .sglang_loader import load
    fused = load("kernels.ops.diffusion.activation.silu_mul_bitexact", needs=("triton",)).fused_packed_silu_mul_bitexact
    x = tensors[bound.x.name].view(1, -1, bound.C)  # Flux2SwiGLU hands [B, S, 2d]
    return lambda: {"y": fused(x)}


def _triton_applies(bound):
    if _act(bound) != "silu_and_mul":
        return "FLUX.2's fused SwiGLU is silu_and_mul only"
    if bound.x.dtype != "bf16":
        return "FLUX.2's fused SwiGLU is bf16 only (Flux2SwiGLU falls back to eager otherwise)"
    return None


PEERS = [
    family.Peer("torch", "torch eager, as the models write it (two kernels for the gated forms)", _torch),
    family.Peer("sglang_triton", "SGLang 0.5.23 Flux2SwiGLU: fused_packed_silu_mul_bitexact (Triton)", _sglang_triton,
                applies=_triton_applies, needs=("triton",),
                files=("sglang/kernels/ops/diffusion/activation/silu_mul_bitexact.py",)),
]
