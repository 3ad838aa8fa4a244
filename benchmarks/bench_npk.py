"""NPK re-ranking kernel (Zhuang 2011 eq. 6.2): Protocol 5 vs the same problem as a
cvxpy SDP (Clarabel), measured in one run with A and B alternating; medians.

    .venv/bin/python benchmarks/bench_npk.py [--sizes 40 80] [--repeats 3]

Both solve to their own tolerance (Protocol 5: certified duality gap <= 1e-6
relative); the optimal values are printed next to the times.
"""

import argparse
import time

import numpy as np

from proxlearn.ranking import npk_rank, npk_rank_sdp


def problem(n, seed=0):
    rng = np.random.default_rng(seed)
    X, T = rng.normal(size=(n, 8)), rng.normal(size=(n, 20))
    D = np.sqrt(((X[:, None] - X[None]) ** 2).sum(-1))
    return T @ T.T, D


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", type=int, nargs="+", default=[40, 80])
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
    print(f"{'n':>5} {'protocol 5':>12} {'cvxpy SDP':>12} {'ratio':>8} {'value P5':>14} {'value SDP':>14}")
    for n in args.sizes:
        Kt, D = problem(n)
        ta, tb, va, vb = [], [], None, None
        for _ in range(args.repeats):  # alternate A and B
            t = time.perf_counter()
            res = npk_rank(Kt, D, n_neighbors=5, C=1.0, tol=1e-6, max_iter=5000)
            ta.append(time.perf_counter() - t)
            t = time.perf_counter()
            _, vb = npk_rank_sdp(Kt, D, n_neighbors=5, C=1.0, max_n=10_000)
            tb.append(time.perf_counter() - t)
            va = res.primal
        a, b = float(np.median(ta)), float(np.median(tb))
        print(f"{n:>5} {a * 1e3:>10.1f}ms {b * 1e3:>10.1f}ms {b / a:>7.1f}x {va:>14.6g} {vb:>14.6g}")


if __name__ == "__main__":
    main()
