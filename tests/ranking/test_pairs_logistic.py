"""Tie strength (Zhuang 2011 ch. 7): pair kernels, pair sampling, kernel logistic regression."""

import pickle

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import cross_val_score

from proxlearn.exceptions import InvalidParameterError, LabelError, TestMatrixError
from proxlearn.ranking import (
    KernelLogisticRegression,
    kernel_logistic_objective,
    pair_kernel,
    sample_tie_pairs,
)


def _psd(n, seed, rank=None):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, rank or n))
    return X @ X.T


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(2, 9), kind=st.sampled_from(["difference", "tensor", "metric"]))
def test_pair_kernel_is_psd_when_the_user_kernel_is(seed, n, kind):
    K = _psd(n, seed, rank=max(1, n // 2))
    rng = np.random.default_rng(seed + 1)
    P = rng.integers(0, n, size=(12, 2))
    G = pair_kernel(K, P, kind=kind)
    np.testing.assert_allclose(G, G.T, atol=1e-10)
    assert np.linalg.eigvalsh(G).min() >= -1e-8 * max(1.0, np.abs(G).max())


def test_pair_kernel_formulas_and_the_antisymmetry_of_the_thesis_kernel():
    X = np.random.default_rng(0).normal(size=(5, 3))
    K = X @ X.T
    P = np.array([[0, 1], [2, 3], [1, 0]])
    Q = np.array([[4, 2], [0, 0]])
    G = pair_kernel(K, P, Q)
    phi = lambda p: X[p[0]] - X[p[1]]  # noqa: E731  -- the explicit feature map
    expect = np.array([[phi(p) @ phi(q) for q in Q] for p in P])
    np.testing.assert_allclose(G, expect, atol=1e-12)
    np.testing.assert_allclose(G[2], -G[0])  # (1, 0) = -(0, 1)
    np.testing.assert_allclose(G[:, 1], 0, atol=1e-14)  # (a, a) has no feature
    T = pair_kernel(K, P, Q, kind="tensor")
    np.testing.assert_allclose(T[0], T[2])  # symmetric in the pair's order
    np.testing.assert_allclose(T[1, 0], K[2, 4] * K[3, 2] + K[2, 2] * K[3, 4])
    M = pair_kernel(K, P, Q, kind="metric")
    np.testing.assert_allclose(M, expect**2, atol=1e-12)  # (vec of phi phi^T) inner products
    np.testing.assert_allclose(M[0], M[2])  # symmetric in the pair's order


def test_pair_kernel_bad_pairs():
    K = np.eye(4)
    with pytest.raises(InvalidParameterError, match=r"\(p, 2\)"):
        pair_kernel(K, np.zeros((3, 3), int))
    with pytest.raises(InvalidParameterError, match="outside 0..3"):
        pair_kernel(K, np.array([[0, 4]]))
    with pytest.raises(InvalidParameterError, match="kind"):
        pair_kernel(K, np.array([[0, 1]]), kind="sum")


def test_sample_tie_pairs_follows_the_rule():
    rng = np.random.default_rng(1)
    n = 40
    ties = (rng.random((n, n)) < 0.1).astype(int)
    np.fill_diagonal(ties, 0)
    Ks = np.stack([_psd(n, s) for s in (2, 3)], axis=2)
    pairs, labels = sample_tie_pairs(ties, Ks, n_negative=1.0, top=5, random_state=0)
    pos, neg = pairs[labels > 0], pairs[labels < 0]
    assert {tuple(p) for p in pos} == set(zip(*np.nonzero(ties)))
    assert np.all(ties[neg[:, 0], neg[:, 1]] == 0) and np.all(neg[:, 0] != neg[:, 1])
    for t in range(2):  # never among a user's top-5 under any kernel
        Kt = Ks[:, :, t] - np.diag(np.full(n, np.inf))
        top = np.argsort(-Kt, axis=1)[:, :5]
        assert not any(j in top[i] for i, j in neg)
    again = sample_tie_pairs(ties, Ks, top=5, random_state=0)
    np.testing.assert_array_equal(again[0], pairs)
    with pytest.raises(InvalidParameterError, match="no tie"):
        sample_tie_pairs(np.zeros((4, 4)))


def _blobs(n=60, seed=0):
    rng = np.random.default_rng(seed)
    y = np.repeat([0, 1], n // 2)
    X = rng.normal(size=(n, 2)) + 1.5 * y[:, None]
    return np.exp(-0.5 * ((X[:, None] - X[None]) ** 2).sum(-1)), y


@pytest.mark.parametrize("fit_intercept", [True, False])
@pytest.mark.parametrize("C", [0.01, 1.0])
def test_gradient_is_zero_at_the_returned_optimum(fit_intercept, C):
    K, y = _blobs()
    est = KernelLogisticRegression(C=C, fit_intercept=fit_intercept, tol=1e-9).fit(K, y)
    a, b = est.dual_coef_[0], est.intercept_[0]
    ypm = np.where(y == 1, 1.0, -1.0)
    value, ga, gb = kernel_logistic_objective(a, b, K, K, ypm, C)
    assert np.linalg.norm(ga) <= 1e-7 and (not fit_intercept or abs(gb) <= 1e-7)
    assert est.gradient_norm_[0] <= 1e-7
    # convex: no random perturbation does better
    rng = np.random.default_rng(0)
    for _ in range(20):
        da = 1e-3 * rng.normal(size=a.shape)
        db = 1e-3 * rng.normal() if fit_intercept else 0.0
        assert kernel_logistic_objective(a + da, b + db, K, K, ypm, C)[0] >= value - 1e-12
    # the objective's gradient matches finite differences
    e = np.zeros_like(a)
    e[3] = 1e-6
    fd = (kernel_logistic_objective(a + e, b, K, K, ypm, C)[0]
          - kernel_logistic_objective(a - e, b, K, K, ypm, C)[0]) / 2e-6
    g_at = kernel_logistic_objective(a, b, K, K, ypm, C)[1][3]
    assert abs(fd - g_at) <= 1e-6


def test_probabilities_and_predictions():
    K, y = _blobs(seed=1)
    est = KernelLogisticRegression(C=0.01).fit(K, y)
    P = est.predict_proba(K)
    np.testing.assert_allclose(P.sum(axis=1), 1.0)
    np.testing.assert_array_equal(est.predict(K), est.classes_[np.argmax(P, axis=1)])
    assert est.score(K, y) > 0.8
    assert cross_val_score(KernelLogisticRegression(C=0.01), K, y, cv=3).mean() > 0.7
    again = pickle.loads(pickle.dumps(est))
    np.testing.assert_array_equal(again.decision_function(K), est.decision_function(K))


def test_three_classes_one_vs_rest():
    rng = np.random.default_rng(2)
    y = np.repeat([0, 1, 2], 20)
    X = rng.normal(size=(60, 2)) + 3.0 * np.eye(3)[y][:, :2] + 3.0 * (y == 2)[:, None]
    K = np.exp(-0.5 * ((X[:, None] - X[None]) ** 2).sum(-1))
    est = KernelLogisticRegression(C=0.01).fit(K, y)
    assert est.dual_coef_.shape == (3, 60)
    assert est.score(K, y) > 0.9


def test_import_points_restrict_the_expansion():
    K, y = _blobs(seed=3)
    est = KernelLogisticRegression(C=0.01, n_import=15, random_state=0).fit(K, y)
    assert est.dual_coef_.shape == (1, 15) and len(est.import_indices_) == 15
    assert est.gradient_norm_[0] <= 1e-6
    full = KernelLogisticRegression(C=0.01).fit(K, y)
    assert est.score(K, y) >= full.score(K, y) - 0.1
    same = KernelLogisticRegression(C=0.01, n_import=15, random_state=0).fit(K, y)
    np.testing.assert_array_equal(same.import_indices_, est.import_indices_)


def test_bad_input():
    K, y = _blobs()
    with pytest.raises(LabelError):
        KernelLogisticRegression().fit(K, np.zeros(60))
    with pytest.raises(InvalidParameterError, match="n_import"):
        KernelLogisticRegression(n_import=0).fit(K, y)
    with pytest.raises(InvalidParameterError):
        KernelLogisticRegression(C=-1).fit(K, y)
    est = KernelLogisticRegression().fit(K, y)
    with pytest.raises(TestMatrixError):
        est.predict(K[:, :5])
    with pytest.warns(ConvergenceWarning):
        KernelLogisticRegression(C=1e-4, max_iter=2).fit(K, y)


@pytest.mark.parametrize("bad,match", [
    (np.nan, "NaN or infinite"), (np.inf, "NaN or infinite"), (-1.0, "negative entries")])
def test_sample_tie_pairs_refuses_entries_it_would_read_as_ties(bad, match):
    """NaN and -1 are not zero, so they used to count as ties (issue #39, item 2.9)."""
    T = np.zeros((6, 6))
    T[0, 1] = T[1, 0] = 1
    T[2, 3] = bad
    with pytest.raises(InvalidParameterError, match=match):
        sample_tie_pairs(T, random_state=0)
    with pytest.raises(InvalidParameterError, match="numbers"):
        sample_tie_pairs(np.full((3, 3), "x", dtype=object))


@pytest.mark.parametrize("max_iter", [0, -1, 1.5, True])
def test_kernel_logistic_regression_validates_max_iter(max_iter):
    """max_iter=0 raised UnboundLocalError (issue #39, item 2.11)."""
    K = np.eye(4) + 0.1
    with pytest.raises(InvalidParameterError, match="max_iter must be an integer >= 1"):
        KernelLogisticRegression(max_iter=max_iter).fit(K, [0, 0, 1, 1])


def test_defaults_on_an_unbalanced_indefinite_similarity_match_the_clip_svm():
    """At its defaults (C = 1/n, clipped spectrum, unit scale) the model learns on an
    indefinite similarity with unbalanced classes; the thesis's reading (C = 1 on the
    raw matrix) predicts the majority class there (docs/methods.md)."""
    from sklearn.model_selection import StratifiedKFold

    from proxlearn.svm import SimilaritySVC

    rng = np.random.default_rng(3)
    y = np.r_[np.zeros(90, int), np.ones(30, int)]
    X = rng.normal(size=(120, 4)) + 1.2 * y[:, None]
    E = rng.normal(scale=1.5, size=(120, 120))
    S = 0.02 * (X @ X.T + (E + E.T) / 2)  # similarities of order one, as most real ones
    assert np.linalg.eigvalsh(S).min() < 0
    cv = StratifiedKFold(3, shuffle=True, random_state=0)
    ours = cross_val_score(KernelLogisticRegression(), S, y, cv=cv).mean()
    clip = cross_val_score(SimilaritySVC(), S, y, cv=cv).mean()
    literal = cross_val_score(KernelLogisticRegression(C=1.0, spectrum="none", normalize=False),
                              S, y, cv=cv).mean()
    assert ours >= clip - 0.05
    assert ours > 0.75 + 0.05  # the majority class scores 0.75
    assert literal <= 0.76  # the literal reading: the majority class
