"""Armijo backtracking: the accepted step passes the test, the one before it fails."""

import numpy as np
import pytest

from proxlearn.solvers import LineSearchResult, SolverResult, armijo_backtrack, project_simplex

rng = np.random.default_rng(0)
Q = rng.normal(size=(6, 6))
Q = Q @ Q.T
c = rng.normal(size=6)


def f(x):
    return float(0.5 * x @ Q @ x - c @ x), None


def armijo_holds(x, g, trial, sufficient=1e-4):
    return f(trial)[0] <= f(x)[0] + sufficient * (g @ (trial - x))


@pytest.mark.parametrize("step", [1e-3, 1.0, 1e3])
def test_projected_path_accepts_the_first_step_that_decreases_enough(step):
    x = np.full(6, 1 / 6)
    g = Q @ x - c
    res = armijo_backtrack(f, lambda s: project_simplex(x - s * g), reference=f(x)[0],
                           step=step, x=x, gradient=g)
    assert isinstance(res, LineSearchResult) and isinstance(res, SolverResult)
    assert res.success and armijo_holds(x, g, res.x)
    assert res.fun == f(res.x)[0] and res.nfev >= 1
    if res.nfev > 1:  # the step before (twice as long) failed the test
        assert not armijo_holds(x, g, project_simplex(x - 2 * res.step * g))
    else:
        assert res.step == step


def test_quadratic_shrink_stays_within_its_safeguards():
    x = np.zeros(6)
    g = -c
    d = -g
    slope = float(g @ d)
    steps = []

    def value(p):
        steps.append(float(np.linalg.norm(p - x) / np.linalg.norm(d)))
        return f(p)

    res = armijo_backtrack(value, lambda s: x + s * d, reference=0.0, step=1e4, slope=slope,
                           shrink="quadratic", value=0.0)
    assert res.success and res.fun <= 1e-4 * res.step * slope
    ratios = np.array(steps[1:]) / np.array(steps[:-1])
    assert np.all(ratios >= 0.1 - 1e-12) and np.all(ratios <= 0.5 + 1e-12)


def test_min_step_and_max_trials_end_a_failing_search():
    x = np.zeros(6)
    never = lambda p: (1.0, None)  # noqa: E731 -- no trial decreases
    res = armijo_backtrack(never, lambda s: x + s, reference=0.0, step=1.0, slope=-1.0,
                           min_step=0.1)
    assert not res.success and res.nfev == 4  # 1, 0.5, 0.25, 0.125; 0.0625 < 0.1
    res = armijo_backtrack(never, lambda s: x + s, reference=0.0, step=1.0, slope=-1.0,
                           max_trials=7)
    assert not res.success and res.nfev == 7


def test_a_path_that_stops_moving_ends_the_search_or_restarts_once():
    x = np.zeros(6)
    tried = []

    def path(s):
        tried.append(s)
        return None if s < 1.0 else x - s * c

    res = armijo_backtrack(f, path, reference=0.0, step=1e-8, slope=-float(c @ c))
    assert not res.success and res.x is None and res.nfev == 0 and tried == [1e-8]
    tried.clear()
    res = armijo_backtrack(f, path, reference=0.0, step=1e-8, x=x, gradient=-c,
                           restart_step=1.0)
    assert tried[:2] == [1e-8, 1.0] and res.nfev >= 1
