#!/usr/bin/env python3
"""Time torch.nn.functional.rms_norm on the rmsnorm task's shapes, as ako times its kernels
(CUPTI kernel durations via torch.profiler, cold L2, IQM of N): bench/peer_timing.py for
the rmsnorm task with its one Python-side peer, torch. Kept for the scripts that call it
(scripts/gpu-check.sh); its JSON is peer_timing's (schema ako.peer_bench/1), which
scripts/compare_torch.py joins with `ako run --json`.

    python3 bench/torch_rmsnorm.py [--task tasks/rmsnorm/task.json] [--json out.json]
                                   [--samples N] [--warmup N] [--hot] [--shapes ...] [--timer profiler|events]
"""
import argparse
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import peer_timing  # noqa: E402


def main():
    root = pathlib.Path(__file__).resolve().parent.parent
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--task", default=str(root / "tasks/rmsnorm/task.json"))
    ap.add_argument("--json", help="write per-case results here")
    ap.add_argument("--samples", type=int, default=100, help="timed samples per case (>= 50)")
    ap.add_argument("--warmup", type=int, default=10)
    ap.add_argument("--hot", action="store_true", help="keep L2 warm (no flush between samples)")
    ap.add_argument("--shapes", nargs="*", help="only these shape names")
    ap.add_argument("--timer", choices=["profiler", "events"], default="profiler")
    args = ap.parse_args()
    argv = [args.task, "--peers", "torch", "--samples", str(args.samples), "--warmup", str(args.warmup),
            "--timer", args.timer]
    if args.json:
        argv += ["--json", args.json]
    if args.hot:
        argv.append("--hot")
    if args.shapes:
        argv += ["--shapes", *args.shapes]
    peer_timing.main(argv)


if __name__ == "__main__":
    main()
