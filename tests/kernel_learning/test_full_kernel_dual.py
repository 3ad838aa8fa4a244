"""The dual solver of FullKernelSVM (Chen 2010 eq. 5.6 / 5.16) against the SDP through
cvxpy + Clarabel (the certificate): the same optimum to 1e-6 relative, and a zero duality
gap between the primal value at the returned (K, c, b) and the lower bound D(alpha)."""

from pathlib import Path

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning

import proxlearn.kernel_learning._full_kernel_svm as fk
from proxlearn._scale import similarity_scale
from proxlearn._validation import InvalidParameterError
from proxlearn.kernel_learning import FullKernelSVM
from proxlearn.kernel_learning._full_kernel_dual import (
    full_kernel_dual_bound,
    full_kernel_primal,
    solve_full_kernel_dual,
)
from proxlearn.kernel_learning._full_kernel_svm import _solve_full_kernel

from _problems import indefinite_problem

_DATA = next((p / "shared" / "data" for p in Path(__file__).resolve().parents
              if (p / "shared" / "data" / "uw" / "protein.mat").is_file()), None)
needs_data = pytest.mark.skipif(
    _DATA is None, reason="the real UW matrices (shared/data/uw) are not present above this "
                          "checkout")


def random_indefinite(n, seed):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 4))
    y = np.where(X[:, 0] + 0.5 * rng.normal(size=n) > 0, 1.0, -1.0)
    S = np.tanh(X @ X.T / 2 - 0.3)  # sigmoid "kernel": indefinite
    return S, y


def real_pair(name, n, seed):
    """A random n-sample subset of the first two classes of a UW set, unit scale."""
    from proxlearn.datasets import load_dataset

    ds = load_dataset(name, data_home=_DATA / "uw")
    S, y = np.asarray(ds.matrix, float), np.asarray(ds.labels)
    S = 0.5 * (S + S.T)
    cls = np.unique(y)[:2]
    idx = np.flatnonzero(np.isin(y, cls))
    idx = np.sort(np.random.default_rng(seed).choice(idx, n, replace=False))
    S = S[np.ix_(idx, idx)]
    return S / similarity_scale(S), np.where(y[idx] == cls[1], 1.0, -1.0)


def check_against_clarabel(S, y, eta, gamma, n_unlabelled=0):
    res = solve_full_kernel_dual(S, y, eta, gamma, n_unlabelled)
    assert res.success
    ref = _solve_full_kernel(S, y, eta, gamma, n_unlabelled, "CLARABEL", None)
    # the same optimum as the interior point
    assert res.fun == pytest.approx(ref["objective"], rel=1e-6)
    # the reported value is the primal objective at a feasible point (K PSD, c = a)
    assert np.linalg.eigvalsh(res.K).min() >= -1e-9 * np.abs(res.K).max()
    a = y * res.x
    assert full_kernel_primal(S, y, res.K, a, res.b, eta, gamma) == pytest.approx(res.fun,
                                                                                   rel=1e-12)
    # dual feasibility of alpha, and a vanishing duality gap: primal - D(alpha)
    C = 1.0 / (2.0 * y.size * eta)
    assert res.x.min() >= 0.0 and res.x.max() <= C * (1 + 1e-12)
    assert abs(y @ res.x) <= 1e-9 * max(1.0, C * y.size)
    lower = full_kernel_dual_bound(S, y, res.x, eta, gamma)
    assert lower <= ref["objective"] * (1 + 1e-7) + 1e-9
    assert res.fun - lower <= 1e-6 * max(1.0, abs(res.fun))
    return res, ref


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("eta,gamma", [(0.001, 100.0), (0.01, 0.01), (0.05, 1.0)])
def test_random_indefinite_matches_the_sdp(seed, eta, gamma):
    """(0.01, 0.01) is the former default, where eta ||alpha||^2 <= gamma binds in the dual."""
    S, y = random_indefinite(24, seed)
    check_against_clarabel(S, y, eta, gamma)


def test_blobs_with_noise_match_the_sdp():
    S, y = indefinite_problem(20, 3)
    check_against_clarabel(S, np.where(y == 1, 1.0, -1.0), 0.02, 0.05)


@needs_data
@pytest.mark.parametrize("name,seed", [("aural_sonar", 0), ("aural_sonar", 1),
                                       ("protein-2", 0), ("protein-2", 1)])
def test_real_pairs_match_the_sdp(name, seed):
    S, y = real_pair(name, 36, seed)
    res, ref = check_against_clarabel(S, y, 0.001, 100.0)
    # the kernels agree too (the optimum is unique here: gamma ||K - S|| is strictly convex
    # along the segment between two optimal kernels unless they differ by a multiple of K - S)
    assert np.linalg.norm(res.K - ref["K"]) <= 1e-4 * np.linalg.norm(ref["K"])


@needs_data
def test_real_pair_at_the_former_default_matches_the_sdp():
    S, y = real_pair("protein-2", 36, 2)
    check_against_clarabel(S, y, 0.01, 0.01)


def test_transductive_matches_the_sdp():
    S, y = random_indefinite(22, 4)
    check_against_clarabel(S, y[:16], 0.01, 0.5, n_unlabelled=6)


def test_psd_similarity_gives_back_s():
    """A PSD S with a large gamma: K* = S exactly (the norm is an exact penalty), tau ~ 0."""
    rng = np.random.default_rng(5)
    X = rng.normal(size=(18, 3))
    S = X @ X.T + 0.1 * np.eye(18)
    y = np.where(X[:, 1] > 0, 1.0, -1.0)
    res = solve_full_kernel_dual(S, y, 0.02, 100.0)
    assert res.success
    np.testing.assert_allclose(res.K, S, atol=1e-8 * np.abs(S).max())
    ref = _solve_full_kernel(S, y, 0.02, 100.0, 0, "CLARABEL", None)
    assert res.fun == pytest.approx(ref["objective"], rel=1e-6)


def test_estimator_solvers_agree():
    """FullKernelSVM(solver="dual") and solver="cvxpy" (the SDP): same objective and the same
    test decisions (to the interior point's accuracy), multiclass one-vs-one."""
    S, y = indefinite_problem(24, 7, k=3)
    a = FullKernelSVM(eta=0.01, gamma=1.0).fit(S, y)
    b = FullKernelSVM(eta=0.01, gamma=1.0, solver="cvxpy").fit(S, y)
    np.testing.assert_allclose(a.objective_, b.objective_, rtol=1e-6)
    T = S[::3] + 0.05
    np.testing.assert_allclose(a.decision_function(T), b.decision_function(T), atol=1e-3)
    np.testing.assert_array_equal(a.predict(T), b.predict(T))


def test_size_limit_applies_to_the_conic_solvers_only():
    S, y = indefinite_problem(152, 8)
    with pytest.raises(InvalidParameterError, match="max_samples=150.*solver='dual'"):
        FullKernelSVM(solver="cvxpy").fit(S, y)
    with pytest.raises(InvalidParameterError, match="max_samples=100"):
        FullKernelSVM(max_samples=100).fit(S, y)
    clf = FullKernelSVM().fit(S, y)  # the dual solver: no limit unless set
    assert clf.kernel_.shape == (152, 152)


def test_iteration_limit_is_reported(monkeypatch):
    """An inner solve cut at 2 iterations is not a solution: success False, status 1, and
    the estimator turns it into a ConvergenceWarning."""
    S, y = random_indefinite(24, 9)
    res = solve_full_kernel_dual(S, y, 0.01, 1.0, inner_max_iter=2)
    assert not res.success and res.status == 1
    full = solve_full_kernel_dual(S, y, 0.01, 1.0)
    assert full.success and full.status == 0
    assert res.fun > full.fun
    monkeypatch.setattr(fk, "solve_full_kernel_dual",
                        lambda *a, **k: solve_full_kernel_dual(*a, **k, inner_max_iter=2))
    with pytest.warns(ConvergenceWarning, match="dual solver stopped"):
        FullKernelSVM(eta=0.01, gamma=1.0, normalize=False).fit(S, y)
