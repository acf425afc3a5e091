"""Family qknorm: RMSNorm in place on q [N, Hq, D] and k [N, Hk, D], strided views of the packed
qkv [N, (Hq + 2 Hk) D]; per head (rows of D, weights [D]) or across heads (flag across_heads: a
row of Hq D / Hk D per token, weights [H D]). The output is the whole qkv: v must come back as
it went in.

Peers:
  torch  F.rms_norm on the q and k views (diffusers' nn.RMSNorm: per head over D, Wan 2.1 and
         LTX-Video across heads over H D), each result copied back into its view (q.copy_,
         k.copy_): the eager chain's out-of-place norms, made in place
SGLang's fused_inplace_qknorm (JIT CUDA), FlashInfer's QKRMSNorm and its RMSNorm (what SGLang
runs across heads) are the task's in-run baselines "sglang", "flashinfer_qk_rmsnorm" and
"flashinfer_rmsnorm" (input/qknorm/peers/, context/qknorm.md)."""
from . import family

TASKS = ("qknorm",)


def bind(case):
    qkv = case.buffers.get("qkv")
    if qkv is None or "q" not in case.buffers or "k" not in case.buffers:
        raise family.BindError(f"task {case.task}: qknorm needs buffers qkv, q and k (declared: {', '.join(case.buffers)})")
    B, L, C = family.activation_dims(case, qkv)
    bound = family.Bound(case=case, B=B, L=L, C=C, x=qkv, outputs={"y": qkv.name})
    bound.norm = "rms"
    bound.eps = float(case.scalars.get("eps", 1e-6))
    return bound


def _views(bound, qkv):
    """q and k of this case as [rows, len] views of qkv (len = D, or H D across heads)."""
    case = bound.case
    N, Hq, Hk, D = (case.dims[n] for n in ("N", "Hq", "Hk", "D"))
    q = case.buffers["q"].view
    k = case.buffers["k"].view
    qv = qkv.as_strided((N, Hq, D), q["strides"], q["offset"])
    kv = qkv.as_strided((N, Hk, D), k["strides"], k["offset"])
    if case.flags.get("across_heads"):
        return qv.reshape(N, Hq * D), kv.reshape(N, Hk * D)  # views: a token's heads are contiguous
    return qv, kv


def reference(bound, tensors):
    from .torch_ops import d, norm
    out = d(tensors[bound.x.name]).clone()
    q, k = _views(bound, out)
    q.copy_(norm("rms", q.clone(), d(tensors["q_weight"]), None, bound.eps))
    k.copy_(norm("rms", k.clone(), d(tensors["k_weight"]), None, bound.eps))
    return {"y": out}


def _torch(bound, tensors):
    from .torch_ops import norm
    work = tensors[bound.x.name].clone()  # the peer's own copy: the reference reads the original
    q, k = _views(bound, work)
    qw, kw = tensors["q_weight"], tensors["k_weight"]

    def run():
        q.copy_(norm("rms", q, qw, None, bound.eps))
        k.copy_(norm("rms", k, kw, None, bound.eps))
        return {"y": work}
    return run


PEERS = [family.Peer("torch", "torch eager F.rms_norm on the q and k views, copied back in place", _torch)]
