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
