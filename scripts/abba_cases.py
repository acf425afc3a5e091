#!/usr/bin/env python3
"""Per case, B over A from `ako run --json` results run A1 B1 B2 A2: the mean of the B IQMs over the
mean of the A IQMs, with the A runs' own spread (A2 / A1) beside it.
  scripts/abba_cases.py A1.json B1.json B2.json A2.json"""
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


a1, b1, b2, a2 = (iqms(p) for p in sys.argv[1:5])
keys = sorted(set(a1) & set(b1) & set(b2) & set(a2))
ratios = {}
for k in keys:
    a, b = (a1[k] + a2[k]) / 2, (b1[k] + b2[k]) / 2
    ratios[k] = b / a
    print(f"{k:90s} A {a:8.2f} us  B {b:8.2f} us  B/A {b / a:.3f}  (A2/A1 {a2[k] / a1[k]:.3f})")
if ratios:
    g = math.exp(sum(map(math.log, ratios.values())) / len(ratios))
    print(f"{len(ratios)} cases: geomean B/A {g:.4f}, B faster >1%: {sum(r < 0.99 for r in ratios.values())}, "
          f"slower >1%: {sum(r > 1.01 for r in ratios.values())}, min {min(ratios.values()):.3f}, max {max(ratios.values()):.3f}")
