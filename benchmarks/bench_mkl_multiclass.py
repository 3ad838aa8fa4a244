"""Multiclass MKL: one kernel-weight vector shared by all one-vs-one pairs
(``multiclass="shared"``) against each pair its own weights (``"per-pair"``), for
:class:`~proxlearn.mkl.SimpleMKL` and :class:`~proxlearn.mkl.LpMKL` (``p = 2``) at
their defaults (``C = 1``, ``tol = 1e-4``; ``--C`` for another).

Data: the multiclass similarity stacks (``digits-multi``: 400 x 400 x 3, 10
classes; ``protein-multi``: 213 x 213 x 2, 4 classes; clipped and scaled by the
estimators' defaults) and UCI multiclass feature sets with the base-kernel bank
(``KernelBank()`` defaults: iris 4 features, wine 13, glass 9 (6 classes),
soybean-small 35 (4 classes)).

Protocol: ``--splits`` stratified random 70/30 splits (seeds 0..); on each split the
two options are fitted in alternation (the order swapped every split, so neither
always runs first), fit time as process CPU seconds (one BLAS thread); accuracy
on the test part, mean +- standard error over the splits, the mean paired
difference (shared - per-pair) with its standard error, fit time median.

    python benchmarks/bench_mkl_multiclass.py [--splits 5] [--sets ...] [--C 1 | --cv] [--out table.md]
"""

from __future__ import annotations

import _bench_env  # noqa: F401  (one thread, this tree's src first)

import argparse
import os
import time
import warnings
from pathlib import Path

import numpy as np
from sklearn.base import clone
from sklearn.datasets import load_iris, load_wine
from sklearn.model_selection import StratifiedShuffleSplit

from proxlearn.datasets import load_dataset
from proxlearn.mkl import KernelBank, LpMKL, MKLClassifierCV, SimpleMKL

DATA = [Path(__file__).resolve().parents[1].parent / "shared" / "data" / "uci",
        Path("/work/shared/data/uci")]
STACKS = ("digits-multi", "protein-multi")
FEATURES = ("iris", "wine", "glass", "soybean-small")


def _file(name):
    for d in DATA:
        if (d / name).is_file():
            return d / name
    raise SystemExit(f"{name} not found in {DATA} (../shared/data/uci)")


def load(name):
    """``(X, y, is_stack)``."""
    if name in STACKS:
        ds = load_dataset(name)
        return ds.matrix, ds.labels, True
    if name == "iris":
        return (*load_iris(return_X_y=True), False)
    if name == "wine":
        return (*load_wine(return_X_y=True), False)
    if name == "glass":
        A = np.loadtxt(_file("glass.data"), delimiter=",")
        return A[:, 1:10], A[:, 10].astype(int), False
    if name == "soybean-small":
        rows = [line.strip().split(",") for line in _file("soybean-small.data").read_text()
                .splitlines()[1:] if line.strip()]
        X = np.array([[float(v) for v in r[:-1]] for r in rows])
        X = X[:, X.std(axis=0) > 0]  # constant columns carry nothing (and z-score to NaN)
        return X, np.array([r[-1] for r in rows]), False
    raise ValueError(name)


def methods(C, cv=False):
    """The two estimators at ``C``; with ``cv``, inside ``MKLClassifierCV`` (``C``
    from its default grid by 5-fold cross-validation, each fold with the option)."""
    if cv:
        return {"SimpleMKL": MKLClassifierCV(SimpleMKL()), "LpMKL": MKLClassifierCV(LpMKL())}
    return {"SimpleMKL": SimpleMKL(C=C), "LpMKL": LpMKL(C=C)}


def run(name, splits, C, cv=False):
    X, y, stack = load(name)
    sss = StratifiedShuffleSplit(n_splits=splits, test_size=0.3, random_state=0)
    rows = {}
    for s, (tr, te) in enumerate(sss.split(np.zeros(len(y)), y)):
        if stack:
            Xtr, Xte = X[np.ix_(tr, tr)], X[np.ix_(te, tr)]
        else:
            Xtr, Xte = X[tr], X[te]
        for mname, base in methods(C, cv).items():
            prefix = "estimator__" if cv else ""
            if not stack:
                base = base.set_params(**{prefix + "bank": KernelBank()})
            order = ("per-pair", "shared") if s % 2 == 0 else ("shared", "per-pair")
            for opt in order:
                est = clone(base).set_params(**{prefix + "multiclass": opt})
                with warnings.catch_warnings(record=True) as caught:
                    warnings.simplefilter("always")
                    t = time.process_time()
                    est.fit(Xtr, y[tr])
                    t = time.process_time() - t
                acc = float(np.mean(est.predict(Xte) == y[te]))
                nz = np.count_nonzero(np.atleast_2d(est.weights_) > 1e-6, axis=1)
                r = rows.setdefault((mname, opt), {"acc": [], "time": [], "warn": 0, "nz": []})
                r["acc"].append(acc)
                r["time"].append(t)
                r["nz"].append(float(np.mean(nz)))
                r["warn"] += sum("ConvergenceWarning" in type(w.message).__name__ or
                                 "Convergence" in str(w.category) for w in caught)
    return X, y, rows


def _se(v):
    v = np.asarray(v, float)
    return v.std(ddof=1) / np.sqrt(v.size) if v.size > 1 else 0.0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--splits", type=int, default=5)
    ap.add_argument("--sets", nargs="+", default=list(STACKS + FEATURES))
    ap.add_argument("--C", type=float, default=1.0)
    ap.add_argument("--cv", action="store_true",
                    help="C chosen by MKLClassifierCV (its default grid, 5 folds)")
    ap.add_argument("--out")
    args = ap.parse_args()
    setting = "C by MKLClassifierCV" if args.cv else f"C = {args.C:g}"
    lines = [f"{setting}, {args.splits} stratified 70/30 splits; load average "
             f"{os.getloadavg()[0]:.1f} at the start", "",
             "| data | n | classes | method | per-pair acc | shared acc | shared - per-pair "
             "| per-pair fit (s) | shared fit (s) | nonzero weights per-pair / shared "
             "| warnings per-pair / shared |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    for name in args.sets:
        X, y, rows = run(name, args.splits, args.C, args.cv)
        for mname in ("SimpleMKL", "LpMKL"):
            a, b = rows[(mname, "per-pair")], rows[(mname, "shared")]
            diff = np.array(b["acc"]) - np.array(a["acc"])
            lines.append(
                f"| {name} | {len(y)} | {len(np.unique(y))} | {mname} "
                f"| {np.mean(a['acc']):.3f} +- {_se(a['acc']):.3f} "
                f"| {np.mean(b['acc']):.3f} +- {_se(b['acc']):.3f} "
                f"| {diff.mean():+.3f} +- {_se(diff):.3f} "
                f"| {np.median(a['time']):.2f} | {np.median(b['time']):.2f} "
                f"| {np.mean(a['nz']):.1f} / {np.mean(b['nz']):.1f} "
                f"| {a['warn']} / {b['warn']} |")
        print(lines[-2], lines[-1], sep="\n", flush=True)
    lines.append("")
    lines.append(f"load average {os.getloadavg()[0]:.1f} at the end")
    text = "\n".join(lines)
    print(text)
    if args.out:
        Path(args.out).write_text(text + "\n")


if __name__ == "__main__":
    main()
