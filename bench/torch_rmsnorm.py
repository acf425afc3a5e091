#!/usr/bin/env python3
"""Time torch.nn.functional.rms_norm on the GPU over the rmsnorm task's shapes.

The torch side of the "beats PyTorch" bar in bench/RESULTS.md: bf16 and fp16, with and
without a weight, eps from tasks/rmsnorm/task.json. Cold L2 by default (a 2 x L2 buffer is
zeroed before every sample, outside the timed region), warm-up, median of --samples samples.
The default timer is torch.profiler, whose kernel durations come from CUPTI like ako's, so
both sides are charged GPU kernel time only (every kernel rms_norm launched in a sample,
summed); --timer events brackets each call with CUDA events instead, which adds about 3 us
of launch latency. Achieved bandwidth counts x read once, out written once and the weight
read once.

    python3 bench/torch_rmsnorm.py [--task tasks/rmsnorm/task.json] [--json out.json]
"""
import argparse
import json
import pathlib
import statistics
import sys

import torch
import torch.nn.functional as F


def load_task(path):
    spec = json.loads(pathlib.Path(path).read_text())
    eps = next(s["value"] for s in spec["scalars"] if s["name"] == "eps")
    return spec["shapes"], float(eps)


def profiler_times_ms(x, w, cols, eps, samples, hot, flush):
    """Per-sample sums of the CUDA kernels rms_norm launched, from torch.profiler (CUPTI).
    Each sample starts with the flush kernel (or, hot, a tiny marker kernel), which splits
    the kernel stream into samples and is itself not charged."""
    marker = torch.empty(1, device="cuda")
    from torch.profiler import ProfilerActivity, profile
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(samples):
            (marker if hot else flush).zero_()
            F.rms_norm(x, (cols,), w, eps)
        torch.cuda.synchronize()
    kernels = sorted((e for e in prof.events() if e.device_type == torch.autograd.DeviceType.CUDA
                      and "memcpy" not in e.name.lower() and "memset" not in e.name.lower()),
                     key=lambda e: e.time_range.start)
    times, current = [], None
    for e in kernels:
        if "FillFunctor" in e.name:  # the zero_() that opens a sample
            if current is not None:
                times.append(current)
            current = 0.0
        elif current is not None:
            current += e.time_range.elapsed_us() / 1e3
    if current is not None:
        times.append(current)
    if len(times) != samples:
        raise RuntimeError(f"profiler: expected {samples} samples, found {len(times)}")
    return times


def time_case(rows, cols, dtype, with_weight, eps, samples, warmup, hot, flush, timer):
    gen = torch.Generator(device="cuda").manual_seed(rows * 131 + cols)
    x = torch.randn(rows, cols, device="cuda", dtype=dtype, generator=gen)
    w = (1.0 + 0.25 * torch.randn(cols, device="cuda", dtype=dtype, generator=gen)) if with_weight else None
    for _ in range(warmup):
        F.rms_norm(x, (cols,), w, eps)
    torch.cuda.synchronize()
    elem = x.element_size()
    bytes_moved = 2 * rows * cols * elem + (cols * elem if with_weight else 0)
    if timer == "profiler":
        times_ms = profiler_times_ms(x, w, cols, eps, samples, hot, flush)
        median_us = statistics.median(times_ms) * 1e3
        return median_us, bytes_moved / (median_us * 1e-6) / 1e9, min(times_ms) * 1e3
    times_ms = []
    start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    for _ in range(samples):
        if not hot:
            flush.zero_()
        start.record()
        F.rms_norm(x, (cols,), w, eps)
        stop.record()
        stop.synchronize()
        times_ms.append(start.elapsed_time(stop))
    median_us = statistics.median(times_ms) * 1e3
    return median_us, bytes_moved / (median_us * 1e-6) / 1e9, min(times_ms) * 1e3


def main():
    root = pathlib.Path(__file__).resolve().parent.parent
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--task", default=str(root / "tasks/rmsnorm/task.json"))
    ap.add_argument("--json", help="write per-case results here")
    ap.add_argument("--samples", type=int, default=100, help="timed samples per case (>= 50)")
    ap.add_argument("--warmup", type=int, default=10)
    ap.add_argument("--hot", action="store_true", help="keep L2 warm (no flush between samples)")
    ap.add_argument("--shapes", nargs="*", help="only these shape names")
    ap.add_argument("--timer", choices=["profiler", "events"], default="profiler",
                    help="profiler: CUPTI kernel time via torch.profiler (as ako); events: CUDA events")
    args = ap.parse_args()
    if args.samples < 50:
        ap.error("--samples must be at least 50")
    if not torch.cuda.is_available():
        sys.exit("no CUDA device")

    shapes, eps = load_task(args.task)
    if args.shapes:
        shapes = [s for s in shapes if s["name"] in args.shapes]
    props = torch.cuda.get_device_properties(0)
    l2_bytes = getattr(props, "L2_cache_size", 50 * 2**20)
    flush = torch.empty(2 * l2_bytes, dtype=torch.uint8, device="cuda")

    results = []
    print(f"# {props.name}, torch {torch.__version__}, eps {eps}, {'hot' if args.hot else 'cold'} L2, "
          f"median of {args.samples}, timer {args.timer}")
    print(f"{'shape':14} {'rows x cols':>14} {'dtype':5} {'weight':6} {'median_us':>10} {'min_us':>9} {'GB/s':>8}")
    for s in shapes:
        rows, cols = s["rows"], s["cols"]
        for dtype_name, dtype in (("bf16", torch.bfloat16), ("fp16", torch.float16)):
            for with_weight in (True, False):
                med, gbps, mn = time_case(rows, cols, dtype, with_weight, eps, args.samples, args.warmup,
                                          args.hot, flush, args.timer)
                print(f"{s['name']:14} {f'{rows}x{cols}':>14} {dtype_name:5} {str(with_weight):6} "
                      f"{med:10.2f} {mn:9.2f} {gbps:8.1f}")
                results.append({"shape": {"name": s["name"], "rows": rows, "cols": cols}, "dtype": dtype_name,
                                "weight": with_weight, "median_us": med, "min_us": mn, "gbps": gbps})
    if args.json:
        pathlib.Path(args.json).write_text(json.dumps({
            "schema": "ako.torch_bench/1", "device": props.name, "torch": torch.__version__, "eps": eps,
            "l2": "hot" if args.hot else "cold", "timer": args.timer, "samples": args.samples, "cases": results}, indent=2))


if __name__ == "__main__":
    main()
