"""alignf (Zhuang 2011 Theorem 7.35) against a cvxpy solve of its QP."""

import cvxpy as cp
import numpy as np
import pytest

from proxlearn.exceptions import InvalidParameterError, SimilarityMatrixError
from proxlearn.metrics import centered_alignment
from proxlearn.mkl import alignf, check_kernel_stack, check_multi_similarity


def _kernels(n=20, m=4, seed=0):
    rng = np.random.default_rng(seed)
    y = np.where(rng.random(n) > 0.5, 1.0, -1.0)
    Ks = []
    for k in range(m):
        X = rng.normal(size=(n, 3))
        X[:, 0] += (k % 2) * 1.5 * y  # odd kernels carry the label
        Ks.append(X @ X.T)
    return np.stack(Ks, axis=-1), np.outer(y, y)


def _center(K):
    H = np.eye(len(K)) - 1.0 / len(K)
    return H @ K @ H


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_weights_solve_the_qp(seed):
    Ks, Y = _kernels(seed=seed)
    m = Ks.shape[2]
    C = [_center(Ks[:, :, k]) for k in range(m)]
    M = np.array([[np.sum(C[k] * C[l]) for l in range(m)] for k in range(m)])
    a = np.array([np.sum(C[k] * Y) for k in range(m)])
    v = cp.Variable(m, nonneg=True)
    cp.Problem(cp.Minimize(cp.quad_form(v, cp.psd_wrap(M)) - 2 * a @ v)).solve(solver="CLARABEL")
    ref = v.value / np.linalg.norm(v.value)
    theta = alignf(Ks, Y)
    np.testing.assert_allclose(theta, ref, atol=1e-5)
    assert np.linalg.norm(theta) == pytest.approx(1.0)
    assert alignf(list(np.moveaxis(Ks, -1, 0)), Y, normalize="l1").sum() == pytest.approx(1.0)


def test_combination_is_at_least_as_aligned_as_any_kernel():
    Ks, Y = _kernels(seed=3)
    theta = alignf(Ks, Y)
    combined = np.tensordot(Ks, theta, axes=([2], [0]))
    best_single = max(centered_alignment(Ks[:, :, k], Y) for k in range(Ks.shape[2]))
    assert centered_alignment(combined, Y) >= best_single - 1e-9
    assert theta[1] > theta[0] and theta[3] > theta[2]  # the label-carrying kernels


def test_kernel_stack_convention_and_errors():
    Ks, Y = _kernels(n=6, m=2)
    assert check_multi_similarity(Ks).shape == (6, 6, 2)
    assert check_multi_similarity([Ks[:, :, 0], Ks[:, :, 1]]).shape == (6, 6, 2)
    bad = [Ks[:, :, 0], Ks[:, :, 1].copy()]
    bad[1][2, 3] = np.nan
    with pytest.raises(SimilarityMatrixError, match=r"kernels\[1\]"):
        alignf(bad, Y)
    with pytest.raises(SimilarityMatrixError, match="same n objects"):
        alignf([np.eye(3), np.eye(4)], Y)
    with pytest.raises(SimilarityMatrixError, match="empty"):
        alignf([], Y)
    with pytest.raises(InvalidParameterError, match="positively aligned"):
        alignf(Ks, -(Ks[:, :, 0] + Ks[:, :, 1]))  # PSD kernels: <K_c, -K_c> <= 0


def test_check_kernel_stack_is_a_deprecated_alias_of_check_multi_similarity():
    Ks, _ = _kernels(n=6, m=2)
    with pytest.warns(FutureWarning, match="check_multi_similarity"):
        out = check_kernel_stack([Ks[:, :, 0], Ks[:, :, 1]])
    np.testing.assert_array_equal(out, Ks)
    asym = Ks.copy()
    asym[0, 1, 0] += 1.0  # kernels are used as given: not symmetrised, no warning
    with pytest.warns(FutureWarning):
        np.testing.assert_array_equal(check_kernel_stack(asym), asym)
    with pytest.warns(FutureWarning), pytest.raises(SimilarityMatrixError, match="empty"):
        check_kernel_stack([])
