"""Protocols and scores of the "beyond the papers" sections: R^2 of regressors and ROC
AUC of one-class models over random partitions, their rows and their table.

* Regression (``beyond-regression``): ``n_splits`` random 70/30 partitions
  (``ShuffleSplit``, seeded); a method is fitted on the training rows and columns and
  predicts the test rows from their similarities to the training samples; the score
  of a partition is the test R^2.
* One-class (``beyond-novelty``, the protocol of benchmarks/bench_novelty.py): each
  class in turn is the inlier class. A partition holds out 30% of the samples
  (stratified by class); the detector is fitted on the inliers of the other 70% only
  and scores all held-out samples (held-out inliers positive, every other class
  negative); the partition's ROC AUC is the mean over the inlier classes.
* Rows and significance as in the other sections (:func:`proxlearn.study.summary_rows`):
  mean and std over the partitions; bold marks the best method and those not
  significantly worse by a one-sided Wilcoxon signed-rank test at 5% on the paired
  partitions (:func:`proxlearn.study.not_worse_than_best`, here on ``-score``: higher
  is better). The tables print mean +- standard error (std / sqrt(R)).
"""

from __future__ import annotations

import warnings

import numpy as np

__all__ = ["one_class_aucs", "pivot_table", "regression_partitions", "regression_r2",
           "run_cells", "score_rows"]

#: Test fraction of both protocols (as benchmarks/bench_regression.py and bench_novelty.py).
TEST_SIZE = 0.3


def regression_partitions(n, n_splits=5, seed=0):
    """``[(train, test), ...]``: ``n_splits`` seeded random 70/30 partitions of ``n`` rows."""
    from sklearn.model_selection import ShuffleSplit

    return [(np.sort(tr), np.sort(te)) for tr, te in
            ShuffleSplit(n_splits, test_size=TEST_SIZE, random_state=seed).split(np.zeros(n))]


def _take(S, rows, cols):
    """Rows and columns of a matrix, or of every matrix of an ``(n, n, m)`` stack."""
    return np.asarray(S)[np.ix_(rows, cols)]


def regression_r2(S, y, fit_predict, parts):
    """Test R^2 of ``fit_predict(S_train, y_train, S_test) -> y_pred`` on each partition."""
    from sklearn.metrics import r2_score

    y = np.asarray(y, dtype=float)
    out = []
    for tr, te in parts:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            pred = fit_predict(_take(S, tr, tr), y[tr], _take(S, te, tr))
        out.append(float(r2_score(y[te], pred)))
    return out


def one_class_aucs(S, y, score, n_splits=5, seed=0):
    """ROC AUC of ``score(S_inliers, S_test) -> scores`` (larger: more normal) per partition.

    Parameters
    ----------
    S : ndarray of shape (n, n) or (n, n, m)
    y : array-like of shape (n,)
        Class labels; each class in turn is the inlier class.
    score : callable
        Fitted on the training inliers' block, scores the held-out rows.
    n_splits, seed : int
        Stratified random partitions, ``TEST_SIZE`` held out.

    Returns
    -------
    list of float
        Per partition, the mean over the inlier classes of the AUC of the held-out
        inliers against every held-out sample of the other classes.
    """
    from sklearn.metrics import roc_auc_score
    from sklearn.model_selection import StratifiedShuffleSplit

    y = np.asarray(y)
    classes = np.unique(y)
    sss = StratifiedShuffleSplit(n_splits=n_splits, test_size=TEST_SIZE, random_state=seed)
    out = []
    for tr, te in sss.split(np.zeros(y.shape[0]), y):
        per = []
        for c in classes:
            fit_idx = tr[y[tr] == c]
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                s = score(_take(S, fit_idx, fit_idx), _take(S, te, fit_idx))
            per.append(roc_auc_score((y[te] == c).astype(int), s))
        out.append(float(np.mean(per)))
    return out


def score_rows(results, metric, n_splits):
    """Rows of ``{dataset: {method: [score per partition]}}`` (higher is better), in the
    shape of :func:`proxlearn.study.summary_rows` (``dataset``, ``method``, ``metric``,
    ``n_partitions``, ``mean``, ``std``, ``best``, ``partial``; no paper columns)."""
    from ..._report import not_worse_than_best

    rows = []
    for ds, by_method in results.items():
        vals = {m: np.asarray(v, dtype=float) for m, v in by_method.items() if v}
        common = min((v.size for v in vals.values()), default=0)
        bold = not_worse_than_best({m: -v[:common] for m, v in vals.items()}) if common else set()
        for m, v in vals.items():
            rows.append({"dataset": ds, "method": m, "metric": metric, "n_partitions": int(v.size),
                         "mean": float(v.mean()),
                         "std": float(v.std(ddof=1)) if v.size > 1 else 0.0,
                         "best": m in bold, "paper": None, "agrees": None,
                         "partial": v.size != n_splits})
    return rows


def pivot_table(rows, methods, digits=2, scale=1.0):
    """Markdown lines: one row per data set, one column per method, ``mean +- s.e.``
    (``scale`` times the stored values), bold where ``row["best"]``; a last row counts
    each method's bold cells."""
    datasets = list(dict.fromkeys(r["dataset"] for r in rows))
    methods = [m for m in methods if any(r["method"] == m for r in rows)]
    cell = {(r["dataset"], r["method"]): r for r in rows}
    lines = ["| data set | " + " | ".join(methods) + " |", "|---|" + "---|" * len(methods)]
    wins = dict.fromkeys(methods, 0)
    for ds in datasets:
        out = []
        for m in methods:
            r = cell.get((ds, m))
            if r is None:
                out.append("")
                continue
            se = r["std"] / np.sqrt(r["n_partitions"]) if r["n_partitions"] else 0.0
            text = f"{scale * r['mean']:.{digits}f} +- {scale * se:.{digits}f}"
            if r.get("partial"):
                text += f" [R={r['n_partitions']}]"
            wins[m] += bool(r["best"])
            out.append(f"**{text}**" if r["best"] else text)
        lines.append(f"| {ds} | " + " | ".join(out) + " |")
    lines.append("| best or not significantly worse (of "
                 + f"{len(datasets)}) | " + " | ".join(str(wins[m]) for m in methods) + " |")
    return lines


def run_cells(sec, cells, metric, n_splits, seed, cache_dir, progress):
    """The section result of ``cells`` = ``[(dataset, method, data, compute), ...]``:
    ``compute()`` returns the per-partition scores; each (dataset, method) is cached
    under the section key, the data, the partitions' number and seed, and the hashes of
    ``sec.modules`` (:func:`proxlearn.study._section._cached`)."""
    import time

    from ..._runner import _fingerprint
    from ..._section import _cached

    results, seconds, cached = {}, 0.0, 0
    start = time.perf_counter()
    for k, (ds, m, data, compute) in enumerate(cells):
        key = [sec.key, ds, m, _fingerprint(*(np.asarray(a) for a in data)), n_splits, seed]
        values, secs, hit = _cached(cache_dir, f"{sec.key}-{ds}-{m}", key, compute, sec.modules)
        seconds += secs
        cached += hit
        results.setdefault(ds, {})[m] = values
        if progress is not None:
            progress(k + 1, len(cells))
    return {"protocol": sec.protocol, "n_splits": n_splits, "not_registered": [],
            "missing_data": [], "rows": score_rows(results, metric, n_splits),
            "results": {d: {m: {"values": v} for m, v in by.items()} for d, by in results.items()},
            "seconds": time.perf_counter() - start, "compute_seconds": seconds,
            "cells": len(cells), "cached_cells": cached}
