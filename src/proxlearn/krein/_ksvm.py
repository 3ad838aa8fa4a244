"""KSVM: the SVM in the Kreĭn space of an indefinite similarity (and its regression form).

==========  ===============================================  =====================================
estimator   trained on                                       predicts with
==========  ===============================================  =====================================
KreinSVC    C-SVC on ``|S| = U |Lambda| U^T`` (one-vs-one)   ``f(x) = s(x)^T a~ + b``, raw ``s(x)``
KreinSVR    epsilon-SVR on ``|S|``                           ``f(x) = s(x)^T a~ + b``, raw ``s(x)``
==========  ===============================================  =====================================

with ``a~ = U sign(Lambda) U^T v`` and ``v`` the SVM's dual coefficients on
``|S|`` (``v = alpha * y`` for classification, ``alpha - alpha*`` for
regression).

References
----------
Loosli, Canu & Ong (2016), "Learning SVM in Kreĭn spaces", IEEE TPAMI 38(6):
section 4 (the stabilisation problem in the Kreĭn space and its equivalence
with the SVM on the associated Hilbert space, Theorem 7 and its corollary),
Algorithm 1 (KSVM: eigendecompose ``K = U D U^T``, train an SVM on
``U |D| U^T``, return ``a~ = U S U^T (alpha * y)`` with ``S = sign(D)``, and
predict with the original kernel). Ong, Mary, Canu & Smola (2004), ICML:
the reproducing kernel Kreĭn space ``K = H+ (-) H-`` of an indefinite kernel
and the split ``f = f+ - f-``.

Equivalence (derivation in docs/methods.md, section "Learning in Kreĭn spaces
(`proxlearn.krein`)"): the decision values of :class:`KreinSVC` equal those of
``SimilaritySVC(spectrum="flip", test_transform="consistent")`` (Chen et al.
2009's flip with its consistent test map ``P_flip = U sign(Lambda) U^T``),
because ``(P s)^T v = s^T (P v) = s^T a~``: one estimator, two readings.
Tested to 1e-8 in tests/krein/test_ksvm.py. Zero eigenvalues
(``|lambda| <= tol``) get sign 0, as in :func:`proxlearn.transforms.modify_spectrum`.
"""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin
from sklearn.svm import SVC
from sklearn.utils.validation import check_is_fitted

from .._cv import internal_cv_argmin
from .._svm._libsvm import MAX_ITER, precomputed_svr, svc_pairwise_coef
from .._svm._multiclass import libsvm_vote, ovo_decision
from .._validation import (
    MAX_ITER_OR_NO_LIMIT,
    NORMALIZE,
    options,
    positive,
    unchecked,
)
from ..transforms._spectrum import SPECTRUM_TOL
from ..transforms._spectrum_kernel import SPECTRUM_PARAMETERS, fit_target_scale
from .._validation import check_sample_weight, check_targets
from ._base import KreinMixin, check_class_labels, kept_spectrum

__all__ = ["KreinSVC", "KreinSVR"]


class _KreinSVMMixin(KreinMixin):
    """Map an SVM solution on ``|S|`` back to the Kreĭn space."""

    def _flipped_kernel(self, arr, S, params):
        U, factor = self._decompose(arr, S, params["normalize"], params["tol"])
        K = (U * (np.abs(self.eigenvalues_) * (factor != 0))) @ U.T
        return U, factor, (K + K.T) / 2  # exactly symmetric for libsvm

    def _map_back(self, U, factor, V):
        """Set ``dual_coef_``, ``krein_coef_`` and its two parts from ``V`` (n, k)."""
        self.dual_coef_ = V.T
        self.krein_coef_ = self._map(U, factor, V).T
        pos, neg = self._parts(U, factor, self.krein_coef_.T)
        self.krein_coef_positive_, self.krein_coef_negative_ = pos.T, neg.T
        self.support_ = np.flatnonzero(np.any(V != 0, axis=1))

    def _components(self, S_test):
        check_is_fitted(self, "krein_coef_")
        rows = self._test_rows(S_test)
        return rows @ self.krein_coef_positive_.T, rows @ self.krein_coef_negative_.T


_SVM_CONSTRAINTS = {
    "C": positive(),
    "tol": SPECTRUM_TOL,
    "max_iter": MAX_ITER_OR_NO_LIMIT,
    "normalize": NORMALIZE,
}


class KreinSVC(_KreinSVMMixin, ClassifierMixin, BaseEstimator):
    """KSVM: the support vector classifier in the Kreĭn space of an indefinite similarity.

    Loosli, Canu & Ong (2016), Algorithm 1: eigendecompose the symmetrised
    training matrix ``S = U Lambda U^T``, train a C-SVC on the flipped matrix
    ``|S| = U |Lambda| U^T`` (the Gram matrix of the Hilbert space associated
    with the Kreĭn space), and map its solution back,
    ``a~ = U sign(Lambda) U^T (alpha * y)``. Prediction uses the *original*
    similarities of the test rows, ``f(x) = s(x)^T a~ + b``, with no test
    transform; ``f = f+ - f-`` splits into the parts of the positive and the
    negative eigenspaces (:meth:`decision_components`). Several classes: one
    binary KSVM per pair of classes on the one decomposition of the whole
    matrix (libsvm's one-vs-one, as :class:`~proxlearn.svm.SimilaritySVC`).

    The decision values equal those of
    ``SimilaritySVC(spectrum="flip", test_transform="consistent")`` (derivation
    in docs/methods.md, "Learning in Kreĭn spaces"); this class is the same
    model written in the Kreĭn space, with its coefficients and its split.

    Parameters
    ----------
    C : float, default=1.0
        SVM regularisation (> 0).
    tol : float or None, default=None
        Eigenvalues with ``|lambda| <= tol`` count as zero (sign 0); ``None``:
        ``n * eps * max|lambda|``.
    class_weight : dict, "balanced" or None, default=None
        Passed to :class:`sklearn.svm.SVC`.
    max_iter : int, default=10_000_000
        Iteration cap of libsvm's SMO (``-1``: none).
    normalize : bool, default=True
        Divide ``S`` and the test rows by ``scale_ = tr S / n``, so that ``C``
        does not depend on the units of ``S``; ``False`` uses ``S`` as given
        (Loosli et al.).

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    scale_ : float
    eigenvalues_ : ndarray of shape (n,)
        Ascending eigenvalues of the symmetrised ``S / scale_``.
    tol_ : float
        The zero-eigenvalue tolerance used.
    dual_coef_ : ndarray of shape (n_pairs, n)
        The SVM's solution on ``|S|``, ``alpha * y`` (dense over the training
        samples, one row per pair of classes in
        :func:`~proxlearn._svm._multiclass.ovo_pairs` order, positive for the
        pair's second class).
    krein_coef_ : ndarray of shape (n_pairs, n)
        ``a~ = U sign(Lambda) U^T (alpha * y)``, in the units of ``S / scale_``.
    krein_coef_positive_, krein_coef_negative_ : ndarray of shape (n_pairs, n)
        ``U P+ U^T a~`` and ``-U P- U^T a~``: ``f+(x) = s^T`` the first,
        ``f-(x) = s^T`` the second, ``a~`` their difference.
    intercept_ : ndarray of shape (n_pairs,)
    support_ : ndarray of int
        Training samples with a nonzero ``alpha`` in some pair. (``a~`` is dense:
        every training sample enters the prediction.)
    svc_ : sklearn.svm.SVC
        The SVM fitted on ``|S / scale_|``.
    n_iter_ : ndarray of shape (n_pairs,)
    n_features_in_ : int

    Examples
    --------
    >>> import numpy as np
    >>> from proxlearn.krein import KreinSVC
    >>> x = np.linspace(-2, 2, 20)
    >>> S = np.tanh(np.outer(x, x) - 0.5)  # an indefinite sigmoid similarity
    >>> y = (x > 0).astype(int)
    >>> clf = KreinSVC(C=10).fit(S, y)
    >>> bool((clf.predict(S) == y).mean() >= 0.9)
    True
    >>> f_pos, f_neg = clf.decision_components(S[:3])
    >>> bool(np.allclose(f_pos - f_neg + clf.intercept_, clf.decision_function(S[:3])))
    True

    See Also
    --------
    KreinSVR : the regression counterpart.
    KreinLeastSquaresClassifier : Oglic & Gärtner's least squares in the Kreĭn space.
    proxlearn.svm.SimilaritySVC : ``spectrum="flip"`` gives the same decision values.
    """

    def __init__(self, C=1.0, tol=None, class_weight=None, max_iter=MAX_ITER, *,
                 normalize=True):
        self.C = C
        self.tol = tol
        self.class_weight = class_weight
        self.max_iter = max_iter
        self.normalize = normalize

    _parameter_constraints = {
        **_SVM_CONSTRAINTS,
        "class_weight": unchecked("checked by scikit-learn's SVC"),
    }

    def fit(self, S, y):
        """Fit on the ``n x n`` training similarity matrix and class labels ``y``.

        Returns
        -------
        self
        """
        params, arr, (classes, y_idx) = self._fit_input(S, y, check_class_labels)
        U, factor, K = self._flipped_kernel(arr, S, params)
        self.svc_ = SVC(kernel="precomputed", C=params["C"], class_weight=self.class_weight,
                        max_iter=params["max_iter"]).fit(K, classes[y_idx])
        self.classes_ = classes
        self.n_iter_ = self.svc_.n_iter_
        V, self.intercept_ = svc_pairwise_coef(self.svc_, self.svc_.support_, K.shape[0])
        self._map_back(U, factor, V)
        return self

    def decision_components(self, S_test):
        """The parts ``f+`` and ``f-`` of the pairwise decision values (without ``b``).

        Parameters
        ----------
        S_test : array-like of shape (m, n)
            Test-to-train similarities.

        Returns
        -------
        f_pos, f_neg : ndarray of shape (m,) for two classes, else (m, n_pairs)
            ``f = f_pos - f_neg + intercept_`` are the pairwise decision values
            (the decision function for two classes).
        """
        f_pos, f_neg = self._components(S_test)
        return (f_pos[:, 0], f_neg[:, 0]) if f_pos.shape[1] == 1 else (f_pos, f_neg)

    def _pairwise(self, S_test):
        check_is_fitted(self, "krein_coef_")
        return self._test_rows(S_test) @ self.krein_coef_.T + self.intercept_

    def decision_function(self, S_test):
        """Decision values ``s^T a~ + b`` of test-to-train similarities ``(m, n)``.

        Shape ``(m,)`` for two classes (positive means ``classes_[1]``), else
        ``(m, n_classes)``, the one-vs-one votes with
        :func:`~proxlearn._svm._multiclass.ovo_decision`'s tie-breaking term.
        """
        raw = self._pairwise(S_test)
        return ovo_decision(raw, len(self.classes_))

    def predict(self, S_test):
        """Class labels of test-to-train similarities ``(m, n)`` (libsvm's vote)."""
        raw = self._pairwise(S_test)
        return self.classes_[libsvm_vote(raw, len(self.classes_))]


#: ``KreinSVR(C="auto")``: the values of ``C`` tried (for ``S / scale_``).
AUTO_C = (0.001, 0.01, 0.1, 1.0, 10.0, 100.0)


def _cv_svr_C(S, target, epsilon, max_iter, tol, sample_weight=None):
    """``C="auto"``: the ``C`` of ``AUTO_C`` with the least validation squared error
    over the internal folds (:func:`proxlearn._cv.internal_cv_argmin`). Each fold
    decomposes its own training block, trains the SVR on its ``|S|`` and predicts its
    held-out samples with their raw similarities through ``a~``, as the estimator
    does at test time. ``sample_weight``: each fold's SVR with its training part's
    weights, and the weighted validation error."""
    def fold_predictions(tr, val):
        d, Uk = kept_spectrum(S[np.ix_(tr, tr)], tol)
        K = (Uk * np.abs(d)) @ Uk.T
        K = (K + K.T) / 2  # exactly symmetric for libsvm; once for every C
        R = S[np.ix_(val, tr)] @ Uk  # the held-out rows in the fold's eigenbasis
        w = None if sample_weight is None else sample_weight[tr]
        for C in AUTO_C:
            svr, v, _ = precomputed_svr(K, target[tr], C, epsilon, max_iter, w)
            yield R @ (np.sign(d) * (Uk.T @ v)) + svr.intercept_[0]

    return AUTO_C[int(internal_cv_argmin(target, fold_predictions,
                                         sample_weight=sample_weight))]


class KreinSVR(_KreinSVMMixin, RegressorMixin, BaseEstimator):
    """KSVM for regression: epsilon-SVR on ``|S|``, mapped back to the Kreĭn space.

    The regression counterpart of :class:`KreinSVC` (Loosli, Canu & Ong 2016
    state the stabilisation / minimisation correspondence for the SVM; the
    same map holds for any problem whose solution is a kernel expansion
    trained on ``|S|``): train :class:`sklearn.svm.SVR` on the flipped matrix
    ``|S| = U |Lambda| U^T``, map its dual coefficients ``v = alpha - alpha*``
    back, ``a~ = U sign(Lambda) U^T v``, and predict with the original test
    similarities, ``f(x) = s(x)^T a~ + b``. Equals the SVR on the flipped
    matrix with Chen et al.'s consistent flip test map, as for the classifier.

    Parameters
    ----------
    C : float or "auto", default="auto"
        SVR regularisation (> 0). ``"auto"`` (ours): the value of
        ``AUTO_C = (0.001, ..., 100)`` with the least 5-fold cross-validated
        squared error, each fold predicting its held-out samples with their raw
        similarities (scikit-learn's ``C = 1`` overfits real similarity targets:
        docs/benchmarks.md, "Kreĭn learners at their defaults"). The value used
        is ``C_``.
    epsilon : float, default=0.1
        Half-width of the insensitive tube, in standard deviations of ``y``
        with ``normalize_y=True`` (the default), else in the units of ``y``
        (as scikit-learn's ``SVR``).
    tol : float or None, default=None
        Zero-eigenvalue tolerance, as :class:`KreinSVC`.
    max_iter : int, default=10_000_000
        Iteration cap of libsvm's SMO (``-1``: none).
    normalize : bool, default=True
        Divide ``S`` and the test rows by ``scale_ = tr S / n`` (scale-free in
        ``S``); ``False`` uses ``S`` as given.
    normalize_y : bool, default=True
        Fit the SVR on ``(y - y_mean_) / y_scale_`` and map the predictions
        back, so that ``epsilon`` and ``C`` do not depend on the units of ``y``
        (ours, as :class:`~proxlearn.svm.SimilaritySVR`; with ``False`` an
        ``epsilon`` of 0.1 covers a target whose spread is below it, e.g. a
        refractive index, and the SVR learns nothing: docs/benchmarks.md).

    Attributes
    ----------
    scale_, eigenvalues_, tol_, n_features_in_
        As :class:`KreinSVC`.
    y_mean_, y_scale_ : float
        Mean and standard deviation of the training ``y`` (0 and 1 with
        ``normalize_y=False``; a constant ``y`` has scale 1).
    dual_coef_ : ndarray of shape (n,)
        The SVR's ``alpha - alpha*`` on ``|S / scale_|`` times ``y_scale_``, dense.
    krein_coef_, krein_coef_positive_, krein_coef_negative_ : ndarray of shape (n,)
        ``a~`` and its parts, ``f+(x) = s^T`` the second, ``f-(x) = s^T`` the third.
    intercept_ : float
    C_ : float
        The ``C`` used.
    support_ : ndarray of int
    svr_ : sklearn.svm.SVR
    n_iter_ : int

    Examples
    --------
    >>> import numpy as np
    >>> from proxlearn.krein import KreinSVR
    >>> x = np.linspace(-2, 2, 30)
    >>> S = np.tanh(np.outer(x, x) - 0.5)
    >>> reg = KreinSVR(C=10, epsilon=0.01).fit(S, x ** 3)
    >>> bool(reg.score(S, x ** 3) > 0.9)
    True

    See Also
    --------
    KreinSVC : the classifier.
    KreinLeastSquares : Oglic & Gärtner's least squares in the Kreĭn space.
    sklearn.svm.SVR : the solver on the flipped matrix.
    """

    def __init__(self, C="auto", epsilon=0.1, tol=None, max_iter=MAX_ITER, *, normalize=True,
                 normalize_y=True):
        self.C = C
        self.epsilon = epsilon
        self.tol = tol
        self.max_iter = max_iter
        self.normalize = normalize
        self.normalize_y = normalize_y

    _parameter_constraints = {**_SVM_CONSTRAINTS, "C": positive() | options("auto"),
                              "epsilon": positive(allow_zero=True),
                              "normalize_y": SPECTRUM_PARAMETERS["normalize_y"]}

    def fit(self, S, y, sample_weight=None):
        """Fit on the ``n x n`` training similarity matrix and real targets ``y``.

        ``sample_weight`` (optional, shape ``(n,)``): libsvm's ``C_i = C w_i`` (a
        weight-0 sample is left out of the SVR) and the weighted validation error
        of ``C="auto"``; the flip and ``scale_`` are of the whole matrix (README
        "Sample weights").

        Returns
        -------
        self
        """
        params, arr, target = self._fit_input(S, y, check_targets)
        weights = check_sample_weight(sample_weight, arr.shape[0])
        target = fit_target_scale(self, target, params["normalize_y"], weights)
        work = arr.copy() if params["C"] == "auto" and arr.shape[0] >= 4 else None
        U, factor, K = self._flipped_kernel(arr, S, params)
        self.C_ = params["C"] if params["C"] != "auto" else (
            1.0 if work is None else _cv_svr_C(np.divide(work, self.scale_, out=work), target,
                                               params["epsilon"], params["max_iter"],
                                               params["tol"], weights))
        self.svr_, v, _ = precomputed_svr(K, target, self.C_, params["epsilon"],
                                          params["max_iter"], weights)
        v = v * self.y_scale_
        self.intercept_ = self.y_mean_ + self.y_scale_ * float(self.svr_.intercept_[0])
        self.n_iter_ = int(np.ravel(self.svr_.n_iter_)[0])
        self._map_back(U, factor, v[:, None])
        for name in ("dual_coef_", "krein_coef_", "krein_coef_positive_",
                     "krein_coef_negative_"):
            setattr(self, name, getattr(self, name)[0])
        return self

    def decision_components(self, S_test):
        """The parts ``f+`` and ``f-`` of the prediction (without ``b``).

        Returns
        -------
        f_pos, f_neg : ndarray of shape (m,)
            ``predict(S_test) = f_pos - f_neg + intercept_``.
        """
        return self._components(S_test)

    def predict(self, S_test):
        """Predictions ``s^T a~ + b`` for test-to-train similarities ``(m, n)``."""
        check_is_fitted(self, "krein_coef_")
        return self._test_rows(S_test) @ self.krein_coef_ + self.intercept_
