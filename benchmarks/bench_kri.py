"""Benchmark: batched exact KRI solver vs one-at-a-time cvxpy (Clarabel).

KRI weights (Chen et al. 2009, eq. 12) for realistic neighbourhoods: a
synthetic indefinite similarity (Gaussian RBF on 5-d points plus symmetric
noise), the k most similar training points of each test point, the local
matrix clipped to PSD with the consistent test transformation ``s~ = P s``,
``Q = S_clip + reg I``, ``c = s~``.

* proxlearn: ``solve_simplex_qp`` on all ``--n-problems`` neighbourhoods at
  once; per-problem time = batch time / n (median over ``--repeats`` runs).
* cvxpy: the first ``--n-cvxpy`` problems are built and solved one at a time
  (Clarabel, tight tolerances); per-problem time = median over those problems.
  The speed-up compares the two per-problem times (the cvxpy figure is
  scaled per problem, not re-run on all problems).
* ``--honest`` (issue #19) adds the baselines a user would actually write, on
  the same first ``--n-cvxpy`` problems, all four alternating in each repeat
  (per-problem time = loop time / problems, median over repeats):
  Clarabel called directly (its Python API, no cvxpy compilation: ``P = Q``,
  ``q = -c``, cones ``x >= 0`` and ``1^T x = 1``, same tolerances) and a
  loop of :func:`scipy.optimize.nnls` (the QP as least squares with the
  Cholesky factor of ``Q``, the equality as a row of weight 1e4: an
  approximation, its error shown).

Usage: python benchmarks/bench_kri.py [--k 8 32 128] [--n-problems 1000]
       [--n-cvxpy 100] [--reg 1e-3] [--honest]
"""

from __future__ import annotations

import argparse
import time

import numpy as np


def make_problems(k, B, reg, seed=0, n_train=2000, dim=5, noise=0.05):
    from proxlearn._graph import top_k_similar
    from proxlearn.neighbors._local_spectrum import modify_local, reconstruct

    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n_train, dim))
    T = rng.standard_normal((B, dim))

    def rbf(A, C):
        return np.exp(-((A[:, None, :] - C[None, :, :]) ** 2).sum(-1) / dim)

    N = noise * rng.standard_normal((n_train, n_train))
    S = rbf(X, X) + (N + N.T) / 2
    S_test = rbf(T, X) + noise * rng.standard_normal((B, n_train))
    nbrs, s = top_k_similar(S_test, k)
    S_loc = S[nbrs[:, :, None], nbrs[:, None, :]]
    lam, V, s_t = modify_local(S_loc, s, "clip", transform_s=True)
    Q = reconstruct(lam, V) + reg * np.eye(k)
    return Q, s_t


def cvxpy_solve(Q, c):
    import cvxpy as cp

    k = c.shape[0]
    x = cp.Variable(k)
    obj = 0.5 * cp.quad_form(x, cp.psd_wrap(Q)) - c @ x
    prob = cp.Problem(cp.Minimize(obj), [x >= 0, cp.sum(x) == 1])
    prob.solve(
        solver="CLARABEL", tol_gap_abs=1e-10, tol_gap_rel=1e-10, tol_feas=1e-10
    )
    return np.asarray(x.value)


def clarabel_solve(Q, c):
    import clarabel
    import scipy.sparse as sp

    k = c.shape[0]
    P = sp.csc_matrix(np.triu(Q))
    A = sp.csc_matrix(np.vstack([np.ones((1, k)), -np.eye(k)]))
    b = np.concatenate([[1.0], np.zeros(k)])
    settings = clarabel.DefaultSettings()
    settings.verbose = False
    settings.tol_gap_abs = settings.tol_gap_rel = settings.tol_feas = 1e-10
    sol = clarabel.DefaultSolver(P, -c, A, b, [clarabel.ZeroConeT(1),
                                              clarabel.NonnegativeConeT(k)], settings).solve()
    return np.asarray(sol.x)


def nnls_solve(Q, c, weight=1e4):
    import scipy.linalg
    import scipy.optimize

    # 1/2 x^T Q x - c^T x = 1/2 ||R x - R^-T c||^2 + const with Q = R^T R
    R = scipy.linalg.cholesky(Q)
    d = scipy.linalg.solve_triangular(R, c, trans="T")
    A = np.vstack([R, weight * np.ones((1, c.shape[0]))])
    return scipy.optimize.nnls(A, np.concatenate([d, [weight]]))[0]


def honest(Q, c, n, repeats):
    from proxlearn.solvers._simplex_qp import solve_simplex_qp

    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from _timing import timed_alternating

    Qn, cn = Q[:n], c[:n]
    fns = {
        "ours": lambda: solve_simplex_qp(Qn, cn),
        "clarabel": lambda: np.array([clarabel_solve(Qn[b], cn[b]) for b in range(n)]),
        "nnls": lambda: np.array([nnls_solve(Qn[b], cn[b]) for b in range(n)]),
        "cvxpy": lambda: np.array([cvxpy_solve(Qn[b], cn[b]) for b in range(n)]),
    }
    t, out = timed_alternating(fns, repeats)
    W = out["ours"][0]
    per = {key: 1e3 * v / n for key, v in t.items()}
    diff = {key: float(np.abs(out[key] - W).max()) for key in ("clarabel", "nnls", "cvxpy")}
    return per, diff


def main(argv=None):
    from proxlearn.solvers._simplex_qp import solve_simplex_qp

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--k", type=int, nargs="+", default=[8, 32, 128])
    p.add_argument("--n-problems", type=int, default=1000)
    p.add_argument("--n-cvxpy", type=int, default=100)
    p.add_argument("--reg", type=float, default=1e-3)
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--honest", action="store_true",
                   help="ours vs Clarabel directly, an nnls loop and cvxpy, alternating")
    args = p.parse_args(argv)
    if args.honest:
        print(f"{'k':>4} {'ours ms/prob':>12} {'clarabel':>9} {'nnls':>8} {'cvxpy':>8} "
              f"{'clarabel/ours':>13} {'nnls/ours':>9} {'cvxpy/ours':>10} {'|dw| clar':>9} "
              f"{'|dw| nnls':>9} {'|dw| cvxpy':>10}", flush=True)
        for k in args.k:
            Q, c = make_problems(k, args.n_cvxpy, args.reg)
            per, diff = honest(Q, c, args.n_cvxpy, args.repeats)
            print(f"{k:>4} {per['ours']:12.4f} {per['clarabel']:9.3f} {per['nnls']:8.3f} "
                  f"{per['cvxpy']:8.3f} {per['clarabel'] / per['ours']:13.1f} "
                  f"{per['nnls'] / per['ours']:9.1f} {per['cvxpy'] / per['ours']:10.1f} "
                  f"{diff['clarabel']:9.1e} {diff['nnls']:9.1e} {diff['cvxpy']:10.1e}", flush=True)
        return

    print(
        f"KRI simplex QP, {args.n_problems} neighbourhoods per k, reg={args.reg:g}; "
        f"cvxpy/Clarabel timed on {args.n_cvxpy} problems one at a time "
        "(per-problem median, scaled per problem)"
    )
    hdr = (
        f"{'k':>4} {'batch ms/prob':>14} {'cvxpy ms/prob':>14} {'speed-up':>9} "
        f"{'max |dw|':>10} {'max KKT res':>12} {'mean iters':>10}"
    )
    print(hdr)
    print("-" * len(hdr))
    for k in args.k:
        Q, c = make_problems(k, args.n_problems, args.reg)
        times = []
        for _ in range(args.repeats):
            t0 = time.perf_counter()
            W, res, info = solve_simplex_qp(Q, c, return_info=True)
            times.append((time.perf_counter() - t0) / args.n_problems)
        t_batch = float(np.median(times))
        n_cv = min(args.n_cvxpy, args.n_problems)
        t_cv, diffs = [], []
        for b in range(n_cv):
            t0 = time.perf_counter()
            w = cvxpy_solve(Q[b], c[b])
            t_cv.append(time.perf_counter() - t0)
            diffs.append(np.abs(w - W[b]).max())
        t_cvx = float(np.median(t_cv))
        print(
            f"{k:>4} {1e3 * t_batch:>14.4f} {1e3 * t_cvx:>14.3f} "
            f"{t_cvx / t_batch:>8.0f}x {max(diffs):>10.2e} {res.max():>12.2e} "
            f"{info['n_iter'].mean():>10.2f}"
        )


if __name__ == "__main__":
    main()
