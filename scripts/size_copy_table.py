#!/usr/bin/env python3
"""Per task and shape, from `ako run --size-copy --json` results: how fast a plain copy of each
case's own bytes runs (% of the device's 1 GiB copy rate, the %copy column's yardstick), and
where the solution and each baseline stand against the 1 GiB copy and against that size copy.
Ranges are min-max over the shape's correct, timed cases (dtypes and variants).

    scripts/size_copy_table.py RUN.json [RUN.json ...]

Prints one markdown table per file."""
import json
import sys


def rng(values, fmt="{:.1f}"):
    if not values:
        return "-"
    lo, hi = min(values), max(values)
    return fmt.format(lo) if fmt.format(lo) == fmt.format(hi) else f"{fmt.format(lo)}-{fmt.format(hi)}"


def table(doc):
    copy_gbs = doc["device"]["copy_bandwidth_gbs"]
    names = []
    for c in doc["cases"]:
        for b in c.get("baselines", []):
            if b["name"] not in names:
                names.append(b["name"])
    shapes = {}
    for c in doc["cases"]:
        if c.get("kind") != "compare" or c.get("verdict") != "correct" or not c.get("size_copy_time"):
            continue
        copy_us = c["size_copy_time"]["iqm_us"]
        copy_bytes = c.get("size_copy_bytes") or c["bytes"]   # the copy's bytes, rounded to 64 KiB
        row = shapes.setdefault(c["shape"], {"bytes": [], "copy": [], "sol": [], "sol_size": [],
                                             **{n: [] for n in names}, **{n + "/size": [] for n in names}})
        row["bytes"].append(c["bytes"] / 1e6)
        row["copy"].append(100.0 * copy_bytes / (copy_us * 1e-6) / 1e9 / copy_gbs)
        row["sol"].append(c["pct_copy_bw"])
        row["sol_size"].append(c["pct_size_copy"])
        for b in c.get("baselines", []):
            if b.get("verdict") == "correct" and b.get("time"):
                row[b["name"]].append(b["pct_copy_bw"])
                row[b["name"] + "/size"].append(100.0 * (c["bytes"] / b["time"]["iqm_us"]) / (copy_bytes / copy_us))
    head = ["shape", "MB", "cases", "size copy % of 1 GiB copy", "solution % of copy", "solution % of size copy"]
    for n in names:
        head += [f"{n} % of copy", f"{n} % of size copy"]
    lines = [f"**{doc['task']}** ({doc['device']['name']}, copy {copy_gbs:.0f} GB/s)", "",
             "| " + " | ".join(head) + " |", "|" + " --- |" * len(head)]
    for shape, row in shapes.items():
        cells = [shape, rng(row["bytes"], "{:.0f}") if max(row["bytes"]) >= 10 else rng(row["bytes"], "{:.2f}"),
                 str(len(row["sol"])), rng(row["copy"]), rng(row["sol"]), rng(row["sol_size"])]
        for n in names:
            cells += [rng(row[n]), rng(row[n + "/size"])]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(paths):
    if not paths:
        print(__doc__, file=sys.stderr)
        return 2
    for i, p in enumerate(paths):
        with open(p) as f:
            doc = json.load(f)
        if i:
            print()
        print(table(doc))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
