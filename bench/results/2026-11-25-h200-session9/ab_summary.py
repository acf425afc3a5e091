#!/usr/bin/env python3
"""A/B of solution variants from `ako run --json` files named <task>-<variant>-<i>.json: per case
the mean of each variant's solution IQMs over its runs, then variant / base per case, summarised
per shape (geomean, min, max) and over the task. Usage: ab_summary.py DIR BASE"""
import collections, glob, json, math, os, re, sys

d, base = sys.argv[1], sys.argv[2]
runs = collections.defaultdict(lambda: collections.defaultdict(list))  # (task, variant) -> case -> [iqm]
pct = {}
for f in sorted(glob.glob(os.path.join(d, "*.json"))):
    m = re.match(r"(.+)-([a-z0-9]+)-(\d+)\.json$", os.path.basename(f))
    if not m: continue
    task, var = m.group(1), m.group(2)
    try: j = json.load(open(f))
    except Exception as e: print(f"{f}: unreadable ({e})"); continue
    for c in j["cases"]:
        if c.get("kind") != "compare" or c.get("verdict") != "correct": continue
        key = (c["shape"], c["dtype"], json.dumps(c.get("axes", {}), sort_keys=True), json.dumps(c.get("flags", {}), sort_keys=True))
        runs[(task, var)][key].append(c["solution_time"]["iqm_us"])
        if var == base: pct[(task, key)] = c.get("pct_copy_bw", 0)
for task in sorted({t for t, _ in runs}):
    b = runs.get((task, base), {})
    for (t, var), cases in sorted(runs.items()):
        if t != task or var == base: continue
        per_shape = collections.defaultdict(list)
        for key, xs in cases.items():
            if key not in b: continue
            per_shape[key[0]].append(sum(xs) / len(xs) / (sum(b[key]) / len(b[key])))
        allr = [r for v in per_shape.values() for r in v]
        if not allr: continue
        g = math.exp(sum(map(math.log, allr)) / len(allr))
        print(f"== {task}: {var} / {base} time, {len(allr)} cases: geomean {g:.4f}, min {min(allr):.4f}, max {max(allr):.4f}, "
              f"faster >1%: {sum(r < 0.99 for r in allr)}, slower >1%: {sum(r > 1.01 for r in allr)}")
        for shape, rs in sorted(per_shape.items()):
            gs = math.exp(sum(map(math.log, rs)) / len(rs))
            print(f"   {shape:16s} n={len(rs):3d} geomean {gs:.4f} min {min(rs):.4f} max {max(rs):.4f}")
    # base's own run-to-run: first vs last run, for scale
    if b:
        rr = [xs[-1] / xs[0] for xs in b.values() if len(xs) > 1]
        if rr: print(f"   ({base} run 1 vs last: geomean {math.exp(sum(map(math.log, rr)) / len(rr)):.4f}, range {min(rr):.4f}-{max(rr):.4f})")
