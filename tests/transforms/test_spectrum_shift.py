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
       scale=st.sampled_from([1e-6, 1.0, 1e5]), lanczos=st.booleans())
def test_lambda_min_route_equals_the_dense_shift(kind, n, seed, scale, lanczos):
    S = scale * with_spectrum(family_spectrum(kind, n, seed), seed)
    expected, tol = dense_shift(S)
    with budget(1000 if lanczos else 0):
        st_ = SpectrumTransformer("shift").fit(S)
    # the route asked for ran (Lanczos may still hand over to LAPACK: never the reverse)
    assert st_.eigen_solver_ in (("arpack", "tridiagonal") if lanczos else ("tridiagonal",))
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
    # lambda_min to machine precision within max(100, n / 20) products
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
    assert st_.eigen_solver_ == "tridiagonal"
    assert abs(st_.shift_ - expected) <= tol


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
