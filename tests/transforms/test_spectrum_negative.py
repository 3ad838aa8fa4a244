"""Issue #19: clip / flip from the eigenpairs with ``lambda <= tol`` only.

``SpectrumTransformer(eigen_solver="auto")`` (the default) on ``n >=
AUTO_NEGATIVE_MIN_N`` computes every eigenvalue but only the eigenvectors of the
eigenvalues ``<= tol_`` when there are at most ``AUTO_NEGATIVE_FRACTION * n``
of them; kernel, test map and folded coefficients must equal the full
decomposition's (``eigen_solver="dense"``). Small matrices take the path by
lowering ``AUTO_NEGATIVE_MIN_N`` (``forced``).
"""

import pickle
from contextlib import contextmanager
from unittest import mock

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose, assert_array_equal

import proxlearn.transforms._spectrum as spectrum_module
from proxlearn.transforms import SpectrumTransformer
from proxlearn.transforms._spectrum import AUTO_NEGATIVE_FRACTION, AUTO_NEGATIVE_MIN_N

# negative definite test matrices look like dissimilarities to the validator
pytestmark = pytest.mark.filterwarnings("ignore::proxlearn.exceptions.DissimilarityWarning")


#: the largest count of eigenvalues <= tol that takes the partial route at n = 60
LIMIT_60 = int(AUTO_NEGATIVE_FRACTION * 60)


@contextmanager
def forced():
    """The negative-eigenpair path for every n >= 2."""
    with mock.patch.object(spectrum_module, "AUTO_NEGATIVE_MIN_N", 2):
        yield


def with_spectrum(lam, seed=0):
    """A symmetric matrix with the eigenvalues ``lam`` (Haar-random eigenvectors)."""
    lam = np.asarray(lam, dtype=float)
    rng = np.random.default_rng(seed)
    Q = np.linalg.qr(rng.standard_normal((lam.size, lam.size)))[0]
    S = (Q * lam) @ Q.T
    return (S + S.T) / 2


def spectrum(n, n_neg, seed=0, n_zero=0):
    """``n_neg`` negative, ``n_zero`` exactly zero and the rest positive eigenvalues."""
    rng = np.random.default_rng(seed)
    return np.concatenate([-rng.uniform(0.05, 2.0, n_neg), np.zeros(n_zero),
                           rng.uniform(0.01, 5.0, n - n_neg - n_zero)])


def assert_same_as_dense(S, method, tol=None, seed=1, rtol=1e-10):
    """Fit auto and dense, compare everything; return the auto transformer."""
    dense = SpectrumTransformer(method, eigen_solver="dense", tol=tol).fit(S)
    auto = SpectrumTransformer(method, tol=tol).fit(S)
    scale = max(np.abs(S).max(), 1e-300)
    assert auto.tol_ == pytest.approx(dense.tol_, rel=1e-10, abs=1e-300)
    assert auto.n_negative_ == dense.n_negative_
    assert_allclose(auto.eigenvalues_, dense.eigenvalues_, rtol=0, atol=1e-12 * scale)
    assert_allclose(auto.modified_eigenvalues_, dense.modified_eigenvalues_, rtol=0,
                    atol=1e-12 * scale)
    K = dense.kernel_
    assert_allclose(auto.kernel_, K, rtol=0, atol=rtol * scale)
    assert_array_equal(auto.kernel_, auto.kernel_.T)
    rng = np.random.default_rng(seed)
    S_test = rng.standard_normal((7, len(S))) * scale
    assert_allclose(auto.transform(S_test), dense.transform(S_test), rtol=0,
                    atol=rtol * scale * len(S))
    V = rng.standard_normal((len(S), 3))
    assert_allclose(auto.transform_coef(V), dense.transform_coef(V), rtol=0, atol=rtol * len(S))
    return auto


@pytest.mark.parametrize("method", ["clip", "flip"])
@pytest.mark.parametrize("n_neg", [0, 1, 3, LIMIT_60])
def test_few_negative_equals_full_decomposition(method, n_neg):
    S = with_spectrum(spectrum(60, n_neg, seed=n_neg))
    with forced():
        auto = assert_same_as_dense(S, method)
    assert auto.eigen_solver_ == "negative"
    assert auto.eigenvectors_.shape == (60, n_neg)
    assert auto.P_ is None  # applied as I + V diag(m - 1) V^T, never formed
    # the computed vectors are eigenvectors of the lowest eigenvalues
    V = auto.eigenvectors_
    assert_allclose(S @ V, V * auto.eigenvalues_[:n_neg], atol=1e-12 * np.abs(S).max())


@pytest.mark.parametrize("method", ["clip", "flip"])
@pytest.mark.parametrize("n_neg", [LIMIT_60 + 1, 30, 45, 60])
def test_many_negative_falls_back_to_all_eigenvectors(method, n_neg):
    """Above ``AUTO_NEGATIVE_FRACTION * n`` wanted pairs every eigenvector is
    computed (the dense decomposition's work) and the result is the same."""
    S = with_spectrum(spectrum(60, n_neg, seed=n_neg))
    with forced():
        auto = assert_same_as_dense(S, method)
    assert auto.eigen_solver_ == "dense"
    assert auto.eigenvectors_.shape == (60, 60)
    assert auto.P_ is not None


@pytest.mark.parametrize("method", ["clip", "flip"])
def test_zero_eigenvalues_count_with_the_negative_ones(method):
    """Clip and flip drop ``|lambda| <= tol_``: those eigenvectors are wanted too
    (``P`` misses them), and a larger user ``tol`` drops small positive ones."""
    S = with_spectrum(spectrum(60, 2, seed=4, n_zero=5))
    with forced():
        auto = assert_same_as_dense(S, method)
        assert auto.eigenvectors_.shape[1] == 7
        big = assert_same_as_dense(S, method, tol=0.5)
    assert big.eigenvectors_.shape[1] == int(np.sum(np.linalg.eigvalsh(S) <= 0.5))


@pytest.mark.parametrize("method", ["clip", "flip"])
@pytest.mark.parametrize("test_transform", ["consistent", "raw"])
def test_training_rows_map_to_kernel_rows(method, test_transform):
    S = with_spectrum(spectrum(50, 4, seed=7))
    with forced():
        t = SpectrumTransformer(method, test_transform=test_transform)
        K = t.fit_transform(S)
    assert t.eigen_solver_ == "negative"
    if test_transform == "raw":
        assert_array_equal(t.transform(S), S)
    else:
        assert_allclose(t.transform(S), K, rtol=0, atol=1e-12 * np.abs(S).max())
    assert np.linalg.eigvalsh(K).min() >= -1e-12 * np.abs(S).max()


def test_auto_rule_picks_each_path():
    """At the real thresholds: full decomposition below ``AUTO_NEGATIVE_MIN_N``
    or above ``AUTO_NEGATIVE_FRACTION * n`` wanted pairs, the negative path
    otherwise; ``"dense"`` always decomposes fully."""
    n = AUTO_NEGATIVE_MIN_N
    limit = int(AUTO_NEGATIVE_FRACTION * n)
    at_limit = with_spectrum(spectrum(n, limit, seed=1))
    over = with_spectrum(spectrum(n, limit + 1, seed=2))
    small = with_spectrum(spectrum(n - 1, 3, seed=3))
    assert SpectrumTransformer().fit(at_limit).eigen_solver_ == "negative"
    assert SpectrumTransformer("flip").fit(at_limit).eigenvectors_.shape == (n, limit)
    assert SpectrumTransformer().fit(over).eigen_solver_ == "dense"
    assert SpectrumTransformer().fit(small).eigen_solver_ == "dense"
    assert SpectrumTransformer(eigen_solver="dense").fit(at_limit).eigen_solver_ == "dense"
    for solver in ("arpack", "randomized"):  # without n_components: the route of "auto"
        assert SpectrumTransformer(eigen_solver=solver).fit(at_limit).eigen_solver_ == "negative"
    # shift needs the smallest eigenvalue only, square no eigenvalue at all
    assert SpectrumTransformer("shift").fit(at_limit).eigenvectors_ is None
    assert SpectrumTransformer("square").fit(at_limit).eigen_solver_ is None


@pytest.mark.parametrize("method", ["shift", "square", "none"])
def test_other_methods_do_not_depend_on_the_eigen_solver(method):
    S = with_spectrum(spectrum(40, 3, seed=5))
    S_test = np.random.default_rng(0).standard_normal((4, 40))
    with forced():
        a = SpectrumTransformer(method).fit(S)
    d = SpectrumTransformer(method, eigen_solver="dense").fit(S)
    assert_array_equal(a.kernel_, d.kernel_)
    assert_array_equal(a.transform(S_test), d.transform(S_test))


@pytest.mark.parametrize("order", ["C", "F"])
def test_callers_matrix_untouched_and_pickle(order):
    S = np.array(with_spectrum(spectrum(40, 3, seed=6)), order=order)
    keep = S.copy()
    with forced():
        t = SpectrumTransformer("flip").fit(S)
    assert_array_equal(S, keep)
    S[:] = 0.0  # the fitted transformer owns its copy
    t2 = pickle.loads(pickle.dumps(t))
    assert_array_equal(t2.kernel_, t.kernel_)
    assert_allclose(t2.transform(keep), t.kernel_, rtol=0, atol=1e-12 * np.abs(keep).max())


def test_all_zero_and_psd_matrices():
    with forced():
        Z = SpectrumTransformer("clip").fit(np.zeros((10, 10)))
        assert Z.eigen_solver_ == "dense" and not Z.kernel_.any()  # every eigenvalue wanted
        S = with_spectrum(spectrum(30, 0, seed=8))
        P = SpectrumTransformer("flip").fit(S)
    assert P.eigenvectors_.shape == (30, 0)
    assert_array_equal(P.kernel_, S)
    assert_array_equal(P.transform(S[:3]), S[:3])


@settings(max_examples=30, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    n=st.integers(2, 40),
    neg_frac=st.floats(0.0, 1.0),
    log_scale=st.floats(-3, 3),
    method=st.sampled_from(["clip", "flip"]),
)
def test_negative_path_property(seed, n, neg_frac, log_scale, method):
    """Any spectrum: training rows given as test rows map to the rows of the
    training kernel, which equals the full decomposition's."""
    lam = spectrum(n, int(round(neg_frac * n)), seed=seed) * 10.0**log_scale
    S = with_spectrum(lam, seed=seed)
    with forced():
        t = SpectrumTransformer(method)
        K = t.fit_transform(S)
    scale = np.abs(S).max()
    assert_allclose(t.transform(S), K, rtol=0, atol=1e-11 * n * scale)
    K_dense = SpectrumTransformer(method, eigen_solver="dense").fit_transform(S)
    assert_allclose(K, K_dense, rtol=0, atol=1e-11 * n * scale)
