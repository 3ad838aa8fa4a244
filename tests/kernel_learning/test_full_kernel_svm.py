"""Tests for FullKernelSVM (Chen 2010 eqs. 5.6 / 5.16, test rows by the corrected 5.13/5.14)."""

import pickle
from types import SimpleNamespace

import cvxpy as cp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.svm import SVC
from sklearn.utils.estimator_checks import check_estimator

from proxlearn._validation import (
    InvalidParameterError,
    LabelError,
    SimilarityMatrixError,
    TestMatrixError,
)
from proxlearn.base import SKLEARN_CHECK_EXCEPTIONS, is_pairwise
from proxlearn.kernel_learning._full_kernel_svm import (
    FullKernelSVM,
    SolverFailedError,
    check_status,
    modify_test_rows,
)
from proxlearn.svm import SimilaritySVC

from _problems import indefinite_problem




def primal_value(K, S, y, c, b, eta, gamma):
    f = K @ c + b
    return (np.maximum(0, 1 - y * f).mean() + eta * c @ K @ c
            + gamma * np.linalg.norm(K - S, "fro"))


def dual_lower_bound(beta, S, y, eta, gamma):
    """d(beta) = 1^T beta + min_{K PSD} [-(y beta)^T K (y beta) / (4 eta) + gamma ||K - S||_F].

    Weak duality (min-max >= max-min) makes d(beta) a lower bound on (5.6) for any
    SVM-dual-feasible beta (0 <= beta <= 1/n, y^T beta = 0); solved as its own SDP.
    """
    n = len(y)
    a = y * beta
    K = cp.Variable((n, n), PSD=True)
    prob = cp.Problem(cp.Minimize(-cp.trace(K @ np.outer(a, a)) / (4 * eta)
                                  + gamma * cp.norm(K - S, "fro")))
    prob.solve(solver="CLARABEL")
    assert prob.status == "optimal"
    return beta.sum() + prob.value


# --------------------------------------------------------------- optimality


@pytest.mark.parametrize("eta,gamma", [(0.02, 0.05), (0.1, 0.5)])
def test_optimality_certificate_and_recovery(eta, gamma):
    S, y = indefinite_problem(16, 0)
    ypm = np.where(y == 1, 1.0, -1.0)
    n = len(y)
    clf = FullKernelSVM(eta=eta, gamma=gamma, normalize=False).fit(S, y)
    K, c, b = clf.kernel_, clf.dual_coef_[0], clf.intercept_[0]
    obj = clf.objective_[0]
    # learned kernel is PSD
    assert np.linalg.eigvalsh(K).min() > -1e-7
    # the recovered (K*, c*, b*) attains the reported optimum of (5.2)/(5.6)
    assert primal_value(K, S, ypm, c, b, eta, gamma) == pytest.approx(obj, rel=1e-5, abs=1e-7)
    # SVM dual on K* (scaled: beta = 2 eta alpha_svc in [0, 1/n]) gives a lower
    # bound through the independent inner SDP; a ~zero gap certifies optimality
    svc = SVC(kernel="precomputed", C=1 / (2 * n * eta), tol=1e-10).fit(K, ypm)
    beta = np.zeros(n)
    beta[svc.support_] = 2 * eta * np.abs(svc.dual_coef_[0])
    lower = dual_lower_bound(beta, S, ypm, eta, gamma)
    assert lower <= obj + 1e-6
    assert obj - lower < 1e-4 * max(1.0, obj)


def test_scs_and_clarabel_agree():
    S, y = indefinite_problem(12, 4)
    a = FullKernelSVM(eta=0.05, gamma=0.2).fit(S, y)
    b = FullKernelSVM(eta=0.05, gamma=0.2, solver="SCS",
                      solver_options={"eps": 1e-8, "max_iters": 100_000}).fit(S, y)
    assert a.objective_[0] == pytest.approx(b.objective_[0], rel=1e-3)


def test_psd_similarity_large_gamma_is_plain_svm():
    rng = np.random.default_rng(3)
    X = np.vstack([rng.normal(-1, 1, (12, 3)), rng.normal(1, 1, (12, 3))])
    y = np.repeat([0, 1], 12)
    S = X @ X.T + 0.5 * np.eye(24)  # PSD
    n, eta = 24, 0.02
    clf = FullKernelSVM(eta=eta, gamma=100.0, normalize=False).fit(S, y)
    np.testing.assert_allclose(clf.kernel_, S, atol=1e-5 * np.abs(S).max())
    ref = SimilaritySVC(spectrum="clip", C=1 / (2 * n * eta), normalize=False).fit(S, y)
    T = rng.normal(0, 1, (8, 3)) @ X.T
    np.testing.assert_array_equal(clf.predict(T), ref.predict(T))
    np.testing.assert_allclose(clf.decision_function(T), ref.decision_function(T), atol=5e-3)


def test_default_eta_is_c_one_per_pair():
    """eta="auto" is 1 / (2 n_pair): on a PSD S (K* = S at a large gamma) the default is the
    clip SVM at its default C = 1 (the former eta = 0.001 was C = 500 / n, here about 21,
    and lost to the clip SVM on 6 of the 14 panel sets)."""
    rng = np.random.default_rng(4)
    X = np.vstack([rng.normal(-0.4, 1, (15, 3)), rng.normal(0.4, 1, (15, 3)),
                   rng.normal((0, 1.5, 0), 1, (12, 3))])
    y = np.repeat([0, 1, 2], [15, 15, 12])
    S = X @ X.T + 0.5 * np.eye(42)  # PSD, overlapping classes (the margin depends on C)
    clf = FullKernelSVM().fit(S, y)
    np.testing.assert_allclose(clf.eta_, [1 / 60, 1 / 54, 1 / 54])
    ref = SimilaritySVC(spectrum="clip").fit(S, y)
    T = rng.normal(0, 1, (20, 3)) @ X.T
    np.testing.assert_array_equal(clf.predict(T), ref.predict(T))
    old = FullKernelSVM(eta=0.001).fit(S, y)
    assert not np.array_equal(old.predict(T), ref.predict(T))


# --------------------------------------------------------- test rows (5.13)


def qcqp_sdp(K, s, psi):
    """The SDP (5.13) itself: nearest PSD bordered matrix with K* fixed."""
    n = len(s)
    r, t = cp.Variable(n), cp.Variable()
    M = cp.bmat([[K, cp.reshape(r, (n, 1), order="F")],
                 [cp.reshape(r, (1, n), order="F"), cp.reshape(t, (1, 1), order="F")]])
    prob = cp.Problem(cp.Minimize(2 * cp.sum_squares(r - s) + cp.square(t - psi)),
                      [0.5 * (M + M.T) >> 0])
    prob.solve(solver="CLARABEL")
    return r.value


@pytest.mark.parametrize("psi", [0.05, 50.0])
def test_corrected_test_modification_matches_sdp(psi):
    rng = np.random.default_rng(1)
    B = rng.normal(size=(8, 4))
    K = B @ B.T  # rank 4
    s = rng.normal(size=8)
    r = modify_test_rows(K, s[None, :], psi)[0]
    Kp = np.linalg.pinv(K, rcond=1e-10, hermitian=True)
    t = max(psi, r @ Kp @ r)  # optimal t for r under the corrected constraint
    ours = 2 * np.sum((r - s) ** 2) + (t - psi) ** 2
    r_sdp = qcqp_sdp(K, s, psi)
    t_sdp = max(psi, r_sdp @ Kp @ r_sdp)
    ref = 2 * np.sum((r_sdp - s) ** 2) + (t_sdp - psi) ** 2
    # the closed form is at least as good as the SDP, up to the SDP's accuracy
    # (K* is singular, which makes the interior-point solve degenerate)
    assert ours <= ref + 1e-5 * max(1.0, ref)
    np.testing.assert_allclose(r, r_sdp, atol=2e-4)
    # r lies in range(K*) (the range condition of Lemma 5.1)
    np.testing.assert_allclose(K @ Kp @ r, r, atol=1e-10)
    # the constraint as printed (r^T K r <= t) would accept points that are not
    # PSD-completable; the corrected one is tight when psi is small
    if psi < s @ Kp @ s:
        assert r @ Kp @ r == pytest.approx(t, rel=1e-8)


@settings(max_examples=40, deadline=None)
@given(n=st.integers(2, 9), rank=st.integers(1, 9), seed=st.integers(0, 10_000),
       with_psi=st.booleans())
def test_kernel_columns_are_fixed_points_of_the_test_map(n, rank, seed, with_psi):
    """Train/test consistency: the i-th column of K* given as a test row (with
    psi = K*_ii) is mapped to the i-th row of K* exactly."""
    rng = np.random.default_rng(seed)
    B = rng.normal(size=(n, min(rank, n)))
    K = B @ B.T
    psi = np.diag(K) if with_psi else None
    R = modify_test_rows(K, K, psi)
    np.testing.assert_allclose(R, K, atol=1e-8 * max(1.0, np.abs(K).max()))


def test_fitted_model_consistency_on_training_rows():
    S, y = indefinite_problem(14, 2)
    clf = FullKernelSVM(eta=0.05, gamma=0.1, normalize=False).fit(S, y)
    K = clf.kernel_
    # the learned kernel's rows as test rows reproduce the training decisions K* c + b
    dec = clf.decision_function(K, self_similarity=np.diag(K))
    np.testing.assert_allclose(dec, K @ clf.dual_coef_[0] + clf.intercept_[0], atol=1e-5)
    # the test map for S rows with psi given is feasible for the bordered PSD matrix
    R = clf.modified_test_rows(S[:3], self_similarity=np.diag(S)[:3])
    for i in range(3):
        M = np.block([[K, R[i][:, None]], [R[i][None, :], np.array([[max(S[i, i], R[i] @
                      np.linalg.pinv(K, rcond=1e-8, hermitian=True) @ R[i])]])]])
        assert np.linalg.eigvalsh(M).min() > -1e-6
    back = pickle.loads(pickle.dumps(clf))
    np.testing.assert_array_equal(back.predict(S), clf.predict(S))


# ----------------------------------------------------------- transductive


def test_transductive_learns_joint_psd_kernel():
    S, y = indefinite_problem(16, 5)
    n_lab = 12
    eta, gamma = 0.05, 0.1
    clf = FullKernelSVM(eta=eta, gamma=gamma, transductive=True, normalize=False).fit(S, y[:n_lab])
    K = clf.kernel_
    assert K.shape == (16, 16)
    assert np.linalg.eigvalsh(K).min() > -1e-7
    c, b = clf.dual_coef_[0], clf.intercept_[0]
    ypm = np.where(y[:n_lab] == 1, 1.0, -1.0)
    K11 = K[:n_lab, :n_lab]
    f = K11 @ c + b
    obj = (np.maximum(0, 1 - ypm * f).mean() + eta * c @ K11 @ c
           + gamma * np.linalg.norm(K - S, "fro"))
    assert obj == pytest.approx(clf.objective_[0], rel=1e-5, abs=1e-7)
    np.testing.assert_allclose(clf.transductive_decision_, K[n_lab:, :n_lab] @ c + b)
    assert clf.transduction_.shape == (4,)
    np.testing.assert_array_equal(clf.transduction_,
                                  clf.classes_[(clf.transductive_decision_ > 0).astype(int)])
    # (5.16) relaxes (5.6) on the labelled block: the joint optimum is no larger
    # than the inductive optimum plus the Frobenius cost of any PSD completion
    ind = FullKernelSVM(eta=eta, gamma=gamma, normalize=False).fit(S[:n_lab, :n_lab], y[:n_lab])
    assert clf.objective_[0] >= ind.objective_[0] - 1e-6
    assert clf.n_features_in_ == n_lab


def test_multiclass_one_vs_one():
    S, y = indefinite_problem(18, 6, k=3)
    clf = FullKernelSVM(eta=0.05, gamma=0.1).fit(S, y)
    assert clf.kernel_ is None and len(clf.kernels_) == 3
    assert [len(i) for i in clf.pair_indices_] == [12, 12, 12]
    dec = clf.decision_function(S)
    assert dec.shape == (18, 3)
    np.testing.assert_array_equal(clf.predict(S), clf.classes_[dec.argmax(axis=1)])


# ------------------------------------------------------------- bad input


def test_bad_input_and_limits():
    S, y = indefinite_problem(10, 0)
    with pytest.raises(InvalidParameterError, match="eta"):
        FullKernelSVM(eta=0).fit(S, y)
    with pytest.raises(InvalidParameterError, match="gamma"):
        FullKernelSVM(gamma=-1).fit(S, y)
    with pytest.raises(InvalidParameterError, match="solver"):
        FullKernelSVM(solver="SDPT3").fit(S, y)
    with pytest.raises(InvalidParameterError, match="max_samples"):
        FullKernelSVM(max_samples=8).fit(S, y)
    with pytest.raises(InvalidParameterError, match="transductive"):
        FullKernelSVM(transductive="yes").fit(S, y)
    with pytest.raises(LabelError):
        FullKernelSVM(transductive=True).fit(S, np.zeros((2, 2)))
    with pytest.raises(SimilarityMatrixError):
        FullKernelSVM().fit(S[:, :-1], y)
    with pytest.raises(LabelError):
        FullKernelSVM().fit(S, y[:-1])
    clf = FullKernelSVM().fit(S, y)
    with pytest.raises(TestMatrixError):
        clf.predict(S[:, :-1])
    with pytest.raises(InvalidParameterError, match="self_similarity"):
        clf.predict(S, self_similarity=np.ones(3))
    assert is_pairwise(clf)


def test_solver_status_errors_are_clear():
    with pytest.raises(SolverFailedError, match="status 'infeasible'.*rescale S"):
        check_status(SimpleNamespace(status="infeasible"), "full-kernel SVM SDP", "CLARABEL")
    with pytest.warns(Warning, match="reduced accuracy"):
        check_status(SimpleNamespace(status="optimal_inaccurate"), "x", "SCS")
    S, y = indefinite_problem(10, 0)
    with pytest.raises(SolverFailedError, match="CLARABEL"):
        FullKernelSVM(solver="CLARABEL", solver_options={"max_iter": 1}).fit(S, y)


#: checks whose data (80-200 samples per pair) make SDPs far beyond a unit
#: test's budget; with max_samples=40 they stop at the documented size error.
_LARGE_N_CHECKS = {
    name: "the check's data set makes an SDP with O(n^2) variables for n = 80-200; "
    "FullKernelSVM refuses it (max_samples) by design"
    for name in ("check_classifiers_train", "check_fit_idempotent", "check_fit_check_is_fitted",
                 "check_n_features_in", "check_positive_only_tag_during_fit")
}


def test_check_estimator():
    check_estimator(FullKernelSVM(max_samples=40),
                    expected_failed_checks={**SKLEARN_CHECK_EXCEPTIONS, **_LARGE_N_CHECKS})
