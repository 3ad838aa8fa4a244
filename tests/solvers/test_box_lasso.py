"""Tests for proxlearn.solvers.box_lasso (the P-SVM problem, Chen 2010 eq. 2.8)."""

import cvxpy as cp
import numpy as np
import pytest

from proxlearn._validation import InvalidParameterError
from proxlearn.solvers import (
    box_lasso,
    box_lasso_duality_gap,
    box_lasso_kkt_residual,
    box_lasso_objective,
)


def _indefinite_problem(n, seed):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2)) + np.repeat([[2.0, 0.0], [-2.0, 0.0]], n // 2, axis=0)
    N = rng.normal(scale=1.0, size=(n, n))
    S = X @ X.T + 0.5 * (N + N.T) + 0.3 * rng.normal(size=(n, n))  # asymmetric too
    y = np.repeat([1.0, -1.0], n // 2)
    return S, y


def _cvxpy_objective(A, b, eps, C):
    x = cp.Variable(A.shape[1])
    prob = cp.Problem(
        cp.Minimize(0.5 * cp.sum_squares(b - A @ x) + eps * cp.norm1(x)),
        [cp.abs(x) <= C],
    )
    prob.solve(solver="CLARABEL")
    return prob.value, x.value


@pytest.mark.parametrize(
    "eps,C,method",
    [
        (0.1, 1.0, "ipm"),
        (1.0, 0.05, "ipm"),
        (0.0, 0.5, "ipm"),
        (5.0, 100.0, "ipm"),
        (1.0, 0.05, "fista"),
        (0.0, 0.5, "fista"),
    ],
)
def test_matches_cvxpy_and_certificate(eps, C, method):
    S, y = _indefinite_problem(40, 0)
    kwargs = {"max_iter": 200000} if method == "fista" else {}
    res = box_lasso(S, y, eps, C, method=method, **kwargs)
    ref, _ = _cvxpy_objective(S, y, eps, C)
    assert np.all(np.abs(res.x) <= C)
    # our objective is a valid upper bound and the gap certifies it
    assert res.objective == pytest.approx(box_lasso_objective(S, y, res.x, eps))
    assert res.objective <= ref * (1 + 1e-6) + 1e-9
    assert res.objective == pytest.approx(ref, rel=1e-6, abs=1e-9)
    scale = max(1.0, res.objective)
    assert res.duality_gap <= 1e-6 * scale
    if method == "ipm":
        # exact active-set polish: KKT holds with exact zeros / bounds
        assert res.kkt_residual <= 1e-6 * max(1.0, np.abs(S.T @ y).max())
        assert res.kkt_residual == pytest.approx(
            box_lasso_kkt_residual(S, y, res.x, eps, C), abs=1e-9
        )


def test_duality_gap_is_an_upper_bound_on_suboptimality():
    S, y = _indefinite_problem(30, 3)
    eps, C = 0.2, 0.3
    opt = box_lasso(S, y, eps, C).objective
    rng = np.random.default_rng(0)
    for _ in range(5):
        x = rng.uniform(-C, C, size=30)
        gap = box_lasso_duality_gap(S, y, x, eps, C)
        assert gap >= box_lasso_objective(S, y, x, eps) - opt - 1e-9
        assert gap > 0


def test_kkt_residual_detects_nonoptimal_point():
    S, y = _indefinite_problem(20, 1)
    res = box_lasso(S, y, 0.1, 1.0)
    x = res.x.copy()
    x[np.argmax(np.abs(x))] *= 0.5
    assert box_lasso_kkt_residual(S, y, x, 0.1, 1.0) > 1e3 * max(res.kkt_residual, 1e-12)


def test_sparsity_and_bounds():
    S, y = _indefinite_problem(40, 2)
    big = box_lasso(S, y, 1e3, 1.0)
    assert np.all(big.x == 0.0)  # eps >= ||S^T y||_inf gives x = 0
    small_box = box_lasso(S, y, 0.0, 1e-3)
    assert np.sum(np.abs(small_box.x) == 1e-3) > 0  # exact bounds are reached


def test_cd_agrees_on_small_problem():
    S, y = _indefinite_problem(10, 4)
    a = box_lasso(S, y, 0.5, 0.2, method="cd")
    b = box_lasso(S, y, 0.5, 0.2)
    assert a.objective == pytest.approx(b.objective, rel=1e-7)


def test_warm_start_fista():
    S, y = _indefinite_problem(30, 5)
    cold = box_lasso(S, y, 0.5, 0.5, method="fista", max_iter=100000)
    warm = box_lasso(S, y, 0.5, 0.5, method="fista", x0=cold.x)
    assert warm.n_iter <= cold.n_iter
    assert warm.objective == pytest.approx(cold.objective, rel=1e-8)


@pytest.mark.parametrize(
    "kwargs",
    [{"eps": -1.0}, {"C": 0.0}, {"C": -1.0}, {"method": "newton"}, {"max_iter": 0}],
)
def test_invalid_parameters(kwargs):
    S, y = _indefinite_problem(10, 0)
    args = {"eps": 0.1, "C": 1.0}
    args.update(kwargs)
    eps, C = args.pop("eps"), args.pop("C")
    with pytest.raises(InvalidParameterError):
        box_lasso(S, y, eps, C, **args)


def test_shape_mismatch():
    with pytest.raises(InvalidParameterError):
        box_lasso(np.eye(3), np.ones(4), 0.1, 1.0)
