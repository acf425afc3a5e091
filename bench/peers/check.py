"""A peer's outputs against the float64 reference, element by element, under the task's
tolerance for each output, or one given for all (|got - want| <= atol + rtol * |want|; NaN or
Inf never passes)."""
import torch


def compare(case, bound, got, want, tolerance=None):
    """None when every output matches, else {"reason", "buffer", "max_abs", "max_rel",
    "mismatches", "checked", "nonfinite", "worst_index", "worst_got", "worst_want"} of the first
    output that does not."""
    for role, name in bound.outputs.items():
        atol, rtol = tolerance or case.buffers[name].tolerance
        g, w = got.get(role), want[role]
        if g is None:
            return {"reason": f"returned no '{name}'", "buffer": name}
        if g.numel() != w.numel():
            return {"reason": f"'{name}' has {g.numel()} elements, expected {w.numel()}", "buffer": name}
        g = g.reshape(-1).double()
        w = w.reshape(-1)
        diff = (g - w).abs()
        allowed = atol + rtol * w.abs()
        bad = ~(diff <= allowed)  # NaN compares false: bad
        n_bad = int(bad.sum())
        if n_bad:
            finite = torch.isfinite(g)
            # the worst element is the one furthest outside its bound (a non-finite one first)
            excess = torch.where(finite, diff - allowed, torch.full_like(diff, float("inf")))
            worst = int(excess.argmax())
            return {"reason": f"'{name}': {n_bad} of {g.numel()} elements outside atol {atol:g} + rtol {rtol:g}",
                    "buffer": name, "mismatches": n_bad, "checked": g.numel(),
                    "nonfinite": int((~finite).sum()), "max_abs": float(diff[finite].max()) if finite.any() else None,
                    "max_rel": float((diff / w.abs().clamp_min(1e-30))[finite].max()) if finite.any() else None,
                    "worst_index": worst, "worst_got": float(g[worst]), "worst_want": float(w[worst])}
    return None
