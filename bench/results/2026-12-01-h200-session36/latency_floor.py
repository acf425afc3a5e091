#!/usr/bin/env python3
"""Session 36: the time floor of issue 15's smallest cases (latency_floor.cu says what each kernel does).

For rope's d256 (N 129, H 2, D 256, R 256, P 4096) and qknorm_rope's neox-r32 (N 45, H 4, D 128,
R 32, P 45) and partial-r64 (N 333, H 5, D 128, R 64, P 1000) shapes (with --more: rope's partial-r64, whose
threads move only the rotated columns, and qknorm_rope's d64: N 77, H 3, D 64, R 64, P 77), times with bench/peers/timing.py
(CUPTI through torch.profiler, memset flush, IQM, interleaved) the floor kernels over each shape's
q and k chunks (one 16-byte chunk a thread, 128-thread blocks, random i64 positions), and on d256
rope's own kernel (checked once against torch), plus a memcpy of the same bytes.

    python3 latency_floor.py latency_floor.cubin [--samples N] [--rounds R] [--more]"""
import argparse
import ctypes
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../.."))
from bench.peers.timing import Timer  # noqa: E402

ROPE = "_Z11rope_kernelI13__nv_bfloat16xLb0ELi8ELi1ELi128ELi1EEvPT_S2_PKfPKT0_iiiixx"
SHAPES = {  # name: N, H, D, R, P, the chunks a thread each (all of q and k, or only their rotated R columns: rope)
    "d256": (129, 2, 256, 256, 4096, "all"),
    "neox-r32": (45, 4, 128, 32, 45, "all"),
    "partial-r64": (333, 5, 128, 64, 1000, "all"),
}
MORE = {  # --more: the rope and qknorm_rope cases left under 1.1x in session 36's call 7
    "rope-partial-r64": (333, 5, 128, 64, 1000, "rotated"),
    "d64": (77, 3, 64, 64, 77, "all"),
}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("cubin")
    ap.add_argument("--samples", type=int, default=200)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--more", action="store_true", help="only the shapes of MORE (session 36, call 10)")
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
    for name in ("floor_empty", "floor_copy", "floor_pos", "floor_chain", ROPE):
        f = ctypes.c_void_p()
        check(cu.cuModuleGetFunction(ctypes.byref(f), mod, name.encode()), name)
        fns[name] = f

    def launch(name, grid, *args):
        ptrs = (ctypes.c_void_p * max(1, len(args)))(*[ctypes.cast(ctypes.byref(x), ctypes.c_void_p) for x in args])
        stream = ctypes.c_void_p(torch.cuda.current_stream().cuda_stream)
        check(cu.cuLaunchKernel(fns[name], grid, 1, 1, 128, 1, 1, 0, stream, ptrs if args else None, None), name)

    ll, i32, u32 = ctypes.c_longlong, ctypes.c_int, ctypes.c_uint
    p = lambda t: ctypes.c_void_p(t.data_ptr())  # noqa: E731
    torch.manual_seed(0)
    results = {}
    for shape, (N, H, D, R, P, chunks) in (MORE if a.more else SHAPES).items():
        q = torch.randn(N, H, D, dtype=torch.bfloat16, device="cuda")
        k = torch.randn(N, H, D, dtype=torch.bfloat16, device="cuda")
        qk = torch.randn(2 * N * H * D, dtype=torch.bfloat16, device="cuda")  # the floor kernels' chunks (or fewer)
        qk2 = torch.empty_like(qk)
        pos = torch.randint(0, P, (N,), dtype=torch.int64, device="cuda")
        theta = torch.rand(P, R // 2, device="cuda") * 6.28
        cos_sin = torch.cat([theta.cos(), theta.sin()], dim=1).contiguous()  # [P, R]: cos then sin
        items = 2 * N * H * (D if chunks == "all" else R) // 8
        per_token = items // N
        grid = (items + 127) // 128
        kernels = {
            "floor_empty": lambda: launch("floor_empty", grid),
            "floor_copy": lambda: launch("floor_copy", grid, p(qk), ll(items), u32(0)),
            "floor_pos": lambda: launch("floor_pos", grid, p(qk), p(pos), ll(items), i32(per_token), u32(0)),
            "floor_chain": lambda: launch("floor_chain", grid, p(qk), p(pos), p(cos_sin), ll(items), i32(per_token),
                                          i32(R // 4), u32(0)),
            "memcpy": lambda: qk2.copy_(qk),
        }
        if shape == "d256":
            rope_grid = (N * 2 * H * (R // 8) + 127) // 128
            args = lambda qq, kk: (p(qq), p(kk), p(cos_sin), p(pos), i32(N), i32(H), i32(D), i32(R),  # noqa: E731
                                   ll(H * D), ll(H * D))
            # once against torch: interleaved pairs (x0, x1) -> (x0 c - x1 s, x1 c + x0 s), fp32, one rounding
            qq, kk = q.clone(), k.clone()
            launch(ROPE, rope_grid, *args(qq, kk))
            torch.cuda.synchronize()
            c, s = cos_sin[pos, :R // 2][:, None, :], cos_sin[pos, R // 2:][:, None, :]
            for name, before, after in (("q", q, qq), ("k", k, kk)):
                x = before.float().view(N, H, R // 2, 2)
                want = torch.stack([x[..., 0] * c - x[..., 1] * s, x[..., 1] * c + x[..., 0] * s], -1).view(N, H, D)
                err = (after.float() - want.to(torch.bfloat16).float()).abs().max().item()
                print(f"check rope_d256 {name}: max abs err {err:.3e} against torch")
                if err > 0.05:
                    sys.exit("rope_d256: wrong")
            kernels["rope_d256"] = lambda: launch(ROPE, rope_grid, *args(q, k))
        timer = Timer(samples=a.samples)
        runs = [timer.time_interleaved(kernels, copies=("memcpy",)) for _ in range(a.rounds)]
        results[shape] = {n: [r[n]["iqm_us"] for r in runs] for n in kernels}
        print(f"\n{shape}: N {N}, H {H}, D {D}, R {R}, P {P}; {items} chunks of 16 bytes ({items * 16 / 1024:.0f} KiB "
              f"each way), grid {grid} x 128")
        for n, us in results[shape].items():
            print(f"  {n:12} " + " ".join(f"{u:6.2f}" for u in us) + f"   mean {sum(us) / len(us):.2f} us")


if __name__ == "__main__":
    main()
