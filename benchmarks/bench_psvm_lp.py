"""Benchmark: P-SVM solver (proxlearn.solvers.box_lasso) and LP machine (HiGHS)
against a direct cvxpy formulation of the same problem solved by Clarabel.

Reports median wall time of ours and of cvxpy (including cvxpy's compile
step), their ratio and the relative objective difference (ours - cvxpy) /
|cvxpy| (negative means ours is lower). BLAS is limited to one thread by
default because oversubscribed OpenBLAS threads distort timings on small
shared machines.

Usage: python benchmarks/bench_psvm_lp.py [--sizes 100 200 400] [--repeats 3]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import cvxpy as cp
import numpy as np
from threadpoolctl import threadpool_limits

from proxlearn.solvers import box_lasso
from proxlearn.svm._lp_machine import lp_machine_binary
from _timing import timed_alternating, uw_problem  # noqa: E402  (benchmarks/ is on sys.path when run as a script)


def random_problem(n, seed):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2)) + np.repeat([[2.0, 0.0], [-2.0, 0.0]], [n // 2, n - n // 2], axis=0)
    N = rng.normal(size=(n, n))
    S = X @ X.T + 0.5 * (N + N.T)
    y = np.where(np.arange(n) < n // 2, 1.0, -1.0)
    return S, y


def cvx_psvm(S, y, eps, C):
    a = cp.Variable(S.shape[1])
    p = cp.Problem(cp.Minimize(0.5 * cp.sum_squares(y - S @ a) + eps * cp.norm1(a)),
                   [cp.abs(a) <= C])
    p.solve(solver="CLARABEL")
    return p.value


def cvx_lp(S, y, C):
    w = cp.Variable(S.shape[1])
    b = cp.Variable()
    p = cp.Problem(cp.Minimize(cp.norm1(w) + C * cp.sum(cp.pos(1 - cp.multiply(y, S @ w + b)))))
    p.solve(solver="CLARABEL")
    return p.value




def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[100, 200, 400])
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--psvm", type=float, nargs=2, default=[0.1, 1.0], metavar=("EPS", "C"))
    ap.add_argument("--lp-C", type=float, default=1.0)
    ap.add_argument("--data-dir", default=str(Path(__file__).resolve().parents[2] / "shared/data/uw"))
    args = ap.parse_args()
    problems = [(f"random n={n}", *random_problem(n, n)) for n in args.sizes]
    for name in ("aural_sonar", "voting"):
        p = uw_problem(name, args.data_dir)
        if p is not None:
            problems.append((f"{name} n={len(p[1])}", *p))
    eps, C = args.psvm
    header = f"{'problem':<22}{'method':<12}{'ours [s]':>10}{'cvxpy [s]':>11}{'ratio':>8}{'rel. obj diff':>15}"
    print(header)
    print("-" * len(header))
    with threadpool_limits(args.threads):
        for name, S, y in problems:
            t, out = timed_alternating({"ours": lambda: box_lasso(S, y, eps, C),
                                        "cvxpy": lambda: cvx_psvm(S, y, eps, C)}, args.repeats)
            (t_o, res), (t_c, ref) = (t["ours"], out["ours"]), (t["cvxpy"], out["cvxpy"])
            print(f"{name:<22}{'P-SVM':<12}{t_o:>10.3f}{t_c:>11.3f}{t_c / t_o:>8.1f}"
                  f"{(res.objective - ref) / abs(ref):>15.2e}")
            t, out = timed_alternating({"ours": lambda: lp_machine_binary(S, y, args.lp_C),
                                        "cvxpy": lambda: cvx_lp(S, y, args.lp_C)}, args.repeats)
            (t_o, (_, _, lp)), (t_c, ref) = (t["ours"], out["ours"]), (t["cvxpy"], out["cvxpy"])
            print(f"{name:<22}{'LP machine':<12}{t_o:>10.3f}{t_c:>11.3f}{t_c / t_o:>8.1f}"
                  f"{(lp.fun - ref) / abs(ref):>15.2e}")
    print("ratio = cvxpy time / our time (> 1: ours is faster)")


if __name__ == "__main__":
    main()
