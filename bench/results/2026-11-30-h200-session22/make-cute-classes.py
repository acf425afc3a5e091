#!/usr/bin/env python3
"""Session 22: norm_scale_shift text-512-cfg hand classes from call 1's launch-shape sweep.
For each case where a variant (B-E) beat the committed config (A) by more than 2% in both of its
runs' mean (scripts/abba_cases.py's B/A), the case goes to a class holding that variant's params
as the case ran them (from the variant's JSON); cases with the same params share a class.
  make-cute-classes.py STATS_DIR CONFIG.json   (the classes are put first in CONFIG.json)"""
import json, re, sys
d, cfg_path = sys.argv[1], sys.argv[2]
ratio, params = {}, {}
for v in "BCDE":
    for line in open(f"{d}/text-{v}.txt"):
        m = re.match(r"(text-512-cfg \S+ .*?)\s+A\s+[\d.]+ us\s+B\s+[\d.]+ us\s+B/A ([\d.]+)", line)
        if m: ratio.setdefault(m.group(1), {})[v] = float(m.group(2))
    for c in json.load(open(f"{d}/t-{v}1.json"))["cases"]:
        if c.get("kind") != "compare": continue
        axes = {**c["axes"], **c["flags"]}
        key = f'{c["shape"]} {c["dtype"]} ' + " ".join(f"{k}={v}" for k, v in sorted(axes.items()))
        params.setdefault(key, {})[v] = (c["params"], c["dtype"], axes)
groups = {}
for key, r in ratio.items():
    best = min(r, key=r.get)
    if r[best] >= 0.98: continue
    p, dtype, axes = params[key][best]
    cond = " && ".join([f"dtype == '{dtype}'", "affine" if axes["affine"] in (True, "True", 1) else "!affine"] +
                       [f"{k} == '{axes[k]}'" for k in ("layout", "mod_dtype", "norm")])
    groups.setdefault(json.dumps(p, sort_keys=True), []).append((key, r[best], cond))
cfg = json.load(open(cfg_path))
new = []
for i, (p, cases) in enumerate(sorted(groups.items())):
    when = "B == 2 && C == 3072 && F == 1 && L == 512 && (" + " || ".join(f"({c})" for _, _, c in sorted(cases)) + ")"
    new.append({"name": f"shape-text-512-cfg-cute-shape-{i + 1}", "params": json.loads(p),
                "tuned_on": [{"dims": {"B": 2, "C": 3072, "F": 1, "L": 512}, "name": "text-512-cfg"}], "when": when})
    for k, r, _ in sorted(cases): print(f"class {i + 1}: {k}  {r:.3f}")
    print(f"  params {p}")
cfg["classes"] = new + cfg["classes"]
cfg["source"] = cfg["source"] + \
    ("; session 22 (2026-11-30): the shape-text-512-cfg-cute-shape-N classes from an A B C D E E D C B A "
     "sweep of SGLang CuTe DSL's launch shape (192 threads x 2 chunks of 8, or 384 x 2 tokens) by --param on "
     "text-512-cfg (bench/results/2026-11-30-h200-session22/, make-cute-classes.py): each takes the cases where a "
     "shape was more than 2% faster than the class before, with the params they ran.")
open(cfg_path, "w").write(json.dumps(cfg, indent=2) + "\n")
