"""Tests of Symmetrize."""

import warnings

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal

from proxlearn._validation import SimilarityMatrixError, TestMatrixError
from proxlearn.transforms import Symmetrize


def asym(n=7, seed=0):
    return np.random.default_rng(seed).standard_normal((n, n))


def test_fit_transform_is_symmetric_part():
    S = asym()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # symmetrising is the point: no warning
        K = Symmetrize().fit_transform(S)
    assert_allclose(K, (S + S.T) / 2)
    assert_array_equal(K, K.T)


def test_transform_with_both_directions():
    rng = np.random.default_rng(1)
    S = asym(6)
    S_test = rng.standard_normal((3, 6))
    S_test_T = rng.standard_normal((6, 3))
    t = Symmetrize().fit(S)
    assert t.n_features_in_ == 6
    assert_allclose(t.transform(S_test, S_test_T), (S_test + S_test_T.T) / 2)
    # training rows with their train-to-train transposes reproduce fit_transform
    # (train-to-test similarities of training samples are the columns of S)
    assert_allclose(t.transform(S, S), t.fit_transform(S))
    assert_allclose(t.transform(S[2:4], S[:, 2:4]), ((S + S.T) / 2)[2:4])


def test_transform_without_transpose_returns_copy():
    S = asym(5)
    S_test = np.random.default_rng(2).standard_normal((2, 5))
    out = Symmetrize().fit(S).transform(S_test)
    assert_array_equal(out, S_test)
    out[0, 0] = 99.0
    assert S_test[0, 0] != 99.0


def test_bad_shapes():
    t = Symmetrize().fit(asym(5))
    with pytest.raises(TestMatrixError):
        t.transform(np.ones((2, 4)))
    with pytest.raises(TestMatrixError):
        t.transform(np.ones((2, 5)), np.ones((2, 5)))  # should be (5, 2)
    with pytest.raises(SimilarityMatrixError):
        t.transform(np.ones((2, 5)), np.full((5, 2), np.inf))
    with pytest.raises(SimilarityMatrixError):
        Symmetrize().fit(np.ones((3, 4)))
    with pytest.raises(SimilarityMatrixError):
        Symmetrize().fit([[1.0, 2.0], [1.0]])
