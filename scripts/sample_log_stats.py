#!/usr/bin/env python3
"""What the sample logs of `AKO_SAMPLE_LOG=DIR ako run ...` say about the timing method.

Each DIR/case-N.json holds every sample of every timed kernel of a case with the input set and
output copy it used and its place in the launch order (exec/worker/case_timing.cpp). Over one or
more such folders this prints, as geometric means over the case runs (with min and max):
  copy1/copy0    a kernel's IQM on output copy 1 (the solution's) over copy 0 (the reference's):
                 the placement effect that timing both copies with every role averages out;
  first/second   its IQM when it ran first in a round over when it ran second: an order bias;
  sol/ref        the solution's IQM over the reference's (the reference against itself when
                 the task was made so, as in the order-bias GPU test).
Every centre is the IQM, ako's (bench/peers/timing.py's iqm). With --case SUBSTRING, the
per-slot IQMs of the matching cases as well.
  scripts/sample_log_stats.py DIR [DIR ...] [--case "ltx-video bf16 noweight"]
"""
import argparse
import collections
import glob
import json
import math
import os
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "bench"))
from peers.timing import iqm  # noqa: E402


def geomean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dirs", nargs="+")
    ap.add_argument("--case", default="")
    a = ap.parse_args()
    ratios = collections.defaultdict(list)
    for d in a.dirs:
        for f in sorted(glob.glob(os.path.join(d, "case-*.json"))):
            j = json.load(open(f))
            owner = {}
            for ki, k in enumerate(j["kernels"]):
                for s in k["samples"]:
                    owner[s[3]] = ki
            centres = []
            for ki, k in enumerate(j["kernels"]):
                sm = k["samples"]
                centres.append(iqm([s[0] for s in sm]))
                by_copy = [[s[0] for s in sm if s[2] == c] for c in (0, 1)]
                # Second in its round: the launch just before it was another kernel's sample.
                second = [s[0] for s in sm if owner.get(s[3] - 1, ki) != ki]
                first = [s[0] for s in sm if owner.get(s[3] + 1, ki) != ki and owner.get(s[3] - 1, ki) == ki]
                if all(by_copy):
                    ratios["copy1/copy0 " + k["role"]].append(iqm(by_copy[1]) / iqm(by_copy[0]))
                if first and second:
                    ratios["first/second " + k["role"]].append(iqm(first) / iqm(second))
                if a.case and a.case in j["label"]:
                    slots = collections.defaultdict(list)
                    for s in sm:
                        slots[(s[1], s[2])].append(s[0])
                    print(f"{d} {j['label']} {k['role']}: {len(sm)} samples, IQM {centres[-1]:.3f}; per (set, copy):",
                          {sl: round(iqm(v), 3) for sl, v in sorted(slots.items())})
            if len(centres) >= 2:
                ratios["sol/ref"].append(centres[1] / centres[0])
    for name, xs in ratios.items():
        print(f"{name:28s} {len(xs):4d} case runs, geomean {geomean(xs):.4f}, min {min(xs):.4f}, max {max(xs):.4f}")


if __name__ == "__main__":
    main()
