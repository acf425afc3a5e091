#!/usr/bin/env python3
"""Registers, blocks an SM and (--sass) machine code of each solution kernel as NVRTC builds it
(what ako tunes and times) against nvcc with SGLang's JIT flags (what `ako port` ships into the
engine), on the CPU.

A tuned config is chosen on NVRTC's register counts; if nvcc allocates more registers for the same
instantiation, fewer blocks fit an SM and a grid that was one wave may become two in the engine
(the residual fusion's text-512-cfg fp16 layer `[1, L, C]` class: NVRTC 64 registers, nvcc 66).

  scripts/nvcc_nvrtc_regs.py TASK [--device NAME] [--shapes S] [--dtypes D] [-j N] [--ako BIN] [--nvcc BIN]
                             [--json FILE] [--strict] [--sass]

For every solution kernel `ako compile` lists for the device's config: the NVRTC count from
`ako compile`, the nvcc count from compiling the solution file with the kernel's address taken
(so nvcc instantiates exactly that kernel) with `-gencode=arch=compute_90a,code=sm_90a -std=c++20
-O3 --expt-relaxed-constexpr` (scripts/sglang_jit.py's flags). Each count is turned into the
blocks an SM its registers allow (sm_90: four schedulers of 16384 registers, 256-register
allocation a warp; also at most 2048 threads and 32 blocks), the block size read from the
kernel's name through the task's `solution.kernel` and `solution.block`. Prints one line per kernel
whose two builds differ in blocks an SM, in spill stores or in stack frame bytes, then a summary.
(Why they differed: nvcc keeps shared-memory pointers in 32 bits, NVRTC in 64; ITERATIONS.md
norm_scale_shift iterations 17-18, where the kernels took to addressing shared memory themselves.)
With --sass each kernel is also built to a cubin by NVRTC (its C API, ako's options) and by nvcc,
and the kernel's machine code (its .text section) compared byte for byte: the same bytes mean the
port runs exactly the kernel ako timed.
Exit 0 when every kernel compiled with both (the differences are reported), 1 when nvcc failed on
one, 2 with --strict when nvcc's build fits fewer blocks an SM than NVRTC's on any kernel (the
port would run a kernel with less occupancy than the one ako measured) or, with --sass, when the
machine code differs on any."""
import argparse
import concurrent.futures as cf
import ctypes
import json
import os
import re
import struct
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "bench"))
from peers import expr  # noqa: E402  (ako's expression language, as the task files write it)
NVCC_FLAGS = ["-gencode=arch=compute_90a,code=sm_90a", "-std=c++20", "-O3", "--expt-relaxed-constexpr", "-Xptxas", "-v"]


def parse_compile_rows(text):
    """{name expression: (registers, spill store bytes, stack frame bytes)} of the solution rows of
    `ako compile`'s table: solution  <name expression>  regs  spill B  stack B  smem B  cache
    (its spill column is ptxas's spill stores; the stack frame, e.g. a local array indexed at run
    time, is apart: it was summed with the spills here, and a kernel with a stack frame and no
    spills read as spilling under NVRTC and not under nvcc)."""
    rows = {}
    for line in text.splitlines():
        m = re.match(r"^solution\s+(\S.*?>)\s+(\d+)\s+(\d+)\s+(\d+)\s", line)
        if m:
            rows[m.group(1)] = (int(m.group(2)), int(m.group(3)), int(m.group(4)))
    return rows


def nvrtc_rows(args):
    cmd = [args.ako, "compile", "task", args.task, "--arch", "sm_90a", "--device", args.device]
    if args.shapes:
        cmd += ["--shapes", args.shapes]
    if args.dtypes:
        cmd += ["--dtypes", args.dtypes]
    r = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"nvcc_nvrtc_regs: `{' '.join(cmd)}` failed:\n{r.stdout}{r.stderr}")
    rows = parse_compile_rows(r.stdout)
    if not rows:
        sys.exit(f"nvcc_nvrtc_regs: no solution kernel in the output of `{' '.join(cmd)}`:\n{r.stdout}")
    return rows


def nvcc_regs(solution, kernel, nvcc, work, sass=None):
    """nvcc's registers, spill store bytes and stack frame bytes for one kernel; with `sass` (an
    Nvrtc), also whether its machine code (the kernel's .text section of the cubin) is byte for byte
    NVRTC's."""
    src = Path(tempfile.mkstemp(suffix=".cu", dir=work)[1])
    src.write_text(f'#include "{solution}"\nvoid* ako_taken = reinterpret_cast<void*>(&{kernel});\n')
    cubin = src.with_suffix(".cubin")
    r = subprocess.run([nvcc, *NVCC_FLAGS, "-cubin", str(src), "-o", str(cubin)], capture_output=True, text=True)
    out = r.stdout + r.stderr
    regs = re.findall(r"Used (\d+) registers", out)
    spills = re.findall(r"(\d+) bytes spill stores", out)
    stack = re.findall(r"(\d+) bytes stack frame", out)
    if r.returncode != 0 or len(regs) != 1:
        return kernel, None, out
    same = None
    if sass is not None:
        mangled, theirs = sass.cubin(solution, kernel)
        same = text_section(theirs, mangled) == text_section(cubin.read_bytes(), mangled)
    return kernel, (int(regs[0]), int(spills[0]) if spills else 0, int(stack[0]) if stack else 0, same), ""


def text_section(elf, mangled):
    """The bytes of section .text.<mangled> of a cubin (an ELF64 file), None where it has none."""
    shoff, = struct.unpack_from("<Q", elf, 0x28)
    entsize, count, names = struct.unpack_from("<HHH", elf, 0x3A)
    headers = [struct.unpack_from("<IIQQQQ", elf, shoff + i * entsize) for i in range(count)]
    strtab = headers[names][4]
    want = (".text." + mangled).encode()
    for name, _, _, _, offset, size in headers:
        if elf[strtab + name: elf.index(b"\0", strtab + name)] == want:
            return elf[offset:offset + size]
    return None


class Nvrtc:
    """NVRTC through its C API, with the options ako's JIT gives a solution (harness/jit/prepare.cpp:
    -arch, -std=c++17, the source's folder and the toolkit's include folders), for the cubin."""

    def __init__(self, cuda_home, arch="sm_90a"):
        self.lib = ctypes.CDLL(str(Path(cuda_home) / "lib64" / "libnvrtc.so"))
        self.options = [f"-arch={arch}", "-std=c++17"]
        self.include = [str(Path(cuda_home) / "include")]

    def cubin(self, solution, kernel):
        lib, prog = self.lib, ctypes.c_void_p()
        src = f'#include "{solution.name}"\n'.encode()
        if lib.nvrtcCreateProgram(ctypes.byref(prog), src, b"nvcc_nvrtc_regs.cu", 0, None, None) != 0:
            raise RuntimeError("nvrtcCreateProgram failed")
        try:
            lib.nvrtcAddNameExpression(prog, kernel.encode())
            opts = [o.encode() for o in self.options + [f"-I{solution.parent}"] + [f"-I{d}" for d in self.include]]
            if lib.nvrtcCompileProgram(prog, len(opts), (ctypes.c_char_p * len(opts))(*opts)) != 0:
                raise RuntimeError(f"NVRTC could not compile {kernel}")
            lowered = ctypes.c_char_p()
            lib.nvrtcGetLoweredName(prog, kernel.encode(), ctypes.byref(lowered))
            size = ctypes.c_size_t()
            lib.nvrtcGetCUBINSize(prog, ctypes.byref(size))
            buf = ctypes.create_string_buffer(size.value)
            lib.nvrtcGetCUBIN(prog, buf)
            return lowered.value.decode(), buf.raw
        finally:
            lib.nvrtcDestroyProgram(ctypes.byref(prog))


def blocks_per_sm(registers, threads):
    """Blocks of `threads` an sm_90 SM holds by registers (and its 2048-thread, 32-block limits):
    registers are allocated 256 a warp, and warps fill the four schedulers' 16384 each, so the
    SM's warp count is rounded down to a multiple of 4 (ptxas's __launch_bounds__ arithmetic)."""
    warps = -(-threads // 32)
    per_warp = -(-max(registers, 1) * 32 // 256) * 256
    warps_by_registers = 65536 // per_warp // 4 * 4
    return min(warps_by_registers // warps, 2048 // (warps * 32), 32)


def block_size_of(spec):
    """A function from a solution kernel's name expression to its block size (threads), from the
    task's `solution.kernel` template ({PARAM} placeholders) and `solution.block` expressions."""
    template = spec["solution"]["kernel"]
    pattern, seen = "", set()
    for literal, name in re.findall(r"([^{]*)(?:\{(\w+)\}|$)", template):
        pattern += re.escape(literal)
        if name:
            pattern += f"(?P={name})" if name in seen else f"(?P<{name}>[^,<>]+?)"
            seen.add(name)
    rx = re.compile(pattern + "$")
    exprs = spec["solution"]["block"]

    def size(kernel):
        m = rx.match(kernel)
        if not m:
            return None
        # Integer parameters as ints, the rest (a string axis such as gated_act's `act`) as text:
        # the expressions are ako's language (C's && || ?:), evaluated as ako does (bench/peers/expr.py).
        values = {k: int(v) if re.fullmatch(r"-?\d+", v.strip()) else v.strip() for k, v in m.groupdict().items()}
        n = 1
        for e in exprs:
            n *= int(expr.evaluate(e, values))
        return n

    return size


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("task")
    p.add_argument("--device", default="NVIDIA H200", help="the config ako compile uses (default: %(default)s)")
    p.add_argument("--shapes")
    p.add_argument("--dtypes")
    p.add_argument("-j", type=int, default=os.cpu_count() or 1)
    p.add_argument("--ako", default=str(REPO / "build/ako"))
    p.add_argument("--nvcc", default="/usr/local/cuda/bin/nvcc")
    p.add_argument("--json", help="also write every kernel's counts, blocks an SM and machine-code verdict here")
    p.add_argument("--strict", action="store_true",
                   help="exit 2 when nvcc's build fits fewer blocks an SM on any kernel (with --sass: or its machine code differs)")
    p.add_argument("--sass", action="store_true",
                   help="also compare each kernel's machine code (the cubin's .text) from NVRTC and from nvcc, byte for byte")
    args = p.parse_args()
    spec_path = REPO / "tasks" / args.task / "task.json"
    if not spec_path.is_file():
        tasks = sorted(d.name for d in (REPO / "tasks").iterdir() if (d / "task.json").is_file())
        sys.exit(f"nvcc_nvrtc_regs: no task '{args.task}' ({spec_path} missing); tasks: {', '.join(tasks)}")
    spec = json.loads(spec_path.read_text())
    solution = (REPO / spec["solution"]["file"]).resolve()
    rows = nvrtc_rows(args)
    with tempfile.TemporaryDirectory(prefix="ako-nvcc-regs-") as work, cf.ThreadPoolExecutor(args.j) as pool:
        sass = Nvrtc(Path(args.nvcc).resolve().parent.parent) if args.sass else None
        done = list(pool.map(lambda k: nvcc_regs(solution, k, args.nvcc, work, sass), rows))
    failed = [(k, err) for k, res, err in done if res is None]
    size = block_size_of(spec)
    table = {}
    for k, res, _ in done:
        if res is None:
            continue
        threads = size(k)
        table[k] = {"nvrtc": rows[k][0], "nvrtc_spill": rows[k][1], "nvrtc_stack": rows[k][2],
                    "nvcc": res[0], "nvcc_spill": res[1], "nvcc_stack": res[2],
                    "threads": threads, "same_sass": res[3],
                    "nvrtc_blocks": blocks_per_sm(rows[k][0], threads) if threads else None,
                    "nvcc_blocks": blocks_per_sm(res[0], threads) if threads else None}
    moved = {k: v for k, v in table.items()
             if v["nvrtc_blocks"] != v["nvcc_blocks"] or v["nvcc_spill"] != v["nvrtc_spill"]
             or v["nvcc_stack"] != v["nvrtc_stack"]}
    for k, v in sorted(moved.items(), key=lambda kv: kv[1]["nvcc"] - kv[1]["nvrtc"], reverse=True):
        print(f"{k}: NVRTC {v['nvrtc']} registers ({v['nvrtc_spill']} B spill stores, {v['nvrtc_stack']} B stack, "
              f"{v['nvrtc_blocks']} blocks an SM), nvcc {v['nvcc']} ({v['nvcc_spill']} B, {v['nvcc_stack']} B stack, "
              f"{v['nvcc_blocks']} blocks)")
    for k, err in failed:
        print(f"{k}: nvcc failed:\n{err}", file=sys.stderr)
    more = sum(v["nvcc"] > v["nvrtc"] for v in table.values())
    fewer = sum(v["nvcc"] < v["nvrtc"] for v in table.values())
    lost = [k for k, v in table.items() if v["nvcc_blocks"] is not None and v["nvcc_blocks"] < v["nvrtc_blocks"]]
    unsized = [k for k, v in table.items() if v["threads"] is None]
    other_sass = sorted(k for k, v in table.items() if v["same_sass"] is False)
    for k in other_sass:
        print(f"{k}: machine code differs between NVRTC's and nvcc's builds")
    print(f"{args.task}: {len(table)} kernels compiled by both ({len(failed)} failed with nvcc); nvcc more registers on "
          f"{more}, fewer on {fewer}, the same on {len(table) - more - fewer}; fewer blocks an SM under nvcc on "
          f"{len(lost)}, another occupancy, spill or stack on {len(moved)}"
          + (f"; the same machine code on {len(table) - len(other_sass)} of {len(table)}" if args.sass else "")
          + (f"; block size unknown on {len(unsized)} (name not matched by solution.kernel)" if unsized else ""))
    if args.json:
        Path(args.json).write_text(json.dumps(table, indent=1) + "\n")
    if failed:
        return 1
    return 2 if args.strict and (lost or other_sass) else 0


if __name__ == "__main__":
    sys.exit(main())
