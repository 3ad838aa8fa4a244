"""MKL classifiers on several similarity matrices over the same objects.

``fit(X, y)`` with ``X`` of shape ``(n, n, m)`` (:mod:`._input`), ``predict``
with ``(n_test, n_train, m)``. Each similarity matrix is first made a kernel
by a spectrum modification (``spectrum="clip"`` by default, the "denoised"
kernels Kundu et al. 2010 give SimpleMKL in their Table 3; ``None`` uses the
matrices as given and requires them PSD), with the consistent test map of
:class:`proxlearn.transforms.SpectrumTransformer`. Several classes: one
versus one, each pair with its own kernel weights (as libsvm trains pairs).
"""

from __future__ import annotations

import numbers
import warnings

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.validation import check_is_fitted

from .._validation import (
    DissimilarityWarning,
    InvalidParameterError,
    LabelError,
    SimilarityMatrixError,
    check_labels,
    check_option,
    check_positive,
)
from ..base import PairwiseMixin
from ..svm._ovo import ovo_decision_ovr, ovo_pairs, ovo_predict_index, ovo_subproblems
from ..transforms import SpectrumTransformer
from ._input import check_multi_similarity, check_multi_test
from ._solvers import lp_mkl, nonsparse_mkl, simple_mkl, uniform_mkl

__all__ = ["AverageKernelSVC", "LpMKL", "NonSparseMKL", "SimpleMKL"]

SPECTRA = {"clip", "flip", "shift", "square"}


class _BaseMKL(PairwiseMixin, ClassifierMixin, BaseEstimator):
    """Shared fit / predict of the MKL classifiers (see the module docstring)."""

    def _solve(self, Ks, y_pm):  # pragma: no cover - abstract
        raise NotImplementedError

    def _check_params(self):
        check_positive(self.C, "C")
        if self.spectrum is not None:
            check_option(self.spectrum, "spectrum", SPECTRA)
        for name in ("tol",):
            if hasattr(self, name):
                check_positive(getattr(self, name), name)
        if hasattr(self, "max_iter") and (
            isinstance(self.max_iter, bool) or not isinstance(self.max_iter, numbers.Integral)
            or self.max_iter < 1
        ):
            raise InvalidParameterError(f"max_iter must be an integer >= 1, got {self.max_iter!r}.")

    def _kernels(self, X):
        Ks = check_multi_similarity(X, symmetric="symmetrize")
        m = Ks.shape[2]
        self.spectra_ = []
        if self.spectrum is None:
            for k in range(m):
                lam = np.linalg.eigvalsh(Ks[:, :, k])
                if lam[0] < -1e-8 * max(1.0, np.abs(lam).max()):
                    raise SimilarityMatrixError(
                        f"X[:, :, {k}] is not positive semidefinite (smallest eigenvalue "
                        f"{lam[0]:.3g}) but spectrum=None uses the matrices as kernels. Use "
                        "spectrum='clip' (or 'flip', 'shift', 'square') for indefinite "
                        "similarities."
                    )
            return Ks
        out = np.empty_like(Ks)
        for k in range(m):
            st = SpectrumTransformer(self.spectrum)
            with warnings.catch_warnings():  # each matrix was checked (and warned about) above
                warnings.simplefilter("ignore", DissimilarityWarning)
                out[:, :, k] = st.fit_transform(Ks[:, :, k])
            self.spectra_.append(st)
        return out

    def _test_kernels(self, X_test):
        check_is_fitted(self, "coef_")
        T = check_multi_test(X_test, self.n_features_in_, self.n_kernels_)
        if self.spectra_:
            T = np.stack([st.transform(T[:, :, k]) for k, st in enumerate(self.spectra_)],
                         axis=-1)
        return T

    def fit(self, X, y):
        """Learn kernel weights and the SVM.

        Parameters
        ----------
        X : array-like of shape (n, n, m) or (n, n)
            ``m`` similarity matrices over the ``n`` training samples, stacked
            on the last axis.
        y : array-like of shape (n,)
        """
        self._check_params()
        Ks = self._kernels(X)
        n, _, m = Ks.shape
        classes, y_idx = check_labels(y, n)
        if classes.dtype.kind == "f" and np.any(classes != np.round(classes)):
            raise LabelError("Unknown label type: continuous. Pass class labels.")
        pairs = ovo_pairs(len(classes))
        self.coef_ = np.zeros((len(pairs), n, m))
        self.intercept_ = np.zeros(len(pairs))
        weights, objective, gaps, n_iter, results = [], [], [], [], []
        for k, idx, y_pm in ovo_subproblems(y_idx, len(classes)):
            res = self._solve(Ks[np.ix_(idx, idx)], y_pm)
            self.coef_[k, idx] = (res.alpha * y_pm)[:, None] * res.kernel_weights[None, :]
            self.intercept_[k] = res.b
            weights.append(res.weights)
            objective.append(res.objective)
            gaps.append(res.gap)
            n_iter.append(res.n_iter)
            results.append(res)
        self.classes_ = classes
        self.n_features_in_ = n
        self.n_kernels_ = m
        binary = len(pairs) == 1
        self.weights_ = weights[0] if binary else np.array(weights)
        self.objective_ = objective[0] if binary else np.array(objective)
        self.gap_ = gaps[0] if binary else np.array(gaps)
        self.n_iter_ = n_iter[0] if binary else np.array(n_iter)
        self.results_ = results
        return self

    def _raw(self, X_test):
        T = self._test_kernels(X_test)
        return np.einsum("tnm,pnm->tp", T, self.coef_) + self.intercept_

    def decision_function(self, X_test):
        """Decision values for ``(n_test, n_train, m)`` test rows.

        Binary: ``(n_test,)``, positive for ``classes_[1]``; several classes:
        ``(n_test, n_classes)`` one-vs-one votes with a tie-breaking term.
        """
        raw = self._raw(X_test)
        if len(self.classes_) == 2:
            return raw[:, 0]
        return ovo_decision_ovr(raw, len(self.classes_))

    def predict(self, X_test):
        """Class labels for ``(n_test, n_train, m)`` test rows."""
        raw = self._raw(X_test)
        return self.classes_[ovo_predict_index(raw, len(self.classes_))]


_PARAMS_DOC = """
    C : float, default=1.0
        SVM regularisation.
    spectrum : {"clip", "flip", "shift", "square"} or None, default="clip"
        How each similarity matrix becomes a kernel (consistent test map);
        ``None``: used as given (must be PSD).
    tol : float, default=1e-4
        Relative gap of the certificate at which the solver stops.
    max_iter : int, default=200
    """

_ATTRS_DOC = """
    Attributes
    ----------
    weights_ : ndarray of shape (m,) or (n_pairs, m)
        The method's kernel weights (per pair of classes for several classes).
    coef_ : ndarray of shape (n_pairs, n_train, m)
        ``alpha_i y_i`` times the weight of each kernel in the combination.
    intercept_, objective_, gap_ (certified), n_iter_, classes_, n_kernels_,
    n_features_in_, results_ (one :class:`MKLResult` per pair), spectra_.
    """


class _IterativeMKL(_BaseMKL):
    """The parameters shared by :class:`SimpleMKL` and :class:`NonSparseMKL`."""

    def __init__(self, C=1.0, *, spectrum="clip", tol=1e-4, max_iter=200):
        self.C = C
        self.spectrum = spectrum
        self.tol = tol
        self.max_iter = max_iter


class SimpleMKL(_IterativeMKL):
    __doc__ = """Convex MKL, ``min_{d in simplex} omega(sum_k d_k K_k)`` (SimpleMKL).

    Rakotomamonjy, Bach, Canu & Grandvalet (JMLR 2008): reduced gradient on
    the simplex with an Armijo line search; stops at a certified duality gap
    (:func:`proxlearn.mkl.simple_mkl`). The baseline of Kundu et al. 2010,
    Table 3 (on clipped similarities).

    Parameters
    ----------""" + _PARAMS_DOC + _ATTRS_DOC

    def _solve(self, Ks, y_pm):
        return simple_mkl(Ks, y_pm, self.C, tol=self.tol, max_iter=self.max_iter)


class LpMKL(_BaseMKL):
    __doc__ = """Lp-norm MKL, ``min_{d >= 0, ||d||_p <= 1} omega(sum_k d_k K_k)``.

    Kloft, Brefeld, Sonnenburg & Zien (JMLR 2011), the closed-form weight
    update alternated with the SVM; ``p = 1`` is :class:`SimpleMKL`'s problem
    (solved by it).

    Parameters
    ----------
    p : float >= 1, default=2.0""" + _PARAMS_DOC + _ATTRS_DOC

    def __init__(self, p=2.0, C=1.0, *, spectrum="clip", tol=1e-4, max_iter=200):
        self.p = p
        self.C = C
        self.spectrum = spectrum
        self.tol = tol
        self.max_iter = max_iter

    def _check_params(self):
        super()._check_params()
        if not (isinstance(self.p, numbers.Real) and np.isfinite(self.p) and self.p >= 1):
            raise InvalidParameterError(f"p must be a finite number >= 1, got {self.p!r}.")

    def _solve(self, Ks, y_pm):
        if self.p == 1:
            return simple_mkl(Ks, y_pm, self.C, tol=self.tol, max_iter=self.max_iter)
        return lp_mkl(Ks, y_pm, self.C, self.p, tol=self.tol, max_iter=self.max_iter)


class NonSparseMKL(_IterativeMKL):
    __doc__ = """The non-sparse MKL of Kundu et al. (2010) eq. 10 (Saketha Nath et al. 2009).

    ``max_{gamma in Delta} max_alpha 1^T alpha - 1/2 alpha^T Y (sum_k K_k / gamma_k) Y alpha``,
    solved by block ascent: an SVM on ``sum_k K_k / gamma_k``, then the closed
    form ``gamma_k = sqrt(a_k) / sum_j sqrt(a_j)`` (digest 2.2); certified by
    a Frank-Wolfe upper bound (:func:`proxlearn.mkl.nonsparse_mkl`). It is the
    MKL that EMKL and REKL call; ``weights_`` are the ``gamma``, the combined
    kernel is ``sum_k K_k / gamma_k``.

    Parameters
    ----------""" + _PARAMS_DOC + _ATTRS_DOC

    def _solve(self, Ks, y_pm):
        return nonsparse_mkl(Ks, y_pm, self.C, tol=self.tol, max_iter=self.max_iter)


class AverageKernelSVC(_BaseMKL):
    __doc__ = """An SVM on the average of the kernels (the uniform-combination baseline).

    Parameters
    ----------
    C : float, default=1.0
    spectrum : {"clip", "flip", "shift", "square"} or None, default="clip"
    """ + _ATTRS_DOC

    def __init__(self, C=1.0, *, spectrum="clip"):
        self.C = C
        self.spectrum = spectrum

    def _solve(self, Ks, y_pm):
        return uniform_mkl(Ks, y_pm, self.C)
