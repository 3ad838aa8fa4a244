"""Class probabilities for the SVM-type classifiers: Platt scaling by internal CV.

An SVM's decision value is not a probability. As libsvm (and scikit-learn's
``SVC(probability=True)``) do, ``probability=True`` fits a sigmoid
``P(y = k | f) = 1 / (1 + exp(A f + B))`` to decision values that the model
did not see in training: ``fit`` runs an internal stratified 5-fold CV on the
training matrix (rows **and** columns sliced, so each fold is a genuine
train / test-to-train split of the similarities), collects the out-of-fold
decision values, fits ``(A, B)`` by maximum likelihood (Platt 1999) with the
regularised targets of Lin, Lin & Weng (2007) -- ``(N+ + 1) / (N+ + 2)`` and
``1 / (N- + 2)`` instead of 1 and 0 --, and then fits the final model on the
whole matrix. More than two classes: one sigmoid per class on the one-vs-rest
shaped decision values, normalised to sum to one (as scikit-learn's
``CalibratedClassifierCV`` does; libsvm's pairwise coupling is not used).

Why hand-written: scikit-learn's sigmoid fit is private
(``sklearn.calibration._sigmoid_calibration``), and ``CalibratedClassifierCV``
slices only the rows of a precomputed matrix, so it cannot run the internal
CV itself (see :class:`proxlearn.svm.SimilarityCalibratedClassifier`).

References
----------
J. Platt. Probabilistic outputs for support vector machines. In Advances in
Large Margin Classifiers, 1999.
H.-T. Lin, C.-J. Lin and R. C. Weng. A note on Platt's probabilistic outputs
for support vector machines. Machine Learning 68 (2007) 267-276.
"""

from __future__ import annotations

import contextlib
import warnings

import numpy as np
from scipy.optimize import minimize
from scipy.special import expit, log_expit
from sklearn.base import clone
from sklearn.model_selection import StratifiedKFold
from sklearn.utils.metaestimators import available_if
from sklearn.utils.validation import check_is_fitted

from .._validation import InvalidParameterError
from ..exceptions import AsymmetricSimilarityWarning, DissimilarityWarning

__all__ = ["PlattProbabilityMixin", "calibrated_proba", "fit_calibrators", "fit_platt_sigmoid"]

#: Folds of the internal cross-validation (libsvm uses 5).
PLATT_FOLDS = 5


def fit_platt_sigmoid(f, positive) -> tuple[float, float]:
    """Maximum-likelihood ``(A, B)`` of ``P(positive | f) = 1 / (1 + exp(A f + B))``.

    Parameters
    ----------
    f : ndarray of shape (n,)
        Decision values (out of sample).
    positive : ndarray of bool, shape (n,)

    Returns
    -------
    A, B : float
        ``A < 0`` when larger decision values mean the positive class.

    Examples
    --------
    >>> import numpy as np
    >>> from proxlearn._svm._platt import fit_platt_sigmoid
    >>> f = np.array([-2.0, -1.0, -0.5, 0.5, 1.0, 2.0])  # out-of-fold decision values
    >>> y_idx = np.array([0, 0, 1, 0, 1, 1])
    >>> A, B = fit_platt_sigmoid(f, y_idx == 1)
    >>> round(A, 3)
    -0.63

    See Also
    --------
    fit_calibrators : one sigmoid (or isotonic fit) per class.
    sklearn.calibration.CalibratedClassifierCV : Platt scaling on feature vectors.
    """
    f = np.asarray(f, dtype=np.float64)
    positive = np.asarray(positive, dtype=bool)
    n_pos = int(positive.sum())
    n_neg = positive.size - n_pos
    t = np.where(positive, (n_pos + 1.0) / (n_pos + 2.0), 1.0 / (n_neg + 2.0))
    scale = max(float(np.std(f)), 1e-12)  # fit on standardised values, mapped back
    g = f / scale

    def nll(p):
        z = p[0] * g + p[1]  # P(positive) = expit(-z)
        # -sum[t log expit(-z) + (1 - t) log expit(z)], stable for any z
        value = -np.sum(t * log_expit(-z) + (1.0 - t) * log_expit(z))
        dz = expit(z) - (1.0 - t)  # d value / d z
        return value, np.array([np.dot(dz, g), np.sum(dz)])

    b0 = np.log((n_neg + 1.0) / (n_pos + 1.0))
    res = minimize(nll, np.array([0.0, b0]), jac=True, method="L-BFGS-B")
    return float(res.x[0] / scale), float(res.x[1])


class _Sigmoid:
    """A fitted Platt sigmoid ``P = 1 / (1 + exp(a f + b))``."""

    def __init__(self, a: float, b: float):
        self.a, self.b = a, b

    def predict(self, f):
        return expit(-(self.a * np.asarray(f, dtype=np.float64) + self.b))


def fit_calibrators(f, y_idx, method: str = "sigmoid") -> list:
    """One calibrator per class column of out-of-sample decision values ``f``.

    ``f`` of shape ``(n,)`` (two classes; positive means class 1) gets one
    calibrator for class 1; ``(n, n_classes)`` gets one per class (one-vs-rest).
    ``method`` is ``"sigmoid"`` (:func:`fit_platt_sigmoid`) or ``"isotonic"``
    (:class:`sklearn.isotonic.IsotonicRegression`).

    Parameters
    ----------
    f : ndarray of shape (n,) or (n, n_classes)
    y_idx : ndarray of shape (n,), int
        Class indices.
    method : {"sigmoid", "isotonic"}, default="sigmoid"

    Returns
    -------
    list
        The calibrators, for :func:`calibrated_proba`.

    Examples
    --------
    >>> import numpy as np
    >>> from proxlearn._svm._platt import fit_calibrators
    >>> f = np.array([-2.0, -1.0, -0.5, 0.5, 1.0, 2.0])  # out-of-fold decision values
    >>> y_idx = np.array([0, 0, 1, 0, 1, 1])
    >>> len(fit_calibrators(f, y_idx))  # two classes: one calibrator
    1

    See Also
    --------
    calibrated_proba : the probabilities from these calibrators.
    fit_platt_sigmoid : the sigmoid fit.
    """
    from sklearn.isotonic import IsotonicRegression

    f = np.asarray(f, dtype=np.float64)
    cols = [(f, y_idx == 1)] if f.ndim == 1 else [(f[:, k], y_idx == k) for k in range(f.shape[1])]
    if method == "sigmoid":
        return [_Sigmoid(*fit_platt_sigmoid(c, t)) for c, t in cols]
    return [IsotonicRegression(y_min=0.0, y_max=1.0, out_of_bounds="clip").fit(c, t)
            for c, t in cols]


def calibrated_proba(d, calibrators) -> np.ndarray:
    """Class probabilities ``(m, n_classes)`` from decision values and :func:`fit_calibrators`.

    More than two classes: the one-vs-rest probabilities normalised to sum to
    one (uniform where they are all zero).

    Examples
    --------
    >>> import numpy as np
    >>> from proxlearn._svm._platt import calibrated_proba, fit_calibrators
    >>> f = np.array([-2.0, -1.0, -0.5, 0.5, 1.0, 2.0])  # out-of-fold decision values
    >>> y_idx = np.array([0, 0, 1, 0, 1, 1])
    >>> calibrated_proba(np.array([-1.0, 1.0]), fit_calibrators(f, y_idx)).round(3).tolist()
    [[0.653, 0.347], [0.347, 0.653]]

    See Also
    --------
    fit_calibrators : the calibrators.
    PlattProbabilityMixin : ``predict_proba`` of the SVM-type classifiers.
    """
    d = np.asarray(d, dtype=np.float64)
    if d.ndim == 1:
        p1 = np.clip(calibrators[0].predict(d), 0.0, 1.0)
        return np.column_stack([1.0 - p1, p1])
    P = np.column_stack([c.predict(d[:, k]) for k, c in enumerate(calibrators)])
    total = P.sum(axis=1, keepdims=True)
    uniform = np.full_like(P, 1.0 / P.shape[1])
    return np.divide(P, total, out=uniform, where=total > 0)


@contextlib.contextmanager
def input_warnings_said():
    """Silence the input warnings (dissimilarity, asymmetry) in refits on folds of a
    matrix whose full fit has already warned: once per fit, not once per fold."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DissimilarityWarning)
        warnings.simplefilter("ignore", AsymmetricSimilarityWarning)
        yield


def _has_probability(est) -> bool:
    if not getattr(est, "probability", False):
        raise AttributeError(
            "predict_proba is not available when probability=False; refit with "
            f"{type(est).__name__}(probability=True)."
        )
    return True


class PlattProbabilityMixin:
    """``probability`` / ``random_state`` parameters, ``predict_proba``, ``predict_log_proba``.

    Parameters of the estimators using it:

    probability : bool, default=False
        Also fit Platt sigmoids on out-of-fold decision values of an internal
        stratified 5-fold CV (see the module docstring), so that
        ``predict_proba`` works; fitting then costs about six fits.
    random_state : int, RandomState instance or None, default=None
        Seeds the folds of that internal CV.

    The estimator's ``fit`` ends with ``return self._fit_probability(S, y)``
    (``S`` as passed by the user), and the estimator has ``decision_function``
    and ``classes_``.

    Attributes set by ``fit`` with ``probability=True``
    ---------------------------------------------------
    probA_, probB_ : ndarray of shape (n_sigmoids,)
        Sigmoid parameters (one for two classes, one per class otherwise).

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from proxlearn.svm import SimilaritySVC
    >>> X, y = load_iris(return_X_y=True)
    >>> clf = SimilaritySVC(probability=True, random_state=0).fit(X @ X.T, y)
    >>> clf.predict_proba(X[:2] @ X.T).shape, clf.probA_.shape
    ((2, 3), (3,))

    See Also
    --------
    fit_calibrators, calibrated_proba : the calibration it runs.
    proxlearn.svm.SimilarityCalibratedClassifier : calibration of any classifier.
    """

    def _fit_probability(self, S, y, sample_weight=None):
        if not self.probability:
            return self
        from .._validation import check_labels, check_similarity

        S = check_similarity(S, dissimilarity_check=False)
        _, y_idx = check_labels(y, S.shape[0])
        counts = np.bincount(y_idx)
        folds = min(PLATT_FOLDS, int(counts.min()))
        if folds < 2:
            raise InvalidParameterError(
                f"probability=True needs at least 2 training samples of every class for "
                f"its internal cross-validation; the smallest class has {counts.min()}. "
                "Fit with probability=False, or add samples."
            )
        inner = clone(self).set_params(probability=False)
        cv = StratifiedKFold(folds, shuffle=True, random_state=self.random_state)
        f = None
        with input_warnings_said():
            for tr, te in cv.split(np.zeros(len(y_idx)), y_idx):
                fit_params = {} if sample_weight is None else {"sample_weight": sample_weight[tr]}
                model = clone(inner).fit(S[np.ix_(tr, tr)], self.classes_[y_idx[tr]],
                                         **fit_params)
                d = np.asarray(model.decision_function(S[np.ix_(te, tr)]), dtype=np.float64)
                if f is None:
                    f = np.zeros((len(y_idx),) + d.shape[1:])
                f[te] = d
        sigmoids = fit_calibrators(f, y_idx, "sigmoid")
        self.probA_ = np.array([s.a for s in sigmoids])
        self.probB_ = np.array([s.b for s in sigmoids])
        return self

    @available_if(_has_probability)
    def predict_proba(self, S_test):
        """Class probabilities ``(m, n_classes)`` from the Platt sigmoids (columns in
        the order of ``classes_``)."""
        check_is_fitted(self, "probA_")
        sigmoids = [_Sigmoid(a, b) for a, b in zip(self.probA_, self.probB_, strict=True)]
        return calibrated_proba(self.decision_function(S_test), sigmoids)

    @available_if(_has_probability)
    def predict_log_proba(self, S_test):
        """Logarithm of :meth:`predict_proba`."""
        with np.errstate(divide="ignore"):
            return np.log(self.predict_proba(S_test))
