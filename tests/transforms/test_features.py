"""Tests of SimilarityFeatures (similarities as features)."""

import warnings

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal

from proxlearn._validation import InvalidParameterError, TestMatrixError
from proxlearn.transforms import SimilarityFeatures


def data(n=9, m=4, seed=0):
    rng = np.random.default_rng(seed)
    return rng.standard_normal((n, n)), rng.standard_normal((m, n))


def test_linear_kernel_uses_rows_as_given():
    S, S_test = data()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # asymmetric S is fine: rows are features
        t = SimilarityFeatures("linear")
        K = t.fit_transform(S)
    assert_allclose(K, S @ S.T)
    assert_allclose(t.transform(S_test), S_test @ S.T)
    assert t.n_features_in_ == 9


@pytest.mark.parametrize("gamma", [0.01, 0.3])
def test_rbf_kernel_matches_explicit_formula(gamma):
    S, S_test = data()
    t = SimilarityFeatures("rbf", gamma=gamma)
    K = t.fit_transform(S)
    d2 = ((S[:, None, :] - S[None, :, :]) ** 2).sum(-1)
    assert_allclose(K, np.exp(-gamma * d2), rtol=1e-10, atol=1e-14)
    assert_array_equal(np.diag(K), 1.0)
    d2t = ((S_test[:, None, :] - S[None, :, :]) ** 2).sum(-1)
    assert_allclose(t.transform(S_test), np.exp(-gamma * d2t), rtol=1e-10, atol=1e-14)
    assert np.all(K <= 1.0) and np.all(K > 0.0)


def test_rbf_large_offsets_stay_in_range():
    # a large common offset makes the ||a||^2 + ||b||^2 - 2ab expansion cancel
    S, _ = data(6)
    S = S + 1e4
    K = SimilarityFeatures("rbf", gamma=1e-3).fit_transform(S)
    assert np.all(np.isfinite(K)) and np.all(K <= 1.0) and np.all(K >= 0.0)


def test_stored_rows_are_a_copy():
    S, S_test = data()
    t = SimilarityFeatures().fit(S)
    before = t.transform(S_test)
    S[:] = 0.0
    assert_allclose(t.transform(S_test), before)


def test_bad_input():
    S, _ = data()
    t = SimilarityFeatures().fit(S)
    with pytest.raises(TestMatrixError):
        t.transform(np.ones((2, 8)))
    with pytest.raises(InvalidParameterError):
        SimilarityFeatures("poly").fit(S)
    with pytest.raises(InvalidParameterError):
        SimilarityFeatures("rbf", gamma=0.0).fit(S)
    # gamma is ignored by the linear kernel
    SimilarityFeatures("linear", gamma=-1.0).fit(S)
