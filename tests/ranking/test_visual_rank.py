"""VisualRank (Zhuang 2011 sec. 6.2) and the kernel dependence measures."""

import warnings

import numpy as np
import pytest

from proxlearn.exceptions import InvalidParameterError, SimilarityMatrixError
from proxlearn.metrics import centered_alignment, hsic
from proxlearn.ranking import visual_rank


def _column_stochastic(K):
    K = np.maximum(K, 0.0)
    col = K.sum(axis=0)
    P = K / np.where(col > 0, col, 1.0)
    P[:, col <= 0] = 1.0 / K.shape[0]
    return P


@pytest.mark.parametrize("d", [0.0, 0.5, 0.85, 0.99])
def test_matches_the_linear_system(d):
    """Certificate: the scores solve (I - d K~) v = (1 - d) p exactly."""
    rng = np.random.default_rng(0)
    K = rng.random((30, 30))
    K[:, 3] = 0.0  # a dangling column
    v = visual_rank(K, damping=d)
    P = _column_stochastic(K)
    ref = np.linalg.solve(np.eye(30) - d * P, np.full(30, (1 - d) / 30))
    np.testing.assert_allclose(v, ref / ref.sum(), atol=1e-10)
    assert v.min() >= 0 and v.sum() == pytest.approx(1.0)


def test_doubly_stochastic_symmetric_kernel_gives_uniform_scores():
    rng = np.random.default_rng(1)
    A = rng.random((12, 12))
    K = A + A.T
    for _ in range(500):  # Sinkhorn to a symmetric doubly-stochastic matrix
        K = K / K.sum(axis=0, keepdims=True)
        K = 0.5 * (K + K.T)
    np.testing.assert_allclose(visual_rank(K), np.full(12, 1 / 12), atol=1e-9)


def test_central_object_ranks_first_and_personalization():
    K = np.eye(6) * 0.1
    K[0, 1:] = K[1:, 0] = 1.0  # object 0 is similar to everything
    v = visual_rank(K)
    assert np.argmax(v) == 0
    p = np.zeros(6)
    p[5] = 1.0
    w = visual_rank(K, personalization=p)
    assert w[5] > v[5]


def test_negative_entries():
    K = np.array([[1.0, -0.5, 0.2], [-0.5, 1.0, 0.3], [0.2, 0.3, 1.0]])
    np.testing.assert_allclose(visual_rank(K), visual_rank(np.maximum(K, 0)))
    with pytest.raises(SimilarityMatrixError, match="negative='clip'"):
        visual_rank(K, negative="raise")
    with pytest.raises(InvalidParameterError, match="damping"):
        visual_rank(K, damping=1.0)
    with pytest.raises(InvalidParameterError, match="personalization"):
        visual_rank(K, personalization=[1.0, -1.0, 0.0])


def test_not_converging_warns():
    from sklearn.exceptions import ConvergenceWarning

    K = np.random.default_rng(2).random((8, 8))
    with pytest.warns(ConvergenceWarning, match="did not reach"):
        visual_rank(K, damping=0.99, max_iter=3)


def test_hsic_is_the_trace_formula():
    rng = np.random.default_rng(3)
    X, Z = rng.normal(size=(15, 3)), rng.normal(size=(15, 2))
    K, L = X @ X.T, Z @ Z.T
    H = np.eye(15) - np.ones((15, 15)) / 15
    assert hsic(K, L) == pytest.approx(np.trace(K @ H @ L @ H) / 14**2, rel=1e-12)
    assert hsic(K, L) == pytest.approx(hsic(L, K), rel=1e-12)
    assert hsic(K, L) >= 0
    assert hsic(K, np.ones((15, 15))) == pytest.approx(0.0, abs=1e-12)
    with pytest.raises(InvalidParameterError, match="same objects"):
        hsic(K, L[:5, :5])


def test_centered_alignment():
    rng = np.random.default_rng(4)
    X = rng.normal(size=(20, 3))
    K = X @ X.T
    assert centered_alignment(K, 3.0 * K + 2.0) == pytest.approx(1.0)  # scale, constant shift
    y = np.where(X[:, 0] > 0, 1.0, -1.0)
    good = centered_alignment(np.outer(X[:, 0], X[:, 0]), np.outer(y, y))
    bad = centered_alignment(np.outer(X[:, 2], X[:, 2]), np.outer(y, y))
    assert -1 <= bad < good <= 1
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert np.isnan(centered_alignment(K, np.ones((20, 20))))
