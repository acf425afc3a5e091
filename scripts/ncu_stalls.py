#!/usr/bin/env python3
"""Warp-stall shares and the hottest SASS lines of ncu source-page CSVs (`ncu --import R --page source --csv
--print-source sass`): each stall_* column summed over the kernel's instructions, as shares of their total
(ncu's "(Not Issued)" columns, a subset of the same samples, left out), and the five instructions with the most
warp-stall samples.  Usage: scripts/ncu_stalls.py SASS_CSV ..."""
import csv
import sys

SAMPLES = "Warp Stall Sampling (All Samples)"


def read_instructions(path):
    """The header row and one row per instruction (ncu writes the kernel's name on the lines before the header)."""
    try:
        rows = list(csv.reader(open(path)))
    except OSError as e:
        sys.exit(f"ncu_stalls: cannot read {path}: {e.strerror}")
    at = next((i for i, r in enumerate(rows) if r and r[0] == "Address"), None)
    if at is None:
        sys.exit(f"ncu_stalls: {path} has no \"Address\" header: not an ncu source-page CSV "
                 "(ncu --import R --page source --csv --print-source sass)")
    header = rows[at]
    return header, [r for r in rows[at + 1:] if len(r) == len(header)]


def number(cell):
    return float(cell or 0)


def stalls(path, top=6, lines=5):
    header, rows = read_instructions(path)
    columns = [i for i, h in enumerate(header) if h.startswith("stall_") and "Not Issued" not in h]
    totals = {header[i][len("stall_"):]: sum(number(r[i]) for r in rows) for i in columns}
    whole = sum(totals.values()) or 1
    shares = ", ".join(f"{name} {100 * v / whole:.0f}%" for name, v in sorted(totals.items(), key=lambda kv: -kv[1])[:top])
    if SAMPLES not in header or "Source" not in header:
        sys.exit(f"ncu_stalls: {path} lacks the \"{SAMPLES}\" or \"Source\" column (a report without SourceCounters?)")
    samples, source = header.index(SAMPLES), header.index("Source")
    all_samples = sum(number(r[samples]) for r in rows) or 1
    hottest = sorted(rows, key=lambda r: -number(r[samples]))[:lines]
    return shares, [f"{100 * number(r[samples]) / all_samples:.0f}% {r[source].strip()[:60]}" for r in hottest]


def main(paths):
    if not paths:
        sys.exit(__doc__)
    for path in paths:
        shares, hottest = stalls(path)
        print(f"  stalls ({path.split('/')[-1]}): {shares}")
        print("  hottest: " + " | ".join(hottest))


if __name__ == "__main__":
    main(sys.argv[1:])
