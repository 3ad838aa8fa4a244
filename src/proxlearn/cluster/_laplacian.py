"""The sparse k-nearest-neighbour graph Laplacian of non-parametric kernel learning.

=========================  ==========================================================
function                   what it builds
=========================  ==========================================================
:func:`knn_graph`          0/1 adjacency ``W``: ``W_ij = 1`` iff ``i`` and ``j`` are
                           among each other's ``k`` nearest neighbours (mutual kNN)
:func:`knn_laplacian`      ``L = I - D^{-1/2} W D^{-1/2}`` (eq. 3.3) or ``D - W``
                           (``kind="unnormalized"``), sparse CSR
=========================  ==========================================================

References
----------
J. Zhuang, PhD thesis (NTU, 2011), section 3.1, eqs. 3.2-3.3 (the
locality-preserving regulariser ``tr(L K)`` with the normalised Laplacian) and
section 3.3.1 (the sparse kNN graph: "S_ij = 1 iff i and j are among each
other's k nearest neighbours").

Choices the thesis leaves open (docs/methods.md, "Kernel-learning reference
notes"): mutual kNN can leave a
point with no neighbour at all (``D_i = 0``, and ``D^{-1/2}`` is undefined).
Such a point keeps its own ``k`` nearest neighbours (the symmetrised union for
that point only), so every row of ``L`` is defined and the graph stays as close
to the mutual one as possible. ``mutual=False`` uses the symmetrised union for all
points. Neighbours come from Euclidean distances of features
(``metric="euclidean"``, scikit-learn's :class:`~sklearn.neighbors.NearestNeighbors`,
a tree search -- the thesis's cover tree plays the same role) or from the largest
entries of a precomputed similarity (``metric="precomputed"``; self-similarities
are ignored).
"""

from __future__ import annotations

import numpy as np

from .._graph import feature_neighbours, knn_indices, laplacian, neighbour_adjacency
from .._validation import check_features, check_n_neighbors, check_option, check_similarity

__all__ = ["LAPLACIANS", "knn_graph", "knn_laplacian"]

METRICS = ("euclidean", "precomputed")


def _neighbours(X, k: int, metric: str) -> np.ndarray:
    """Indices ``(n, k)`` of each point's ``k`` nearest neighbours, itself excluded."""
    if metric == "precomputed":
        S = check_similarity(X, name="X", symmetric="symmetrize", dissimilarity_check=True)
        n = S.shape[0]
        check_n_neighbors(k, n - 1)
        return knn_indices(-S, k)  # largest similarities, ties broken by index
    X = check_features(X, name="X")
    n = X.shape[0]
    check_n_neighbors(k, n - 1)
    # duplicates may put a point second in its own list: removed by value
    return feature_neighbours(X, k, exclude_self="by-index")


def knn_graph(X, n_neighbors: int = 5, *, metric: str = "euclidean", mutual: bool = True):
    """Symmetric 0/1 kNN adjacency (sparse CSR, zero diagonal).

    Parameters
    ----------
    X : array-like
        Features ``(n, d)`` (``metric="euclidean"``) or a similarity ``(n, n)``
        (``metric="precomputed"``: larger means closer).
    n_neighbors : int, default=5
        ``k`` (the thesis uses 5 on the small UCI sets, 50 on Adult).
    metric : {"euclidean", "precomputed"}
    mutual : bool, default=True
        Keep an edge only if each end is among the other's ``k`` nearest (the
        thesis's rule); points left without any edge keep their own ``k``. With
        ``False``: an edge if either end is among the other's ``k`` nearest.

    Returns
    -------
    W : scipy.sparse.csr_matrix of shape (n, n)

    Examples
    --------
    >>> import numpy as np
    >>> from proxlearn.cluster import knn_graph
    >>> X = np.array([[0.0], [1.0], [3.0], [10.0]])
    >>> knn_graph(X, 1).toarray().astype(int).tolist()  # 3 and 10: no mutual neighbour
    [[0, 1, 0, 0], [1, 0, 1, 0], [0, 1, 0, 1], [0, 0, 1, 0]]

    See Also
    --------
    knn_laplacian : its Laplacian.
    proxlearn.manifold.connected_knn_graph : the embeddings' union graph, joined into
        one component (an edge list).
    """
    check_option(metric, "metric", METRICS)
    idx = _neighbours(X, n_neighbors, metric)
    return neighbour_adjacency(idx, mutual=mutual, isolated="own-list", sparse=True)


LAPLACIANS = ("normalized", "unnormalized")


def knn_laplacian(X, n_neighbors: int = 5, *, metric: str = "euclidean", mutual: bool = True,
                  kind: str = "normalized"):
    """Normalised graph Laplacian ``L = I - D^{-1/2} W D^{-1/2}`` of the kNN graph.

    Zhuang (2011) eq. 3.3; ``W`` from :func:`knn_graph` (same arguments).
    ``L`` is symmetric PSD with eigenvalues in ``[0, 2]``; sparse CSR with at
    most ``n (2k + 1)`` non-zeros. ``kind="unnormalized"``: ``D - W`` (eigenvalues
    up to twice the largest degree), not the thesis's eq. 3.3 but the reading under
    which the thesis's ``C = 1`` of Tables 3.4-3.5 reproduces on Iris, and
    :class:`SimpleNPKL`'s default (evidence in docs/methods.md, "SimpleNPKL's
    Laplacian: two readings"). The function's own default stays eq. 3.3.

    Parameters
    ----------
    X, n_neighbors, metric, mutual
        As :func:`knn_graph`.
    kind : {"normalized", "unnormalized"}, default="normalized"
        ``I - D^{-1/2} W D^{-1/2}`` (eq. 3.3) or ``D - W``.

    Returns
    -------
    L : scipy.sparse.csr_matrix of shape (n, n)

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.datasets import make_moons
    >>> from proxlearn.cluster import knn_laplacian
    >>> X, _ = make_moons(20, noise=0.05, random_state=0)
    >>> L = knn_laplacian(X, 3)
    >>> L.shape, L.format, bool(np.allclose(L.toarray(), L.toarray().T))
    ((20, 20), 'csr', True)

    See Also
    --------
    SimpleNPKL : uses it as the regulariser ``tr(L K)``.
    proxlearn.manifold.connected_knn_graph : the embeddings' union graph.
    """
    check_option(kind, "kind", LAPLACIANS)
    W = knn_graph(X, n_neighbors, metric=metric, mutual=mutual)
    # every row has an edge (knn_graph guarantees it), so D^{-1/2} is defined
    return laplacian(W, normalized=kind == "normalized")
