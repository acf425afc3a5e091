#!/usr/bin/env python3
"""The issue-14/15 table from one interleaved timing of the port against the engine
(scripts/sglang_port_timing.py's engine-timing-<task>.json), or of ako against its baselines
(`ako run TASK --size-copy --json`: each correct baseline an engine column, no torch column): per
case torch, each engine kernel, ako's ported kernel, ako's % of copy bandwidth, the engine's, and
ako's speedup over each; then the bars, counted: slower than torch or an engine kernel; under 1.1x
where that kernel reaches less than 90% of copy; ako under 90% of copy (16M+ elements) or 95%
(over 50M).

Each miss is labelled by the case's size copy (a device-to-device copy of its own bytes, timed
with its kernels; its rate = its bytes / its time, as they may be rounded to 64 KiB):
  beyond a copy   the bar needs ako faster than that copy: under 1.1x, engine_us / 1.1 is less
                  than the copy's time for the case's bytes, unless the case is small (no copy
                  bar) and ako already runs under that time (latency-bound: the copy's fixed
                  costs make it no floor); the copy bar, the copy itself runs under the bar's
                  % of the 1 GiB copy
  within reach    otherwise; a "slower" miss always (the engine kernel does it)
  no size copy    the case has no size copy measured (older files): no guess

    scripts/engine_table.py FILE.json [FILE.json ...] [--markdown] [--by-shape] [--write DIR]
    scripts/engine_table.py --runs RUN1.json RUN2.json ...   (runs of one task: which misses stay)

Text by default; --markdown writes the table as markdown; --by-shape one row per shape (its
cases' ranges, ako's speedups' minimum and geometric mean, the cases behind) for bench/RESULTS.md.
Every time is an IQM of interleaved samples from one process (the JSON says how many)."""
import argparse
import json
import math
import os
import sys

AKO = "ako_port"
TORCH = "torch"
BEYOND, WITHIN, NO_COPY = "beyond a copy", "within reach", "no size copy"
BARS = (("slower", "slower than torch or an engine kernel"),
        ("under_1_1x", "under 1.1x where the engine kernel is under 90% of copy"),
        ("copy", "under the copy bar (16M+ elements: 90%, over 50M: 95%)"))


def copy_bar(elements):
    """ako's % of copy the bar asks for at this size, or None (small shapes: no bar)."""
    return 95 if elements > 50e6 else (90 if elements >= 16e6 else None)


def axes_text(case):
    flags = [k if v else "no" + k for k, v in sorted(case.get("flags", {}).items())]
    return " ".join(flags + [f"{k}={v}" for k, v in sorted(case.get("axes", {}).items())])


def pct(case, us, bw):
    return case["bytes"] / (us * 1e-6) / 1e9 / bw * 100


def us_of(case, name):
    e = case["peers"].get(name) or {}
    return e["time"]["iqm_us"] if e.get("time") else None


def copy_us(case):
    """µs a copy of the case's own bytes takes at its size copy's rate, or None (none measured)."""
    s = case.get("size_copy") or {}
    us = (s.get("time") or {}).get("iqm_us")
    return case["bytes"] / (s["bytes"] / us) if us and s.get("bytes") else None


def from_ako_run(doc):
    """An `ako run --json` document (ako.run/1) in the layout analyse() reads: its compare cases,
    the solution as the ako column, each baseline an engine column, the size copy as size_copy."""
    names, cases = [], []
    for c in doc["cases"]:
        if c.get("kind") != "compare":
            continue
        ok = c.get("verdict") == "correct"
        peers = {AKO: {"verdict": c.get("verdict"), "time": (c.get("solution_time") or c.get("time")) if ok else None}}
        for b in c.get("baselines", []):
            names += [] if b["name"] in names else [b["name"]]
            v = "not_applicable" if b.get("verdict") == "skipped" else b.get("verdict")
            peers[b["name"]] = {"verdict": v, "time": b.get("time") if v == "correct" else None}
        sc = c.get("size_copy_time")   # its bytes are the case's rounded to 64 KiB
        sc = {"bytes": c.get("size_copy_bytes") or c["bytes"], "time": sc} if sc else None
        cases.append({**{k: c[k] for k in ("shape", "dims", "dtype", "flags", "axes", "bytes", "elements") if k in c},
                      "peers": peers, "size_copy": sc})
    opt = doc.get("options", {})
    return {"schema": "ako.peer_bench/1", "from": doc["schema"], "task": doc["task"], "device": doc["device"]["name"],
            "copy_bandwidth_gbs": doc["device"]["copy_bandwidth_gbs"], "timer": "ako run (CUPTI, interleaved)",
            "samples": "adaptive", "l2": "hot" if opt.get("hot") else f"cold ({opt.get('l2_flush', '?')} flush)",
            "config": (doc.get("config") or {}).get("file", "?"),
            "peers": [{"name": AKO}] + [{"name": n} for n in names], "cases": cases}


def layout(doc):
    """doc in the engine-timing layout, whichever of the two it came in."""
    return from_ako_run(doc) if str(doc.get("schema", "")).startswith("ako.run/") else doc


def verdict(case, name):
    e = case["peers"].get(name) or {}
    return {"not_applicable": "n/a", "unavailable": "unavail", "incorrect": "WRONG"}.get(e.get("verdict"), e.get("verdict", "-"))


def analyse(doc):
    """Rows, the summary and the misses of one task's document; labels[key][i] is misses[key][i]'s
    BEYOND / WITHIN / NO_COPY."""
    doc = layout(doc)
    bw = doc["copy_bandwidth_gbs"]
    names = [p["name"] for p in doc["peers"]]
    engines = [n for n in names if n not in (AKO, TORCH)]
    cols = ([TORCH] if TORCH in names else []) + engines   # ako run has no torch column
    rows, misses = [], {"slower": [], "under_1_1x": [], "copy": []}
    labels = {k: [] for k in misses}
    ids = {k: [] for k in misses}   # (case label, engine or None) of each miss: stability() matches runs on it

    def miss(key, text, how, who):   # text opens the bracket the label closes
        misses[key].append(f"{text}; {how})")
        labels[key].append(how)
        ids[key].append((label, who))
    ratios = {n: [] for n in cols}
    for c in doc["cases"]:
        ako = us_of(c, AKO)
        label = f"{c['shape']} {c['dtype']} {axes_text(c)}"
        row = {"case": c, "label": label, "ako": ako, "ako_pct": pct(c, ako, bw) if ako else None, "peers": {}}
        cu = copy_us(c)
        want = copy_bar(c.get("elements", 0))   # the copy bar's %, None for a small case
        for n in cols:
            us = us_of(c, n)
            if us is None or ako is None:
                row["peers"][n] = {"text": verdict(c, n)}
                continue
            p, x = pct(c, us, bw), us / ako
            row["peers"][n] = {"us": us, "pct": p, "x": x}
            ratios[n].append(x)
            if x <= 1.0:   # the engine kernel (or torch) runs it this fast: never beyond a copy
                miss("slower", f"{label} ({n} {x:.3f}x", WITHIN, n)
            elif n != TORCH and p < 90 and x < 1.1:
                need = us / 1.1   # ako's time for 1.1x; a copy of the case's bytes takes cu
                # A small case (no copy bar: latency-bound) where ako already runs under the copy's
                # time: the copy has fixed costs ako has not, so it is no floor there.
                floor = cu is not None and (ako >= cu or want is not None)
                how = NO_COPY if cu is None else (BEYOND if need < cu and floor else WITHIN)
                miss("under_1_1x", f"{label} ({n} at {p:.0f}% of copy, {x:.3f}x" +
                     ("" if cu is None else f"; 1.1x needs {need:.2f} us, a copy {cu:.2f} us" +
                      ("" if floor else f", ako {ako:.2f} us already under it")), how, n)
        if ako and want and row["ako_pct"] < want:
            cp = pct(c, cu, bw) if cu else None   # the size copy's own % of the 1 GiB copy
            how = NO_COPY if cp is None else (BEYOND if cp < want else WITHIN)
            miss("copy", f"{label} ({row['ako_pct']:.1f}% < {want}%" +
                 ("" if cp is None else f"; the size copy at {cp:.1f}%"), how, None)
        rows.append(row)
    summary = {n: {"cases": len(v), "min": min(v), "geomean": geomean(v),
                   "behind": sum(x <= 1.0 for x in v)} for n, v in ratios.items() if v}
    return {"task": doc["task"], "bw": bw, "engines": engines, "cols": cols, "rows": rows, "misses": misses,
            "labels": labels, "ids": ids, "summary": summary}


def split(labels):
    """' (9 beyond a copy, 4 within reach)' for a category's labels; '' when it has no miss."""
    if not labels:
        return ""
    parts = [f"{labels.count(BEYOND)} {BEYOND}", f"{labels.count(WITHIN)} {WITHIN}"]
    return f" ({', '.join(parts + ([f'{labels.count(NO_COPY)} {NO_COPY}'] if NO_COPY in labels else []))})"


def geomean(xs):
    return math.exp(sum(map(math.log, xs)) / len(xs))


def by_shape(doc):
    """Markdown, one row per shape: cases, ako's % of copy, each engine's, ako over torch and over
    each engine (min and geomean), and how many cases are behind an engine."""
    a = analyse(doc)
    torch = TORCH in a["cols"]
    head = ["shape", "cases", "ako % copy"] + [f"{n} % copy" for n in a["engines"]] + ["ako vs torch"] * torch + \
           [f"ako vs {n} (min / geomean)" for n in a["engines"]] + ["behind the engine"]
    out = ["| " + " | ".join(head) + " |", "|" + " --- |" * len(head)]
    shapes = list(dict.fromkeys(r["case"]["shape"] for r in a["rows"]))

    def span(xs, fmt="{:.1f}"):
        return "-" if not xs else (fmt.format(min(xs)) + ("" if len(xs) == 1 else "-" + fmt.format(max(xs))))
    for s in shapes:
        rows = [r for r in a["rows"] if r["case"]["shape"] == s and r["ako"]]
        cells = [s, str(len(rows)), span([r["ako_pct"] for r in rows])]
        cells += [span([r["peers"][n]["pct"] for r in rows if "pct" in r["peers"][n]]) for n in a["engines"]]
        if torch:
            tx = [r["peers"][TORCH]["x"] for r in rows if "x" in r["peers"][TORCH]]
            cells.append(f"{min(tx):.2f}x / {geomean(tx):.2f}x" if tx else "-")
        behind = 0
        for n in a["engines"]:
            xs = [r["peers"][n]["x"] for r in rows if "x" in r["peers"][n]]
            behind += sum(x <= 1.0 for x in xs)
            cells.append(f"{min(xs):.3f}x / {geomean(xs):.3f}x" if xs else "n/a")
        cells.append(str(behind))
        out.append("| " + " | ".join(cells) + " |")
    return "\n".join(out)


def render(doc, markdown=False):
    doc = layout(doc)
    a = analyse(doc)
    cols = a["cols"]
    placed = (f", each case at {doc['placements']} placements of its tensors, a kernel's median one"
              if (doc.get("placements") or 1) > 1 else "")
    out = [f"{doc['task']}: {doc['device']}, copy {a['bw']:.0f} GB/s, {doc.get('timer')} ({doc.get('samples')} samples "
           f"per kernel, {doc.get('l2')} L2{placed}), config {doc.get('config', '?')}"]
    if markdown:
        head = ["shape", "dtype", "axes"] + [f"{n} us" for n in cols] + \
               ["ako us", "ako % copy"] + [f"{n} % copy" for n in a["engines"]] + [f"ako vs {n}" for n in cols]
        out += ["", "| " + " | ".join(head) + " |", "|" + " --- |" * len(head)]
        for r in a["rows"]:
            c = r["case"]
            cells = [c["shape"], c["dtype"], axes_text(c) or "-"]
            cells += [f"{r['peers'][n]['us']:.2f}" if "us" in r["peers"][n] else r["peers"][n]["text"] for n in cols]
            cells += [f"{r['ako']:.2f}" if r["ako"] else verdict(c, AKO), f"{r['ako_pct']:.1f}" if r["ako"] else "-"]
            cells += [f"{r['peers'][n]['pct']:.1f}" if "pct" in r["peers"][n] else "-" for n in a["engines"]]
            cells += [f"{r['peers'][n]['x']:.3f}x" if "x" in r["peers"][n] else "-" for n in cols]
            out.append("| " + " | ".join(cells) + " |")
    else:
        width = max([len(r["label"]) for r in a["rows"]] + [20])
        head = f"{'case':<{width}} {'ako us':>9} {'%copy':>6}" + "".join(f" {n[:14] + ' us':>17} {'%copy':>6} {'vs':>7}"
                                                                        for n in cols)
        out += [head, "-" * len(head)]
        for r in a["rows"]:
            c = r["case"]
            line = f"{r['label']:<{width}} "
            line += f"{r['ako']:>9.2f} {r['ako_pct']:>6.1f}" if r["ako"] else f"{verdict(c, AKO):>9} {'':>6}"
            for n in cols:
                e = r["peers"][n]
                line += f" {e['us']:>17.2f} {e['pct']:>6.1f} {e['x']:>6.3f}x" if "us" in e else f" {e['text']:>17} {'':>6} {'':>7}"
            out.append(line)
    out.append("")
    for n, s in a["summary"].items():
        out.append(f"ako vs {n}: {s['cases']} cases, geomean {s['geomean']:.3f}x, min {s['min']:.3f}x, "
                   f"behind (<= 1.0x) on {s['behind']}")
    for key, what in BARS:
        m = a["misses"][key]
        out.append(f"{what}: {len(m)}{split(a['labels'][key])}" + (f": {'; '.join(m)}" if m else ""))
    return "\n".join(out)


def stability(docs):
    """Several runs of one task: each bar's misses in any run, with how many of the runs that timed
    the case missed it, its ratio over that engine (or ako's % of copy) in every run ('-' where a run
    left the case out) and its labels. A miss in every run is the kernel's; one that comes and goes
    sits on the bar's line, within the runs' noise. Misses in every run that timed them come first."""
    runs = [analyse(d) for d in docs]
    tasks = {a["task"] for a in runs}
    if len(tasks) != 1:
        raise ValueError(f"the runs are of different tasks: {', '.join(sorted(tasks))}")
    n = len(runs)

    def value(a, case, who):   # this run's x over `who`, or ako's % of copy (who None); None if not timed
        for r in a["rows"]:
            if r["label"] == case:
                if who is None:
                    return r["ako_pct"]
                return r["peers"].get(who, {}).get("x")
        return None
    out = [f"{runs[0]['task']}: {n} runs"]
    for key, what in BARS:
        seen = {}   # (case, who) -> labels, in first-seen order
        for a in runs:
            for i, k in zip(a["ids"][key], a["labels"][key]):
                seen.setdefault(i, []).append(k)
        vals = {i: [value(a, *i) for a in runs] for i in seen}
        timed = {i: sum(v is not None for v in vs) for i, vs in vals.items()}   # a run of fewer shapes: '-'
        every = sum(len(seen[i]) == timed[i] for i in seen)
        out.append(f"{what}: {len(seen)} missed in some run, {every} in every run that timed them")
        for i in sorted(seen, key=lambda i: (len(seen[i]) < timed[i], -len(seen[i]), i[0], str(i[1]))):
            (case, who), how = i, seen[i]
            shown = " ".join("-" if v is None else (f"{v:.1f}%" if who is None else f"{v:.3f}x") for v in vals[i])
            kinds = ", ".join(f"{how.count(k)} {k}" for k in (BEYOND, WITHIN, NO_COPY) if k in how)
            out.append(f"  {case}{'' if who is None else ' vs ' + who}: {len(how)}/{timed[i]} runs ({kinds}); {shown}")
    return "\n".join(out)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0].replace("\n", " "),
                                 epilog="Each miss of the bars is labelled 'beyond a copy' or 'within reach' "
                                        "by the case's size copy (see the script's docstring).")
    ap.add_argument("files", nargs="+", help="engine-timing-<task>.json (scripts/sglang_port_timing.py) "
                                             "or `ako run TASK --size-copy --json` results")
    ap.add_argument("--markdown", action="store_true", help="the per-case table in markdown")
    ap.add_argument("--by-shape", action="store_true", help="one markdown row per shape")
    ap.add_argument("--write", metavar="DIR",
                    help="write each file's three tables into DIR (STEM-table.txt, STEM-table.md, STEM-by-shape.md, "
                         "STEM the file's name without .json) and print only each one's summary: its first line, "
                         "the per-engine lines and the three bars' counts (their cases cut at 300 characters)")
    ap.add_argument("--runs", action="store_true",
                    help="the files are runs of one task: list each bar's misses across them (how many runs missed "
                         "each case, its ratio in every run) instead of one table per file")
    args = ap.parse_args(argv)
    docs = []
    for f in args.files:
        try:
            with open(f) as fh:
                doc = json.load(fh)
        except (OSError, ValueError) as e:
            sys.exit(f"engine_table: cannot read {f}: {e}")
        doc = layout(doc)
        if doc.get("schema") != "ako.peer_bench/1" or not any(p["name"] == AKO for p in doc.get("peers", [])):
            sys.exit(f"engine_table: {f} is no engine timing (ako.peer_bench/1 with an '{AKO}' peer: "
                     "scripts/sglang_port_gpu.py --engine-timing writes it) nor an `ako run --json` result")
        docs.append((f, doc))
    if args.runs:
        try:
            print(stability([d for _, d in docs]))
        except ValueError as e:
            sys.exit(f"engine_table: {e}")
        return
    for f, doc in docs:
        if args.write:
            write_tables(doc, f, args.write)
        else:
            print(by_shape(doc) if args.by_shape else render(doc, args.markdown))
        print()


def write_tables(doc, path, out_dir):
    """The session scripts' steps after a run, in one call: the text, markdown and by-shape tables
    into out_dir, and the summary printed."""
    stem = os.path.basename(path)
    stem = stem[:-len(".json")] if stem.endswith(".json") else stem
    os.makedirs(out_dir, exist_ok=True)
    text = render(doc)
    for name, body in ((f"{stem}-table.txt", text), (f"{stem}-table.md", render(doc, True)),
                       (f"{stem}-by-shape.md", by_shape(doc))):
        with open(os.path.join(out_dir, name), "w") as fh:
            fh.write(body + "\n")
    lines = text.split("\n")
    keep = [lines[0]] + [ln for ln in lines if ln.startswith(("ako vs ", "slower than", "under "))]
    print("\n".join(ln if len(ln) <= 300 else ln[:297] + "..." for ln in keep))


if __name__ == "__main__":
    main()
