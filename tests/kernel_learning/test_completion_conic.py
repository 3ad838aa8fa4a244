"""Kernel completion as conic programs (Chen 2010 sec. 6.3): (6.5), (6.6)-(6.10), (6.8)."""

import pickle

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.base import clone
from sklearn.svm import SVC

from proxlearn.exceptions import InvalidParameterError, LabelError, SimilarityMatrixError
from proxlearn.kernel_learning import (
    CompletionSVC,
    KernelCompleter,
    complete_test_row,
    em_complete,
    frobenius_complete,
)


def _kernel(n, seed=0, rank=None):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, rank or n))
    return X @ X.T / (rank or n)


def test_frobenius_completion_of_a_kernel_by_itself_is_exact():
    K = _kernel(12, seed=1)
    res = frobenius_complete(K[:7, :7], K)
    assert res.objective_history[0] <= 1e-6
    np.testing.assert_array_equal(res.kernel[:7, :7], K[:7, :7])
    assert np.linalg.eigvalsh(res.kernel).min() >= -1e-6
    assert np.all(res.weights >= 0)
    # the optimum is the auxiliary model itself: the completion recovers K
    np.testing.assert_allclose(res.kernel, K, atol=1e-4)


def test_frobenius_completion_with_a_different_auxiliary_kernel():
    K, A = _kernel(10, seed=2), _kernel(10, seed=3)
    res = frobenius_complete(K[:5, :5], A)
    np.testing.assert_array_equal(res.kernel[:5, :5], K[:5, :5])
    assert np.linalg.eigvalsh(res.kernel).min() >= -1e-6
    # optimal: no feasible perturbation of the free blocks does better
    _, V = np.linalg.eigh(A)

    def gap(Kc):
        G = V.T @ Kc @ V
        return np.linalg.norm(G - np.diag(np.maximum(np.diag(G), 0)))

    best = gap(res.kernel)
    assert best == pytest.approx(res.objective_history[0], abs=1e-5)
    rng = np.random.default_rng(0)
    for _ in range(20):
        E = np.zeros((10, 10))
        E[5:, :] = 1e-2 * rng.normal(size=(5, 10))
        E = E + E.T
        E[:5, :5] = 0
        trial = res.kernel + E
        if np.linalg.eigvalsh(trial).min() >= 0:
            assert gap(trial) >= best - 1e-5


def test_completer_estimator_matches_the_functions():
    K = _kernel(10, seed=4)
    A = K + 0.05 * _kernel(10, seed=5)
    em = KernelCompleter(max_iter=5000).fit(K[:6, :6], A)
    np.testing.assert_allclose(em.kernel_, em_complete(K[:6, :6], A, max_iter=5000).kernel)
    fro = KernelCompleter("frobenius").fit(K[:6, :6], A)
    np.testing.assert_allclose(fro.kernel_, frobenius_complete(K[:6, :6], A).kernel, atol=1e-8)
    out = KernelCompleter(max_iter=5000).fit_transform(K[:6, :6], A)
    np.testing.assert_array_equal(out[:6, :6], K[:6, :6])
    again = pickle.loads(pickle.dumps(em))
    np.testing.assert_array_equal(again.kernel_, em.kernel_)
    assert clone(em).get_params() == em.get_params()


def test_completer_bad_input():
    K = _kernel(6)
    with pytest.raises(InvalidParameterError, match="method"):
        KernelCompleter("svd").fit(K[:3, :3], K)
    with pytest.raises(InvalidParameterError, match="auxiliary kernel"):
        KernelCompleter().fit(K[:3, :3], None)
    with pytest.raises(InvalidParameterError, match="nothing to complete"):
        KernelCompleter("frobenius").fit(K, K[:3, :3])
    bad = K.copy()
    bad[0, 1] = np.nan
    with pytest.raises(SimilarityMatrixError):
        KernelCompleter().fit(K[:3, :3], bad)


def _labelled(n=16, seed=0):
    rng = np.random.default_rng(seed)
    y = np.repeat([0, 1], n // 2)
    X = rng.normal(size=(n, 3)) + 1.2 * y[:, None]
    return X @ X.T / 3 + 0.1 * np.eye(n), y


def test_fully_known_kernel_gives_the_svm_on_it():
    K, y = _labelled()
    n, eta = len(y), 0.01
    clf = CompletionSVC(eta=eta, gamma=0.01).fit(K, y, K11=K)
    np.testing.assert_allclose(clf.kernel_, K, atol=1e-10)
    svc = SVC(kernel="precomputed", C=1 / (2 * n * eta), tol=1e-10).fit(K, y)
    np.testing.assert_allclose(K @ clf.dual_coef_[0] + clf.intercept_[0],
                               svc.decision_function(K), atol=2e-3)


def test_inductive_completion_keeps_k11_and_classifies():
    K, y = _labelled(seed=1)
    A = K + 0.2 * _kernel(16, seed=9)
    perm = np.r_[np.arange(0, 16, 2), np.arange(1, 16, 2)]  # known half has both classes
    K, A, y = K[np.ix_(perm, perm)], A[np.ix_(perm, perm)], y[perm]
    clf = CompletionSVC().fit(A, y, K11=K[:8, :8])
    np.testing.assert_array_equal(clf.kernel_[:8, :8], K[:8, :8])
    assert np.linalg.eigvalsh(clf.kernel_).min() >= -1e-6
    assert np.all(clf.weights_[0] >= 0)
    assert clf.score(A[:6], y[:6]) >= 5 / 6


def test_test_rows_case_2_keep_what_is_known():
    K, y = _labelled(n=12, seed=2)
    clf = CompletionSVC().fit(K, y, K11=K)
    R, t = complete_test_row(clf.kernel_, K, K[:2], np.diag(K)[:2], known=K[:2],
                             known_self=np.diag(K)[:2])
    np.testing.assert_allclose(R, K[:2], atol=1e-6)
    np.testing.assert_allclose(t, np.diag(K)[:2], atol=1e-6)


def test_test_row_of_a_training_duplicate_is_its_row():
    K = _kernel(8, seed=6)
    R, t = complete_test_row(K, K, K[[3]], K[3, 3])
    np.testing.assert_allclose(R[0], K[3], atol=1e-4)
    assert t[0] == pytest.approx(K[3, 3], abs=1e-4)


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(3, 8), rank=st.integers(1, 8),
       case=st.sampled_from([1, 2]))
def test_training_objects_map_to_their_rows(seed, n, rank, case):
    # train/test consistency: a training object presented as new (its auxiliary row
    # and self-similarity) gets its row of the completed kernel back
    K = _kernel(n, seed=seed, rank=min(rank, n))
    i = seed % n
    n1 = max(1, n // 2)
    kw = {"known": K[[i], :n1], "known_self": K[i, i]} if case == 2 else {}
    R, t = complete_test_row(K, K, K[[i]], K[i, i], **kw)
    scale = max(1.0, np.abs(K).max())
    np.testing.assert_allclose(R[0], K[i], atol=1e-4 * scale)
    assert t[0] == pytest.approx(K[i, i], abs=1e-4 * scale)


def test_test_rows_satisfy_the_corrected_constraint():
    K = _kernel(8, seed=7, rank=3)  # rank-deficient K*
    A = _kernel(8, seed=8)
    rows = np.random.default_rng(0).normal(size=(2, 8))
    R, t = complete_test_row(K, A, rows, 1.0)
    Kp = np.linalg.pinv(K, rcond=1e-10)
    for r, tt in zip(R, t, strict=True):
        np.testing.assert_allclose(K @ Kp @ r, r, atol=1e-5)  # r in range(K*)
        assert r @ Kp @ r <= tt + 1e-5


def _row_by_sdp(K, A, a, a_self, known=None, known_self=None):
    """(6.8) with the LMI written out, the oracle of the cone form we solve."""
    import cvxpy as cp

    n = K.shape[0]
    ext = np.block([[A, a[:, None]], [a[None, :], np.array([[a_self]])]])
    _, B = np.linalg.eigh(ext)
    r, t, w = cp.Variable(n), cp.Variable(), cp.Variable(n + 1, nonneg=True)
    Z = cp.bmat([[K, cp.reshape(r, (n, 1), order="F")],
                 [cp.reshape(r, (1, n), order="F"), cp.reshape(t, (1, 1), order="F")]])
    cons = [Z >> 0]
    if known is not None:
        cons.append(r[: known.size] == known)
    if known_self is not None:
        cons.append(t == known_self)
    prob = cp.Problem(cp.Minimize(cp.norm(B.T @ Z @ B - cp.diag(w), "fro")), cons)
    prob.solve(solver="CLARABEL")
    return np.asarray(r.value).ravel(), float(t.value), prob.value


@pytest.mark.parametrize("rank", [None, 3])
@pytest.mark.parametrize("case", [1, 2])
def test_test_row_cone_form_equals_the_sdp(rank, case):
    K = _kernel(9, seed=11, rank=rank)
    A = _kernel(9, seed=12)
    a = A[0] + 0.1 * np.random.default_rng(1).normal(size=9)
    kn = (K[0, :4], K[0, 0]) if case == 2 else (None, None)
    R, t = complete_test_row(K, A, a[None], A[0, 0], known=None if kn[0] is None else kn[0][None],
                             known_self=kn[1])
    r0, t0, val0 = _row_by_sdp(K, A, a, A[0, 0], *kn)
    ext = np.block([[A, a[:, None]], [a[None, :], np.array([[A[0, 0]]])]])
    _, B = np.linalg.eigh(ext)

    def value(r, t):  # the optimal w for fixed (r, t) is max(diag, 0)
        Z = np.block([[K, r[:, None]], [r[None, :], np.array([[t]])]])
        G = B.T @ Z @ B
        return np.linalg.norm(G - np.diag(np.maximum(np.diag(G), 0)))

    assert value(R[0], t[0]) == pytest.approx(val0, rel=1e-5, abs=1e-7)
    np.testing.assert_allclose(R[0], r0, atol=1e-4)
    assert t[0] == pytest.approx(t0, abs=1e-4)


def test_test_rows_are_equivariant_to_the_kernel_scale():
    K, A = _kernel(8, seed=13), _kernel(8, seed=14)
    rows = A[:2] * 0.9
    R1, t1 = complete_test_row(K, A, rows, 1.0)
    R2, t2 = complete_test_row(1e4 * K, A, rows, 1.0)
    np.testing.assert_allclose(R2, 1e4 * R1, rtol=1e-5, atol=1e-3)
    np.testing.assert_allclose(t2, 1e4 * t1, rtol=1e-5)


def test_transductive_labels_the_unlabelled_samples():
    K, y = _labelled(n=20, seed=3)
    perm = np.r_[np.arange(0, 20, 2), np.arange(1, 20, 2)]
    K, y = K[np.ix_(perm, perm)], y[perm]
    clf = CompletionSVC(transductive=True).fit(K, y[:10], K11=K[:10, :10])
    assert clf.transduction_.shape == (10,)
    assert np.mean(clf.transduction_ == y[10:]) >= 0.8
    assert clf.kernel_.shape == (20, 20)
    np.testing.assert_array_equal(clf.kernel_[:10, :10], K[:10, :10])


def test_completion_svc_bad_input():
    K, y = _labelled()
    with pytest.raises(SimilarityMatrixError, match="first n1"):
        CompletionSVC().fit(K[:4, :4], [0, 1, 0, 1], K11=K[:6, :6])
    with pytest.raises(InvalidParameterError, match="max_samples"):
        CompletionSVC(max_samples=10).fit(K, y)
    with pytest.raises(LabelError, match="transductive"):
        CompletionSVC(transductive=True).fit(K, np.zeros((2, 2)))
    clf = CompletionSVC().fit(K, y, K11=K[:8, :8])
    with pytest.raises(InvalidParameterError, match="known must be"):
        clf.predict(K[:2], known=np.ones((2, 3)))
    # predict reads solver (the test rows are conic programs): checked there too
    with pytest.raises(InvalidParameterError, match="^solver='MOSEK' is not supported"):
        clf.set_params(solver="MOSEK").predict(K[:2])


@pytest.mark.parametrize("max_iter", [0, -1])
def test_completer_max_iter_out_of_range_is_a_clear_error(max_iter):
    """KernelCompleter(max_iter=0) raised IndexError (issue #39, item 2.11)."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(8, 3))
    K = X @ X.T + 0.5 * np.eye(8)
    with pytest.raises(InvalidParameterError, match="max_iter must be an integer >= 1"):
        KernelCompleter(max_iter=max_iter).fit(K[:5, :5], K)


def _joint_by_rotated_gap(A, K11, y, eta, gamma, n_unl=0):
    """(6.7) / (6.10) with the gap written as printed, ``||V^T K V - diag(w)||_F``: the
    oracle of the ``||vec(K) - (V * V) w||`` form the estimator solves (issue 40)."""
    import cvxpy as cp

    N = A.shape[0]
    n, n1 = N - n_unl, K11.shape[0]
    _, V = np.linalg.eigh(A)
    X = cp.Variable((n + 1, n + 1), PSD=True)
    K = cp.Variable((N, N), PSD=True)
    w, b, xi = cp.Variable(N, nonneg=True), cp.Variable(), cp.Variable(n, nonneg=True)
    ypm = np.where(y == y.max(), 1.0, -1.0)
    cons = [X[:n, :n] == K[:n, :n], cp.multiply(ypm, X[:n, n] + b) >= 1 - xi,
            K[:n1, :n1] == K11]
    obj = cp.sum(xi) / n + eta * X[n, n] + gamma * cp.norm(V.T @ K @ V - cp.diag(w), "fro")
    prob = cp.Problem(cp.Minimize(obj), cons)
    prob.solve(solver="CLARABEL")
    return prob.value, K.value


@pytest.mark.parametrize("transductive", [False, True])
def test_joint_problem_equals_the_printed_gap_form(transductive):
    # the fit solves ||K - V diag(w) V^T||_F (n^3 non-zeros) instead of the printed
    # ||V^T K V - diag(w)||_F (n^4): the same problem, so the same optimum and kernel
    K, y = _labelled(n=10, seed=3)
    A = K + 0.3 * _kernel(10, seed=4) - 0.2 * np.eye(10)  # indefinite auxiliary kernel
    perm = np.r_[np.arange(0, 10, 2), np.arange(1, 10, 2)]
    K, A, y = K[np.ix_(perm, perm)], A[np.ix_(perm, perm)], y[perm]
    n_unl = 2 if transductive else 0
    n = 10 - n_unl
    K11 = K[:4, :4]
    clf = CompletionSVC(eta=0.05, gamma=0.5, transductive=transductive).fit(A, y[:n], K11=K11)
    val, K_ref = _joint_by_rotated_gap(A, K11, y[:n], 0.05, 0.5, n_unl)
    assert clf.objective_[0] == pytest.approx(val, rel=1e-5, abs=1e-7)
    np.testing.assert_allclose(clf.kernel_, K_ref, atol=1e-4 * np.abs(K_ref).max())
