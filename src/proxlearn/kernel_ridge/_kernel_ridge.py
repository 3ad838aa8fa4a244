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

``alpha="auto"`` (the default, ours): the value of :data:`AUTO_ALPHAS` (29 values,
``1e-4 .. 1e3``, four per decade, in the units of ``S / scale_``) with the least
exact leave-one-out squared error, in closed form from one eigendecomposition
``K = U diag(g) U^T`` (the hat matrix ``H = U diag(g / (g + alpha)) U^T``, the
leave-one-out residual ``(y_i - (H y)_i) / (1 - H_ii)``; Allen 1974, the
identity behind scikit-learn's ``RidgeCV``): every ``alpha`` costs ``O(n^2)``
after the decomposition (:func:`loo_squared_errors`; docs/methods.md,
"Regression on similarities: alpha and C by default").

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

from .._validation import (
    InvalidParameterError,
    check_targets,
    options,
    positive,
    validate_params,
)
from ..base import PairwiseMixin
from ..transforms._spectrum_kernel import SPECTRUM_PARAMETERS, SpectrumLinearModelMixin

__all__ = ["AUTO_ALPHAS", "SimilarityKernelRidge", "loo_squared_errors"]

#: ``alpha="auto"``: the values tried (units of ``S / scale_``), ``1e-4 .. 1e3``.
AUTO_ALPHAS = np.logspace(-4.0, 3.0, 29)


def loo_squared_errors(U, g, target, alphas):
    """Exact leave-one-out squared errors of kernel ridge on ``K = U diag(g) U^T``.

    For each ``alpha`` the model fitted without sample ``i`` predicts it with the
    residual ``(y_i - (H y)_i) / (1 - H_ii)``, ``H = K (K + alpha I)^{-1} =
    U diag(g / (g + alpha)) U^T`` (the hat matrix; the identity holds for any
    symmetric ``K`` with ``K + alpha I`` and its leave-one-out blocks
    nonsingular). Computed for every ``alpha`` at once from ``U^T y`` and
    ``U * U``: two ``n x n`` by ``n x len(alphas)`` products.

    Parameters
    ----------
    U : ndarray of shape (n, k)
        Orthonormal eigenvectors of ``K`` (``k < n``: the other eigenvalues are 0).
    g : ndarray of shape (k,)
        Their eigenvalues.
    target : ndarray of shape (n,)
    alphas : ndarray of shape (n_alphas,)

    Returns
    -------
    ndarray of shape (n_alphas,)
        Sum over the samples of the squared leave-one-out residuals (``inf`` where
        ``g + alpha`` or ``1 - H_ii`` vanishes, possible only for an indefinite ``K``).

    Examples
    --------
    >>> import numpy as np
    >>> from proxlearn.kernel_ridge._kernel_ridge import loo_squared_errors
    >>> K = np.array([[2.0, 1.0], [1.0, 2.0]])
    >>> g, U = np.linalg.eigh(K)
    >>> y = np.array([1.0, -1.0])
    >>> # without sample 0: c = y_1 / (2 + 1), prediction K[0, 1] c = -1/3
    >>> bool(np.isclose(loo_squared_errors(U, g, y, np.array([1.0]))[0], 2 * (1 + 1 / 3) ** 2))
    True

    See Also
    --------
    SimilarityKernelRidge : ``alpha="auto"`` is the argmin over ``AUTO_ALPHAS``.
    sklearn.linear_model.RidgeCV : the same criterion for linear ridge.
    """
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = g[:, None] / (g[:, None] + alphas[None, :])      # (k, n_alphas)
        fitted = U @ (ratio * (U.T @ target)[:, None])           # H y for each alpha
        leverage = (U * U) @ ratio                               # diag H for each alpha
        err = np.sum(((target[:, None] - fitted) / (1.0 - leverage)) ** 2, axis=0)
    return np.where(np.isfinite(err), err, np.inf)


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
    alpha : float or "auto", default="auto"
        Ridge penalty (> 0), in the units of ``K`` (``S / scale_`` with
        ``normalize=True``). ``"auto"`` (ours; scikit-learn's ``KernelRidge`` has
        ``alpha=1``): the value of ``AUTO_ALPHAS`` (``1e-4 .. 1e3``, 29 values)
        with the least exact leave-one-out squared error on the fitted targets,
        in closed form from the one eigendecomposition (see the module
        docstring). The value used is ``alpha_``.
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
    alpha_ : float
        The ``alpha`` used, in the units of ``K`` (multiply by ``scale_`` for
        the units of ``S``).
    dual_coef_ : ndarray of shape (n,)
        ``c = (K + alpha_ I)^{-1} (y - y_mean_) / y_scale_``.
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

    _parameter_constraints = {"alpha": positive() | options("auto"), **SPECTRUM_PARAMETERS}

    def __init__(self, alpha="auto", spectrum="clip", test_transform="consistent", tol=None, *,
                 normalize=True, normalize_y=True):
        self.alpha = alpha
        self.spectrum = spectrum
        self.test_transform = test_transform
        self.tol = tol
        self.normalize = normalize
        self.normalize_y = normalize_y

    #: clip / flip: every eigenvector, so that K + alpha I is diagonal in that basis
    _EIGEN_SOLVER = "dense"

    def _fit_dual(self, target, params, sample_weight=None):
        """``c = (K + alpha I)^{-1} target`` (see the module docstring); no intercept.
        Sets ``alpha_`` (the leave-one-out choice for ``alpha="auto"``).
        ``sample_weight``: :meth:`_fit_weighted`."""
        if sample_weight is not None:
            return self._fit_weighted(target, params, sample_weight)
        alpha, spectrum = params["alpha"], params["spectrum"]
        tr = self.transformer_
        if spectrum in ("clip", "flip"):
            U, g = tr.eigenvectors_, tr.modified_eigenvalues_
        elif alpha == "auto":  # one decomposition of K serves the choice and the solve
            g, U = scipy.linalg.eigh(tr._training_kernel(), driver="evd", overwrite_a=True,
                                     check_finite=False)
        if alpha == "auto":
            err = loo_squared_errors(U, g, target, AUTO_ALPHAS)
            alpha = float(AUTO_ALPHAS[int(np.argmin(err))])
        self.alpha_ = float(alpha)
        if spectrum in ("clip", "flip") or params["alpha"] == "auto":
            if spectrum == "none" and np.min(np.abs(g + alpha)) <= 0.0:
                self._singular(spectrum, alpha)
            return U @ ((U.T @ target) / (g + alpha)), 0.0
        K = tr._training_kernel()
        K.flat[:: K.shape[0] + 1] += alpha
        return self._solve(K, target, spectrum, alpha), 0.0

    def _fit_weighted(self, target, params, w):
        """Weighted kernel ridge, ``min_c sum_i w_i (y_i - (K c)_i)^2 + alpha c^T K c``:
        with ``D = diag(sqrt(w))`` it is the unweighted problem on ``D K D`` and
        ``D y``, ``c = D (D K D + alpha I)^{-1} D y`` (as scikit-learn's
        ``KernelRidge``). A weight 0 zeroes its row, column and coefficient (the
        sample is left out); an integer weight counts the sample that many times.
        ``alpha="auto"``: the leave-one-out residuals of the rescaled problem are
        ``sqrt(w_i)`` times those of the weighted one, so :func:`loo_squared_errors`
        on the eigendecomposition of ``D K D`` is the weighted leave-one-out error
        ``sum_i w_i (y_i - f_{-i}(x_i))^2`` (docs/methods.md, "Sample weights of the
        regressors"). One decomposition of ``D K D``; the eigenbasis of ``S`` no
        longer diagonalises the system."""
        alpha, spectrum = params["alpha"], params["spectrum"]
        sw = np.sqrt(w)
        K = self.transformer_._training_kernel()
        K *= sw[:, None]
        K *= sw[None, :]
        yw = sw * target
        if alpha == "auto":
            g, U = scipy.linalg.eigh(K, driver="evd", overwrite_a=True, check_finite=False)
            err = loo_squared_errors(U, g, yw, AUTO_ALPHAS)
            alpha = float(AUTO_ALPHAS[int(np.argmin(err))])
            if spectrum == "none" and np.min(np.abs(g + alpha)) <= 0.0:
                self._singular(spectrum, alpha)
            self.alpha_ = alpha
            return sw * (U @ ((U.T @ yw) / (g + alpha))), 0.0
        self.alpha_ = float(alpha)
        K.flat[:: K.shape[0] + 1] += alpha
        return sw * self._solve(K, yw, spectrum, alpha), 0.0

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
            SimilarityKernelRidge._singular(spectrum, alpha)

    @staticmethod
    def _singular(spectrum, alpha):
        raise InvalidParameterError(
            f"S + alpha I is singular with spectrum={spectrum!r} and alpha={alpha:g} "
            "(an eigenvalue of S equals -alpha). Use spectrum='clip' (the default) "
            "or another alpha."
        ) from None
