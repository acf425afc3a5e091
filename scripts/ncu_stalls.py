#!/usr/bin/env python3
"""Warp-stall shares and the hottest SASS lines of ncu source-page CSVs (`ncu --import R --page source --csv
--print-source sass`): each stall_* column summed over the kernel's instructions, as shares of their total
(ncu's "(Not Issued)" columns, a subset of the same samples, left out), and the five instructions with the most
warp-stall samples.  Usage: scripts/ncu_stalls.py SASS_CSV ..."""
import csv, sys
def stalls(path, top=6, lines=5):
    rows = list(csv.reader(open(path)))
    hdr_i = next(i for i, r in enumerate(rows) if r and r[0] == "Address")
    hdr = rows[hdr_i]; data = [r for r in rows[hdr_i + 1:] if len(r) == len(hdr)]
    cols = [i for i, h in enumerate(hdr) if h.startswith("stall_") and "Not Issued" not in h]
    tot = {hdr[i]: sum(float(r[i] or 0) for r in data) for i in cols}
    s = sum(tot.values()) or 1
    out = ", ".join(f"{k[6:]} {100 * v / s:.0f}%" for k, v in sorted(tot.items(), key=lambda kv: -kv[1])[:top])
    si = hdr.index("Warp Stall Sampling (All Samples)")
    src = hdr.index("Source")
    hot = sorted(data, key=lambda r: -float(r[si] or 0))[:lines]
    allsamp = sum(float(r[si] or 0) for r in data) or 1
    return out, [f"{100 * float(r[si]) / allsamp:.0f}% {r[src].strip()[:60]}" for r in hot]
for p in sys.argv[1:]:
    o, h = stalls(p)
    print(f"  stalls ({p.split('/')[-1]}): {o}")
    print("  hottest: " + " | ".join(h))
