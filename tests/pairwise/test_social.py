"""User-similarity kernels of Zhuang 2011 sec. 7.2.2 and the social generator."""

import numpy as np
import pytest

from proxlearn.datasets import make_social_network
from proxlearn.exceptions import InvalidParameterError
from proxlearn.pairwise import (
    SOCIAL_KERNEL_NAMES,
    centroid_rbf_kernel,
    comment_kernel,
    cooccurrence_kernel,
    preprocess_user_kernel,
    social_user_kernels,
    tfidf_cosine_kernel,
)


def test_cooccurrence_counts_shared_items():
    B = np.array([[1, 0, 2], [1, 1, 0], [0, 0, 0]])
    K = cooccurrence_kernel(B)
    np.testing.assert_array_equal(K, [[2, 1, 0], [1, 2, 0], [0, 0, 0]])
    assert cooccurrence_kernel(B, binary=False)[0, 0] == 5


def test_comment_kernel_symmetrises_counts():
    C = np.array([[1, 3], [0, 0]])
    np.testing.assert_array_equal(comment_kernel(C), [[2, 3], [3, 0]])


def test_tfidf_cosine_kernel():
    T = np.array([[2, 0, 1], [1, 1, 0], [0, 0, 0], [0, 3, 0]])
    K = tfidf_cosine_kernel(T)
    idf = np.log(4 / np.array([2, 2, 1]))
    X = T * idf
    u, v = X[0] / np.linalg.norm(X[0]), X[1] / np.linalg.norm(X[1])
    assert K[0, 1] == pytest.approx(u @ v)
    assert K[0, 0] == pytest.approx(1.0) and K[2, 2] == 0.0


def test_centroid_rbf_uses_the_mean_distance():
    F = np.array([[0.0, 0], [2, 0], [0, 3], [0, 5]])
    owner = np.array([0, 0, 1, 1])
    K = centroid_rbf_kernel(F, owner)
    d2 = (1 - 0) ** 2 + (0 - 4) ** 2  # centroids (1, 0) and (0, 4)
    assert K[0, 1] == pytest.approx(np.exp(-d2 / d2))  # sigma = the only distance


def test_preprocess_scales_rows_symmetrises_and_shifts():
    K = np.array([[4.0, 4, 0], [1, 2, 2], [0, 2, 1]])
    out = preprocess_user_kernel(K)
    scaled = K / K.max(axis=1)[:, None]
    sym = (scaled + scaled.T) / 2
    lam = np.linalg.eigvalsh(sym)[0]
    np.testing.assert_allclose(out, sym + max(0, -lam) * np.eye(3))
    assert np.linalg.eigvalsh(out)[0] >= -1e-12


def test_bad_tables():
    with pytest.raises(InvalidParameterError, match="non-negative"):
        cooccurrence_kernel(-np.ones((2, 2)))
    with pytest.raises(InvalidParameterError, match="square"):
        comment_kernel(np.ones((2, 3)))
    with pytest.raises(InvalidParameterError, match="owner"):
        centroid_rbf_kernel(np.ones((3, 2)), np.array([0, 1]))


def test_generator_and_the_seven_kernels():
    net = make_social_network(n_users=80, random_state=0)
    again = make_social_network(n_users=80, random_state=0)
    np.testing.assert_array_equal(net.contacts, again.contacts)
    same = net.community[:, None] == net.community[None, :]
    off = ~np.eye(80, dtype=bool)
    assert net.contacts[same & off].mean() > 5 * net.contacts[~same].mean()
    Ks = social_user_kernels(net)
    assert Ks.shape == (80, 80, len(SOCIAL_KERNEL_NAMES))
    for t in range(Ks.shape[2]):
        K = Ks[:, :, t]
        np.testing.assert_allclose(K, K.T)
        assert np.linalg.eigvalsh(K)[0] >= -1e-9
    # the comment kernel carries the communities, the favourites do not
    within = lambda K: K[same & off].mean() / K[~same].mean()  # noqa: E731
    assert within(Ks[:, :, 2]) > 3 and within(Ks[:, :, 6]) < 1.5
