"""Shift from ``lambda_min`` alone (issue 37, item 6).

``SpectrumTransformer("shift")`` with a test transform that needs no eigenvector
("consistent", "raw") computes only the smallest eigenvalue: Lanczos on a budget
of products, then one LAPACK eigenvalue (:func:`proxlearn._linalg.lowest_eigenvalue`).
The shift must equal the full eigendecomposition's to ``n * eps * max|lambda|``
(the library's zero-eigenvalue tolerance, :func:`default_tol`), on indefinite,
near-singular and PSD matrices, by either route; the attributes only the full
decomposition gives are computed on access and equal the full fit's.
"""

import pickle
from contextlib import contextmanager
from unittest import mock

import numpy as np
import pytest
import scipy.linalg
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose, assert_array_equal

import proxlearn._linalg as linalg_module
import proxlearn.transforms._spectrum as spectrum_module
from proxlearn._linalg import lowest_eigenvalue
from proxlearn.transforms import SpectrumTransformer
from proxlearn.transforms._spectrum import default_tol

pytestmark = pytest.mark.filterwarnings("ignore::proxlearn.exceptions.DissimilarityWarning")


def with_spectrum(lam, seed=0):
    """A symmetric matrix with the eigenvalues ``lam`` (Haar-random eigenvectors)."""
    lam = np.asarray(lam, dtype=float)
    Q = np.linalg.qr(np.random.default_rng(seed).standard_normal((lam.size, lam.size)))[0]
    S = (Q * lam) @ Q.T
    return (S + S.T) / 2


def family_spectrum(kind, n, seed):
    rng = np.random.default_rng(seed)
    pos = rng.uniform(0.01, 5.0, n)
    if kind == "indefinite":
        k = int(rng.integers(1, n))
        pos[:k] = -rng.uniform(0.05, 3.0, k)
    elif kind == "near-singular":  # PSD up to rounding: lambda_min within 1e-14 of 0
        pos[0] = float(rng.choice([0.0, 1e-15, -1e-15, 1e-14]))
    elif kind == "near-singular-negative":  # a tiny negative eigenvalue
        pos[0] = -1e-12
    return pos  # "psd": all positive


@contextmanager
def budget(total):
    """Every shift fit gets a Lanczos budget of ``total`` products (0: LAPACK)."""
    with mock.patch.object(spectrum_module, "SHIFT_ARPACK_MIN_BUDGET", total), \
            mock.patch.object(spectrum_module, "SHIFT_ARPACK_BUDGET", 0.0):
        yield


def dense_shift(S):
    """The full route's shift: every eigenvalue of S by LAPACK (divide and conquer)."""
    lam = scipy.linalg.eigh(S, eigvals_only=True, driver="evd")
    return max(0.0, -float(lam[0])), default_tol(lam)


@settings(max_examples=40, deadline=None)
@given(kind=st.sampled_from(["indefinite", "near-singular", "near-singular-negative", "psd"]),
       n=st.integers(3, 60), seed=st.integers(0, 2**31 - 1),
       scale=st.sampled_from([1e-6, 1.0, 1e5]), products=st.sampled_from([0, 4, 1000]))
def test_lambda_min_route_equals_the_dense_shift(kind, n, seed, scale, products):
    S = scale * with_spectrum(family_spectrum(kind, n, seed), seed)
    expected, tol = dense_shift(S)
    with budget(products):  # 4: Lanczos rarely converges, shift-invert takes over
        st_ = SpectrumTransformer("shift").fit(S)
    # the route asked for ran (Lanczos may hand over to shift-invert, then to LAPACK)
    assert st_.eigen_solver_ in (("arpack", "shift-invert", "tridiagonal") if products
                                 else ("tridiagonal",))
    assert abs(st_.shift_ - expected) <= tol
    assert st_.shift_ >= 0.0
    K = st_.kernel_
    assert_array_equal(K - np.diag(np.diag(K)), S - np.diag(np.diag(S)))
    assert_array_equal(np.diag(K), np.diag(S) + st_.shift_)


@pytest.mark.parametrize("kind", ["indefinite", "near-singular", "psd"])
def test_lowest_eigenvalue_both_routes(kind):
    S = with_spectrum(family_spectrum(kind, 80, 3), 3)
    lam = scipy.linalg.eigh(S, eigvals_only=True, driver="evd")
    for max_matvec in (0, 2000):
        value, solver = lowest_eigenvalue(S.copy(), max_matvec=max_matvec)
        assert abs(value - lam[0]) <= default_tol(lam)
        if max_matvec == 0:
            assert solver == "tridiagonal"


def test_lanczos_is_used_on_a_separated_bottom():
    # one eigenvalue far below a bulk: Lanczos converges in a few products
    lam = np.concatenate([[-50.0], np.linspace(1.0, 2.0, 199)])
    S = with_spectrum(lam, 1)
    st_ = SpectrumTransformer("shift").fit(S)
    assert st_.eigen_solver_ == "arpack"
    assert abs(st_.shift_ - 50.0) <= default_tol(lam)


def test_budget_fallback_on_a_flat_spectrum():
    # the bottom of the spectrum a cluster 1e-10 wide: Lanczos cannot resolve
    # lambda_min to machine precision within max(40, n / 50) products
    n = 300
    lam = np.concatenate([-1.0 - 1e-10 * np.arange(150), 1.0 + 1e-10 * np.arange(150)])
    S = with_spectrum(lam, 2)
    expected, tol = dense_shift(S)
    calls = []
    real = spectrum_module.lowest_eigenvalue

    def spy(A, **kw):
        calls.append(kw["max_matvec"])
        return real(A, **kw)

    with mock.patch.object(spectrum_module, "lowest_eigenvalue", spy):
        st_ = SpectrumTransformer("shift").fit(S)
    assert calls == [max(spectrum_module.SHIFT_ARPACK_MIN_BUDGET,
                         int(spectrum_module.SHIFT_ARPACK_BUDGET * n))]
    # the budget's fallback: shift-invert below a certified shift (LAPACK after it)
    assert st_.eigen_solver_ in ("shift-invert", "tridiagonal")
    assert abs(st_.shift_ - expected) <= tol


def semicircle(n, seed):
    """A symmetric Gaussian matrix: its lowest eigenvalues crowd at the edge of a
    semicircle (the noisy benchmark matrix's bottom), where Lanczos is slow."""
    Z = np.random.default_rng(seed).standard_normal((n, n))
    return (Z + Z.T) / 2


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_shift_invert_on_a_crowded_bottom(seed):
    # Lanczos does not converge within the budget on the semicircle's edge; the
    # fit takes shift-invert (not LAPACK) and its shift makes the kernel PSD to
    # the full decomposition's tolerance
    S = semicircle(400, seed)
    expected, tol = dense_shift(S)
    st_ = SpectrumTransformer("shift").fit(S)
    assert st_.eigen_solver_ == "shift-invert"
    assert abs(st_.shift_ - expected) <= tol
    assert np.linalg.eigvalsh(st_.kernel_)[0] >= -tol


def test_shift_invert_refuses_an_estimate_above_lambda_min():
    # a spent Lanczos run whose vectors miss the bottom eigenvector: the
    # Rayleigh-Ritz estimate is lambda_2, every shift tried lies above lambda_min,
    # no Cholesky factor exists, and the route gives up (LAPACK answers)
    lam = np.concatenate([[-3.0], np.linspace(-1.0, 2.0, 59)])
    Q = np.linalg.qr(np.random.default_rng(7).standard_normal((60, 60)))[0]
    S = (Q * lam) @ Q.T
    S = (S + S.T) / 2
    history = [(Q[:, j], S @ Q[:, j]) for j in range(1, 11)]
    assert linalg_module._lowest_by_shift_invert(S, history, 100) is None
    history = [(Q[:, j], S @ Q[:, j]) for j in range(0, 10)]
    assert abs(linalg_module._lowest_by_shift_invert(S, history, 100) + 3.0) <= default_tol(lam)


@pytest.mark.parametrize("tol", [None, 0.3])
@pytest.mark.parametrize("test_transform", ["consistent", "raw"])
def test_spectrum_attributes_on_access_equal_the_full_fit(tol, test_transform):
    S = with_spectrum(family_spectrum("indefinite", 50, 4), 4)
    # what the fit computed before: every eigenvalue, no vectors (dsyevd)
    lam = scipy.linalg.eigh(S, eigvals_only=True, driver="evd")
    tol_ = default_tol(lam) if tol is None else tol
    lazy = SpectrumTransformer("shift", test_transform=test_transform, tol=tol).fit(S)
    assert lazy.eigenvectors_ is None and lazy.P_ is None
    assert "eigenvalues_" not in vars(lazy)  # not computed by fit
    restored = pickle.loads(pickle.dumps(lazy))
    for st_ in (lazy, restored):
        assert_array_equal(st_.eigenvalues_, lam)
        assert st_.tol_ == tol_
        assert st_.n_negative_ == np.count_nonzero(lam < -tol_)
        assert_array_equal(st_.modified_eigenvalues_, lam + st_.shift_)
        assert_allclose(st_.modified_eigenvalues_, lam - lam[0], rtol=0, atol=default_tol(lam))
    # the full fit (every eigenpair, for the "linear" map) agrees to rounding
    full = SpectrumTransformer("shift", test_transform="linear", tol=tol).fit(S)
    assert_allclose(lazy.eigenvalues_, full.eigenvalues_, rtol=0, atol=default_tol(lam))
    assert lazy.n_negative_ == full.n_negative_
    S_test = np.random.default_rng(0).standard_normal((3, 50))
    assert_array_equal(lazy.transform(S_test), S_test)  # both maps: rows as given


def test_refit_with_another_method_replaces_the_on_demand_attributes():
    S = with_spectrum(family_spectrum("indefinite", 40, 5), 5)
    st_ = SpectrumTransformer("shift").fit(S)
    st_.set_params(method="clip").fit(S)
    assert st_.eigen_solver_ == "dense" and st_.shift_ == 0.0
    assert_array_equal(st_.eigenvalues_,
                       SpectrumTransformer("clip").fit(S).eigenvalues_)
    assert not hasattr(SpectrumTransformer("shift"), "eigenvalues_")  # unfitted
