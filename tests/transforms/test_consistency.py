"""Property tests: every consistent transform maps training rows to training rows.

Chen et al. (2009), section 2.2: a test transformation T is consistent if
``T(s_i)`` equals row ``i`` of the modified training matrix. Matrices are built
from a hypothesis-drawn seed and family: symmetric indefinite, asymmetric,
near-singular (low rank + tiny noise) and with duplicated samples.
"""

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose

from proxlearn.transforms import (
    DissimilarityToSimilarity,
    SimilarityFeatures,
    SpectrumTransformer,
    Symmetrize,
)

SETTINGS = settings(max_examples=40, deadline=None)
FAMILIES = ["indefinite", "asymmetric", "near_singular", "duplicates"]


def build(seed, n, family):
    """Random similarity matrix of the given family."""
    rng = np.random.default_rng(seed)
    scale = 10.0 ** rng.uniform(-3, 3)
    if family == "indefinite":
        E = rng.standard_normal((n, n))
        S = E + E.T
    elif family == "asymmetric":
        S = rng.standard_normal((n, n)) + 0.3 * n * np.eye(n)
    elif family == "near_singular":
        r = max(1, n // 4)
        A, B = rng.standard_normal((n, r)), rng.standard_normal((n, r))
        E = rng.standard_normal((n, n))
        S = A @ A.T - B @ B.T + 1e-9 * (E + E.T)
    else:  # duplicates: repeated rows and columns
        k = max(2, n // 2)
        E = rng.standard_normal((k, k))
        idx = rng.integers(0, k, size=n)
        idx[:2] = idx[0]  # at least one duplicate pair
        S = (E + E.T)[np.ix_(idx, idx)]
    return scale * S


def sym(S):
    return (S + S.T) / 2


def tolerance(K):
    return 1e-11 * K.shape[0] * max(float(np.abs(K).max()), 1e-300)


matrices = st.builds(
    build,
    st.integers(0, 2**32 - 1),
    st.integers(2, 30),
    st.sampled_from(FAMILIES),
)


def fit_quiet(t, S):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return t.fit_transform(S)


def symmetric_test_rows(S):
    """Training samples presented as test rows, symmetrised with both directions."""
    return Symmetrize().fit(S).transform(S, S)


@SETTINGS
@given(S=matrices, method=st.sampled_from(["clip", "flip", "none"]))
def test_clip_flip_none_consistent(S, method):
    t = SpectrumTransformer(method)
    K = fit_quiet(t, S)
    K_rows = t.transform(symmetric_test_rows(S))
    assert_allclose(K_rows, K, rtol=0, atol=tolerance(sym(S)))
    assert np.all(np.isfinite(K))
    if method != "none":
        assert np.linalg.eigvalsh(K).min() >= -tolerance(sym(S)) * 10


@SETTINGS
@given(S=matrices)
def test_square_consistent_on_matrix_as_given(S):
    t = SpectrumTransformer("square")
    K = fit_quiet(t, S)
    assert_allclose(t.transform(S), K, rtol=0, atol=tolerance(K))


@SETTINGS
@given(S=matrices)
def test_shift_consistent_rule_off_diagonal(S):
    t = SpectrumTransformer("shift", test_transform="consistent")
    K = fit_quiet(t, S)
    rows = t.transform(symmetric_test_rows(S))
    diff = K - rows
    off = ~np.eye(len(S), dtype=bool)
    assert_allclose(diff[off], 0.0, rtol=0, atol=0)
    assert_allclose(np.diag(diff), t.shift_, rtol=0, atol=tolerance(sym(S)))
    assert t.shift_ >= 0


@SETTINGS
@given(
    seed=st.integers(0, 2**32 - 1),
    n=st.integers(2, 30),
    log_scale=st.floats(-3, 3),
)
def test_shift_linear_exact_on_nonsingular(seed, n, log_scale):
    # Gu & Guo's map is exact when no eigenvalue is (numerically) zero
    rng = np.random.default_rng(seed)
    Q = np.linalg.qr(rng.standard_normal((n, n)))[0]
    lam = rng.uniform(0.2, 2.0, n) * rng.choice([-1.0, 1.0], n)
    S = sym((Q * lam) @ Q.T) * 10.0**log_scale
    t = SpectrumTransformer("shift", test_transform="linear")
    K = fit_quiet(t, S)
    assert_allclose(t.transform(S), K, rtol=0, atol=10 * tolerance(K))


@SETTINGS
@given(S=matrices)
def test_shift_linear_guard_is_finite(S):
    t = SpectrumTransformer("shift", test_transform="linear")
    fit_quiet(t, S)
    out = t.transform(symmetric_test_rows(S))
    assert np.all(np.isfinite(out))


@SETTINGS
@given(
    seed=st.integers(0, 2**32 - 1),
    n=st.integers(2, 25),
    asymmetric=st.booleans(),
    duplicates=st.booleans(),
    method=st.sampled_from(["max-minus", "negative", "exp", "double-centering"]),
)
def test_dissimilarity_consistent(seed, n, asymmetric, duplicates, method):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, 3)) * 10.0 ** rng.uniform(-2, 2)
    if duplicates:
        X[1] = X[0]
    D = np.sqrt(((X[:, None, :] - X[None, :, :]) ** 2).sum(-1))
    if asymmetric:
        D = D * rng.uniform(0.5, 1.5, (n, n))
    t = DissimilarityToSimilarity(method)
    S = t.fit_transform(D)
    assert_allclose(t.transform(D), S, rtol=0, atol=1e-12 * max(1.0, np.abs(S).max()))
    if method == "double-centering":
        assert_allclose(S.sum(axis=0), 0.0, atol=1e-10 * max(1.0, np.abs(S).max()) * n)


@SETTINGS
@given(
    S=matrices,
    kernel=st.sampled_from(["linear", "rbf"]),
    log_gamma=st.floats(-3, 1),
)
def test_similarity_features_consistent(S, kernel, log_gamma):
    S = S / np.abs(S).max()  # keep gamma * ||s_i - s_j||^2 in a sensible range
    gamma = 10.0**log_gamma / S.shape[0]
    t = SimilarityFeatures(kernel, gamma=gamma)
    K = fit_quiet(t, S)
    assert_allclose(t.transform(S), K, rtol=0, atol=tolerance(K))


@SETTINGS
@given(
    S=matrices,
    method=st.sampled_from(["clip", "flip"]),
    solver=st.sampled_from(["auto", "dense", "arpack", "randomized"]),
    frac=st.floats(0.05, 1.0),
    seed=st.integers(0, 100),
)
def test_partial_spectrum_consistent_for_every_eigen_solver(S, method, solver, frac, seed):
    """Issue #19: with n_components leading eigenpairs (any solver), training rows
    given as test rows still map to the rows of the (truncated) training kernel,
    to the eigensolver's certified residual."""
    k = max(1, int(round(frac * len(S))))
    t = SpectrumTransformer(method, eigen_solver=solver, n_components=k, random_state=seed)
    K = fit_quiet(t, S)
    K_rows = t.transform(symmetric_test_rows(S))
    assert_allclose(K_rows, K, rtol=0, atol=100 * tolerance(sym(S)))
    assert t.eigenvectors_.shape == (len(S), k)
    assert np.linalg.eigvalsh(K).min() >= -100 * tolerance(sym(S))
