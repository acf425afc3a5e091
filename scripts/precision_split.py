#!/usr/bin/env python3
"""The precision check's seconds in one `ako run --json` file, by step, summed over the cases:
`python3 scripts/precision_split.py RUN.json` prints e.g. `0.291 s (allocate 0.020, inputs 0.061, ...)`."""
import json
import sys

run = json.load(open(sys.argv[1]))
total, parts = 0.0, {}
for case in run.get("cases", []):
    p = case.get("precision") or {}
    total += p.get("check_s", 0.0)
    for step, s in (p.get("check_parts_s") or {}).items():
        parts[step] = parts.get(step, 0.0) + s
print(f"{total:.3f} s (" + ", ".join(f"{k} {v:.3f}" for k, v in sorted(parts.items())) + ")")
