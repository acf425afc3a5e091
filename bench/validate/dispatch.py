"""The dispatch table every family site calls through: k(site, family, *args) runs the family on
the current backend (ops_torch / ops_engine / ops_ako: family -> (output, impl name)) and
  - lists, when `listing`, which impl served each site (a site is the block kind and the site
    in it: "double.img.norm1"; the count is how many blocks of the step have it), so nothing
    falls back silently;
  - records, when `recording`, one copy of the arguments of each distinct call (family, shapes,
    dtypes, strides, flags) and how often the step makes it: the in-process microbench
    (measure.microbench) times the engine and ako on exactly those calls;
  - brackets, when `marking`, each site with a one-element marker kernel and notes the site's
    family: measure.attribute charges the kernels between two markers to the family they
    bracket (kernels run in launch order on the one stream, eager or in a CUDA graph)."""
import re

import torch


def site_kind(site):
    """'double3.img.norm1' -> 'double.img.norm1'."""
    return re.sub(r"^([a-z]+)\d+", r"\1", site)


def signature(args, kw):
    def one(a):
        if isinstance(a, torch.Tensor):
            return ("T", tuple(a.shape), str(a.dtype), tuple(a.stride()))
        return a if isinstance(a, (int, float, str, bool, type(None))) else repr(a)
    return tuple(one(a) for a in args) + tuple((n, one(v)) for n, v in sorted(kw.items()))


def _clone_args(args):
    """Copies of a call's tensors that keep their layout: tensors sharing a storage (q and k as
    views of one packed qkv) become views, at the same offsets and strides, of one copy of that
    storage. (Cloning each view's `_base` apart gave the microbench q and k that were no longer
    views of one qkv, and the ported qknorm refused them: bench/results/2026-11-25-h200-session6/validate/.)"""
    copies = {}
    out = []
    for a in args:
        if not isinstance(a, torch.Tensor):
            out.append(a)
            continue
        storage = a.untyped_storage()
        key = (storage.data_ptr(), a.device)
        if key not in copies:
            copy = torch.empty(storage.nbytes(), dtype=torch.uint8, device=a.device)
            copy.untyped_storage().copy_(storage)
            copies[key] = copy.untyped_storage()
        out.append(torch.empty(0, dtype=a.dtype, device=a.device).set_(copies[key], a.storage_offset(), a.size(), a.stride()))
    return out


class Dispatch:
    def __init__(self, ops):
        self.ops = ops
        self.listing = self.recording = self.marking = False
        self.sites = {}      # site kind -> {"family", "impls": {impl: calls}}
        self.records = {}    # signature -> {"family", "args", "kw", "count", "site"}
        self.labels = []     # the family (or None: no family) that follows each marker, in launch order
        self.marker = None

    def mark(self, label):
        if self.marker is None:
            self.marker = torch.zeros(1, dtype=torch.uint8, device="cuda")
        self.marker.bitwise_not_()
        self.labels.append(label)

    def __call__(self, site, family, *args, **kw):
        if self.recording:
            sig = (family,) + signature(args, kw)
            rec = self.records.get(sig)
            if rec is None:
                rec = self.records[sig] = {"family": family, "site": site_kind(site), "count": 0,
                                           "args": _clone_args(args), "kw": dict(kw)}
            rec["count"] += 1
        if self.marking:
            self.mark(family)
        out, impl = self.ops(family, *args, **kw)
        if self.marking:
            self.mark(None)
        if self.listing:
            entry = self.sites.setdefault(site_kind(site), {"family": family, "impls": {}})
            entry["impls"][impl] = entry["impls"].get(impl, 0) + 1
        return out

    def swapped(self):
        """The listing as JSON rows: site, family, impl, calls per step."""
        return [{"site": s, "family": e["family"], "impl": impl, "calls": n}
                for s, e in self.sites.items() for impl, n in e["impls"].items()]
