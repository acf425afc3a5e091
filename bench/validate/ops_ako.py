"""The `ako` backend: the kernels `ako port` wrote into an SGLang tree, packed into .sgl-proof by
`scripts/sglang-gpu-check.sh --prepare`, built with SGLang's JIT flags and loaded through
tvm-ffi exactly as scripts/sglang_port_gpu.py's wrapper check does (engine_jit.setup, shared
with the engine backend: scripts/sglang_jit.py's stand-in sglang.kernels.jit.utils whose load_jit
builds the unit SGLang's would; the ported wrapper imported under its SGLang module name). Each site calls the ported wrapper's entry with
the task's buffers, flags and axes (named as task.json and `ako port` name them); a wrapper that
returns False (a layout, dtype or build it does not take), raises (a shape its tuned config
refuses), or a family not ported, runs the engine backend's kernel there, and the impl name says
so: dispatch.py lists every such site."""
import json
import pathlib

import torch

REPO = pathlib.Path(__file__).resolve().parents[2]


class _Entry:
    """A ported wrapper's entry, called as scripts/sglang_port_gpu.py's wrapper_check calls it:
    the task's solution tensors positionally (a view of another argument is not one), f32
    scalars, flags (not those that only say whether a tensor is present) and axes as keywords
    (with _flag / _axis where the name is also a tensor's or a scalar's)."""

    def __init__(self, spec, fn):
        bufs = {b["name"]: b for b in spec["buffers"]}
        sol = spec["solution"]["args"]
        self.fn = fn
        self.tensors = [a for a in sol if a in bufs and not (bufs[a].get("view") and bufs[a]["view"]["of"] in sol)]
        self.tied = {f for f in spec.get("flags", []) if any(bufs[t].get("present_if") == f for t in self.tensors)}
        self.f32 = [s["name"] for s in spec.get("scalars", []) if s["type"] == "f32" and s["name"] in sol]
        taken = set(self.tensors) | set(self.f32)
        self.flag_kw = {f: (f + "_flag" if f in taken else f) for f in spec.get("flags", [])}
        self.axis_kw = {a["name"]: (a["name"] + "_axis" if a["name"] in taken else a["name"]) for a in spec.get("axes", [])}

    def __call__(self, tensors, flags=None, axes=None, scalars=None):
        kw = {s: float((scalars or {})[s]) for s in self.f32}
        kw.update({self.flag_kw[f]: bool(v) for f, v in (flags or {}).items() if f not in self.tied})
        kw.update({self.axis_kw[a]: v for a, v in (axes or {}).items()})
        return self.fn(*[tensors.get(a) for a in self.tensors], **kw)


def _layout(t, B, C):
    """ako's layout axis and the [b, f, l, C] tensor of a [B,1,C] / [1] modulation operand."""
    if t.numel() == 1:
        return "scalar", t.reshape(1, 1, 1, 1)
    if t.numel() == B * C:
        return "bc", t.reshape(B, 1, 1, C)
    raise ValueError(f"modulation operand of shape {list(t.shape)} is neither [B,1,C] nor a scalar")


def _mod_dtype(x, t):
    return "same" if t.dtype == x.dtype else ("fp32" if t.dtype == torch.float32 else str(t.dtype))


class AkoOps:
    name = "ako"

    def __init__(self, payload, engine, arch="90a"):
        self.engine = engine
        self.entries, self.wrappers, self.loads = {}, {}, []
        self.unavailable = None
        try:
            self._load(pathlib.Path(payload), arch)
        except Exception as e:  # noqa: BLE001  the whole backend falls back, each site saying why
            self.unavailable = f"{type(e).__name__}: {e}"

    def _load(self, payload, arch):
        from . import engine_jit
        env = engine_jit.setup(payload, arch)  # shared with the engine backend's JIT sites
        from sglang_jit import import_wrapper
        from sglang_port_entries import read_port
        from sglang_port_gpu import ported_tasks
        self.loads = env.loads
        for task, path in ported_tasks(payload).items():
            spec_path = REPO / "tasks" / task / "task.json"
            port = read_port(spec_path, path)
            mod = import_wrapper(path, "sglang.kernels.ops.diffusion.norm." + path.stem)
            self.entries[task] = _Entry(json.loads(spec_path.read_text()), getattr(mod, port.module))
            self.wrappers[task] = str(path.relative_to(payload))

    def __call__(self, family, *args, **kw):
        why = self.unavailable or ("not ported (no wrapper in the payload)" if family not in self.entries else None)
        if why is None:
            try:
                out = getattr(self, family)(self.entries[family], *args, **kw)
                if out is not None:
                    return out, "ako"
                why = "the ported wrapper returned False (falls back)"
            except Exception as e:  # noqa: BLE001  a refusal by the kernel's checks
                why = f"the ported kernel refused: {type(e).__name__}: {str(e).splitlines()[0][:160] if str(e) else ''}"
        out, impl = self.engine(family, *args, **kw)
        return out, f"engine {impl} (ako: {why})"

    # ---- one adapter per family: None when the wrapper declined
    @staticmethod
    def norm_scale_shift(e, x, weight, bias, scale, shift, norm, eps):
        B, _, C = x.shape
        layout, sc = _layout(scale, B, C)
        _, sh = _layout(shift, B, C)
        y = torch.empty_like(x)
        ok = e({"y": y, "x": x, "weight": weight, "bias": bias, "scale": sc, "shift": sh}, {"affine": weight is not None},
               {"norm": norm, "layout": layout, "mod_dtype": _mod_dtype(x, scale)}, {"eps": eps})
        return y if ok else None

    @staticmethod
    def residual_gate_norm_scale_shift(e, residual, x, gate, weight, bias, scale, shift, norm, eps):
        B, _, C = x.shape
        layout, sc = _layout(scale, B, C)
        _, sh = _layout(shift, B, C)
        g = None if gate is None else gate.reshape(B, 1, 1, C)
        y, res = torch.empty_like(x), torch.empty_like(x)
        ok = e({"y": y, "residual_out": res, "residual": residual, "x": x, "gate": g, "weight": weight, "bias": bias,
                "scale": sc, "shift": sh}, {"affine": weight is not None},
               {"norm": norm, "layout": layout, "gate": "none" if gate is None else "bc", "mod_dtype": _mod_dtype(x, scale)},
               {"eps": eps})
        return (y, res) if ok else None

    @staticmethod
    def rmsnorm(e, x, weight, eps):
        x2 = x.reshape(-1, x.shape[-1])
        out = torch.empty_like(x2)
        return out.view(x.shape) if e({"out": out, "x": x2, "weight": weight}, {"weight": weight is not None},
                                      {}, {"eps": eps}) else None

    @staticmethod
    def layernorm(e, x, weight, bias, eps):
        x2 = x.reshape(-1, x.shape[-1])
        out = torch.empty_like(x2)
        return out.view(x.shape) if e({"out": out, "x": x2, "weight": weight, "bias": bias}, {"affine": weight is not None},
                                      {}, {"eps": eps}) else None

    @staticmethod
    def scale_shift(e, x, scale, shift):
        B, _, C = x.shape
        layout, sc = _layout(scale, B, C)
        _, sh = _layout(shift, B, C)
        y = torch.empty_like(x)
        ok = e({"y": y, "x": x, "scale": sc, "shift": sh}, {}, {"layout": layout, "mod_dtype": _mod_dtype(x, scale)})
        return y if ok else None

    @staticmethod
    def qknorm(e, q, k, q_weight, k_weight, eps, across_heads):
        ok = e({"q": q, "k": k, "q_weight": q_weight, "k_weight": k_weight}, {"across_heads": across_heads},
               {"head_dim": q.shape[-1]}, {"eps": eps})
        return (q, k) if ok else None

    @staticmethod
    def rope(e, q, k, cos_sin_cache, pos, neox):
        ok = e({"q": q, "k": k, "cos_sin_cache": cos_sin_cache, "pos": pos}, {"neox": neox},
               {"pos_dtype": "i64" if pos.dtype == torch.int64 else "i32"})
        return (q, k) if ok else None

    @staticmethod
    def qknorm_rope(e, q, k, q_weight, k_weight, cos_sin_cache, pos, eps, neox):
        ok = e({"q": q, "k": k, "q_weight": q_weight, "k_weight": k_weight, "cos_sin_cache": cos_sin_cache, "pos": pos},
               {"neox": neox}, {"pos_dtype": "i64" if pos.dtype == torch.int64 else "i32"}, {"eps": eps})
        return (q, k) if ok else None

    @staticmethod
    def gated_act(e, x, act):
        d = x.shape[-1] if act == "gelu_tanh" else x.shape[-1] // 2
        out = torch.empty(x.shape[0], d, dtype=x.dtype, device=x.device)
        return out if e({"out": out, "x": x}, {}, {"act": act}) else None
