"""Benchmark: SimMKL as our exact SOCP (direct Clarabel) against the same SOCP
in plain cvxpy (Clarabel) and the thesis's SDP form (5.36) with one
(n+1) x (n+1) LMI (cvxpy + Clarabel), on the same data.

Reports the median wall time of one solve for each (set-up and cvxpy
compilation included; the three alternate in each repeat), the ratios and the
relative objective differences (ours - other) / |other|. The SDP runs only up
to ``--sdp-max`` samples (183 s at n = 80). Base kernels: linear and
RBF (beta=0.01, 0.1) on similarity features, as for Aural Sonar in Chen (2010)
Table 5.5. BLAS is limited to one thread.

Usage: python benchmarks/bench_simmkl.py [--sizes 30 50 80 100] [--repeats 3] [--sdp-max 50]
"""

from __future__ import annotations

import argparse

import cvxpy as cp
import numpy as np
import scipy.linalg
from threadpoolctl import threadpool_limits

from proxlearn.kernel_learning._base_kernels import make_base_kernel
from proxlearn.kernel_learning._simmkl import SimMKLProblem
from _timing import timed_alternating  # noqa: E402  (benchmarks/ is on sys.path when run as a script)

SPECS = ["linear", ("rbf", 0.01), ("rbf", 0.1)]


def problem(n, seed):
    """Aural Sonar subsample (n <= 100) when available, else a random indefinite problem."""
    try:
        from proxlearn.datasets import load_dataset

        d = load_dataset("aural_sonar")
        rng = np.random.default_rng(seed)
        idx = rng.permutation(len(d.labels))[:n]
        S = d.matrix[np.ix_(idx, idx)]
        lab = np.asarray(d.labels)[idx]
        return S, np.where(lab == lab.min(), -1.0, 1.0), "aural_sonar"
    except Exception:  # pragma: no cover - data not installed
        rng = np.random.default_rng(seed)
        A = rng.uniform(size=(n, n))
        return 0.5 * (A + A.T), np.where(np.arange(n) < n // 2, 1.0, -1.0), "random"


def sdp_536(S, y, Ks, eta, gamma, tau):
    n = S.shape[0]
    lam, U = scipy.linalg.eigh(S)
    a_ref = (lam > 0).astype(float)
    alpha, w = cp.Variable(n), cp.Variable(len(Ks), nonneg=True)
    z, b, u, v = cp.Variable(n), cp.Variable(), cp.Variable(), cp.Variable()
    xi = cp.Variable(n, nonneg=True)
    theta = cp.multiply(lam, alpha)
    kappa = U @ cp.diag(theta) @ U.T + sum(w[j] * K for j, K in enumerate(Ks))
    M = cp.bmat([[kappa, cp.reshape(z, (n, 1), order="F")],
                 [cp.reshape(z, (1, n), order="F"), cp.reshape(u, (1, 1), order="F")]])
    cons = [theta >= 0, cp.norm(alpha - a_ref, 2) <= v, cp.multiply(y, z + b) >= 1 - xi,
            np.array([np.trace(K) for K in Ks]) @ w <= tau, 0.5 * (M + M.T) >> 0]
    p = cp.Problem(cp.Minimize(cp.sum(xi) / n + eta * u + gamma * v), cons)
    p.solve(solver="CLARABEL")
    return p.value




def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[30, 50, 80, 100])
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--sdp-max", type=int, default=50)
    ap.add_argument("--eta", type=float, default=0.01)
    ap.add_argument("--gamma", type=float, default=0.1)
    args = ap.parse_args()
    header = (f"{'problem':<20}{'SOCP [s]':>10}{'cvxpy SOCP [s]':>15}{'SDP [s]':>10}"
              f"{'cvxpy/ours':>11}{'SDP/ours':>9}{'diff cvxpy':>11}{'diff SDP':>10}")
    print(header)
    print("-" * len(header))
    with threadpool_limits(1):
        for n in args.sizes:
            S, y, name = problem(n, n)
            Ks = [make_base_kernel(s).fit_transform(S) for s in SPECS]
            tau = float(np.maximum(np.linalg.eigvalsh(S), 0).sum())
            fns = {
                "ours": lambda S=S, y=y, Ks=Ks: SimMKLProblem(S, y, Ks).solve(
                    args.eta, args.gamma)["objective"],
                "cvxpy": lambda S=S, y=y, Ks=Ks: SimMKLProblem(S, y, Ks)._solve_cvxpy(
                    args.eta, args.gamma, "CLARABEL", None)[4],
            }
            if n <= args.sdp_max:
                fns["sdp"] = lambda S=S, y=y, Ks=Ks, tau=tau: sdp_536(
                    S, y, Ks, args.eta, args.gamma, tau)
            t, out = timed_alternating(fns, args.repeats)
            f = out["ours"]
            t_s = t.get("sdp", float("nan"))
            d_s = (f - out["sdp"]) / abs(out["sdp"]) if "sdp" in out else float("nan")
            print(f"{name + f' n={n}':<20}{t['ours']:>10.3f}{t['cvxpy']:>15.3f}{t_s:>10.3f}"
                  f"{t['cvxpy'] / t['ours']:>11.1f}{t_s / t['ours']:>9.1f}"
                  f"{(f - out['cvxpy']) / abs(out['cvxpy']):>11.1e}{d_s:>10.1e}", flush=True)
    print("ratios = other time / SOCP time (> 1: our direct-Clarabel SOCP is faster)")


if __name__ == "__main__":
    main()
