#!/usr/bin/env python3
"""Session 38: issue 14's 512-token misses against the floor norm_floor.py measured.

For every text-512 / text-512-cfg case of the engine-timing documents (SGLang's process) that is
behind the engine or under 1.1x where the engine is under 90% of copy, the floor of its stream
structure in the doc's own unit: norm_floor.json's floor (the fastest of the four launch shapes,
mean of the rounds) over its memcpy of the same bytes, times the doc's copy of the case's bytes.
1.1x over the engine needs the engine's time / 1.1; under the floor means even the floor kernel
(less work than any kernel of the family: norm_floor.cu) is slower than that; where ako's own kernel
already runs faster than the floor kernel, the floor kernel bounds nothing ("no bound"). With ako run JSONs
(--runs), ako's time over its size copy in that call beside the floor's over its memcpy.

    python3 norm_floor_table.py norm_floor.json ENGINE_DOC... [--runs AKO_RUN_JSON...] [--md]"""
import argparse
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../../scripts"))
import engine_table as et  # noqa: E402

FAMILY = {"scale_shift": "ew", "norm_scale_shift": "norm", "residual_gate_norm_scale_shift": "res"}


def group(task, case):
    """norm_floor's group name for a case, or None (no floor kernel for its structure: fp32 x outside layernorm)."""
    shape, dt, ax = case["shape"], case["dtype"], case.get("axes", {})
    if task == "layernorm":
        return f"{shape} norm-fp32x" if dt == "fp32" else f"{shape} norm"
    if dt == "fp32" or task not in FAMILY:
        return None
    fam = FAMILY[task]
    if ax.get("layout") in ("lc", "blc"):
        m = "mod32" if ax.get("mod_dtype") == "fp32" else "mod"
        lay = "lc" if ax["layout"] == "lc" or shape == "text-512" else "blc"
        return f"{shape} {fam}-{m} {lay}"
    return f"{shape} {fam}"


def floor_ratio(g):
    """(floor / memcpy, the floor's launch shape) of one norm_floor group."""
    mean = {n: sum(v) / len(v) for n, v in g["iqm_us"].items()}
    best = min((u, n) for n, u in mean.items() if n != "memcpy")
    return best[0] / mean["memcpy"], best[1]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("floor")
    ap.add_argument("docs", nargs="+")
    ap.add_argument("--runs", nargs="*", default=[])
    ap.add_argument("--md", action="store_true")
    a = ap.parse_args()
    floors = json.load(open(a.floor))["groups"]
    ako_run = {}   # (task, label) -> ako / size copy in that call
    for f in a.runs:
        d = et.layout(json.load(open(f)))
        for c in d["cases"]:
            us, cu = et.us_of(c, et.AKO), et.copy_us(c)
            if us and cu:
                ako_run[(d["task"], f"{c['shape']} {c['dtype']} {et.axes_text(c)}")] = us / cu
    rows, tally = [], {}
    for f in a.docs:
        doc = et.layout(json.load(open(f)))
        task = doc["task"]
        engines = [p["name"] for p in doc["peers"] if p["name"] not in (et.AKO, et.TORCH)]
        for c in doc["cases"]:
            if not c["shape"].startswith("text-512"):
                continue
            ako, cu = et.us_of(c, et.AKO), et.copy_us(c)
            for n in engines:
                us = et.us_of(c, n)
                if not (us and ako and cu):
                    continue
                x, pct = us / ako, et.pct(c, us, doc["copy_bandwidth_gbs"])
                if not (x <= 1.0 or (pct < 90 and x < 1.1)):
                    continue
                g = group(task, c)
                label = f"{c['shape']} {c['dtype']} {et.axes_text(c)}"
                need = us / 1.1
                if g is None or g not in floors:
                    verdict, fl, shape_t = "no floor kernel", None, "-"
                else:
                    r, shape_t = floor_ratio(floors[g])
                    fl = r * cu
                    # A floor kernel slower than ako's own is no floor: it bounds nothing there.
                    verdict = ("no bound (ako under the floor kernel)" if ako < fl else
                               "under the floor" if need < fl else "above the floor")
                tally.setdefault(task, {}).setdefault(verdict, 0)
                tally[task][verdict] += 1
                run = ako_run.get((task, label))
                rows.append((task, label, n, x, us, need, cu, fl, shape_t, ako, run, g, verdict))
    if a.md:
        print("| task | case | engine | ako / engine | need (µs) | copy (µs) | floor (µs) | ako (µs) | ako / floor | this call: ako / size copy, floor / memcpy | verdict |")
        print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for task, label, n, x, us, need, cu, fl, shape_t, ako, run, g, verdict in rows:
        fr = floor_ratio(floors[g])[0] if g in floors else None
        cells = [task, label, n, f"{x:.3f}x", f"{need:.2f}", f"{cu:.2f}", "-" if fl is None else f"{fl:.2f} ({shape_t})",
                 f"{ako:.2f}", "-" if fl is None else f"{ako / fl:.3f}",
                 ("-" if run is None else f"{run:.3f}") + ", " + ("-" if fr is None else f"{fr:.3f}"), verdict]
        print(("| " + " | ".join(cells) + " |") if a.md else "  ".join(cells))
    print()
    for task, t in tally.items():
        print(f"{task}: " + ", ".join(f"{v} {k}" for k, v in sorted(t.items())))


if __name__ == "__main__":
    main()
