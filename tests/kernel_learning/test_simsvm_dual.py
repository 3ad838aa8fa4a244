"""Tests for the dual-QP interior point of l1 SimSVM (proxlearn.kernel_learning._simsvm_dual)."""

import warnings
from pathlib import Path

import cvxpy as cp
import numpy as np
import pytest
import scipy.linalg

import proxlearn.kernel_learning._simsvm_dual as dual_mod
from proxlearn.kernel_learning import SimSVM
from proxlearn.kernel_learning._simsvm_dual import SimSVMDualQP, dual_qp_applicable
from proxlearn.kernel_learning._simsvm_socp import (
    SimSVMSOCP,
    SimSVMSolverError,
    SimSVMSolverWarning,
    simsvm_objective,
)

SHARED = Path(__file__).resolve().parents[3] / "shared" / "data"


def eig_problem(n, seed, ref="clip"):
    """Kept eigen-directions of an indefinite similarity of two noisy blobs."""
    rng = np.random.default_rng(seed)
    y = np.where(np.arange(n) % 2 == 0, 1.0, -1.0)
    X = rng.normal(size=(n, 3)) + np.outer(y, [1.2, 0.0, 0.0])
    N = rng.normal(size=(n, n))
    lam, U = scipy.linalg.eigh(X @ X.T + 0.5 * (N + N.T))
    keep = np.abs(lam) > 1e-6 * np.abs(lam).max()
    U, lam = U[:, keep], lam[keep]
    r = (lam > 0).astype(float) if ref == "clip" else np.sign(lam)
    return U, lam, y, r


# the grid on which the solver is expected to certify; it may raise below
# eta = 0.01, gamma = 1e-3 (documented in SimSVM's solver parameter)
GRID = [(eta, gamma) for eta in (1e-2, 1, 100) for gamma in (1e-2, 1, 100)]


def clarabel_value(U, lam, y, r, eta, gamma, socp, kind="l1"):
    """Objective of Clarabel's point, evaluated (an upper bound of the optimum)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SimSVMSolverWarning)
        ref_sol = socp.solve(eta, gamma)
    return simsvm_objective(U, lam, y, r, kind, eta, gamma, ref_sol.z, ref_sol.b, ref_sol.alpha)


@pytest.mark.parametrize("kind", ["l1", "l2"])
@pytest.mark.parametrize("ref", ["clip", "flip"])
@pytest.mark.parametrize("seed", [0, 1])
def test_dual_qp_equals_the_socp_with_a_certified_gap(kind, ref, seed):
    U, lam, y, r = eig_problem(40, seed, ref)
    socp, dual = SimSVMSOCP(U, lam, y, r, kind), SimSVMDualQP(U, lam, y, r, kind)
    for eta, gamma in GRID:
        other = clarabel_value(U, lam, y, r, eta, gamma, socp, kind)
        sol = dual.solve(eta, gamma)
        assert sol.status == "optimal"
        # the certificate: a feasible primal point and a dual lower bound
        assert sol.dual_objective <= sol.objective
        assert sol.gap == pytest.approx(sol.objective - sol.dual_objective)
        assert sol.gap <= 1e-6 * abs(sol.dual_objective)
        # the lower bound holds against Clarabel's point too, and the optima agree
        # (to Clarabel's accuracy: where they differ, ours is the lower one)
        assert sol.dual_objective <= other * (1 + 1e-12)
        assert sol.objective <= other * (1 + 1e-6)
        assert sol.objective == pytest.approx(other, rel=1e-5)
        # the returned point has the returned objective
        val = simsvm_objective(U, lam, y, r, kind, eta, gamma, sol.z, sol.b, sol.alpha)
        assert val == pytest.approx(sol.objective, rel=1e-12)
        assert np.all(lam * sol.alpha >= 0)


def test_dual_objective_matches_the_dual_qp_in_cvxpy():
    U, lam, y, r = eig_problem(30, 3)
    eta, gamma = 0.05, 0.02
    n = len(y)
    B = (U * y[:, None]).T
    beta = cp.Variable(n)
    g = B @ beta
    coef = lam * r / (2 * eta)
    prob = cp.Problem(
        cp.Maximize(cp.sum(beta) - 0.5 * cp.sum(cp.multiply(coef, cp.square(g)))),
        [beta >= 0, beta <= 1 / n, y @ beta == 0,
         cp.abs(g) <= np.sqrt(4 * eta * gamma / np.abs(lam))],
    )
    prob.solve(solver="CLARABEL")
    sol = SimSVMDualQP(U, lam, y, r).solve(eta, gamma)
    assert sol.dual_objective == pytest.approx(prob.value, rel=1e-6)
    assert sol.objective == pytest.approx(prob.value, rel=1e-6)  # strong duality


@pytest.mark.filterwarnings("ignore:Solution may be inaccurate")
def test_l2_dual_matches_its_cvxpy_form():
    # the l2 dual: the same QP objective with one quartic constraint
    U, lam, y, r = eig_problem(30, 3, "flip")
    eta, gamma = 0.05, 0.02
    n = len(y)
    g = ((U * y[:, None]).T) @ (beta := cp.Variable(n))
    coef = lam * r / (2 * eta)
    kap2 = (np.abs(lam) / (4 * eta)) ** 2
    prob = cp.Problem(
        cp.Maximize(cp.sum(beta) - 0.5 * cp.sum(cp.multiply(coef, cp.square(g)))),
        [beta >= 0, beta <= 1 / n, y @ beta == 0,
         cp.sum(cp.multiply(kap2, cp.power(g, 4))) <= gamma**2],
    )
    prob.solve(solver="CLARABEL")
    sol = SimSVMDualQP(U, lam, y, r, "l2").solve(eta, gamma)
    assert sol.dual_objective == pytest.approx(prob.value, rel=1e-6)
    assert sol.objective == pytest.approx(prob.value, rel=1e-6)  # strong duality


@pytest.mark.parametrize("kind", ["l1", "l2"])
def test_large_gamma_gives_the_svm_on_the_reference_kernel(kind):
    # gamma -> inf pins alpha to the reference: SimSVM is the SVM on S_clip
    U, lam, y, r = eig_problem(30, 4)
    sol = SimSVMDualQP(U, lam, y, r, kind).solve(0.01, 1e6)
    np.testing.assert_allclose(sol.alpha, r, atol=1e-6)


def test_polish_tightens_the_certificate(monkeypatch):
    # without the active-set polish the certificate stalls above the tolerance
    # on this problem (the interior point's multipliers are not accurate enough)
    U, lam, y, r = eig_problem(60, 2, "clip")
    with_polish = SimSVMDualQP(U, lam, y, r, tol=1e-9).solve(0.01, 0.01)
    monkeypatch.setattr(dual_mod._L1Block, "polish", lambda self, *a: [])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SimSVMSolverWarning)
        try:
            without = SimSVMDualQP(U, lam, y, r, tol=1e-9).solve(0.01, 0.01).gap
        except SimSVMSolverError:
            without = np.inf
    assert with_polish.gap < 0.1 * without


def test_failure_is_an_error_naming_the_gap():
    U, lam, y, r = eig_problem(30, 6)
    with pytest.raises(SimSVMSolverError, match="certified duality gap"):
        SimSVMDualQP(U, lam, y, r, max_iter=1).solve(0.01, 0.01)


def test_reduced_accuracy_is_a_warning(monkeypatch):
    U, lam, y, r = eig_problem(30, 6)
    monkeypatch.setattr(dual_mod, "_ACCEPT", 0.0)
    monkeypatch.setattr(dual_mod, "_LOOSE", np.inf)
    with pytest.warns(SimSVMSolverWarning, match="certified gap"):
        sol = SimSVMDualQP(U, lam, y, r, tol=0.0, max_iter=4).solve(0.01, 0.01)
    assert sol.status == "optimal_inaccurate"


def test_bad_input():
    U, lam, y, r = eig_problem(20, 7)
    assert dual_qp_applicable("l1", lam, r) and dual_qp_applicable("l2", lam, r)
    assert not dual_qp_applicable("frobenius", lam, r)
    with pytest.raises(ValueError, match="kind"):
        SimSVMDualQP(U, lam, y, r, "frobenius")
    with pytest.raises(ValueError, match="clip or flip reference"):
        SimSVMDualQP(U, lam, y, np.ones_like(lam))
    with pytest.raises(ValueError, match="both signs"):
        SimSVMDualQP(U, lam, np.ones_like(y), r)
    qp = SimSVMDualQP(U, lam, y, r)
    for eta, gamma in [(0.0, 1.0), (1.0, -1.0), (np.inf, 1.0), (1.0, np.nan)]:
        with pytest.raises(ValueError, match="positive and finite"):
            qp.solve(eta, gamma)


@pytest.mark.parametrize("regularizer", ["l1-clip", "l2-clip", "l2-flip"])
def test_estimator_with_dual_qp_matches_the_socp(regularizer):
    U, lam, y, r = eig_problem(40, 8)
    S = (U * lam) @ U.T
    fast = SimSVM(regularizer=regularizer, solver="dual-qp").fit(S, y)
    slow = SimSVM(regularizer=regularizer, solver="socp").fit(S, y)
    assert fast.solver_status_ == ["optimal"]
    assert 0 <= fast.duality_gap_[0] <= 1e-6 * fast.objective_
    assert np.isnan(slow.duality_gap_[0])
    assert fast.objective_ == pytest.approx(slow.objective_, rel=1e-6)
    np.testing.assert_array_equal(fast.predict(S[:10]), slow.predict(S[:10]))


@pytest.mark.skipif(
    not (SHARED / "uw" / "aural_sonar.mat").is_file(),
    reason=f"the real aural_sonar matrix is not present (expected {SHARED / 'uw'})",
)
@pytest.mark.parametrize("kind", ["l1", "l2"])
@pytest.mark.parametrize("ref", ["clip", "flip"])
def test_aural_sonar_grid(ref, kind):
    from proxlearn.datasets import load_dataset

    ds = load_dataset("aural_sonar", data_home=SHARED / "uw")
    S = 0.5 * (ds.matrix + ds.matrix.T)
    y = np.where(ds.labels == ds.labels[0], 1.0, -1.0)
    lam, U = scipy.linalg.eigh(S)
    keep = np.abs(lam) > 1e-6 * np.abs(lam).max()
    U, lam = U[:, keep], lam[keep]
    r = (lam > 0).astype(float) if ref == "clip" else np.sign(lam)
    qp = SimSVMDualQP(U, lam, y, r, kind)
    socp = SimSVMSOCP(U, lam, y, r, kind)
    for eta, gamma in GRID:
        sol = qp.solve(eta, gamma)
        assert sol.status == "optimal"
        assert sol.gap <= 1e-6 * abs(sol.dual_objective)
        other = clarabel_value(U, lam, y, r, eta, gamma, socp, kind)
        # never worse than Clarabel beyond the tolerance (Clarabel can be worse:
        # at eta = 100, gamma = 1e-4 on voting it stops 2% above the optimum)
        assert sol.dual_objective <= other * (1 + 1e-12)
        assert sol.objective <= other * (1 + 1e-6)
