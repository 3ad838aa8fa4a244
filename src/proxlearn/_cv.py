"""Cross-validated estimators that walk a grid with shared work.

The machinery shared by the ``*CV`` estimators of kernel learning
(:class:`~proxlearn.kernel_learning.ESKLCV`, ``EMKLCV``, ``REKLCV``,
:class:`~proxlearn.cluster.SimpleNPKLCV`; product grids), in the style of
scikit-learn's ``RidgeCV`` / ``LogisticRegressionCV``. Its history and its
relation to ``proxlearn.mkl._cv``: docs/methods.md, "Foundations reference
notes: the shared inner cross-validation".

* :func:`check_grid`: a grid of positive numbers, sorted, or a clear error;
* :func:`grid_walk`: the points of a product grid in an order where consecutive
  points differ in one coordinate by one step (a "snake"), so that each fit can
  start from the previous one's solution;
* :func:`cv_folds`: scikit-learn's ``check_cv`` (stratified folds for an int);
* :func:`score_folds`: the per-fold walk, one call per fold (optionally in
  parallel with joblib; the walk inside a fold is sequential, it is what shares
  the work);
* :func:`choose_k_by_cv`: the neighbourhood size of the local classifiers
  (k-NN, SVM-KNN, local SDA: ``n_neighbors="auto"``) by an inner cross-validation;
* :func:`internal_folds` and :func:`internal_cv_argmin`: the internal
  cross-validation of the ``"auto"`` parameters of single estimators
  (``KreinSVR(C="auto")``, ``KreinLeastSquares(radius="auto")``,
  ``SimilaritySVR(C="auto")``): 5 shuffled folds fixed by ``n``, the grid value
  with the least validation squared error;
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

from ._graph import top_k_similar
from .exceptions import AsymmetricSimilarityWarning, DissimilarityWarning, InvalidParameterError

#: The warnings an input check issues (``fit`` of a ``*CV`` estimator issues them
#: once, not again in the refit).
INPUT_WARNINGS = (AsymmetricSimilarityWarning, DissimilarityWarning)

__all__ = ["INPUT_WARNINGS", "check_grid", "grid_walk", "cv_folds", "score_folds", "cv_results",
           "GridCVMixin", "RefittedClassifierMixin", "choose_k_by_cv", "AUTO_FOLDS",
           "internal_folds", "internal_cv_argmin"]

#: Folds of the internal cross-validation of the ``"auto"`` parameters.
AUTO_FOLDS = 5


def check_grid(values, name):
    """``values`` as a sorted 1-D float array of distinct positive finite numbers.

    Parameters
    ----------
    values : array-like
        The grid of one parameter.
    name : str
        The parameter's name, for the error message.

    Returns
    -------
    ndarray of shape (n_values,)

    Raises
    ------
    InvalidParameterError
        For an empty grid or a value that is not positive and finite.

    See Also
    --------
    grid_walk : The product grid of several checked axes.

    Examples
    --------
    >>> from proxlearn._cv import check_grid
    >>> check_grid([10, 0.1, 1, 1], "C").tolist()
    [0.1, 1.0, 10.0]
    """
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
    one coordinate by one step (so that a fit can warm-start from the previous).

    Parameters
    ----------
    **axes : ndarray
        Parameter name -> sorted values (see :func:`check_grid`).

    Returns
    -------
    list of dict

    See Also
    --------
    cv_results : The results of the walk, in grid order.

    Examples
    --------
    >>> from proxlearn._cv import grid_walk
    >>> [(p["C"], p["gamma"]) for p in grid_walk(C=[1.0, 10.0], gamma=[0.1, 1.0])]
    [(1.0, 0.1), (1.0, 1.0), (10.0, 1.0), (10.0, 0.1)]
    """
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
    """``[(train, test), ...]`` of scikit-learn's ``check_cv(cv, y, classifier)``.

    Parameters
    ----------
    cv : int, cross-validation generator or iterable
        As scikit-learn's ``cv`` (an int gives stratified folds for a classifier).
    y : array-like of shape (n_samples,)
    X : array-like, optional
        Passed to the splitter (a placeholder of ``n_samples`` rows by default).
    classifier : bool, default=True

    Returns
    -------
    list of (ndarray, ndarray)

    See Also
    --------
    score_folds : Scores a walk on each fold.

    Examples
    --------
    >>> from proxlearn._cv import cv_folds
    >>> [test.tolist() for train, test in cv_folds(3, [0, 0, 0, 1, 1, 1])]
    [[0, 3], [1, 4], [2, 5]]
    """
    from sklearn.model_selection import check_cv

    y = np.asarray(y)
    data = np.zeros((len(y), 1)) if X is None else X
    return list(check_cv(cv, y, classifier=classifier).split(data, y))


def internal_folds(n, random_state=0):
    """The internal folds of the ``"auto"`` parameters: ``AUTO_FOLDS`` shuffled folds
    (fewer for ``n < 5``), the same for every call with the same ``n``.

    Examples
    --------
    >>> from proxlearn._cv import internal_folds
    >>> [len(val) for _, val in internal_folds(12)]
    [3, 3, 2, 2, 2]

    See Also
    --------
    internal_cv_argmin : the choice made on them.
    """
    from sklearn.model_selection import KFold

    return list(KFold(min(AUTO_FOLDS, n), shuffle=True,
                      random_state=random_state).split(np.zeros(n)))


def internal_cv_argmin(target, fold_predictions, random_state=0, sample_weight=None):
    """Index of the grid value with the least validation squared error over
    :func:`internal_folds` (the first among equal errors).

    Parameters
    ----------
    target : ndarray of shape (n,) or (n, q)
        The fitted targets (``q`` columns are chosen for independently).
    fold_predictions : callable
        ``fold_predictions(train, val)`` returns, for each grid value in order, the
        predictions of the held-out samples ``val`` by the model trained on
        ``train`` (what the estimator shares along the grid, e.g. one
        decomposition per fold, is its own).
    random_state : int, default=0
    sample_weight : ndarray of shape (n,), optional
        Weights of the validation errors (the estimator fits its folds with the
        training part's weights): the weighted squared error ``sum_i w_i (pred_i -
        y_i)^2``.

    Returns
    -------
    int or ndarray of shape (q,)

    Examples
    --------
    >>> import numpy as np
    >>> from proxlearn._cv import internal_cv_argmin
    >>> y = np.arange(10.0)
    >>> # grid: predict 0, the training mean, or the training mean + 1
    >>> def preds(tr, val):
    ...     return [np.zeros(len(val)), np.full(len(val), y[tr].mean()),
    ...             np.full(len(val), y[tr].mean() + 1)]
    >>> int(internal_cv_argmin(y, preds))
    1

    See Also
    --------
    internal_folds : the folds.
    """
    err = 0.0
    for tr, val in internal_folds(target.shape[0], random_state):
        w = 1.0 if sample_weight is None else (
            sample_weight[val] if target.ndim == 1 else sample_weight[val, None])
        err = err + np.array([np.sum(w * (pred - target[val]) ** 2, axis=0)
                              for pred in fold_predictions(tr, val)])
    return np.argmin(err, axis=0)


def score_folds(fold_scores, folds, n_jobs=None):
    """``(n_points, n_folds)`` scores: ``fold_scores(train, test)`` returns one fold's
    scores along the walk; folds run in parallel with ``n_jobs`` (joblib).

    Parameters
    ----------
    fold_scores : callable
        ``fold_scores(train, test) -> scores``, one score per point of the walk.
    folds : list of (ndarray, ndarray)
    n_jobs : int, optional
        joblib workers (``None`` or 1: sequential).

    Returns
    -------
    ndarray of shape (n_points, n_folds)

    See Also
    --------
    cv_results : Turns the scores into ``cv_results_``.

    Examples
    --------
    >>> from proxlearn._cv import cv_folds, score_folds
    >>> folds = cv_folds(3, [0, 0, 0, 1, 1, 1])
    >>> score_folds(lambda train, test: [len(test), 2 * len(test)], folds).tolist()
    [[2.0, 2.0, 2.0], [4.0, 4.0, 4.0]]
    """
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
    mean go to the first row, i.e. the smallest parameters.

    Parameters
    ----------
    points : list of dict
        The walked points (:func:`grid_walk`).
    scores : array-like of shape (n_points, n_folds)

    Returns
    -------
    cv_results_ : dict
        ``params``, ``param_<name>``, ``split<k>_test_score``,
        ``mean_test_score``, ``std_test_score``, ``rank_test_score``.
    best_index : int

    See Also
    --------
    GridCVMixin : Stores them as fitted attributes.

    Examples
    --------
    >>> from proxlearn._cv import cv_results
    >>> res, best = cv_results([{"C": 10.0}, {"C": 1.0}], [[0.5, 0.7], [0.9, 0.9]])
    >>> res["params"], res["rank_test_score"].tolist(), best
    ([{'C': 1.0}, {'C': 10.0}], [1, 2], 0)
    """
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

    See Also
    --------
    RefittedClassifierMixin : ``predict`` of the refitted estimator.
    proxlearn.kernel_learning.ESKLCV : An estimator built on it.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.base import BaseEstimator
    >>> from sklearn.neighbors import KNeighborsClassifier
    >>> from proxlearn._cv import GridCVMixin, RefittedClassifierMixin, cv_folds, grid_walk
    >>> class KNNCV(RefittedClassifierMixin, GridCVMixin, BaseEstimator):
    ...     def _base(self, n_neighbors):
    ...         return KNeighborsClassifier(n_neighbors=int(n_neighbors))
    ...     def _walk(self, X, y, train, test, points):
    ...         return [self._base(**p).fit(X[train], y[train]).score(X[test], y[test])
    ...                 for p in points]
    ...     def fit(self, X, y):
    ...         return self._search(X, y, grid_walk(n_neighbors=[1.0, 3.0]), cv_folds(2, y), (X, y))
    >>> X, y = np.arange(8.0).reshape(-1, 1), np.array([0, 0, 0, 0, 1, 1, 1, 1])
    >>> model = KNNCV().fit(X, y)
    >>> model.best_params_, model.predict([[0.5], [6.5]]).tolist()
    ({'n_neighbors': 1.0}, [0, 1])
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
    """``predict`` / ``decision_function`` of ``best_estimator_`` (a ``*CV`` classifier).

    See Also
    --------
    GridCVMixin : Sets ``best_estimator_``.

    Examples
    --------
    >>> from sklearn.base import BaseEstimator
    >>> from sklearn.dummy import DummyClassifier
    >>> from proxlearn._cv import RefittedClassifierMixin
    >>> class Refitted(RefittedClassifierMixin, BaseEstimator):
    ...     def fit(self, X, y):
    ...         self.best_estimator_ = DummyClassifier().fit(X, y)
    ...         return self
    >>> Refitted().fit([[0], [1], [2]], [1, 1, 0]).predict([[5]]).tolist()
    [1]
    """

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


#: Neighbourhood sizes tried by ``n_neighbors="auto"`` of the local classifiers
#: (Chen et al. 2009's grid 1..16, 32, 64, 128 thinned to powers of two), plus
#: the whole training fold ("all").
AUTO_K_GRID = (1, 2, 4, 8, 16, 32, 64, 128)
#: Folds of the inner cross-validation of ``n_neighbors="auto"``.
AUTO_CV = 3


def choose_k_by_cv(S, y_idx, fold_predictor, *, fallback=10):
    """Neighbourhood size of a local classifier by inner cross-validation.

    A stratified ``AUTO_CV``-fold split of the training set (no shuffling, so
    deterministic); for each fold one neighbour search of the held-out rows
    among the fold's training rows, then every k of ``AUTO_K_GRID`` below the
    fold's size and "all" (the whole fold) is scored by accuracy.

    Parameters
    ----------
    S : ndarray of shape (n, n)
        The (symmetrised) training similarities.
    y_idx : ndarray of shape (n,)
        Class indices.
    fold_predictor : callable
        ``fold_predictor(tr)`` returns ``predict(nbrs, sims)``: class indices of
        the held-out rows from their neighbour lists among ``tr`` (positions
        into ``tr``, most similar first) and similarities.
    fallback : int
        Returned (capped at ``n``) when a class has a single sample, so that no
        stratified split exists.

    Returns
    -------
    k : int
        The k with the best mean accuracy (ties: the larger k); "all" maps to ``n``.
    scores : dict or None
        Mean accuracy per k tried (key ``"all"`` for the whole fold).

    Examples
    --------
    >>> import numpy as np
    >>> from proxlearn._cv import choose_k_by_cv
    >>> y = np.repeat([0, 1], 6)
    >>> S = np.where(y[:, None] == y[None, :], 1.0, 0.0) + 0.01 * np.eye(12)
    >>> def majority(tr):  # vote of the neighbours' labels among the fold's rows ``tr``
    ...     return lambda nbrs, sims: (y[tr][nbrs].mean(axis=1) > 0.5).astype(int)
    >>> k, scores = choose_k_by_cv(S, y, majority)
    >>> k, scores[1]
    (4, 1.0)

    See Also
    --------
    proxlearn.neighbors.SimilarityKNeighborsClassifier : ``n_neighbors="auto"``.
    proxlearn.discriminant.LocalSDA : the same choice for local SDA.
    """
    from sklearn.model_selection import StratifiedKFold

    n = len(y_idx)
    n_splits = min(AUTO_CV, int(np.bincount(y_idx).min()))
    if n_splits < 2:
        return min(fallback, n), None
    keys = [k for k in AUTO_K_GRID if k < n - n // n_splits] + ["all"]
    hits = dict.fromkeys(keys, 0)
    for tr, te in StratifiedKFold(n_splits).split(np.zeros(n), y_idx):
        predict = fold_predictor(tr)
        nbrs, sims = top_k_similar(S[np.ix_(te, tr)], len(tr))
        for key in keys:
            k = len(tr) if key == "all" else key
            hits[key] += int(np.sum(predict(nbrs[:, :k], sims[:, :k]) == y_idx[te]))
    scores = {key: hits[key] / n for key in keys}
    best = max(scores.values())
    key = [kk for kk in keys if scores[kk] == best][-1]
    return (n if key == "all" else key), scores
