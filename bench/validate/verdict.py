"""Verdicts from the measured numbers (no torch): per family, does the ported kernel's microbench
win over the engine show in the step, and do the outputs agree.

A family with sites in the step is
  not ported         no ako wrapper for it in the payload: every site runs the engine's kernel
  fallback           ported, but at least one site ran the engine's kernel instead (FAILS:
                     the ported kernel did not take a real site; the sites say why)
  transfers          the family's kernel time in the step fell (engine / ako) by at least the
                     microbench speedup minus 5% (step >= 0.95 x micro), eager and under graphs
  does not transfer  it did not (FAILS), in the mode(s) named
The step latency change is reported as measured, win or not; it is no verdict. Outputs of the
engine and ako backends must agree with torch's within the relative L2 tolerance (FAILS)."""

BAR = 0.95          # the in-step family speedup must reach 95% of the microbench's
REL_L2_TOL = 5e-2   # the norm fusions' bf16 tolerance (tasks' 5e-2), on the whole step's output


def _ratio(a, b):
    return a / b if a and b else None


def micro_speedups(micro):
    """family -> engine / ako over the microbench rows, each distinct call weighted by how often
    the step makes it; rows where ako's call fell back (ako_impl not "ako") are left out, so a
    family with no ported call measured has no microbench speedup (verdict "unmeasured")."""
    tot = {}
    for r in micro:
        e, a = r.get("engine_us"), r.get("ako_us")
        # a row whose ako call fell back to the engine measured nothing of ako's
        if e is None or a is None or r.get("ako_impl", "ako") != "ako":
            continue
        t = tot.setdefault(r["family"], [0.0, 0.0])
        t[0] += r["count"] * e
        t[1] += r["count"] * a
    return {f: _ratio(e, a) for f, (e, a) in tot.items()}


def families(result):
    """The per-family verdict rows from a result dict (the JSON written by __main__)."""
    be = result["backends"]
    ako_sites = be.get("ako", {}).get("sites", [])
    ported = set(result.get("ported", []))
    micro = micro_speedups(result.get("micro", []))
    modes = [m for m in ("eager", "graph") if m in be.get("ako", {}) and m in be.get("engine", {})]
    errors = {m: be[n][m]["gpu_us"]["error"] for m in modes for n in ("engine", "ako") if "error" in be[n][m].get("gpu_us", {})}
    out = {}
    for fam in sorted({s["family"] for s in ako_sites}):
        rows = [s for s in ako_sites if s["family"] == fam]
        fell = [f"{s['site']}: {s['impl']}" for s in rows if s["impl"] != "ako"]
        row = {"sites": sum(s["calls"] for s in rows), "ported": fam in ported, "fallback_sites": fell,
               "micro_speedup": micro.get(fam), "step_speedup": {}}
        for m in modes:
            e = be["engine"][m].get("gpu_us", {}).get("families", {}).get(fam)
            a = be["ako"][m].get("gpu_us", {}).get("families", {}).get(fam)
            row["step_speedup"][m] = _ratio(e, a)
        if fam not in ported:
            row["verdict"], row["reason"] = "not ported", "no ako wrapper in the payload; the engine's kernel runs"
        elif fell:
            row["verdict"] = "fallback"
            row["reason"] = f"{len(fell)} site(s) ran the engine's kernel: " + "; ".join(fell)
        else:
            mi = row["micro_speedup"]
            short = [f"{m} {s:.2f}x" for m, s in row["step_speedup"].items() if mi and s and s < BAR * mi]
            unmeasured = [m for m, s in row["step_speedup"].items() if not s] + ([] if mi else ["microbench"])
            if short:
                row["verdict"] = "does not transfer"
                row["reason"] = f"microbench {mi:.2f}x, in the step {', '.join(short)} (< {BAR:.2f} x microbench)"
            elif unmeasured or not row["step_speedup"]:
                row["verdict"] = "unmeasured"
                row["reason"] = f"no time for {', '.join(unmeasured) or 'the step'}" + "".join(
                    f"; {m}: {e}" for m, e in errors.items())
            else:
                steps = ", ".join(f"{m} {s:.2f}x" for m, s in row["step_speedup"].items())
                row["verdict"] = "transfers"
                row["reason"] = f"microbench {mi:.2f}x, in the step {steps}" + ("" if mi > 1 else " (no microbench win)")
        out[fam] = row
    return out


FAILING = ("fallback", "does not transfer", "unmeasured")


def overall(result):
    """(verdict, failures): fail on a failing family verdict or an output beyond tolerance."""
    failures = [f"{f}: {r['verdict']}: {r['reason']}" for f, r in result["families"].items() if r["verdict"] in FAILING]
    for name in ("engine", "ako"):
        if "error" in result["backends"].get(name, {}):
            failures.append(f"{name} backend: {result['backends'][name]['error']}")
            continue
        o = result["backends"].get(name, {}).get("output")
        if o is not None and not (o.get("rel_l2") is not None and o["rel_l2"] <= REL_L2_TOL):
            failures.append(f"{name} output vs torch: relative L2 {o.get('rel_l2')} > {REL_L2_TOL:g}")
    return ("pass" if not failures else "fail"), failures


def step_speedups(result):
    """mode -> engine step latency / ako step latency (median), as measured."""
    be = result["backends"]
    out = {}
    for m in ("eager", "graph"):
        e = be.get("engine", {}).get(m, {}).get("step_ms", {}).get("median")
        a = be.get("ako", {}).get(m, {}).get("step_ms", {}).get("median")
        if e and a:
            out[m] = e / a
    return out
