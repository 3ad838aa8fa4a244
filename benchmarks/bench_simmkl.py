"""Benchmark: SimMKL as our exact SOCP (direct Clarabel) against the thesis's
SDP form (5.36) with one (n+1) x (n+1) LMI (cvxpy + Clarabel), on the same data.

Reports the median wall time of one solve for each, their ratio and the
relative objective difference (ours - SDP) / |SDP|. Base kernels: linear and
RBF (beta=0.01, 0.1) on similarity features, as for Aural Sonar in Chen (2010)
Table 5.5. BLAS is limited to one thread.

Usage: python benchmarks/bench_simmkl.py [--sizes 30 50 80] [--repeats 3]
"""

from __future__ import annotations

import argparse
import time

import cvxpy as cp
import numpy as np
import scipy.linalg
from threadpoolctl import threadpool_limits

from proxlearn.kernel_learning._base_kernels import make_base_kernel
from proxlearn.kernel_learning._simmkl import SimMKLProblem
from _timing import timed  # noqa: E402  (benchmarks/ is on sys.path when run as a script)

SPECS = ["linear", ("rbf", 0.01), ("rbf", 0.1)]


def problem(n, seed):
    """Aural Sonar subsample when available, else a random indefinite problem."""
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
    ap.add_argument("--sizes", type=int, nargs="+", default=[30, 50, 80])
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--eta", type=float, default=0.01)
    ap.add_argument("--gamma", type=float, default=0.1)
    args = ap.parse_args()
    header = f"{'problem':<20}{'SOCP [s]':>10}{'SDP [s]':>10}{'ratio':>8}{'rel. obj diff':>15}"
    print(header)
    print("-" * len(header))
    with threadpool_limits(1):
        for n in args.sizes:
            S, y, name = problem(n, n)
            Ks = [make_base_kernel(s).fit_transform(S) for s in SPECS]

            def ours(S=S, y=y, Ks=Ks):
                return SimMKLProblem(S, y, Ks).solve(args.eta, args.gamma)

            t_o, res = timed(ours, args.repeats)
            tau = float(np.maximum(np.linalg.eigvalsh(S), 0).sum())
            t_c, ref = timed(lambda S=S, y=y, Ks=Ks, tau=tau: sdp_536(
                S, y, Ks, args.eta, args.gamma, tau), args.repeats)
            print(f"{name + f' n={n}':<20}{t_o:>10.3f}{t_c:>10.3f}{t_c / t_o:>8.1f}"
                  f"{(res['objective'] - ref) / abs(ref):>15.2e}")
    print("ratio = SDP time / SOCP time (> 1: the SOCP is faster); times include setup")


if __name__ == "__main__":
    main()
