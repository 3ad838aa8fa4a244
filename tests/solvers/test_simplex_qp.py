"""Tests for the batched simplex QP solver (KRI weights, Chen et al. 2009 eq. 12)."""

import cvxpy as cp
import numpy as np
import pytest

from proxlearn.solvers._simplex_qp import (
    SimplexQPConvergenceWarning,
    project_capped_simplex,
    project_simplex,
    simplex_qp_kkt_residual,
    simplex_qp_objective,
    solve_simplex_qp,
)


def _cvxpy_solve(Q, c):
    k = c.shape[0]
    x = cp.Variable(k)
    Qs = 0.5 * (Q + Q.T)
    obj = 0.5 * cp.quad_form(x, cp.psd_wrap(Qs)) - c @ x
    prob = cp.Problem(cp.Minimize(obj), [x >= 0, cp.sum(x) == 1])
    prob.solve(
        solver="CLARABEL", tol_gap_abs=1e-12, tol_gap_rel=1e-12, tol_feas=1e-12
    )
    return np.asarray(x.value), prob.value


def _random_psd(rng, B, k, rank=None):
    r = k if rank is None else rank
    A = rng.standard_normal((B, k, r))
    return A @ np.swapaxes(A, 1, 2) / max(r, 1)


@pytest.mark.parametrize("k", [1, 2, 4, 8, 32])
@pytest.mark.parametrize("reg", [0.0, 1e-3, 1.0])
def test_matches_cvxpy_and_kkt(k, reg):
    rng = np.random.default_rng(k * 100 + int(reg * 1000))
    B = 6
    Q = _random_psd(rng, B, k) + reg * np.eye(k)
    c = rng.standard_normal((B, k))
    x, res = solve_simplex_qp(Q, c)
    assert x.shape == (B, k) and res.shape == (B,)
    assert np.all(res <= 1e-10)
    assert np.all(x >= 0)
    np.testing.assert_allclose(x.sum(axis=1), 1.0, atol=1e-13)
    np.testing.assert_allclose(simplex_qp_kkt_residual(Q, c, x), res)
    for b in range(B):
        xr, fr = _cvxpy_solve(Q[b], c[b])
        f = simplex_qp_objective(Q[b], c[b], x[b])
        # our objective is never worse than the interior-point reference
        assert f <= fr + 1e-9
        if reg > 0 or k == 1:  # strictly convex: unique solution
            np.testing.assert_allclose(x[b], xr, atol=1e-6)


def test_k_equal_one():
    x, res = solve_simplex_qp(np.array([[[3.0]], [[0.0]]]), np.array([[-5.0], [2.0]]))
    np.testing.assert_array_equal(x, [[1.0], [1.0]])
    np.testing.assert_array_equal(res, [0.0, 0.0])


def test_single_problem_shapes():
    Q = np.eye(3)
    x, res = solve_simplex_qp(Q, np.array([1.0, 0.0, 0.0]))
    assert x.shape == (3,) and isinstance(res, float)
    # minimiser of 1/2|x|^2 - x_1 on the simplex is e_1
    np.testing.assert_allclose(x, [1.0, 0.0, 0.0], atol=1e-12)


def test_duplicated_neighbours_get_equal_weights():
    rng = np.random.default_rng(1)
    A = rng.standard_normal((5, 5))
    S = A @ A.T
    idx = [0, 1, 2, 2, 3, 4]  # neighbour 2 appears twice
    S_dup = S[np.ix_(idx, idx)]
    c = rng.standard_normal(5)[idx] + 3.0
    # reg > 0: strictly convex, duplicates must share weight equally
    x, res = solve_simplex_qp(S_dup + 0.1 * np.eye(6), c)
    assert res <= 1e-10
    assert x[2] == pytest.approx(x[3], abs=1e-10)
    # reg = 0: singular Q; still a KKT point with the optimal objective
    x0, res0 = solve_simplex_qp(S_dup, c)
    assert res0 <= 1e-10
    _, fr = _cvxpy_solve(S_dup, c)
    assert simplex_qp_objective(S_dup, c, x0) <= fr + 1e-8


def test_large_reg_gives_nearly_uniform():
    rng = np.random.default_rng(2)
    k = 8
    Q = _random_psd(rng, 4, k) + 1e6 * np.eye(k)
    c = rng.random((4, k))
    x, res = solve_simplex_qp(Q, c)
    assert np.all(res <= 1e-10)
    np.testing.assert_allclose(x, 1.0 / k, atol=1e-5)


@pytest.mark.parametrize("k", [4, 16, 32])
def test_singular_psd_zero_reg(k):
    rng = np.random.default_rng(k)
    Q = _random_psd(rng, 8, k, rank=2)
    c = rng.standard_normal((8, k))
    x, res = solve_simplex_qp(Q, c)
    assert np.all(res <= 1e-10)
    for b in range(3):
        _, fr = _cvxpy_solve(Q[b], c[b])
        assert simplex_qp_objective(Q[b], c[b], x[b]) <= fr + 1e-8


def test_zero_matrix_picks_largest_c():
    Q = np.zeros((1, 4, 4))
    c = np.array([[0.1, 0.7, 0.3, -1.0]])
    x, res = solve_simplex_qp(Q, c)
    np.testing.assert_allclose(x, [[0.0, 1.0, 0.0, 0.0]], atol=1e-12)
    assert res[0] <= 1e-10


def test_warm_start_same_solution_fewer_iterations():
    rng = np.random.default_rng(3)
    k = 32
    S = _random_psd(rng, 20, k)
    c = rng.standard_normal((20, k))
    x1, _, info1 = solve_simplex_qp(S + 1e-2 * np.eye(k), c, return_info=True)
    x2, r2, info2 = solve_simplex_qp(
        S + 1e-2 * np.eye(k), c, x0=x1, return_info=True
    )
    np.testing.assert_allclose(x2, x1, atol=1e-10)
    assert info2["n_iter"].sum() <= info1["n_iter"].sum()
    assert info2["converged"].all()
    # warm start from a neighbouring reg value, and from an infeasible point
    x3, r3 = solve_simplex_qp(S + 2e-2 * np.eye(k), c, x0=x1)
    x4, r4 = solve_simplex_qp(S + 2e-2 * np.eye(k), c, x0=5 * x1 - 1)
    x5, _ = solve_simplex_qp(S + 2e-2 * np.eye(k), c)
    assert np.all(r3 <= 1e-10) and np.all(r4 <= 1e-10)
    np.testing.assert_allclose(x3, x5, atol=1e-9)
    np.testing.assert_allclose(x4, x5, atol=1e-9)


def test_warm_start_at_the_solution_keeps_its_support():
    """A previous solution whose sum is off by rounding must keep its exact zeros.

    Projecting it onto the simplex would add the tiny deficit of its sum to
    every coordinate, so the first face would be all k coordinates; on the
    near-singular local matrices of the voting data that cost the solver over
    a hundred iterations per problem at reg <= 1e-4 (found in the chen2009
    reproduction profile).
    """
    rng = np.random.default_rng(11)
    k = 64
    S = _random_psd(rng, 10, k, rank=6)
    c = rng.standard_normal((10, k))
    Q = S + 1e-4 * np.eye(k)
    x1, _ = solve_simplex_qp(Q, c)
    assert ((x1 == 0).sum(axis=1) > 0).all()
    x0 = x1 * (1.0 - 1e-15)  # sums fall short of 1 by rounding
    # a slightly different reg: same support, so one face solve finishes
    Q2 = S + 1.01e-4 * np.eye(k)
    x2, res, info = solve_simplex_qp(Q2, c, x0=x0, return_info=True)
    np.testing.assert_allclose(x2, solve_simplex_qp(Q2, c)[0], atol=1e-10)
    assert info["converged"].all()
    assert (info["n_iter"] <= 1).all(), info["n_iter"]


def test_kkt_residual_detects_non_solutions():
    rng = np.random.default_rng(4)
    k = 6
    Q = _random_psd(rng, 1, k)[0] + np.eye(k)
    c = rng.standard_normal(k)
    x, res = solve_simplex_qp(Q, c)
    assert res <= 1e-10
    assert simplex_qp_kkt_residual(Q, c, np.full(k, 1.0 / k)) > 1e-3
    assert simplex_qp_kkt_residual(Q, c, 1.1 * x) > 0.05  # infeasible: sum 1.1
    y = x.copy()
    y[np.argmax(y)] += 0.01
    y /= y.sum()
    assert simplex_qp_kkt_residual(Q, c, y) > 1e-5


def test_residual_scale_invariant():
    rng = np.random.default_rng(5)
    Q = _random_psd(rng, 3, 5) + 0.1 * np.eye(5)
    c = rng.standard_normal((3, 5))
    x, res = solve_simplex_qp(Q, c)
    y = np.full((3, 5), 0.2)
    np.testing.assert_allclose(
        simplex_qp_kkt_residual(1e4 * Q, 1e4 * c, y), simplex_qp_kkt_residual(Q, c, y)
    )
    x2, _ = solve_simplex_qp(1e4 * Q, 1e4 * c)
    np.testing.assert_allclose(x2, x, atol=1e-10)


def test_project_simplex():
    rng = np.random.default_rng(6)
    V = 3 * rng.standard_normal((50, 7))
    X = project_simplex(V)
    assert np.all(X >= 0)
    np.testing.assert_allclose(X.sum(axis=1), 1.0, atol=1e-12)
    # optimality of the projection: X = argmin |x - v|^2 is the simplex QP with Q = I
    Xq, res = solve_simplex_qp(np.broadcast_to(np.eye(7), (50, 7, 7)), V)
    np.testing.assert_allclose(X, Xq, atol=1e-10)
    # points on the simplex are fixed
    np.testing.assert_allclose(project_simplex(X), X, atol=1e-14)
    np.testing.assert_allclose(project_simplex(np.array([0.2, 0.8])), [0.2, 0.8])


def test_capped_simplex_projection():
    rng = np.random.default_rng(0)
    for _ in range(50):
        v = rng.normal(size=7) * 3
        C = rng.uniform(0.1, 5)
        p = project_capped_simplex(v, C)
        assert np.all(p >= 0) and p.sum() <= C + 1e-12
        # optimality: (v - p) . (q - p) <= 0 for feasible q (vertices and 0)
        for q in [np.zeros(7), *(C * np.eye(7))]:
            assert (v - p) @ (q - p) <= 1e-9


def test_iteration_cap_warns_and_reports():
    Q = np.eye(3)[None]
    c = np.array([[1.0, 0.0, 0.0]])
    with pytest.warns(SimplexQPConvergenceWarning, match="did not reach"):
        x, res, info = solve_simplex_qp(Q, c, max_iter=0, n_pdas=0, return_info=True)
    assert res[0] > 1e-10 and not info["converged"][0]


@pytest.mark.parametrize(
    "Q, c",
    [
        (np.eye(3)[None], np.zeros((1, 4))),
        (np.zeros((2, 3, 4)), np.zeros((2, 3))),
        (np.full((1, 2, 2), np.nan), np.zeros((1, 2))),
        (np.zeros((1, 0, 0)), np.zeros((1, 0))),
    ],
)
def test_bad_input(Q, c):
    with pytest.raises(ValueError):
        solve_simplex_qp(Q, c)
