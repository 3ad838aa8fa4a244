"""KRI / KRR weights: toy examples of Chen et al. (2009) section 5.2.2 and properties."""

import numpy as np
import pytest

from proxlearn._validation import InvalidParameterError, SimilarityMatrixError
from proxlearn.neighbors import (
    kri_weights,
    kri_weights_batch,
    krr_weights,
    krr_weights_batch,
    normalize_krr_weights,
)
from proxlearn.solvers._simplex_qp import simplex_qp_kkt_residual

S1 = 5.0 * np.eye(4)
S23 = np.array(
    [[5, 1, 1, 1], [1, 5, 4, 2], [1, 4, 5, 2], [1, 2, 2, 5]], dtype=float
)
EXAMPLES = {
    1: (S1, np.array([4.0, 3, 2, 1])),
    2: (S23, np.array([3.0, 3, 3, 3])),
    3: (S23, np.array([2.0, 4, 3, 3])),
}
# Notes (chen2009-jmlr.md section 2.10 f): independent computations, not paper numbers.
FIXTURES = [
    (1, 0.01, [0.5329, 0.3333, 0.1337, 0], [0.7984, 0.5988, 0.3992, 0.1996],
     [0.5494, 0.3498, 0.1502, -0.0494]),
    (1, 1, [0.5, 0.3333, 0.1667, 0], [0.6667, 0.5, 0.3333, 0.1667],
     [0.5, 0.3333, 0.1667, 0]),
    (1, 10, [0.35, 0.2833, 0.2167, 0.15], [0.2667, 0.2, 0.1333, 0.0667],
     [0.35, 0.2833, 0.2167, 0.15]),
    (2, 0.01, [0.3712, 0.1716, 0.1716, 0.2856], [0.4475, 0.2069, 0.2069, 0.3443],
     [0.3961, 0.1555, 0.1555, 0.2929]),
    (2, 1, [0.3519, 0.1852, 0.1852, 0.2778], [0.3826, 0.2013, 0.2013, 0.3020],
     [0.3607, 0.1795, 0.1795, 0.2802]),
    (2, 10, [0.2914, 0.2247, 0.2247, 0.2593], [0.1721, 0.1327, 0.1327, 0.1531],
     [0.2744, 0.2351, 0.2351, 0.2555]),
    (3, 0.01, [0.1543, 0.5890, 0, 0.2568], [0.2181, 0.7880, -0.2021, 0.3214],
     [0.1868, 0.7566, -0.2335, 0.2901]),
    (3, 1, [0.1852, 0.5185, 0.0185, 0.2778], [0.1946, 0.5235, 0.0235, 0.2852],
     [0.1879, 0.5168, 0.0168, 0.2785]),
    (3, 10, [0.2247, 0.3035, 0.2126, 0.2593], [0.1016, 0.2086, 0.1176, 0.1497],
     [0.2072, 0.3142, 0.2233, 0.2553]),
]


@pytest.mark.parametrize("ex, lam, kri, krr, krrn", FIXTURES)
def test_toy_fixtures(ex, lam, kri, krr, krrn):
    S, s = EXAMPLES[ex]
    for spectrum in ("clip", "flip", "shift", "none"):  # S is PSD: all agree
        np.testing.assert_allclose(kri_weights(S, s, lam, spectrum), kri, atol=1e-4)
    w = krr_weights(S, s, lam)
    np.testing.assert_allclose(w, krr, atol=1e-4)
    np.testing.assert_allclose(normalize_krr_weights(w), krrn, atol=1e-4)
    np.testing.assert_allclose(krr_weights(S, s, lam, "clip"), krr, atol=1e-4)


LAMS = [1e-6, 1e-3, 0.01, 0.1, 1, 10, 100]


@pytest.mark.parametrize("lam", LAMS)
def test_example2_diversity(lam):
    S, s = EXAMPLES[2]
    for w in (kri_weights(S, s, lam), krr_weights(S, s, lam)):
        assert w[1] == pytest.approx(w[2], abs=1e-10)
        assert w[1] < w[0] and w[1] < w[3]


@pytest.mark.parametrize("lam", LAMS)
def test_example3_interaction(lam):
    # x1 outweighs x3 although psi(x, x1) < psi(x, x3). For KRR this holds
    # only while the ridge term does not dominate: at lambda = 10 the raw KRR
    # weights follow the affinity order (fixture table: 0.1016 < 0.1176).
    S, s = EXAMPLES[3]
    ws = [kri_weights(S, s, lam)] + ([krr_weights(S, s, lam)] if lam <= 1 else [])
    for w in ws:
        assert w[0] > w[2]
        assert np.argmax(w) == 1
    if lam >= 10:
        w = krr_weights(S, s, lam)
        assert w[2] > w[0]


@pytest.mark.parametrize("lam", LAMS)
def test_example1_affinity_monotone(lam):
    S, s = EXAMPLES[1]
    for w in (kri_weights(S, s, lam), krr_weights(S, s, lam)):
        assert np.all(np.diff(w) <= 1e-12)


@pytest.mark.parametrize("ex", [1, 2, 3])
def test_large_reg_limits(ex):
    S, s = EXAMPLES[ex]
    np.testing.assert_allclose(kri_weights(S, s, 1e6), 0.25, atol=1e-5)
    np.testing.assert_allclose(
        normalize_krr_weights(krr_weights(S, s, 1e6)), 0.25, atol=1e-5
    )


def _indefinite(rng, B, k):
    A = rng.standard_normal((B, k, k))
    return 0.5 * (A + np.swapaxes(A, 1, 2)) + 2 * np.eye(k)


def test_batch_equals_single_and_kkt():
    rng = np.random.default_rng(0)
    S = _indefinite(rng, 10, 6)
    s = rng.standard_normal((10, 6))
    for spectrum in ("clip", "flip", "shift"):
        W, res = kri_weights_batch(S, s, 0.1, spectrum, return_residual=True)
        assert np.all(res <= 1e-10)
        assert np.all(W >= 0)
        np.testing.assert_allclose(W.sum(axis=1), 1.0, atol=1e-12)
        for b in range(10):
            np.testing.assert_allclose(
                kri_weights(S[b], s[b], 0.1, spectrum), W[b], atol=1e-12
            )
    for spectrum in ("pinv", "clip", "flip", "shift"):
        W = krr_weights_batch(S, s, 0.1, spectrum)
        for b in range(10):
            np.testing.assert_allclose(
                krr_weights(S[b], s[b], 0.1, spectrum), W[b], atol=1e-12
            )


def _manual_modify(S, method):
    lam, V = np.linalg.eigh(S)
    tol = len(lam) * np.finfo(float).eps * np.abs(lam).max()
    if method == "clip":
        lt, m = np.where(lam > tol, lam, 0), (lam > tol).astype(float)
    elif method == "flip":
        lt, m = np.abs(lam), np.sign(lam)
    else:
        lt, m = lam - min(lam.min(), 0), np.ones_like(lam)
    return V @ np.diag(lt) @ V.T, V @ np.diag(m) @ V.T


@pytest.mark.parametrize("method", ["clip", "flip", "shift"])
@pytest.mark.parametrize("transform_s", [True, False])
def test_spectrum_and_transform_against_manual(method, transform_s):
    rng = np.random.default_rng(1)
    S = _indefinite(rng, 1, 5)[0]
    assert np.linalg.eigvalsh(S).min() < 0
    s = rng.standard_normal(5)
    St, P = _manual_modify(S, method)
    if method != "shift":
        np.testing.assert_allclose(P @ S, St, atol=1e-10)  # consistency P S = S~
    s_t = P @ s if (transform_s and method != "shift") else s
    reg = 0.3
    w = krr_weights(S, s, reg, method, transform_s=transform_s)
    np.testing.assert_allclose(w, np.linalg.solve(St + reg * np.eye(5), s_t), atol=1e-10)
    v = kri_weights(S, s, reg, method, transform_s=transform_s)
    assert simplex_qp_kkt_residual(St + reg * np.eye(5), s_t, v) <= 1e-9


def test_transform_changes_clip_weights_on_indefinite():
    rng = np.random.default_rng(2)
    S = _indefinite(rng, 1, 6)[0]
    s = rng.standard_normal(6)
    a = krr_weights(S, s, 0.1, "clip", transform_s=True)
    b = krr_weights(S, s, 0.1, "clip", transform_s=False)
    assert np.abs(a - b).max() > 1e-3


def test_pinv_equals_solve_and_numpy_pinv():
    rng = np.random.default_rng(3)
    S = _indefinite(rng, 1, 6)[0]
    s = rng.standard_normal(6)
    np.testing.assert_allclose(
        krr_weights(S, s, 0.5), np.linalg.solve(S + 0.5 * np.eye(6), s), atol=1e-10
    )
    # singular S + reg I: choose reg = -lambda_min
    lam = np.linalg.eigvalsh(S)
    reg = -lam[0]
    M = S + reg * np.eye(6)
    w = krr_weights(S, s, reg, rcond=1e-10)
    np.testing.assert_allclose(w, np.linalg.pinv(M, rcond=1e-10) @ s, atol=1e-8)
    with pytest.raises(InvalidParameterError, match="singular"):
        krr_weights(S, s, reg, "none", rcond=1e-10)
    # pinv with reg = 0 is allowed and finite
    assert np.all(np.isfinite(krr_weights(S, s, 0.0)))


def test_kri_none_on_indefinite_raises_and_equals_clip_on_psd():
    rng = np.random.default_rng(4)
    S = _indefinite(rng, 1, 5)[0]
    s = rng.standard_normal(5)
    with pytest.raises(InvalidParameterError, match="positive\\s+semidefinite"):
        kri_weights(S, s, 0.0, "none")
    A = rng.standard_normal((5, 5))
    P = A @ A.T
    np.testing.assert_allclose(
        kri_weights(P, s, 0.1, "none"), kri_weights(P, s, 0.1, "clip"), atol=1e-9
    )


def test_asymmetric_local_matrix_is_symmetrised():
    rng = np.random.default_rng(5)
    A = rng.standard_normal((5, 5))
    s = rng.standard_normal(5)
    np.testing.assert_allclose(
        krr_weights(A, s, 1.0, "clip"), krr_weights((A + A.T) / 2, s, 1.0, "clip")
    )


def test_bad_input():
    S, s = EXAMPLES[2]
    with pytest.raises(InvalidParameterError):
        kri_weights(S, s, -1.0)
    with pytest.raises(InvalidParameterError):
        kri_weights(S, s, 1.0, "pinv")
    with pytest.raises(InvalidParameterError):
        krr_weights(S, s, 0.0, "clip")
    with pytest.raises(InvalidParameterError):
        krr_weights(S, s, 1.0, "square")
    with pytest.raises(SimilarityMatrixError):
        kri_weights(S, s[:3], 1.0)
    with pytest.raises(SimilarityMatrixError):
        krr_weights_batch(S, s, 1.0)
    with pytest.raises(SimilarityMatrixError):
        kri_weights_batch(S[None], np.full((1, 4), np.nan), 1.0)


@pytest.mark.parametrize("k", [12, 40])  # stacked regs (k <= 32) and warm-started chain
def test_kri_weights_path_equals_one_solve_per_reg(k):
    from proxlearn.neighbors import kri_weights_batch, kri_weights_path

    rng = np.random.default_rng(3)
    B = 20
    A = rng.normal(size=(B, k, k))
    S_loc = (A + A.transpose(0, 2, 1)) / 2 + 2 * np.eye(k)  # indefinite in general
    s = rng.normal(size=(B, k))
    regs = [1e-6, 1e-2, 1.0, 1e6, 0.1]
    for spectrum in ("clip", "flip", "shift"):
        path = kri_weights_path(S_loc, s, regs, spectrum)
        for r, W in zip(regs, path, strict=True):
            np.testing.assert_allclose(W, kri_weights_batch(S_loc, s, r, spectrum), atol=1e-9)


def test_krr_weights_path_equals_dense_formula_per_reg():
    """One eigendecomposition for the whole reg grid gives, for every reg, the
    dense eq. (15): pinv(S + reg I) s, or (S~ + reg I)^{-1} P s."""
    from proxlearn.neighbors import krr_weights_path

    rng = np.random.default_rng(5)
    B, k = 15, 9
    A = rng.normal(size=(B, k, k))
    S_loc = (A + A.transpose(0, 2, 1)) / 2
    s = rng.normal(size=(B, k))
    regs = [1e-3, 0.1, 1.0, 10.0]
    for spectrum in ("pinv", "clip", "flip", "shift"):
        path = krr_weights_path(S_loc, s, regs, spectrum)
        assert len(path) == len(regs)
        for r, W in zip(regs, path, strict=True):
            for b in range(B):
                lam, U = np.linalg.eigh(S_loc[b])
                if spectrum == "pinv":
                    want = np.linalg.pinv(S_loc[b] + r * np.eye(k)) @ s[b]
                else:
                    if spectrum == "clip":
                        lt, P = np.maximum(lam, 0), (U * (lam > 0)) @ U.T
                    elif spectrum == "flip":
                        lt, P = np.abs(lam), (U * np.sign(lam)) @ U.T
                    else:
                        lt, P = lam - min(lam.min(), 0), np.eye(k)
                    St = (U * lt) @ U.T
                    want = np.linalg.solve(St + r * np.eye(k), P @ s[b])
                np.testing.assert_allclose(W[b], want, rtol=1e-8, atol=1e-10)
