#!/usr/bin/env python3
"""Session 28: text-512-cfg hand classes from a launch-parameter sweep (calls 1 and 3).
Each run folder holds A1.json and A2.json (the committed config) and <SET>a.json / <SET>b.json for the
sets it ran. Per case, B / A of a set is the mean of its two runs' IQMs over the mean of A1 and A2 of
the same folder (scripts/abba_cases.py's keys); a case whose best set is under THRESHOLD goes to a
class holding that set's params (from SETS_FILE); cases of one set share a class. The classes are put
first in CONFIG.json, named <PREFIX>-<set>.
  make-sweep-classes.py SETS_FILE CONFIG.json THRESHOLD PREFIX RUN_DIR...
    call 1: residual-sweep-sets.txt solution/residual_gate_norm_scale_shift/configs/device_name=NVIDIA_H200.json
            0.985 shape-text-512-cfg-sweep call1/g0 call1/g1 (the folders unpacked from g0.tar.xz, g1.tar.xz)
    call 3: nss-sweep-sets.txt solution/norm_scale_shift/configs/device_name=NVIDIA_H200.json
            0.985 shape-text-512-cfg-sweep call3/nss (unpacked from nss.tar.xz)"""
import json, pathlib, sys
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3] / "scripts"))
from abba_cases import iqms  # noqa: E402

sets_path, cfg_path, thr, prefix, *dirs = sys.argv[1:]
thr = float(thr)
sets = {}
for line in open(sets_path):
    tag, *params = line.split()
    sets[tag] = {k: int(v) for k, v in (p.split("=") for p in params)}
ratio = {}
for d in map(pathlib.Path, dirs):
    a1, a2 = iqms(d / "A1.json"), iqms(d / "A2.json")
    for s in sets:
        if not (d / f"{s}a.json").is_file() or not (d / f"{s}b.json").is_file():
            continue
        b1, b2 = iqms(d / f"{s}a.json"), iqms(d / f"{s}b.json")
        for k in a1:
            if k in b1 and k in b2 and k in a2:
                ratio.setdefault(k, {})[s] = (b1[k] + b2[k]) / (a1[k] + a2[k])
groups = {}
for key, r in sorted(ratio.items()):
    best = min(r, key=r.get)
    if r[best] >= thr:
        continue
    shape, dtype, *axes = key.split()
    assert shape == "text-512-cfg", key
    ax = dict(a.split("=") for a in axes)
    cond = " && ".join([f"dtype == '{dtype}'", "affine" if ax.pop("affine") == "True" else "!affine"] +
                       [f"{k} == '{v}'" for k, v in sorted(ax.items())])
    groups.setdefault(best, []).append((key, r[best], cond))
cfg = json.load(open(cfg_path))
new = []
for s, cases in sorted(groups.items(), key=lambda x: list(sets).index(x[0])):
    when = "B == 2 && C == 3072 && F == 1 && L == 512 && (" + " || ".join(f"({c})" for _, _, c in cases) + ")"
    new.append({"name": f"{prefix}-{s.lower()}", "params": sets[s],
                "tuned_on": [{"dims": {"B": 2, "C": 3072, "F": 1, "L": 512}, "name": "text-512-cfg"}], "when": when})
    for k, r, _ in cases:
        print(f"{s}: {k}  {r:.3f}")
cfg["classes"] = new + cfg["classes"]
cfg["source"] += (f"; session 28 (2026-12-01): the {prefix}-* classes from a mirrored sweep of {len(sets)} launch "
                  f"parameter sets by --param on text-512 and text-512-cfg ({pathlib.Path(sets_path).name}; "
                  "bench/results/2026-12-01-h200-session28/, make-sweep-classes.py): each takes the cases where a set "
                  f"was more than {100 * (1 - thr):.1f}% faster than the committed config, with the set's params.")
open(cfg_path, "w").write(json.dumps(cfg, indent=2) + "\n")
print(f"{sum(map(len, groups.values()))} cases in {len(new)} classes")
