"""Support vector regression with a spectrum-modified similarity as a precomputed kernel."""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, RegressorMixin
from sklearn.svm import SVR

from .._svm._libsvm import MAX_ITER
from .._validation import MAX_ITER_OR_NO_LIMIT, positive
from ..base import PairwiseMixin
from ..transforms._spectrum_kernel import SPECTRUM_PARAMETERS, SpectrumLinearModelMixin

__all__ = ["SimilaritySVR"]


class SimilaritySVR(PairwiseMixin, SpectrumLinearModelMixin, RegressorMixin, BaseEstimator):
    """Epsilon-support vector regression on similarities used as a kernel.

    The regression counterpart of :class:`SimilaritySVC` (Chen et al. 2009,
    sections 2.1-2.2): symmetrise ``S``, make it PSD by clip / flip / shift (or
    use ``S S^T``), fit scikit-learn's epsilon-SVR (libsvm,
    :class:`sklearn.svm.SVR` with ``kernel="precomputed"``) on the corrected
    matrix, and map test rows with the consistent transformation of section 2.2
    (folded into the dual coefficients: prediction costs ``O(m n)``).
    ``spectrum="square"`` is the linear SVR on similarity feature vectors (the
    rows of ``S``).

    Parameters
    ----------
    spectrum : {"clip", "flip", "shift", "square", "none"}, default="clip"
        Spectrum modification, see :class:`~proxlearn.transforms.SpectrumTransformer`.
        ``"none"`` gives libsvm the (possibly indefinite) matrix: a stationary
        point of a non-convex dual, no optimality guarantee.
    C : float, default=1.0
        Regularisation (> 0): the bound on each dual coefficient.
    epsilon : float, default=0.1
        Half-width (>= 0) of the insensitive tube, in the units of the fitted
        targets (with ``normalize_y=True``: standard deviations of ``y``).
    test_transform : {"consistent", "linear", "raw"}, default="consistent"
        Treatment of test rows, see ``SpectrumTransformer``.
    tol : float or None, default=None
        Zero-eigenvalue tolerance, see ``SpectrumTransformer``.
    max_iter : int, default=10_000_000
        Iteration cap of libsvm's SMO (``-1``: none).
    normalize : bool, default=True
        Divide ``S`` and the test rows by ``scale_ = tr S / n`` (see
        :mod:`proxlearn._normalize`): a positive factor on ``S`` leaves every
        prediction unchanged. ``False`` uses ``S`` as given.
    normalize_y : bool, default=True
        Fit on ``(y - mean) / std`` and map predictions back, so that ``C`` and
        ``epsilon`` do not depend on the units of ``y`` (ours, not a paper's:
        docs/methods.md, "Regression on similarities"). ``False`` is
        scikit-learn's ``SVR`` on the corrected matrix.

    Attributes
    ----------
    scale_ : float
        The factor ``S`` was divided by (1.0 with ``normalize=False``).
    y_mean_, y_scale_ : float
        Mean and standard deviation of the training targets (0 and 1 with
        ``normalize_y=False``; a constant ``y`` has scale 1).
    transformer_ : SpectrumTransformer
        Fitted on ``S / scale_``.
    svr_ : sklearn.svm.SVR
        Fitted with ``kernel="precomputed"`` on the corrected matrix.
    dual_coef_ : ndarray of shape (n,)
        Dual coefficients of every training sample (0 off the support).
    intercept_ : float
        libsvm's intercept, in the units of the fitted targets.
    n_iter_ : int
        libsvm's SMO iterations.
    n_features_in_ : int
        Number of training samples.

    Examples
    --------
    >>> import numpy as np
    >>> from proxlearn.svm import SimilaritySVR
    >>> x = np.linspace(0, 3, 30)
    >>> S = np.exp(-(x[:, None] - x[None, :]) ** 2)
    >>> reg = SimilaritySVR().fit(S, np.sin(x))
    >>> round(reg.score(S, np.sin(x)), 2) > 0.9
    True

    See Also
    --------
    SimilaritySVC : the classifier on the same kernel.
    proxlearn.kernel_ridge.SimilarityKernelRidge : kernel ridge regression on it.
    proxlearn.neighbors.SimilarityKNeighborsRegressor : weighted k-NN regression.
    sklearn.svm.SVR : the solver used.
    """

    _parameter_constraints = {
        **SPECTRUM_PARAMETERS,
        "C": positive(),
        "epsilon": positive(allow_zero=True),
        "max_iter": MAX_ITER_OR_NO_LIMIT,
    }

    def __init__(self, spectrum="clip", C=1.0, epsilon=0.1, test_transform="consistent",
                 tol=None, max_iter=MAX_ITER, *, normalize=True, normalize_y=True):
        self.spectrum = spectrum
        self.C = C
        self.epsilon = epsilon
        self.test_transform = test_transform
        self.tol = tol
        self.max_iter = max_iter
        self.normalize = normalize
        self.normalize_y = normalize_y

    def _fit_dual(self, target, params):
        """libsvm's epsilon-SVR on the corrected matrix: its dual coefficients
        (0 off the support) and intercept."""
        K = self.transformer_._training_kernel()
        self.svr_ = SVR(kernel="precomputed", C=params["C"], epsilon=params["epsilon"],
                        max_iter=params["max_iter"]).fit(K, target)
        del K
        coef = np.zeros(self.n_features_in_)
        coef[self.svr_.support_] = self.svr_.dual_coef_[0]
        self.intercept_ = float(self.svr_.intercept_[0])
        self.n_iter_ = int(self.svr_.n_iter_)
        return coef, self.intercept_
