#!/usr/bin/env python3
"""Session 38: the time floor of issue 14's 512-token cases (norm_floor.cu says what each kernel does).

For every stream structure the four families' text-512 (512 x 3072) and text-512-cfg (1024 x 3072) cases
have, times with bench/peers/timing.py (CUPTI through torch.profiler, memset flush of twice the L2, IQM,
interleaved: the method of SGLang-process timing) the floor kernel at 96, 128, 192 and 384 threads a row,
and a memcpy of the same bytes, --rounds times; each structure's kernels are first checked once against
torch (fp32 math, one rounding). Writes --json (the IQMs) and prints a table.

    python3 norm_floor.py norm_floor.cubin [--samples N] [--rounds R] [--json F]"""
import argparse
import ctypes
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../.."))
from bench.peers.timing import Timer  # noqa: E402

C = 3072
THREADS = (96, 128, 192, 384)
# structure: (x "h" bf16 / "f" fp32, inputs, outputs, mod 0 none / 1 x's dtype / 2 fp32, reduce)
STRUCTS = {
    "norm": ("h", 1, 1, 0, 1), "norm-fp32x": ("f", 1, 1, 0, 1),
    "ew": ("h", 1, 1, 0, 0), "ew-mod": ("h", 1, 1, 1, 0), "ew-mod32": ("h", 1, 1, 2, 0),
    "norm-mod": ("h", 1, 1, 1, 1), "norm-mod32": ("h", 1, 1, 2, 1),
    "res": ("h", 2, 2, 0, 1), "res-mod": ("h", 2, 2, 1, 1), "res-mod32": ("h", 2, 2, 2, 1),
}


def groups():
    """(name, rows, structure, modulation rows): every stream structure of both shapes ([1, L, C] and
    [B, L, C] modulation differ only on text-512-cfg, B = 2)."""
    out = []
    for shape, rows in (("text-512", 512), ("text-512-cfg", 1024)):
        for s, (_, _, _, mod, _) in STRUCTS.items():
            if not mod:
                out.append((f"{shape} {s}", rows, s, rows))
            else:
                out.append((f"{shape} {s} lc", rows, s, 512))
                if rows != 512:
                    out.append((f"{shape} {s} blc", rows, s, rows))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("cubin")
    ap.add_argument("--samples", type=int, default=200)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--json", default="norm_floor.json")
    a = ap.parse_args()
    import torch
    torch.cuda.init()
    torch.empty(1, device="cuda")
    cu = ctypes.CDLL("libcuda.so.1")

    def check(r, what):
        if r != 0:
            raise RuntimeError(f"{what}: CUresult {r}")

    mod = ctypes.c_void_p()
    check(cu.cuModuleLoadData(ctypes.byref(mod), ctypes.c_char_p(open(a.cubin, "rb").read())), "cuModuleLoadData")
    fns = {}

    def fn(name):
        if name not in fns:
            f = ctypes.c_void_p()
            check(cu.cuModuleGetFunction(ctypes.byref(f), mod, name.encode()), name)
            fns[name] = f
        return fns[name]

    def launch(name, grid, block, args):
        ptrs = (ctypes.c_void_p * len(args))(*[ctypes.cast(ctypes.byref(x), ctypes.c_void_p) for x in args])
        stream = ctypes.c_void_p(torch.cuda.current_stream().cuda_stream)
        check(cu.cuLaunchKernel(fn(name), grid, 1, 1, block, 1, 1, 0, stream, ptrs, None), name)

    p = lambda t: ctypes.c_void_p(t.data_ptr() if t is not None else 0)  # noqa: E731
    torch.manual_seed(0)
    timer = Timer(samples=a.samples)
    results = {}
    print(f"device: {torch.cuda.get_device_name()}; C {C}; {a.rounds} rounds of {a.samples} samples")
    for gname, rows, s, mod_rows in groups():
        xt, nin, nout, md, red = STRUCTS[s]
        xd = torch.bfloat16 if xt == "h" else torch.float32
        md_t = xd if md == 1 else torch.float32
        ins = [torch.randn(rows, C, dtype=xd, device="cuda") for _ in range(nin)]
        mods = [torch.randn(mod_rows, C, dtype=md_t, device="cuda") * 0.1 for _ in range(2)] if md else [None, None]
        outs = [torch.empty(rows, C, dtype=xd, device="cuda") for _ in range(nout)]
        nbytes = sum(t.numel() * t.element_size() for t in ins + outs + [m for m in mods if m is not None])
        src = torch.empty(nbytes // 2, dtype=torch.uint8, device="cuda")
        dst = torch.empty_like(src)
        args = lambda: (p(ins[0]), p(ins[1] if nin == 2 else None), p(mods[0]), p(mods[1]), p(outs[0]),  # noqa: E731
                        p(outs[1] if nout == 2 else None), ctypes.c_int(C), ctypes.c_int(mod_rows), ctypes.c_float(1e-6))
        kernels = {}
        for T in THREADS:
            name = f"fl_{xt}_{T}_{nin}{nout}_m{md}_r{red}"
            launch(name, rows, T, args())   # once against torch
            torch.cuda.synchronize()
            v = sum(t.float() for t in ins)
            y = v * torch.rsqrt(v.pow(2).mean(-1, keepdim=True) + 1e-6) if red else v
            if md:
                rep = rows // mod_rows
                y = y * (1 + mods[0].float().repeat(rep, 1)) + mods[1].float().repeat(rep, 1)
            err = (outs[0].float() - y.to(xd).float()).abs().max().item()
            err_r = (outs[1].float() - v.to(xd).float()).abs().max().item() if nout == 2 else 0.0
            if err > 0.07 or err_r > 0.07:
                sys.exit(f"{gname} {name}: wrong (max abs err {err:.3e} / {err_r:.3e})")
            kernels[f"T{T}"] = (lambda nm=name: launch(nm, rows, T_of(nm), args()))
        kernels["memcpy"] = lambda: dst.copy_(src)
        runs = [timer.time_interleaved(kernels, copies=("memcpy",)) for _ in range(a.rounds)]
        res = {n: [r[n]["iqm_us"] for r in runs] for n in kernels}
        results[gname] = {"rows": rows, "structure": s, "mod_rows": mod_rows, "bytes": nbytes, "iqm_us": res}
        best = min((sum(v) / len(v), n) for n, v in res.items() if n != "memcpy")
        cp = sum(res["memcpy"]) / len(res["memcpy"])
        print(f"{gname:28} {nbytes / 2**20:6.1f} MiB  " + "  ".join(f"{n} {sum(v) / len(v):5.2f}" for n, v in res.items())
              + f"   floor {best[0]:.2f} ({best[1]}) = {best[0] / cp:.3f} x memcpy")
    json.dump({"device": torch.cuda.get_device_name(), "C": C, "samples": a.samples, "rounds": a.rounds,
               "groups": results}, open(a.json, "w"), indent=1)


def T_of(name):
    return int(name.split("_")[2])


if __name__ == "__main__":
    main()
