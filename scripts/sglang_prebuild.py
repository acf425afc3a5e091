#!/usr/bin/env python3
"""Build here, on the CPU machine, the modules scripts/sglang_port_gpu.py builds first on the GPU
machine (every entry point of a task's port, in the units it plans, nvcc as SGLang's JIT runs it),
and pack them into the payload: a run there then starts checking and timing at once. Each run on
a fresh machine built them there (session 40: the residual fusion's 16 units, 170-182 s of a
600 s call on the H200 machine's 16 cores).

    python3 scripts/sglang_prebuild.py --payload .sgl-proof-X --task T [--task T2] \\
        [--jobs-like 16] [--ffi-site /tmp/sglang-deps/site] [--arch 90a] [--parallel N] [--with-wrapper]

The GPU machine finds a module by a key of its unit's text (which names the kernel files by
absolute path), so the payload must sit at the same absolute path there as here (the repository
root is /work/main on both); the units are split by that machine's cores (--jobs-like, default
16, the nvidia-h200 kind's). The tvm-ffi headers and library are those of the package the run
imports: with --deps (engine timing beside CuTe DSL) the unpacked CuTe DSL deps' tvm_ffi
(`scripts/gpu-sglang-deps.sh` here unpacks them to /tmp/sglang-deps/site, the path the GPU
machine uses); the GPU side uses a pack only where the tvm_ffi it imports has the version the
pack was built against, as many cores and the same --arch. A wrapper check (without --no-wrapper) also builds one-entry
units: --with-wrapper builds those too. Writes PAYLOAD/prebuilt/<task>.tar.xz (each unit's
module.so and build.sh under its key, and PREBUILT.json); nothing else in the payload changes (its
MANIFEST does not list the packs).
"""
from __future__ import annotations

import argparse
import datetime
import importlib.util
import json
import os
import pathlib
import subprocess
import sys
import tarfile
import time

REPO = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "scripts"))
from sglang_jit import Builder, build_all, log  # noqa: E402
from sglang_port_entries import read_port  # noqa: E402
from sglang_port_gpu import plan_units, ported_tasks  # noqa: E402


def load_file(name: str, path: pathlib.Path):
    """A module of the tvm_ffi package by its file: the package's core is for the Python of the
    GPU machine and does not import here, libinfo.py and _version.py need none of it."""
    spec = importlib.util.spec_from_file_location(name, path)
    m = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(m)
    return m


def pack_modules(root: pathlib.Path, modules, meta: dict, pack: pathlib.Path):
    """Each module.so with its build.sh, under its folder's name (the unit's key) in `root`, and
    PREBUILT.json (meta) into a tar.xz: scripts/sglang_port_gpu.py's unpack_prebuilt reads it."""
    meta_file = root / "PREBUILT.json"
    meta_file.write_text(json.dumps(meta, indent=1) + "\n")
    with tarfile.open(pack, "w:xz") as tar:
        tar.add(meta_file, "PREBUILT.json")
        for so in modules:
            for f in (so, so.parent / "build.sh"):
                tar.add(f, str(f.relative_to(root)))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--payload", type=pathlib.Path, required=True)
    ap.add_argument("--task", action="append", required=True)
    ap.add_argument("--jobs-like", type=int, default=16, help="the GPU machine's cores (its unit split)")
    ap.add_argument("--ffi-site", type=pathlib.Path, default=pathlib.Path("/tmp/sglang-deps/site"),
                    help="the folder holding the tvm_ffi package the GPU run imports")
    ap.add_argument("--parallel", type=int, default=os.cpu_count() or 1, help="nvcc processes at once here")
    ap.add_argument("--arch", default="90a", help="as the GPU run's --arch (sm_90a)")
    ap.add_argument("--with-wrapper", action="store_true", help="also the wrapper check's one-entry units")
    ap.add_argument("--build", type=pathlib.Path, help="the build folder (default: a fresh one under /tmp)")
    args = ap.parse_args()

    payload = args.payload.resolve()
    ffi_pkg = args.ffi_site / "tvm_ffi"
    if not (ffi_pkg / "libinfo.py").exists():
        log(f"no tvm_ffi package in {args.ffi_site} (run scripts/gpu-sglang-deps.sh here, or pass --ffi-site)")
        return 2
    libinfo = load_file("tvm_ffi_libinfo", ffi_pkg / "libinfo.py")
    version = load_file("tvm_ffi_version", ffi_pkg / "_version.py").__version__
    lib = pathlib.Path(libinfo.find_libtvm_ffi())
    ffi = ([libinfo.find_include_path(), libinfo.find_dlpack_include_path()], str(lib.parent), lib.stem.removeprefix("lib"))

    available = ported_tasks(payload)
    missing = [t for t in args.task if t not in available]
    if missing:
        log(f"not ported in {payload}: {', '.join(missing)} (ported: {', '.join(available) or 'none'})")
        return 2
    (payload / "prebuilt").mkdir(exist_ok=True)
    for t in args.task:
        # One task a pack; the GPU run plans its units over the tasks it is asked for, so a pack
        # serves a run of that task alone (as the engine-timing runs are).
        ports = {t: read_port(REPO / "tasks" / t / "task.json", available[t])}
        units, singles = plan_units(ports, args.jobs_like, with_wrapper=args.with_wrapper)
        root = args.build or pathlib.Path(f"/tmp/sglang-prebuild-{t}-{os.getpid()}")
        builder = Builder(payload, root, args.arch, ffi=ffi)
        # The version of the nvcc that builds the units (the Builder's: CUDA_HOME or the one on PATH).
        nvcc_version = subprocess.run([builder.nvcc, "--version"], capture_output=True,
                                      text=True).stdout.strip().splitlines()[-2]
        log(f"{t}: {len(units)} units (split for {args.jobs_like} cores) and {len(singles)} one-entry units, "
            f"{args.parallel} at a time, tvm_ffi {version} from {ffi_pkg}, into {root}")
        t0 = time.time()
        built = build_all(builder, units + singles, args.parallel)
        failed = [(u[0], r) for u, r in built if isinstance(r, Exception)]
        if failed:
            for name, e in failed:
                log(f"FAIL {name}: {e}")
            return 1
        pack = payload / "prebuilt" / f"{t}.tar.xz"
        meta = {"task": t, "tvm_ffi": version, "jobs": args.jobs_like, "arch": args.arch, "nvcc": nvcc_version,
                "built": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%MZ"),
                "units": [u[0] for u in units + singles]}
        pack_modules(root, [so for _, so in built], meta, pack)
        log(f"{t}: {len(built)} modules in {time.time() - t0:.0f} s, packed: {pack} "
            f"({pack.stat().st_size / 2**20:.1f} MiB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
