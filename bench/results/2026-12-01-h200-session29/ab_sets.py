#!/usr/bin/env python3
"""Per case, each set X over the committed config A from `ako run --json` results run in the
order A1 X1a .. Xna Xnb .. X1b A2: (Xa + Xb) / (A1 + A2) of the solution IQMs. Prints one line per
set: geomean, and each case's ratio where it moved by more than 1%, with A's time.
  ab_sets.py DIR TASK SHAPE SETS_FILE   (files DIR/TASK-SHAPE-<tag>.json; SETS_FILE lines: shape tag params)"""
import json, math, sys

def iqms(path):
    out = {}
    for c in json.load(open(path))["cases"]:
        if c.get("kind") != "compare": continue
        axes = " ".join(f"{k}={v}" for k, v in sorted((c.get("axes") or {}).items()))
        flags = " ".join(k if v else "no" + k for k, v in sorted((c.get("flags") or {}).items()))
        key = f"{c['dtype']} {flags} {axes}".strip()
        t = (c.get("solution_time") or {}).get("iqm_us")
        out[key] = t if c.get("verdict") == "correct" else None
    return out

d, task, shape, sets_file = sys.argv[1:5]
tags = [l.split()[1] for l in open(sets_file) if l.split() and l.split()[0] == shape]
try:
    a1, a2 = iqms(f"{d}/{task}-{shape}-A1.json"), iqms(f"{d}/{task}-{shape}-A2.json")
except Exception as e:
    sys.exit(f"{shape}: no A runs ({e})")
noise = [a2[k] / a1[k] for k in a1 if a1[k] and a2.get(k)]
print(f"== {task} {shape}: {len(a1)} cases, noise A2/A1 geomean {math.exp(sum(map(math.log, noise)) / len(noise)):.4f} "
      f"min {min(noise):.3f} max {max(noise):.3f}")
for tag in tags:
    try:
        xa, xb = iqms(f"{d}/{task}-{shape}-{tag}a.json"), iqms(f"{d}/{task}-{shape}-{tag}b.json")
    except Exception as e:
        print(f"{tag}: missing ({e})"); continue
    r = {k: (xa[k] + xb[k]) / (a1[k] + a2[k]) for k in a1 if a1[k] and a2.get(k) and xa.get(k) and xb.get(k)}
    bad = [k for k in a1 if k not in r]
    g = math.exp(sum(map(math.log, r.values())) / len(r)) if r else float("nan")
    moved = "; ".join(f"{k} {(a1[k] + a2[k]) / 2:.2f} {v:.3f}" for k, v in sorted(r.items(), key=lambda kv: kv[1]) if abs(v - 1) > 0.01)
    print(f"{tag}: geomean {g:.4f}, {sum(v < 0.99 for v in r.values())} faster >1%, {sum(v > 1.01 for v in r.values())} slower"
          + (f", {len(bad)} not correct/timed" if bad else "") + (f" | {moved}" if moved else ""))
