"""The shared dual-ascent engine on a problem with a known optimum, every variant."""

import doctest

import cvxpy as cp
import numpy as np
import pytest

import proxlearn.solvers._dual_ascent as module
from proxlearn.solvers import DualAscentResult, dual_ascent

VARIANTS = [
    dict(),  # BB + non-monotone Armijo, last point certified (embeddings, ranking)
    dict(max_backtracks=60),
    dict(step_rule="expand", acceptance="quadratic", certify_start=False,
         certificate="best", stop_when_stalled=True, min_step=1e-14),  # SimpleNPKL
]


def _problem(seed=0, n=8, m=5):
    """``min 1/2 ||K||^2 s.t. M K >= c`` with dual ``g(a) = a.c - 1/2 ||M^T a||^2``,
    ``a >= 0``, ``K(a) = M^T a``; the primal at ``K(a)`` is the exact penalty
    ``1/2 ||K||^2 + rho sum max(0, c - M K)`` (an upper bound for ``rho >= max a*``)."""
    rng = np.random.default_rng(seed)
    M = rng.normal(size=(m, n))
    c = rng.normal(size=m)
    K = cp.Variable(n)
    cons = [M @ K >= c]
    prob = cp.Problem(cp.Minimize(0.5 * cp.sum_squares(K)), cons)
    prob.solve(solver="CLARABEL")
    a_star = cons[0].dual_value
    rho = 10.0 * (1.0 + float(np.max(a_star)))

    def k_step(a):
        Kv = M.T @ a
        return float(a @ c - 0.5 * Kv @ Kv), Kv

    def measure(a, Kv):
        return float(0.5 * Kv @ Kv + rho * np.maximum(0.0, c - M @ Kv).sum()), c - M @ Kv

    return k_step, measure, m, prob.value, K.value


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("seed", [0, 2])
def test_reaches_the_cvxpy_optimum_with_a_certified_gap(variant, seed):
    k_step, measure, m, value, K_star = _problem(seed)
    res = dual_ascent(k_step, measure, np.zeros(m), project=lambda a: np.maximum(a, 0.0),
                      step=0.1, tol=1e-7, max_iter=5000, **variant)
    assert isinstance(res, DualAscentResult)
    assert res.success and res.status == 0
    assert res.gap == pytest.approx(res.primal - res.dual)
    assert 0.0 <= res.gap <= 1e-7 * max(1.0, abs(res.primal))
    assert res.dual <= value + 1e-7 and res.primal >= value - 1e-7  # weak duality
    assert res.dual == pytest.approx(value, rel=1e-6)
    assert res.primal == pytest.approx(value, rel=1e-6)
    np.testing.assert_allclose(res.state, K_star, atol=1e-4)
    np.testing.assert_array_less(-1e-15, res.x)  # projected
    assert res.nfev >= res.nit
    P, D = np.array(res.trace["primal"]), np.array(res.trace["dual"])
    assert len(P) == res.nit + bool(variant.get("certify_start", True))
    assert np.all(P - D >= -1e-9)  # every traced point certified by weak duality


def test_quadratic_acceptance_never_lowers_the_dual():
    k_step, measure, m, _, _ = _problem(2)
    res = dual_ascent(k_step, measure, np.zeros(m), project=lambda a: np.maximum(a, 0.0),
                      step=10.0, step_rule="expand", acceptance="quadratic", tol=1e-12,
                      max_iter=50)
    D = np.array(res.trace["dual"])
    assert np.all(np.diff(D) >= -1e-12 * np.abs(D[1:]).max())


def test_best_certificate_returns_the_point_of_the_lowest_primal():
    k_step, measure, m, _, _ = _problem(3)
    res = dual_ascent(k_step, measure, np.zeros(m), project=lambda a: np.maximum(a, 0.0),
                      step=0.5, tol=1e-14, max_iter=15, certificate="best")
    P = res.trace["primal"]
    assert res.primal == min(P)
    assert res.dual == max(res.trace["dual"])
    assert measure(res.x, res.state)[0] == min(P)


def test_max_iter_and_stall_are_reported():
    k_step, measure, m, _, _ = _problem(4)
    res = dual_ascent(k_step, measure, np.zeros(m), project=lambda a: np.maximum(a, 0.0),
                      step=1e-3, tol=1e-14, max_iter=3)
    assert not res.success and res.status == 1 and res.nit == 3
    # a projection that pins alpha: the first step leaves it where it is
    res = dual_ascent(k_step, measure, np.zeros(m), project=lambda a: np.zeros_like(a),
                      tol=1e-14, max_iter=10, stop_when_stalled=True)
    assert res.status == 2 and res.nit == 1 and not res.success


def test_a_start_within_tol_takes_no_step_unless_told_to():
    k_step, measure, m, _, _ = _problem(5)
    warm = dual_ascent(k_step, measure, np.zeros(m), project=lambda a: np.maximum(a, 0.0),
                       step=0.1, tol=1e-8, max_iter=5000)
    again = dual_ascent(k_step, measure, warm.x, project=lambda a: np.maximum(a, 0.0),
                        tol=1e-8, max_iter=5000)
    assert again.success and again.nit == 0 and again.nfev == 1
    forced = dual_ascent(k_step, measure, warm.x, project=lambda a: np.maximum(a, 0.0),
                         tol=1e-8, max_iter=5000, certify_start=False)
    assert forced.nit >= 1


@pytest.mark.parametrize("option, value", [("step_rule", "newton"),
                                           ("acceptance", "wolfe"),
                                           ("certificate", "mean")])
def test_unknown_option_names_the_choices(option, value):
    with pytest.raises(ValueError, match=option):
        dual_ascent(lambda a: (0.0, None), lambda a, s: (0.0, a), np.zeros(1),
                    **{option: value})


def test_docstring_example_runs():
    result = doctest.testmod(module, verbose=False)
    assert result.attempted >= 1 and result.failed == 0
