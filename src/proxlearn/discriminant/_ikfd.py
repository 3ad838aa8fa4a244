"""Indefinite kernel Fisher discriminant (IKFD).

Pekalska & Haasdonk (2009, IEEE TPAMI 31(6)); used as a baseline by Gu & Guo
(AAAI 2012), who give no formulas (their section 1.3 names the baseline
only). The kernel Fisher discriminant applied to an indefinite symmetric
``K0`` is the Fisher discriminant in the associated pseudo-Euclidean (Krein)
space, so the usual regularised KFD formulas are used with ``K0``:

* class means ``m_c = K0 1_c / n_c``;
* within-class scatter ``N_w = K0 (I - L) K0``, ``L`` block diagonal with
  ``(1/n_c) 1 1^T`` per class (PSD even for indefinite ``K0``);
* binary direction ``a = (N_w + rho I)^{-1} (m_+ - m_-)``, projection
  ``z(x) = a^T k0(x)``, threshold at the midpoint of the projected class means.
"""

from __future__ import annotations

import numpy as np
import scipy.linalg
from sklearn.base import BaseEstimator, ClassNamePrefixFeaturesOutMixin, ClassifierMixin, TransformerMixin
from sklearn.utils.validation import check_is_fitted

from .._validation import (
    check_classification_data,
    options,
    positive,
    validate_params,
    check_similarity,
    check_test_similarity,
)
from .._linalg import top_eigh
from ..base import PairwiseMixin
from .._svm._multiclass import fit_ovo, ovo_decision

__all__ = ["IndefiniteKFD"]


def _class_means_and_within(K, y_idx, n_classes):
    """Class mean vectors ``M[:, c] = K 1_c / n_c`` and ``R = K (I - L)``.

    ``N_w = R R^T`` because ``I - L`` is a symmetric projection.
    """
    counts = np.bincount(y_idx, minlength=n_classes).astype(np.float64)
    onehot = np.zeros((K.shape[0], n_classes))
    onehot[np.arange(K.shape[0]), y_idx] = 1.0
    means = (K @ onehot) / counts  # (n, n_classes)
    R = K - means[:, y_idx]  # K (I - L): subtract own-class column mean
    return means, R, counts


def _add_ridge(B, rho, relative):
    """``B + rho * scale * I`` in place; ``scale = trace(B) / n`` when relative."""
    scale = np.trace(B) / B.shape[0] if relative else 1.0
    if not scale > 0.0:  # all-zero within-class scatter
        scale = 1.0
    B[np.diag_indices_from(B)] += rho * scale
    return B


def _binary_direction(K, y_pm, rho, relative=True):
    """Regularised KFD direction and threshold for labels in {-1, +1}."""
    y_idx = (y_pm > 0).astype(np.intp)
    means, R, _ = _class_means_and_within(K, y_idx, 2)
    B = _add_ridge(R @ R.T, rho, relative)
    a = scipy.linalg.solve(B, means[:, 1] - means[:, 0], assume_a="pos")
    proj = a @ means  # projected class means
    return a, -0.5 * (proj[0] + proj[1])


class IndefiniteKFD(PairwiseMixin, ClassNamePrefixFeaturesOutMixin, TransformerMixin, ClassifierMixin, BaseEstimator):
    """Regularised kernel Fisher discriminant for indefinite similarities.

    Pekalska & Haasdonk (2009); the IKFD baseline of Gu & Guo (AAAI 2012).
    The training matrix is symmetrised, ``K0 = (S + S^T) / 2``
    (``check_similarity(symmetric="symmetrize")``); test rows ``k0(x)`` are
    used as given.

    Binary (closed form)::

        a = (N_w + rho I)^{-1} (m_1 - m_0)     (scipy.linalg.solve, assume_a="pos")
        f(x) = a^T k0(x) - (a^T m_0 + a^T m_1) / 2

    with ``m_c = K0 1_c / n_c`` and ``N_w = K0 (I - L) K0``; ``f > 0`` means
    ``classes_[1]``.

    Multiclass (Gu & Guo do not say which scheme they used):

    * ``multiclass="eig"`` (default): generalised eigenvectors of the
      between-class scatter ``M = sum_c n_c (m_c - m)(m_c - m)^T`` against
      ``N_w + rho I`` (``scipy.linalg.eigh(M, N_w + rho I)``), keeping the
      ``n_classes - 1`` leading directions; classify by the nearest projected
      class mean (Euclidean in the projected space, where the directions are
      ``(N_w + rho I)``-orthonormal). For two classes this reduces to the binary
      rule above, which is used directly.
    * ``multiclass="ovo"``: one binary IKFD per pair of classes on those
      classes' rows and columns, majority vote (as
      :class:`proxlearn.svm.PotentialSVM`).

    Parameters
    ----------
    rho : float > 0, default=1.0
        Ridge added to the within-class scatter.
    multiclass : {"eig", "ovo"}, default="eig"
    regularization : {"relative", "absolute"}, default="relative"
        ``"absolute"`` adds ``rho I`` (the textbook form). ``"relative"`` adds
        ``rho * (trace(N_w) / n) I``, which makes ``rho`` dimensionless: ``N_w``
        scales with the square of the similarities, so an absolute ``rho`` grid
        such as Gu & Guo's {0.01, ..., 100} means "no regularisation" on their
        synthetic kernels (entries in the hundreds; docs/benchmarks.md,
        "IKFD: the absolute ridge on Gu & Guo's synthetic kernels") and heavy
        regularisation on a [0, 1] similarity. With ``"relative"`` the predictions are invariant to
        rescaling ``S`` and one grid serves every data set.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    coef_ : ndarray of shape (n_train, n_components)
        Projection directions (binary and ``"eig"``), or for ``"ovo"`` the
        ``(n_pairs, n_train)`` pairwise directions.
    intercept_ : ndarray
        Binary: ``(1,)`` minus the threshold; ``"ovo"``: ``(n_pairs,)``;
        ``"eig"``: unused zeros.
    means_ : ndarray of shape (n_classes, n_components)
        Projected class means (binary and ``"eig"``).
    eigenvalues_ : ndarray of shape (n_components,)
        Generalised eigenvalues (``"eig"`` with more than two classes).
    n_features_in_ : int

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from proxlearn.discriminant import IndefiniteKFD
    >>> X, y = load_iris(return_X_y=True)
    >>> S = X @ X.T
    >>> clf = IndefiniteKFD().fit(S, y)
    >>> clf.predict(S[25::50]).tolist(), clf.transform(S[:4]).shape
    ([0, 1, 2], (4, 2))

    See Also
    --------
    SimilarityDiscriminantAnalysis : class-conditional models of the similarities.
    proxlearn.svm.SimilaritySVC : an SVM on the spectrum-modified matrix.
    sklearn.discriminant_analysis.LinearDiscriminantAnalysis : the feature-space analogue.

    References
    ----------
    E. Pekalska and B. Haasdonk. Kernel discriminant analysis for positive
    definite and indefinite kernels. IEEE TPAMI 31(6), 2009.
    S. Gu and Y. Guo. Learning SVM classifiers with indefinite kernels.
    AAAI 2012.
    """

    @property
    def _n_features_out(self):  # names indefinitekfd0, ... (get_feature_names_out)
        return self.coef_.shape[1]

    _parameter_constraints = {
        "rho": positive(),
        "regularization": options("relative", "absolute"),
        "multiclass": options("eig", "ovo"),
    }

    def __init__(self, rho=1.0, *, multiclass="eig", regularization="relative"):
        self.rho = rho
        self.regularization = regularization
        self.multiclass = multiclass

    def fit(self, S, y):
        """Fit on an ``(n, n)`` training similarity matrix and labels.

        Returns
        -------
        self
        """
        params = validate_params(self)
        rho, relative = params["rho"], params["regularization"] == "relative"
        K, self.classes_, y_idx = check_classification_data(S, y, symmetric="symmetrize")
        n = K.shape[0]
        n_classes = len(self.classes_)
        self.n_features_in_ = n
        if n_classes == 2:
            a, b = _binary_direction(K, np.where(y_idx == 1, 1.0, -1.0), rho, relative)
            self._mode = "binary"
            self.coef_ = a[:, None]
            self.intercept_ = np.array([b])
            means, _, _ = _class_means_and_within(K, y_idx, 2)
            self.means_ = (a @ means)[:, None]
            return self
        if self.multiclass == "ovo":
            self._mode = "ovo"

            def fit_binary(K_sub, y_pm):
                a, b = _binary_direction(K_sub, y_pm, rho, relative)
                return a, b, None

            self.coef_, self.intercept_, _ = fit_ovo(K, y_idx, n_classes, fit_binary)
            return self
        self._mode = "eig"
        means, R, counts = _class_means_and_within(K, y_idx, n_classes)
        centred = (means - K.mean(axis=1, keepdims=True)) * np.sqrt(counts)
        M = centred @ centred.T
        B = _add_ridge(R @ R.T, rho, relative)
        k = n_classes - 1
        evals, evecs = top_eigh(M, k, B, check_finite=True)
        order = np.argsort(evals)[::-1]
        self.eigenvalues_ = evals[order]
        self.coef_ = evecs[:, order]
        self.intercept_ = np.zeros(k)
        self.means_ = means.T @ self.coef_
        return self

    def _check_test(self, S_test):
        check_is_fitted(self, "coef_")
        return check_test_similarity(S_test, self.n_features_in_)

    def transform(self, S_test):
        """Project test samples onto the discriminant directions.

        Returns
        -------
        ndarray of shape (m, n_components)
            Binary: ``a^T k0(x)`` (one column, without threshold); ``"eig"``:
            the ``n_classes - 1`` projections; ``"ovo"``: the pairwise
            decision values.
        """
        S_test = self._check_test(S_test)
        if self._mode == "ovo":
            return S_test @ self.coef_.T + self.intercept_
        return S_test @ self.coef_

    def decision_function(self, S_test):
        """Decision values.

        Returns
        -------
        ndarray of shape (m,) or (m, n_classes)
            Binary: ``a^T k0(x)`` minus the midpoint threshold (positive means
            ``classes_[1]``). ``"eig"``: minus the squared distance to each
            projected class mean. ``"ovo"``: votes plus a tie-breaking term in
            ``(-1/3, 1/3)`` (see :mod:`proxlearn._svm._multiclass`).
        """
        Z = self.transform(S_test)
        if self._mode == "binary":
            return Z[:, 0] + self.intercept_[0]
        if self._mode == "ovo":
            return ovo_decision(Z, len(self.classes_))
        d2 = ((Z[:, None, :] - self.means_[None, :, :]) ** 2).sum(axis=2)
        return -d2

    def predict(self, S_test):
        """Predict class labels for a ``(m, n_train)`` test similarity matrix."""
        dec = self.decision_function(S_test)
        if dec.ndim == 1:
            return self.classes_[(dec > 0).astype(np.intp)]
        return self.classes_[np.argmax(dec, axis=1)]
