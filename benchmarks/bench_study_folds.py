"""Benchmark: the study's fold evaluators vs one estimator fit per grid point.

One inner fold of the chen2009 protocol (partition 0, fold 0; the Table 4.2
grid of each method) on a UW data set. For each method the same fold is
evaluated twice in the same run:

* baseline: ``method.build(**params).fit(S_fit, y_fit).predict(S_val)`` for
  every grid point (what a plain ``GridSearchCV`` does);
* ours: ``method.evaluate_grid`` (the method's fold evaluator: shared
  eigendecompositions, warm starts, reuse of box-inactive solutions).

It reports the median time of each, the ratio, and on how many grid points the
predictions differ (0 unless the problem has several optimal solutions, e.g.
the LP machine on data with duplicated samples, where a warm-started simplex
can stop at another optimal vertex).

Needs the UW benchmark files (``../shared/data`` or ``PROXLEARN_DATA``).

Usage: python benchmarks/bench_study_folds.py [--dataset voting]
       [--methods knn-kri knn-krr psvm lp-machine] [--repeats 3]
"""

from __future__ import annotations

import argparse
import warnings

import numpy as np
from _timing import timed_alternating


def fold(dataset: str):
    from proxlearn.datasets import load_dataset
    from proxlearn.study import get_protocol
    from proxlearn.study._protocols import inner_folds, make_partitions

    d = load_dataset(dataset)
    S, y = d.matrix, np.asarray(d.labels)
    protocol = get_protocol("chen2009")
    tr, _ = make_partitions(y, protocol, 0)[0]
    S_tr, y_tr = S[np.ix_(tr, tr)], y[tr]
    fit, val = inner_folds(y_tr, protocol.cv, 0)[0]
    return S_tr[np.ix_(fit, fit)], y_tr[fit], S_tr[np.ix_(val, fit)]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dataset", default="voting")
    ap.add_argument("--methods", nargs="+", default=["knn-kri", "knn-krr", "psvm", "lp-machine"])
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args(argv)

    from threadpoolctl import threadpool_limits

    from proxlearn.study import get_method

    S_fit, y_fit, S_val = fold(args.dataset)
    print(f"{args.dataset}: fit {S_fit.shape[0]}, validate {S_val.shape[0]}; "
          f"median of {args.repeats}, one BLAS thread")
    print("| method | grid points | per-point fits (s) | fold evaluator (s) | speed-up "
          "| differing predictions |")
    print("|---|---|---|---|---|---|")
    with threadpool_limits(1), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name in args.methods:
            method = get_method(name, args.dataset)
            grid = method.grid("chen2009", S_fit.shape[0])

            def baseline(method=method, grid=grid):
                return [method.build(**p).fit(S_fit, y_fit).predict(S_val) for p in grid]

            def ours(method=method, grid=grid):
                return method.evaluate_grid(S_fit, y_fit, S_val, grid)

            t, out = timed_alternating({"base": baseline, "ours": ours}, args.repeats)
            t_base, ref, t_ours, got = t["base"], out["base"], t["ours"], out["ours"]
            differ = sum(not np.array_equal(a, b) for a, b in zip(ref, got, strict=True))
            print(f"| {name} | {len(grid)} | {t_base:.2f} | {t_ours:.2f} | "
                  f"{t_base / t_ours:.1f}x | {differ} |")


if __name__ == "__main__":
    main()
