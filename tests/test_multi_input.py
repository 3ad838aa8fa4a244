"""Stacks of similarity matrices: in-place validation and the Cholesky PSD test."""

import warnings

import numpy as np
import pytest

from proxlearn._multi_input import (
    PSD_TOL,
    check_multi_similarity,
    check_multi_test,
    check_psd_stack,
    psd_violation,
)
from proxlearn.exceptions import (
    AsymmetricSimilarityWarning,
    DissimilarityWarning,
    SimilarityMatrixError,
    TestMatrixError,
)


def _eig_verdict(K):
    """The eigenvalue test the Cholesky test must reproduce."""
    lam = np.linalg.eigvalsh(K)
    return lam[0] < -PSD_TOL * max(1.0, np.abs(lam).max())


def _with_spectrum(lam, seed=0):
    rng = np.random.default_rng(seed)
    Q, _ = np.linalg.qr(rng.normal(size=(lam.size, lam.size)))
    K = (Q * lam) @ Q.T
    return 0.5 * (K + K.T)


def _cases():
    rng = np.random.default_rng(1)
    n = 40
    X = rng.normal(size=(n, 3))
    d2 = ((X[:, None] - X[None]) ** 2).sum(-1)
    E = rng.normal(size=(n, n))
    yield "gaussian", np.exp(-d2 / 4.0)
    yield "rank 3", X @ X.T
    yield "rank 3, scaled 1e-6", 1e-6 * X @ X.T
    yield "rank 3, scaled 1e6", 1e6 * X @ X.T
    yield "zero", np.zeros((n, n))
    yield "indefinite", X @ X.T + 0.5 * (E + E.T)
    yield "one eigenvalue -1e-3", _with_spectrum(np.r_[-1e-3, np.linspace(0.1, 1.0, n - 1)])
    # either side of the threshold -PSD_TOL max(1, ||K||) (||K|| = 10 here)
    yield "just below", _with_spectrum(np.r_[-3 * PSD_TOL * 10, np.linspace(0.0, 10.0, n - 1)])
    yield "just above", _with_spectrum(np.r_[-0.3 * PSD_TOL * 10, np.linspace(0.0, 10.0, n - 1)])
    yield "near singular", _with_spectrum(np.r_[1e-14, 1e-12, np.linspace(1e-3, 1.0, n - 2)])


@pytest.mark.parametrize("label,K", list(_cases()), ids=[c[0] for c in _cases()])
def test_cholesky_test_agrees_with_eigvalsh(label, K):
    got = psd_violation(K)
    assert (got is not None) == _eig_verdict(K)
    if got is not None:  # the reported eigenvalue is the smallest one
        assert got == pytest.approx(np.linalg.eigvalsh(K)[0], rel=1e-6)


def test_check_psd_stack_names_the_first_indefinite_matrix():
    cases = dict(_cases())
    Ks = np.stack([cases["gaussian"], cases["rank 3"], cases["indefinite"],
                   cases["one eigenvalue -1e-3"]], axis=-1)
    check_psd_stack(Ks[:, :, :2])  # PSD: no error
    lam = np.linalg.eigvalsh(cases["indefinite"])[0]
    with pytest.raises(SimilarityMatrixError, match=rf"S\[:, :, 2\] .*{lam:.3g}\). Use X"):
        check_psd_stack(Ks, name="S", hint=". Use X")


def _stack(n=30, m=3, seed=0):
    rng = np.random.default_rng(seed)
    mats = []
    for _ in range(m):
        Z = rng.normal(size=(n, 4))
        mats.append(Z @ Z.T + n * np.eye(n))
    return np.stack(mats, axis=-1)


@pytest.mark.parametrize("layout", ["C", "kernel-major"])
def test_copy_false_returns_the_stack_itself(layout):
    Ks = _stack()
    if layout == "kernel-major":
        Ks = np.moveaxis(np.ascontiguousarray(np.moveaxis(Ks, -1, 0)), 0, -1)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = check_multi_similarity(Ks, copy=False)
    assert out is Ks
    np.testing.assert_array_equal(check_multi_similarity(Ks), Ks)  # copy=True: a copy
    assert check_multi_similarity(Ks) is not Ks


def test_copy_false_symmetrises_into_a_copy_and_keeps_the_input():
    Ks = _stack()
    Ks[0, 1, 1] += 1.0  # asymmetric beyond the silent tolerance
    Ks[2, 5, 2] *= 1.0 + 1e-13  # asymmetric within it: symmetrised silently
    before = Ks.copy()
    with pytest.warns(AsymmetricSimilarityWarning, match=r"X\[:, :, 1\]"):
        out = check_multi_similarity(Ks, copy=False)
    np.testing.assert_array_equal(Ks, before)  # the caller's stack is not written
    assert out is not Ks
    with pytest.warns(AsymmetricSimilarityWarning):
        ref = check_multi_similarity(Ks)
    np.testing.assert_array_equal(out, ref)
    for k in range(3):
        np.testing.assert_array_equal(out[:, :, k], out[:, :, k].T)


def test_copy_false_gives_the_same_errors_and_warnings():
    Ks = _stack()
    bad = Ks.copy()
    bad[3, 4, 2] = np.nan
    with pytest.raises(SimilarityMatrixError, match=r"X\[:, :, 2\] contains NaN"):
        check_multi_similarity(bad, copy=False)
    huge = Ks.copy()
    huge[0, 0, 1] = 1e300
    with pytest.raises(SimilarityMatrixError, match=r"X\[:, :, 1\] has entries up to"):
        check_multi_similarity(huge, copy=False)
    D = np.abs(np.subtract.outer(np.arange(30.0), np.arange(30.0)))  # a distance matrix
    with pytest.warns(DissimilarityWarning, match=r"X\[:, :, 1\] looks like a dissimilarity"):
        check_multi_similarity(np.stack([Ks[:, :, 0], D], axis=-1), copy=False)
    T = Ks[:5].copy()
    assert check_multi_test(T, 30, 3, copy=False) is T
    T[1, 2, 0] = np.inf
    with pytest.raises(SimilarityMatrixError, match=r"X_test\[:, :, 0\] contains inf"):
        check_multi_test(T, 30, 3, copy=False)


@pytest.mark.parametrize("n", [7, 2100])  # one comparison, and tile by tile
def test_is_exactly_symmetric(n):
    from proxlearn._validation import is_exactly_symmetric

    rng = np.random.default_rng(n)
    A = rng.normal(size=(n, n))
    A = A + A.T
    assert is_exactly_symmetric(A)
    A[n - 1, 2] = np.nextafter(A[n - 1, 2], np.inf)  # one entry, one ulp
    assert not is_exactly_symmetric(A)
    assert not is_exactly_symmetric(np.asfortranarray(A))


def test_a_list_of_matrices_is_stacked_on_the_last_axis():
    Ks = _stack()
    mats = [Ks[:, :, k] for k in range(3)]
    np.testing.assert_array_equal(check_multi_similarity(mats), Ks)
    np.testing.assert_array_equal(check_multi_similarity(tuple(mats), copy=False), Ks)
    np.testing.assert_array_equal(check_multi_similarity(Ks.tolist()), Ks)  # nested: one array
    T = Ks[:5]
    np.testing.assert_array_equal(check_multi_test([T[:, :, k] for k in range(3)], 30, 3), T)
    bad = [m.copy() for m in mats]
    bad[2][3, 4] = np.nan
    with pytest.raises(SimilarityMatrixError, match=r"X\[2\] contains NaN"):
        check_multi_similarity(bad)
    with pytest.raises(SimilarityMatrixError, match=r"same n objects; got shapes \[\(4, 4\), \(5, 5\)\]"):
        check_multi_similarity([np.eye(4), np.eye(5)])
    with pytest.raises(TestMatrixError, match="list of 2 similarity matrices .* m = 3"):
        check_multi_test([T[:, :, 0], T[:, :, 1]], 30, 3)
    with pytest.raises(TestMatrixError, match="same n objects"):
        check_multi_test([T[:, :, 0], T[:4, :, 1], T[:, :, 2]], 30, 3)


@pytest.mark.parametrize("X", [[], None, 3.0, np.array(2.0)])
def test_no_matrix_at_all_is_refused_by_name(X):
    with pytest.raises(SimilarityMatrixError, match=r"Ks must be an \(n, n, m\) array.*Give at least one"):
        check_multi_similarity(X, name="Ks")


def test_label_names_a_bad_matrix():
    Ks = _stack()
    Ks[1, 2, 1] = np.inf
    with pytest.raises(SimilarityMatrixError, match=r"matrix 1 \('b'\) contains inf"):
        check_multi_similarity(Ks, label=lambda k: f"matrix {k} ({'abc'[k]!r})")
    with pytest.raises(SimilarityMatrixError, match=r"matrix 1 \('b'\) contains inf"):
        check_multi_similarity(Ks, copy=False, label=lambda k: f"matrix {k} ({'abc'[k]!r})")


def test_a_list_of_rows_is_one_matrix():
    """A list of 1-D arrays is the rows of one matrix (m = 1), as before lists of
    matrices were read."""
    K = _stack()[:, :, 0]
    np.testing.assert_array_equal(check_multi_similarity(list(K)), K[:, :, None])
    np.testing.assert_array_equal(check_multi_test(list(K[:4]), 30, 1), K[:4, :, None])
