#!/usr/bin/env python3
"""Session 36: qknorm's wan13b per-head kernel against what its layout allows (layout_ceiling.cu).

Times, interleaved in one profiler session under the memset flush (bench/peers/timing.py: CUPTI
through torch.profiler, cold L2, IQM), on wan13b's qkv [32760, 3 * 12 * 128] bf16:
  qknorm_per_head / qknorm_across  the committed kernels at the H200 wan13b class (in place on q, k)
  ident_strided / ident_strided2   q and k read and written back in place, no arithmetic (1 or 2
                                   chunks a thread): the layout's own ceiling
  ident_contig                     the same bytes in place, contiguous
  copy_contig                      the same bytes copied to another buffer (a kernel)
  memcpy                           the same bytes by cudaMemcpyAsync (ako's size copy)
and prints each one's rate in % of the 1 GiB device-to-device copy (ako's %copy) and of the
memcpy of the same bytes (ako's %size). Checks qknorm's output against torch once.

    python3 layout_ceiling.py layout_ceiling.cubin [--samples N] [--rounds R]"""
import argparse
import ctypes
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../.."))
from bench.peers.timing import Timer, copy_bandwidth_gbs  # noqa: E402

N, H, D = 32760, 12, 128


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("cubin")
    ap.add_argument("--samples", type=int, default=100)
    ap.add_argument("--rounds", type=int, default=3, help="interleaved timings, each a fresh profiler session")
    a = ap.parse_args()
    import torch
    torch.cuda.init()
    torch.empty(1, device="cuda")  # the primary context, current on this thread
    cu = ctypes.CDLL("libcuda.so.1")

    def check(r, what):
        if r != 0:
            raise RuntimeError(f"{what}: CUresult {r}")

    mod = ctypes.c_void_p()
    image = open(a.cubin, "rb").read()
    check(cu.cuModuleLoadData(ctypes.byref(mod), ctypes.c_char_p(image)), "cuModuleLoadData")
    fns = {}
    for name in ("ident_strided", "ident_strided2", "ident_contig", "copy_contig", "qknorm_per_head", "qknorm_across"):
        f = ctypes.c_void_p()
        check(cu.cuModuleGetFunction(ctypes.byref(f), mod, name.encode()), name)
        fns[name] = f

    def launch(name, grid, block, *args):
        holders = [x for x in args]
        ptrs = (ctypes.c_void_p * len(holders))(*[ctypes.cast(ctypes.byref(x), ctypes.c_void_p) for x in holders])
        stream = ctypes.c_void_p(torch.cuda.current_stream().cuda_stream)
        check(cu.cuLaunchKernel(fns[name], grid, 1, 1, block, 1, 1, 0, stream, ptrs, None), name)

    torch.manual_seed(0)
    qkv = torch.randn(N, 3 * H * D, dtype=torch.bfloat16, device="cuda")
    qw = (1 + 0.25 * torch.randn(D, dtype=torch.bfloat16, device="cuda"))
    kw = (1 + 0.25 * torch.randn(D, dtype=torch.bfloat16, device="cuda"))
    qw_a = (1 + 0.25 * torch.randn(H * D, dtype=torch.bfloat16, device="cuda"))
    kw_a = (1 + 0.25 * torch.randn(H * D, dtype=torch.bfloat16, device="cuda"))
    qk_bytes = 2 * N * H * D * 2             # q and k, read once and written once each
    chunks_qk, stride_chunks = 2 * H * D // 8, 3 * H * D // 8
    flat = torch.empty(qk_bytes // 2, dtype=torch.bfloat16, device="cuda")
    flat2 = torch.empty_like(flat)
    n16 = qk_bytes // 16
    ll, i32, u32, f32 = ctypes.c_longlong, ctypes.c_int, ctypes.c_uint, ctypes.c_float
    p = lambda t: ctypes.c_void_p(t.data_ptr())  # noqa: E731
    q_ptr, k_ptr = p(qkv), ctypes.c_void_p(qkv.data_ptr() + H * D * 2)

    # qknorm once against torch (fp32 sums, one rounding), per head and across heads.
    ref = qkv.clone()
    def torch_qknorm(x, across):
        x3 = x.view(N, 3, H, D)[:, :2].float()
        if across:
            xs = x3.reshape(N, 2, H * D)
            w = torch.stack([qw_a, kw_a]).float().view(1, 2, H * D)
            y = xs * torch.rsqrt(xs.pow(2).mean(-1, keepdim=True) + 1e-6) * w
            return y.view(N, 2, H, D).to(torch.bfloat16)
        w = torch.stack([qw, kw]).float().view(1, 2, 1, D)
        return (x3 * torch.rsqrt(x3.pow(2).mean(-1, keepdim=True) + 1e-6) * w).to(torch.bfloat16)
    for name, across, wq, wk, grid in (("qknorm_per_head", False, qw, kw, N * 2 * H // 8),
                                       ("qknorm_across", True, qw_a, kw_a, N * 2)):
        work = ref.clone()
        launch(name, grid, 128, ctypes.c_void_p(work.data_ptr()), ctypes.c_void_p(work.data_ptr() + H * D * 2),
               p(wq), p(wk), i32(N), i32(H), i32(H), ll(3 * H * D), f32(1e-6))
        torch.cuda.synchronize()
        want = torch_qknorm(ref, across)
        got = work.view(N, 3, H, D)[:, :2]
        err = (got.float() - want.float()).abs().max().item()
        v_same = torch.equal(work.view(N, 3, H, D)[:, 2], ref.view(N, 3, H, D)[:, 2])
        print(f"check {name}: max abs err {err:.3e} against torch, v untouched: {v_same}")
        if err > 0.05 or not v_same:
            sys.exit(f"{name}: wrong")

    kernels = {
        "qknorm_per_head": lambda: launch("qknorm_per_head", N * 2 * H // 8, 128, q_ptr, k_ptr, p(qw), p(kw),
                                          i32(N), i32(H), i32(H), ll(3 * H * D), f32(1e-6)),
        "qknorm_across": lambda: launch("qknorm_across", N * 2, 128, q_ptr, k_ptr, p(qw_a), p(kw_a),
                                        i32(N), i32(H), i32(H), ll(3 * H * D), f32(1e-6)),
        "ident_strided": lambda: launch("ident_strided", (N * chunks_qk + 127) // 128, 128, p(qkv), ll(N),
                                        i32(chunks_qk), i32(stride_chunks), u32(0)),
        "ident_strided2": lambda: launch("ident_strided2", (N * chunks_qk + 255) // 256, 128, p(qkv), ll(N),
                                         i32(chunks_qk), i32(stride_chunks), u32(0)),
        "ident_contig": lambda: launch("ident_contig", (n16 + 127) // 128, 128, p(flat), ll(n16), u32(0)),
        "copy_contig": lambda: launch("copy_contig", (n16 + 127) // 128, 128, p(flat), p(flat2), ll(n16)),
        "memcpy": lambda: flat2.copy_(flat),
    }
    bw = copy_bandwidth_gbs()
    print(f"copy bandwidth {bw:.0f} GB/s (1 GiB device-to-device copy, events, median of 20); "
          f"bytes a kernel: {2 * qk_bytes / 1e6:.1f} MB (q and k read and written)")
    timer = Timer(samples=a.samples)
    runs = []
    for r in range(a.rounds):
        runs.append(timer.time_interleaved(kernels, copies=("memcpy",)))
    print(f"\n{'kernel':18} " + " ".join(f"{'round ' + str(r + 1) + ' us':>11}" for r in range(a.rounds)) +
          f" {'%copy':>7} {'%memcpy':>8}")
    for n in kernels:
        us = [run[n]["iqm_us"] for run in runs]
        mean_us = sum(us) / len(us)
        mem = sum(run["memcpy"]["iqm_us"] for run in runs) / len(runs)
        pct = 2 * qk_bytes / (mean_us * 1e-6) / (bw * 1e9) * 100
        print(f"{n:18} " + " ".join(f"{u:11.2f}" for u in us) + f" {pct:7.1f} {mem / mean_us * 100:8.1f}")


if __name__ == "__main__":
    main()
