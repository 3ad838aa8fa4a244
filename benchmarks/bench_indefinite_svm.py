"""Benchmark: Indefinite SVM solver (accelerated projected gradient with rank-one
eigen-updates) against (a) the same solver with a full ``eigh`` per objective
evaluation and (b) the plain projected gradient with a full ``eigh`` and step
1/L (the method of the Luss & d'Aspremont reference code, without its mex
rank-one update), run to the same KKT tolerance.

Reports median CPU times (``time.process_time``: the benchmark runs single
threaded, and CPU time is far less distorted than wall time on a shared, loaded
machine), the ratios (baseline / ours, > 1 means ours is
faster) and the relative objective difference (ours - baseline) / |baseline|
(positive: ours found a larger value of the maximisation). Also the time of
one objective evaluation by rank-one update vs full eigh.

``--predict N1 N2 ...`` instead times ``predict`` on n/2 test rows of a random
indefinite binary problem with n training rows (one fit per n): the default
"heuristic" test transform chunked (issue #19) and unchunked (one call for all
rows, as before), and the "bordered" transform, alternating, medians (wall
time), with the peak traced memory of one call as a multiple of the test
matrix.

Usage: python benchmarks/bench_indefinite_svm.py [--sizes 100 200 313] [--repeats 3]
       python benchmarks/bench_indefinite_svm.py --predict 1000 2000 [--repeats 3]
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import scipy.linalg
from threadpoolctl import threadpool_limits

from proxlearn._svm._dual import max_violating_pair
from proxlearn.kernel_learning import _indefinite_svm as isvm
from _timing import timed as _timed, timed_alternating  # noqa: E402  (benchmarks/ is on sys.path when run as a script)


class FullEighProblem(isvm._Problem):
    """Same problem, objective and gradient from a full eigendecomposition of
    ``S + a a^T / (4 rho)`` (written independently of the library's "full" mode)."""

    def evaluate(self, alpha, rho):
        self.n_evals += 1
        a = self.y * alpha
        M = self.S + np.outer(a, a) / (4.0 * rho)
        mu, Q = scipy.linalg.eigh(0.5 * (M + M.T), driver="evd")
        pos = mu > 0
        Ka = Q[:, pos] @ (mu[pos] * (Q[:, pos].T @ a))
        neg = mu[~pos]
        f = alpha.sum() - 0.5 * a @ self.S @ a - (a @ a) ** 2 / (16 * rho) + rho * neg @ neg
        return f, 1.0 - self.y * Ka, Ka


def plain_pg(prob, C, rho, max_iter, tol):
    """Projected gradient ascent, step 1/L with backtracking, full eigh."""
    y = prob.y
    x = isvm.project_box_hyperplane(np.zeros_like(y), y, C)
    f, g, _ = prob.evaluate(x, rho)
    L = prob.lam_max
    for _ in range(max_iter):
        if max_violating_pair(y * g, x, y, C) <= tol:
            break
        while True:
            xn = isvm.project_box_hyperplane(x + g / L, y, C)
            d = xn - x
            fn, gn, _ = prob.evaluate(xn, rho)
            if fn >= f + g @ d - 0.5 * L * (d @ d) - 1e-12 * abs(f):
                break
            L *= 2.0
        x, f, g = xn, fn, gn
        L /= 1.5
    return x, f


def problem(name, n, seed):
    rng = np.random.default_rng(seed)
    if name == "random":
        X = np.vstack([rng.normal(-1, 1, (n // 2, 3)), rng.normal(1, 1, (n - n // 2, 3))])
        N = rng.normal(0, 1, (n, n))
        S = (X @ X.T + 0.5 * (N + N.T)) / 3.0
        y = np.where(np.arange(n) < n // 2, 1.0, -1.0)
        return S, y
    from proxlearn.datasets import load_dataset

    d = load_dataset(name)
    S = 0.5 * (d.matrix + d.matrix.T)
    lab = np.asarray(d.labels)
    idx = rng.permutation(len(lab))[: min(n, len(lab))]
    y = np.where(lab[idx] == lab[0], 1.0, -1.0)
    return S[np.ix_(idx, idx)], y


def timed(fn, repeats):
    """CPU-time median (the machine may be shared)."""
    return _timed(fn, repeats, clock=time.process_time)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[100, 200, 313])
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--C", type=float, default=1.0)
    ap.add_argument("--rho", type=float, default=1.0)
    ap.add_argument("--tol", type=float, default=1e-3)
    ap.add_argument("--max-iter", type=int, default=3000)
    ap.add_argument("--predict", type=int, nargs="*", default=None)
    args = ap.parse_args()
    if args.predict:
        with threadpool_limits(args.threads):
            predict_rows(args.predict, args.repeats)
        return
    cases = [("random", n) for n in args.sizes] + [("aural_sonar", 100), ("voting", 313)]
    head = (f"{'problem':<18}{'eval r1 [ms]':>13}{'eval eigh':>10}{'ratio':>7}"
            f"{'ours [s]':>10}{'FISTA+eigh':>11}{'ratio':>7}{'PG+eigh':>9}{'ratio':>7}"
            f"{'rel dobj':>10}")
    print(head)
    print("-" * len(head))
    C, rho = args.C, args.rho
    with threadpool_limits(args.threads):
        for name, n in cases:
            try:
                S, y = problem(name, n, 0)
            except Exception as exc:  # data set not available
                print(f"{name}: skipped ({exc})")
                continue
            ours = isvm._Problem(S, y, eig_update="rank-one")
            full = FullEighProblem(S, y)
            alpha = isvm.project_box_hyperplane(np.random.default_rng(1).random(len(y)) * C, y, C)
            t, _ = timed_alternating({
                "e1": lambda: [ours.evaluate(alpha, rho) for _ in range(5)],
                "e2": lambda: [full.evaluate(alpha, rho) for _ in range(5)],
            }, args.repeats, clock=time.process_time)
            t_e1, t_e2 = t["e1"], t["e2"]
            t, out = timed_alternating({
                "o": lambda: isvm._solve(ours, C, rho, None, args.max_iter, args.tol),
                "f": lambda: isvm._solve(full, C, rho, None, args.max_iter, args.tol),
            }, args.repeats, clock=time.process_time)
            (t_o, (_, f_o, *_)), (t_f, (_, f_f, *_)) = (t["o"], out["o"]), (t["f"], out["f"])
            t_p, (_, f_p) = timed(lambda: plain_pg(full, C, rho, args.max_iter, args.tol), 1)
            label = f"{name} n={len(y)}"
            print(f"{label:<18}{1e3 * t_e1 / 5:>13.2f}{1e3 * t_e2 / 5:>10.2f}{t_e2 / t_e1:>7.2f}"
                  f"{t_o:>10.3f}{t_f:>11.3f}{t_f / t_o:>7.2f}{t_p:>9.3f}{t_p / t_o:>7.2f}"
                  f"{(f_o - f_p) / abs(f_p):>10.1e}")
    print(f"C={C}, rho={rho}, KKT tol={args.tol}; ratio = baseline time / our time")


def predict_rows(sizes, repeats):
    """predict: heuristic chunked / unchunked and bordered (see the module docstring)."""
    import tracemalloc

    from _timing import timed_alternating
    from bench_simsvm import random_multiclass

    print(f"{'n':>6} {'m':>6} {'heur ms/row':>11} {'unchunked':>9} {'bordered':>9} "
          f"{'heur/bord':>9} {'peak chunked':>12} {'peak unchunked':>14} {'same':>5}", flush=True)
    for n in sizes:
        S, y, S_test = random_multiclass(n, k=2)
        # the heuristic against the bordered rows of the same model (rho = 1, S as given:
        # the settings of the recorded runs; the defaults changed in issue 40)
        clf = isvm.IndefiniteSVM(rho=1.0, **isvm.PAPER_READING).fit(S, y)
        bord = isvm.IndefiniteSVM(rho=1.0, normalize=False, test_transform="bordered")
        bord.__dict__.update({k: v for k, v in clf.__dict__.items() if k.endswith("_")})
        chunk = isvm._CHUNK_ENTRIES

        def unchunked():
            isvm._CHUNK_ENTRIES = 1 << 62
            try:
                return clf.decision_function(S_test)
            finally:
                isvm._CHUNK_ENTRIES = chunk

        fns = {"chunked": lambda: clf.decision_function(S_test), "unchunked": unchunked,
               "bordered": lambda: bord.decision_function(S_test)}
        t, out = timed_alternating(fns, repeats)
        peaks = {}
        for k in ("chunked", "unchunked"):
            tracemalloc.start()
            fns[k]()
            peaks[k] = tracemalloc.get_traced_memory()[1] / S_test.nbytes
            tracemalloc.stop()
        same = bool(np.array_equal(out["chunked"] > 0, out["unchunked"] > 0))
        m = S_test.shape[0]
        print(f"{n:>6} {m:>6} {1e3 * t['chunked'] / m:11.3f} {1e3 * t['unchunked'] / m:9.3f} "
              f"{1e3 * t['bordered'] / m:9.3f} {t['chunked'] / t['bordered']:9.1f} "
              f"{peaks['chunked']:12.2f} {peaks['unchunked']:14.2f} {str(same):>5}", flush=True)


if __name__ == "__main__":
    main()
