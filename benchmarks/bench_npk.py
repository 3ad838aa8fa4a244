"""NPK re-ranking kernel (Zhuang 2011 eq. 6.2): Protocol 5, full and low-rank,
against the same problem as a cvxpy SDP (Clarabel), measured in one run with
the methods alternating; medians. Then the low-rank form from features at
large n (time and peak memory of the whole solve).

    .venv/bin/python benchmarks/bench_npk.py [--sizes 100 200 400] [--repeats 3]
        [--large 10000] [--components 20] [--large-components 100]

Run the large case alone (``--sizes`` with no values) for a clean peak memory.

Each solves to its own tolerance (Protocol 5: certified duality gap <= 1e-6
relative); the optimal values are printed next to the times. The low-rank
form solves eq. 6.2 restricted to K = V P V^T, so its value is >= the full
optimum (a minimisation); the SDP is the full problem.
"""

import argparse
import resource
import time

import numpy as np

from proxlearn.ranking import npk_rank, npk_rank_lowrank, npk_rank_sdp


def features(n, seed=0):
    """Unit-norm text vectors (as normalised tf-idf) and 8-D visual features."""
    rng = np.random.default_rng(seed)
    T = rng.normal(size=(n, 20))
    return T / np.linalg.norm(T, axis=1, keepdims=True), rng.normal(size=(n, 8))


def problem(n, seed=0):
    """Visual distances scaled to median 1, so that most neighbour constraints
    bind at the optimum (with raw scales none does and Protocol 5 stops after
    one K-step, which would flatter it)."""
    T, X = features(n, seed)
    D = np.sqrt(np.maximum(((X[:, None] - X[None]) ** 2).sum(-1), 0))
    return T @ T.T, D / np.median(D)


def timed(f):
    t = time.perf_counter()
    out = f()
    return time.perf_counter() - t, out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", type=int, nargs="*", default=[100, 200, 400])
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--components", type=int, default=20)
    ap.add_argument("--large", type=int, default=10_000)
    ap.add_argument("--large-components", type=int, default=100)
    ap.add_argument("--large-shrink", type=float, default=10.0,
                    help="divide the large case's visual features by this, so that the "
                         "neighbour constraints bind (at 1 almost none does)")
    ap.add_argument("--no-sdp-above", type=int, default=400)
    ap.add_argument("--sdp-solver", default="CLARABEL", choices=["CLARABEL", "SCS"],
                    help="Clarabel (interior point) needs > 20 GB at n = 200; SCS does not")
    args = ap.parse_args()
    m = args.components
    print(f"SDP solver: {args.sdp_solver}")
    print(f"{'n':>5} {'P5 full':>10} {'P5 m=' + str(m):>10} {'cvxpy SDP':>11} "
          f"{'SDP/full':>9} {'SDP/low':>9} {'value full':>12} {'value low':>12} {'value SDP':>12}")
    for n in args.sizes:
        Kt, D = problem(n)
        ta, tl, tb = [], [], []
        va = vl = vb = float("nan")
        for _ in range(args.repeats):  # alternate the methods
            t, res = timed(lambda: npk_rank(Kt, D, n_neighbors=5, tol=1e-6, max_iter=5000))
            ta.append(t)
            va, it_a = res.primal, res.n_iter
            t, res = timed(lambda: npk_rank(Kt, D, n_neighbors=5, n_components=m, tol=1e-6,
                                            max_iter=5000))
            tl.append(t)
            vl, it_l = res.primal, res.n_iter
            if n <= args.no_sdp_above:
                t, (_, vb) = timed(lambda: npk_rank_sdp(Kt, D, n_neighbors=5, max_n=10_000,
                                                      solver=args.sdp_solver))
                tb.append(t)
        a, low = float(np.median(ta)), float(np.median(tl))
        b = float(np.median(tb)) if tb else float("nan")
        print(f"{n:>5} {a:>9.3f}s {low:>9.3f}s {b:>10.2f}s {b / a:>8.1f}x {b / low:>8.0f}x "
              f"{va:>12.6g} {vl:>12.6g} {vb:>12.6g}   (P5 iterations: full {it_a}, low {it_l})",
              flush=True)

    if args.large:
        n, m = args.large, args.large_components
        T, X = features(n, 1)
        before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        X = X / np.median(np.linalg.norm(X[: n // 2] - X[n // 2:], axis=1))  # as problem()
        X = X / args.large_shrink
        t, res = timed(lambda: npk_rank_lowrank(T, X, m, n_neighbors=5, tol=1e-6,
                                                max_iter=5000))
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        t_rows, _ = timed(lambda: res.rows(np.arange(100)))
        print(f"\nlow-rank from features, n = {n}, n_components = {m}, "
              f"{len(res.pairs)} pairs ({np.mean(res.alpha > 0):.0%} active): {t:.2f} s, "
              f"{res.n_iter} iterations, "
              f"certified gap {res.gap:.2g} (primal {res.primal:.6g}); "
              f"peak RSS {peak / 1024:.0f} MiB (was {before / 1024:.0f} MiB before the solve; "
              f"one dense n x n float64 matrix is {n * n * 8 / 2**20:.0f} MiB); "
              f"100 kernel rows on demand: {t_rows * 1e3:.1f} ms")


if __name__ == "__main__":
    main()
