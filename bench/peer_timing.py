#!/usr/bin/env python3
"""Time torch eager and the engine's own kernels of a task's family from Python, per compare
case, the way ako times its kernels: CUPTI kernel durations via torch.profiler, cold L2 (a
buffer of 2x the L2 zeroed before each sample, not charged), warm-up, the IQM of N (the mean of
the samples between the 25th and 75th percentiles, as ako reports; the median is kept beside it).

    python3 bench/peer_timing.py TASK [--json OUT] [--shapes ...] [--dtypes ...] [--where EXPR] [--peers ...]
                                      [--samples N] [--warmup N] [--hot] [--timer profiler|events]
    python3 bench/peer_timing.py TASK --dry-run      # cases and which peers would run; no torch

TASK is a task name (tasks/TASK/task.json) or a task.json path. The cases are ako's compare
cases (shapes x dtypes x flags x axes where the task's `when` holds), the tensors built as
task.json's buffers say. The peers of a family live in bench/peers/<task>.py: "torch" and the
engine's kernels (SGLang 0.5.23's, from peers/sglang-0.5.23/: scripts/fetch-sglang.sh). Each
peer's output is first checked against a float64 reference at the task's tolerance; a wrong
output is reported, not timed. A peer that cannot run (a package or SGLang's files missing, or
the engine would not run that kernel for the case) says why in its column; the rest goes on.

The JSON (schema ako.peer_bench/1) lists the cases with shape, dims, dtype, flags and axes, so
scripts/compare_torch.py joins it with `ako run --json` of the same task on the same GPU."""
import argparse
import functools
import importlib
import importlib.util
import json
import math
import pathlib
import sys
import zlib

BENCH = pathlib.Path(__file__).resolve().parent
ROOT = BENCH.parent
if str(BENCH) not in sys.path:
    sys.path.insert(0, str(BENCH))

from peers import cases as casemod  # noqa: E402
from peers import family as fam  # noqa: E402

SCHEMA = "ako.peer_bench/1"


def add_deps(folder):
    """Put an unpacked scripts/fetch-sglang-deps.sh archive first on sys.path, with the folder
    nvidia-cutlass-dsl's .pth file would add (its packages live under dsl_packages/)."""
    site = pathlib.Path(folder).resolve()
    if not site.is_dir():
        sys.exit(f"peer_timing: --deps {folder}: no such folder")
    for p in (site / "nvidia_cutlass_dsl" / "dsl_packages", site):
        if p.is_dir():
            sys.path.insert(0, str(p))
    importlib.invalidate_caches()


def task_path(task):
    p = pathlib.Path(task)
    if p.suffix == ".json" or p.is_file():
        return p
    return ROOT / "tasks" / task / "task.json"


def family_module(spec):
    name = spec["name"]
    if importlib.util.find_spec(f"peers.{name}") is None:
        known = sorted(p.stem for p in (BENCH / "peers").glob("*.py")
                       if "TASKS" in p.read_text() and p.stem != "family")
        sys.exit(f"peer_timing: no family module bench/peers/{name}.py for task {name} (families: {', '.join(known)})")
    return importlib.import_module(f"peers.{name}")


def case_bytes(case):
    """Bytes the op must move: each present input once at its own size, each output once,
    inout twice (ako's roofline). A storage reached through views counts through them (q and k
    inside qkv, never v), each view at its extents (no view here broadcasts)."""
    viewed = {b.view["of"] for b in case.buffers.values() if b.view is not None}
    total = 0
    for b in case.buffers.values():
        if not b.present or b.name in viewed:
            continue
        n = math.prod(b.shape) * casemod.ELEM_BYTES[b.dtype]
        total += 2 * n if b.role == "inout" else n
    return total


def static_status(peer):
    """Why a peer cannot run on this machine, from what can be seen without importing it."""
    from peers import sglang_loader
    for pkg in ("torch",) + tuple(peer.needs):
        try:
            found = importlib.util.find_spec(pkg) is not None
        except (ImportError, ValueError):
            found = False
        if not found:
            return f"needs the Python package providing '{pkg}'"
    for f in peer.files:
        if not (sglang_loader.ROOT / f).is_file():
            return f"{sglang_loader.ROOT / f} missing; {sglang_loader.HINT}"
    return None


def dry_run(spec, module, cases, peers):
    print(f"# task {spec['name']} ({spec['_file']}), family module bench/peers/{module.__name__.split('.')[-1]}.py, "
          f"{len(cases)} compare cases")
    for p in peers:
        why = static_status(p)
        status = f"unavailable: {why}" if why else "available"
        print(f"# peer {p.name}: {p.description} [{status}]")
    for c in cases:
        try:
            bound = module.bind(c)
        except fam.BindError as e:
            print(f"{c.label:<60} cannot bind: {e}")
            continue
        cols = []
        for p in peers:
            state = "unavailable" if static_status(p) else ("run" if p.applies(bound) is None else "n/a")
            cols.append(f"{p.name}={state}")
        forms = " ".join(f"{r}{list(f)}" for r, f in bound.forms.items())
        print(f"{c.label:<60} {case_bytes(c) / 1e6:9.1f} MB  {' '.join(cols)}  {forms}")
        for p in peers:
            why = p.applies(bound)
            if why is not None:
                print(f"    {p.name}: not applicable: {why}")


def checked_peer(peer, case, bound, tensors_of, want_of, tolerance, unavailable, entry):
    """The peer's callable on this case, run once and its outputs checked against want_of() (the
    float64 reference) at `tolerance` (None: the task's); None when it cannot run here, `entry`
    then saying why (unavailable, not_applicable, error). A peer found unavailable is remembered in
    `unavailable` for the cases after. A wrong output marks `entry` incorrect and still returns the
    callable: the caller decides whether to time it. tensors_of() gives the case's tensors, made
    only for a peer that runs."""
    import torch

    from peers import check, sglang_loader
    if unavailable[peer.name]:
        entry.update(verdict="unavailable", reason=unavailable[peer.name])
        return None
    why = peer.applies(bound)
    if why is not None:
        entry.update(verdict="not_applicable", reason=why)
        return None
    try:
        fn = peer.make(bound, tensors_of())
        got = fn()
        torch.cuda.synchronize()
    except sglang_loader.Unavailable as e:
        unavailable[peer.name] = str(e)
        entry.update(verdict="unavailable", reason=unavailable[peer.name])
        return None
    except Exception as e:  # the peer's own failure, reported in its column
        entry.update(verdict="error", reason=f"{type(e).__name__}: {e}".strip()[:500])
        return None
    bad = check.compare(case, bound, got, want_of(), tolerance)
    del got
    if bad:
        entry.update(verdict="incorrect", reason=bad.pop("reason"), error=bad)
    return fn


def _finite(v):
    if isinstance(v, float) and not math.isfinite(v):
        return None
    if isinstance(v, dict):
        return {k: _finite(x) for k, x in v.items()}
    if isinstance(v, list):
        return [_finite(x) for x in v]
    return v


def run(spec, module, cases, peers, args):
    import torch

    from peers import sglang_loader, timing, torch_ops
    if not torch.cuda.is_available():
        sys.exit("peer_timing: no CUDA device (use --dry-run to list the cases)")
    timer = timing.Timer(args.samples, args.warmup, args.hot, args.timer)
    props = torch.cuda.get_device_properties(0)
    unavailable = {p.name: static_status(p) for p in peers}
    tol = "the task's" if not args.tolerance else f"atol {args.tolerance[0]:g} rtol {args.tolerance[1]:g}"
    print(f"# {props.name}, torch {torch.__version__}, task {spec['name']}, {'hot' if args.hot else 'cold'} L2, "
          f"IQM of {args.samples}, timer {args.timer}, outputs checked at {tol} tolerance")
    head = f"{'case':<56} {'MB':>8}" + "".join(f" {p.name + ' us':>20}" for p in peers)
    print(head)
    results = []
    for c in cases:
        row = {"shape": c.shape, "dims": c.dims, "dtype": c.dtype, "flags": c.flags,
               "axes": {k: str(v) for k, v in c.axes.items()}, "label": c.label, "bytes": case_bytes(c), "peers": {}}
        try:
            bound = module.bind(c)
        except fam.BindError as e:
            for p in peers:
                row["peers"][p.name] = {"verdict": "error", "reason": f"cannot bind the task's buffers: {e}"}
            results.append(row)
            print(f"{c.label:<56} cannot bind: {e}")
            continue
        tensors = torch_ops.make_tensors(c, seed=zlib.crc32(c.label.encode()))
        # the float64 reference, computed for the first peer that runs, once
        want = functools.lru_cache(maxsize=1)(lambda b=bound, t=tensors: module.reference(b, t))
        for p in peers:
            entry = row["peers"][p.name] = {}
            fn = checked_peer(p, c, bound, lambda t=tensors: t, want, args.tolerance, unavailable, entry)
            if fn is None or (entry.get("verdict") == "incorrect" and not args.time_incorrect):
                continue
            stats = timer.time(fn)
            entry.update(time=stats, gbps=row["bytes"] / (stats["iqm_us"] * 1e-6) / 1e9)
            entry.setdefault("verdict", "correct")
            if p.name.startswith("sglang") and sglang_loader.EINOPS_STOOD_IN:
                entry["note"] = "einops not installed: ako's stand-in for its two view patterns was used"
        line = f"{c.label:<56} {row['bytes'] / 1e6:8.1f}"
        for p in peers:
            e = row["peers"][p.name]
            if e.get("time"):
                line += f" {e['time']['iqm_us']:19.2f}" + ("*" if e["verdict"] != "correct" else " ")
            else:
                line += f" {e['verdict']:>20}"
        print(line, flush=True)
        results.append(row)
        del tensors, want
        torch.cuda.empty_cache()
        write_json(args, spec, peers, props, results, partial=True)  # a run cut short keeps its cases
    reasons = {}
    for r in results:
        for name, e in r["peers"].items():
            if e["verdict"] not in ("correct",):
                reasons.setdefault((name, e["verdict"], e.get("reason", "")), []).append(r["label"])
    for (name, verdict, reason), labels in reasons.items():
        print(f"# {name}: {verdict} on {len(labels)} case(s): {reason}")
    if any(e.get("time") and e["verdict"] != "correct" for r in results for e in r["peers"].values()):
        print("# *: timed with --time-incorrect although outside the task's tolerance")
    write_json(args, spec, peers, props, results, partial=False)
    if args.json:
        print(f"# wrote {args.json}")


def write_json(args, spec, peers, props, results, partial):
    if not args.json:
        return
    import torch

    from peers import sglang_loader
    doc = {"schema": SCHEMA, "task": spec["name"], "device": props.name, "torch": torch.__version__,
           "versions": _versions(), "sglang": sglang_loader.VERSION, "l2": "hot" if args.hot else "cold",
           "timer": args.timer, "samples": args.samples, "warmup": args.warmup,
           "tolerance": "task" if not args.tolerance else {"atol": args.tolerance[0], "rtol": args.tolerance[1]},
           "complete": not partial,
           "peers": [{"name": p.name, "description": p.description} for p in peers], "cases": results}
    tmp = pathlib.Path(args.json + ".tmp")
    tmp.write_text(json.dumps(_finite(doc), indent=1))
    tmp.replace(args.json)


def _versions():
    out = {}
    for pkg, dist in (("triton", "triton"), ("cutlass", "nvidia-cutlass-dsl"), ("tvm_ffi", "apache-tvm-ffi")):
        try:
            from importlib.metadata import version
            out[dist] = version(dist)
        except Exception:
            out[dist] = None
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("task", help="task name (tasks/TASK/task.json) or a task.json path")
    ap.add_argument("--json", help="write per-case results here (schema ako.peer_bench/1)")
    ap.add_argument("--shapes", nargs="*", help="only these shape names")
    ap.add_argument("--dtypes", nargs="*", help="only these dtypes")
    ap.add_argument("--where", help="only the cases this expression holds for, as `ako run --where` takes it: "
                    "over a case's dims, flags, axes and dtype, e.g. \"!affine && layout == 'bc'\"")
    ap.add_argument("--peers", nargs="*", help="only these peers (e.g. torch sglang_cute)")
    ap.add_argument("--samples", type=int, default=100, help="timed samples per case (>= 50)")
    ap.add_argument("--warmup", type=int, default=10)
    ap.add_argument("--hot", action="store_true", help="keep L2 warm (no flush between samples)")
    ap.add_argument("--timer", choices=["profiler", "events"], default="profiler",
                    help="profiler: CUPTI kernel time via torch.profiler (as ako); events: CUDA events")
    ap.add_argument("--tolerance", nargs=2, type=float, metavar=("ATOL", "RTOL"),
                    help="check every peer's outputs at this tolerance instead of the task's, e.g. 5e-2 5e-2, "
                         "the one SGLang's own tests of these kernels use (recorded in the JSON)")
    ap.add_argument("--time-incorrect", action="store_true",
                    help="time a peer even where its output is outside the task's tolerance (its verdict stays "
                         "'incorrect'); by default such a peer is reported, not timed")
    ap.add_argument("--dry-run", action="store_true", help="list the cases and which peers would run; no torch needed")
    ap.add_argument("--deps", help="a folder of Python packages to import first: the unpacked "
                    "scripts/fetch-sglang-deps.sh archive (nvidia-cutlass-dsl, apache-tvm-ffi)")
    args = ap.parse_args(argv)
    if args.deps:
        add_deps(args.deps)
    if args.samples < 50:
        ap.error("--samples must be at least 50")
    try:
        spec = casemod.load_task(task_path(args.task))
        cases = casemod.expand(spec, args.shapes, args.dtypes)
        if args.where:
            cases = [c for c in cases if casemod.expr.holds(args.where, {**c.env(), "dtype": c.dtype})]
    except casemod.TaskError as e:
        sys.exit(f"peer_timing: {e}")
    except casemod.expr.ExprError as e:
        sys.exit(f"peer_timing: --where: {e}")
    module = family_module(spec)
    peers = module.PEERS
    if args.peers:
        names = [p.name for p in peers]
        for n in args.peers:
            if n not in names:
                sys.exit(f"peer_timing: no peer {n} for {spec['name']} (peers: {', '.join(names)})")
        peers = [p for p in peers if p.name in args.peers]
    if args.dry_run:
        dry_run(spec, module, cases, peers)
        return
    run(spec, module, cases, peers, args)


if __name__ == "__main__":
    main()
