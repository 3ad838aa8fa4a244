"""Tests for SimSVM (Chen 2010 thesis, section 5.2, eqs. 5.19-5.31)."""

import pickle

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.utils.estimator_checks import check_estimator

import proxlearn.study.papers.chen2010._methods_simsvm  # noqa: F401  (registers the methods)
from proxlearn._validation import InvalidParameterError, LabelError, SimilarityMatrixError
from proxlearn.base import SKLEARN_CHECK_EXCEPTIONS, is_pairwise
from proxlearn.kernel_learning._simsvm import SimSVM, SimSVMProblem, simsvm_fold_decisions
from proxlearn.kernel_learning._simsvm_socp import (
    SimSVMSOCP,
    SimSVMSolverError,
    conic_kkt_residuals,
    lp_basis_draws,
    lp_solution_parts,
    simsvm_lp_program,
    simsvm_objective,
    solve_simsvm_lp,
)
from proxlearn.study.papers.chen2010._full_data import table_5_1
from proxlearn.study._methods import get_method
from proxlearn.svm import SimilaritySVC


def indefinite(n, seed, noise=1.0, k=2):
    """Linear kernel of separated blobs plus symmetric noise (indefinite)."""
    rng = np.random.default_rng(seed)
    y = np.arange(n) % k
    X = rng.normal(size=(n, 3)) + 1.5 * np.eye(3)[y]
    N = rng.normal(0, noise, (n, n))
    return X @ X.T + 0.5 * (N + N.T), y


def problem(n, seed, regularizer):
    S, y = indefinite(n, seed)
    return SimSVMProblem(S, np.where(y == 1, 1.0, -1.0), regularizer, 1e-6)


# ------------------------------------------------------------- optimality
@pytest.mark.parametrize("regularizer", ["l2-clip", "l1-clip", "l2-flip", "frobenius"])
@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.filterwarnings("ignore::proxlearn.kernel_learning._simsvm_socp.SimSVMSolverWarning")
@pytest.mark.filterwarnings("ignore:Solution may be inaccurate")
def test_socp_equals_sdp(regularizer, seed):
    prob = problem(10, seed, regularizer)
    eta, gamma = 0.05, 0.1
    socp = prob.solve(eta, gamma, "socp")
    sdp = prob.solve(eta, gamma, "sdp")
    assert socp.objective == pytest.approx(sdp.objective, rel=1e-5)
    # the LMI's solution is feasible for the SOCP's objective and vice versa
    args = (prob.Uk, prob.lamk, prob.y, prob.refk, prob.kind, eta, gamma)
    val = simsvm_objective(*args, socp.z, socp.b, socp.alpha, prob.const)
    assert val == pytest.approx(socp.objective, rel=1e-6)


@pytest.mark.parametrize("regularizer", ["l2-clip", "l1-clip", "frobenius"])
def test_socp_kkt_certificate(regularizer):
    prob = problem(30, 3, regularizer)
    sol = prob.solve(0.01, 0.01, "socp")
    res = conic_kkt_residuals(prob._socp, sol, 0.01, 0.01)
    assert res["primal"] < 1e-7 and res["dual"] < 1e-7
    assert res["cone"] < 1e-7 and res["gap"] < 1e-7
    assert res["complementarity"] < 1e-6


def test_lp_is_upper_bound_and_compact_equals_naive():
    prob = problem(20, 4, "l1-clip")
    socp = prob.solve(0.01, 0.01, "socp").objective
    prev = np.inf
    for p in (1, 5, 40):
        rs = np.random.RandomState(p)
        args = (prob.Uk, prob.lamk, prob.y, prob.refk, 0.01, 0.01, p)
        lp = solve_simsvm_lp(*args, np.random.RandomState(p))
        naive = solve_simsvm_lp(*args, rs, formulation="naive")
        assert lp.objective == pytest.approx(naive.objective, rel=1e-7)
        assert lp.objective >= socp - 1e-9
        # the LP solution is feasible for the exact problem: its true value is
        # between the SOCP optimum and the LP optimum
        true = simsvm_objective(prob.Uk, prob.lamk, prob.y, prob.refk, "l1", 0.01, 0.01,
                                lp.z, lp.b, lp.alpha)
        assert socp - 1e-8 <= true <= lp.objective + 1e-8
        prev = min(prev, lp.objective)
    assert prev > socp  # a random basis does not hit the exact optimum


def test_lp_basis_draws_follow_section_5_3_1():
    # thesis 5.3.1: tau_ij ~ Gaussian with the sample mean and variance of the
    # elements of u_i; checked per eigenvector on many draws
    prob = problem(25, 7, "l1-clip")
    U = prob.Uk
    p = 40000
    tau = lp_basis_draws(U, p, np.random.RandomState(0))
    assert tau.shape == (U.shape[1], p)
    mu, sd = U.mean(axis=0), U.std(axis=0)
    assert np.all(np.abs(tau.mean(axis=1) - mu) <= 5 * sd / np.sqrt(p))
    assert np.allclose(tau.var(axis=1), sd**2, rtol=0.05)
    from scipy.stats import kstest

    z = (tau - mu[:, None]) / sd[:, None]
    assert kstest(z[:, :400].ravel(), "norm").pvalue > 1e-3


def test_lp_uses_the_drawn_basis_and_parts_agree():
    prob = problem(15, 8, "l1-clip")
    args = (prob.Uk, prob.lamk, prob.y, prob.refk, 0.01, 0.01, 6)
    a = solve_simsvm_lp(*args, np.random.RandomState(4))
    tau = lp_basis_draws(prob.Uk, 6, np.random.RandomState(4))
    b = solve_simsvm_lp(*args, None, tau=tau)
    assert a.objective == b.objective
    # the printed LP's (z, b, a, t) recovered by (5.25)-(5.27) reach the same optimum
    from scipy.optimize import linprog

    prog = simsvm_lp_program(*args[:6], tau, "naive")
    res = linprog(prog.c, A_ub=prog.A_ub, b_ub=prog.b_ub, bounds=prog.bounds, method="highs-ds")
    z, bias, lam_alpha, t = lp_solution_parts(prog, res.x)
    assert res.fun == pytest.approx(a.objective, rel=1e-7)
    assert np.all(z**2 <= lam_alpha * t + 1e-9)  # Cauchy-Schwarz: SOCP-feasible
    assert simsvm_objective(prob.Uk, prob.lamk, prob.y, prob.refk, "l1", 0.01, 0.01, z, bias,
                            lam_alpha / prob.lamk) <= res.fun + 1e-8
    with pytest.raises(ValueError, match="one row per eigenvector"):
        simsvm_lp_program(*args[:6], tau[:-1])


def test_estimator_lp_solver_and_seed():
    S, y = indefinite(24, 5)
    a = SimSVM(regularizer="l1-clip", solver="lp", n_basis=8, random_state=3).fit(S, y)
    b = SimSVM(regularizer="l1-clip", solver="lp", n_basis=8, random_state=3).fit(S, y)
    c = SimSVM(regularizer="l1-clip").fit(S, y)
    assert a.objective_ == b.objective_
    assert a.objective_ >= c.objective_ - 1e-9


def test_solver_failure_names_status():
    prob = problem(20, 6, "l2-clip")
    socp = SimSVMSOCP(prob.Uk, prob.lamk, prob.y, prob.refk, "l2", max_iter=2)
    with pytest.raises(SimSVMSolverError, match="MaxIterations"):
        socp.solve(0.01, 0.01)


@pytest.mark.parametrize("solver", ["socp", "auto"])
def test_grid_reuse_matches_fresh_solves(solver):
    prob = problem(16, 7, "l2-clip")
    for eta, gamma in [(1e-3, 1e2), (1.0, 1e-3), (0.1, 0.1)]:
        reused = prob.solve(eta, gamma, solver).objective
        fresh = SimSVMProblem(prob.U @ np.diag(prob.lam) @ prob.U.T, prob.y, "l2-clip", 1e-6)
        assert reused == pytest.approx(fresh.solve(eta, gamma, solver).objective, rel=1e-6)


# ------------------------------------------------------------ consistency
@settings(max_examples=12, deadline=None)
@given(
    st.integers(0, 10_000),
    st.sampled_from([("l2-clip", "socp"), ("l1-flip", "socp"), ("frobenius", "socp"),
                     ("l1-clip", "dual-qp"), ("l1-flip", "dual-qp"), ("l2-clip", "dual-qp"),
                     ("l2-flip", "dual-qp")]),
)
def test_training_rows_map_to_learned_kernel(seed, reg_solver):
    regularizer, solver = reg_solver
    S, y = indefinite(14, seed)
    clf = SimSVM(eta=0.05, gamma=0.05, regularizer=regularizer, solver=solver).fit(S, y)
    K = clf.learned_kernel()
    np.testing.assert_allclose(clf.modify_test(S), K, atol=1e-9 * np.abs(S).max())
    # decision on modified rows = K c + b, and on training rows = U z + b
    dec = clf.decision_function(S)
    m = clf.pair_models_[0]
    np.testing.assert_allclose(dec, K @ clf.kernel_coef_[0] + clf.intercept_[0], atol=1e-6)
    # the solver's own training outputs differ only by the directions whose
    # effective eigenvalue alpha_i lambda_i is below the pseudo-inverse tolerance
    np.testing.assert_allclose(dec, m.Uk @ m.z + m.intercept, atol=1e-5)
    assert np.all(np.linalg.eigvalsh(K) >= -1e-8 * np.abs(S).max())


def test_raw_test_transform_uses_c():
    S, y = indefinite(20, 8)
    cons = SimSVM(gamma=0.01, normalize=False).fit(S, y)
    raw = SimSVM(gamma=0.01, test_transform="raw", normalize=False).fit(S, y)
    assert np.abs(cons.alpha_ - (cons.eigenvalues_ > 0)).max() > 0.1  # alpha was learned
    np.testing.assert_allclose(raw.coef_, raw.kernel_coef_)
    np.testing.assert_allclose(raw.kernel_coef_, cons.kernel_coef_)
    T = np.random.default_rng(0).normal(size=(5, 20))
    np.testing.assert_allclose(raw.decision_function(T), T @ raw.kernel_coef_[0] + raw.intercept_[0])
    assert not np.allclose(raw.decision_function(T), cons.decision_function(T), atol=1e-3)


def test_psd_limit_equals_plain_svm():
    rng = np.random.default_rng(9)
    n = 40
    y = np.arange(n) % 2
    X = rng.normal(size=(n, 4)) + 1.0 * y[:, None]
    S = X @ X.T + 0.5 * np.eye(n)  # PSD, well conditioned
    eta = 0.01
    sim = SimSVM(eta=eta, gamma=1e4).fit(S, y)
    np.testing.assert_allclose(sim.alpha_, 1.0, atol=1e-4)  # alpha_clip = 1
    svc = SimilaritySVC(spectrum="clip", C=1.0 / (2 * n * eta)).fit(S, y)
    T = rng.normal(size=(10, 4)) @ X.T
    d1, d2 = sim.decision_function(T), svc.decision_function(T)
    np.testing.assert_allclose(d1, d2, atol=2e-2 * np.abs(d2).max())
    np.testing.assert_array_equal(sim.predict(T), svc.predict(T))


def test_eig_tol_drops_near_zero_directions():
    rng = np.random.default_rng(10)
    n = 30
    y = np.arange(n) % 2
    X = rng.normal(size=(n, 5)) + y[:, None]
    S = X @ X.T - 2.0 * np.outer(X[:, 0], X[:, 0])  # rank 5, indefinite
    S = S + 1e-9 * np.diag(rng.normal(size=n))  # tiny noise on the null space
    full = SimSVM(eig_tol=0.0).fit(S, y)
    cut = SimSVM(eig_tol=1e-6).fit(S, y)
    assert cut.n_components_ == 5 < full.n_components_
    assert cut.objective_ == pytest.approx(full.objective_, rel=1e-5)
    dropped = ~cut.pair_models_[0].keep
    np.testing.assert_array_equal(cut.alpha_[dropped], (cut.eigenvalues_[dropped] > 0) * 1.0)


# ------------------------------------------------------------ estimator API
@pytest.mark.parametrize("params", [{}, {"solver": "socp"}])
def test_check_estimator(params):
    check_estimator(SimSVM(**params), expected_failed_checks=SKLEARN_CHECK_EXCEPTIONS)


def test_multiclass_ovo_pickle_and_pairwise():
    S, y = indefinite(30, 11, k=3)
    labels = np.array(["a", "b", "c"])[y]
    clf = SimSVM(eta=0.05, gamma=0.1, normalize=False).fit(S, labels)
    assert is_pairwise(clf)
    assert list(clf.classes_) == ["a", "b", "c"]
    assert clf.coef_.shape == (3, 30) and len(clf.alpha_) == 3
    assert np.all(clf.coef_[0, y == 2] == 0.0)
    assert clf.objective_.shape == (3,)
    assert np.mean(clf.predict(S) == labels) > 0.8
    clone = pickle.loads(pickle.dumps(clf))
    np.testing.assert_array_equal(clone.decision_function(S), clf.decision_function(S))


@pytest.mark.parametrize(
    "params, match",
    [
        ({"eta": 0.0}, "eta"),
        ({"eta": -1.0}, "eta"),
        ({"gamma": np.inf}, "gamma"),
        ({"regularizer": "l3"}, "regularizer"),
        ({"solver": "mosek"}, "solver"),
        ({"test_transform": "linear"}, "test_transform"),
        ({"eig_tol": 2.0}, "eig_tol"),
        ({"solver": "lp"}, "l1-clip"),
        ({"solver": "dual-qp", "regularizer": "frobenius"}, "clip or flip reference"),
        ({"solver": "dual-qp", "regularizer": "l1-flip", "eta": -1.0}, "eta"),
        ({"solver": "lp", "regularizer": "l1-clip", "n_basis": 0}, "n_basis"),
    ],
)
def test_bad_parameters(params, match):
    S, y = indefinite(10, 12)
    with pytest.raises(InvalidParameterError, match=match):
        SimSVM(**params).fit(S, y)


def test_bad_inputs():
    S, y = indefinite(10, 13)
    with pytest.raises(SimilarityMatrixError, match="square"):
        SimSVM().fit(S[:, :8], y)
    with pytest.raises(LabelError, match="labels"):
        SimSVM().fit(S, y[:5])
    clf = SimSVM().fit(S, y)
    with pytest.raises(SimilarityMatrixError, match="10 training samples"):
        clf.predict(S[:, :4])


# ------------------------------------------------------------- study glue
def test_fold_evaluator_matches_estimator():
    S, y = indefinite(24, 14, k=3)
    tr, te = np.arange(18), np.arange(18, 24)
    grid = [{"eta": 1e-2, "gamma": 1e-1}, {"eta": 1.0, "gamma": 1e3}]
    for name, tt in [("simsvm", "consistent"), ("simsvm-raw-test", "raw")]:
        method = get_method(name)
        preds = method.evaluate_grid(S[np.ix_(tr, tr)], y[tr], S[np.ix_(te, tr)], grid)
        for p, pred in zip(grid, preds, strict=True):
            ref = method.build(**p).fit(S[np.ix_(tr, tr)], y[tr]).predict(S[np.ix_(te, tr)])
            np.testing.assert_array_equal(pred, ref)
    both = simsvm_fold_decisions(S[np.ix_(tr, tr)], y[tr], S[np.ix_(te, tr)], grid,
                                 test_transforms=("consistent", "raw"))
    assert set(both) == {"consistent", "raw"}
    assert len(get_method("simsvm").grid("chen2009")) == 54


# ---------------------------------------------------- Table 5.1 (full data)
def test_table_5_1_socp_digits(load_uw):
    data = [("aural_sonar", *load_uw("aural_sonar")), ("voting", *load_uw("voting"))]
    rows = table_5_1(data, n_draws=1, p_values=())
    # the Clarabel SOCP and the certified dual QP give the same digits
    for method in ("simsvm-socp-l1", "simsvm-dualqp-l1"):
        got = {(r["dataset"], r["metric"]): r["mean"] for r in rows if r["method"] == method}
        # deterministic full-data values printed in the thesis (reference README)
        assert round(got["aural_sonar", "objective"], 3) == 0.283
        assert round(got["aural_sonar", "empirical_risk"], 3) == 0.166
        assert round(got["aural_sonar", "train_error_pct"], 1) == 6.0
        assert round(got["voting", "objective"], 3) == 0.185
        assert round(got["voting", "empirical_risk"], 3) == 0.102
        assert round(got["voting", "train_error_pct"], 1) == 4.4
    gaps = {r["dataset"]: r["mean"] for r in rows if r["metric"] == "certified_gap"}
    objs = {r["dataset"]: r["mean"] for r in rows
            if r["method"] == "simsvm-dualqp-l1" and r["metric"] == "objective"}
    assert set(gaps) == {"aural_sonar", "voting"}
    assert all(0 <= gaps[d] <= 1e-6 * objs[d] for d in gaps)


def test_sdp_solver_exception_is_a_project_error(monkeypatch):
    """Issue #14: SimSVM(solver='sdp') leaked cvxpy.error.SolverError."""
    import cvxpy as cp

    from proxlearn.exceptions import SimSVMSolverError, SolverError

    def fail(self, *args, **kwargs):
        raise cp.error.SolverError("Solver 'CLARABEL' failed. Try another solver.")

    monkeypatch.setattr(cp.Problem, "solve", fail)
    rng = np.random.default_rng(0)
    X = rng.normal(size=(10, 3))
    S, y = X @ X.T, np.repeat([0, 1], 5)
    with pytest.raises(SimSVMSolverError, match="CLARABEL via cvxpy.*failed.*Rescale S") as info:
        SimSVM(solver="sdp").fit(S, y)
    assert isinstance(info.value, SolverError)


# ------------------------------------------------------------ default solver
@pytest.mark.parametrize("regularizer", ["l1-clip", "l2-clip", "l1-flip", "l2-flip", "frobenius"])
@pytest.mark.parametrize("seed", [0, 1])
def test_auto_default_matches_socp(regularizer, seed):
    """Issue #19: the default picks the dual QP where it applies, the SOCP otherwise,
    and reaches the SOCP's optimum with the same predictions."""
    S, y = indefinite(40, 100 + seed, k=3)
    auto = SimSVM(eta=0.02, gamma=0.05, regularizer=regularizer).fit(S, y)
    socp = SimSVM(eta=0.02, gamma=0.05, regularizer=regularizer, solver="socp").fit(S, y)
    expected = "socp" if regularizer == "frobenius" else "dual-qp"
    assert auto.solver_used_ == [expected] * 3
    assert socp.solver_used_ == ["socp"] * 3
    np.testing.assert_allclose(auto.objective_, socp.objective_, rtol=1e-5)
    rng = np.random.default_rng(seed)
    S_test = S[rng.choice(40, 15)] + 0.1 * rng.normal(size=(15, 40))
    np.testing.assert_array_equal(auto.predict(S_test), socp.predict(S_test))
    np.testing.assert_array_equal(auto.predict(S), socp.predict(S))


def test_auto_falls_back_to_socp_when_dual_qp_does_not_certify(monkeypatch):
    from proxlearn.kernel_learning import _simsvm_dual

    def fail(self, eta, gamma):
        raise SimSVMSolverError("dual QP stopped with a certified gap of 1")

    S, y = indefinite(20, 5)
    ref = SimSVM(solver="socp").fit(S, y)
    monkeypatch.setattr(_simsvm_dual.SimSVMDualQP, "solve", fail)
    auto = SimSVM().fit(S, y)
    assert auto.solver_used_ == ["socp"]
    assert auto.objective_ == ref.objective_
    with pytest.raises(SimSVMSolverError, match="certified gap"):
        SimSVM(solver="dual-qp").fit(S, y)
