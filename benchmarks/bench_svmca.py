"""Benchmark: SVM-CA (Gu & Guo 2012) per-iteration cost, iterations to converge,
and the symmetric V-step against the paper's non-symmetric route.

For each data set and each (C, rho, d) setting it reports

* the iterations run (``n_iter``; cap ``--max-iter``) and the kept iterate,
* the median wall time of one alternation, split into alpha-step (libsvm
  one-vs-one) and V-step,
* the V-step alone on the same ``M`` (from the alpha's of the last iteration):
  median time of the paper's route (``eig`` of the non-symmetric ``M K0``, two
  solves with ``K0``, renormalisation) divided by ours (``eigh`` of
  ``M^{1/2} K0 M^{1/2}``, top-d), and
* a whole fit with each route from the same start: the relative max
  difference of the learned ``K_v`` and the time ratio.

The paper's route solves with ``K0``; on a singular ``K0`` (protein has three
zero eigenvalues) its ``V`` is infeasible, which is printed first. The
comparisons then use ``K0 + eps I`` (the paper's footnote 1) for both routes.

BLAS is limited to one thread (shared machine).

``--v-step N1,N2`` instead times, on random indefinite 3-class problems with n
training rows (issue #19), the second V-step (``M`` from the alpha-step on the
first V-step's kernel) by the dense route (LAPACK top-(d+1) of the formed
``M^{1/2} K0 M^{1/2}``) against Lanczos warm-started from the first step's
``P`` (``eigen_solver="arpack"``), alternating, medians, with the first step's
gap ``b_d / b_{d+1}`` (the quantity of the ``"auto"`` rule), the route "auto"
takes, the relative difference of the optimum and of ``K_v``; then whole fits
(``max_iter`` alternations, ``tol=0``) with ``eigen_solver="dense"`` and
``"auto"``.

Usage: python benchmarks/bench_svmca.py [--datasets protein synthetic-2] [--repeats 5]
       python benchmarks/bench_svmca.py --v-step 1000,2000 [--repeats 3]
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from threadpoolctl import threadpool_limits

from _timing import timed_alternating  # noqa: E402  (benchmarks/ is on sys.path when run as a script)
from proxlearn._svm._multiclass import ovo_problems
from proxlearn.datasets import load_dataset
from proxlearn.kernel_learning._svmca import (
    SVMCA,
    _alpha_step,
    svmca_path,
    v_step,
    v_step_nonsymmetric,
)

SETTINGS = [(1.0, 1.0, 8), (10.0, 0.1, 13), (100.0, 0.01, 34), (0.1, 10.0, 5)]




def run(name, repeats, max_iter, eps_rel):
    ds = load_dataset(name)
    S, y = ds.matrix, ds.labels
    est = SVMCA(max_iter=max_iter)
    K0, classes, y_idx, lam, U = est._prepare(S, y)
    pairs = ovo_problems(y_idx, len(classes))
    n = K0.shape[0]
    # the paper's route needs K0^{-1}: on a singular K0 its V is infeasible
    P0, V0 = SVMCA._clip_start(lam, U, 5)
    a = _alpha_step(P0 @ P0.T, pairs, 1.0, 1e-3)
    _, Vp, _ = v_step_nonsymmetric(K0, a.beta, 1.0, 5)
    _, Vs, _ = v_step(K0, a.beta, 1.0, 5)
    print(f"\n{name}: n={n}, classes={len(classes)}, pairs={len(pairs)}, "
          f"d0={int(np.sum(lam > 0))}, cond(K0)={np.abs(lam).max() / np.abs(lam).min():.2e}")
    print(f"  raw K0, C=1, rho=1, d=5: |V^T K0 V - I|_max paper route "
          f"{np.abs(Vp.T @ K0 @ Vp - np.eye(5)).max():.2e}, ours {np.abs(Vs.T @ K0 @ Vs - np.eye(5)).max():.2e}")
    eps = eps_rel * np.abs(lam).max()
    K0 = K0 + eps * np.eye(n)  # the paper's footnote 1, for both routes below
    lam = lam + eps
    print(f"  below: both routes on K0 + eps I, eps = {eps_rel:g} max|lambda| = {eps:.3g}")
    print(f"{'C':>6} {'rho':>6} {'d':>3} {'iters':>5} {'best':>4} {'fit s':>7} "
          f"{'alpha ms':>8} {'V ms':>6} {'Vpaper/V':>8} {'fit ratio':>9} {'max dKv':>9}")
    ratios, fit_ratios, diffs = [], [], []
    for C, rho, d in SETTINGS:
        P0, V0 = SVMCA._clip_start(lam, U, d)
        t, out = timed_alternating({
            "fit": lambda: svmca_path(K0, pairs, C, rho, P0, V0, max_iter=max_iter, tol=1e-3),
            "fitp": lambda: svmca_path(K0, pairs, C, rho, P0, V0, max_iter=max_iter, tol=1e-3,
                                       step=v_step_nonsymmetric),
        }, repeats)
        t_fit, res, t_fitp, resp = t["fit"], out["fit"], t["fitp"], out["fitp"]
        Kv = res.P @ res.P.T
        a = _alpha_step(Kv, pairs, C, 1e-3)
        t, _ = timed_alternating({
            "alpha": lambda: _alpha_step(Kv, pairs, C, 1e-3),
            "v": lambda: v_step(K0, a.beta, rho, d),
            "vp": lambda: v_step_nonsymmetric(K0, a.beta, rho, d),
        }, repeats)
        t_alpha, t_v, t_vp = t["alpha"], t["v"], t["vp"]
        Kvp = resp.P @ resp.P.T
        diff = float(np.abs(Kv - Kvp).max() / np.abs(Kv).max())
        ratios.append(t_vp / t_v)
        fit_ratios.append(t_fitp / t_fit)
        diffs.append(diff)
        print(f"{C:6g} {rho:6g} {d:3d} {res.n_iter:5d} {res.best_iter:4d} {t_fit:7.3f} "
              f"{1e3 * t_alpha:8.2f} {1e3 * t_v:6.2f} {t_vp / t_v:8.2f} {t_fitp / t_fit:9.2f} "
              f"{diff:9.2e}")
    print(f"median V-step time ratio paper/ours = {np.median(ratios):.2f}; median fit ratio = "
          f"{np.median(fit_ratios):.2f}; max relative |K_v(ours) - K_v(paper)| = {max(diffs):.2e}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--datasets", nargs="+", default=["protein", "synthetic-2"])
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--max-iter", type=int, default=10)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--eps", type=float, default=1e-6,
                    help="eps I added to K0 (relative to max|lambda|), paper footnote 1")
    ap.add_argument("--v-step", default="", help="comma-separated n (random problems)")
    ap.add_argument("--d", default="5,13")
    args = ap.parse_args()
    if args.v_step:
        with threadpool_limits(limits=args.threads):
            v_step_scaling([int(v) for v in args.v_step.split(",")],
                           [int(v) for v in args.d.split(",")], args.repeats, args.max_iter)
        return
    with threadpool_limits(limits=args.threads):
        for name in args.datasets:
            run(name, args.repeats, args.max_iter, args.eps)


def v_step_scaling(sizes, ds, repeats, max_iter):
    """Dense against warm-started Lanczos V-steps (see the module docstring)."""
    from _timing import timed_alternating
    from bench_simsvm import random_multiclass
    from proxlearn.kernel_learning._svmca import _use_iterative

    print(f"{'n':>6} {'d':>3} {'gap':>7} {'auto':>6} {'dense ms':>9} {'arpack ms':>9} {'ratio':>6} "
          f"{'value diff':>10} {'Kv diff':>8}", flush=True)
    fits = []
    for n in sizes:
        S, y, _ = random_multiclass(n)
        for d in ds:
            est = SVMCA(n_components=d)
            K0, classes, y_idx, lam, U = est._prepare(S, y)
            pairs = ovo_problems(y_idx, len(classes))
            P0, _ = SVMCA._clip_start(lam, U, d)
            a = _alpha_step(P0 @ P0.T, pairs, 1.0, 1e-3)
            info = {}
            P1, _, _ = v_step(K0, a.beta, 1.0, d, info=info)
            a2 = _alpha_step(P1 @ P1.T, pairs, 1.0, 1e-3)
            t, out = timed_alternating({
                "dense": lambda: v_step(K0, a2.beta, 1.0, d),
                "arpack": lambda: v_step(K0, a2.beta, 1.0, d, start=P1, eigen_solver="arpack"),
            }, repeats)
            (Pd, _, vd), (Pa, _, va) = out["dense"], out["arpack"]
            Kd = Pd @ Pd.T
            kv = np.abs(Pa @ Pa.T - Kd).max() / np.abs(Kd).max()
            route = "arpack" if _use_iterative("auto", n, d, P1, info["gap"]) else "dense"
            print(f"{n:>6} {d:>3} {info['gap']:7.4f} {route:>6} {1e3 * t['dense']:9.1f} "
                  f"{1e3 * t['arpack']:9.1f} {t['dense'] / t['arpack']:6.1f} "
                  f"{abs(va - vd) / vd:10.1e} {kv:8.1e}", flush=True)
            fits.append((n, d, S, y))
    print(f"\n{'n':>6} {'d':>3} {'dense fit s':>11} {'auto fit s':>10} {'ratio':>6} {'auto routes':>24} "
          f"{'Kv diff':>8}", flush=True)
    for n, d, S, y in fits:
        t, out = timed_alternating({
            k: (lambda k=k: SVMCA(n_components=d, max_iter=max_iter, tol=0.0,
                                  eigen_solver=k).fit(S, y))
            for k in ("dense", "auto")}, max(1, repeats // 2))
        Kd, Ka = out["dense"].kernel_, out["auto"].kernel_
        routes = "".join(h["v_step"][0] for h in out["auto"].history_)
        print(f"{n:>6} {d:>3} {t['dense']:11.2f} {t['auto']:10.2f} {t['dense'] / t['auto']:6.2f} "
              f"{routes:>24} {np.abs(Ka - Kd).max() / np.abs(Kd).max():8.1e}", flush=True)


if __name__ == "__main__":
    main()
