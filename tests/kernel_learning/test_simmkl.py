"""Tests for SimMKL (Chen 2010 eqs. 5.35/5.36) and the base kernels (section 5.4.3)."""

import pickle

import cvxpy as cp
import numpy as np
import pytest
import scipy.linalg
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.utils.estimator_checks import check_estimator

from proxlearn._validation import (
    InvalidParameterError,
    LabelError,
    SimilarityMatrixError,
    TestMatrixError,
)
from proxlearn.base import SKLEARN_CHECK_EXCEPTIONS, is_pairwise
from proxlearn.kernel_learning._base_kernels import (
    BaseKernelSVC,
    DiffusionKernel,
    LinearSimilarityKernel,
    RBFSimilarityKernel,
    base_kernel_pair,
    make_base_kernel,
)
from proxlearn.kernel_learning._full_kernel_svm import SolverFailedError
from proxlearn.kernel_learning._simmkl import SimMKL, SimMKLProblem
from proxlearn.svm import SimilaritySVC

from _problems import indefinite_problem




def base_kernels(S, specs):
    return [make_base_kernel(s).fit_transform(S) for s in specs]


def simmkl_sdp(S, y, Ks, eta, gamma, tau, reference="clip"):
    """Independent formulation: the conic program (5.36) with its (n+1)x(n+1) LMI."""
    n = S.shape[0]
    lam, U = scipy.linalg.eigh(S)
    a_ref = (lam > 0).astype(float) if reference == "clip" else np.sign(lam)
    alpha = cp.Variable(n)
    z, b, u, v = cp.Variable(n), cp.Variable(), cp.Variable(), cp.Variable()
    xi = cp.Variable(n, nonneg=True)
    theta = cp.multiply(lam, alpha)
    kappa = U @ cp.diag(theta) @ U.T
    cons = [theta >= 0, cp.norm(alpha - a_ref, 2) <= v, cp.multiply(y, z + b) >= 1 - xi]
    if Ks:
        w = cp.Variable(len(Ks), nonneg=True)
        kappa = kappa + sum(w[j] * K for j, K in enumerate(Ks))
        cons.append(np.array([np.trace(K) for K in Ks]) @ w <= tau)
    M = cp.bmat([[kappa, cp.reshape(z, (n, 1), order="F")],
                 [cp.reshape(z, (1, n), order="F"), cp.reshape(u, (1, 1), order="F")]])
    cons.append(0.5 * (M + M.T) >> 0)
    prob = cp.Problem(cp.Minimize(cp.sum(xi) / n + eta * u + gamma * v), cons)
    prob.solve(solver="CLARABEL")
    assert prob.status == "optimal"
    return prob.value


def simmkl_dual_value(beta, S, y, Ks, eta, gamma, tau, reference="clip"):
    """Dual function of (5.35) at beta (our derivation, see _simmkl module doc).

    d(beta) = 1^T beta - sum_i theta_ref_i a_i^2 / (4 eta)
              - tau max(0, max_j (y beta)^T K_j (y beta) / tr K_j) / (4 eta),
    a = U^T (y * beta), finite iff || |lambda| a^2 / (4 eta) ||_2 <= gamma.
    Returns (value, dual-norm ratio ||p|| / gamma).
    """
    lam, U = scipy.linalg.eigh(S)
    a_ref = (lam > 0).astype(float) if reference == "clip" else np.sign(lam)
    yb = y * beta
    a = U.T @ yb
    p = np.abs(lam) * a**2 / (4 * eta)
    q = max([0.0] + [yb @ K @ yb / np.trace(K) for K in Ks])
    val = beta.sum() - np.sum(lam * a_ref * a**2) / (4 * eta) - tau * q / (4 * eta)
    return val, np.linalg.norm(p) / gamma


def primal_value(S, y, Ks, c, b, alpha, w, eta, gamma, reference="clip"):
    lam, U = scipy.linalg.eigh(S)
    a_ref = (lam > 0).astype(float) if reference == "clip" else np.sign(lam)
    kappa = (U * (lam * alpha)) @ U.T + sum(wj * K for wj, K in zip(w, Ks, strict=True))
    f = kappa @ c + b
    return (np.maximum(0, 1 - y * f).mean() + eta * c @ kappa @ c
            + gamma * np.linalg.norm(alpha - a_ref))


# --------------------------------------------------------------- optimality


@pytest.mark.parametrize(
    "eta,gamma,specs,reference",
    [
        (0.05, 0.1, ["linear", ("rbf", 0.5)], "clip"),
        (0.01, 1.0, [("rbf", 0.2)], "flip"),
        (0.02, 0.05, [], "clip"),  # no base kernels: SimSVM (5.21)/(5.31)
    ],
)
def test_socp_matches_sdp_and_dual_certificate(eta, gamma, specs, reference):
    S, y = indefinite_problem(14, 3)
    ypm = np.where(y == 1, 1.0, -1.0)
    Ks = base_kernels(S, specs)
    prob = SimMKLProblem(S, ypm, Ks, reference=reference)
    sol = prob.solve(eta, gamma)
    sdp = simmkl_sdp(S, ypm, Ks, eta, gamma, prob.tau, reference)
    assert sol["objective"] == pytest.approx(sdp, rel=1e-5, abs=1e-7)
    # weak duality with the solver's hinge multipliers: gap ~ 0 certifies optimality
    beta = sol["hinge_dual"]
    assert np.all(beta >= -1e-8) and np.all(beta <= 1 / len(y) + 1e-8)
    assert abs(ypm @ beta) < 1e-7
    dval, ratio = simmkl_dual_value(beta, S, ypm, Ks, eta, gamma, prob.tau, reference)
    assert ratio <= 1 + 1e-5
    assert sol["objective"] - dval == pytest.approx(0.0, abs=1e-6 * max(1.0, sol["objective"]))
    # the recovered (c, b, alpha, w) attains the optimal value of (5.35)
    pv = primal_value(S, ypm, Ks, sol["c"], sol["b"], sol["alpha"], sol["weights"], eta, gamma,
                      reference)
    assert pv == pytest.approx(sol["objective"], rel=1e-5, abs=1e-7)
    # feasibility: Lambda alpha >= 0, w >= 0, trace bound
    assert np.all(prob.lam * sol["alpha"] >= -1e-8)
    assert np.all(sol["weights"] >= 0)
    traces = np.array([np.trace(K) for K in Ks])
    assert traces @ sol["weights"] <= prob.tau * (1 + 1e-7)


def test_large_gamma_no_kernels_is_svm_on_clip():
    S, y = indefinite_problem(24, 5)
    n, eta = len(y), 0.02
    clf = SimMKL(eta=eta, gamma=1e4, kernels=[]).fit(S, y)
    lam = clf.eigenvalues_[0]
    np.testing.assert_allclose(clf.alpha_, (lam > 0).astype(float), atol=1e-5)
    ref = SimilaritySVC(spectrum="clip", C=1 / (2 * n * eta)).fit(S, y)
    S_test, _ = indefinite_problem(24, 6)
    np.testing.assert_allclose(clf.decision_function(S_test[:10]),
                               ref.decision_function(S_test[:10]), atol=2e-3)


def test_fitted_attributes_and_training_consistency():
    S, y = indefinite_problem(20, 1)
    specs = ["linear", ("rbf", 0.3)]
    clf = SimMKL(eta=0.02, gamma=0.5, kernels=specs, normalize=False).fit(S, y)
    assert clf.weights_.shape == (1, 2) and np.all(clf.weights_ >= 0)
    assert clf.objective_.shape == (1,) and clf.objective_[0] > 0
    Ks = base_kernels(S, specs)
    assert np.array([np.trace(K) for K in Ks]) @ clf.weights_[0] <= clf.tau_[0] * (1 + 1e-7)
    # default tau = tr(S_clip)
    assert clf.tau_[0] == pytest.approx(np.maximum(clf.eigenvalues_[0], 0).sum())
    lam = clf.eigenvalues_[0]
    U = scipy.linalg.eigh(S)[1]
    kappa = (U * (lam * clf.alpha_)) @ U.T + sum(w * K for w, K in zip(clf.weights_[0], Ks,
                                                                       strict=True))
    assert np.linalg.eigvalsh(kappa).min() > -1e-7 * np.abs(kappa).max()
    # training rows given as test rows reproduce kappa c + b (consistent test map)
    np.testing.assert_allclose(clf.decision_function(S), kappa @ clf.dual_coef_[0]
                               + clf.intercept_[0], atol=1e-8 * max(1, np.abs(kappa).max()))
    back = pickle.loads(pickle.dumps(clf))
    np.testing.assert_array_equal(back.predict(S), clf.predict(S))
    assert clf.score(S, y) > 0.85


def test_multiclass_one_vs_one():
    S, y = indefinite_problem(24, 2, k=3)
    labels = np.array(["a", "b", "c"])[y]
    clf = SimMKL(eta=0.02, gamma=0.5, kernels=[("rbf", 0.3)]).fit(S, labels)
    assert list(clf.classes_) == ["a", "b", "c"]
    assert clf.weights_.shape == (3, 1) and clf.alpha_ is None and len(clf.alphas_) == 3
    assert np.all(clf.dual_coef_[0, y == 2] == 0)  # pair (a, b) ignores class c
    dec = clf.decision_function(S)
    assert dec.shape == (24, 3)
    np.testing.assert_array_equal(clf.predict(S), clf.classes_[dec.argmax(axis=1)])
    assert clf.score(S, labels) > 0.8


# ----------------------------------------------------------- base kernels


@settings(max_examples=25, deadline=None)
@given(n=st.integers(3, 12), seed=st.integers(0, 10_000),
       spec=st.sampled_from(["linear", ("rbf", 0.3), ("diffusion", 4.0)]))
def test_base_kernels_map_training_rows_to_training_kernel(n, seed, spec):
    rng = np.random.default_rng(seed)
    A = rng.uniform(0.05, 1.0, (n, n))
    S = 0.5 * (A + A.T)  # non-negative, generic (nonsingular) similarity
    K, K_test = base_kernel_pair(spec, S, S)
    np.testing.assert_allclose(K_test, K, atol=1e-8 * max(1.0, np.abs(K).max()))
    assert np.linalg.eigvalsh(K).min() > -1e-8 * max(1.0, np.abs(K).max())
    perm = rng.permutation(n)  # the i-th test row is the i-th output row
    np.testing.assert_allclose(base_kernel_pair(spec, S, S[perm])[1], K[perm], atol=1e-8 * max(
        1.0, np.abs(K).max()))


def test_base_kernel_formulas():
    rng = np.random.default_rng(0)
    S = rng.uniform(0, 1, (6, 6))
    T = rng.uniform(0, 1, (2, 6))
    K, Kt = base_kernel_pair(("rbf", 0.7), S, T)
    assert K[1, 3] == pytest.approx(np.exp(-0.7 * np.sum((S[1] - S[3]) ** 2)))
    assert Kt[1, 2] == pytest.approx(np.exp(-0.7 * np.sum((T[1] - S[2]) ** 2)))
    K, Kt = base_kernel_pair("linear", S, T)
    np.testing.assert_allclose(K, S @ S.T)
    np.testing.assert_allclose(Kt, T @ S.T)
    Ssym = 0.5 * (S + S.T)
    d = Ssym.sum(1)
    L = np.eye(6) - Ssym / np.sqrt(np.outer(d, d))
    np.testing.assert_allclose(DiffusionKernel(sigma2=3.0, graph="dense",
                                               center=False).fit_transform(Ssym),
                               scipy.linalg.expm(-1.5 * L), atol=1e-12)
    assert isinstance(make_base_kernel("rbf:0.01"), RBFSimilarityKernel)
    assert make_base_kernel("rbf:0.01").beta == 0.01
    assert isinstance(make_base_kernel(LinearSimilarityKernel()), LinearSimilarityKernel)
    assert is_pairwise(RBFSimilarityKernel())


@pytest.mark.parametrize("spec", ["poly", ("rbf", "x"), "rbf:abc", ("linear", 2.0), 3])
def test_bad_kernel_specs(spec):
    with pytest.raises(InvalidParameterError):
        make_base_kernel(spec)


def test_diffusion_rejects_negative_similarities():
    S, _ = indefinite_problem(8, 0)
    with pytest.raises(SimilarityMatrixError, match="non-negative"):
        DiffusionKernel(graph="dense").fit(S)


def test_base_kernel_svc():
    S, y = indefinite_problem(30, 4)
    clf = BaseKernelSVC(kernel=("rbf", 0.2), C=10.0).fit(S, y)
    assert clf.score(S, y) > 0.85
    with pytest.raises(TestMatrixError):
        clf.predict(S[:, :-1])


# ------------------------------------------------------------- bad input


def test_bad_input_and_parameters():
    S, y = indefinite_problem(12, 0)
    with pytest.raises(InvalidParameterError, match="eta"):
        SimMKL(eta=-1).fit(S, y)
    with pytest.raises(InvalidParameterError, match="gamma"):
        SimMKL(gamma=0).fit(S, y)
    with pytest.raises(InvalidParameterError, match="tau"):
        SimMKL(tau=-2.0).fit(S, y)
    with pytest.raises(InvalidParameterError, match="reference"):
        SimMKL(reference="shift").fit(S, y)
    with pytest.raises(InvalidParameterError, match="solver"):
        SimMKL(solver="MOSEK_X").fit(S, y)
    with pytest.raises(InvalidParameterError, match="kernels"):
        SimMKL(kernels="linear").fit(S, y)
    with pytest.raises(SimilarityMatrixError):
        SimMKL().fit(S[:, :-1], y)
    with pytest.raises(LabelError):
        SimMKL().fit(S, y[:-1])
    with pytest.raises(LabelError):
        SimMKL().fit(S, np.zeros(12))
    bad = S.copy()
    bad[0, 1] = np.nan
    with pytest.raises(SimilarityMatrixError, match="NaN"):
        SimMKL().fit(bad, y)
    clf = SimMKL(kernels=[]).fit(S, y)
    with pytest.raises(TestMatrixError):
        clf.predict(S[:, :-2])


def test_solver_failure_is_reported_clearly():
    S, y = indefinite_problem(12, 0)
    with pytest.raises(SolverFailedError, match="CLARABEL failed .*status"):
        SimMKL(solver_options={"max_iter": 1}).fit(S, y)
    with pytest.raises(InvalidParameterError, match="Clarabel setting"):
        SimMKL(solver_options={"no_such_setting": 1}).fit(S, y)


def test_scs_through_cvxpy_agrees_with_direct_clarabel():
    S, y = indefinite_problem(16, 8)
    ypm = np.where(y == 1, 1.0, -1.0)
    Ks = base_kernels(S, ["linear", ("rbf", 0.4)])
    prob = SimMKLProblem(S, ypm, Ks)
    a = prob.solve(0.03, 0.2, solver="CLARABEL")
    b = prob.solve(0.03, 0.2, solver="SCS", solver_options={"eps": 1e-9, "max_iters": 200_000})
    assert a["objective"] == pytest.approx(b["objective"], rel=1e-4)
    np.testing.assert_allclose(a["weights"], b["weights"], atol=1e-3)


def test_check_estimator():
    check_estimator(SimMKL(kernels=[]), expected_failed_checks=SKLEARN_CHECK_EXCEPTIONS)


# -------------------------------------------------------------- study methods


def test_study_methods_registered_with_dataset_kernels():
    import proxlearn.study.papers.chen2010._methods_simmkl as mod
    from proxlearn.study._methods import get_method

    assert mod.SIMMKL_KERNELS["aural_sonar"] == ("linear", ("rbf", 0.01), ("rbf", 0.1))
    assert mod.SIMMKL_KERNELS["protein-2"] == ("linear", ("rbf", 0.1), ("rbf", 0.05))
    m = get_method("simmkl-protein-2")
    assert len(m.grid("chen2009")) == 5 * 7
    assert m.build(eta=0.1, gamma=1.0).kernels == ["linear", ("rbf", 0.1), ("rbf", 0.05)]
    assert get_method("svm-kernel3-aural_sonar").build(C=1.0).kernel == ("rbf", 0.1)
    assert get_method("svm-kernel2").build(C=1.0).kernel == ("rbf", 0.01)
    # the fold evaluator (one compiled SOCP per fold) agrees with plain fits
    S, y = indefinite_problem(20, 7)
    grid = [{"eta": 0.01, "gamma": 0.1}, {"eta": 0.1, "gamma": 10.0}]
    fast = m.evaluate_grid(S[:15, :15], y[:15], S[15:, :15], grid)
    for p, pred in zip(grid, fast, strict=True):
        np.testing.assert_array_equal(pred, m.build(**p).fit(S[:15, :15], y[:15]).predict(
            S[15:, :15]))
    mk = get_method("svm-kernel1-protein-2")
    fast = mk.evaluate_grid(S[:15, :15], y[:15], S[15:, :15], [{"C": 1.0}])
    np.testing.assert_array_equal(fast[0], mk.build(C=1.0).fit(S[:15, :15], y[:15]).predict(
        S[15:, :15]))


def test_grid_predictions_equal_one_fit_per_point():
    """The grid-path protocol: entry i is what set_params(**grid[i]).fit(...).predict does."""
    from sklearn.base import clone

    S, y = indefinite_problem(36, 4, k=3)
    idx = np.random.default_rng(0).permutation(36)
    tr, te = idx[:27], idx[27:]
    S_tr, y_tr, S_te = S[np.ix_(tr, tr)], y[tr], S[np.ix_(te, tr)]
    model = SimMKL(kernels=["linear", ("rbf", 0.1)])
    grid = [{"eta": 1e-2, "gamma": 0.1}, {"eta": 1e-2, "gamma": 10.0}, {"eta": 1.0, "gamma": 1.0}]
    path = model.grid_predictions(S_tr, y_tr, S_te, grid)
    for p, pred in zip(grid, path, strict=True):
        np.testing.assert_array_equal(pred, clone(model).set_params(**p).fit(S_tr, y_tr)
                                      .predict(S_te))
    with pytest.raises(InvalidParameterError, match="on_failure"):
        model.grid_predictions(S_tr, y_tr, S_te, grid, on_failure="skip")
