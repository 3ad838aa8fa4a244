"""Shared pieces of the embedding estimators: input rule, neighbour graph, read-off.

==========================  ==================================================
function                    role
==========================  ==================================================
``embedding_input``         features or a precomputed kernel -> centred Gram,
                            squared distances (the documented input rule)
``connected_knn_graph``     symmetrised k-nearest-neighbour graph joined into one
                            component (edge list); ``knn_graph`` is its deprecated name
``kernel_embedding``        top eigenpairs ``sqrt(lambda_i) u_i`` of a kernel
                            (the KPCA read-off; Zhuang 2011 sec. 3.4)
``selector_operator``       the distance selectors ``T_ij`` (sec. 3.4) as one
                            sparse ``m x n^2`` operator
==========================  ==================================================

Input rule (every estimator of :mod:`proxlearn.manifold`):

* ``kernel="linear"`` (default): ``X`` is a feature matrix ``(n, d)``.
  Squared distances are the squared Euclidean distances of the rows, the
  neighbour graph is the k-NN graph of those distances and the start kernel
  is the centred linear Gram ``H X X^T H``.
* ``kernel="precomputed"``: ``X`` is an ``n x n`` similarity / kernel ``K``
  (symmetrised). The start kernel is the PSD part ``G`` of ``H K H``;
  squared distances are ``d_ij = G_ii + G_jj - 2 G_ij``, which equal
  ``K_ii + K_jj - 2 K_ij`` for a PSD ``K`` (for an indefinite ``K``: the
  distances of its nearest PSD kernel, so that the hard equalities of the
  SDP forms stay feasible); neighbours are taken by those distances.

References
----------
J. Zhuang, PhD thesis, NTU 2011, sec. 3.4 (distance selector ``T_ij``,
``tr(K T_ij) = K_ii + K_jj - 2 K_ij``; embedding read off from ``K = V^T V``).
"""

from __future__ import annotations

import warnings

import numpy as np
import scipy.linalg
import scipy.sparse as sp

from .._graph import edge_pairs, join_components, knn_adjacency
from .._linalg import center_kernel, top_eigh
from .._validation import (
    InvalidParameterError,
    check_features,
    check_n_neighbors,
    check_option,
    check_similarity,
)

__all__ = ["connected_knn_graph", "embedding_input", "kernel_embedding", "knn_graph",
           "selector_operator"]

KERNELS = ("linear", "precomputed")


def embedding_input(X, kernel="linear"):
    """Apply the input rule of the module docstring.

    Returns
    -------
    G : ndarray (n, n)
        Centred PSD start kernel.
    D2 : ndarray (n, n)
        Squared distances (zero diagonal, non-negative).
    n_features : int
        Columns of ``X`` (``n`` for a precomputed kernel).

    Parameters
    ----------
    X : array-like of shape (n, d) or (n, n)
        Features (``kernel="linear"``) or a kernel (``kernel="precomputed"``).
    kernel : {"linear", "precomputed"}, default="linear"

    Examples
    --------
    >>> import numpy as np
    >>> from proxlearn.manifold import embedding_input
    >>> G, D2, n_features = embedding_input(np.array([[0., 0.], [1., 0.], [0., 2.]]))
    >>> G.shape, np.round(D2[1], 6).tolist(), n_features
    ((3, 3), [1.0, 0.0, 5.0], 2)

    See Also
    --------
    connected_knn_graph : the graph of ``D2``.
    kernel_embedding : the read-off.
    """
    kernel = check_option(kernel, "kernel", KERNELS)
    if kernel == "linear":
        X = check_features(X)
        width = X.shape[1]
        Xc = X - X.mean(axis=0)
        G = Xc @ Xc.T
    else:
        K = check_similarity(X, name="X (kernel='precomputed')", symmetric="symmetrize")
        Kc = center_kernel(K)
        lam, V = scipy.linalg.eigh(0.5 * (Kc + Kc.T), driver="evd")
        G = (V * np.maximum(lam, 0.0)) @ V.T
        G = 0.5 * (G + G.T)
        width = K.shape[0]
    sq = np.diag(G)  # distances of the PSD part (those of K itself when K is PSD)
    D2 = np.maximum(sq[:, None] + sq[None, :] - 2.0 * G, 0.0)
    np.fill_diagonal(D2, 0.0)
    if G.shape[0] < 3:
        raise InvalidParameterError(
            f"an embedding needs at least 3 samples, got n_samples = {G.shape[0]}; pass "
            "more samples.")
    return G, D2, width


def connected_knn_graph(D2, n_neighbors):
    """Edges ``(i, j)``, ``i < j``, of the symmetrised k-NN graph of the distances ``D2``.

    ``i`` and ``j`` are joined when either is among the other's ``n_neighbors``
    nearest (the union; ties broken by index). If that graph is disconnected,
    its components are joined by the shortest edges between them (the edges of
    a minimum spanning tree in which the k-NN edges cost nothing): MVE's and
    MVU's distance equalities are unbounded on a disconnected graph.

    Parameters
    ----------
    D2 : ndarray of shape (n, n)
        Squared (or any monotone) distances; the join uses ``sqrt(D2)``.
    n_neighbors : int

    Returns
    -------
    pairs : ndarray of shape (p, 2)
        The edges, ``i < j``, in row order.
    W : ndarray of shape (n, n)
        The 0/1 adjacency (float).

    Examples
    --------
    >>> import numpy as np
    >>> from proxlearn.manifold import connected_knn_graph
    >>> x = np.array([0.0, 1.0, 2.0, 10.0, 11.0])
    >>> pairs, W = connected_knn_graph((x[:, None] - x[None]) ** 2, 1)
    >>> pairs.tolist()  # the 1-NN pairs and the shortest link 2-3 between the groups
    [[0, 1], [1, 2], [2, 3], [3, 4]]

    See Also
    --------
    proxlearn.cluster.knn_graph : the mutual k-NN graph of SimpleNPKL (sparse).
    """
    n = D2.shape[0]
    k = check_n_neighbors(n_neighbors, n - 1)
    # joined by the shortest edges: else MVU / MVE's distance equalities leave the
    # components free to drift apart (unbounded)
    W = join_components(knn_adjacency(D2, k), np.sqrt(D2))
    return edge_pairs(W), W.astype(np.float64)


def knn_graph(D2, n_neighbors):
    """Deprecated: use :func:`connected_knn_graph` (the same graph).

    Renamed because :func:`proxlearn.cluster.knn_graph` is another graph (the
    mutual one, a sparse matrix) under the same name. It will be removed in a later
    release.

    See Also
    --------
    connected_knn_graph : the new name.
    """
    warnings.warn(
        "proxlearn.manifold.knn_graph is deprecated and will be removed: use "
        "proxlearn.manifold.connected_knn_graph (the same graph; "
        "proxlearn.cluster.knn_graph is the mutual kNN graph).",
        FutureWarning, stacklevel=2)
    return connected_knn_graph(D2, n_neighbors)


def selector_operator(n, rows, cols, coefs):
    """The sparse ``m x n^2`` matrix ``M`` of a list of constraint matrices.

    Constraint ``l`` is ``sum_e coefs[l][e] * E(rows[l][e], cols[l][e])`` with
    ``E(a, b)`` the unit matrix; ``rows``, ``cols``, ``coefs`` are ``(m, e)``
    arrays. Then ``sum_l alpha_l T_l = (M^T alpha).reshape(n, n)`` and
    ``(tr(T_l K))_l = M @ K.ravel()`` for symmetric ``K``.
    """
    rows, cols, coefs = (np.atleast_2d(a) for a in (rows, cols, coefs))
    m = rows.shape[0]
    r = np.repeat(np.arange(m), rows.shape[1])
    c = (rows * n + cols).ravel()
    return sp.csr_array((coefs.ravel(), (r, c)), shape=(m, n * n))


def distance_selectors(n, pairs):
    """``T_ij`` of sec. 3.4 for each pair: ``+1`` at (i,i), (j,j), ``-1`` at (i,j), (j,i)."""
    i, j = pairs[:, 0], pairs[:, 1]
    rows = np.column_stack([i, j, i, j])
    cols = np.column_stack([i, j, j, i])
    coefs = np.tile([1.0, 1.0, -1.0, -1.0], (len(i), 1))
    return selector_operator(n, rows, cols, coefs)


def kernel_embedding(K, n_components=2, *, eigen_solver="dense", random_state=None):
    """Read an embedding off a kernel: ``Y[:, c] = sqrt(lambda_c) u_c`` for the top eigenpairs.

    This is kernel PCA of ``K`` as given (centre it first for KPCA proper; the
    kernels learned by :mod:`proxlearn.manifold` are centred already). Negative
    eigenvalues count as 0. Column signs are fixed so that the entry of
    largest magnitude of each column is positive (deterministic output).
    scikit-learn's ``KernelPCA(kernel="precomputed")`` is the KPCA baseline.

    Parameters
    ----------
    K : array-like of shape (n, n), symmetric
    n_components : int, default=2
    eigen_solver : {"dense", "arpack"}
        ``"arpack"``: :func:`scipy.sparse.linalg.eigsh` for the top pairs only,
        started from a vector drawn from ``random_state``.
    random_state : int, RandomState instance or None

    Returns
    -------
    Y : ndarray of shape (n, n_components)

    Examples
    --------
    >>> import numpy as np
    >>> from proxlearn.manifold import kernel_embedding
    >>> kernel_embedding(np.diag([3., 1., 0.]), n_components=2).round(4).tolist()
    [[1.7321, 0.0], [0.0, 1.0], [0.0, 0.0]]

    See Also
    --------
    MVE, SPE, CMVU : the estimators that read their embedding this way.
    sklearn.decomposition.KernelPCA : KPCA of a centred kernel.
    """
    K = check_similarity(K, name="K", symmetric="symmetrize", dissimilarity_check=False)
    n = K.shape[0]
    d = check_n_neighbors(n_components, n, name="n_components")
    eigen_solver = check_option(eigen_solver, "eigen_solver", ("dense", "arpack"))
    if eigen_solver == "arpack" and d < n - 1:
        from scipy.sparse.linalg import eigsh
        from sklearn.utils import check_random_state

        v0 = check_random_state(random_state).uniform(-1.0, 1.0, n)
        lam, U = eigsh(K, k=d, which="LA", v0=v0)
    else:
        lam, U = top_eigh(K, d)
    order = np.argsort(-lam, kind="stable")
    lam, U = lam[order], U[:, order]
    big = np.argmax(np.abs(U), axis=0)
    U = U * np.sign(U[big, np.arange(d)])
    return U * np.sqrt(np.maximum(lam, 0.0))
