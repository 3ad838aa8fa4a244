"""Tests for SVM-CA (Gu & Guo, AAAI 2012; digest notes/gu-guo2012-aaai.md)."""

import pickle
import warnings

import cvxpy as cp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.utils.estimator_checks import check_estimator

import proxlearn.study.papers.gu2012._methods_svmca as msvmca
from proxlearn.datasets import make_noisy_blobs
from proxlearn._validation import (
    InvalidParameterError,
    LabelError,
    SimilarityMatrixError,
    TestMatrixError,
)
from proxlearn._svm._multiclass import ovo_problems
from proxlearn.base import SKLEARN_CHECK_EXCEPTIONS, is_pairwise
from proxlearn.kernel_learning._svmca import (
    SVMCA,
    ComponentsClampedWarning,
    svmca_path,
    v_step,
    v_step_nonsymmetric,
)
from proxlearn.study._methods import get_method


blobs = make_noisy_blobs  # (n_classes, n_per_class, seed, noise=4.0)


def sym(n, seed, shift=0.0):
    rng = np.random.default_rng(seed)
    A = rng.normal(size=(n, n))
    return 0.5 * (A + A.T) + shift * np.eye(n)


def M_of(beta, rho):
    return rho * np.eye(beta.shape[1]) + 0.5 * beta.T @ beta


# --------------------------------------------------------------------------
# V-step
# --------------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(4))
def test_symmetric_route_equals_paper_route(seed):
    K0 = sym(25, seed)
    d0 = int(np.sum(np.linalg.eigvalsh(K0) > 0))
    beta = np.random.default_rng(seed + 10).normal(size=(3, 25))
    d = min(5, d0)
    P, V, val = v_step(K0, beta, 0.5, d)
    P2, V2, val2 = v_step_nonsymmetric(K0, beta, 0.5, d)
    np.testing.assert_allclose(P @ P.T, P2 @ P2.T, atol=1e-9 * np.abs(P @ P.T).max())
    assert val == pytest.approx(val2, rel=1e-10)
    # feasibility and the closed-form optimum value
    np.testing.assert_allclose(V.T @ K0 @ V, np.eye(d), atol=1e-10)
    np.testing.assert_allclose(K0 @ V, P, atol=1e-10)
    M = M_of(beta, 0.5)
    assert np.trace(V.T @ K0 @ M @ K0 @ V) == pytest.approx(val, rel=1e-10)
    # stationarity: generalised eigen-equation K0 M K0 V = K0 V diag(b) (eq. 23)
    lhs = K0 @ M @ K0 @ V
    b = np.diag(V.T @ K0 @ M @ K0 @ V)
    np.testing.assert_allclose(lhs, (K0 @ V) * b, atol=1e-9 * np.abs(lhs).max())


def _random_feasible(K0, d, rng, count):
    """Random V with V^T K0 V = I (K0-orthonormalised random directions)."""
    out = []
    while len(out) < count:
        R = rng.normal(size=(K0.shape[0], d))
        G = R.T @ K0 @ R
        ev, E = np.linalg.eigh(G)
        if ev.min() <= 0:
            continue
        out.append(R @ E @ np.diag(ev**-0.5) @ E.T)
    return out


def test_v_step_beats_random_feasible_V_psd():
    """For PSD K0 the V-step (eq. 21) is a true maximum over all feasible V."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(20, 6))
    K0 = X @ X.T + 0.1 * np.eye(20)
    beta = rng.normal(size=(2, 20))
    M = M_of(beta, 0.3)
    P, V, val = v_step(K0, beta, 0.3, 4)
    vals = [np.trace(W.T @ K0 @ M @ K0 @ W) for W in _random_feasible(K0, 4, rng, 1000)]
    assert max(vals) < val
    # and the maximum is the Ky Fan bound of the symmetric eigenproblem
    Mh = np.real(scipy_sqrtm(M))
    assert val == pytest.approx(np.sort(np.linalg.eigvalsh(Mh @ K0 @ Mh))[-4:].sum(), rel=1e-9)


def scipy_sqrtm(M):
    w, U = np.linalg.eigh(M)
    return (U * np.sqrt(w)) @ U.T


def test_v_step_beats_random_V_in_its_class_indefinite():
    """Indefinite K0: the maximum over the V with M^(1/2) K0 V in the positive
    eigenspace of B = M^(1/2) K0 M^(1/2) (digest erratum: no global maximum)."""
    rng = np.random.default_rng(1)
    K0 = sym(30, 1)
    beta = rng.normal(size=(3, 30))
    rho, d = 0.7, 5
    M = M_of(beta, rho)
    P, V, val = v_step(K0, beta, rho, d)
    Mh = scipy_sqrtm(M)
    b, W = np.linalg.eigh(Mh @ K0 @ Mh)
    Wp, bp = W[:, b > 0], b[b > 0]
    best = -np.inf
    for _ in range(300):
        Z = rng.normal(size=(len(bp), d))
        G = Z.T @ (Z / bp[:, None])
        ev, E = np.linalg.eigh(G)
        Z = Z @ E @ np.diag(ev**-0.5) @ E.T  # Z^T diag(1/b) Z = I
        Vr = np.linalg.solve(K0, np.linalg.solve(Mh, Wp @ Z))
        np.testing.assert_allclose(Vr.T @ K0 @ Vr, np.eye(d), atol=1e-7)
        best = max(best, np.trace(Vr.T @ K0 @ M @ K0 @ Vr))
    assert best < val
    # ... while the constraint set itself is unbounded (the erratum)
    lam, U = np.linalg.eigh(K0)
    t = 5.0
    v = (np.cosh(t) * U[:, -1] / np.sqrt(lam[-1]) + np.sinh(t) * U[:, 0] / np.sqrt(-lam[0]))
    assert v @ K0 @ v == pytest.approx(1.0)
    assert v @ K0 @ M @ K0 @ v > val


def test_alpha_zero_gives_rank_d_clip():
    K0 = sym(30, 3)
    lam, U = np.linalg.eigh(K0)
    for d in (1, 4, 9):
        P, V, val = v_step(K0, np.zeros((1, 30)), 2.0, d)
        clip = (U[:, -d:] * lam[-d:]) @ U[:, -d:].T
        np.testing.assert_allclose(P @ P.T, clip, atol=1e-10)
        assert val == pytest.approx(2.0 * lam[-d:].sum())


# --------------------------------------------------------------------------
# estimator
# --------------------------------------------------------------------------


@settings(max_examples=25, deadline=None)
@given(
    n=st.integers(8, 25),
    k=st.integers(2, 3),
    seed=st.integers(0, 10_000),
    C=st.sampled_from([0.1, 1.0, 10.0]),
    rho=st.sampled_from([0.1, 1.0, 10.0]),
)
def test_test_transform_reproduces_training_rows(n, k, seed, C, rho):
    rng = np.random.default_rng(seed)
    S = sym(n, seed) + 0.3 * rng.normal(size=(n, n))  # asymmetric too
    y = np.arange(n) % k
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        clf = SVMCA(C=C, rho=rho, n_components=3, excess_components="clamp", max_iter=3).fit(S, y)
    K0 = 0.5 * (S + S.T)
    Kv = clf.kernel_
    np.testing.assert_allclose(clf.transform_similarity(K0), Kv, atol=1e-9 * max(1, np.abs(Kv).max()))
    np.testing.assert_allclose(clf.embedding_ @ clf.embedding_.T, Kv, atol=1e-9 * max(1, np.abs(Kv).max()))
    # decision values on the training rows are those of the SVMs on K_v
    np.testing.assert_allclose(
        clf._raw_decision(K0), Kv @ clf.dual_coef_.T + clf.intercept_, atol=1e-8 * max(1, np.abs(Kv).max())
    )


def test_test_transform_equals_paper_formula_when_invertible():
    """k_v = K_v K0^{-1} k0 (section 2.1), computed without an inverse."""
    S, y = blobs(3, 10, 0)
    rng = np.random.default_rng(5)
    S_test = rng.normal(size=(7, 30)) * 10
    clf = SVMCA(C=1.0, rho=1.0, n_components=4).fit(S, y)
    K0 = 0.5 * (S + S.T)
    ref = np.linalg.solve(K0, clf.kernel_).T @ S_test.T  # (K_v K0^{-1} k0) columns
    np.testing.assert_allclose(clf.transform_similarity(S_test), ref.T, rtol=1e-6, atol=1e-6 * np.abs(ref).max())


def _assert_ran_until_max_iter_or_exact_stop(clf, max_iter):
    """With ``tol=0`` the loop runs ``max_iter`` iterations unless it reaches an exact
    fixed point (gap or dual change exactly 0), which depends on the platform's rounding.

    So assert the stopping rule, not an iteration count (issue #14).
    """
    h = clf.history_
    assert len(h) == clf.n_iter_
    assert 1 <= clf.n_iter_ <= max_iter
    assert [r["iter"] for r in h] == list(range(1, clf.n_iter_ + 1))
    if clf.n_iter_ < max_iter:  # only an exact stop may end the loop early
        assert h[-1]["gap"] == 0.0 or (len(h) > 1 and h[-1]["dual"] == h[-2]["dual"])
    for i, r in enumerate(h[:-1]):  # no earlier iterate met the stopping rule
        assert r["gap"] != 0.0
        assert i == 0 or r["dual"] != h[i - 1]["dual"]


@pytest.mark.parametrize("k", [2, 3])
def test_history_bounded_for_psd_kernel(k):
    """PSD K0: max_t dual_t <= min_t primal_t (both bound the saddle value)."""
    rng = np.random.default_rng(k)
    X = np.vstack([rng.normal(m, 1.5, (15, 3)) for m in rng.normal(0, 3, (k, 3))])
    y = np.repeat(np.arange(k), 15)
    K0 = X @ X.T + np.eye(len(y))
    clf = SVMCA(C=1.0, rho=0.1, n_components=3, max_iter=8, tol=0.0, svm_tol=1e-6).fit(K0, y)
    h = clf.history_
    _assert_ran_until_max_iter_or_exact_stop(clf, 8)
    duals = np.array([r["dual"] for r in h])
    primals = np.array([r["primal"] for r in h])
    scale = np.abs(primals).max()
    assert duals.max() <= primals.min() + 1e-4 * scale
    for r in h:  # libsvm's own gap is non-negative and small
        assert -1e-6 * scale <= r["primal"] - r["svm_dual"] <= 1e-2 * scale


def test_history_records_and_best_iterate_indefinite():
    S, y = blobs(3, 15, 2, noise=8.0)
    clf = SVMCA(C=10.0, rho=0.1, n_components=5, max_iter=6, tol=0.0).fit(S, y)
    h = clf.history_
    _assert_ran_until_max_iter_or_exact_stop(clf, 6)
    assert all(np.isfinite([r["primal"], r["dual"], r["svm_dual"], r["gap"]]).all() for r in h)
    gaps = np.abs([r["gap"] for r in h])
    assert clf.best_iter_ == 1 + int(np.argmin(gaps))
    for r in h:
        assert r["gap"] == pytest.approx(r["primal"] - r["dual"])


def test_stops_on_tolerance():
    S, y = blobs(2, 20, 0)
    clf = SVMCA(C=0.1, rho=10.0, n_components=3, max_iter=50, tol=1e-2).fit(S, y)
    h = clf.history_
    assert clf.n_iter_ == len(h) < 50
    last, scale = h[-1], h[-1]["sum_alpha"]
    ok_gap = abs(last["gap"]) <= 1e-2 * scale
    ok_change = len(h) > 1 and abs(last["dual"] - h[-2]["dual"]) <= 1e-2 * scale
    assert ok_gap or ok_change
    for i, r in enumerate(h[:-1]):  # no earlier stop was missed
        assert abs(r["gap"]) > 1e-2 * r["sum_alpha"]
        if i > 0:
            assert abs(r["dual"] - h[i - 1]["dual"]) > 1e-2 * r["sum_alpha"]
    # tol = 0 runs every iteration but for an exact fixed point
    _assert_ran_until_max_iter_or_exact_stop(
        SVMCA(C=0.1, rho=10.0, n_components=3, max_iter=4, tol=0.0).fit(S, y), 4
    )


def test_alpha_step_is_svm_optimal_cvxpy():
    """The kept binary SVM solves the SVM dual on kernel_ (compared with cvxpy)."""
    S, y = blobs(2, 12, 4)
    C = 0.5
    clf = SVMCA(C=C, rho=1.0, n_components=3, svm_tol=1e-8).fit(S, y)
    ypm = np.where(y == 1, 1.0, -1.0)
    a = cp.Variable(len(y))
    Z = clf.embedding_
    prob = cp.Problem(
        cp.Maximize(cp.sum(a) - 0.5 * cp.sum_squares(Z.T @ cp.multiply(ypm, a))),
        [a >= 0, a <= C, ypm @ a == 0],
    )
    prob.solve(solver="CLARABEL")
    beta = clf.dual_coef_[0]
    ours = np.abs(beta).sum() - 0.5 * beta @ clf.kernel_ @ beta
    assert ours == pytest.approx(prob.value, rel=1e-5, abs=1e-6)
    assert np.all(ypm * beta >= -1e-12) and np.abs(beta).max() <= C + 1e-12
    assert abs(beta.sum()) < 1e-8  # y^T alpha = 0


def test_alpha_step_at_start_is_clip_svm():
    """One iteration = an SVM on the rank-d clip of K0 (the initialisation)."""
    S, y = blobs(2, 15, 1)
    clf = SVMCA(normalize=False, C=1.0, rho=1.0, n_components=4, max_iter=1).fit(S, y)
    lam, U = np.linalg.eigh(S)
    clip = (U[:, -4:] * lam[-4:]) @ U[:, -4:].T
    np.testing.assert_allclose(clf.kernel_, clip, atol=1e-9 * np.abs(clip).max())


@pytest.mark.parametrize("k", [2, 3])
def test_sanity_accuracy_far_above_chance(k):
    S, y = blobs(k, 40, 0, noise=20.0)
    idx = np.random.default_rng(0).permutation(len(y))
    tr, te = idx[: int(0.75 * len(y))], idx[int(0.75 * len(y)) :]
    clf = SVMCA(C=1.0, rho=1.0, n_components=5).fit(S[np.ix_(tr, tr)], y[tr])
    assert clf.score(S[np.ix_(te, tr)], y[te]) >= 0.9


def test_multiclass_structure_pickle_and_shapes():
    S, y = blobs(3, 10, 3)
    labels = np.array(["a", "b", "c"])[y]
    clf = SVMCA(C=1.0, rho=1.0, n_components=3).fit(S, labels)
    assert list(clf.classes_) == ["a", "b", "c"]
    assert clf.dual_coef_.shape == clf.coef_.shape == (3, 30)
    assert np.all(clf.dual_coef_[0, y == 2] == 0.0)  # pair (0, 1) ignores class 2
    assert clf.V_.shape == clf.embedding_.shape == (30, 3) and clf.n_components_ == 3
    assert clf.n_support_.sum() == len(clf.support_) > 0
    dec = clf.decision_function(S)
    assert dec.shape == (30, 3)
    np.testing.assert_array_equal(clf.predict(S), clf.classes_[np.argmax(dec, axis=1)])
    assert is_pairwise(clf)
    clone = pickle.loads(pickle.dumps(clf))
    np.testing.assert_array_equal(clone.predict(S), clf.predict(S))


def test_preprocess_options_match_manual_conversion():
    rng = np.random.default_rng(0)
    S, y = blobs(2, 15, 0)
    A = S + rng.normal(size=S.shape)  # asymmetric
    St = rng.normal(size=(5, 30)) * 5
    p1 = SVMCA(normalize=False, n_components=3, preprocess="symmetrize").fit(A, y)
    p2 = SVMCA(normalize=False, n_components=3).fit(A + A.T, y)
    np.testing.assert_allclose(p1.decision_function(St), p2.decision_function(2 * St), rtol=1e-8, atol=1e-8)
    D = np.abs(rng.normal(size=(30, 30))) + np.abs(np.subtract.outer(y, y)) * 3
    D = D + D.T
    np.fill_diagonal(D, 0.0)
    Dt = np.abs(rng.normal(size=(4, 30)))
    q1 = SVMCA(normalize=False, n_components=3, preprocess="dissimilarity").fit(D, y)
    m = D.max()
    q2 = SVMCA(normalize=False, n_components=3).fit(m - D, y)
    np.testing.assert_allclose(q1.decision_function(Dt), q2.decision_function(m - Dt), rtol=1e-8, atol=1e-8)
    assert q1.preprocess_shift_ == m and q1.preprocess_scale_ == -1.0


def test_eps_adds_diagonal():
    S, y = blobs(2, 10, 0)
    a = SVMCA(normalize=False, n_components=3, eps=0.5).fit(S, y)
    b = SVMCA(normalize=False, n_components=3).fit(S + 0.5 * np.eye(20), y)
    np.testing.assert_allclose(a.kernel_, b.kernel_)


def test_components_limit_raise_and_clamp():
    S, y = blobs(2, 10, 0)
    d0 = int(np.sum(np.linalg.eigvalsh(S) > 1e-9))
    with pytest.raises(InvalidParameterError, match=f"exceeds the {d0} positive eigenvalues"):
        SVMCA(normalize=False, n_components=d0 + 1).fit(S, y)
    with pytest.warns(ComponentsClampedWarning, match=f"using n_components={d0}"):
        clf = SVMCA(normalize=False, n_components=d0 + 5, excess_components="clamp").fit(S, y)
    assert clf.n_components_ == d0 and clf.n_positive_ == d0
    with pytest.raises(InvalidParameterError, match="no positive eigenvalue"):
        SVMCA(normalize=False).fit(-np.ones((6, 6)) - np.eye(6), [0, 1] * 3)


@pytest.mark.parametrize(
    "params, match",
    [
        ({"C": 0.0}, "C must be"),
        ({"C": -1.0}, "C must be"),
        ({"rho": 0.0}, "rho must be"),
        ({"rho": np.inf}, "rho must be"),
        ({"n_components": 0}, "n_components must be"),
        ({"n_components": 2.5}, "n_components must be"),
        ({"n_components": True}, "n_components must be"),
        ({"max_iter": 0}, "max_iter must be"),
        ({"tol": -1.0}, "tol must be"),
        ({"eps": np.nan}, "eps must be"),
        ({"preprocess": "flip"}, "preprocess"),
        ({"excess_components": "skip"}, "excess_components"),
    ],
)
def test_bad_parameters(params, match):
    S, y = blobs(2, 10, 0)
    with pytest.raises(InvalidParameterError, match=match):
        SVMCA(**params).fit(S, y)


def test_bad_input():
    S, y = blobs(2, 10, 0)
    with pytest.raises(SimilarityMatrixError, match="square"):
        SVMCA().fit(S[:, :5], y)
    with pytest.raises(LabelError, match="at least 2"):
        SVMCA().fit(S, np.zeros(20))
    with pytest.raises(LabelError, match="labels"):
        SVMCA().fit(S, y[:5])
    clf = SVMCA().fit(S, y)
    with pytest.raises(TestMatrixError, match="20 training samples"):
        clf.predict(S[:, :7])
    with pytest.raises(SimilarityMatrixError, match="NaN"):
        SVMCA().fit(np.full((4, 4), np.nan), [0, 1, 0, 1])


def test_check_estimator():
    check_estimator(SVMCA(), expected_failed_checks=SKLEARN_CHECK_EXCEPTIONS)


# --------------------------------------------------------------------------
# study method
# --------------------------------------------------------------------------


def test_study_method_grid_and_evaluator_match_fits():
    m = get_method("svm-ca")
    grid = m.grid("gu2012")
    assert len(grid) == 5 * 5 * 8
    assert sorted({p["n_components"] for p in grid}) == msvmca.D_GRID
    assert len(m.grid("chen2009")) == len(grid)
    S, y = blobs(3, 12, 7, noise=10.0)
    tr = np.arange(36) % 6 != 0
    te = ~tr
    sub = [p for p in grid if p["n_components"] in (3, 55) and p["rho"] in (0.1, 10.0)]
    stats = {}
    preds = msvmca.svmca_fold_evaluator(
        S[np.ix_(tr, tr)], y[tr], S[np.ix_(te, tr)], sub, stats=stats
    )
    assert m.evaluate is msvmca.svmca_fold_evaluator
    assert stats["paths"] + stats["reused"] == len(sub)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ComponentsClampedWarning)
        for p, pred in zip(sub, preds, strict=True):
            ref = m.build(**p).fit(S[np.ix_(tr, tr)], y[tr]).predict(S[np.ix_(te, tr)])
            np.testing.assert_array_equal(pred, ref)


def test_svmca_path_shares_first_step():
    """A precomputed first alpha-step gives the same path as computing it."""
    S, y = blobs(2, 12, 3)
    lam, U = np.linalg.eigh(S)
    P0, V0 = SVMCA._clip_start(lam, U, 3)
    pairs = ovo_problems(y, 2)
    a = svmca_path(S, pairs, 1.0, 0.1, P0, V0, max_iter=4)
    from proxlearn.kernel_learning._svmca import _alpha_step

    first = _alpha_step(P0 @ P0.T, pairs, 1.0, 1e-3)
    b = svmca_path(S, pairs, 1.0, 0.1, P0, V0, max_iter=4, first=first)
    np.testing.assert_allclose(a.coef(), b.coef())
    assert [r["dual"] for r in a.history] == [r["dual"] for r in b.history]


# --------------------------------------------------------------------------
# alpha-step: low-rank fallback when libsvm's SMO stalls
# --------------------------------------------------------------------------


def _overlapping_lowrank(n=60, d=2, seed=0):
    """Features of two overlapping Gaussian classes in d dimensions: K = F F^T
    has rank d and is far from separable (the SVM-CA proxy kernels at small d)."""
    rng = np.random.default_rng(seed)
    ypm = np.where(np.arange(n) < n // 2, -1.0, 1.0)
    F = rng.normal(size=(n, d)) + 0.4 * ypm[:, None]
    return F, ypm


def _svm_dual_value(K, ypm, coef, support):
    beta = np.zeros(len(ypm))
    beta[support] = coef
    return np.abs(beta).sum() - 0.5 * beta @ K @ beta, beta


@pytest.mark.parametrize("seed,d,C", [(0, 2, 100.0), (1, 3, 10.0), (2, 8, 1.0)])
def test_lowrank_qp_is_optimal_kkt(seed, d, C):
    """The primal QP's alpha and b satisfy the SVM's KKT conditions and reach
    at least libsvm's dual objective (libsvm run to its own stopping rule)."""
    from proxlearn.kernel_learning._svmca import _binary_svm, _lowrank_svm_qp

    F, ypm = _overlapping_lowrank(d=d, seed=seed)
    K = F @ F.T
    coef, support, b, _ = _lowrank_svm_qp(F, ypm, C)
    value, beta = _svm_dual_value(K, ypm, coef, support)
    alpha = ypm * beta
    assert np.all(alpha >= 0.0) and np.all(alpha <= C)
    assert abs(beta.sum()) <= 1e-6 * C * len(ypm)  # y^T alpha = 0
    margin = ypm * (K @ beta + b)
    scale = 1e-5 * max(1.0, np.abs(K).max() * C)
    assert np.all(margin[alpha == 0.0] >= 1.0 - scale)
    assert np.all(margin[alpha == C] <= 1.0 + scale)
    free = (alpha > 0.0) & (alpha < C)
    assert np.all(np.abs(margin[free] - 1.0) <= scale)
    assert np.any(alpha == C)  # overlapping classes: bounds hit exactly (snapped)
    ref = _binary_svm(K, ypm, C, 1e-3)  # no factor: plain libsvm
    ref_value, _ = _svm_dual_value(K, ypm, ref[0], ref[1])
    assert value >= ref_value - 1e-6 * abs(ref_value)


def test_alpha_step_hands_a_stalled_smo_to_the_qp(monkeypatch):
    """With a tiny SMO budget every pair goes to the QP; the SVMs agree with
    libsvm's own solution (decision values to its tolerance), the iteration
    count shows the hand-over, and a failed QP leaves libsvm to finish."""
    import proxlearn.kernel_learning._svmca as m

    F, ypm = _overlapping_lowrank(n=40, d=3, seed=4)
    K = F @ F.T
    pairs = ovo_problems((ypm > 0).astype(int), 2)  # one pair: all 40 samples, labels ypm
    plain = m._alpha_step(K, pairs, 10.0, 1e-4)
    monkeypatch.setattr(m, "SMO_ITER_PER_SAMPLE", 0)  # cap = 1 iteration
    fast = m._alpha_step(K, pairs, 10.0, 1e-4, factor=F)
    assert fast.svm_iter[0] > 1 and fast.saturated == plain.saturated
    f_plain = K @ plain.beta[0] + plain.intercept[0]
    f_fast = K @ fast.beta[0] + fast.intercept[0]
    np.testing.assert_allclose(f_fast, f_plain, atol=2e-3 * np.abs(f_plain).max())
    assert np.array_equal(np.sign(f_fast), np.sign(f_plain))
    monkeypatch.setattr(m, "_lowrank_svm_qp", lambda *a: None)
    again = m._alpha_step(K, pairs, 10.0, 1e-4, factor=F)
    np.testing.assert_array_equal(again.beta, plain.beta)
    assert again.intercept[0] == plain.intercept[0]


def test_svmca_with_low_rank_stalls_matches_the_estimator(monkeypatch):
    """Fold evaluator and estimator share the alpha-step, hand-over included:
    with an SMO budget of one iteration every pair SVM goes to the QP, and the
    predictions are still identical."""
    import proxlearn.kernel_learning._svmca as m

    calls = []
    qp = m._lowrank_svm_qp
    monkeypatch.setattr(m, "SMO_ITER_PER_SAMPLE", 0)
    monkeypatch.setattr(m, "_lowrank_svm_qp", lambda *a: calls.append(1) or qp(*a))
    S, y = blobs(3, 10, 7, noise=30.0)
    tr, te = np.arange(0, 30, 2), np.arange(1, 30, 2)
    grid = [{"C": 100.0, "rho": r, "n_components": 2} for r in (0.1, 10.0)]
    fast = msvmca.svmca_fold_evaluator(S[np.ix_(tr, tr)], y[tr], S[np.ix_(te, tr)], grid)
    assert len(calls) > 0
    for p, pred in zip(grid, fast, strict=True):
        est = SVMCA(**msvmca.SVMCA_FIXED, **p).fit(S[np.ix_(tr, tr)], y[tr])
        np.testing.assert_array_equal(est.predict(S[np.ix_(te, tr)]), pred)


def test_stopping_at_max_iter_warns_with_the_gap():
    """Issue #14: SVMCA stopped at max_iter without meeting tol and said nothing."""
    from sklearn.exceptions import ConvergenceWarning

    S, y = blobs(3, 15, 2, noise=8.0)
    with pytest.warns(ConvergenceWarning, match=r"max_iter=1 before meeting tol=1e-12.*relative gap"):
        clf = SVMCA(C=10.0, rho=0.1, n_components=5, max_iter=1, tol=1e-12).fit(S, y)
    assert clf.n_iter_ == 1
    with warnings.catch_warnings():  # converged, or tol=0 (asked for max_iter iterations)
        warnings.simplefilter("error", ConvergenceWarning)
        SVMCA(C=0.1, rho=10.0, n_components=3, max_iter=50, tol=1e-2).fit(*blobs(2, 20, 0))
        SVMCA(C=10.0, rho=0.1, n_components=5, max_iter=2, tol=0.0).fit(S, y)


# ---------------------------------------------- iterative V-step (issue #19)
@pytest.mark.parametrize("seed", range(3))
def test_arpack_v_step_equals_dense(seed):
    S, y = blobs(3, 30, seed)
    est = SVMCA(n_components=4)
    K0, classes, y_idx, lam, U = est._prepare(S, y)
    rng = np.random.default_rng(seed)
    beta = rng.normal(size=(3, K0.shape[0])) * 0.3
    P0, _ = SVMCA._clip_start(lam, U, 4)
    info_d, info_a = {}, {}
    P, V, val = v_step(K0, beta, 0.5, 4, info=info_d)
    Pa, Va, vala = v_step(K0, beta, 0.5, 4, start=P0, eigen_solver="arpack", info=info_a)
    assert info_d["solver"] == "dense" and info_a["solver"] == "arpack"
    assert vala == pytest.approx(val, rel=1e-12)
    assert info_a["gap"] == pytest.approx(info_d["gap"], rel=1e-10)
    Kv = P @ P.T
    np.testing.assert_allclose(Pa @ Pa.T, Kv, atol=1e-8 * np.abs(Kv).max())
    np.testing.assert_allclose(Va.T @ K0 @ Va, np.eye(4), atol=1e-8)


def test_auto_rule_and_fit_with_arpack_matches_dense():
    S, y = blobs(3, 40, 7)
    dense = SVMCA(n_components=3, max_iter=6, tol=0.0, eigen_solver="dense").fit(S, y)
    arp = SVMCA(n_components=3, max_iter=6, tol=0.0, eigen_solver="arpack").fit(S, y)
    auto = SVMCA(n_components=3, max_iter=6, tol=0.0).fit(S, y)
    # arpack starts from the rank-d clip; auto stays dense below ITERATIVE_MIN_N
    assert [h["v_step"] for h in arp.history_] == ["arpack"] * 6
    assert {h["v_step"] for h in auto.history_} == {"dense"}
    np.testing.assert_allclose(arp.kernel_, dense.kernel_, atol=1e-7 * np.abs(dense.kernel_).max())
    np.testing.assert_array_equal(arp.predict(S), dense.predict(S))
    np.testing.assert_array_equal(auto.kernel_, dense.kernel_)


def test_bad_eigen_solver():
    S, y = blobs(2, 10, 1)
    with pytest.raises(InvalidParameterError, match="eigen_solver"):
        SVMCA(eigen_solver="lanczos").fit(S, y)


# ------------------------------------------------------------- defaults (issue 40)

def test_normalize_divides_K0_by_its_scale():
    """normalize=True fits K0 / (tr K0 / n): the same model as normalize=False on
    the rescaled matrix, and a positive factor on S changes no prediction."""
    S, y = blobs(3, 12, 2)
    S = 40.0 * S
    c = np.trace(S) / len(y)
    est = SVMCA(n_components=3).fit(S, y)
    assert est.scale_ == pytest.approx(c)
    ref = SVMCA(n_components=3, normalize=False).fit(S / c, y)
    np.testing.assert_allclose(est.decision_function(S), ref.decision_function(S / c),
                               rtol=1e-6, atol=1e-6)
    for factor in (1e-3, 1e3):
        np.testing.assert_array_equal(SVMCA(n_components=3).fit(factor * S, y).predict(factor * S),
                                      est.predict(S))


def test_auto_components_is_min_of_ten_and_d0():
    S, y = blobs(3, 12, 2)
    est = SVMCA().fit(S, y)
    assert est.n_components_ == min(10, est.n_positive_)
    small = np.diag([3.0, 2.0, 1.0, -1.0, -2.0, -0.5])
    est = SVMCA().fit(small, [0, 1, 0, 1, 0, 1])  # d0 = 3 < 10: no error, no warning
    assert est.n_components_ == 3
    with pytest.raises(InvalidParameterError, match="'auto'"):
        SVMCA(n_components="all").fit(S, y)
    with pytest.raises(InvalidParameterError, match="normalize"):
        SVMCA(normalize=1).fit(S, y)


def test_grid_predictions_equal_one_fit_per_point():
    """The grid-path protocol of SVMCA (the study's fold evaluator delegates to it)."""
    from sklearn.base import clone

    S, y = make_noisy_blobs(3, 15, random_state=1)[:2]
    idx = np.random.default_rng(1).permutation(45)
    tr, te = idx[:33], idx[33:]
    model = SVMCA(excess_components="clamp")
    grid = [{"C": c, "rho": r, "n_components": d}
            for c in (0.1, 10.0) for r in (0.1, 10.0) for d in (2, 5)]
    path = model.grid_predictions(S[np.ix_(tr, tr)], y[tr], S[np.ix_(te, tr)], grid)
    for p, pred in zip(grid, path, strict=True):
        np.testing.assert_array_equal(
            pred, clone(model).set_params(**p).fit(S[np.ix_(tr, tr)], y[tr])
            .predict(S[np.ix_(te, tr)]))
