#!/usr/bin/env python3
"""Session 28: the residual fusion's text-512-cfg hand classes from call 1's launch-parameter sweep.
Per case, B / A of each set S1..S14 (residual-sweep-sets.txt) is the mean of its two runs' IQMs over
the mean of the committed config's two (A1, A2 on the same GPU); a case whose best set is under
THRESHOLD goes to a class holding that set's params; cases of one set share a class. The classes
are put first in CONFIG.json.
  make-sweep-classes.py CALL1_DIR CONFIG.json [THRESHOLD=0.985]   (CALL1_DIR: g0/ and g1/ unpacked)"""
import json, math, pathlib, sys
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3] / "scripts"))
from abba_cases import iqms  # noqa: E402

d, cfg_path = pathlib.Path(sys.argv[1]), sys.argv[2]
thr = float(sys.argv[3]) if len(sys.argv) > 3 else 0.985
sets = {}
for line in open(pathlib.Path(__file__).with_name("residual-sweep-sets.txt")):
    tag, *params = line.split()
    sets[tag] = {k: int(v) for k, v in (p.split("=") for p in params)}
ratio = {}
for g, tags in (("g0", range(1, 8)), ("g1", range(8, 15))):
    a1, a2 = iqms(d / g / "A1.json"), iqms(d / g / "A2.json")
    for s in tags:
        b1, b2 = iqms(d / g / f"S{s}a.json"), iqms(d / g / f"S{s}b.json")
        for k in a1:
            ratio.setdefault(k, {})[f"S{s}"] = (b1[k] + b2[k]) / (a1[k] + a2[k])
groups = {}
for key, r in sorted(ratio.items()):
    best = min(r, key=r.get)
    if r[best] >= thr:
        continue
    shape, dtype, *axes = key.split()
    assert shape == "text-512-cfg", key
    ax = dict(a.split("=") for a in axes)
    cond = " && ".join([f"dtype == '{dtype}'", "affine" if ax["affine"] == "True" else "!affine"] +
                       [f"{k} == '{ax[k]}'" for k in ("gate", "layout", "mod_dtype", "norm")])
    groups.setdefault(best, []).append((key, r[best], cond))
cfg = json.load(open(cfg_path))
new = []
for s, cases in sorted(groups.items(), key=lambda x: int(x[0][1:])):
    when = "B == 2 && C == 3072 && F == 1 && L == 512 && (" + " || ".join(f"({c})" for _, _, c in cases) + ")"
    new.append({"name": f"shape-text-512-cfg-sweep-{s.lower()}", "params": sets[s],
                "tuned_on": [{"dims": {"B": 2, "C": 3072, "F": 1, "L": 512}, "name": "text-512-cfg"}], "when": when})
    for k, r, _ in cases:
        print(f"{s}: {k}  {r:.3f}")
cfg["classes"] = new + cfg["classes"]
cfg["source"] += ("; session 28 (2026-12-01): the shape-text-512-cfg-sweep-sN classes from an A S1..S7 S7..S1 A / "
                  "A S8..S14 S14..S8 A sweep of 14 launch parameter sets by --param on text-512 and text-512-cfg "
                  "(bench/results/2026-12-01-h200-session28/, make-sweep-classes.py): each takes the cases where a set "
                  f"was more than {100 * (1 - thr):.1f}% faster than the committed config, with the set's params.")
open(cfg_path, "w").write(json.dumps(cfg, indent=2) + "\n")
print(f"{sum(map(len, groups.values()))} cases in {len(new)} classes")
