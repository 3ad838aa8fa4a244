"""Tests of DissimilarityToSimilarity."""

import warnings

import numpy as np
import pytest
from numpy.testing import assert_allclose

from proxlearn._validation import (
    InvalidParameterError,
    SimilarityMatrixError,
    TestMatrixError,
)
from proxlearn.transforms import DissimilarityToSimilarity


METHODS = ["max-minus", "negative", "exp", "double-centering"]

def euclid(n=12, seed=0, d=3):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    D = np.sqrt(((X[:, None, :] - X[None, :, :]) ** 2).sum(-1))
    return X, D


def test_max_minus_uses_training_max():
    _, D = euclid()
    t = DissimilarityToSimilarity("max-minus")
    S = t.fit_transform(D)
    assert t.max_ == D.max()
    assert_allclose(S, D.max() - D)
    D_test = 3.0 * D[:2]
    assert_allclose(t.transform(D_test), D.max() - D_test)  # not the test max


def test_negative():
    _, D = euclid()
    assert_allclose(DissimilarityToSimilarity("negative").fit_transform(D), -D)


def test_exp_median_scale_and_given_scale():
    _, D = euclid(10)
    t = DissimilarityToSimilarity("exp")
    S = t.fit_transform(D)
    off = D[~np.eye(10, dtype=bool)]
    assert t.scale_ == pytest.approx(np.median(off))
    assert_allclose(S, np.exp(-D / np.median(off)))
    t2 = DissimilarityToSimilarity("exp", scale=2.5).fit(D)
    assert t2.scale_ == 2.5
    assert_allclose(t2.transform(D[:3]), np.exp(-D[:3] / 2.5))


def test_exp_zero_median_fallback():
    D = np.zeros((5, 5))
    D[0, 1] = D[1, 0] = 4.0
    t = DissimilarityToSimilarity("exp").fit(D)
    assert t.scale_ == 4.0  # mean of positive off-diagonal entries
    t0 = DissimilarityToSimilarity("exp").fit(np.zeros((4, 4)))
    assert t0.scale_ == 1.0
    assert np.all(np.isfinite(t0.transform(np.zeros((1, 4)))))


def test_double_centering_gives_centred_gram():
    X, D = euclid(15, d=4)
    Xc = X - X.mean(axis=0)
    t = DissimilarityToSimilarity("double-centering")
    S = t.fit_transform(D)
    assert_allclose(S, Xc @ Xc.T, atol=1e-10)
    # out-of-sample rows (Gower): inner products with the centred training set
    rng = np.random.default_rng(1)
    Z = rng.standard_normal((4, 4))
    D_test = np.sqrt(((Z[:, None, :] - X[None, :, :]) ** 2).sum(-1))
    expected = (Z - X.mean(axis=0)) @ Xc.T
    # exact up to the test point's own norm term, which is constant per row
    diff = t.transform(D_test) - expected
    assert_allclose(diff - diff.mean(axis=1, keepdims=True), 0.0, atol=1e-10)
    assert_allclose(t.transform(D), S, atol=1e-12)


@pytest.mark.parametrize("method", ["max-minus", "exp"])
def test_negative_entries_warn(method):
    _, D = euclid(6)
    D[0, 1] = -1.0
    with pytest.warns(UserWarning, match="negative"):
        DissimilarityToSimilarity(method).fit(D)


def test_negative_entries_raise_for_double_centering():
    _, D = euclid(6)
    t = DissimilarityToSimilarity("double-centering").fit(D)
    D_bad = D.copy()
    D_bad[0, 1] = -1.0
    with pytest.raises(SimilarityMatrixError, match="negative"):
        DissimilarityToSimilarity("double-centering").fit(D_bad)
    with pytest.raises(SimilarityMatrixError):
        t.transform(D_bad[:2])


def test_negative_method_accepts_any_sign():
    D = -np.abs(euclid(5)[1])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        S = DissimilarityToSimilarity("negative").fit_transform(D)
    assert_allclose(S, -D)


@pytest.mark.parametrize("method", METHODS)
def test_bad_input(method):
    t = DissimilarityToSimilarity(method)
    with pytest.raises(SimilarityMatrixError):
        t.fit(np.ones((3, 4)))
    with pytest.raises(SimilarityMatrixError):
        t.fit(np.array([[0.0, np.nan], [1.0, 0.0]]))
    t.fit(euclid(5)[1])
    with pytest.raises(TestMatrixError):
        t.transform(np.ones((2, 4)))


@pytest.mark.parametrize(
    "params",
    [{"method": "log"}, {"method": "exp", "scale": 0.0}, {"method": "exp", "scale": -1}],
)
def test_invalid_parameters(params):
    with pytest.raises(InvalidParameterError):
        DissimilarityToSimilarity(**params).fit(euclid(5)[1])
