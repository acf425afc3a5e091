#!/usr/bin/env python3
"""Session 33: SURE 1 by case, from a mirrored `--param SURE=1` sweep of one shape (calls 2-3: A1 S1a S1b A2).
Per case, S / A is the mean of the two SURE runs' IQMs over the mean of A1 and A2 (scripts/abba_cases.py's
keys). A case under THRESHOLD gets SURE 1 on top of the params of the class that served it (A1's
config_class): one new class per served class, named <that class>-sure, `when` the shape's dims and the
cases' dtype / flags / axes, put first in CONFIG.json.
  make-sure-classes.py CONFIG.json THRESHOLD 'DIMS_WHEN' RUN_DIR
    e.g. solution/residual_gate_norm_scale_shift/configs/device_name=NVIDIA_H200.json 0.985
         'B == 2 && C == 3072 && F == 1 && L == 512' call3/sweeps/text-512-cfg/runs"""
import json, pathlib, sys
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3] / "scripts"))
from abba_cases import iqms  # noqa: E402

cfg_path, thr, dims_when, run_dir = sys.argv[1:]
thr, d = float(thr), pathlib.Path(run_dir)
a1, a2, s1, s2 = (iqms(d / f"{n}.json") for n in ("A1", "A2", "S1a", "S1b"))
served = {}
for c in json.load(open(d / "A1.json"))["cases"]:
    if c.get("kind") == "compare":
        axes = {**c.get("axes", {}), **c.get("flags", {})}
        served[f'{c["shape"]} {c["dtype"]} ' + " ".join(f"{k}={v}" for k, v in sorted(axes.items()))] = c["config_class"]
cfg = json.load(open(cfg_path))
params = {c["name"]: c["params"] for c in cfg["classes"]}
groups = {}
for k in sorted(set(a1) & set(a2) & set(s1) & set(s2)):
    r = (s1[k] + s2[k]) / (a1[k] + a2[k])
    if r >= thr:
        continue
    shape, dtype, *axes = k.split()
    ax = dict(a.split("=") for a in axes)
    cond = " && ".join([f"dtype == '{dtype}'", "affine" if ax.pop("affine") == "True" else "!affine"] +
                       [f"{n} == '{v}'" for n, v in sorted(ax.items())])
    groups.setdefault(served[k], []).append((k, r, cond))
new = []
for cls, cases in sorted(groups.items()):
    assert params[cls].get("SURE", 0) == 0, cls
    new.append({"name": f"{cls}-sure", "params": {**params[cls], "SURE": 1},
                "when": f"{dims_when} && (" + " || ".join(f"({c})" for _, _, c in cases) + ")"})
    for k, r, _ in cases:
        print(f"{cls}: {k}  {r:.3f}")
cfg["classes"] = new + cfg["classes"]
cfg["source"] += (f" Session 33 (2026-12-01): the *-sure classes from a mirrored sweep of --param SURE=1 "
                  f"({run_dir.split('sweeps/')[-1].split('/')[0]}; bench/results/2026-12-01-h200-session33/, "
                  f"make-sure-classes.py): each takes the cases of the class it names where SURE 1 was more than "
                  f"{100 * (1 - thr):.1f}% faster than the committed config, with that class's params and SURE 1.")
open(cfg_path, "w").write(json.dumps(cfg, indent=2) + "\n")
print(f"{sum(map(len, groups.values()))} cases in {len(new)} classes")
