#!/usr/bin/env python3
"""Join an `ako run --json` result with bench/torch_rmsnorm.py's JSON, measured in the same
session on the same GPU, and print per case: ako's solution, torch's rms_norm, each baseline
of the run (FlashInfer's RMSNorm for rmsnorm), the solution's speedup over each, and the % of
the measured copy bandwidth of the solution and the baselines."""
import json
import sys


def torch_cases(doc):
    cases = doc["cases"] if isinstance(doc, dict) else doc
    key = lambda c: c["shape"]["name"] if isinstance(c["shape"], dict) else c["shape"]
    return {(key(c), c["dtype"], bool(c["weight"])): c for c in cases}


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: compare_torch.py AKO_RESULT.json TORCH.json")
    ako = json.load(open(sys.argv[1]))
    torch = torch_cases(json.load(open(sys.argv[2])))
    bw = ako["device"]["copy_bandwidth_gbs"]
    tdoc = json.load(open(sys.argv[2]))
    print(f"device {ako['device']['name']}, copy bandwidth {bw:.0f} GB/s; torch {tdoc.get('torch', '?')}, "
          f"timer {tdoc.get('timer', 'events')}, {tdoc.get('l2', '?')} L2")
    names = []
    for c in ako["cases"]:
        for b in c.get("baselines", []):
            if b["name"] not in names:
                names.append(b["name"])
    head = f"{'shape':<14} {'dtype':<5} {'w':<2} {'elems':>6} {'ako us':>9} {'%copy':>6} {'torch us':>9} {'vs torch':>9}"
    for n in names:
        head += f" {n + ' us':>14} {n[:6] + ' %':>8} {'vs ' + n[:8]:>11}"
    print(head)
    print("-" * len(head))
    slower, below90 = [], []
    for c in ako["cases"]:
        if c["kind"] != "compare" or not c.get("solution_time"):
            continue
        w = bool(c["flags"].get("weight", False))
        t = torch.get((c["shape"], c["dtype"], w))
        sol = c["solution_time"]["median_us"]
        elems = c["dims"]["rows"] * c["dims"]["cols"] / 1e6
        vs = f"{t['median_us'] / sol:.2f}x" if t else "-"
        if t and t["median_us"] <= sol:
            slower.append(c["shape"])
        if elems >= 16 and c["pct_copy_bw"] < 90:
            below90.append(f"{c['shape']}/{c['dtype']}")
        line = (f"{c['shape']:<14} {c['dtype']:<5} {'y' if w else 'n':<2} {elems:>5.1f}M {sol:>9.2f} "
                f"{c['pct_copy_bw']:>6.1f} {(t['median_us'] if t else float('nan')):>9.2f} {vs:>9}")
        for n in names:
            b = next((b for b in c.get("baselines", []) if b["name"] == n), None)
            if b and b.get("time"):
                line += f" {b['time']['median_us']:>14.2f} {b['pct_copy_bw']:>8.1f} {b['speedup']:>10.2f}x"
                if b["speedup"] <= 1.0:
                    slower.append(f"{c['shape']} ({n})")
            else:
                line += f" {'n/a':>14} {'':>8} {'':>11}"
        print(line)
    print(f"slower than torch or a baseline: {', '.join(slower) if slower else 'none'}")
    print(f">=16M elements under 90% of copy bandwidth: {', '.join(below90) if below90 else 'none'}")


if __name__ == "__main__":
    main()
