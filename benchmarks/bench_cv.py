"""The cross-validated variants against GridSearchCV over the same grid and folds
(issue 40 item 4).

Kundu (``--family sim`` / ``multi``): ESKLCV, EMKLCV and REKLCV at their default grid
(``C`` in {0.1, 1, 10, 100} x ``rho`` in {0.1, 1, 10}), with ``warm_start=True``
(``warm``: each fit starts from the previous grid point) and ``warm_start=False``
(``cold``, the default: shared eigendecompositions only, GridSearchCV's scores), against
``GridSearchCV(ESKL(), same grid, cv=StratifiedKFold(5))``, on the training part of
split 0 of the defaults panel (``benchmarks/_defaults_panel.py``); CPU time of this
process (``time.process_time``: the machine is shared, wall time drifts with the load),
alternately (A B C, rotated), median of ``--repeats``; the chosen parameters and the accuracy of
the refitted estimator on the split's test part; and the fits' iterations along the two
walks (``--iters``: one extra pass, untimed).

SimpleNPKL (``--family clust``): SimpleNPKLCV (shared graph, warm-started dual) against
the same walk with every fit cold and its own graph (the cost of GridSearchCV-style
independent fits over the same constraint folds), and the Rand index of KernelKMeans
on the learned kernel: at the CV's ``C`` and at the default ``C = 1``.

Run: ``python benchmarks/bench_cv.py --family sim --sets aural_sonar,sonar-noisy``.
"""

import argparse
import sys
import time
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _timing import timed_alternating  # noqa: E402


def walk_iterations(est, S, y):
    """Total mirror-descent iterations of the fits of ``est``'s fold walks (not the refit)."""
    from proxlearn.mkl import _entropic_kernel_learning as ekl

    total = [0]
    real = ekl._Tracker.warn_if_not_converged

    def count(self, name, max_iter):
        total[0] += len(self.history)
        return real(self, name, max_iter)
    ekl._Tracker.warn_if_not_converged = count
    try:
        est.fit(S, y)
    finally:
        ekl._Tracker.warn_if_not_converged = real
    refit = est.best_estimator_.n_iter_
    return total[0] - int(np.sum(refit))


def kundu(family, sets, names, repeats, iters=False):
    import _defaults_panel as P
    from sklearn.model_selection import GridSearchCV, StratifiedKFold

    import proxlearn.mkl as mkl
    from proxlearn.mkl._entropic_kernel_learning_cv import KUNDU_CS, KUNDU_RHOS

    grid = {"C": list(KUNDU_CS), "rho": list(KUNDU_RHOS)}
    for name in sets:
        S, y, _ = P.load(family, name)
        tr, te = P.split(family, name, 0)
        S_tr = S[np.ix_(tr, tr)] if S.ndim == 2 else S[tr][:, tr]
        S_te = S[np.ix_(te, tr)] if S.ndim == 2 else S[te][:, tr]
        for est in names:
            base, cvcls = getattr(mkl, est), getattr(mkl, f"{est}CV")
            folds = StratifiedKFold(5)
            fns = {"warm": lambda: cvcls(cv=folds, warm_start=True).fit(S_tr, y[tr]),
                   "cold": lambda: cvcls(cv=folds, warm_start=False).fit(S_tr, y[tr]),
                   "grid": lambda: GridSearchCV(base(), grid, cv=folds).fit(S_tr, y[tr])}
            times, out = timed_alternating(fns, repeats, clock=time.process_time)
            row = [f"{name} (n={len(tr)}, m={S.shape[2] if S.ndim == 3 else 1})", est]
            for k in fns:
                p = out[k].best_params_
                acc = np.mean(out[k].predict(S_te) == y[te])
                row.append(f"{k} {times[k]:.2f} s C={p['C']:g} rho={p['rho']:g} "
                           f"cv {out[k].best_score_:.3f} test {acc:.3f}")
            row.append(f"ratio grid/warm {times['grid'] / times['warm']:.2f}, "
                       f"grid/cold {times['grid'] / times['cold']:.2f}")
            if iters:
                row.append("iterations warm / cold " + " / ".join(
                    str(walk_iterations(cvcls(cv=folds, warm_start=w), S_tr, y[tr]))
                    for w in (True, False)))
            print(" | ".join(row), flush=True)


def npkl(sets, repeats):
    import _defaults_panel as P
    from sklearn.preprocessing import StandardScaler

    from proxlearn._cv import cv_folds
    from proxlearn.cluster import (KernelKMeans, PairwiseConstraints, SimpleNPKL, SimpleNPKLCV,
                                   held_out_auc, make_pairwise_constraints, rand_index)
    from proxlearn.cluster._npkl_cv import NPKL_CS

    for name in sets:
        X, y, _ = P.load("clust", name)
        X = StandardScaler().fit_transform(X)
        k = len(np.unique(y))
        pc = make_pairwise_constraints(y, r=P.CONSTRAINT_R, random_state=0)

        def cold():
            scores = []
            for C in NPKL_CS:
                row = []
                for tr, te in cv_folds(5, pc.labels):
                    K = SimpleNPKL(C=C).fit_transform(
                        X, PairwiseConstraints(pc.pairs[tr], pc.labels[tr], pc.n))
                    row.append(held_out_auc(K, pc.pairs[te], pc.labels[te]))
                scores.append(np.mean(row))
            return NPKL_CS[int(np.argmax(scores))]

        # the AUC score and the plain best mean: the cold walk's choice (cost comparison)
        cv = SimpleNPKLCV(scoring="auc", n_std_errors=0.0)
        times, out = timed_alternating({"cv": lambda: cv.fit(X, pc),
                                        "cold": cold}, repeats, clock=time.process_time)

        def rand(C):
            K = SimpleNPKL(C=C).fit_transform(X, pc)
            return rand_index(y, KernelKMeans(k, random_state=0).fit_predict(K))
        best = out["cv"].best_C_
        print(f"{name} (n={len(y)}, {len(pc)} pairs) | SimpleNPKLCV {times['cv']:.2f} s "
              f"C={best:g} | cold walk {times['cold']:.2f} s C={out['cold']:g} | ratio "
              f"{times['cold'] / times['cv']:.2f} | Rand at CV's C {rand(best):.1f}, at C=1 "
              f"{rand(1.0):.1f}", flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--family", default="sim", choices=["sim", "multi", "clust"])
    ap.add_argument("--sets", default=None)
    ap.add_argument("--estimators", default="ESKL,EMKL,REKL")
    ap.add_argument("--repeats", type=int, default=1)
    ap.add_argument("--iters", action="store_true", help="count the walks' iterations")
    args = ap.parse_args()
    warnings.simplefilter("ignore")
    default = {"sim": "aural_sonar,sonar-noisy,voting,heart-noisy",
               "multi": "heart-multi3,sonar-multi3", "clust": "iris,wine,heart,sonar"}
    sets = (args.sets or default[args.family]).split(",")
    if args.family == "clust":
        npkl(sets, args.repeats)
    else:
        kundu(args.family, sets, args.estimators.split(","), args.repeats, args.iters)


if __name__ == "__main__":
    main()
