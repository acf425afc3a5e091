"""Experiment summary: per case of several `ako run --json` files, the solution's median and % of
copy, and the solution / baseline ratio per baseline. Usage: summarize.py RUN.json ..."""
import json, sys

for path in sys.argv[1:]:
    try:
        d = json.load(open(path))
    except Exception as e:  # noqa: BLE001
        print(f"{path}: {e}"); continue
    print(f"== {path}  wall {d.get('wall_s', 0):.2f} s  error {d.get('error') or '-'}")
    ctr = lambda t: (t or {}).get("iqm_us") or (t or {}).get("median_us")  # the IQM, or the median of older runs
    for c in d["cases"]:
        if c.get("kind") != "compare":
            continue
        t = c.get("solution_time") or {}
        axes = ",".join(f"{k}={v}" for k, v in sorted((c.get("axes") or {}).items()))
        flags = ",".join(k for k, v in sorted((c.get("flags") or {}).items()) if v)
        bl = " ".join(f"{b['name']} {ctr(b.get('time')) / ctr(t):.3f}x" if ctr(b.get("time")) and ctr(t) else f"{b['name']} -"
                      for b in c.get("baselines", []))
        print(f"  {c['shape']:16s} {c['dtype']:5s} {axes[:34]:34s} {flags[:14]:14s} {ctr(t) or 0:9.2f} us {c.get('pct_copy_bw', 0):6.1f}% n{t.get('samples', 0):5d} {c['verdict']:8s} {bl}")
