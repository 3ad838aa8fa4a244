"""Cross-validated estimators that walk a grid with shared work (issue 40, item 4).

The machinery shared by the ``*CV`` estimators of kernel learning
(:class:`~proxlearn.kernel_learning.ESKLCV`, ``EMKLCV``, ``REKLCV``,
:class:`~proxlearn.kernel_learning.SimpleNPKLCV`; product grids), in the style of
scikit-learn's ``RidgeCV`` / ``LogisticRegressionCV``. (``proxlearn.mkl._cv``, the MKL
classifiers' ``C``-only loop, was written in parallel; the two should become one, this
module being the lower layer.)

* :func:`check_grid`: a grid of positive numbers, sorted, or a clear error;
* :func:`grid_walk`: the points of a product grid in an order where consecutive
  points differ in one coordinate by one step (a "snake"), so that each fit can
  start from the previous one's solution;
* :func:`cv_folds`: scikit-learn's ``check_cv`` (stratified folds for an int);
* :func:`score_folds`: the per-fold walk, one call per fold (optionally in
  parallel with joblib; the walk inside a fold is sequential, it is what shares
  the work);
* :func:`cv_results`: the ``cv_results_`` dict with the keys of ``GridSearchCV``
  (``params``, ``param_<name>``, ``mean_test_score``, ``std_test_score``,
  ``rank_test_score``, ``split<k>_test_score``) and the best index (the first
  in the grid's sorted order among equal means: the smallest parameters).

What each estimator shares along its walk (per-fold decompositions, warm
starts) is its own; it gives :func:`score_folds` a function ``fold -> scores``.
"""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import scipy.stats

from .exceptions import AsymmetricSimilarityWarning, DissimilarityWarning, InvalidParameterError

#: The warnings an input check issues (``fit`` of a ``*CV`` estimator issues them
#: once, not again in the refit).
INPUT_WARNINGS = (AsymmetricSimilarityWarning, DissimilarityWarning)

__all__ = ["INPUT_WARNINGS", "check_grid", "grid_walk", "cv_folds", "score_folds", "cv_results",
           "GridCVMixin", "RefittedClassifierMixin"]


def check_grid(values, name):
    """``values`` as a sorted 1-D float array of distinct positive finite numbers."""
    try:
        arr = np.asarray(values, dtype=np.float64).ravel()
    except (TypeError, ValueError):
        arr = None
    if arr is None or arr.size == 0 or not np.all(np.isfinite(arr)) or np.any(arr <= 0):
        raise InvalidParameterError(
            f"{name} must be a non-empty sequence of positive numbers (the grid to "
            f"cross-validate), got {values!r}.")
    return np.unique(arr)


def grid_walk(**axes):
    """The points of the product grid ``axes`` (name -> sorted array) as dicts, in a
    snake order: the last axis runs up, then down, ...; consecutive points differ in
    one coordinate by one step (so that a fit can warm-start from the previous)."""
    names = list(axes)
    if not names:
        return [{}]
    *outer, inner = names
    points = []
    for k, head in enumerate(itertools.product(*(axes[a] for a in outer))):
        # snake every outer level by the parity of the flat index of the head
        run = axes[inner] if k % 2 == 0 else axes[inner][::-1]
        for v in run:
            points.append({**dict(zip(outer, (float(h) for h in head))), inner: float(v)})
    return points


def cv_folds(cv, y, X=None, classifier=True):
    """``[(train, test), ...]`` of scikit-learn's ``check_cv(cv, y, classifier)``."""
    from sklearn.model_selection import check_cv

    y = np.asarray(y)
    data = np.zeros((len(y), 1)) if X is None else X
    return list(check_cv(cv, y, classifier=classifier).split(data, y))


def score_folds(fold_scores, folds, n_jobs=None):
    """``(n_points, n_folds)`` scores: ``fold_scores(train, test)`` returns one fold's
    scores along the walk; folds run in parallel with ``n_jobs`` (joblib)."""
    if n_jobs is None or n_jobs == 1 or len(folds) == 1:
        cols = [fold_scores(tr, te) for tr, te in folds]
    else:
        from joblib import Parallel, delayed

        cols = Parallel(n_jobs=n_jobs)(delayed(fold_scores)(tr, te) for tr, te in folds)
    return np.column_stack([np.asarray(c, dtype=np.float64) for c in cols])


def cv_results(points, scores):
    """``(cv_results_, best_index)`` from the walked ``points`` (dicts) and their
    ``(n_points, n_folds)`` scores. Rows are sorted by the parameters (as
    ``GridSearchCV``'s ``ParameterGrid`` order for the same names); ties in the
    mean go to the first row, i.e. the smallest parameters."""
    names = sorted(points[0]) if points else []
    order = sorted(range(len(points)), key=lambda i: tuple(points[i][a] for a in names))
    params = [points[i] for i in order]
    scores = np.asarray(scores, dtype=np.float64)[order]
    mean, std = scores.mean(axis=1), scores.std(axis=1)
    # rank 1 = best (GridSearchCV's ranks); NaN scores (a failed fit) rank last
    key = np.where(np.isnan(mean), -np.inf, mean)
    best = int(np.argmax(key))
    rank = scipy.stats.rankdata(-key, method="min").astype(np.int32)  # ties share
    res = {"params": params}
    for a in names:
        res[f"param_{a}"] = np.array([p[a] for p in params])
    for k in range(scores.shape[1]):
        res[f"split{k}_test_score"] = scores[:, k]
    res.update(mean_test_score=mean, std_test_score=std, rank_test_score=rank)
    return res, best


class GridCVMixin:
    """``fit`` bookkeeping of the ``*CV`` estimators.

    A subclass implements ``_walk(data, y, train, test, points) -> scores`` (one
    fold) and ``_base(**params) -> estimator`` (the estimator at one point), and
    calls :meth:`_search` from its ``fit``; the attributes set are
    ``best_params_``, ``best_score_``, ``best_index_``, ``cv_results_``,
    ``best_estimator_`` (refitted on all the data), ``n_splits_``.
    """

    def _search(self, data, y, points, folds, refit_args, input_warnings=(), choose=None):
        """Walk every fold (warnings silenced: one per fit would repeat the grid's
        size times), then refit on ``refit_args``; the refit's warnings pass except
        ``input_warnings``, the categories about the input that ``fit`` has
        already issued once while checking it. ``choose(cv_results_) -> index``
        replaces the best mean (as ``GridSearchCV``'s callable ``refit``)."""
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            scores = score_folds(lambda tr, te: self._walk(data, y, tr, te, points), folds,
                                 getattr(self, "n_jobs", None))
        self.cv_results_, best = cv_results(points, scores)
        if choose is not None:
            best = int(choose(self.cv_results_))
        self.best_index_ = best
        self.best_params_ = dict(self.cv_results_["params"][best])
        self.best_score_ = float(self.cv_results_["mean_test_score"][best])
        self.n_splits_ = len(folds)
        with warnings.catch_warnings():
            for category in input_warnings:
                warnings.simplefilter("ignore", category)
            self.best_estimator_ = self._base(**self.best_params_).fit(*refit_args)
        return self


class RefittedClassifierMixin:
    """``predict`` / ``decision_function`` of ``best_estimator_`` (a ``*CV`` classifier)."""

    def decision_function(self, X):
        """As ``best_estimator_.decision_function``."""
        from sklearn.utils.validation import check_is_fitted

        check_is_fitted(self, "best_estimator_")
        return self.best_estimator_.decision_function(X)

    def predict(self, X):
        """As ``best_estimator_.predict``."""
        from sklearn.utils.validation import check_is_fitted

        check_is_fitted(self, "best_estimator_")
        return self.best_estimator_.predict(X)
