"""The shared kNN adjacency (proxlearn._graph)."""

import numpy as np

from proxlearn._graph import knn_adjacency, knn_indices


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
