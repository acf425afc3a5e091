#!/usr/bin/env python3
"""Run-to-run agreement: two `ako run --json` results of the same task on the same GPU, per
case the ratio of the solution times (IQMs; the median of a result written before the IQM) and
of each baseline's; prints the worst and every case past the limit (default 1%). Exit 1 when any
case is past it."""
import json
import sys


def centre(t):
    """A timing's centre: its IQM, or its median in a result written before ako reported IQMs."""
    return t["iqm_us"] if t.get("iqm_us") is not None else t["median_us"]


def centres(doc):
    out = {}
    for c in doc["cases"]:
        if c["kind"] != "compare" or not c.get("solution_time"):
            continue
        # a case is its shape, dtype, axis values and flags (cases that differ by an axis only,
        # gated_act's act, must not overwrite each other)
        variant = {**c.get("axes", {}), **c["flags"]}
        key = (c["shape"], c["dtype"], json.dumps(variant, sort_keys=True))
        out[key + ("solution",)] = centre(c["solution_time"])
        for b in c.get("baselines", []):
            if b.get("time"):
                out[key + (b["name"],)] = centre(b["time"])
    return out


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit("usage: compare_runs.py A.json B.json [LIMIT_PERCENT]")
    try:
        a, b = (centres(json.load(open(f))) for f in sys.argv[1:3])
    except (OSError, ValueError, KeyError) as e:
        sys.exit(f"compare_runs: cannot read {sys.argv[1]} / {sys.argv[2]} as two `ako run --json` results: {e!r}")
    limit = float(sys.argv[3]) if len(sys.argv) == 4 else 1.0
    common = sorted(set(a) & set(b))
    if not common:
        sys.exit("compare_runs: no timed case in common")
    dev = {k: 100.0 * (b[k] / a[k] - 1.0) for k in common}
    worst = max(common, key=lambda k: abs(dev[k]))
    past = [k for k in common if abs(dev[k]) > limit]
    print(f"run-to-run: {len(common)} IQMs, worst {dev[worst]:+.2f}% ({' '.join(worst[:2])} {worst[3]}), "
          f"{len(past)} past {limit:g}%")
    for k in past:
        print(f"  {k[0]} {k[1]} {k[2]} {k[3]}: {a[k]:.2f} -> {b[k]:.2f} us ({dev[k]:+.2f}%)")
    sys.exit(1 if past else 0)


if __name__ == "__main__":
    main()
