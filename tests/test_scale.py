"""proxlearn._scale: the one scale that scale-free defaults divide by."""

import numpy as np
import pytest

from proxlearn._scale import similarity_scale, similarity_scales
from proxlearn.exceptions import SimilarityMatrixError


def test_scale_is_the_mean_diagonal_and_is_homogeneous():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(12, 4))
    S = X @ X.T
    c = similarity_scale(S)
    assert c == pytest.approx(np.trace(S) / 12)
    assert similarity_scale(7.5 * S) == pytest.approx(7.5 * c)


def test_zero_diagonal_falls_back_to_the_positive_spectrum():
    rng = np.random.default_rng(1)
    A = rng.normal(size=(8, 8))
    S = A + A.T
    np.fill_diagonal(S, 0.0)
    c = similarity_scale(S)
    assert c == pytest.approx(np.maximum(np.linalg.eigvalsh(S), 0).sum() / 8)
    assert similarity_scale(3.0 * S) == pytest.approx(3.0 * c)


def test_negative_semidefinite_matrix_is_refused_with_its_name():
    with pytest.raises(SimilarityMatrixError, match=r"X\[:, :, 1\].*normalize=False"):
        similarity_scales(np.stack([np.eye(3), -np.eye(3)], axis=2))


def test_stack_scales_each_matrix():
    Ss = np.stack([np.eye(4), 5 * np.eye(4)], axis=2)
    np.testing.assert_allclose(similarity_scales(Ss), [1.0, 5.0])
