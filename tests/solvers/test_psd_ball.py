"""K-step of NPK learning against cvxpy (Zhuang 2011 Thm 6.34 / Prop. 3.25)."""

import cvxpy as cp
import numpy as np
import pytest

from proxlearn.exceptions import InvalidParameterError
from proxlearn.solvers import max_trace_psd_ball


def _sym(n, seed):
    X = np.random.default_rng(seed).normal(size=(n, n))
    return X + X.T


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("B", [0.5, 10.0])
def test_frobenius_k_step_equals_the_cvxpy_optimum(seed, B):
    A = _sym(8, seed)
    K, value = max_trace_psd_ball(A, B)
    Kv = cp.Variable((8, 8), PSD=True)
    prob = cp.Problem(cp.Maximize(cp.trace(A @ Kv)), [cp.sum_squares(Kv) <= B])
    prob.solve(solver="CLARABEL")
    assert value == pytest.approx(prob.value, rel=1e-6)
    assert np.trace(A @ K) == pytest.approx(value, rel=1e-12)
    np.testing.assert_allclose(K, Kv.value, atol=1e-4 * np.abs(K).max())
    assert np.linalg.eigvalsh(K).min() >= -1e-10 * np.abs(K).max()
    assert np.sum(K * K) == pytest.approx(B, rel=1e-12)  # the bound is active


@pytest.mark.parametrize("p", [1.5, 3.0])
def test_schatten_p_ball(p):
    """p != 2: optimal value against a cvxpy solve in the eigenbasis (the optimum
    shares A's eigenvectors), and feasibility tr(K^p) = B."""
    A = _sym(7, 5)
    B = 2.0
    K, value = max_trace_psd_ball(A, B, p=p)
    lam = np.linalg.eigvalsh(A)
    k = cp.Variable(7, nonneg=True)
    prob = cp.Problem(cp.Maximize(lam @ k), [cp.sum(cp.power(k, p)) <= B])
    prob.solve(solver="CLARABEL")
    assert value == pytest.approx(prob.value, rel=1e-5)
    mu = np.clip(np.linalg.eigvalsh(K), 0, None)
    assert np.sum(mu**p) == pytest.approx(B, rel=1e-10)


def test_no_positive_eigenvalue_gives_zero_and_bad_parameters():
    K, value = max_trace_psd_ball(-np.eye(4), 1.0)
    assert value == 0.0 and not K.any()
    with pytest.raises(InvalidParameterError, match="p must be > 1"):
        max_trace_psd_ball(np.eye(3), 1.0, p=1.0)
    with pytest.raises(InvalidParameterError, match="B must be"):
        max_trace_psd_ball(np.eye(3), -1.0)
