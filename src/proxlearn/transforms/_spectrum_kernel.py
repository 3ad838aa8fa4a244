"""A learner on the spectrum-modified similarity, linear in the test rows.

Shared by the regressors :class:`~proxlearn.svm.SimilaritySVR` and
:class:`~proxlearn.kernel_ridge.SimilarityKernelRidge`, which
sit in two packages of layer 4 and so take the piece from this layer. Their
``fit`` is the one of :class:`~proxlearn.svm.SimilaritySVC`: validate ``S`` for
the spectrum method, divide it by its scale (``normalize``,
:mod:`proxlearn._normalize`), fit a
:class:`~proxlearn.transforms.SpectrumTransformer` on it; then a model whose
prediction is ``K_test @ c + b`` with ``K_test = transform(S_test / scale_)``.
Because the test map is linear (``transform(S_test) = S_test M``,
:meth:`SpectrumTransformer.transform_coef`), the prediction is ``S_test @ w + b``
with ``w = M c / scale_`` computed once at fit: ``O(m n)`` per prediction,
never the ``O(m n^2)`` of forming ``K_test``.

Targets (:func:`fit_target_scale`, also used by
:class:`~proxlearn.svm.SimilarityFeatureSVR`): with ``normalize_y=True`` the model is
fitted on ``(y - mean) / std`` and predictions are mapped back, so that an intercept-free model (kernel ridge) is
not shrunk towards 0 and the SVR's ``epsilon`` and ``C`` are in units of the
target's spread (docs/methods.md, "Regression on similarities").
"""

from __future__ import annotations

import numpy as np
from sklearn.utils.validation import check_is_fitted

from .._normalize import ScaleNormalizeMixin
from .._validation import (
    NORMALIZE,
    boolean,
    check_sample_weight,
    check_similarity,
    check_targets,
    check_test_similarity,
    options,
    validate_params,
)
from ._spectrum import SPECTRUM_METHODS, SPECTRUM_TOL, TEST_TRANSFORMS, SpectrumTransformer

__all__ = ["SPECTRUM_PARAMETERS", "SpectrumLinearModelMixin", "fit_target_scale"]

#: Parameter table entries of the spectrum options (the same as SimilaritySVC's).
SPECTRUM_PARAMETERS = {
    "spectrum": options(*SPECTRUM_METHODS),
    "test_transform": options(*TEST_TRANSFORMS),
    "tol": SPECTRUM_TOL,
    "normalize": NORMALIZE,
    "normalize_y": boolean("True (the default) fits on (y - mean) / std and maps the "
                           "predictions back; False uses y as given."),
}


def fit_target_scale(estimator, y, normalize_y, sample_weight=None):
    """Set ``estimator.y_mean_`` / ``y_scale_`` (mean and standard deviation of the
    validated targets ``y``; 0 and 1 without ``normalize_y``, scale 1 for a constant
    ``y``) and return the targets the model is fitted on, ``(y - y_mean_) / y_scale_``.
    With ``sample_weight`` the mean and deviation are weighted (an integer weight
    counts the target that many times, a weight 0 not at all).

    Examples
    --------
    >>> import numpy as np
    >>> from types import SimpleNamespace
    >>> from proxlearn.transforms._spectrum_kernel import fit_target_scale
    >>> est = SimpleNamespace()
    >>> fit_target_scale(est, np.array([1.0, 3.0]), True).tolist(), est.y_mean_, est.y_scale_
    ([-1.0, 1.0], 2.0, 1.0)

    See Also
    --------
    SpectrumLinearModelMixin : its user.
    """
    if normalize_y and sample_weight is not None:
        mean = float(np.average(y, weights=sample_weight))
        spread = float(np.sqrt(np.average((y - mean) ** 2, weights=sample_weight)))
        estimator.y_mean_, estimator.y_scale_ = mean, spread if spread > 0 else 1.0
    elif normalize_y:
        spread = float(y.std())
        estimator.y_mean_, estimator.y_scale_ = float(y.mean()), spread if spread > 0 else 1.0
    else:
        estimator.y_mean_, estimator.y_scale_ = 0.0, 1.0
    return (y - estimator.y_mean_) / estimator.y_scale_


class SpectrumLinearModelMixin(ScaleNormalizeMixin):
    """``fit`` scaffolding and ``predict`` of a model ``K_test @ c + b`` on the
    spectrum-modified similarity (see the module docstring).

    The estimator has the parameters of :data:`SPECTRUM_PARAMETERS` and a method
    ``_fit_dual(target, params)`` returning the dual coefficients ``c`` (length
    ``n``) and the intercept ``b`` of its model on ``transformer_`` (fitted on
    ``S / scale_``) and the targets in fitted units; ``_EIGEN_SOLVER`` is the
    transformer's ``eigen_solver`` (``"dense"``: every eigenvector). Where
    ``_needs_matrix(params)`` is true (an internal cross-validation),
    ``_fit_dual`` also receives ``S_fit``, a copy of the validated ``S / scale_``.

    Examples
    --------
    >>> import numpy as np
    >>> from proxlearn.kernel_ridge import SimilarityKernelRidge
    >>> S = np.array([[1.0, 0.8, 0.1], [0.8, 1.0, 0.3], [0.1, 0.3, 1.0]])
    >>> y = [1.0, 1.2, 3.0]
    >>> a, b = SimilarityKernelRidge().fit(S, y), SimilarityKernelRidge().fit(10 * S, y)
    >>> bool(np.allclose(a.predict(S), b.predict(10 * S))), b.scale_
    (True, 10.0)

    See Also
    --------
    proxlearn.svm.SimilaritySVR, proxlearn.kernel_ridge.SimilarityKernelRidge : the users.
    proxlearn._normalize.ScaleNormalizeMixin : ``normalize`` and ``scale_``.
    """

    _EIGEN_SOLVER = "auto"

    def fit(self, S, y, sample_weight=None):
        """Fit on the ``n x n`` training similarity matrix and real-valued targets.

        Parameters
        ----------
        S : array-like of shape (n, n)
            Training similarities (asymmetric input is symmetrised with an
            :class:`AsymmetricSimilarityWarning`, except for ``"square"``).
        y : array-like of shape (n,)
            Finite real-valued targets.
        sample_weight : array-like of shape (n,), optional
            Non-negative weight of each sample's loss (README "Sample weights"):
            the spectrum modification and ``scale_`` are of the whole matrix;
            ``normalize_y``'s mean and deviation, the loss and the internal choice
            of ``"auto"`` are weighted.

        Returns
        -------
        self
        """
        params = validate_params(self)
        keep = self._needs_matrix(params)
        target = self._fit_spectrum(S, y, params, self._EIGEN_SOLVER, keep_matrix=keep,
                                    sample_weight=sample_weight)
        S_fit, self._S_fit = self._S_fit, None
        weights, self._sample_weight = self._sample_weight, None
        extra = {} if weights is None else {"sample_weight": weights}
        coef, intercept = (self._fit_dual(target, params, S_fit=S_fit, **extra) if keep
                           else self._fit_dual(target, params, **extra))
        self._set_dual(coef, intercept)
        return self

    _S_fit = None
    _sample_weight = None

    def _needs_matrix(self, params):
        """Whether ``_fit_dual`` needs the matrix itself (not only ``transformer_``)."""
        return False

    def _fit_spectrum(self, S, y, params, eigen_solver="auto", keep_matrix=False,
                      sample_weight=None):
        """Validate ``S``, ``y`` and ``sample_weight`` (before the eigendecomposition),
        fit the spectrum transformer on ``S / scale_`` and return the targets the model
        is fitted on (with ``keep_matrix``, a copy of ``S / scale_`` is left in
        ``_S_fit``; the validated weights in ``_sample_weight``)."""
        transformer = SpectrumTransformer(method=params["spectrum"],
                                          test_transform=params["test_transform"],
                                          tol=params["tol"], eigen_solver=eigen_solver)
        arr = check_similarity(S, symmetric=transformer._symmetric_mode(params["spectrum"]))
        self._sample_weight = check_sample_weight(sample_weight, arr.shape[0])
        target = fit_target_scale(self, check_targets(y, arr.shape[0]), params["normalize_y"],
                                  self._sample_weight)
        scaled = self._fit_scale(arr, params["normalize"])  # a new array unless the scale is 1
        self._S_fit = scaled.copy() if keep_matrix else None
        # S (not scaled) as the input to protect: a new scaled array is the
        # transformer's to keep or overwrite, without another n x n copy
        self.transformer_ = transformer._fit_checked(
            scaled, S,
            params["spectrum"], params["test_transform"], params["tol"])
        self.n_features_in_ = arr.shape[0]
        return target

    def _set_dual(self, coef, intercept=0.0):
        """Fold the test map, ``1 / scale_`` and the target units into ``S_test @ w + b``."""
        self.dual_coef_ = np.asarray(coef, dtype=np.float64)
        w = self.transformer_.transform_coef(self.dual_coef_[:, None])[:, 0]
        self._weights = w * (self.y_scale_ / self.scale_)
        self._intercept = self.y_mean_ + self.y_scale_ * float(intercept)

    def predict(self, S_test):
        """Predict targets for test-to-train similarities.

        Parameters
        ----------
        S_test : array-like of shape (m, n)
            Similarities of each test sample to every training sample, in
            training order (a single row may be a vector of length ``n``).

        Returns
        -------
        y_pred : ndarray of shape (m,)
        """
        check_is_fitted(self, "dual_coef_")
        arr = check_test_similarity(S_test, self.n_features_in_)
        return arr @ self._weights + self._intercept
