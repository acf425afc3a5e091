#!/usr/bin/env python3
"""Join an `ako run --json` result with the Python-side peer timings of the same task, measured
in the same session on the same GPU, and print per case: ako's solution, each Python-timed peer
(torch eager, the engine's Triton / CuTe DSL kernels: bench/peer_timing.py), each in-run
baseline of the run (e.g. FlashInfer's RMSNorm, SGLang's JIT CUDA modulate), the solution's
speedup over each, and the % of the measured copy bandwidth of each, counted with ako's bytes.

    scripts/compare_torch.py AKO_RESULT.json PEERS.json

PEERS.json: bench/peer_timing.py's (schema ako.peer_bench/1) or the older
bench/torch_rmsnorm.py format (ako.torch_bench/1: rmsnorm, torch only). Cases join on shape,
dtype, flags and axes. Every time is the IQM (ako's centre, and bench/peer_timing.py's); files
written before the IQM give their medians. A peer that did not time a case shows its verdict
instead (n/a, incorrect, unavailable, error)."""
import json
import math
import sys


def case_key(shape, dtype, flags, axes):
    return (shape, dtype, tuple(sorted((k, bool(v)) for k, v in (flags or {}).items())),
            tuple(sorted((k, str(v)) for k, v in (axes or {}).items())))


def centre(t):
    """A timing's centre: its IQM, or its median in a file written before the IQM."""
    return t["iqm_us"] if t.get("iqm_us") is not None else t["median_us"]


def peer_cases(doc):
    """{key: {peer name: entry}} and the peer names, from either peer JSON format. An entry is
    {"us": its centre} when timed, else {"verdict": ..., "reason": ...}."""
    cases = doc["cases"] if isinstance(doc, dict) else doc
    if isinstance(doc, dict) and doc.get("schema") == "ako.peer_bench/1":
        names = [p["name"] for p in doc["peers"]]
        out = {}
        for c in cases:
            row = {}
            for n, e in c["peers"].items():
                row[n] = {"us": centre(e["time"]), "verdict": e.get("verdict")} if e.get("time") else e
            out[case_key(c["shape"], c["dtype"], c["flags"], c["axes"])] = row
        return out, names
    # ako.torch_bench/1 (bench/torch_rmsnorm.py before peer_timing): torch's rms_norm only
    out = {}
    for c in cases:
        shape = c["shape"]["name"] if isinstance(c["shape"], dict) else c["shape"]
        out[case_key(shape, c["dtype"], {"weight": bool(c["weight"])}, {})] = {"torch": {"us": centre(c)}}
    return out, ["torch"]


def elements(case):
    """Elements of the case's activation, which sizes the copy-bandwidth bar: ako's own count (the
    result's `elements`: its largest output; a cache's rows or a position table are not in it).
    Results written before ako counted it: the activation from the dims' names (rows x cols,
    B x L x C, rope's N x H x D, qknorm's N x max(Hq, Hk) x D), else their product."""
    if case.get("elements"):
        return case["elements"]
    dims = case["dims"]
    if "rows" in dims and "cols" in dims:
        return dims["rows"] * dims["cols"]
    if all(k in dims for k in ("B", "L", "C")):
        return dims["B"] * dims["L"] * dims["C"]
    if all(k in dims for k in ("N", "H", "D")):
        return dims["N"] * dims["H"] * dims["D"]
    if all(k in dims for k in ("N", "Hq", "Hk", "D")):
        return dims["N"] * max(dims["Hq"], dims["Hk"]) * dims["D"]
    return math.prod(dims.values())


def baseline_state(b):
    """An in-run baseline that was not timed, in the peers' words."""
    if b is None:
        return {"verdict": "absent"}
    reason = b.get("reason", "")
    if b["verdict"] == "skipped" and reason.startswith("not applicable"):
        return {"verdict": "not_applicable"}
    if b["verdict"] == "skipped" and reason.startswith("not installed"):
        return {"verdict": "unavailable"}
    return {"verdict": b["verdict"]}


def short(verdict):
    return {"not_applicable": "n/a", "unavailable": "unavail", "incorrect": "WRONG", "error": "error"}.get(verdict, verdict)


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: compare_torch.py AKO_RESULT.json PEERS.json")
    ako = json.load(open(sys.argv[1]))
    pdoc = json.load(open(sys.argv[2]))
    peers, peer_names = peer_cases(pdoc)
    if isinstance(pdoc, dict) and pdoc.get("task") not in (None, ako.get("task")):
        sys.exit(f"compare_torch: the run is of task {ako.get('task')}, the peer timings of {pdoc.get('task')}")
    bw = ako["device"]["copy_bandwidth_gbs"]
    print(f"device {ako['device']['name']}, copy bandwidth {bw:.0f} GB/s; task {ako.get('task', '?')}; "
          f"peers: torch {pdoc.get('torch', '?') if isinstance(pdoc, dict) else '?'}, "
          f"timer {pdoc.get('timer', 'events') if isinstance(pdoc, dict) else 'events'}, "
          f"{pdoc.get('l2', '?') if isinstance(pdoc, dict) else '?'} L2, peers checked at "
          f"{json.dumps(pdoc.get('tolerance', 'no')) if isinstance(pdoc, dict) else 'no'} tolerance")
    base_names = []
    for c in ako["cases"]:
        for b in c.get("baselines", []):
            if b["name"] not in base_names:
                base_names.append(b["name"])
    rows = [c for c in ako["cases"] if c["kind"] == "compare" and c.get("solution_time")]
    labels = {id(c): " ".join([c["shape"], c["dtype"]]
                              + [(k if v else "no" + k) for k, v in sorted(c.get("flags", {}).items())]
                              + [f"{k}={v}" for k, v in sorted(c.get("axes", {}).items())]) for c in rows}
    width = max([len(x) for x in labels.values()] + [20])
    head = f"{'case':<{width}} {'elems':>7} {'ako us':>9} {'%copy':>6}"
    for n in peer_names + base_names:
        head += f" {n[:14] + ' us':>17} {'%copy':>6} {'vs':>7}"
    print(head)
    print("-" * len(head))
    slower, below = [], []
    for c in rows:
        sol = centre(c["solution_time"])
        elems = elements(c)
        line = f"{labels[id(c)]:<{width}} {elems / 1e6:>6.1f}M {sol:>9.2f} {c['pct_copy_bw']:>6.1f}"
        prow = peers.get(case_key(c["shape"], c["dtype"], c.get("flags"), c.get("axes")), {})
        cols = [(n, prow.get(n)) for n in peer_names]
        for n in base_names:
            b = next((b for b in c.get("baselines", []) if b["name"] == n), None)
            cols.append((n, {"us": centre(b["time"])} if b and b.get("time") else baseline_state(b)))
        for n, e in cols:
            if e and "us" in e:
                us = e["us"]
                pct = c["bytes"] / (us * 1e-6) / 1e9 / bw * 100
                mark = "*" if e.get("verdict") not in (None, "correct") else " "
                line += f" {us:>16.2f}{mark} {pct:>6.1f} {us / sol:>6.2f}x"
                if us <= sol:
                    slower.append(f"{labels[id(c)]} ({n})")
                elif n != "torch" and pct < 90 and us / sol < 1.1:
                    slower.append(f"{labels[id(c)]} (under 1.1x over {n}, which reaches only {pct:.0f}% of copy)")
            else:
                line += f" {short(e.get('verdict', '-') if e else '-'):>17} {'':>6} {'':>7}"
        print(line)
        want = 95 if elems > 50e6 else (90 if elems >= 16e6 else None)
        if want and c["pct_copy_bw"] < want:
            below.append(f"{labels[id(c)]} ({c['pct_copy_bw']:.1f}% < {want}%)")
    print(f"slower than (or under the bar against) torch, an engine peer or a baseline: {', '.join(slower) if slower else 'none'}")
    print(f"under the copy-bandwidth bar (>=16M elements: 90%, >50M: 95%): {', '.join(below) if below else 'none'}")
    notes = {}
    for row in peers.values():
        for n, e in row.items():
            if e and e.get("verdict") not in (None, "correct"):
                notes.setdefault((n, e["verdict"], e.get("reason", "")), 0)
                notes[(n, e["verdict"], e.get("reason", ""))] += 1
    if any(e and "us" in e and e.get("verdict") not in (None, "correct") for r in peers.values() for e in r.values()):
        print("*: timed although outside the task's tolerance (peer_timing --time-incorrect)")
    for (n, v, r), k in sorted(notes.items()):
        print(f"{n}: {v} on {k} case(s): {r}")


if __name__ == "__main__":
    main()
