"""Family rmsnorm: y = x * rsqrt(mean(x^2) + eps) * w over the last dimension, weight optional.

Peers:
  torch  F.rms_norm(x, (C,), w, eps) (what bench/torch_rmsnorm.py has always timed)
The engine's kernel (FlashInfer's RMSNormKernel under sgl-kernel's rmsnorm) is the task's in-run
baseline "flashinfer"; there is no Python-side engine peer."""
from . import family

TASKS = ("rmsnorm",)
OUTPUTS = ("y",)


def bind(case):
    return family.bind(case, ("weight",), OUTPUTS, default_norm="rms")


def _inputs(bound, tensors):
    from .torch_ops import operand
    return tensors[bound.x.name].view(-1, bound.C), operand(bound, tensors, "weight")


def reference(bound, tensors):
    from .torch_ops import d, norm
    x, w = _inputs(bound, tensors)
    return {"y": norm("rms", d(x), d(w), None, bound.eps)}


def _torch(bound, tensors):
    import torch.nn.functional as F
    x, w = _inputs(bound, tensors)
    return lambda: {"y": F.rms_norm(x, (bound.C,), w, bound.eps)}


PEERS = [family.Peer("torch", "torch eager F.rms_norm", _torch)]
