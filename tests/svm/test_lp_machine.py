"""Tests for LPMachine (Chen 2010 eq. 2.7; Chen et al. 2009 eq. 5)."""

import pickle

import cvxpy as cp
import numpy as np
import pytest
from sklearn.base import clone
from sklearn.model_selection import train_test_split
from sklearn.utils.estimator_checks import check_estimator

from proxlearn.datasets import make_noisy_blobs
from proxlearn.base import SKLEARN_CHECK_EXCEPTIONS
from proxlearn._validation import (
    InvalidParameterError,
    LabelError,
    SimilarityMatrixError,
    TestMatrixError,
)
from proxlearn.base import is_pairwise
from proxlearn.svm._lp_machine import LPMachine, lp_machine_binary, lp_machine_path



blobs = make_noisy_blobs  # (n_classes, n_per_class, seed, noise=4.0)


def _cvxpy_lp(S, y, C):
    w = cp.Variable(S.shape[1])
    b = cp.Variable()
    obj = cp.norm1(w) + C * cp.sum(cp.pos(1 - cp.multiply(y, S @ w + b)))
    prob = cp.Problem(cp.Minimize(obj))
    prob.solve(solver="CLARABEL")
    return prob.value


@pytest.mark.parametrize("C", [0.01, 1.0, 100.0])
def test_binary_lp_optimal_vs_cvxpy_and_duals(C):
    S, y = blobs(2, 20, 0, noise=20.0)
    S = S + np.random.default_rng(1).normal(size=S.shape)  # asymmetric, used as given
    ypm = np.where(y == 1, 1.0, -1.0)
    w, b, res = lp_machine_binary(S, ypm, C)
    assert res.status == 0
    primal = np.abs(w).sum() + C * np.maximum(0, 1 - ypm * (S @ w + b)).sum()
    assert primal == pytest.approx(res.fun, rel=1e-9, abs=1e-9)
    assert res.fun == pytest.approx(_cvxpy_lp(S, ypm, C), rel=1e-6, abs=1e-8)
    # LP duality: lambda in [0, C], sum lambda y = 0, |S^T (lambda y)| <= 1,
    # and sum lambda equals the optimal value
    lam = -res.ineqlin.marginals
    assert np.all(lam >= -1e-9) and np.all(lam <= C + 1e-9)
    assert abs(lam @ ypm) <= 1e-7 * max(1.0, C)
    assert np.abs(S.T @ (lam * ypm)).max() <= 1 + 1e-7
    assert lam.sum() == pytest.approx(res.fun, rel=1e-7, abs=1e-9)
    # complementary slackness: lambda_i > 0 only on active margins
    margin = ypm * (S @ w + b)
    active = lam > 1e-7
    assert np.all(margin[active] <= 1 + 1e-6)


def test_warm_started_path_is_optimal_for_every_C():
    """lp_machine_path (one LP, warm-started per C, in any C order) reaches the
    optimum of each cold solve; its (w, b) attain the value it reports."""
    S, y = blobs(2, 25, 3, noise=20.0)
    ypm = np.where(y == 1, 1.0, -1.0)
    Cs = [100.0, 0.01, 1.0, 1e4, 0.1]
    path = lp_machine_path(S, ypm, Cs)
    assert len(path) == len(Cs)
    for C, (w, b, obj) in zip(Cs, path, strict=True):
        _, _, ref = lp_machine_binary(S, ypm, C)
        primal = np.abs(w).sum() + C * np.maximum(0, 1 - ypm * (S @ w + b)).sum()
        assert primal == pytest.approx(obj, rel=1e-9, abs=1e-9)
        assert obj == pytest.approx(ref.fun, rel=1e-7, abs=1e-9)


def _hinge(f, y, b):
    return np.maximum(0.0, 1.0 - y * (f + b)).sum()


@pytest.mark.parametrize("seed", range(8))
def test_central_intercept_is_the_middle_of_the_optimal_interval(seed):
    """Brute force over the breakpoints y_i - f_i (where the minimisers of the
    piecewise-linear loss lie): the returned b is optimal and is the centre of
    the set of optimal breakpoints."""
    from proxlearn.svm._lp_machine import _central_intercept

    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 30))
    y = rng.choice([-1.0, 1.0], size=n)
    y[:2] = [-1.0, 1.0]
    # integer margins make ties (flat optimal stretches) common
    f = rng.integers(-3, 4, size=n).astype(float) if seed % 2 else rng.normal(size=n)
    b = _central_intercept(f, y)
    t = y - f
    losses = np.array([_hinge(f, y, tk) for tk in t])
    best = losses.min()
    assert _hinge(f, y, b) == pytest.approx(best, abs=1e-9)
    opt = t[losses <= best + 1e-9]
    assert b == pytest.approx(0.5 * (opt.min() + opt.max()), abs=1e-12)


def test_degenerate_intercept_is_the_same_on_every_solver_path():
    """Balanced classes and a tiny C: w = 0 and every b in [-1, 1] is optimal.
    A simplex vertex is b = -1 or b = +1 (opposite predictions, chosen by the
    solver's path); the cold solve and the warm-started path both return the
    centre b = 0 (regression: HiGHS 1.16 and 1.15 picked different ends)."""
    S, y = blobs(2, 15, 5)
    ypm = np.where(y == 1, 1.0, -1.0)
    Cs = [1e-3, 10.0, 1e-4]
    w, b, res = lp_machine_binary(S, ypm, 1e-3)
    assert np.all(w == 0.0) and b == 0.0
    assert res.fun == pytest.approx(1e-3 * len(y))
    for C, (w_p, b_p, obj) in zip(Cs, lp_machine_path(S, ypm, Cs), strict=True):
        if C < 1.0:
            assert np.all(w_p == 0.0) and b_p == 0.0
            assert obj == pytest.approx(C * len(y))


def test_path_prints_nothing():
    """HiGHS >= 1.16 prints a banner when its first model is built; the path
    solver keeps a user's terminal (and the reproduction progress) clean. Run
    in a fresh interpreter, where the banner would appear."""
    import subprocess
    import sys

    code = (
        "import numpy as np\n"
        "from proxlearn.svm._lp_machine import lp_machine_path\n"
        "S = np.eye(4) + 0.1\n"
        "print('w', lp_machine_path(S, np.array([1., 1., -1., -1.]), [1.0])[0][1])\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.startswith("w "), out.stdout
    assert "HiGHS" not in out.stdout + out.stderr


def test_path_reports_a_failed_solve_with_its_status(monkeypatch):
    """A HiGHS status other than optimal raises SolverError naming it, never a
    silently wrong (w, b)."""
    import highspy

    from proxlearn._validation import SolverError

    S, y = blobs(2, 10, 4)
    ypm = np.where(y == 1, 1.0, -1.0)
    monkeypatch.setattr(
        highspy.Highs, "getModelStatus", lambda self: highspy.HighsModelStatus.kIterationLimit
    )
    with pytest.raises(SolverError, match="C=1.*status"):
        lp_machine_path(S, ypm, [1.0])


def test_estimator_matches_binary_solver_and_is_sparse():
    S, y = blobs(2, 20, 2)
    clf = LPMachine(C=1.0, normalize=False).fit(S, y)
    w, b, res = lp_machine_binary(S, np.where(y == 1, 1.0, -1.0), 1.0)
    assert clf.objective_[0] == pytest.approx(res.fun)
    np.testing.assert_allclose(clf.decision_function(S), S @ clf.coef_[0] + clf.intercept_[0])
    assert len(clf.support_) < len(y) // 2  # the l1 norm gives a sparse w
    assert clf.n_support_.sum() == len(clf.support_)


@pytest.mark.parametrize("k", [2, 3])
def test_sanity_accuracy_far_above_chance(k):
    S, y = blobs(k, 40, 0)
    idx = np.arange(len(y))
    tr, te = train_test_split(idx, test_size=0.25, stratify=y, random_state=0)
    clf = LPMachine(C=0.1).fit(S[np.ix_(tr, tr)], y[tr])
    assert clf.score(S[np.ix_(te, tr)], y[te]) >= 0.9


def test_multiclass_ovo():
    S, y = blobs(3, 10, 3)
    clf = LPMachine(C=0.1).fit(S, y + 5)
    assert list(clf.classes_) == [5, 6, 7]
    assert clf.coef_.shape == (3, 30)
    assert np.all(clf.coef_[2, y == 0] == 0.0)  # pair (1, 2) ignores class 0
    dec = clf.decision_function(S)
    np.testing.assert_array_equal(clf.predict(S), clf.classes_[np.argmax(dec, axis=1)])
    assert len(clf.dual_coef_) == 3 and clf.dual_coef_[0].shape == (20,)


def test_pickle_and_clone():
    S, y = blobs(2, 8, 4)
    clf = LPMachine(C=0.5).fit(S, y)
    clf2 = pickle.loads(pickle.dumps(clf))
    np.testing.assert_array_equal(clf.decision_function(S), clf2.decision_function(S))
    assert clone(clf).get_params()["C"] == 0.5 and is_pairwise(clf)


@pytest.mark.parametrize("params", [{"C": 0.0}, {"C": -2.0}, {"decision_function_shape": "x"}])
def test_invalid_parameters(params):
    S, y = blobs(2, 5, 0)
    with pytest.raises(InvalidParameterError):
        LPMachine(**params).fit(S, y)


def test_bad_input():
    S, y = blobs(2, 5, 0)
    with pytest.raises(SimilarityMatrixError):
        LPMachine().fit(S[:-1], y[:-1].tolist() + [0])
    bad = S.copy()
    bad[2, 2] = np.nan
    with pytest.raises(SimilarityMatrixError):
        LPMachine().fit(bad, y)
    with pytest.raises(LabelError):
        LPMachine().fit(S, y[:-1])
    with pytest.raises(LabelError):
        LPMachine().fit(S, np.ones(10))
    with pytest.raises(TestMatrixError):
        LPMachine().fit(S, y).decision_function(np.ones((2, 9)))


def test_grid_search_slices_rows_and_columns(assert_grid_search_slices):
    S, y = blobs(2, 15, 5)
    assert_grid_search_slices(LPMachine(), {"C": [0.01, 1.0]}, S, y)


def test_check_estimator():
    check_estimator(LPMachine(), expected_failed_checks=SKLEARN_CHECK_EXCEPTIONS)


@pytest.mark.parametrize("name,chance", [("aural_sonar", 0.5), ("protein", 1 - 72 / 213)])
def test_uw_sanity(name, chance, uw_holdout_error):
    assert uw_holdout_error(LPMachine(), {"C": [0.1, 1.0, 10.0]}, name) < 0.5 * chance


@pytest.mark.parametrize("s", [1e-12, 1e-6, 1e6, 1e15])
def test_scale_equivariance_extreme_units(s):
    """LPMachine(C=c/s, normalize=False).fit(s*S) is LPMachine(C=c, normalize=False).fit(S) (issue #14: 1e-12 gave w = 0
    and accuracy 0.27, 1e15 a bare HiGHS 'Model error')."""
    S, y = blobs(3, 20, 3, noise=4.0)
    tr, te = np.arange(0, 60, 2), np.arange(1, 60, 2)
    ref = LPMachine(C=1.0, normalize=False).fit(S[np.ix_(tr, tr)], y[tr])
    big = LPMachine(C=1.0 / s, normalize=False).fit(s * S[np.ix_(tr, tr)], y[tr])
    f_ref = ref.decision_function(S[np.ix_(te, tr)])
    f_big = big.decision_function(s * S[np.ix_(te, tr)])
    np.testing.assert_allclose(f_big, f_ref, rtol=1e-6, atol=1e-6 * np.abs(f_ref).max())
    np.testing.assert_array_equal(big.predict(s * S[np.ix_(te, tr)]), ref.predict(S[np.ix_(te, tr)]))
    np.testing.assert_allclose(big.objective_, ref.objective_ / s, rtol=1e-6)
    assert (ref.predict(S[np.ix_(te, tr)]) == y[te]).mean() > 0.8


@pytest.mark.parametrize("s", [1e-12, 1e15])
def test_path_scale_equivariance(s):
    S, y = blobs(2, 15, 5, noise=4.0)
    ypm = np.where(y == y[0], 1.0, -1.0)
    Cs = [0.1, 1.0, 10.0]
    ref = lp_machine_path(S, ypm, Cs)
    big = lp_machine_path(s * S, ypm, [c / s for c in Cs])
    for (w0, b0, o0), (w1, b1, o1) in zip(ref, big, strict=True):
        np.testing.assert_allclose(s * w1, w0, atol=1e-7 * max(1.0, np.abs(w0).max()))
        assert b1 == pytest.approx(b0, abs=1e-7) and o1 == pytest.approx(o0 / s, rel=1e-6)
