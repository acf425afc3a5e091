#!/usr/bin/env python3
"""Compare two `ako tune` runs of the same search (e.g. one GPU against --gpus all).

    scripts/compare_tunes.py A.json A.jsonl[.xz] B.json B.jsonl[.xz]

A.json / B.json are the runs' `--json` summaries, the .jsonl files their tuning databases. Prints,
per class: whether the winners agree, and each run's winner scored in the other run (the class
score: geometric mean of the case IQMs over the class's shapes, as the tuner scores it), and
whether each run's fastest point (lowest score, before the tuner's 1% tie rule picks among the
points near it) is the same; then,
per database, the records, (variant, shape) pairs measured twice and records per GPU; last, the
cases one run measured more than 5% slower than the other, grouped by the minute they were
recorded (a window where every kernel took longer shows up there).
"""
import argparse
import collections
import json
import lzma
import math
import sys


def load_db(path):
    opener = lzma.open if path.endswith(".xz") else open
    with opener(path, "rt") as f:
        return [json.loads(line) for line in f if line.strip()]


def key(params, shape):
    return json.dumps(params, sort_keys=True), shape


def correct_cases(records):
    return {key(r["params"], r["shape"]): r for r in records if r.get("verdict") == "correct"}


def class_score(db, params, shapes):
    xs = []
    for s in shapes:
        r = db.get(key(params, s))
        if r is None:
            return None
        xs += [c["iqm_us"] for c in r["cases"]]
    return math.exp(sum(map(math.log, xs)) / len(xs)) if xs else None


def fastest_point(db, shapes):
    """The params (as sorted JSON) with the lowest class score among those correct on every shape."""
    scores = {}
    for params in {p for p, s in db if s in shapes}:
        score = class_score(db, json.loads(params), shapes)
        if score is not None:
            scores[params] = score
    return min(scores, key=scores.get) if scores else None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 epilog="Exit 0 after printing; 2 when a file cannot be read.")
    ap.add_argument("a_json"), ap.add_argument("a_db"), ap.add_argument("b_json"), ap.add_argument("b_db")
    args = ap.parse_args()
    try:
        a, b = json.load(open(args.a_json)), json.load(open(args.b_json))
        ra, rb = load_db(args.a_db), load_db(args.b_db)
    except (OSError, ValueError, EOFError, lzma.LZMAError) as e:
        print(f"compare_tunes: {e}", file=sys.stderr)
        return 2
    da, db = correct_cases(ra), correct_cases(rb)
    classes_b = {c["name"]: c for c in b.get("classes", [])}
    same = tuned = same_fastest = 0
    print(f"{'class':16} {'same':5} {'A winner in B / B winner':>26} {'B winner in A / A winner':>26} {'fastest same':>13}")
    for ca in a.get("classes", []):
        cb = classes_b.get(ca["name"])
        if cb is None or "winner" not in ca or "winner" not in cb:
            continue
        tuned += 1
        wa, wb, shapes = ca["winner"], cb["winner"], ca["shapes"]
        same += wa == wb
        sa_b, sb_b = class_score(db, wa, shapes), class_score(db, wb, shapes)
        sb_a, sa_a = class_score(da, wb, shapes), class_score(da, wa, shapes)
        fa, fb = fastest_point(da, shapes), fastest_point(db, shapes)
        same_fastest += fa is not None and fa == fb
        ratio = lambda x, y: f"{x / y:.4f}" if x and y else "n/a"
        print(f"{ca['name']:16} {str(wa == wb):5} {ratio(sa_b, sb_b):>26} {ratio(sb_a, sa_a):>26} {str(fa == fb):>13}")
    print(f"classes with a winner in both: {tuned}; same winner: {same}; same fastest point: {same_fastest}")
    print(f"wall: A {a.get('wall_s', 0):.1f} s, B {b.get('wall_s', 0):.1f} s, A / B {a.get('wall_s', 0) / max(b.get('wall_s', 1e-9), 1e-9):.2f}x")
    for name, records in (("A", ra), ("B", rb)):
        pairs = collections.Counter(key(r["params"], r["shape"]) for r in records)
        gpus = collections.Counter(r.get("gpu_uuid", "?") for r in records)
        print(f"{name}: {len(records)} records, {sum(1 for n in pairs.values() if n > 1)} pairs measured twice, "
              f"per GPU: {dict(gpus)}")
    slow = {"A": collections.Counter(), "B": collections.Counter()}
    cases = 0
    for k, r in da.items():
        o = db.get(k)
        if o is None:
            continue
        for x, y in zip(r["cases"], o["cases"]):
            cases += 1
            if x["iqm_us"] > 1.05 * y["iqm_us"]:
                slow["A"][(r["recorded_at"][:16], r.get("gpu_uuid", "?")[-4:])] += 1
            elif y["iqm_us"] > 1.05 * x["iqm_us"]:
                slow["B"][(o["recorded_at"][:16], o.get("gpu_uuid", "?")[-4:])] += 1
    print(f"cases in both: {cases}")
    for name, c in slow.items():
        print(f"{name} more than 5% slower on {sum(c.values())} cases; by minute recorded and GPU: "
              + ", ".join(f"{t} {g}: {n}" for (t, g), n in sorted(c.items())))
    return 0


if __name__ == "__main__":
    sys.exit(main())
