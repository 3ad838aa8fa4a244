"""Tests of SpectrumTransformer, modify_spectrum and spectrum_modify."""

import warnings

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal

from proxlearn._validation import (
    AsymmetricSimilarityWarning,
    InvalidParameterError,
    SimilarityMatrixError,
    TestMatrixError,
)
from proxlearn.transforms import SpectrumTransformer, modify_spectrum, spectrum_modify


METHODS = ["clip", "flip", "shift", "square", "none"]

def indefinite(n=25, seed=0):
    """Random symmetric indefinite similarity with a dominant positive part."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, 4))
    E = rng.standard_normal((n, n))
    return X @ X.T + 0.8 * (E + E.T)


def test_clip_and_flip_spectra():
    S = indefinite()
    lam = np.linalg.eigvalsh(S)
    assert lam.min() < -1.0  # the fixture really is indefinite
    Kc = SpectrumTransformer("clip").fit_transform(S)
    Kf = SpectrumTransformer("flip").fit_transform(S)
    assert_allclose(np.linalg.eigvalsh(Kc), np.sort(np.maximum(lam, 0)), atol=1e-10)
    assert_allclose(np.linalg.eigvalsh(Kf), np.sort(np.abs(lam)), atol=1e-10)
    assert_array_equal(Kc, Kc.T)
    # clip is the Frobenius-nearest PSD matrix: S - S_clip is NSD and orthogonal
    R = S - Kc
    assert np.linalg.eigvalsh(R).max() < 1e-10
    assert abs(np.sum(R * Kc)) < 1e-8 * np.sum(S * S)


def test_attributes_and_maps():
    S = indefinite()
    lam = np.linalg.eigvalsh(S)
    t = SpectrumTransformer("clip").fit(S)
    assert_allclose(t.eigenvalues_, lam, atol=1e-10)
    assert t.n_negative_ == int(np.sum(lam < 0))
    assert t.n_features_in_ == S.shape[0]
    assert t.shift_ == 0.0
    assert t.tol_ == pytest.approx(S.shape[0] * np.finfo(float).eps * np.abs(lam).max())
    # P_clip is the orthogonal projector onto the positive eigenspace
    P = t.P_
    assert_allclose(P @ P, P, atol=1e-12)
    assert_allclose(P, P.T, atol=1e-13)
    assert_allclose(np.trace(P), np.sum(lam > 0), atol=1e-10)
    # flip: P^2 = identity (S non-singular here)
    Pf = SpectrumTransformer("flip").fit(S).P_
    assert_allclose(Pf @ Pf, np.eye(S.shape[0]), atol=1e-12)


def test_shift_kernel_and_rules():
    S = indefinite()
    lam_min = np.linalg.eigvalsh(S).min()
    t = SpectrumTransformer("shift")
    K = t.fit_transform(S)
    assert t.shift_ == pytest.approx(-lam_min)
    assert_allclose(K, S + t.shift_ * np.eye(len(S)), rtol=0, atol=0)
    assert t.P_ is None and t.eigenvectors_ is None
    S_test = indefinite(25, seed=3)[:7]
    # consistent rule of Chen et al. / Wu et al.: test rows unchanged
    assert_array_equal(t.transform(S_test), S_test)
    # Gu & Guo linear map
    tl = SpectrumTransformer("shift", test_transform="linear").fit(S)
    U, lam = tl.eigenvectors_, tl.eigenvalues_
    P = (U * ((lam + tl.shift_) / lam)) @ U.T
    assert_allclose(tl.transform(S_test), S_test @ P, atol=1e-10)
    assert np.linalg.eigvalsh(K).min() > -1e-10


def test_psd_shift_is_identity():
    rng = np.random.default_rng(1)
    X = rng.standard_normal((15, 20))
    S = X @ X.T
    t = SpectrumTransformer("shift")
    assert_array_equal(t.fit_transform(S), S)
    assert t.shift_ == 0.0


def test_square_uses_matrix_as_given():
    rng = np.random.default_rng(2)
    S = rng.standard_normal((10, 10))  # asymmetric
    S_test = rng.standard_normal((4, 10))
    with warnings.catch_warnings():
        warnings.simplefilter("error", AsymmetricSimilarityWarning)
        t = SpectrumTransformer("square")
        K = t.fit_transform(S)
    assert_allclose(K, S @ S.T)
    assert_allclose(t.transform(S_test), S_test @ S.T)
    assert t.eigenvalues_ is None and t.n_negative_ == 0


def test_none_and_raw():
    S = indefinite()
    S_test = indefinite(25, seed=5)[:6]
    t = SpectrumTransformer("none")
    assert_array_equal(t.fit_transform(S), S)
    assert t.n_negative_ > 0
    out = t.transform(S_test)
    assert_array_equal(out, S_test)
    assert out is not S_test
    for m in METHODS:
        raw = SpectrumTransformer(m, test_transform="raw").fit(S)
        assert_array_equal(raw.transform(S_test), S_test)


def test_clip_proposition_1_least_squares_embedding():
    """Chen et al. (2009) Proposition 1: X^T argmin_z ||X^T z - s|| = P_clip s."""
    S = indefinite(20, seed=4)
    t = SpectrumTransformer("clip").fit(S)
    keep = t.eigenvalues_ > t.tol_
    U = t.eigenvectors_[:, keep]
    X = np.sqrt(t.eigenvalues_[keep])[:, None] * U.T  # columns embed the samples
    assert_allclose(X.T @ X, t.kernel_, atol=1e-10)
    s = np.random.default_rng(0).standard_normal(20)
    z = np.linalg.lstsq(X.T, s, rcond=None)[0]
    assert_allclose(X.T @ z, t.transform(s[None, :])[0], atol=1e-10)


def test_tol_drops_small_eigenvalues():
    rng = np.random.default_rng(3)
    Q = np.linalg.qr(rng.standard_normal((8, 8)))[0]
    lam = np.array([-3.0, -1e-6, 1e-6, 0.5, 1.0, 2.0, 3.0, 4.0])
    S = (Q * lam) @ Q.T
    S = (S + S.T) / 2
    default = SpectrumTransformer("flip").fit(S)
    assert np.trace(default.P_) == pytest.approx(-1 - 1 + 1 + 5, abs=1e-8)
    big = SpectrumTransformer("flip", tol=1e-3).fit(S)
    assert big.tol_ == 1e-3
    assert np.trace(big.P_) == pytest.approx(-1 + 5, abs=1e-8)
    assert big.n_negative_ == 1


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("test_transform", ["consistent", "linear"])
def test_all_zero_matrix(method, test_transform):
    Z = np.zeros((6, 6))
    t = SpectrumTransformer(method, test_transform=test_transform)
    K = t.fit_transform(Z)
    assert np.all(np.isfinite(K))
    assert_array_equal(K, 0.0)
    out = t.transform(np.ones((2, 6)))
    assert np.all(np.isfinite(out))
    if method in ("clip", "flip", "square"):
        assert_array_equal(out, 0.0)


def test_rank_deficient_psd_is_unchanged_by_clip():
    rng = np.random.default_rng(4)
    X = rng.standard_normal((30, 3))
    S = X @ X.T
    for m in ("clip", "flip"):
        t = SpectrumTransformer(m)
        assert_allclose(t.fit_transform(S), S, atol=1e-10)
        assert_allclose(t.transform(S[:5]), S[:5], atol=1e-10)
        # P projects onto the 3-dimensional range of S
        assert np.trace(t.P_) == pytest.approx(3.0, abs=1e-8)


def test_modify_spectrum_values():
    lam = np.array([-2.0, -0.0, 0.5, 3.0])
    new, m = modify_spectrum(lam, "clip", tol=0.0)
    assert_array_equal(new, [0.0, 0.0, 0.5, 3.0])
    assert_array_equal(m, [0.0, 0.0, 1.0, 1.0])
    new, m = modify_spectrum(lam, "flip", tol=0.0)
    assert_array_equal(new, [2.0, 0.0, 0.5, 3.0])
    assert_array_equal(m, [-1.0, 0.0, 1.0, 1.0])
    new, m = modify_spectrum(lam, "shift", tol=0.0)
    assert_array_equal(new, [0.0, 2.0, 2.5, 5.0])
    assert_allclose(m, [0.0, 1.0, 5.0, 5.0 / 3.0])
    new, m = modify_spectrum(lam, "square")
    assert_array_equal(new, lam**2)
    assert_array_equal(m, lam)
    new, m = modify_spectrum(lam, "none")
    assert_array_equal(new, lam)
    assert_array_equal(m, 1.0)
    # default tolerance n * eps * max|lambda| makes 1e-17 a zero eigenvalue
    new, m = modify_spectrum(np.array([1e-17, 1.0]), "clip")
    assert_array_equal(m, [0.0, 1.0])
    with pytest.raises(InvalidParameterError):
        modify_spectrum(lam, "bogus")
    with pytest.raises(InvalidParameterError):
        modify_spectrum(lam.reshape(2, 2), "clip")


@pytest.mark.parametrize("method", METHODS)
def test_spectrum_modify_is_deprecated_and_matches_transformer(method):
    """One name per concept (issue #39): the matrix-level wrapper, easily confused with
    modify_spectrum (eigenvalues), warns and points to SpectrumTransformer."""
    S = indefinite(12, seed=6)
    with pytest.warns(FutureWarning, match="SpectrumTransformer"):
        out = spectrum_modify(S, method)
    assert_allclose(out, SpectrumTransformer(method).fit_transform(S))


@pytest.mark.parametrize("method", ["clip", "flip", "shift", "none"])
def test_asymmetric_input_warns_and_symmetrises(method):
    rng = np.random.default_rng(7)
    S = indefinite(10, seed=7) + 0.5 * rng.standard_normal((10, 10))
    with pytest.warns(AsymmetricSimilarityWarning):
        K = SpectrumTransformer(method).fit_transform(S)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        K_sym = SpectrumTransformer(method).fit_transform((S + S.T) / 2)
    assert_allclose(K, K_sym, atol=1e-10)


@pytest.mark.parametrize("method", METHODS)
def test_input_not_modified(method):
    S = indefinite(12, seed=8)
    S_copy = S.copy()
    t = SpectrumTransformer(method, test_transform="linear")
    t.fit_transform(S)
    S_test = S[:4].copy()
    t.transform(S_test)
    assert_array_equal(S, S_copy)
    assert_array_equal(S_test, S_copy[:4])
    S[0, 0] += 100.0  # fitted state must not alias the user's array
    fresh = SpectrumTransformer(method, test_transform="linear").fit(S_copy)
    assert_allclose(t.transform(S_copy[:2]), fresh.transform(S_copy[:2]))


def test_refit_resets_state():
    S = indefinite(10, seed=9)
    t = SpectrumTransformer("clip").fit(S)
    assert t.P_ is not None
    t.set_params(method="shift").fit(S)
    assert t.P_ is None and t.shift_ > 0
    t.set_params(method="square").fit(S)
    assert t.eigenvalues_ is None and t.shift_ == 0.0


@pytest.mark.parametrize(
    "bad, err",
    [
        (np.ones((3, 4)), SimilarityMatrixError),
        ([[1.0, 2.0], [3.0]], SimilarityMatrixError),
        (np.array([[1.0, np.nan], [np.nan, 1.0]]), SimilarityMatrixError),
        (np.array([[1.0, np.inf], [np.inf, 1.0]]), SimilarityMatrixError),
        (np.ones(4), SimilarityMatrixError),
    ],
)
@pytest.mark.parametrize("method", METHODS)
def test_bad_training_input(bad, err, method):
    with pytest.raises(err):
        SpectrumTransformer(method).fit(bad)


@pytest.mark.parametrize("method", METHODS)
def test_wrong_test_width(method):
    t = SpectrumTransformer(method).fit(indefinite(8))
    with pytest.raises(TestMatrixError):
        t.transform(np.ones((3, 7)))
    with pytest.raises(SimilarityMatrixError):
        t.transform(np.full((2, 8), np.nan))


@pytest.mark.parametrize(
    "params",
    [{"method": "nope"}, {"test_transform": "sometimes"}, {"tol": -1.0}, {"tol": "x"}],
)
def test_invalid_options(params):
    with pytest.raises(InvalidParameterError):
        SpectrumTransformer(**params).fit(indefinite(5))


def test_single_test_row_vector():
    S = indefinite(9, seed=10)
    t = SpectrumTransformer("clip").fit(S)
    assert_allclose(t.transform(S[3]), t.transform(S[3:4]))
    assert t.transform(S[3]).shape == (1, 9)


@pytest.mark.filterwarnings("ignore::proxlearn._validation.DissimilarityWarning")
@pytest.mark.parametrize(
    "lam, method",
    [
        ([-1.0, 0.5, 1.0, 2.0, 3.0, 4.0], "clip"),  # P = I - u u^T route
        ([-1.0, -2.0, -3.0, 0.5, 1.0, 2.0], "clip"),
        ([-1.0, 0.0, 0.0, 0.0, 2.0, 3.0], "flip"),  # zero eigenvalues dominate
        ([-1.0, -2.0, -3.0, -4.0, 0.0, 3.0], "flip"),  # P = -I + ... route
        ([-1.0, 0.3, 0.5, 1.0, 2.0, 3.0], "shift"),
    ],
)
def test_spectral_map_matches_direct_formula(lam, method):
    rng = np.random.default_rng(11)
    Q = np.linalg.qr(rng.standard_normal((6, 6)))[0]
    S = (Q * np.array(lam)) @ Q.T
    S = (S + S.T) / 2
    t = SpectrumTransformer(method, test_transform="linear").fit(S)
    _, m = modify_spectrum(t.eigenvalues_, method, t.tol_)
    U = t.eigenvectors_
    assert_allclose(t.P_, (U * m) @ U.T, atol=1e-13)


class _Wrapper:
    """An array-like whose __array__ hands out its own buffer (like a DataFrame)."""

    def __init__(self, data):
        self.data = data

    def __array__(self, dtype=None, copy=None):
        return self.data


@pytest.mark.parametrize("method", ["clip", "flip", "shift", "none", "square"])
def test_fit_never_overwrites_the_callers_matrix(method):
    rng = np.random.default_rng(0)
    A = rng.normal(size=(12, 12))
    S = (A + A.T) / 2
    keep = S.copy()
    tf = SpectrumTransformer(method)
    K = tf.fit_transform(_Wrapper(S))
    assert np.array_equal(S, keep)
    np.testing.assert_allclose(tf.transform(S), tf.transform(keep))
    if method in ("clip", "flip", "square"):
        np.testing.assert_allclose(tf.transform(keep), K, atol=1e-10 * np.abs(K).max())


# ------------------------------------------------ partial spectra (issue #19)
PARTIAL_SOLVERS = ["dense", "tridiagonal", "arpack", "randomized", "auto"]


def known_spectrum(n=80, seed=0):
    """A symmetric matrix with the distinct eigenvalues ``lam`` (both signs)."""
    rng = np.random.default_rng(seed)
    lam = np.concatenate([np.geomspace(50.0, 0.5, n // 2), -np.geomspace(30.0, 0.3, n - n // 2)])
    Q = np.linalg.qr(rng.standard_normal((n, n)))[0]
    return (Q * lam) @ Q.T, lam


@pytest.mark.parametrize("solver", PARTIAL_SOLVERS)
@pytest.mark.parametrize("method", ["clip", "flip"])
def test_partial_with_all_components_equals_dense(solver, method):
    S, _ = known_spectrum(40, 1)
    rng = np.random.default_rng(2)
    S_test = rng.standard_normal((7, 40))
    full = SpectrumTransformer(method)
    part = SpectrumTransformer(method, eigen_solver=solver, n_components=40, random_state=0)
    K, Kp = full.fit_transform(S), part.fit_transform(S)
    scale = np.abs(K).max()
    np.testing.assert_allclose(Kp, K, rtol=0, atol=1e-8 * scale)
    np.testing.assert_allclose(part.transform(S_test), full.transform(S_test), rtol=0,
                               atol=1e-8 * scale)


@pytest.mark.parametrize("solver", PARTIAL_SOLVERS)
@pytest.mark.parametrize("method, k", [("clip", 10), ("flip", 10), ("clip", 45), ("flip", 3)])
def test_partial_error_is_the_documented_bound(solver, method, k):
    """The truncated kernel misses exactly the dropped modified eigenvalues:
    spectral error = the largest dropped one, Frobenius error = their norm."""
    S, lam = known_spectrum()
    full = SpectrumTransformer(method).fit(S)
    part = SpectrumTransformer(method, eigen_solver=solver, n_components=k, random_state=3).fit(S)
    key = lam if method == "clip" else np.abs(lam)
    dropped = np.sort(key)[::-1][k:]
    dropped_mod = np.maximum(dropped, 0.0)  # clip's modified values; |lam| for flip
    E = part.kernel_ - full.kernel_
    assert np.linalg.norm(E, 2) == pytest.approx(dropped_mod.max(initial=0.0), rel=1e-8, abs=1e-8)
    assert np.linalg.norm(E) == pytest.approx(np.linalg.norm(dropped_mod), rel=1e-8, abs=1e-8)
    kept = np.sort(key)[::-1][:k]
    np.testing.assert_allclose(np.sort(np.abs(part.eigenvalues_))[::-1],
                               np.sort(np.abs(lam[np.isin(key, kept)]))[::-1], rtol=1e-10)
    # the test map folds like the formed one
    V = np.random.default_rng(0).standard_normal((S.shape[0], 3))
    S_test = np.random.default_rng(1).standard_normal((5, S.shape[0]))
    np.testing.assert_allclose(part.transform(S_test) @ V, S_test @ part.transform_coef(V),
                               rtol=1e-10, atol=1e-10)


def test_auto_rule_picks_dense_for_small_problems():
    S, _ = known_spectrum(60, 4)
    assert SpectrumTransformer(n_components=5).fit(S).eigen_solver_ == "dense"
    assert SpectrumTransformer().fit(S).eigen_solver_ == "dense"
    assert SpectrumTransformer(eigen_solver="arpack", n_components=5).fit(S).eigen_solver_ == "arpack"
    assert (SpectrumTransformer(eigen_solver="tridiagonal", n_components=5).fit(S).eigen_solver_
            == "tridiagonal")


def _flat_bulk(n, seed=0):
    """Low rank plus a flat bulk: ``X X^T - Y Y^T + diag(u)``, ``u`` in [0.5, 1.5].
    The eigenvalues after the first few are a continuum with no gap, where
    Lanczos needs many products."""
    rng = np.random.default_rng(seed)
    X, Y = rng.standard_normal((n, 5)), rng.standard_normal((n, 3))
    S = X @ X.T - Y @ Y.T
    S[np.diag_indices(n)] += rng.uniform(0.5, 1.5, n)
    return S


@pytest.mark.parametrize("method", ["clip", "flip"])
def test_auto_rule_partial_routes(method, monkeypatch):
    """``eigen_solver="auto"`` with ``n_components`` (issue #19): ARPACK on a
    budget of products for k <= n / 40, the tridiagonal route when the budget
    runs out (a flat spectrum) and for k <= n / 5, dense above; every route
    gives the dense route's kernel and test map."""
    import proxlearn.transforms._spectrum as spectrum

    S = _flat_bulk(1000)
    S_test = np.random.default_rng(1).standard_normal((4, 1000))
    dense = SpectrumTransformer(method, eigen_solver="dense", n_components=20).fit(S)
    scale = np.abs(dense.kernel_).max()

    def check(est, route):
        assert est.eigen_solver_ == route
        np.testing.assert_allclose(est.kernel_, dense.kernel_, rtol=0, atol=1e-9 * scale)
        np.testing.assert_allclose(est.transform(S_test), dense.transform(S_test), rtol=0,
                                   atol=1e-9 * scale)

    # k = 20 <= n / 40: ARPACK, which on this flat bulk needs more than n / 10 products
    check(SpectrumTransformer(method, n_components=20, random_state=0).fit(S), "tridiagonal")
    with monkeypatch.context() as mp:  # an ample budget: ARPACK itself finishes
        mp.setattr(spectrum, "AUTO_ARPACK_BUDGET", 100.0)
        check(SpectrumTransformer(method, n_components=20, random_state=0).fit(S), "arpack")
    # rank 30 (20 positive, 10 negative) plus noise at 1e-6: the first Lanczos pass
    # (2k + 1 = 41 products) spans the range, so ARPACK ends well inside the budget
    # of 100 whatever the rounding
    lam = np.concatenate([np.linspace(50, 40, 20), -np.linspace(30, 20, 10),
                          1e-6 * np.random.default_rng(1).uniform(-1, 1, 970)])
    Q = np.linalg.qr(np.random.default_rng(3).standard_normal((1000, 1000)))[0]
    D = (Q * lam) @ Q.T
    est = SpectrumTransformer(method, n_components=20, random_state=0).fit(D)
    assert est.eigen_solver_ == "arpack"
    ref = SpectrumTransformer(method, eigen_solver="dense", n_components=20).fit(D)
    np.testing.assert_allclose(est.kernel_, ref.kernel_, rtol=0, atol=1e-9 * 50.0)
    # k between n / 40 and n / 5: tridiagonal; above: dense
    assert SpectrumTransformer(method, n_components=100).fit(S).eigen_solver_ == "tridiagonal"
    assert SpectrumTransformer(method, n_components=300).fit(S).eigen_solver_ == "dense"
    small = _flat_bulk(400)
    assert SpectrumTransformer(method, n_components=10).fit(small).eigen_solver_ == "dense"


@pytest.mark.parametrize(
    "params, match",
    [
        ({"n_components": 0}, "n_components"),
        ({"n_components": 61}, "n_components"),
        ({"n_components": 2.5}, "n_components"),
        ({"eigen_solver": "lanczos"}, "eigen_solver"),
    ],
)
def test_partial_bad_parameters(params, match):
    S, _ = known_spectrum(60, 5)
    with pytest.raises(InvalidParameterError, match=match):
        SpectrumTransformer(**params).fit(S)


@pytest.mark.parametrize("method", ["shift", "square", "none"])
def test_partial_ignored_with_a_warning_by_other_methods(method):
    S, _ = known_spectrum(30, 6)
    with pytest.warns(UserWarning, match="ignores it"):
        K = SpectrumTransformer(method, n_components=3).fit_transform(S)
    np.testing.assert_array_equal(K, SpectrumTransformer(method).fit_transform(S))
