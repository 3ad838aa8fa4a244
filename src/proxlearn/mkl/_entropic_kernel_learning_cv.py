"""ESKL, EMKL and REKL with ``C`` and ``rho`` chosen by cross-validation.

==========  ===============================================================
estimator   walks
==========  ===============================================================
ESKLCV      :class:`ESKL` over ``Cs x rhos``
EMKLCV      :class:`EMKL` over ``Cs x rhos``
REKLCV      :class:`REKL` over ``Cs x rhos``
==========  ===============================================================

In the style of scikit-learn's ``LogisticRegressionCV``: per fold, the grid is
walked in a snake order (``C`` up for the first ``rho``, down for the next, ...;
:func:`proxlearn._cv.grid_walk`) and every fit after the first shares with the
previous one (``_KunduBase._pair_state``) the eigendecompositions that define
where the kernel lives and its test map (ESKL/EMKL: the positive basis of each
training block; REKL: the ``eigh`` of each matrix), computed once per fold and
pair of classes instead of once per grid point, and the fold's slicing and
input checks. With ``warm_start=True`` each fit also starts from the
previous point's best kernel (ESKL/EMKL: in the basis' coordinates; REKL: the
spectra's log-weights) and its MKL weights; ESKL and EMKL also continue its step
schedule (step count and Lipschitz estimate: the walk is one mirror-descent run
whose objective changes at each point), REKL restarts its steps. Every fit stops by
the same rule as a cold one (``_entropic_kernel_learning._Tracker``): a certified relative gap of
``tol`` (ESKL-L3: its exact dual bound), else two windows without progress. The
kernels then differ from cold fits' within what the rule allows, and so may the
scores and the chosen point; ``warm_start=False`` gives exactly ``GridSearchCV``'s
scores. The parameters of the best mean validation score (the smallest ``C``, then
``rho``, among ties, as ``GridSearchCV``) are refitted on all the data with a cold
start: ``best_estimator_`` is exactly the estimator at those parameters.
``warm_start="auto"`` is the default: warm for REKL, whose Lagrangian bound closes
the gap, so that a warm fit stops as soon as its start is within ``tol`` of the
optimum (its warm walks were 1.4-2.5x cheaper than cold ones on 6 of 7 panel sets,
0.78x on voting, and the defaults panel's 19 REKLCV rows kept every verdict, the
mean accuracy 0.1 points higher); cold for ESKL and EMKL. ESKL-L3 certifies too,
but its warm walk scored 3.8 points below the cold one on sonar-noisy (then worse
than the clip SVM) and 0.4 below on ionosphere-multi3 (also worse) on the panel: its fits that
stop by the stagnation fallback depend on the start. EMKL's L1 bound closes too
slowly to stop a fit, so every warm fit stops by the fallback (its warm walks ran
from 2.05x cheaper to 0.72x). ``True`` / ``False`` force either walk.
Measurements: docs/benchmarks.md ("Cross-validated variants"); the choices:
docs/methods.md.
"""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin

from .._cv import (INPUT_WARNINGS, GridCVMixin, RefittedClassifierMixin, check_grid, cv_folds,
                   grid_walk)
from .._multi_input import check_multi_similarity
from ..base import PairwiseMixin
from .._validation import InvalidParameterError, check_labels, unchecked, validate_params
from ._entropic_kernel_learning import EMKL, ESKL, REKL

__all__ = ["ESKLCV", "EMKLCV", "REKLCV", "KUNDU_CS", "KUNDU_RHOS"]

#: Default grids (the matrices are normalised to unit mean diagonal at the defaults,
#: so these are in the units of the clip SVM's ``C``).
KUNDU_CS = (0.1, 1.0, 10.0, 100.0)
KUNDU_RHOS = (0.1, 1.0, 10.0)


def check_scorer(estimator, scoring):
    """``scorer(est, X, y)``: ``est.score`` (accuracy) for ``None``, else scikit-learn's."""
    if scoring is None:
        return lambda est, X, y: est.score(X, y)
    from sklearn.metrics import check_scoring

    return check_scoring(estimator, scoring=scoring)


class _KunduCV(GridCVMixin, RefittedClassifierMixin, PairwiseMixin, ClassifierMixin,
               BaseEstimator):
    """Shared ``fit`` of the three (the estimator class in ``_estimator``)."""

    _estimator = ESKL

    _parameter_constraints = {
        "Cs": unchecked("a grid, checked by check_grid"),
        "rhos": unchecked("a grid, checked by check_grid"),
        "cv": unchecked("folds, checked by cv_folds"),
        "scoring": unchecked("scikit-learn's check_scoring"),
        "n_jobs": unchecked("joblib's"),
        "warm_start": unchecked("True, False or 'auto', checked by _resolve_warm_start"),
        **{k: unchecked("the base estimator's, checked on the first grid point's model")
           for k in ("loss", "max_iter", "tol", "normalize", "verbose")},
    }

    def __init__(self, Cs=KUNDU_CS, rhos=KUNDU_RHOS, *, cv=5, scoring=None, n_jobs=None,
                 warm_start="auto", loss=None, max_iter=None, tol=1e-2, normalize=True,
                 verbose=0):
        self.Cs = Cs
        self.rhos = rhos
        self.cv = cv
        self.scoring = scoring
        self.n_jobs = n_jobs
        self.warm_start = warm_start
        self.loss = loss
        self.max_iter = max_iter
        self.tol = tol
        self.normalize = normalize
        self.verbose = verbose

    def _base(self, C, rho):
        kw = {"tol": self.tol, "normalize": self.normalize, "verbose": self.verbose}
        if self.loss is not None:
            kw["loss"] = self.loss
        if self.max_iter is not None:
            kw["max_iter"] = self.max_iter
        return self._estimator(C=C, rho=rho, **kw)

    def fit(self, X, y):
        """Cross-validate the grid, then refit the best point on all the data.

        Parameters
        ----------
        X : array-like of shape (n, n, m) or (n, n)
            The training similarities (a stack, or one matrix).
        y : array-like of shape (n,)
        """
        self._warm = self._resolve_warm_start()
        Cs = check_grid(self.Cs, "Cs")
        rhos = check_grid(self.rhos, "rhos")
        validate_params(self._base(Cs[0], rhos[0]))  # a bad option fails before any fold
        Xa = check_multi_similarity(X, symmetric="symmetrize")  # its warnings, once
        check_labels(y, Xa.shape[0], rows_of="the similarity stack")
        y = np.asarray(y)
        self._scorer = check_scorer(self._base(Cs[0], rhos[0]), self.scoring)
        points = grid_walk(rho=rhos, C=Cs)
        folds = cv_folds(self.cv, y)
        self._search(Xa, y, points, folds, refit_args=(X, y), input_warnings=INPUT_WARNINGS)
        del self._scorer, self._warm
        for name in ("classes_", "n_features_in_", "n_kernels_", "scales_"):
            setattr(self, name, getattr(self.best_estimator_, name))
        self.best_C_ = self.best_params_["C"]
        self.best_rho_ = self.best_params_["rho"]
        return self

    def _resolve_warm_start(self):
        """``warm_start`` as a bool: ``"auto"`` is ``True`` for REKL, ``False`` for
        ESKL and EMKL (the panel's evidence: module docstring)."""
        if isinstance(self.warm_start, str) and self.warm_start == "auto":
            return self._estimator is REKL
        if not isinstance(self.warm_start, (bool, np.bool_)):
            raise InvalidParameterError(
                f"warm_start must be True, False or 'auto', got {self.warm_start!r}.")
        return bool(self.warm_start)

    def _walk(self, Xa, y, tr, te, points):
        """One fold's scores along ``points``: the fits share ``_cv_state``."""
        X_tr, X_te = Xa[np.ix_(tr, tr)], Xa[np.ix_(te, tr)]
        shared = {}
        out = []
        for p in points:
            est = self._base(**p)
            est._cv_state = shared
            est.fit(X_tr, y[tr])
            del est._cv_state
            if not self._warm:  # keep the decompositions, not the solution
                for state in shared.values():
                    state.pop("warm", None)
            out.append(self._scorer(est, X_te, y[te]))
        return out



_DOC = """{name} with ``C`` and ``rho`` chosen by cross-validation, then refitted.

    Each fold walks the grid ``Cs x rhos`` sharing its eigendecompositions (and,
    with ``warm_start``, starting every fit from the previous grid point's kernel;
    module docstring of ``mkl._entropic_kernel_learning_cv``); the best mean validation
    score (smallest ``C``, then ``rho``, among ties) is refitted on all the data.

    Parameters
    ----------
    Cs : sequence of float, default=(0.1, 1, 10, 100)
    rhos : sequence of float, default=(0.1, 1, 10)
        The grid (positive numbers).
    cv : int or cross-validation splitter, default=5
        As scikit-learn's ``check_cv`` (stratified folds for an int).
    scoring : str, callable or None, default=None
        A scikit-learn scorer; ``None``: accuracy.
    n_jobs : int or None, default=None
        Folds in parallel (joblib); the walk inside a fold is sequential.
    warm_start : bool or "auto", default="auto"
        ``True``: start each fit of a fold's walk from the previous grid point's
        kernel (module docstring); each fit still stops by :class:`{name}`'s rule,
        and the scores may differ from cold fits' within it. ``False``: every fit
        starts as :class:`{name}` does, so that each validation score is the one
        ``GridSearchCV`` computes (the eigendecompositions are still shared).
        ``"auto"``: ``True`` for REKL (its dual bound stops a warm fit at once;
        warm walks 1.4-2.5x cheaper, the same verdicts on the defaults panel),
        ``False`` for ESKL and EMKL (warm ESKL walks scored lower on the panel);
        costs and choices: docs/benchmarks.md.
    loss, max_iter : as :class:`{name}`; ``None``: its default ({loss!r}, {max_iter}).
    tol, normalize, verbose : as :class:`{name}`.

    Attributes
    ----------
    best_params_ : dict
        ``{{"C": ..., "rho": ...}}``; also ``best_C_``, ``best_rho_``.
    best_score_ : float
        Mean validation score at ``best_params_``.
    best_index_ : int
        Row of ``cv_results_`` of ``best_params_``.
    cv_results_ : dict
        As ``GridSearchCV``'s (``params``, ``param_C``, ``param_rho``,
        ``mean_test_score``, ``std_test_score``, ``rank_test_score``,
        ``split<k>_test_score``), rows sorted by ``(C, rho)``.
    best_estimator_ : {name}
        Refitted on all the data at ``best_params_``.
    n_splits_ : int
    classes_, n_features_in_, n_kernels_, scales_ : those of ``best_estimator_``.

    Examples
    --------
    >>> import numpy as np
    >>> from proxlearn.kernel_learning import {name}CV
    >>> X = np.random.default_rng(0).normal(size=(40, 3)); y = np.arange(40) % 2
    >>> X[:, 0] += 2 * y
    >>> S = X @ X.T
    >>> clf = {name}CV(Cs=[0.1, 1.0], rhos=[1.0], cv=3).fit(S[:30, :30], y[:30])
    >>> sorted(clf.best_params_)
    ['C', 'rho']
    >>> clf.predict(S[30:, :30]).shape
    (10,)

    See Also
    --------
    {name}, proxlearn.mkl.TwoLayerMKLCV, sklearn.model_selection.GridSearchCV
    """


def _doc(est):
    defaults = est().get_params()
    return _DOC.format(name=est.__name__, loss=defaults["loss"], max_iter=defaults["max_iter"])


class ESKLCV(_KunduCV):
    __doc__ = _doc(ESKL)
    _estimator = ESKL


class EMKLCV(_KunduCV):
    __doc__ = _doc(EMKL)
    _estimator = EMKL


class REKLCV(_KunduCV):
    __doc__ = _doc(REKL)
    _estimator = REKL
