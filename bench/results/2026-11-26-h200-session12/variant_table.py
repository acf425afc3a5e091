#!/usr/bin/env python3
"""Per case: each variant's mean solution IQM over its runs (`ako run --json` files named
<task>-<variant>-<i>.json in DIR), its ratio to BASE, and, where a peer file of the same task is
given (bench/peer_timing.py JSON, .xz allowed), the best variant against that peer.
Usage: variant_table.py DIR BASE [PEERS.json[.xz] ...]"""
import collections, glob, json, lzma, os, re, sys

d, base, peer_files = sys.argv[1], sys.argv[2], sys.argv[3:]


def key(c):
    return (c["shape"], c["dtype"], json.dumps(c.get("axes", {}), sort_keys=True), json.dumps(c.get("flags", {}), sort_keys=True))


def label(k):
    axes, flags = json.loads(k[2]), json.loads(k[3])
    f = " ".join(("" if v else "no") + n for n, v in sorted(flags.items()))
    return f"{k[0]} {k[1]} {f} " + " ".join(f"{n}={v}" for n, v in sorted(axes.items()))


times = collections.defaultdict(lambda: collections.defaultdict(lambda: collections.defaultdict(list)))
for f in sorted(glob.glob(os.path.join(d, "*.json"))):
    m = re.match(r"(.+)-([a-z0-9]+)-(\d+)\.json$", os.path.basename(f))
    if not m:
        continue
    for c in json.load(open(f))["cases"]:
        if c.get("kind") == "compare" and c.get("verdict") == "correct":
            times[m.group(1)][key(c)][m.group(2)].append(c["solution_time"]["iqm_us"])
peers = collections.defaultdict(dict)  # task -> key -> (peer, us)
for pf in peer_files:
    j = json.load(lzma.open(pf) if pf.endswith(".xz") else open(pf))
    for c in j["cases"]:
        for name, p in c.get("peers", {}).items():
            if name != "torch" and p.get("verdict") == "correct":
                peers[j["task"]][key(c)] = (name, p["time"]["iqm_us"])
for task, cases in sorted(times.items()):
    variants = sorted({v for c in cases.values() for v in c}, key=lambda v: (v != base, v))
    print(f"== {task}: mean IQM us per variant (ratio to {base}); best; against the peer where one was given")
    print(f"{'case':70s} " + " ".join(f"{v:>14s}" for v in variants) + "   best        peer")
    wins = collections.Counter()
    for k in sorted(cases):
        row = cases[k]
        if base not in row:
            continue
        b = sum(row[base]) / len(row[base])
        cells, best = [], (b, base)
        for v in variants:
            if v not in row:
                cells.append(f"{'-':>14s}")
                continue
            t = sum(row[v]) / len(row[v])
            best = min(best, (t, v))
            cells.append(f"{t:7.2f} {t / b:5.3f}x" if v != base else f"{t:14.2f}")
        wins[best[1]] += 1
        p = peers.get(task, {}).get(k)
        ps = f"{p[0]} {p[1]:.2f}: base {p[1] / b:.2f}x, best {p[1] / best[0]:.2f}x" if p else ""
        print(f"{label(k):70s} " + " ".join(cells) + f"   {best[1]:10s} {ps}")
    print(f"best variant per case: {dict(wins)}")
