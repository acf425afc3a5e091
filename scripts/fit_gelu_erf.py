#!/usr/bin/env python3
"""The polynomial behind gated_act's erf GELU (solution/gated_act/gated_act.cuh).

gelu_erf(v) = v * Phi(v) = v / (1 + exp(-z(v))) with z = logit(Phi), an odd function. The kernel
evaluates z as v * P(v^2), P of degree DEG - 1, then the same ex2 / rcp pair as its tanh GELU: about
a dozen instructions an element where CUDA's erff takes about thirty, which held geglu at 93-95% of
copy bandwidth while the other forms reach 100% (ITERATIONS.md gated_act iteration 2).

P is the minimax fit (a linear programme) of the output's absolute error: an error dz in z moves
the output by v * Phi * (1 - Phi) * dz, so the fit weighs z's error by that. Prints the
coefficients the kernel uses (multiplied by -log2(e), for ex2) and the float32 error of the kernel's
formula against v * Phi(v) in float64, with the inputs ako's task draws (N(0, 2)) and far beyond.

Needs numpy and scipy (a tool around the project, not a dependency of ako):
    python3 -m venv /tmp/fit && /tmp/fit/bin/pip install numpy scipy
    /tmp/fit/bin/python scripts/fit_gelu_erf.py
"""
import sys

try:
    import numpy as np
    from scipy.optimize import linprog
    from scipy.special import log_ndtr, ndtr
except ImportError as e:
    sys.exit(f"fit_gelu_erf: {e}: it needs numpy and scipy (see the top of this file for a venv)")

DEG, LIMIT = 7, 6.0   # 7 odd terms fitted on |v| <= 6: past it the output is v or 0 to float32


def fit():
    v = np.linspace(1e-3, LIMIT, 6000)
    weight = v * ndtr(v) * ndtr(-v)
    z = log_ndtr(v) - log_ndtr(-v)
    basis = np.stack([v ** (2 * k + 1) for k in range(DEG)], 1)
    # minimise t with |weight * (basis @ a - z)| <= t
    cost = np.r_[np.zeros(DEG), 1.0]
    rows = np.vstack([np.c_[weight[:, None] * basis, -np.ones(len(v))],
                      np.c_[-weight[:, None] * basis, -np.ones(len(v))]])
    bound = np.r_[weight * z, -weight * z]
    r = linprog(cost, A_ub=rows, b_ub=bound, bounds=[(None, None)] * DEG + [(0, None)], method="highs")
    assert r.success, r.message
    return r.x[:DEG]


def kernel_formula(v, c):
    """The kernel's arithmetic in float32: Horner in v^2, ex2, 1 + e, v / (1 + e)."""
    v = v.astype(np.float32)
    v2 = v * v
    p = np.full_like(v2, c[-1])
    with np.errstate(over="ignore"):   # huge |v|: p and e go to inf, the output to v or 0
        for k in range(len(c) - 2, -1, -1):
            p = p * v2 + c[k]
        e = np.exp2(v * p)
    return v / (np.float32(1) + e)


def main():
    a = fit()
    c = (-np.log2(np.e) * a).astype(np.float32)
    print("coefficients (z's times -log2 e), lowest first:")
    print(", ".join(f"{x:.9e}f" for x in c))
    for lo, hi in ((-12.0, 12.0), (-1e4, 1e4)):
        v = np.linspace(lo, hi, 4_000_001)
        got = kernel_formula(v, c).astype(np.float64)
        want = v * ndtr(v)
        err = np.abs(got - want)
        print(f"|v| <= {hi:g}: max abs error {err.max():.3g} at v = {v[err.argmax()]:.4f}; "
              f"non-finite {int((~np.isfinite(got)).sum())}")
    # z must keep rising past the fit, or large inputs would turn over
    v = np.linspace(0, 1e4, 1_000_001).astype(np.float32)
    v2 = v * v
    p = np.full_like(v2, c[-1])
    with np.errstate(over="ignore", invalid="ignore"):
        for k in range(len(c) - 2, -1, -1):
            p = p * v2 + c[k]
        mz = v * p   # -log2(e) z: must fall monotonically
    finite = np.isfinite(mz)
    print("-log2(e) z monotone on [0, 1e4]:", bool(np.all(np.diff(mz[finite]) <= 0)))


if __name__ == "__main__":
    main()
