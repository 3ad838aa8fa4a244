"""The shared kNN graphs and Laplacians (proxlearn._graph)."""

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components

from proxlearn._graph import (
    edge_pairs,
    feature_neighbours,
    join_components,
    knn_adjacency,
    knn_indices,
    laplacian,
    neighbour_adjacency,
)


def test_neighbours_by_brute_force_with_ties_to_the_smaller_index():
    rng = np.random.default_rng(0)
    X = rng.integers(0, 4, size=(30, 2)).astype(float)  # many tied distances
    D = ((X[:, None] - X[None]) ** 2).sum(-1)
    nn = knn_indices(D, 4)
    for i in range(30):
        order = sorted((D[i, j], j) for j in range(30) if j != i)
        assert list(nn[i]) == [j for _, j in order[:4]]
    A, M = knn_adjacency(D, 4), knn_adjacency(D, 4, mutual=True)
    for i in range(30):
        for j in range(30):
            a, b = j in nn[i], i in nn[j]
            assert A[i, j] == (a or b) and M[i, j] == (a and b)
    assert not A.diagonal().any() and (A == A.T).all() and (M <= A).all()


def _points(seed=0, n=25):
    X = np.random.default_rng(seed).normal(size=(n, 2))
    return np.r_[X, [[40.0, 40.0]], X[:2]]  # a far outlier and two duplicates


def test_dense_and_sparse_adjacency_are_the_same_graph():
    X = _points()
    nn = feature_neighbours(X, 3)
    for mutual in (False, True):
        for isolated in ("isolated", "own-list"):
            A = neighbour_adjacency(nn, mutual=mutual, isolated=isolated)
            S = neighbour_adjacency(nn, mutual=mutual, isolated=isolated, sparse=True)
            assert sp.issparse(S) and S.dtype == np.float64
            np.testing.assert_array_equal(S.toarray() > 0, A)
    lonely = 25  # the outlier is nobody's neighbour: isolated in the mutual graph
    assert not neighbour_adjacency(nn, mutual=True)[lonely].any()
    own = neighbour_adjacency(nn, mutual=True, isolated="own-list")
    assert set(np.flatnonzero(own[lonely])) == set(nn[lonely])
    assert (own == own.T).all() and not own.diagonal().any()


def test_feature_neighbours_self_rules_with_duplicate_rows():
    X = _points()
    D = np.sqrt(((X[:, None] - X[None]) ** 2).sum(-1))
    idx, dist = feature_neighbours(X, 4, return_distance=True)
    assert not (idx == np.arange(len(X))[:, None]).any()  # never itself
    np.testing.assert_allclose(dist, np.take_along_axis(D, idx, axis=1), atol=1e-12)
    np.testing.assert_allclose(np.sort(dist, axis=1), np.sort(D + np.diag(np.full(len(X), np.inf)),
                                                              axis=1)[:, :4], atol=1e-12)
    first = feature_neighbours(X, 4, exclude_self="first")
    assert first.shape == (len(X), 4)
    # a duplicate pair: the first rule may keep the row itself instead of its twin
    for a, b in ((0, 26), (1, 27)):
        assert b in idx[a] and a in idx[b]
        assert {a, b} & set(first[a]) and {a, b} & set(first[b])


def test_laplacian_dense_and_sparse_both_kinds():
    W = neighbour_adjacency(feature_neighbours(_points(), 3)).astype(float)
    L = laplacian(W)
    np.testing.assert_array_equal(L, np.diag(W.sum(1)) - W)
    np.testing.assert_array_equal(laplacian(sp.csr_matrix(W)).toarray(), L)
    N = laplacian(W, normalized=True)
    d = W.sum(1)
    np.testing.assert_allclose(N, np.eye(len(W)) - W / np.sqrt(np.outer(d, d)), atol=1e-15)
    np.testing.assert_allclose(laplacian(sp.csr_matrix(W), normalized=True).toarray(), N,
                               atol=1e-15)


def test_join_components_adds_the_shortest_links_only():
    X = np.r_[np.arange(5.0), 100.0 + np.arange(5.0), 300.0 + np.arange(4.0)][:, None]
    D = np.abs(X - X.T)
    W = knn_adjacency(D, 2)
    assert connected_components(sp.csr_array(W), directed=False)[0] == 3
    J = join_components(W, D)
    assert connected_components(sp.csr_array(J), directed=False)[0] == 1
    assert (J >= W).all() and (J == J.T).all() and not J.diagonal().any()
    added = {tuple(map(int, p)) for p in edge_pairs(J)} - {tuple(map(int, p))
                                                         for p in edge_pairs(W)}
    assert added == {(4, 5), (9, 10)}  # the shortest links between the components, only
    assert join_components(J, D) is J
    assert edge_pairs(J).tolist() == sorted(edge_pairs(J).tolist())


def test_unknown_options_are_refused():
    with pytest.raises(ValueError, match="exclude_self"):
        feature_neighbours(_points(), 2, exclude_self="last")
    with pytest.raises(ValueError, match="isolated"):
        neighbour_adjacency(np.zeros((3, 1), dtype=int), mutual=True, isolated="drop")
