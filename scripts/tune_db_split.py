#!/usr/bin/env python3
"""The classes a tune database suggests: per case, its fastest variants, and the fewest parameter
sets that keep every case within PCT of its own best (greedy: the set that covers the most cases
first). `ako tune --where` writes one class for all the cases it scores; its database times every
variant on every case of the shape, which is what finds a split (session 24 did this by hand).

    scripts/tune_db_split.py DB [--match TOKENS ...] [--shape NAME] [--within PCT] [--top K]

DB        `ako tune --db` JSON lines, plain or .xz (scripts/gpu-tune-abba.sh keeps it in details.tar.xz)
--match   only cases whose label holds every token of one of the TOKENS strings (whole words:
          'affine' does not match 'noaffine'), e.g. --match "gate=bc norm=layer affine"
--shape   only this shape's records
--within  a case is covered by a variant within this percentage of its best (default 0.5)
--top     list each case's K fastest variants too (default 0)

Only correct cases count. Times are the database's per-case IQMs: one sample each, so a split
this suggests is a candidate to measure A B B A, not a result."""
import argparse
import json
import lzma
import math
import sys


def load(path):
    opener = lzma.open if path.endswith(".xz") else open
    with opener(path, "rt") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def params_text(p):
    return " ".join(f"{k}={v}" for k, v in sorted(p.items()))


def times(records, match, shape):
    """{variant key: (params, {label: iqm_us})} over the correct cases that match."""
    wanted = [set(m.split()) for m in match]
    out = {}
    for r in records:
        if shape and r.get("shape") != shape:
            continue
        key = params_text(r.get("params", {}))
        _, cases = out.setdefault(key, (r.get("params", {}), {}))
        for c in r.get("cases", []):
            tokens = set(c.get("label", "").split())
            if c.get("verdict") != "correct" or not c.get("iqm_us"):
                continue
            if wanted and not any(w <= tokens for w in wanted):
                continue
            label = c["label"]
            cases[label] = min(cases.get(label, math.inf), c["iqm_us"])  # a variant measured twice: its best
    return {k: v for k, v in out.items() if v[1]}


def split(variants, within):
    """Greedy cover: [(params, {label: (us, ratio to the case's best)})], each case in one group."""
    best = {}
    for _, cases in variants.values():
        for label, us in cases.items():
            best[label] = min(best.get(label, math.inf), us)
    left, groups = set(best), []
    while left:
        def covered(item):
            return {lb for lb, us in item[1][1].items() if lb in left and us <= best[lb] * (1 + within / 100)}

        def score(item):
            cov = covered(item)
            g = math.exp(sum(math.log(item[1][1][lb] / best[lb]) for lb in cov) / len(cov)) if cov else math.inf
            return (-len(cov), g, item[0])
        key, (params, cases) = min(variants.items(), key=score)
        cov = covered((key, (params, cases)))
        if not cov:   # cannot happen: each case's best variant covers it
            break
        groups.append((params, {lb: (cases[lb], cases[lb] / best[lb]) for lb in sorted(cov)}))
        left -= cov
    return best, groups


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0].replace("\n", " "))
    ap.add_argument("db")
    ap.add_argument("--match", nargs="*", default=[], help="label tokens (whole words); a case matches any one string")
    ap.add_argument("--shape")
    ap.add_argument("--within", type=float, default=0.5, help="percent of a case's best (default 0.5)")
    ap.add_argument("--top", type=int, default=0, help="each case's K fastest variants")
    args = ap.parse_args(argv)
    if args.within < 0 or args.top < 0:
        ap.error("--within and --top take a value of 0 or more")
    try:
        records = load(args.db)
    except (OSError, ValueError, lzma.LZMAError) as e:
        sys.exit(f"tune_db_split: cannot read {args.db}: {e}")
    variants = times(records, args.match, args.shape)
    if not variants:
        sys.exit(f"tune_db_split: no correct case in {args.db} matches" +
                 (f" {args.match}" if args.match else "") + (f" on shape {args.shape}" if args.shape else ""))
    best, groups = split(variants, args.within)
    print(f"{len(variants)} variants, {len(best)} cases; {len(groups)} parameter set(s) keep every case "
          f"within {args.within}% of its best:")
    for i, (params, cases) in enumerate(groups, 1):
        print(f"\n{i}. {params_text(params)}")
        for label, (us, ratio) in cases.items():
            print(f"   {label}: {us:.2f} us ({ratio:.4f} of its best)")
    if args.top:
        print()
        for label in sorted(best):
            ranked = sorted(((cases[label], params) for params, cases in variants.values() if label in cases),
                            key=lambda x: x[0])
            print(f"{label}:")
            for us, params in ranked[:args.top]:
                print(f"   {us:.2f} us  {params_text(params)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
