"""Kernel warping (Zhuang 2011 eq. 6.9; Sindhwani, Niyogi & Belkin 2005)."""

import pickle

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from proxlearn.exceptions import InvalidParameterError, SimilarityMatrixError
from proxlearn.kernel_learning import WarpedKernel, graph_laplacian


def _rbf(X, Y, gamma=0.5):
    d2 = ((X[:, None] - Y[None]) ** 2).sum(-1)
    return np.exp(-gamma * d2)


def _data(n=12, m=5, seed=0):
    rng = np.random.default_rng(seed)
    X, Z = rng.normal(size=(n, 2)), rng.normal(size=(m, 2))
    return _rbf(X, X), _rbf(Z, X), _rbf(Z, Z)


@pytest.mark.parametrize("ratio", [0.1, 1.0, 10.0])
def test_training_gram_is_the_formula(ratio):
    """k~(x_i, x_j) = k(x_i, x_j) - kappa_j^T (I + r L K)^{-1} r L kappa_i (eq. 6.9)."""
    K, _, _ = _data()
    G = K @ K + 0.1 * np.random.default_rng(1).normal(size=K.shape)  # some learned kernel
    w = WarpedKernel(G, ratio=ratio).fit(K)
    L = np.diag(np.maximum((G + G.T) / 2, 0).sum(1)) - np.maximum((G + G.T) / 2, 0)
    M = np.linalg.inv(np.eye(len(K)) + ratio * L @ K) @ (ratio * L)
    expected = np.array([[K[i, j] - K[:, j] @ M @ K[:, i] for j in range(len(K))]
                         for i in range(len(K))])
    np.testing.assert_allclose(w.kernel_, expected, atol=1e-10)
    np.testing.assert_allclose(w.laplacian_, L, atol=1e-12)


def test_unseen_points_and_psd():
    K, K_te, K_tt = _data()
    w = WarpedKernel(ratio=2.0).fit(K)
    rows = w.transform(K_te)
    M = w._M
    for a in range(K_te.shape[0]):
        for j in range(K.shape[0]):
            assert rows[a, j] == pytest.approx(K_te[a, j] - K[:, j] @ M @ K_te[a], abs=1e-10)
    # the joint warped Gram of train + test points is PSD (a deformed RKHS kernel)
    full = np.block([[w.kernel_, rows.T],
                     [rows, K_tt - K_te @ M.T @ K_te.T]])
    assert np.linalg.eigvalsh((full + full.T) / 2).min() >= -1e-9
    assert np.linalg.eigvalsh(w.kernel_).min() >= -1e-10
    np.testing.assert_allclose(pickle.loads(pickle.dumps(w)).transform(K_te), rows)


@settings(max_examples=25, deadline=None)
@given(st.integers(3, 14), st.integers(0, 10_000), st.floats(0.01, 100.0))
def test_train_rows_map_to_the_warped_gram(n, seed, ratio):
    """Consistency: transform(K) == fit_transform(K), row by row."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    K = _rbf(X, X)
    w = WarpedKernel(ratio=ratio)
    Kw = w.fit_transform(K)
    np.testing.assert_allclose(w.transform(K), Kw, atol=1e-9 * max(1.0, np.abs(Kw).max()))


def test_warping_pulls_graph_neighbours_together():
    """With a graph linking points 0 and 1 strongly, their warped distance shrinks."""
    K, _, _ = _data(seed=3)
    G = np.zeros_like(K)
    G[0, 1] = G[1, 0] = 50.0
    Kw = WarpedKernel(G, ratio=1.0).fit_transform(K)  # eq. 6.9

    def dist(M):
        return M[0, 0] + M[1, 1] - 2 * M[0, 1]

    assert dist(Kw) < 0.1 * dist(K)


def test_negative_graph_weights_are_clipped_and_shapes_checked():
    L = graph_laplacian(np.array([[1.0, -2.0], [-2.0, 1.0]]))
    np.testing.assert_allclose(L, np.zeros((2, 2)))
    K, _, _ = _data()
    with pytest.raises(SimilarityMatrixError, match="same n training points"):
        WarpedKernel(np.eye(3)).fit(K)


# ------------------------------------------------------------- defaults (issue 40)

def test_auto_ratio_is_unit_free():
    """ratio="auto" is 0.01 / (c_K c_L): a factor on K scales the warped kernel by
    the same factor (train and test rows); an absolute ratio does not."""
    K, _, _ = _data(seed=5)
    n = K.shape[0]
    w = WarpedKernel().fit(K)
    L = graph_laplacian(K)
    assert w.ratio_ == pytest.approx(0.01 / ((np.trace(K) / n) * (np.trace(L) / n)))
    for c in (1e-3, 1e3):
        wc = WarpedKernel().fit(c * K)
        np.testing.assert_allclose(wc.kernel_, c * w.kernel_, rtol=1e-8, atol=1e-12 * c)
        np.testing.assert_allclose(wc.transform(c * K[:4]), c * w.transform(K[:4]),
                                   rtol=1e-8, atol=1e-12 * c)
    literal = WarpedKernel(ratio=1.0)
    assert not np.allclose(literal.fit(1e3 * K).kernel_ / 1e3, literal.fit(K).kernel_)


def test_bad_ratio():
    K, _, _ = _data()
    for bad in ("big", 0.0, -1.0):
        with pytest.raises(InvalidParameterError, match="ratio"):
            WarpedKernel(ratio=bad).fit(K)
