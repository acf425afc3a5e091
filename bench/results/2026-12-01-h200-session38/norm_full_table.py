#!/usr/bin/env python3
"""Session 38, call 4: norm_full.py's plain kernels beside ako's (two `ako run --size-copy` JSONs of the same
cases, same call): per case ako's time over its size copy, the plain kernel's best over its memcpy, and
their quotient (over 1: ako slower than the plain kernel relative to a copy of the same bytes).

    python3 norm_full_table.py norm_full.json AKO_RUN.json..."""
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../../scripts"))
import engine_table as et  # noqa: E402


def main():
    full = json.load(open(sys.argv[1]))["cases"]
    runs = []
    for f in sys.argv[2:]:
        d = et.layout(json.load(open(f)))
        runs.append({frozenset(et.axes_text(c).split()): c for c in d["cases"]})
    print(f"{'case':52} {'ako us (runs)':>16} {'ako/size copy':>14} {'plain us':>9} {'plain/memcpy':>13} {'ako vs plain':>13}")
    qs = []
    for key, e in full.items():
        mean = {n: sum(v) / len(v) for n, v in e["iqm_us"].items()}
        best = min((u, n) for n, u in mean.items() if n != "memcpy")
        pr = best[0] / mean["memcpy"]
        cs = [r.get(frozenset(key.split())) for r in runs]
        ak = [(et.us_of(c, et.AKO), et.copy_us(c)) for c in cs if c]
        if not ak:
            print(f"{key:52} (no ako case)")
            continue
        us = [u for u, _ in ak]
        ar = sum(u / cu for u, cu in ak) / len(ak)
        qs.append(ar / pr)
        print(f"{key:52} {' / '.join(f'{u:.2f}' for u in us):>16} {ar:14.3f} {best[0]:6.2f} {best[1]:>4} {pr:9.3f} {ar / pr:13.3f}")
    if qs:
        print(f"ako vs plain: {sum(q > 1.03 for q in qs)} of {len(qs)} cases over 1.03, max {max(qs):.3f}, min {min(qs):.3f}")


if __name__ == "__main__":
    main()
