"""Timing a step and attributing its GPU time to families.

latency     CUDA events around each step (eager: the launches included; graph: one replay of a
            CUDA graph captured from the step), median of `steps` after `warmup`
attribute   the step under torch.profiler (CUPTI kernel durations, bench/peers/timing.py's
            reader) with each site bracketed by marker kernels (dispatch.py): per step the
            kernel time of each family, the rest ("other": GEMMs, attention, copies) and the
            total; medians over `reps` steps. Under --graph the markers are captured in a second
            graph (the timed one has none)
microbench  each distinct family call of the step, alone, engine and ako, as ako times kernels
            (bench/peers/timing.Timer: CUPTI, cold L2, median)"""
import statistics

import torch

from peers.timing import MARKER, Timer, _device_kernels


def _graph(fn):
    """A CUDA graph of fn (warmed on a side stream first, as torch's docs ask) and its output."""
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        fn()
    torch.cuda.current_stream().wait_stream(s)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        out = fn()
    torch.cuda.synchronize()
    return g, out


def latency(fn, steps, warmup, graph):
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    run = fn
    g = None
    if graph:
        g, _ = _graph(fn)
        run = g.replay
        run()
    times = []
    for _ in range(steps):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        run()
        b.record()
        b.synchronize()
        times.append(a.elapsed_time(b))
    del g
    return {"median": statistics.median(times), "min": min(times), "max": max(times), "samples": len(times)}


def attribute(fn, k, reps, graph):
    """{"total", "other", "families": {family: us}, "kernels": {family: [names]}} (medians)."""
    def marked():
        k.mark("<step>")
        return fn()
    k.labels, k.marking = [], True
    try:
        if graph:
            g, _ = _graph(marked)
            one = list(k.labels[len(k.labels) // 2:])  # the captured step's (the side-stream warm-up's first)
            k.labels = one * reps
            run = g.replay
        else:
            marked()  # warm
            torch.cuda.synchronize()
            k.labels = []
            run = marked
        with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as prof:
            for _ in range(reps):
                run()
            torch.cuda.synchronize()
    finally:
        k.marking = False
    return split(_device_kernels(prof), k.labels)


def split(kernels, labels):
    """Per step sums from (start, us, name) kernels and the label after each marker."""
    steps, cur, names = [], None, {}
    i = 0
    for _, us, name in sorted(kernels):
        if MARKER in name:
            if i >= len(labels):
                raise RuntimeError(f"profiler saw more marker kernels than sites marked ({len(labels)})")
            label = labels[i]
            i += 1
            if label == "<step>":
                cur = {}
                steps.append(cur)
                label = None
            bucket = label or "other"
            continue
        if cur is None:
            continue
        cur[bucket] = cur.get(bucket, 0.0) + us
        names.setdefault(bucket, set()).add(name)
    if i != len(labels):
        raise RuntimeError(f"profiler saw {i} marker kernels, {len(labels)} sites marked")
    keys = {key for s in steps for key in s}
    med = {key: statistics.median(s.get(key, 0.0) for s in steps) for key in keys}
    fams = {key: v for key, v in med.items() if key != "other"}
    return {"total": statistics.median(sum(s.values()) for s in steps), "other": med.get("other", 0.0),
            "families": fams, "steps": len(steps),
            "kernels": {key: sorted(n)[:8] for key, n in names.items() if key != "other"}}


def microbench(records, backends, samples, warmup):
    """One row per distinct call: family, site, count per step, shape, and per backend its impl
    and median us."""
    timer = Timer(samples=samples, warmup=warmup, hot=False)
    rows = []
    for rec in records.values():
        first = next((a for a in rec["args"] if isinstance(a, torch.Tensor)), None)
        row = {"family": rec["family"], "site": rec["site"], "count": rec["count"],
               "shape": list(first.shape) if first is not None else None}
        for name, ops in backends.items():
            _, impl = ops(rec["family"], *rec["args"], **rec["kw"])
            row[name + "_impl"] = impl
            row[name + "_us"] = timer.time(lambda: ops(rec["family"], *rec["args"], **rec["kw"]))["median_us"]
        rows.append(row)
    return rows


def compare(got, want):
    d = (got.float() - want.float())
    return {"max_abs": float(d.abs().max()), "rel_l2": float(d.norm() / want.float().norm().clamp_min(1e-30))}
