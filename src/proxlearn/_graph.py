"""k-nearest-neighbour graphs from a dense distance matrix, shared by every layer.

:func:`knn_adjacency` is the one place where the neighbour lists of the NPK
re-ranking kernel (:mod:`proxlearn.ranking`), the embeddings
(:mod:`proxlearn.manifold`) and the kNN Laplacian of a precomputed similarity
(:mod:`proxlearn.kernel_learning`) are computed: the ``k`` smallest entries of
each row, the point itself excluded, ties broken by index (a stable sort, so the
graph does not depend on the platform's sort). Imports nothing of proxlearn.
"""

from __future__ import annotations

import numpy as np

__all__ = ["knn_adjacency", "knn_indices"]


def knn_indices(D, k: int) -> np.ndarray:
    """``(n, k)`` indices of each row's ``k`` smallest entries of ``D`` (``n x n``),
    the diagonal excluded; ties go to the smaller index."""
    D = np.asarray(D, dtype=np.float64)
    n = D.shape[0]
    masked = D + np.diag(np.full(n, np.inf))
    return np.argsort(masked, axis=1, kind="stable")[:, :k]


def knn_adjacency(D, k: int, *, mutual: bool = False) -> np.ndarray:
    """Symmetric boolean ``n x n`` kNN adjacency of the distances ``D``: ``i ~ j`` when
    either is among the other's ``k`` nearest (``mutual=False``, the union) or both
    are (``mutual=True``). Zero diagonal."""
    nn = knn_indices(D, k)
    n = nn.shape[0]
    A = np.zeros((n, n), dtype=bool)
    A[np.repeat(np.arange(n), k), nn.ravel()] = True
    return (A & A.T) if mutual else (A | A.T)
