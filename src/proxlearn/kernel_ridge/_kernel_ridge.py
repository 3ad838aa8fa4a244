"""Kernel ridge regression on a spectrum-modified similarity matrix.

========  ===========================================  ==============================
spectrum  training kernel ``K``                        solve of ``(K + alpha I) c = y``
========  ===========================================  ==============================
clip      ``U max(lambda, 0) U^T``                     ``c = U (U^T y / (f(lambda) + alpha))``
flip      ``U |lambda| U^T``                           in the eigenbasis of ``S``, which
                                                       the modification computed
shift     ``S + delta I``                              Cholesky of ``K + alpha I``
square    ``S S^T`` (rows of ``S`` as features)        Cholesky of ``K + alpha I``
none      ``S`` (symmetrised, possibly indefinite)     symmetric indefinite LDL^T
========  ===========================================  ==============================

Prediction ``K_test c`` with the consistent test rows of Chen et al. (2009),
section 2.2 (``K_test = S_test P``), computed as ``S_test (P c)``: one product
with a vector fixed at fit. ``spectrum="square"`` is ridge regression on the
similarity feature vectors (Chen et al. section 3, the rows of ``S``), in the
dual. Why hand-written instead of :class:`sklearn.kernel_ridge.KernelRidge` on
the corrected matrix: clip and flip modify the eigenvalues of ``S`` and keep its
eigenvectors, so ``K + alpha I`` is diagonal in the basis already computed and
the solve costs two matrix-vector products instead of a second ``O(n^3)``
factorisation (docs/methods.md, "Regression on similarities"). It equals
scikit-learn's on the corrected matrix (tests/kernel_ridge).

References
----------
Chen, Garcia, Gupta, Rahimi, Cazzanti (2009), "Similarity-based classification:
concepts and algorithms", JMLR 10: sections 2.1 (spectrum modifications), 2.2
(consistent test transformation), 3 (similarities as features).
"""

from __future__ import annotations

import numpy as np
import scipy.linalg
from sklearn.base import BaseEstimator, RegressorMixin, clone

from .._validation import InvalidParameterError, check_targets, positive, validate_params
from ..base import PairwiseMixin
from ..transforms._spectrum_kernel import SPECTRUM_PARAMETERS, SpectrumLinearModelMixin

__all__ = ["SimilarityKernelRidge"]


class SimilarityKernelRidge(PairwiseMixin, SpectrumLinearModelMixin, RegressorMixin, BaseEstimator):
    """Kernel ridge regression on similarities used as a kernel.

    Minimises ``||y - K c||^2 + alpha c^T K c`` for the spectrum-modified
    training matrix ``K`` (as :class:`sklearn.kernel_ridge.KernelRidge`, no
    intercept; with ``normalize_y=True`` the targets are centred first), so
    ``c = (K + alpha I)^{-1} y``, solved in the eigenbasis of ``S`` for clip and
    flip (see the module docstring), and predicts ``K_test c`` with the
    consistent test rows of Chen et al. (2009), section 2.2.

    Parameters
    ----------
    alpha : float, default=1.0
        Ridge penalty (> 0), in the units of ``K`` (``S / scale_`` with
        ``normalize=True``).
    spectrum : {"clip", "flip", "shift", "square", "none"}, default="clip"
        Spectrum modification, see :class:`~proxlearn.transforms.SpectrumTransformer`.
        ``"square"`` is ridge regression on the rows of ``S``. ``"none"`` solves
        with the indefinite matrix (refused when ``S + alpha I`` is singular).
    test_transform : {"consistent", "linear", "raw"}, default="consistent"
        Treatment of test rows, see ``SpectrumTransformer``.
    tol : float or None, default=None
        Zero-eigenvalue tolerance, see ``SpectrumTransformer``.
    normalize : bool, default=True
        Divide ``S`` and the test rows by ``scale_ = tr S / n`` (see
        :mod:`proxlearn._normalize`): a positive factor on ``S`` leaves every
        prediction unchanged. ``False`` uses ``S`` as given.
    normalize_y : bool, default=True
        Fit on the centred (and scaled) targets and add the mean back: the
        model has no intercept, and without centring it shrinks every
        prediction towards 0 (ours, not a paper's: docs/methods.md,
        "Regression on similarities"). ``False`` is scikit-learn's
        ``KernelRidge`` on the corrected matrix.

    Attributes
    ----------
    scale_ : float
        The factor ``S`` was divided by (1.0 with ``normalize=False``).
    y_mean_, y_scale_ : float
        Mean and standard deviation of the training targets (0 and 1 with
        ``normalize_y=False``).
    transformer_ : SpectrumTransformer
        Fitted on ``S / scale_`` (a full eigendecomposition for clip and flip).
    dual_coef_ : ndarray of shape (n,)
        ``c = (K + alpha I)^{-1} (y - y_mean_) / y_scale_``.
    n_features_in_ : int
        Number of training samples.

    Examples
    --------
    >>> import numpy as np
    >>> from proxlearn.kernel_ridge import SimilarityKernelRidge
    >>> x = np.linspace(0, 3, 30)
    >>> S = np.exp(-(x[:, None] - x[None, :]) ** 2)
    >>> model = SimilarityKernelRidge(alpha=0.01).fit(S, np.sin(x))
    >>> round(model.score(S, np.sin(x)), 2) > 0.9
    True

    See Also
    --------
    proxlearn.svm.SimilaritySVR : epsilon-SVR on the same kernel.
    proxlearn.neighbors.SimilarityKNeighborsRegressor : weighted k-NN regression.
    proxlearn.transforms.SpectrumTransformer : the spectrum modifications.
    sklearn.kernel_ridge.KernelRidge : the same model on a given PSD kernel.
    """

    _parameter_constraints = {"alpha": positive(), **SPECTRUM_PARAMETERS}

    def __init__(self, alpha=1.0, spectrum="clip", test_transform="consistent", tol=None, *,
                 normalize=True, normalize_y=True):
        self.alpha = alpha
        self.spectrum = spectrum
        self.test_transform = test_transform
        self.tol = tol
        self.normalize = normalize
        self.normalize_y = normalize_y

    #: clip / flip: every eigenvector, so that K + alpha I is diagonal in that basis
    _EIGEN_SOLVER = "dense"

    def _fit_dual(self, target, params):
        """``c = (K + alpha I)^{-1} target`` (see the module docstring); no intercept."""
        alpha, spectrum = params["alpha"], params["spectrum"]
        tr = self.transformer_
        if spectrum in ("clip", "flip"):
            U = tr.eigenvectors_
            return U @ ((U.T @ target) / (tr.modified_eigenvalues_ + alpha)), 0.0
        K = tr._training_kernel()
        K.flat[:: K.shape[0] + 1] += alpha
        return self._solve(K, target, spectrum, alpha), 0.0

    def grid_predictions(self, S, y, S_test, params_list):
        """Predictions of ``clone(self).set_params(**p).fit(S, y).predict(S_test)`` for
        every ``p`` of ``params_list``, sharing the eigendecomposition over ``alpha``.

        The grid-path protocol (docs/architecture.md): consecutive settings that
        differ only in ``alpha`` reuse one fitted spectrum transform (clip and flip:
        each further ``alpha`` costs two matrix-vector products, see the module
        docstring); any other change refits.

        Parameters
        ----------
        S : array-like of shape (n, n)
        y : array-like of shape (n,)
        S_test : array-like of shape (m, n)
        params_list : sequence of dict

        Returns
        -------
        list of ndarray of shape (m,)

        Examples
        --------
        >>> import numpy as np
        >>> from proxlearn.kernel_ridge import SimilarityKernelRidge
        >>> x = np.linspace(0, 3, 20)
        >>> S = np.exp(-(x[:, None] - x[None, :]) ** 2)
        >>> grid = [{"alpha": a} for a in (0.01, 1.0)]
        >>> paths = SimilarityKernelRidge().grid_predictions(S, np.sin(x), S[:2], grid)
        >>> bool(np.allclose(paths[1], SimilarityKernelRidge(alpha=1.0).fit(S, np.sin(x)).predict(S[:2])))
        True

        See Also
        --------
        fit, predict : one setting.
        """
        out, base, base_key = [], None, None
        for p in params_list:
            est = clone(self).set_params(**p)
            params = validate_params(est)
            key = {k: v for k, v in params.items() if k != "alpha"}
            if base is None or key != base_key or params["spectrum"] not in ("clip", "flip"):
                est.fit(S, y)
                base, base_key = est, key
                target = (check_targets(y, est.n_features_in_) - est.y_mean_) / est.y_scale_
            else:
                for attr in ("scale_", "y_mean_", "y_scale_", "transformer_", "n_features_in_"):
                    setattr(est, attr, getattr(base, attr))
                est._set_dual(*est._fit_dual(target, params))
            out.append(est.predict(S_test))
        return out

    @staticmethod
    def _solve(A, b, spectrum, alpha):
        """``A^{-1} b`` for ``A = K + alpha I``: positive definite unless ``spectrum="none"``."""
        try:
            return scipy.linalg.solve(A, b, assume_a="pos" if spectrum != "none" else "sym",
                                      overwrite_a=True, check_finite=False)
        except np.linalg.LinAlgError:
            raise InvalidParameterError(
                f"S + alpha I is singular with spectrum={spectrum!r} and alpha={alpha:g} "
                "(an eigenvalue of S equals -alpha). Use spectrum='clip' (the default) "
                "or another alpha."
            ) from None
