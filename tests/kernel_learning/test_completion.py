"""Kernel matrix completion by the em algorithm (Tsuda et al. 2003; Chen thesis 6.1)."""

import warnings

import numpy as np
import pytest
from scipy.optimize import minimize
from sklearn.exceptions import ConvergenceWarning

from proxlearn.exceptions import InvalidParameterError, SimilarityMatrixError
from proxlearn.kernel_learning import em_complete, stein_loss
from proxlearn.kernel_learning._completion import _e_step


def _pair(n=12, n1=8, noise=0.3, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 4))
    K = X @ X.T + 0.5 * np.eye(n)
    Z = X + noise * rng.normal(size=X.shape)
    return K, Z @ Z.T + 0.5 * np.eye(n), n1


def test_auxiliary_equal_to_the_kernel_is_completed_exactly():
    K, _, n1 = _pair()
    res = em_complete(K[:n1, :n1], K)
    np.testing.assert_allclose(res.kernel, K, atol=1e-9)
    assert res.n_iter <= 2


def test_keeps_k11_stays_positive_definite_and_never_increases_the_loss():
    K, A, n1 = _pair(seed=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = em_complete(K[:n1, :n1], A, max_iter=50)
    np.testing.assert_array_equal(res.kernel[:n1, :n1], K[:n1, :n1])
    np.testing.assert_allclose(res.kernel, res.kernel.T)
    assert np.linalg.eigvalsh(res.kernel).min() > 0
    h = np.array(res.objective_history)
    assert np.all(np.diff(h) <= 1e-10 * np.abs(h[:-1]))
    assert h[-1] < h[0]


def test_e_step_is_the_minimiser_of_steins_loss():
    """Closed form vs a numerical minimisation over the missing entries (n = 5, n1 = 3)."""
    rng = np.random.default_rng(2)
    X = rng.normal(size=(5, 5))
    M = X @ X.T + np.eye(5)
    Y = rng.normal(size=(3, 3))
    K11 = Y @ Y.T + np.eye(3)
    K_closed = _e_step(K11, M, 3)
    iu = np.triu_indices(2)

    def complete(theta):
        K = np.empty((5, 5))
        K[:3, :3] = K11
        K[3:, :3] = theta[:6].reshape(2, 3)
        K[:3, 3:] = K[3:, :3].T
        H = np.zeros((2, 2))
        H[iu] = theta[6:]
        K[3:, 3:] = H + np.triu(H, 1).T
        return K

    theta0 = np.r_[K_closed[3:, :3].ravel(), K_closed[3:, 3:][iu]] + 0.3
    res = minimize(lambda t: stein_loss(complete(t), M), theta0, method="Nelder-Mead",
                   options={"xatol": 1e-10, "fatol": 1e-12, "maxiter": 20000, "maxfev": 40000})
    assert stein_loss(K_closed, M) <= res.fun + 1e-9
    np.testing.assert_allclose(complete(res.x), K_closed, atol=1e-3)


def test_m_step_weights_are_the_projections():
    K, A, n1 = _pair(seed=3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = em_complete(K[:n1, :n1], A, max_iter=1, acceleration="none")
    V = np.linalg.eigh(A)[1]
    K1 = _e_step(K[:n1, :n1], A, n1)  # the first e-step starts from M = K_aux
    np.testing.assert_allclose(res.weights, np.einsum("ij,ik,kj->j", V, K1, V), rtol=1e-8)


def test_bad_input():
    K, A, n1 = _pair()
    with pytest.raises(SimilarityMatrixError, match="positive definite"):
        em_complete(-np.eye(n1), A)
    with pytest.raises(InvalidParameterError, match="nothing to complete"):
        em_complete(K, K[:5, :5])
    for bad in (0, -1, 2.5, True):
        with pytest.raises(InvalidParameterError, match="max_iter must be an integer >= 1"):
            em_complete(K[:n1, :n1], A, max_iter=bad)
    with pytest.raises(InvalidParameterError, match="acceleration"):
        em_complete(K[:n1, :n1], A, acceleration="aitken")


def _digits_pair():
    """A slow case for the plain em iteration: ``K_aux`` an RBF on all 64 pixels of 60
    digits, ``K11`` an RBF on every second pixel of the first 40."""
    from sklearn.datasets import load_digits
    from sklearn.metrics.pairwise import rbf_kernel

    X = load_digits().data[:60]
    return rbf_kernel(X[:40, ::2], gamma=2e-3), rbf_kernel(X, gamma=1e-3)


def test_squarem_converges_where_plain_em_stops_at_its_limit():
    """At the defaults (200 iterations, tol 1e-10) the plain em iteration stops at its
    limit on this pair; the accelerated one converges, never increases the loss, and
    reaches the plain iteration's own fixed point (run to convergence)."""
    K11, A = _digits_pair()
    with pytest.warns(ConvergenceWarning):
        em_complete(K11, A, acceleration="none")
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        fast = em_complete(K11, A)
        slow = em_complete(K11, A, acceleration="none", max_iter=20000)
    h = np.array(fast.objective_history)
    assert np.all(np.diff(h) <= 0)
    assert h[-1] <= slow.objective_history[-1] + 1e-10 * abs(h[-1])
    np.testing.assert_array_equal(fast.kernel[:40, :40], K11)
    # the loss is flat along some weights: at equal loss (1e-10) entries differ by ~2e-4
    np.testing.assert_allclose(fast.kernel, slow.kernel, rtol=0, atol=1e-3)
    assert fast.n_iter < slow.n_iter / 5
