"""One-class SVM (novelty detection) on a spectrum-modified similarity matrix.

=====================  ===================================================
step                   what is computed
=====================  ===================================================
spectrum modification  ``K = SpectrumTransformer(spectrum).fit(S / scale_)``
                       (shift by default; clip, flip, square, none)
one-class SVM          Schoelkopf et al. (2001)'s nu-formulation on the
                       precomputed ``K`` (libsvm via
                       :class:`sklearn.svm.OneClassSVM`)
test rows              ``k = transform(s / scale_)``, the consistent map of
                       Chen et al. (2009), section 2.2 (shift: ``k = s``;
                       clip / flip: ``k = P s``)
score                  ``score_samples = k^T alpha``, ``decision_function =
                       score_samples - offset_`` (``offset_ = rho``)
=====================  ===================================================

References
----------
Schoelkopf, Platt, Shawe-Taylor, Smola, Williamson (2001), "Estimating the
support of a high-dimensional distribution", Neural Computation 13: eqs. 3-5
(the nu one-class SVM, its dual with ``0 <= alpha_i <= 1 / (nu n)``,
``sum alpha = 1``; libsvm scales ``alpha`` by ``nu n``).
Chen, Garcia, Gupta, Rahimi, Cazzanti (2009), "Similarity-based
classification: concepts and algorithms", JMLR 10: sections 2.1-2.2 (clip,
flip, shift, square and the consistent test map), used here unchanged for a
one-class problem (no paper gives the one-class SVM on an indefinite
similarity; the default shift is ours and measured, docs/methods.md section
"Novelty and outlier detection on similarities").

The decision values are folded as in :class:`~proxlearn.svm.SimilaritySVC`:
``transform(S_test) = S_test M`` for a fixed ``M``, so ``K_test[:, sv] @ alpha``
is ``S_test @ (M[:, sv] @ alpha)`` and prediction costs ``O(m n)``.
"""

from __future__ import annotations

import numbers

import numpy as np
from sklearn.base import BaseEstimator, OutlierMixin
from sklearn.svm import OneClassSVM
from sklearn.utils.validation import check_is_fitted

from .._normalize import ScaleNormalizeMixin
from .._svm._libsvm import MAX_ITER
from .._validation import (
    MAX_ITER_OR_NO_LIMIT,
    NORMALIZE,
    check_sample_weight,
    check_similarity,
    check_test_similarity,
    options,
    satisfies,
    validate_params,
)
from ..base import PairwiseMixin
from ..transforms._spectrum import (
    SPECTRUM_METHODS,
    SPECTRUM_TOL,
    TEST_TRANSFORMS,
    SpectrumTransformer,
)

__all__ = ["SimilarityOneClassSVM"]


def _is_nu(value):
    return (isinstance(value, numbers.Real) and not isinstance(value, bool)
            and 0.0 < float(value) <= 1.0)


#: ``nu`` of a one-class SVM: a fraction in (0, 1].
NU = satisfies(_is_nu, "a number in (0, 1] (an upper bound on the fraction of "
                       "training outliers, a lower bound on that of support vectors)")


class SimilarityOneClassSVM(PairwiseMixin, ScaleNormalizeMixin, OutlierMixin, BaseEstimator):
    """One-class SVM on similarities used as a kernel, after a spectrum modification.

    ``fit`` makes the (scaled, symmetrised) training similarity PSD with
    :class:`~proxlearn.transforms.SpectrumTransformer` and solves
    Schoelkopf et al. (2001)'s nu one-class SVM on it
    (:class:`sklearn.svm.OneClassSVM` with ``kernel="precomputed"``); test rows
    are mapped with the consistent transformation of Chen et al. (2009),
    section 2.2. With clip, flip, square and none the ``i``-th training row
    given as a test row gets the ``i``-th training score exactly (``P S = K``);
    with shift (the default) test rows are used as given, which reproduces
    every off-diagonal entry of ``S + shift I``, so the ``i``-th training row
    scores ``shift * alpha_i`` below its training score (its self-similarity
    is not shifted). Positive decision values are inliers.

    Parameters
    ----------
    spectrum : {"shift", "clip", "flip", "square", "none"}, default="shift"
        Spectrum modification, see :class:`~proxlearn.transforms.SpectrumTransformer`.
        ``"none"`` hands the possibly indefinite matrix to libsvm (a stationary
        point only). Shift is the default because it had the best mean ROC AUC
        over 13 real sets, tied with clip (the default of
        :class:`SimilaritySVC`; paired t-test over 5 splits) on 12 of them and
        far ahead on the most indefinite one (wine-sigmoid: 0.995 against
        0.835); docs/benchmarks.md, "Novelty and outlier detection on
        similarities".
    nu : float in (0, 1], default=0.5
        Upper bound on the fraction of training outliers and lower bound on the
        fraction of support vectors (scikit-learn's default).
    test_transform : {"consistent", "linear", "raw"}, default="consistent"
        Treatment of test rows, see ``SpectrumTransformer``.
    tol : float or None, default=None
        Zero-eigenvalue tolerance of the spectrum modification (as in
        :class:`~proxlearn.svm.SimilaritySVC`; libsvm's stopping tolerance is
        scikit-learn's ``1e-3``).
    max_iter : int, default=10_000_000
        Iteration cap of libsvm's SMO (``-1``: none).
    normalize : bool, default=True
        Divide ``S`` and the test rows by ``scale_ = tr S / n``, so that the
        decision values and ``offset_`` do not depend on the units of ``S``
        (the predictions never do); ``False`` uses ``S`` as given. See
        :mod:`proxlearn._normalize`.

    Attributes
    ----------
    scale_ : float
        The factor ``S`` was divided by (1.0 with ``normalize=False``).
    transformer_ : SpectrumTransformer
        Fitted on ``S / scale_``.
    ocsvm_ : sklearn.svm.OneClassSVM
        Fitted with ``kernel="precomputed"`` on the modified matrix (its rows
        and columns of positive ``sample_weight`` only).
    offset_ : float
        ``rho``: ``decision_function = score_samples - offset_``.
    n_iter_ : int
        libsvm's SMO iterations.
    n_features_in_ : int
        Number of training samples.

    Examples
    --------
    >>> import numpy as np
    >>> from proxlearn.svm import SimilarityOneClassSVM
    >>> X = np.random.default_rng(0).normal(size=(40, 2))
    >>> S = np.exp(-((X[:, None] - X[None]) ** 2).sum(-1))
    >>> det = SimilarityOneClassSVM(nu=0.1).fit(S)
    >>> far = np.exp(-((np.array([[6.0, 6.0]])[:, None] - X[None]) ** 2).sum(-1))
    >>> det.predict(far).tolist(), bool(det.score_samples(far)[0] < det.offset_)
    ([-1], True)

    See Also
    --------
    SimilaritySVC : the two-class SVM with the same spectrum options.
    proxlearn.neighbors.SimilarityLocalOutlierFactor : a local outlier score.
    sklearn.svm.OneClassSVM : the solver, on a PSD kernel.
    """

    _parameter_constraints = {
        "spectrum": options(*SPECTRUM_METHODS),
        "nu": NU,
        "test_transform": options(*TEST_TRANSFORMS),
        "tol": SPECTRUM_TOL,
        "max_iter": MAX_ITER_OR_NO_LIMIT,
        "normalize": NORMALIZE,
    }

    def __init__(self, spectrum="shift", nu=0.5, test_transform="consistent", tol=None,
                 max_iter=MAX_ITER, *, normalize=True):
        self.spectrum = spectrum
        self.nu = nu
        self.test_transform = test_transform
        self.tol = tol
        self.max_iter = max_iter
        self.normalize = normalize

    def fit(self, S, y=None, sample_weight=None):
        """Fit on the ``n x n`` training similarity matrix of the inliers.

        Parameters
        ----------
        S : array-like of shape (n, n)
            Training similarities (asymmetric input is symmetrised with an
            :class:`AsymmetricSimilarityWarning`, except for ``"square"``).
        y : ignored
        sample_weight : array-like of shape (n,), optional
            Per-sample weights of the one-class SVM only (libsvm's box
            ``0 <= alpha_i <= w_i``, as :class:`sklearn.svm.OneClassSVM`); the
            spectrum modification and the scale use the whole matrix. A zero
            weight leaves the sample out of the SVM (``alpha_i = 0``); its
            similarities still enter the spectrum.

        Returns
        -------
        self
        """
        self._fit(S, sample_weight)
        return self

    def fit_predict(self, S, y=None, sample_weight=None):
        """Fit and label the training samples by their training scores (``+1`` / ``-1``).

        The scores of the training kernel ``K`` (as scikit-learn's
        ``OneClassSVM.fit_predict`` on ``K``): with ``spectrum="shift"`` these are
        not ``predict(S)``, which reads the rows without the diagonal shift.

        Returns
        -------
        ndarray of shape (n,)
        """
        K = self._fit(S, sample_weight)
        return np.where(K @ self._alpha - self.offset_ > 0, 1, -1)

    def _fit(self, S, sample_weight=None):
        """Fit; return the modified training kernel."""
        params = validate_params(self)
        transformer = SpectrumTransformer(
            method=params["spectrum"], test_transform=params["test_transform"],
            tol=params["tol"])
        arr = check_similarity(S, symmetric=transformer._symmetric_mode(params["spectrum"]))
        scaled = self._fit_scale(arr, params["normalize"])
        # S (not scaled) as the input to protect: a new scaled array is the
        # transformer's to keep or overwrite, without another n x n copy
        self.transformer_ = transformer._fit_checked(
            scaled, S,
            params["spectrum"], params["test_transform"], params["tol"])
        K = self.transformer_._training_kernel()
        n = K.shape[0]
        weights = check_sample_weight(sample_weight, n)
        # libsvm drops samples of weight 0 and scikit-learn's support_ then indexes the
        # reduced problem (docs/methods.md): leave them out here, map the indices back
        keep = None if weights is None or np.all(weights > 0) else np.flatnonzero(weights > 0)
        self.ocsvm_ = OneClassSVM(kernel="precomputed", nu=float(params["nu"]),
                                  max_iter=params["max_iter"]).fit(
            K if keep is None else K[np.ix_(keep, keep)],
            sample_weight=weights if keep is None else weights[keep])
        support = self.ocsvm_.support_ if keep is None else keep[self.ocsvm_.support_]
        self._alpha = np.zeros(n)
        self._alpha[support] = self.ocsvm_.dual_coef_[0]
        # score_samples(S_test) = transform(S_test / scale_) @ alpha = S_test @ coef
        self._coef = self.transformer_.transform_coef(self._alpha[:, None])[:, 0] / self.scale_
        self.offset_ = float(self.ocsvm_.offset_[0])
        self.n_iter_ = int(np.ravel(self.ocsvm_.n_iter_)[0])
        self.n_features_in_ = n
        return K

    def score_samples(self, S_test):
        """Raw scores ``sum_i alpha_i k(x, x_i)`` of test-to-train similarities ``(m, n)``.

        Higher is more normal (as scikit-learn's ``score_samples``).

        Returns
        -------
        ndarray of shape (m,)
        """
        check_is_fitted(self, "ocsvm_")
        return check_test_similarity(S_test, self.n_features_in_) @ self._coef

    def decision_function(self, S_test):
        """``score_samples(S_test) - offset_``: positive for inliers, negative for outliers.

        Returns
        -------
        ndarray of shape (m,)
        """
        return self.score_samples(S_test) - self.offset_

    def predict(self, S_test):
        """``+1`` for inliers, ``-1`` for outliers (libsvm's sign: 0 is an outlier).

        Returns
        -------
        ndarray of shape (m,)
        """
        return np.where(self.decision_function(S_test) > 0, 1, -1)
