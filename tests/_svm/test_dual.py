"""The bordered solve of the SVM's free set (_svm._dual.bordered_solve): the
Cholesky + Schur complement route and the LAPACK sysv fallback solve the same system."""

import numpy as np
import pytest

from proxlearn._svm import _dual
from proxlearn._svm._dual import bordered_solve


def _bordered(A):
    k = A.shape[0]
    M = np.zeros((k + 1, k + 1))
    M[:-1, :-1] = A
    M[:-1, -1] = M[-1, :-1] = 1.0
    return M


def _psd(k, rank, seed):
    rng = np.random.default_rng(seed)
    G = rng.normal(size=(k, rank))
    return G @ G.T


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("rank", [None, 5])  # positive definite, and singular (rank 5)
def test_bordered_solve_solves_the_bordered_system(seed, rank):
    k = 30
    A = _psd(k, 2 * k if rank is None else rank, seed)
    rng = np.random.default_rng(seed + 10)
    r, s = rng.normal(size=k), float(rng.normal())
    A_in = A.copy()
    got = bordered_solve(A, r, s)
    np.testing.assert_array_equal(A, A_in)  # the caller's block is not overwritten
    M = _bordered(A)
    if rank is None:  # nonsingular: the unique solution
        x, b = got
        want = np.linalg.solve(M, np.r_[r, s])
        np.testing.assert_allclose(np.r_[x, b], want, rtol=1e-8, atol=1e-10)
    else:  # singular: LAPACK's sysv (the old route) decides, or reports it singular
        if got is not None:
            x, b = got
            assert np.all(np.isfinite(x)) and np.isfinite(b)


@pytest.mark.parametrize("seed", [0, 1])
def test_bordered_solve_takes_several_right_hand_sides(seed):
    k, r = 25, 4
    A = _psd(k, 2 * k, seed) + np.eye(k)
    rng = np.random.default_rng(seed)
    R, s = rng.normal(size=(k, r)), rng.normal(size=r)
    X, b = bordered_solve(A, R, s)
    assert X.shape == (k, r) and b.shape == (r,)
    want = np.linalg.solve(_bordered(A), np.vstack([R, s]))
    np.testing.assert_allclose(np.vstack([X, b]), want, rtol=1e-8, atol=1e-10)


def test_bordered_solve_falls_back_to_sysv_on_an_indefinite_block(monkeypatch):
    """An indefinite (or numerically singular) block is not Cholesky-factorable: the
    answer is sysv's on the bordered matrix, as before the Cholesky route."""
    rng = np.random.default_rng(3)
    k = 20
    A = _psd(k, 2 * k, 3)
    A -= (np.linalg.eigvalsh(A)[0] + 1.0) * np.eye(k)  # smallest eigenvalue -1
    assert np.linalg.eigvalsh(A)[0] < 0
    r, s = rng.normal(size=k), 0.7
    x, b = bordered_solve(A, r, s)
    np.testing.assert_allclose(np.r_[x, b], np.linalg.solve(_bordered(A), np.r_[r, s]),
                               rtol=1e-8, atol=1e-10)
    # a pivot ratio above the threshold sends a positive definite block to sysv too
    A = _psd(k, 2 * k, 4) + 1e-3 * np.eye(k)
    monkeypatch.setattr(_dual, "CHOLESKY_MAX_RATIO", 1.0)
    x, b = bordered_solve(A, r, s)
    np.testing.assert_allclose(np.r_[x, b], np.linalg.solve(_bordered(A), np.r_[r, s]),
                               rtol=1e-7, atol=1e-9)
