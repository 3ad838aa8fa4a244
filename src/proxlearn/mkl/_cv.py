"""``C`` by cross-validation for the MKL classifiers, sharing each fold's kernels.

==========================  =================================================
:class:`MKLClassifierCV`    any MKL classifier of :mod:`proxlearn.mkl`
                            (:class:`SimpleMKL`, :class:`AverageKernelSVC`,
                            :class:`NonSparseMKL`, :class:`LpMKL`,
                            :class:`KTASVC`, :class:`TwoLayerMKL`) with ``C``
                            chosen on a grid, then refitted
:func:`grid_scores`         the shared fold loop (also :class:`TwoLayerMKLCV`'s)
==========================  =================================================

A ``GridSearchCV`` over ``C`` rebuilds the base kernels (a :class:`KernelBank`'s
``13 (d + 1)`` kernels, or the spectrum transform of every similarity) for every
``(C, fold)``; here they are built once per fold and every ``C`` of the grid is
fitted on them, with the validation rows' kernels also built once. Zhuang (2011)
section 4.5.1 chooses ``C`` by 5-fold CV over ``{0.01, ..., 100}`` for every
method of Tables 4.x-5.x; the default grid is hers. Why the classifiers need it
on a bank, and what it costs against ``GridSearchCV``: docs/methods.md and
docs/benchmarks.md (the sections "MKL classifiers at their defaults").
"""

from __future__ import annotations

import warnings

import numpy as np
import scipy.sparse
from sklearn.base import BaseEstimator, ClassifierMixin, clone

from .._cv import RefittedClassifierMixin, cv_folds, cv_results, score_folds
from .._cv import check_grid as _check_grid
from .._multi_input import check_multi_similarity
from .._validation import (
    InvalidParameterError,
    check_features,
    check_labels,
    unchecked,
    validate_params,
)
from ..base import PairwiseMixin

__all__ = ["MKLClassifierCV", "NONSPARSE_CS", "ZHUANG_CS", "default_grid", "fit_grid",
           "grid_scores"]

#: The thesis's C grid (section 4.5.1: 5-fold CV over {0.01, ..., 100}).
ZHUANG_CS = (0.01, 0.1, 1.0, 10.0, 100.0)
#: :class:`NonSparseMKL`'s default grid, ``10^-5 ... 10^2``: eq. 10's ``C`` acts on
#: ``sum_k K_k / gamma_k`` (``m^2`` times the average kernel at uniform ``gamma``), and
#: the best ``C`` on a KernelBank ranged from ``1e-5`` (heart) to ``1e-2`` (sonar).
NONSPARSE_CS = tuple(10.0 ** k for k in range(-5, 3))


def default_grid(estimator):
    """The grid ``Cs=None`` means for ``estimator``."""
    from ._classifiers import NonSparseMKL
    return NONSPARSE_CS if isinstance(estimator, NonSparseMKL) else ZHUANG_CS


def checked_input(X, y, pairwise):
    """``X`` validated as the fit will (a stack, or features) and ``y`` as an array,
    before any fold (the refit on all the data then warns, once, if at all)."""
    if pairwise:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            Xa = check_multi_similarity(X, symmetric="symmetrize")
    else:
        Xa = X if scipy.sparse.issparse(X) else check_features(X)
    check_labels(y, Xa.shape[0], rows_of="the similarity stack" if pairwise else "X")
    return Xa, np.asarray(y)


def grid_scores(make, Cs, Xa, y, train, test, pairwise, warm_start=None):
    """Validation accuracy of ``make(C)`` for every ``C`` of ``Cs`` on one fold.

    Parameters
    ----------
    make : callable
        ``C -> estimator``: an unfitted MKL classifier of this package.
    Cs : ndarray of shape (n_Cs,)
        Increasing.
    Xa : ndarray
        The validated stack ``(n, n, m)`` (``pairwise``) or features.
    y : ndarray of shape (n,)
    train, test : ndarray
        The fold's row indices.
    pairwise : bool
    warm_start : callable or None
        ``(est, previous) -> None``: set a start on ``est`` from the fitted
        estimator of the previous ``C`` of the fold (``None`` for the first).

    Returns
    -------
    scores : ndarray of shape (n_Cs,)
    """
    first = make(Cs[0])
    validate_params(first)
    if pairwise:
        X_tr, X_te = Xa[np.ix_(train, train)], Xa[np.ix_(test, train)]
    else:
        X_tr, X_te = Xa[train], Xa[test]
    # the bank (or the spectra and scales) once per fold; a fold of the validated
    # stack is valid (symmetric, finite): not validated again
    Ks = first._checked_kernels(X_tr) if pairwise else first._kernels(X_tr)
    shared = {k: v for k, v in vars(first).items()
              if k in ("spectra_", "scales_", "_kernel_div", "bank_")}
    scores, T, previous = np.zeros(len(Cs)), None, None
    for i, C in enumerate(Cs):
        est = make(C)
        if warm_start is not None:
            warm_start(est, previous)
        validate_params(est)
        est.__dict__.update(shared)
        est._fit_stack(Ks, y[train])
        if T is None:  # the validation rows' kernels, once per fold
            T = est._checked_test_kernels(X_te) if pairwise else est._test_kernels(X_te)
        scores[i] = np.mean(est._labels(est._raw_stack(T)) == y[test])
        previous = est
    return scores


def fit_grid(cv_est, make, Cs, X, y, pairwise, warm_start=None):
    """The fit of a ``*CV`` estimator ``cv_est``: :func:`grid_scores` on the folds of
    ``cv_est.cv``, then ``make(best C)`` refitted on ``(X, y)``; sets ``Cs_``,
    ``cv_scores_``, ``best_C_``, ``best_params_``, ``best_score_``,
    ``best_estimator_`` and the latter's ``classes_``, ``n_features_in_``, ``weights_``."""
    Cs = _check_grid(Cs, "Cs")
    validate_params(make(Cs[0]))
    Xa, y = checked_input(X, y, pairwise)
    folds = cv_folds(cv_est.cv, y)
    with warnings.catch_warnings():  # the refit on all the data warns once, if at all
        warnings.simplefilter("ignore")
        scores = score_folds(lambda tr, te: grid_scores(make, Cs, Xa, y, tr, te, pairwise,
                                                        warm_start=warm_start), folds)
    # the same cv_results_ / best_index_ as every *CV estimator (proxlearn._cv)
    cv_est.cv_results_, best = cv_results([{"C": float(C)} for C in Cs], scores)
    cv_est.best_index_ = best
    cv_est.n_splits_ = len(folds)
    cv_est.Cs_ = Cs
    cv_est.cv_scores_ = scores
    cv_est.best_C_ = float(Cs[best])
    cv_est.best_params_ = {"C": cv_est.best_C_}
    cv_est.best_score_ = float(cv_est.cv_results_["mean_test_score"][best])
    cv_est.best_estimator_ = make(cv_est.best_C_).fit(X, y)
    for name in ("classes_", "n_features_in_", "weights_"):
        setattr(cv_est, name, getattr(cv_est.best_estimator_, name))
    return cv_est


#: ``predict`` / ``decision_function`` of ``best_estimator_`` (the shared mixin).
RefittedMixin = RefittedClassifierMixin


class MKLClassifierCV(RefittedMixin, PairwiseMixin, ClassifierMixin, BaseEstimator):
    """An MKL classifier with ``C`` chosen by cross-validation, then refitted.

    In the style of scikit-learn's ``LogisticRegressionCV``: for each fold the
    base kernels are built once (the bank fitted on the fold's training part,
    or the spectrum transform and scale of each similarity) and shared by
    every ``C`` of the grid, as are the validation rows' kernels. The ``C`` of
    the best mean validation accuracy (the smallest among ties) is refitted on
    all the data. Zhuang (2011) section 4.5.1 chooses ``C`` this way.

    Parameters
    ----------
    estimator : MKL classifier or None, default=None
        :class:`SimpleMKL`, :class:`AverageKernelSVC`, :class:`NonSparseMKL`,
        :class:`LpMKL`, :class:`KTASVC` or :class:`TwoLayerMKL`, with its other
        parameters (its ``C`` is replaced); ``None``: ``SimpleMKL()``. With a
        ``bank`` the input is features, else an ``(n, n, m)`` stack.
    Cs : sequence of float or None, default=None
        The grid. ``None``: the thesis's ``(0.01, 0.1, 1, 10, 100)``, and
        ``10^-5 ... 10^2`` (8 points) for :class:`NonSparseMKL`, whose eq. 10
        ``C`` acts on a kernel ``m^2`` times the average (docs/methods.md).
    cv : int or cross-validation splitter, default=5
        As scikit-learn's ``check_cv`` (stratified folds for an int).

    Attributes
    ----------
    best_C_ : float
    best_params_ : dict
        ``{"C": best_C_}``.
    best_score_ : float
        Mean validation accuracy at ``best_C_``.
    Cs_ : ndarray
        The grid, sorted.
    cv_scores_ : ndarray of shape (len(Cs), n_folds)
        Validation accuracy per ``C`` and fold.
    cv_results_ : dict
        As ``GridSearchCV``'s (``params``, ``param_C``, ``split<k>_test_score``,
        ``mean_test_score``, ``std_test_score``, ``rank_test_score``).
    best_index_, n_splits_ : int
    best_estimator_ : estimator
        Refitted on all the data with ``best_C_``.
    classes_, n_features_in_, weights_ : those of ``best_estimator_``.

    See Also
    --------
    TwoLayerMKLCV : the same for :class:`TwoLayerMKL`, with warm starts.

    Examples
    --------
    >>> from sklearn.datasets import make_classification
    >>> from proxlearn.mkl import AverageKernelSVC, KernelBank, MKLClassifierCV
    >>> X, y = make_classification(60, 4, random_state=0)
    >>> clf = MKLClassifierCV(AverageKernelSVC(bank=KernelBank(per_feature=False)),
    ...                       Cs=[0.1, 10.0], cv=3)
    >>> clf.fit(X, y).best_C_ in (0.1, 10.0)
    True
    """

    _parameter_constraints = {
        "estimator": unchecked("an MKL classifier with a C, checked in fit"),
        "Cs": unchecked("a grid, checked by check_grid"),
        "cv": unchecked("folds, checked by cv_folds"),
    }

    def __init__(self, estimator=None, *, Cs=None, cv=5):
        self.estimator = estimator
        self.Cs = Cs
        self.cv = cv

    def _base(self):
        if self.estimator is None:
            from ._classifiers import SimpleMKL
            return SimpleMKL()
        return self.estimator

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        bank = getattr(self._base(), "bank", None)
        tags.input_tags.pairwise = bank is None
        tags.input_tags.sparse = bank is not None
        return tags

    def _make(self, C):
        return clone(self._base()).set_params(C=C)

    def fit(self, X, y):
        """Choose ``C`` on the folds, then refit on ``(X, y)``."""
        from ._classifiers import _BaseMKL

        base = self._base()
        if not isinstance(base, _BaseMKL) or "C" not in base.get_params():
            raise InvalidParameterError(
                f"estimator must be an MKL classifier of proxlearn.mkl with a C (SimpleMKL, "
                f"AverageKernelSVC, NonSparseMKL, LpMKL, KTASVC, TwoLayerMKL), got {base!r}; "
                "for other estimators use sklearn.model_selection.GridSearchCV.")
        Cs = default_grid(base) if self.Cs is None else self.Cs
        return fit_grid(self, self._make, Cs, X, y, getattr(base, "bank", None) is None)
