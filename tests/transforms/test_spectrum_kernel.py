"""transforms._spectrum_kernel: the shared fit / predict of the regressors on the
spectrum-modified similarity (issue 37, item 1)."""

import inspect

import numpy as np
import pytest
from numpy.testing import assert_allclose

from proxlearn.kernel_ridge import SimilarityKernelRidge
from proxlearn.svm import SimilaritySVC, SimilaritySVR
from proxlearn.transforms._spectrum_kernel import SPECTRUM_PARAMETERS


@pytest.mark.parametrize("cls", [SimilaritySVR, SimilarityKernelRidge])
def test_same_spectrum_options_and_defaults_as_similarity_svc(cls):
    svc = inspect.signature(SimilaritySVC).parameters
    ours = inspect.signature(cls).parameters
    for name in ("spectrum", "test_transform", "tol", "normalize"):
        assert ours[name].default == svc[name].default, name
        assert cls._parameter_constraints[name] is SPECTRUM_PARAMETERS[name]
        assert (repr(cls._parameter_constraints[name])
                == repr(SimilaritySVC._parameter_constraints[name])), name


@pytest.mark.parametrize("cls", [SimilaritySVR, SimilarityKernelRidge])
@pytest.mark.parametrize("spectrum", ["clip", "flip", "shift", "square", "none"])
@pytest.mark.parametrize("test_transform", ["consistent", "linear", "raw"])
def test_folded_prediction_equals_the_model_on_transformed_rows(cls, spectrum, test_transform):
    """predict(S_test) = S_test (M c) / scale + b equals the model applied to the
    transformed test rows K_test = transform(S_test / scale)."""
    rng = np.random.default_rng(2)
    X = rng.normal(size=(35, 3))
    S = 5.0 * np.tanh(X @ X.T - 0.2)
    y = 10 + X[:, 0]
    est = cls(spectrum=spectrum, test_transform=test_transform).fit(S[:25, :25], y[:25])
    K_te = est.transformer_.transform(S[25:, :25] / est.scale_)
    b = getattr(est, "intercept_", 0.0)
    expected = est.y_mean_ + est.y_scale_ * (K_te @ est.dual_coef_ + b)
    assert_allclose(est.predict(S[25:, :25]), expected, rtol=1e-9, atol=1e-9)
