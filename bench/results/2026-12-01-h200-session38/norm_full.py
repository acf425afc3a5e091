#!/usr/bin/env python3
"""Session 38, call 4: norm_full.cu's plain norm_scale_shift kernels on text-512-cfg (B 2, L 512, C 3072,
bf16) for every broadcast layout (scalar, [C], [B, C]), modulation dtype, affine and norm, at 96, 128
and 192 threads a row, beside a memcpy of each case's bytes; timed with bench/peers/timing.py (CUPTI
through torch.profiler, memset flush, IQM, interleaved), --rounds times, each kernel first checked
against torch (fp32 math, one rounding). Writes --json and prints a table.

    python3 norm_full.py norm_full.cubin [--samples N] [--rounds R] [--json F]"""
import argparse
import ctypes
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../.."))
from bench.peers.timing import Timer  # noqa: E402

B, L, C = 2, 512, 3072
THREADS = (96, 128, 192)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("cubin")
    ap.add_argument("--samples", type=int, default=100)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--json", default="norm_full.json")
    a = ap.parse_args()
    import torch
    torch.cuda.init()
    torch.empty(1, device="cuda")   # the primary context, current before the driver API loads the module
    cu = ctypes.CDLL("libcuda.so.1")

    def check(r, what):
        if r != 0:
            raise RuntimeError(f"{what}: CUresult {r}")

    mod = ctypes.c_void_p()
    check(cu.cuModuleLoadData(ctypes.byref(mod), ctypes.c_char_p(open(a.cubin, "rb").read())), "cuModuleLoadData")

    def fn(name):
        f = ctypes.c_void_p()
        check(cu.cuModuleGetFunction(ctypes.byref(f), mod, name.encode()), name)
        return f

    def launch(f, T, args):
        ptrs = (ctypes.c_void_p * len(args))(*[ctypes.cast(ctypes.byref(x), ctypes.c_void_p) for x in args])
        stream = ctypes.c_void_p(torch.cuda.current_stream().cuda_stream)
        check(cu.cuLaunchKernel(f, B * L, 1, 1, T, 1, 1, 0, stream, ptrs, None), "launch")

    p = lambda t: ctypes.c_void_p(t.data_ptr())  # noqa: E731
    torch.manual_seed(0)
    timer = Timer(samples=a.samples)
    x = torch.randn(B * L, C, dtype=torch.bfloat16, device="cuda")
    y = torch.empty_like(x)
    w = (1 + 0.1 * torch.randn(C, device="cuda")).to(torch.bfloat16)
    bias = (0.1 * torch.randn(C, device="cuda")).to(torch.bfloat16)
    results = {}
    print(f"device: {torch.cuda.get_device_name()}; B {B}, L {L}, C {C}, bf16; {a.rounds} rounds of {a.samples} samples")
    for lay, rows in (("s", 0), ("c", 1), ("bc", B)):
        for m, sd in ((0, torch.bfloat16), (1, torch.float32)):
            shape = (1,) if lay == "s" else (rows, C)
            scale = (0.1 * torch.randn(*shape, device="cuda")).to(sd)
            shift = (0.1 * torch.randn(*shape, device="cuda")).to(sd)
            for aff in (0, 1):
                for norm in ("l", "r"):
                    xf = x.float()
                    if norm == "l":
                        n = (xf - xf.mean(-1, keepdim=True)) * torch.rsqrt(xf.var(-1, unbiased=False, keepdim=True) + 1e-6)
                    else:
                        n = xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + 1e-6)
                    if aff:
                        n = n * w.float() + (bias.float() if norm == "l" else 0)
                    sc, sh = scale.float(), shift.float()
                    if lay == "bc":
                        sc, sh = sc.repeat_interleave(L, 0), sh.repeat_interleave(L, 0)
                    want = (n * (1 + sc) + sh).to(torch.bfloat16).float()
                    nbytes = 2 * x.numel() * 2 + (2 * C * 2 if aff else 0) + 2 * scale.numel() * scale.element_size()
                    src = torch.empty(nbytes // 2, dtype=torch.uint8, device="cuda")
                    dst = torch.empty_like(src)
                    args = (p(y), p(x), p(w), p(bias), p(scale), p(shift), ctypes.c_int(L), ctypes.c_int(C),
                            ctypes.c_float(1e-6))
                    kernels = {}
                    for T in THREADS:
                        f = fn(f"fn_{T}_{lay}_m{m}_a{aff}_{norm}")
                        y.zero_()
                        launch(f, T, args)
                        torch.cuda.synchronize()
                        err = (y.float() - want).abs().max().item()
                        if err > 0.07:
                            sys.exit(f"fn_{T}_{lay}_m{m}_a{aff}_{norm}: wrong (max abs err {err:.3e})")
                        kernels[f"T{T}"] = (lambda f=f, T=T: launch(f, T, args))
                    kernels["memcpy"] = lambda: dst.copy_(src)
                    runs = [timer.time_interleaved(kernels, copies=("memcpy",)) for _ in range(a.rounds)]
                    res = {n_: [r[n_]["iqm_us"] for r in runs] for n_ in kernels}
                    key = f"layout={'scalar' if lay == 's' else lay} mod_dtype={'fp32' if m else 'same'} " \
                          f"{'affine' if aff else 'noaffine'} norm={'layer' if norm == 'l' else 'rms'}"
                    results[key] = {"bytes": nbytes, "iqm_us": res}
                    mean = {n_: sum(v) / len(v) for n_, v in res.items()}
                    best = min((u, n_) for n_, u in mean.items() if n_ != "memcpy")
                    print(f"{key:52} " + "  ".join(f"{n_} {u:5.2f}" for n_, u in mean.items())
                          + f"   best {best[0]:.2f} ({best[1]}) = {best[0] / mean['memcpy']:.3f} x memcpy")
    json.dump({"device": torch.cuda.get_device_name(), "B": B, "L": L, "C": C, "samples": a.samples,
               "rounds": a.rounds, "cases": results}, open(a.json, "w"), indent=1)


if __name__ == "__main__":
    main()
