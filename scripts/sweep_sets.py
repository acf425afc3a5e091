#!/usr/bin/env python3
"""Launch-parameter sets against the committed config, per case, from scripts/gpu-sweep-sets.sh's runs.

The `ako run --json` results are written in the order A1 X1a .. Xna Xnb .. X1b A2 (each set's two runs
mirrored around the middle, the committed config first and last): for each set X, the mean of its two
IQMs over the mean of A1 and A2 per case, then one line per set with abba_cases.py's summary (count,
geomean, cases faster / slower by 1%, min, max) and every case that moved by more than 1%, with A's time.
A set whose runs are missing or had no correct case (refused by the static checks, say) is named so.
  scripts/sweep_sets.py DIR SHAPE SETS_FILE
SETS_FILE: one set a line, `SHAPE TAG NAME=VALUE ...` (lines of other shapes and `#` comments skipped);
DIR holds A1.json, A2.json, <TAG>a.json and <TAG>b.json for SHAPE's sets."""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from abba_cases import iqms, summary  # noqa: E402


def read_sets(path, shape):
    """[(tag, [NAME=VALUE, ...])] of SHAPE's lines, in file order."""
    sets = []
    for n, line in enumerate(open(path), 1):
        words = line.split()
        if not words or words[0].startswith("#") or words[0] != shape:
            continue
        if len(words) < 3 or any("=" not in w for w in words[2:]):
            sys.exit(f"sweep_sets: {path}:{n}: want `SHAPE TAG NAME=VALUE ...`, got {line.strip()!r}")
        sets.append((words[1], words[2:]))
    return sets


def load(d, name):
    try:
        return iqms(os.path.join(d, f"{name}.json"))
    except (OSError, ValueError, KeyError) as e:
        return e


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("dir")
    p.add_argument("shape")
    p.add_argument("sets_file")
    args = p.parse_args()
    sets = read_sets(args.sets_file, args.shape)
    if not sets:
        sys.exit(f"sweep_sets: {args.sets_file} has no set for shape {args.shape}")
    a1, a2 = load(args.dir, "A1"), load(args.dir, "A2")
    for name, run in (("A1", a1), ("A2", a2)):
        if isinstance(run, Exception):
            sys.exit(f"sweep_sets: the committed config's run {name} is missing or unreadable: {run}")
    keys = sorted(set(a1) & set(a2))
    if not keys:
        sys.exit("sweep_sets: A1 and A2 have no correct case in common")
    print(f"== {args.shape}: " + summary("noise A2 / A1", {k: a2[k] / a1[k] for k in keys}))
    for tag, params in sets:
        xa, xb = load(args.dir, f"{tag}a"), load(args.dir, f"{tag}b")
        if isinstance(xa, Exception) or isinstance(xb, Exception):
            why = xa if isinstance(xa, Exception) else xb
            print(f"{tag}: missing ({why}) [{' '.join(params)}]")
            continue
        ratios = {k: (xa[k] + xb[k]) / (a1[k] + a2[k]) for k in keys if k in xa and k in xb}
        lost = len(keys) - len(ratios)
        moved = [f"{k} {(a1[k] + a2[k]) / 2:.2f} us {r:.3f}" for k, r in sorted(ratios.items(), key=lambda kv: kv[1])
                 if abs(r - 1) > 0.01]
        line = summary(f"{tag} [{' '.join(params)}] / A", ratios)
        if lost:
            line += f"; {lost} case(s) not correct or not timed under the set"
        print(line + (" | " + "; ".join(moved) if moved else ""))


if __name__ == "__main__":
    main()
