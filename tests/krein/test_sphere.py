"""The quadratic over a sphere / ball (krein._sphere): global optimality by the
optimality conditions and by a dense search, easy and hard cases."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose

from proxlearn.krein._sphere import solve_sphere_quadratic, sphere_kkt


def _q(h, g, X):
    return np.einsum("ij,j,ij->i", X, h, X) - 2 * X @ g


def _circle(r, m=200_001):
    t = np.linspace(0, 2 * np.pi, m)
    return r * np.column_stack([np.cos(t), np.sin(t)])


@pytest.mark.parametrize("h,g", [
    ([-1.0, 2.0], [0.5, 1.0]),     # indefinite, easy case
    ([1.0, 3.0], [0.2, -0.4]),     # convex, small g: the sphere forces a larger x
    ([-2.0, -2.0], [0.3, 0.1]),    # concave, equal eigenvalues
    ([-1.0, 2.0], [0.0, 0.5]),     # hard case: g vanishes on the lowest eigenvalue
])
@pytest.mark.parametrize("r", [0.3, 1.0, 4.0])
def test_sphere_minimum_beats_a_dense_search_on_the_circle(h, g, r):
    h, g = np.asarray(h), np.asarray(g)
    sol = solve_sphere_quadratic(h, g, r)
    assert np.linalg.norm(sol.x) == pytest.approx(r, rel=1e-12)
    assert sol.objective <= _q(h, g, _circle(r)).min() + 1e-9
    assert max(sphere_kkt(h, g, r, sol.x, sol.mu).values()) < 1e-10


def test_hard_case_is_detected_and_completed_in_the_lowest_eigenspace():
    h, g = np.array([-1.0, 2.0]), np.array([0.0, 0.5])
    sol = solve_sphere_quadratic(h, g, 2.0)
    assert sol.hard_case and sol.mu == pytest.approx(1.0)
    assert abs(sol.x[0]) == pytest.approx(np.sqrt(4.0 - (0.5 / 3.0) ** 2))


def test_ball_interior_solution_and_complementarity():
    h, g = np.array([1.0, 4.0]), np.array([0.5, 1.0])
    sol = solve_sphere_quadratic(h, g, 10.0, ball=True)
    assert sol.mu == 0.0 and not sol.hard_case
    assert_allclose(sol.x, g / h)
    tight = solve_sphere_quadratic(h, g, 0.1, ball=True)
    assert tight.mu > 0 and np.linalg.norm(tight.x) == pytest.approx(0.1)
    # on the ball with indefinite h the minimum is on the boundary (mu >= -min h > 0)
    ind = solve_sphere_quadratic(np.array([-1.0, 4.0]), g, 10.0, ball=True)
    assert ind.mu >= 1.0 and np.linalg.norm(ind.x) == pytest.approx(10.0)


@settings(max_examples=200, deadline=None, derandomize=True)
@given(k=st.integers(1, 6), seed=st.integers(0, 2**31 - 1), r=st.floats(0.05, 20.0),
       ball=st.booleans(), hard=st.booleans())
def test_optimality_conditions_and_no_better_random_point(k, seed, r, ball, hard):
    """(h + mu) x = g, h + mu >= 0, ||x|| = r (ball: mu >= 0, mu (||x|| - r) = 0):
    the conditions of a global minimiser; and no random feasible point does better."""
    rng = np.random.default_rng(seed)
    h = rng.normal(size=k) * 10.0 ** rng.uniform(-3, 3)
    g = rng.normal(size=k)
    if hard:
        g[h == h.min()] = 0.0
    sol = solve_sphere_quadratic(h, g, r, ball=ball)
    kkt = sphere_kkt(h, g, r, sol.x, sol.mu, ball=ball)
    assert max(kkt.values()) < 1e-9, kkt
    Z = rng.normal(size=(5000, k))
    Z *= r / np.linalg.norm(Z, axis=1, keepdims=True)
    if ball:
        Z *= rng.uniform(0, 1, size=(5000, 1)) ** (1.0 / k)
    scale = np.abs(h).max() * r * r + np.abs(g).sum() * r
    assert sol.objective <= _q(h, g, Z).min() + 1e-10 * scale


def test_a_wrong_multiplier_fails_the_certificate():
    h, g = np.array([-1.0, 2.0]), np.array([0.5, 1.0])
    sol = solve_sphere_quadratic(h, g, 1.0)
    bad = sphere_kkt(h, g, 1.0, sol.x, sol.mu - 0.5)
    assert bad["stationarity"] > 1e-3
    local = sphere_kkt(h, g, 1.0, sol.x, -2.5)  # a stationary multiplier left of -min h
    assert local["curvature"] > 0.1
