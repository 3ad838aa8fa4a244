"""``C`` of a :class:`SimilaritySVC` by cross-validation, one spectrum per fold."""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.svm import SVC

from .._cv import (
    INPUT_WARNINGS,
    GridCVMixin,
    RefittedClassifierMixin,
    check_grid,
    cv_folds,
    grid_walk,
)
from .._validation import (
    InvalidParameterError,
    check_labels,
    check_similarity,
    unchecked,
    validate_params,
)
from ..base import PairwiseMixin
from ..transforms._spectrum import SpectrumTransformer
from ._kernel_svc import SimilaritySVC

__all__ = ["SIMILARITY_SVC_CS", "SimilaritySVCCV"]

#: The default grid: the papers' C range (Chen et al. 2009, Table 4.2's SVM grid
#: spans 10^-3 ... 10^5; the middle five decades, where the panel's choices fall).
SIMILARITY_SVC_CS = (0.01, 0.1, 1.0, 10.0, 100.0)


class SimilaritySVCCV(PairwiseMixin, RefittedClassifierMixin, GridCVMixin, ClassifierMixin,
                      BaseEstimator):
    """A :class:`SimilaritySVC` with ``C`` chosen by cross-validation, then refitted.

    In the style of scikit-learn's ``LogisticRegressionCV``. In each fold the
    spectrum modification of the training block (one eigendecomposition), its
    scale and the validation rows' kernel are computed once and shared by every
    ``C`` of the grid; only the SVM is refitted per ``C``. ``GridSearchCV`` over
    the same grid repeats the eigendecomposition for every ``(C, fold)``. The
    ``C`` of the best mean validation accuracy (the smallest among ties) is
    refitted on all the data. Why the pipelines on a linear kernel of similarity
    rows need it: docs/methods.md, "Cross-validated variants".

    Parameters
    ----------
    estimator : SimilaritySVC or None, default=None
        The SVM with its other parameters (its ``C`` is replaced);
        ``None``: ``SimilaritySVC()`` (clip, scale-free).
    Cs : sequence of float or None, default=None
        The grid; ``None``: ``(0.01, 0.1, 1, 10, 100)``.
    cv : int or cross-validation splitter, default=5
        As scikit-learn's ``check_cv`` (stratified folds for an int).
    n_jobs : int or None, default=None
        Folds in parallel (joblib).

    Attributes
    ----------
    best_params_ : dict
        ``{"C": best_C_}``.
    best_C_, best_score_ : float
        The chosen ``C`` and its mean validation accuracy.
    best_index_, n_splits_ : int
    cv_results_ : dict
        As ``GridSearchCV``'s (``params``, ``param_C``, ``split<k>_test_score``,
        ``mean_test_score``, ``std_test_score``, ``rank_test_score``).
    best_estimator_ : SimilaritySVC
        Refitted on all the data with ``best_C_``.
    classes_, n_features_in_ : those of ``best_estimator_``.

    See Also
    --------
    SimilaritySVC : the estimator at one ``C``.
    proxlearn.mkl.MKLClassifierCV : the same for the MKL classifiers.

    Examples
    --------
    >>> import numpy as np
    >>> from proxlearn.svm import SimilaritySVCCV
    >>> rng = np.random.default_rng(0)
    >>> X = np.r_[rng.normal(0, 1, (20, 2)), rng.normal(2, 1, (20, 2))]
    >>> y = np.repeat([0, 1], 20)
    >>> clf = SimilaritySVCCV(Cs=[0.1, 10.0], cv=3).fit(X @ X.T, y)
    >>> clf.best_C_ in (0.1, 10.0)
    True
    """

    _parameter_constraints = {
        "estimator": unchecked("a SimilaritySVC, checked by _template"),
        "Cs": unchecked("a grid, checked by check_grid"),
        "cv": unchecked("folds, checked by cv_folds"),
        "n_jobs": unchecked("joblib's"),
    }

    def __init__(self, estimator=None, *, Cs=None, cv=5, n_jobs=None):
        self.estimator = estimator
        self.Cs = Cs
        self.cv = cv
        self.n_jobs = n_jobs

    def _template(self):
        est = SimilaritySVC() if self.estimator is None else self.estimator
        if not isinstance(est, SimilaritySVC):
            raise InvalidParameterError(
                f"estimator must be a proxlearn.svm.SimilaritySVC (its C is chosen), got "
                f"{est!r}; for other estimators use sklearn.model_selection.GridSearchCV.")
        return est

    def _base(self, **params):
        return clone(self._template()).set_params(**params)

    def _walk(self, S, y, train, test, points):
        """One fold: the spectrum of the training block once, an SVM per ``C``."""
        first = self._base(**points[0])
        S_tr = S[np.ix_(train, train)]
        scaled = first._fit_scale(S_tr)
        transformer = SpectrumTransformer(method=first.spectrum,
                                          test_transform=first.test_transform, tol=first.tol)
        transformer = transformer._fit_checked(scaled, scaled)
        K = transformer._training_kernel()
        K_test = transformer.transform(S[np.ix_(test, train)] / first.scale_)
        y_tr, y_te = y[train], y[test]
        scores = []
        for p in points:
            svc = SVC(kernel="precomputed", C=p["C"], class_weight=first.class_weight,
                      max_iter=first.max_iter).fit(K, y_tr)
            scores.append(np.mean(svc.predict(K_test) == y_te))
        return scores

    def fit(self, S, y):
        """Choose ``C`` on the folds, then refit on ``(S, y)``.

        Parameters
        ----------
        S : array-like of shape (n, n)
            Training similarities.
        y : array-like of shape (n,)

        Returns
        -------
        self
        """
        template = self._template()
        Cs = check_grid(SIMILARITY_SVC_CS if self.Cs is None else self.Cs, "Cs")
        validate_params(self._base(C=float(Cs[0])))
        mode = SpectrumTransformer()._symmetric_mode(template.spectrum)
        arr = check_similarity(S, symmetric=mode)  # warns once; the folds are silent
        classes, y_idx = check_labels(y, arr.shape[0])
        y_arr = classes[y_idx]
        folds = cv_folds(self.cv, y_arr)
        self._search(arr, y_arr, grid_walk(C=Cs), folds, (S, y), INPUT_WARNINGS)
        self.best_C_ = float(self.best_params_["C"])
        self.classes_ = self.best_estimator_.classes_
        self.n_features_in_ = self.best_estimator_.n_features_in_
        return self
