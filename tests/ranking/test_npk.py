"""NPK re-ranking kernel (Zhuang 2011 eq. 6.2, Protocol 5) against its SDP."""

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning

from proxlearn.exceptions import InvalidParameterError
from proxlearn.ranking import neighbour_pairs, npk_rank, npk_rank_sdp


def _problem(n=16, seed=0):
    rng = np.random.default_rng(seed)
    X, T = rng.normal(size=(n, 2)), rng.normal(size=(n, 4))
    D = np.sqrt(((X[:, None] - X[None]) ** 2).sum(-1))
    return T @ T.T, D


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("C", [0.1, 1.0, 10.0])
def test_protocol5_reaches_the_sdp_optimum(seed, C):
    Kt, D = _problem(seed=seed)
    res = npk_rank(Kt, D, n_neighbors=3, C=C, tol=1e-8, max_iter=5000)
    K_sdp, value = npk_rank_sdp(Kt, D, n_neighbors=3, C=C)
    scale = max(1.0, abs(value))
    assert res.dual - 1e-6 * scale <= value <= res.primal + 1e-6 * scale  # sandwich
    assert res.gap <= 1e-7 * scale
    np.testing.assert_allclose(res.kernel, K_sdp, atol=2e-3 * np.abs(K_sdp).max())


def test_iterates_are_feasible_and_the_gap_is_certified():
    Kt, D = _problem(seed=2)
    res = npk_rank(Kt, D, n_neighbors=4, C=1.0, B=5.0, tol=1e-9, max_iter=5000)
    assert np.linalg.eigvalsh(res.kernel).min() >= -1e-10
    assert np.sum(res.kernel**2) <= 5.0 * (1 + 1e-10)
    assert np.all(res.alpha >= 0) and res.alpha.shape == (len(res.pairs),)
    duals = [h["dual"] for h in res.history]
    assert all(b >= a - 1e-9 * abs(a) for a, b in zip(duals, duals[1:]))  # ascent
    assert all(h["primal"] >= h["dual"] - 1e-9 * abs(h["primal"]) for h in res.history)


def test_neighbour_pairs():
    D = np.array([[0, 1, 5, 6], [1, 0, 4, 7], [5, 4, 0, 2], [6, 7, 2, 0.0]])
    assert neighbour_pairs(D, 1).tolist() == [[0, 1], [2, 3]]
    assert neighbour_pairs(D, 1, mutual=True).tolist() == [[0, 1], [2, 3]]
    assert neighbour_pairs(D, 2).tolist() == [[0, 1], [0, 2], [0, 3], [1, 2], [2, 3]]
    assert neighbour_pairs(D, 2, mutual=True).tolist() == [[0, 1], [1, 2], [2, 3]]


def test_max_iter_warns_and_bad_input():
    Kt, D = _problem()
    with pytest.warns(ConvergenceWarning, match="duality gap"):
        npk_rank(Kt, D, n_neighbors=3, tol=1e-14, max_iter=1)
    with pytest.raises(InvalidParameterError, match="same n objects"):
        npk_rank(Kt, D[:5, :5])
    with pytest.raises(InvalidParameterError, match="non-negative"):
        npk_rank(Kt, -D)
    with pytest.raises(InvalidParameterError, match="n_neighbors"):
        npk_rank(Kt, D, n_neighbors=16)


def test_low_rank_form_with_a_full_basis_is_the_full_problem():
    Kt, D = _problem(n=14, seed=4)
    full = npk_rank(Kt, D, n_neighbors=3, tol=1e-9, max_iter=5000)
    low = npk_rank(Kt, D, n_neighbors=3, n_components=14, tol=1e-9, max_iter=5000)
    scale = max(1.0, abs(full.primal))
    assert low.primal == pytest.approx(full.primal, abs=1e-6 * scale)
    np.testing.assert_allclose(low.kernel, full.kernel, atol=1e-4 * np.abs(full.kernel).max())
    np.testing.assert_allclose(low.basis.T @ low.basis, np.eye(14), atol=1e-10)


def test_low_rank_form_is_a_restriction():
    """K = V P V^T over m smoothest Laplacian eigenvectors: rank <= m, PSD, feasible,
    and its optimum can only be worse than the full one (certified by both gaps)."""
    Kt, D = _problem(n=30, seed=5)
    full = npk_rank(Kt, D, n_neighbors=4, tol=1e-9, max_iter=5000)
    low = npk_rank(Kt, D, n_neighbors=4, n_components=6, tol=1e-9, max_iter=5000)
    assert low.gap <= 1e-8 * max(1.0, abs(low.primal))
    assert low.primal >= full.dual - 1e-8 * abs(full.dual)
    w = np.linalg.eigvalsh(low.kernel)
    assert w.min() >= -1e-9 and np.sum(w > 1e-9 * w.max()) <= 6
    assert np.sum(low.kernel**2) <= 30 * (1 + 1e-9)
    # the basis: the m smallest eigenpairs of the neighbour graph's Laplacian
    from proxlearn.ranking import laplacian_basis, neighbour_pairs

    pairs = neighbour_pairs(D, 4)
    W = np.zeros((30, 30))
    W[pairs[:, 0], pairs[:, 1]] = W[pairs[:, 1], pairs[:, 0]] = 1.0
    L = np.diag(W.sum(1)) - W
    V = laplacian_basis(pairs, 30, 3)
    mu = np.diag(V.T @ L @ V)
    np.testing.assert_allclose(mu, np.linalg.eigvalsh(L)[:3], atol=1e-9)
    np.testing.assert_allclose(L @ V, V * mu, atol=1e-8)


def test_sparse_and_dense_laplacian_bases_agree():
    from proxlearn.ranking import laplacian_basis, neighbour_pairs

    rng = np.random.default_rng(6)
    X = rng.normal(size=(300, 2))
    D = np.sqrt(((X[:, None] - X[None]) ** 2).sum(-1))
    pairs = neighbour_pairs(D, 6)
    dense = laplacian_basis(pairs, 300, 5, sparse=False)
    sparse = laplacian_basis(pairs, 300, 5, sparse=True)
    # same spectral subspace (eigenvectors are defined up to sign / rotation in ties)
    P_dense, P_sparse = dense @ dense.T, sparse @ sparse.T
    np.testing.assert_allclose(P_sparse, P_dense, atol=1e-6)


@pytest.mark.parametrize("seed", [0, 1])
def test_lowrank_from_features_equals_the_dense_lowrank_form(seed):
    from proxlearn.ranking import npk_rank_lowrank

    rng = np.random.default_rng(seed)
    X, T = rng.normal(size=(40, 3)), rng.normal(size=(40, 6))
    D = np.sqrt(((X[:, None] - X[None]) ** 2).sum(-1))
    dense = npk_rank(T @ T.T, D, n_neighbors=4, n_components=8, tol=1e-9, max_iter=3000)
    fact = npk_rank_lowrank(T, X, 8, n_neighbors=4, tol=1e-9, max_iter=3000)
    np.testing.assert_array_equal(fact.pairs, dense.pairs)
    assert fact.kernel is None and fact.factor.shape == (8, 8)
    np.testing.assert_allclose(fact.rows(np.arange(40)), dense.kernel, atol=1e-6)
    np.testing.assert_allclose(dense.rows([3, 5]), dense.kernel[[3, 5]])
    assert fact.gap <= 1e-8 * max(1, abs(fact.primal))


def test_lowrank_from_features_refuses_bad_shapes():
    from proxlearn.ranking import npk_rank_lowrank

    with pytest.raises(InvalidParameterError, match="one row per item"):
        npk_rank_lowrank(np.ones((5, 2)), np.ones((6, 2)), 2)
    with pytest.raises(InvalidParameterError, match="finite"):
        npk_rank_lowrank(np.full((6, 2), np.nan), np.ones((6, 2)), 2)
