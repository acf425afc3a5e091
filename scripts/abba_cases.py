#!/usr/bin/env python3
"""Per case, B over A from `ako run --json` results run A1 B1 B2 A2: the mean of the B IQMs over the
mean of the A IQMs, with the A runs' own spread (A2 / A1) beside it; then two summary lines, B / A
and the noise A2 / A1 over every case (count, geomean, cases faster / slower by 1%, min and max).
  scripts/abba_cases.py A1.json B1.json B2.json A2.json [--label TEXT] [--noise-label TEXT]"""
import argparse
import json
import math
import sys


def iqms(path):
    out = {}
    for c in json.load(open(path))["cases"]:
        if c.get("kind") == "compare" and c.get("verdict") == "correct" and c.get("solution_time"):
            axes = {**c.get("axes", {}), **c.get("flags", {})}
            key = f'{c["shape"]} {c["dtype"]} ' + " ".join(f"{k}={v}" for k, v in sorted(axes.items()))
            out[key] = c["solution_time"]["iqm_us"]
    return out


def summary(name, ratios):
    if not ratios:
        return f"{name}: no case in common"
    g = math.exp(sum(map(math.log, ratios.values())) / len(ratios))
    lo, hi = min(ratios, key=ratios.get), max(ratios, key=ratios.get)
    return (f"{name}: {len(ratios)} cases, geomean {g:.4f}, faster >1%: {sum(r < 0.99 for r in ratios.values())}, "
            f"slower >1%: {sum(r > 1.01 for r in ratios.values())}, min {ratios[lo]:.4f} ({lo}), max {ratios[hi]:.4f} ({hi})")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("runs", nargs=4, metavar="RUN.json", help="A1 B1 B2 A2")
    p.add_argument("--label", default="B / A", help="name of the B / A summary line (default: %(default)s)")
    p.add_argument("--noise-label", default="noise A2 / A1", help="name of the noise line (default: %(default)s)")
    args = p.parse_args()
    runs = []
    for path in args.runs:
        try:
            runs.append(iqms(path))
        except (OSError, ValueError, KeyError) as e:
            sys.exit(f"abba_cases: run {path} is missing or unreadable: {e!r}")
    a1, b1, b2, a2 = runs
    keys = sorted(set(a1) & set(b1) & set(b2) & set(a2))
    ratios = {}
    for k in keys:
        a, b = (a1[k] + a2[k]) / 2, (b1[k] + b2[k]) / 2
        ratios[k] = b / a
        print(f"{k:90s} A {a:8.2f} us  B {b:8.2f} us  B/A {b / a:.3f}  (A2/A1 {a2[k] / a1[k]:.3f})")
    print(summary(args.label, ratios))
    print(summary(args.noise_label, {k: a2[k] / a1[k] for k in keys}))


if __name__ == "__main__":
    main()
