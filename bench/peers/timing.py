"""GPU time of a Python callable, measured as bench/torch_rmsnorm.py always has (and as ako does):
kernel durations from CUPTI through torch.profiler, summed per sample, and the interquartile mean
(IQM: the mean of the samples between the 25th and 75th percentiles) of N samples as the time,
ako's centre (harness/measure/stats/stats.hpp says why), so the columns compare like with like.

A sample is [marker][L2 flush][the callable's kernels]: the marker, a one-byte bitwise_not (a
kernel no peer launches), opens the sample; the flush, a memset-like zero_() of a buffer twice
the L2's size, evicts what the previous sample left (cold L2, the ako default) and is not
charged; every other kernel up to the next marker is the callable's and is charged, whatever
launched it (aten, Triton, CuTe DSL through tvm-ffi). Memcpy and memset activity is left out
(but a size copy's own device-to-device memcpy: time_interleaved's `copies`).
All of it runs on torch's current stream, so the order is the launch order.
`events` brackets each call with CUDA events instead (adds the launch latency, ~3 us).

time_interleaved() times several callables in one profiler session, their samples interleaved in
rotating order (round r starts at the r-th callable), as ako interleaves a case's kernels: clock
ramps and drift fall on all of them alike, and a comparison between two engines' kernels is made
in one process, on one buffer set, under one flush."""
import statistics

MARKER = "bitwise_not"


def iqm(times):
    """The interquartile mean as ako computes it: g = floor(n / 4) samples trimmed from each end
    of the sorted samples, the mean of the n - 2g kept."""
    if not times:
        raise ValueError("iqm: no samples")
    s = sorted(times)
    g = len(s) // 4
    kept = s[g:len(s) - g]
    return sum(kept) / len(kept)


class Timer:
    def __init__(self, samples=100, warmup=10, hot=False, method="profiler"):
        import torch
        self.samples, self.warmup, self.hot, self.method = samples, warmup, hot, method
        props = torch.cuda.get_device_properties(torch.cuda.current_device())
        self.l2_bytes = getattr(props, "L2_cache_size", 50 * 2 ** 20)
        self.flush = None if hot else torch.empty(2 * self.l2_bytes, dtype=torch.uint8, device="cuda")
        self.marker = torch.zeros(1, dtype=torch.uint8, device="cuda")

    def time_interleaved(self, fns, copies=()):
        """Stats (as time() returns them) of each callable of `fns` (name -> callable), their
        samples interleaved: round r runs every callable once, starting at the r-th
        (rotation()); every sample is [marker][flush][the callable's kernels] as in time().
        The callables named in `copies` are charged their device-to-device memcpys too: a
        copy_() of contiguous tensors is one cudaMemcpyAsync, no kernel, and would time as 0
        (the others' memcpys stay left out, as in time())."""
        import torch
        names = list(fns)
        if not names:
            return {}
        for _ in range(self.warmup):
            for n in names:
                fns[n]()
        torch.cuda.synchronize()
        from torch.profiler import ProfilerActivity, profile
        orders = [rotation(names, r) for r in range(self.samples)]
        with profile(activities=[ProfilerActivity.CUDA]) as prof:
            for order in orders:
                for n in order:
                    self.marker.bitwise_not_()
                    if not self.hot:
                        self.flush.zero_()
                    fns[n]()
            torch.cuda.synchronize()
        samples = split_samples(_device_kernels(prof, dtod=bool(copies)), flush=not self.hot)
        out = {}
        for n, own in attribute(samples, orders).items():
            if n not in copies:
                own = [[k for k in s if not _dtod(k[1])] for s in own]
            times = [sum(d for d, _ in x) for x in own]
            out[n] = _stats(times, _typical(own, times), "profiler-interleaved", self.hot)
        return out

    def time(self, fn):
        """Stats of fn's GPU time in microseconds: iqm (the time), median, min, max, mean, samples,
        and the kernels one sample launched (names of the kernels of the sample nearest the IQM)."""
        import torch
        for _ in range(self.warmup):
            fn()
        torch.cuda.synchronize()
        if self.method == "events":
            return _stats(self._events(fn), [], "events", self.hot)
        times, kernels = self._profiler(fn)
        return _stats(times, kernels, "profiler", self.hot)

    def _profiler(self, fn):
        import torch
        from torch.profiler import ProfilerActivity, profile
        with profile(activities=[ProfilerActivity.CUDA]) as prof:
            for _ in range(self.samples):
                self.marker.bitwise_not_()
                if not self.hot:
                    self.flush.zero_()
                fn()
            torch.cuda.synchronize()
        samples = split_samples(_device_kernels(prof), flush=not self.hot)
        if len(samples) != self.samples:
            raise RuntimeError(f"profiler: expected {self.samples} samples, found {len(samples)} "
                               f"(marker kernel '{MARKER}' not seen once per sample)")
        times = [sum(d for d, _ in s) for s in samples]
        return times, _typical(samples, times)

    def _events(self, fn):
        import torch
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        times = []
        for _ in range(self.samples):
            if not self.hot:
                self.flush.zero_()
            start.record()
            fn()
            stop.record()
            stop.synchronize()
            times.append(start.elapsed_time(stop) * 1e3)
        return times


def _typical(samples, times):
    """The kernel names of the sample whose time is nearest the IQM."""
    centre = iqm(times)
    return [n for _, n in min(zip(samples, times), key=lambda st: abs(st[1] - centre))[0]]


def _stats(times, kernels, method, hot):
    return {"iqm_us": iqm(times), "median_us": statistics.median(times), "min_us": min(times), "max_us": max(times),
            "mean_us": statistics.fmean(times), "samples": len(times), "method": method,
            "cold_l2": not hot, "kernels_per_sample": len(kernels), "kernels": kernels}


def rotation(names, r):
    """The order of round r of an interleaved timing: the names rotated to start at the r-th."""
    k = r % len(names)
    return list(names[k:]) + list(names[:k])


def attribute(samples, orders):
    """{name: [its samples]}: the samples of an interleaved timing, in launch order, handed out
    along the rounds' orders (sample i to the i-th name of the orders laid end to end). A count
    that does not match (a marker missed) is an error, never a silent shift."""
    flat = [n for order in orders for n in order]
    if len(samples) != len(flat):
        raise RuntimeError(f"profiler: expected {len(flat)} interleaved samples, found {len(samples)} "
                           f"(marker kernel '{MARKER}' not seen once per sample)")
    out = {n: [] for order in orders for n in order}
    for n, s in zip(flat, samples):
        out[n].append(s)
    return out


def copy_bandwidth_gbs(samples=20, nbytes=1 << 30):
    """Device-to-device copy bandwidth as ako measures it (harness/measure/gpu/copy_bandwidth.cpp):
    a copy of 1 GiB (less when memory is short) timed with CUDA events after 3 warm-ups, bytes
    read + written per second / 1e9, the median of 20."""
    import torch
    free, _ = torch.cuda.mem_get_info()
    n = max(64 << 20, min(nbytes, free // 4)) & ~0xfff
    src = torch.ones(n, dtype=torch.uint8, device="cuda")
    dst = torch.empty_like(src)
    for _ in range(3):
        dst.copy_(src)
    start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    rates = []
    for _ in range(samples):
        start.record()
        dst.copy_(src)
        stop.record()
        stop.synchronize()
        rates.append(2.0 * n / (start.elapsed_time(stop) * 1e-3) / 1e9)
    del src, dst
    return statistics.median(rates)


def split_samples(kernels, flush):
    """The charged kernels of each sample, [(duration_us, name), ...], from (start, duration_us,
    name) of every kernel: a marker opens a sample, the flush right after it (when there is one)
    is dropped, the rest up to the next marker is the sample's. Kernels before the first marker
    belong to no sample."""
    samples, current, skip = [], None, False
    for start, dur_us, name in sorted(kernels):
        if MARKER in name:
            if current is not None:
                samples.append(current)
            current, skip = [], flush
        elif current is not None:
            if skip:
                skip = False
                continue
            current.append((dur_us, name))
    if current is not None:
        samples.append(current)
    return samples


def _device_kernels(prof, dtod=False):
    """(start, duration_us, name) of every kernel the profiler saw on the GPU, and with dtod every
    device-to-device memcpy too. From kineto's raw events where torch exposes them (kernels with
    no CPU-side op, e.g. Triton or tvm-ffi launches, are there for certain), else from
    prof.events()."""
    import torch
    out = []

    def keep(name):
        return not _not_kernel(name) or (dtod and _dtod(name))
    results = getattr(getattr(prof, "profiler", None), "kineto_results", None)
    if results is not None:
        for e in results.events():
            if e.device_type() != torch.autograd.DeviceType.CUDA:
                continue
            name = e.name()
            if not keep(name):
                continue
            start = e.start_ns() if hasattr(e, "start_ns") else e.start_us() * 1000
            dur = e.duration_ns() / 1e3 if hasattr(e, "duration_ns") else float(e.duration_us())
            out.append((start, dur, name))
        return out
    for e in prof.events():
        if e.device_type == torch.autograd.DeviceType.CUDA and keep(e.name):
            out.append((e.time_range.start, e.time_range.elapsed_us(), e.name))
    return out


def _dtod(name):
    """A device-to-device memcpy as kineto names it ("Memcpy DtoD (Device -> Device)")."""
    return "memcpy dtod" in name.lower()


def _not_kernel(name):
    low = name.lower()
    return "memcpy" in low or "memset" in low
