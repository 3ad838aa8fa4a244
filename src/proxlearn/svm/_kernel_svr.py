"""Support vector regression with a spectrum-modified similarity as a precomputed kernel.

``C="auto"`` (the default, ours): the value of :data:`AUTO_C` with the least
squared error over the internal folds of :func:`proxlearn._cv.internal_cv_argmin`
(5 shuffled folds, as ``KreinSVR(C="auto")``). Each fold fits the spectrum
transform on its own training block once, trains the SVR for every ``C`` on that
one corrected matrix and predicts its held-out samples through the fold's test map,
as the estimator does at test time (docs/methods.md, "Regression on
similarities: alpha and C by default").
"""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, RegressorMixin

from .._cv import internal_cv_argmin
from .._svm._libsvm import MAX_ITER, precomputed_svr
from .._validation import MAX_ITER_OR_NO_LIMIT, options, positive
from ..base import PairwiseMixin
from ..transforms._spectrum import SpectrumTransformer
from ..transforms._spectrum_kernel import SPECTRUM_PARAMETERS, SpectrumLinearModelMixin

__all__ = ["AUTO_C", "SimilaritySVR"]

#: ``C="auto"``: the values tried (for ``S / scale_`` and standardised targets).
AUTO_C = (0.01, 0.1, 1.0, 10.0)


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
    C : float or "auto", default="auto"
        Regularisation (> 0): the bound on each dual coefficient. ``"auto"``
        (ours; scikit-learn's ``SVR`` has ``C=1``): the value of
        ``AUTO_C = (0.01, 0.1, 1, 10)`` with the least 5-fold
        cross-validated squared error (see the module docstring; ``C = 1`` for
        fewer than 4 samples). The value used is ``C_``.
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
    C_ : float
        The ``C`` used.
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
        "C": positive() | options("auto"),
        "epsilon": positive(allow_zero=True),
        "max_iter": MAX_ITER_OR_NO_LIMIT,
    }

    def __init__(self, spectrum="clip", C="auto", epsilon=0.1, test_transform="consistent",
                 tol=None, max_iter=MAX_ITER, *, normalize=True, normalize_y=True):
        self.spectrum = spectrum
        self.C = C
        self.epsilon = epsilon
        self.test_transform = test_transform
        self.tol = tol
        self.max_iter = max_iter
        self.normalize = normalize
        self.normalize_y = normalize_y

    def _needs_matrix(self, params):
        return params["C"] == "auto"

    def _fit_dual(self, target, params, S_fit=None, sample_weight=None):
        """libsvm's epsilon-SVR on the corrected matrix: its dual coefficients
        (0 off the support) and intercept; ``C_`` by the internal CV for "auto".
        ``sample_weight``: libsvm's ``C_i = C w_i`` (weight 0: left out), and the
        weighted validation error of the internal CV."""
        self.C_ = float(params["C"]) if params["C"] != "auto" else (
            1.0 if S_fit.shape[0] < 4 else self._cv_C(S_fit, target, params, sample_weight))
        K = self.transformer_._training_kernel()
        self.svr_, coef, _ = precomputed_svr(K, target, self.C_, params["epsilon"],
                                             params["max_iter"], sample_weight)
        del K
        self.intercept_ = float(self.svr_.intercept_[0])
        self.n_iter_ = int(self.svr_.n_iter_)
        return coef, self.intercept_

    @staticmethod
    def _cv_C(S_fit, target, params, sample_weight=None):
        """The ``C`` of ``AUTO_C`` with the least internal-CV squared error (weighted by
        ``sample_weight``): one spectrum transform per fold, shared by every ``C``."""
        def fold_predictions(tr, val):
            block = S_fit[np.ix_(tr, tr)]
            tf = SpectrumTransformer(eigen_solver="auto")._fit_checked(
                block, block, params["spectrum"], params["test_transform"], params["tol"])
            K = tf._training_kernel()
            rows = S_fit[np.ix_(val, tr)]
            w = None if sample_weight is None else sample_weight[tr]
            for C in AUTO_C:
                svr, coef, _ = precomputed_svr(K, target[tr], C, params["epsilon"],
                                               params["max_iter"], w)
                yield rows @ tf.transform_coef(coef[:, None])[:, 0] + svr.intercept_[0]
        return AUTO_C[int(internal_cv_argmin(target, fold_predictions,
                                             sample_weight=sample_weight))]
