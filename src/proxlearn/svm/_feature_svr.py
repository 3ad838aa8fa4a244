"""Support vector regression on similarity feature vectors (similarities as features)."""

from __future__ import annotations

from sklearn.base import BaseEstimator, RegressorMixin
from sklearn.utils.validation import check_is_fitted

from .._normalize import ScaleNormalizeMixin
from .._svm._libsvm import MAX_ITER, precomputed_svr
from .._validation import (
    MAX_ITER_OR_NO_LIMIT,
    check_sample_weight,
    check_similarity,
    check_targets,
    options,
    positive,
    validate_params,
)
from ..base import PairwiseMixin
from ..transforms._features import FEATURE_KERNELS, SimilarityFeatures
from ..transforms._spectrum_kernel import SPECTRUM_PARAMETERS, fit_target_scale

__all__ = ["SimilarityFeatureSVR"]


class SimilarityFeatureSVR(PairwiseMixin, ScaleNormalizeMixin, RegressorMixin, BaseEstimator):
    """Epsilon-SVR on similarity feature vectors.

    The regression counterpart of :class:`SimilarityFeatureSVC` (Chen et al.
    2009, section 3): each sample is represented by its similarities to the
    training samples (rows of ``S`` as given); ``kernel="linear"`` uses
    ``K = S S^T`` (equal to ``SimilaritySVR(spectrum="square")``), ``kernel="rbf"``
    ``K_ij = exp(-gamma ||s_i - s_j||^2)`` (Liao & Noble 2003). Implemented as
    :class:`~proxlearn.transforms.SimilarityFeatures` followed by
    :class:`sklearn.svm.SVR` with ``kernel="precomputed"``.

    Parameters
    ----------
    kernel : {"linear", "rbf"}, default="linear"
    C : float, default=1.0
        Regularisation (> 0).
    epsilon : float, default=0.1
        Half-width (>= 0) of the insensitive tube, in the units of the fitted
        targets (standard deviations of ``y`` with ``normalize_y=True``).
    gamma : float or "scale", default="scale"
        RBF width (> 0), ignored by ``"linear"``. ``"scale"``: scikit-learn's
        ``1 / (n * var)`` of the (scaled) training rows, ``n`` their length (ours:
        ``SimilarityFeatureSVC``'s ``gamma=1`` makes every off-diagonal kernel value
        about 0 on rows of length ``n``, R^2 about 0 in docs/benchmarks.md).
    max_iter : int, default=10_000_000
        Iteration cap of libsvm's SMO (``-1``: none).
    normalize : bool, default=True
        Divide ``S`` and the test rows by ``scale_ = tr S / n`` before forming the
        kernel (:mod:`proxlearn._normalize`).
    normalize_y : bool, default=True
        Fit on ``(y - mean) / std`` and map the predictions back (see
        :class:`SimilaritySVR`); ``False`` is scikit-learn's ``SVR``.

    Attributes
    ----------
    scale_ : float
    y_mean_, y_scale_ : float
    gamma_ : float
        The RBF width used.
    transformer_ : SimilarityFeatures
        Fitted on ``S / scale_``.
    svr_ : sklearn.svm.SVR
    n_iter_ : int
        libsvm's SMO iterations.
    n_features_in_ : int

    Examples
    --------
    >>> import numpy as np
    >>> from proxlearn.svm import SimilarityFeatureSVR
    >>> x = np.linspace(0, 3, 30)
    >>> S = np.exp(-(x[:, None] - x[None, :]) ** 2)
    >>> reg = SimilarityFeatureSVR(kernel="rbf").fit(S, np.sin(x))
    >>> round(reg.score(S, np.sin(x)), 2) > 0.9
    True

    See Also
    --------
    SimilarityFeatureSVC : the classifier on the same features.
    SimilaritySVR : similarities used as a kernel instead.
    proxlearn.transforms.SimilarityFeatures : the feature map used here.
    """

    _parameter_constraints = {
        "kernel": options(*FEATURE_KERNELS),
        "C": positive(),
        "epsilon": positive(allow_zero=True),
        "normalize": SPECTRUM_PARAMETERS["normalize"],
        "normalize_y": SPECTRUM_PARAMETERS["normalize_y"],
        "max_iter": MAX_ITER_OR_NO_LIMIT,
        "gamma": positive() | options("scale"),
    }

    def __init__(self, kernel="linear", C=1.0, epsilon=0.1, gamma="scale", max_iter=MAX_ITER, *,
                 normalize=True, normalize_y=True):
        self.kernel = kernel
        self.C = C
        self.epsilon = epsilon
        self.gamma = gamma
        self.max_iter = max_iter
        self.normalize = normalize
        self.normalize_y = normalize_y

    def fit(self, S, y, sample_weight=None):
        """Fit on the ``n x n`` training similarity matrix (rows as features, not
        symmetrised) and real-valued targets ``y`` of shape ``(n,)``.

        ``sample_weight`` (optional, shape ``(n,)``): libsvm's ``C_i = C w_i`` (a
        weight-0 sample is left out of the SVR; it stays a feature) and the weighted
        mean and deviation of ``normalize_y``; ``scale_`` and ``gamma="scale"`` are
        of the whole matrix (README "Sample weights")."""
        params = validate_params(self)
        arr = check_similarity(S, symmetric="allow", dissimilarity_check=False)
        weights = check_sample_weight(sample_weight, arr.shape[0])
        target = fit_target_scale(self, check_targets(y, arr.shape[0]), params["normalize_y"],
                                  weights)
        rows = self._fit_scale(arr, params["normalize"])
        gamma = params["gamma"]
        if gamma == "scale":
            spread = float(rows.var()) * rows.shape[1]
            gamma = 1.0 / spread if spread > 0 else 1.0
        self.gamma_ = gamma
        self.transformer_ = SimilarityFeatures(kernel=self.kernel, gamma=gamma)
        K = self.transformer_.fit_transform(rows)
        self.svr_, _, self._keep = precomputed_svr(K, target, params["C"], params["epsilon"],
                                                   params["max_iter"], weights)
        self.n_iter_ = int(self.svr_.n_iter_)
        self.n_features_in_ = arr.shape[0]
        return self

    def predict(self, S_test):
        """Predict targets for test-to-train similarities ``(m, n)``."""
        check_is_fitted(self, "svr_")
        K_test = self.transformer_.transform(self._scale_test(S_test))
        keep = getattr(self, "_keep", None)  # the SVR's samples (weight > 0)
        return self.y_mean_ + self.y_scale_ * self.svr_.predict(
            K_test if keep is None else K_test[:, keep])
