"""python3 -m validate --model M [--steps N] [--graph] [--json F] (run from bench/, or with bench/ on
sys.path; `ako validate` does this). See __init__.py. Exit 0: every verdict passed; 1: a verdict
failed; 2: usage (unknown model); 3: no torch or no CUDA device."""
import argparse
import json
import pathlib
import sys
import time
import traceback

BENCH = pathlib.Path(__file__).resolve().parents[1]
REPO = BENCH.parent
if str(BENCH) not in sys.path:
    sys.path.insert(0, str(BENCH))

from validate import models, verdict  # noqa: E402

SCHEMA = "ako.validate/1"


def log(msg):
    # progress on stdout: `ako validate` shows each line as it comes (tracebacks go to stderr)
    print(f"validate: {msg}", flush=True)


def parse(argv):
    ap = argparse.ArgumentParser(prog="python3 -m validate", description=__doc__)
    ap.add_argument("--model", required=True, help=f"one of {', '.join(models.MODELS)}")
    ap.add_argument("--steps", type=int, default=5, help="timed steps per backend and mode (median; default 5)")
    ap.add_argument("--warmup", type=int, default=2, help="untimed steps first (default 2)")
    ap.add_argument("--blocks", type=int, default=2, help="blocks of each kind per step (0: the model's real count; default 2)")
    ap.add_argument("--graph", action="store_true", help="also time and attribute each backend's step under a CUDA graph")
    ap.add_argument("--backends", default="torch,engine,ako", help="comma-separated subset of torch,engine,ako")
    ap.add_argument("--payload", default=str(REPO / ".sgl-proof"),
                    help="the ported kernels and SGLang's own JIT wrappers (scripts/sglang-gpu-check.sh --prepare)")
    ap.add_argument("--deps", help="unpacked scripts/fetch-sglang-deps.sh archive (CuTe DSL, tvm-ffi), as bench/peer_timing.py")
    ap.add_argument("--micro-samples", type=int, default=20, help="samples per call in the microbench (0: skip it)")
    ap.add_argument("--json", help="write the result here")
    ap.add_argument("--device", default="cuda", choices=("cuda", "cpu"), help="cpu: a smoke run of the torch backend only")
    ap.add_argument("--tiny", action="store_true", help="toy dims (2 heads of 32, 64 + 16 tokens): a smoke run")
    return ap.parse_args(argv)


def add_deps(folder):
    site = pathlib.Path(folder).resolve()
    if not site.is_dir():
        raise SystemExit(f"validate: --deps {folder}: no such folder")
    for p in (site / "nvidia_cutlass_dsl" / "dsl_packages", site):
        if p.is_dir():
            sys.path.insert(0, str(p))


def make_backends(names, args):
    from validate.ops_torch import TorchOps
    out = {"torch": TorchOps()}
    if args.device == "cpu":
        return {"torch": out["torch"]}
    from validate.ops_engine import EngineOps
    engine = EngineOps(args.payload, args.model)  # its JIT sites build SGLang's own wrappers from the payload
    out["engine"] = engine
    if "ako" in names:
        from validate.ops_ako import AkoOps
        out["ako"] = AkoOps(args.payload, engine)
    return {n: out[n] for n in ("torch", "engine", "ako") if n in names}


def run_backend(torch, stack, ops, args, result_for, record):
    """One backend: the listed step (sites, output), then latency and attribution per mode."""
    from validate import measure
    from validate.dispatch import Dispatch
    k = Dispatch(ops)
    k.listing, k.recording = True, record
    out = stack.step(k).detach().clone()
    k.listing = k.recording = False
    row = {"sites": k.swapped()}
    if result_for == "engine":  # which of SGLang's kernels (or torch, and why) ran at each site
        for s in row["sites"]:
            log(f"  engine {s['site']} ({s['family']}, {s['calls']}x): {s['impl']}")
    if args.device == "cpu":
        return row, out, k
    fn = lambda: stack.step(k)  # noqa: E731
    for mode in ("eager", "graph") if args.graph else ("eager",):
        t0 = time.time()
        row[mode] = {"step_ms": measure.latency(fn, args.steps, args.warmup, mode == "graph")}
        try:
            row[mode]["gpu_us"] = measure.attribute(fn, k, args.steps, mode == "graph")
        except RuntimeError as e:  # the step's latency stands; its families are then unmeasured
            log(f"  {result_for} {mode}: no attribution: {e}")
            row[mode]["gpu_us"] = {"total": 0.0, "other": 0.0, "families": {}, "error": str(e)}
        log(f"  {result_for} {mode}: step {row[mode]['step_ms']['median']:.3f} ms, family kernels "
            f"{sum(row[mode]['gpu_us']['families'].values()):.0f} us of {row[mode]['gpu_us']['total']:.0f} us "
            f"({time.time() - t0:.0f} s)")
        torch.cuda.empty_cache()
    return row, out, k


def main(argv=None):
    args = parse(argv)
    try:
        m = models.get(args.model)
    except KeyError as e:
        log(str(e.args[0]))
        return 2
    names = [n for n in args.backends.split(",") if n]
    if set(names) - {"torch", "engine", "ako"} or "torch" not in names:
        log(f"--backends {args.backends}: a subset of torch,engine,ako that includes torch")
        return 2
    if args.deps:
        add_deps(args.deps)
    try:
        import torch
    except ImportError as e:
        log(f"torch is not importable ({e}): ako validate runs on the GPU machine, with torch installed")
        return 3
    if args.device == "cuda" and not torch.cuda.is_available():
        log("no CUDA device visible to torch (ako validate needs the GPU; --device cpu --tiny is a smoke run)")
        return 3
    if args.tiny:
        m = models.tiny(m)
    from validate import measure
    from validate.stack import Stack
    dev = torch.device(args.device)
    t0 = time.time()
    stack = Stack(m, args.blocks, dev)
    log(f"{m.name}: C {m.C}, {m.heads}x{m.head_dim}, blocks {stack.layout} of {m.blocks}, tokens {stack.tokens()} "
        f"(built in {time.time() - t0:.0f} s)")
    backends = make_backends(names, args)
    result = {"schema": SCHEMA, "model": m.name, "note": m.note, "dtype": "bf16", "tiny": args.tiny,
              "device": torch.cuda.get_device_name() if args.device == "cuda" else "cpu", "torch": torch.__version__,
              "dims": {"C": m.C, "heads": m.heads, "head_dim": m.head_dim, "img": m.img, "txt": m.txt, "ffn": m.ffn},
              "blocks_run": [list(b) for b in stack.layout], "blocks_real": [list(b) for b in m.blocks],
              "blocks_note": "each block kind capped at --blocks per step" if args.blocks else "every block of the model",
              "tokens": stack.tokens(), "steps": args.steps, "warmup": args.warmup, "graph": args.graph,
              "tolerance": {"rel_l2": verdict.REL_L2_TOL}, "bar": verdict.BAR, "backends": {}}
    ako = backends.get("ako")
    if ako is not None:
        result["ported"] = sorted(ako.entries)
        result["ako_unavailable"] = ako.unavailable
        result["wrappers"] = ako.wrappers
        log(f"ako: ported {', '.join(sorted(ako.entries)) or 'nothing'}" + (f" ({ako.unavailable})" if ako.unavailable else ""))
    outputs, records = {}, None
    with torch.inference_mode():
        for name, ops in backends.items():
            log(f"backend {name}")
            try:
                row, outputs[name], k = run_backend(torch, stack, ops, args, name, record=(name == "ako"))
            except Exception as e:  # noqa: BLE001  a backend that cannot run a step: named, the others go on
                traceback.print_exc()
                log(f"  {name} failed: {type(e).__name__}: {e}")
                result["backends"][name] = {"sites": [], "error": f"{type(e).__name__}: {e}"}
                if name == "torch":
                    raise
                continue
            if name == "ako":
                records = k.records
            o = outputs[name].float()
            row["output_stats"] = {"shape": list(o.shape), "finite": bool(torch.isfinite(o).all()), "rms": float(o.pow(2).mean().sqrt())}
            if name != "torch":
                row["output"] = measure.compare(outputs[name], outputs["torch"])
            result["backends"][name] = row
        engine_ran = "error" not in result["backends"].get("engine", {"error": "not run"})
        if records and engine_ran and args.micro_samples:
            log(f"microbench: {len(records)} distinct family calls, engine and ako")
            try:
                result["micro"] = measure.microbench(records, {"engine": backends["engine"], "ako": ako},
                                                     args.micro_samples, 3)
            except Exception as e:  # noqa: BLE001  the families' verdicts then say the microbench is unmeasured
                traceback.print_exc()
                log(f"  microbench failed: {type(e).__name__}: {e}")
                result["micro_error"] = f"{type(e).__name__}: {e}"
    result["families"] = verdict.families(result) if "ako" in result["backends"] else {}
    result["step_speedup"] = verdict.step_speedups(result)
    result["verdict"], result["failures"] = verdict.overall(result)
    if args.device == "cpu":
        result["verdict"], result["failures"] = "smoke", []  # the torch backend alone, nothing timed: no verdict
    if args.json:
        pathlib.Path(args.json).write_text(json.dumps(result, indent=1, default=str))
        log(f"wrote {args.json}")
    for f in result["failures"]:
        log("  " + f)
    log(f"verdict: {result['verdict']}")
    return {"pass": 0, "smoke": 0}.get(result["verdict"], 1)


if __name__ == "__main__":
    sys.exit(main())
