"""k-nearest-neighbour graphs and their Laplacians, shared by every layer.

=============================  ===========================================================
function                       what it builds
=============================  ===========================================================
:func:`knn_indices`            ``(n, k)`` neighbour lists from a dense distance matrix
                               (ties to the smaller index: a stable sort)
:func:`feature_neighbours`     ``(n, k)`` neighbour lists (and distances) of feature rows
                               by a tree search (scikit-learn's ``NearestNeighbors``)
:func:`neighbour_adjacency`    the symmetric 0/1 adjacency of neighbour lists: the union
                               or the mutual graph (optionally keeping an isolated
                               point's own list), dense boolean or sparse CSR
:func:`knn_adjacency`          :func:`neighbour_adjacency` of :func:`knn_indices`
:func:`join_components`        the shortest edges that join a graph's components
:func:`edge_pairs`             the edges ``(i, j)``, ``i < j``, of an adjacency
:func:`laplacian`              ``D - W`` or ``I - D^{-1/2} W D^{-1/2}``, dense or sparse
:func:`top_k_similar`          the ``k`` largest entries of each row of a similarity block
                               (ties to the smaller index): the neighbours of test rows
=============================  ===========================================================

Every kNN graph of the library is built here: the mutual kNN Laplacian of
:class:`~proxlearn.cluster.SimpleNPKL` (``cluster.knn_graph`` /
``knn_laplacian``), the connected union graph of the embeddings
(``manifold.knn_graph``), the neighbour pairs and Laplacian basis of NPK ranking
(``ranking.neighbour_pairs``, ``laplacian_basis``, ``npk_rank_lowrank``) and the
Laplacians of ``kernel_learning.graph_laplacian`` and CMVU's low-rank basis. Where
the callers' graphs differ, the difference is an option here. Imports nothing of
proxlearn.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components, minimum_spanning_tree
from sklearn.neighbors import NearestNeighbors

__all__ = ["edge_pairs", "feature_neighbours", "join_components", "knn_adjacency", "top_k_similar",
           "knn_indices", "laplacian", "neighbour_adjacency"]

SELF_RULES = ("by-index", "first")


def knn_indices(D, k: int) -> np.ndarray:
    """``(n, k)`` indices of each row's ``k`` smallest entries of ``D`` (``n x n``),
    the diagonal excluded; ties go to the smaller index.

    Parameters
    ----------
    D : array-like of shape (n, n)
        Distances (only the order of each row matters).
    k : int
        Neighbours per row, ``1 <= k < n``.

    Returns
    -------
    ndarray of shape (n, k)
        Row ``i``: its neighbours, nearest first.

    Examples
    --------
    >>> import numpy as np
    >>> from proxlearn._graph import knn_indices
    >>> x = np.array([0., 1., 3., 7.])
    >>> knn_indices(np.abs(x[:, None] - x), 2).tolist()
    [[1, 2], [0, 2], [1, 0], [2, 1]]

    See Also
    --------
    feature_neighbours : the same lists from feature rows (a tree search).
    knn_adjacency : the graph of these lists.
    """
    D = np.asarray(D, dtype=np.float64)
    n = D.shape[0]
    masked = D + np.diag(np.full(n, np.inf))
    return np.argsort(masked, axis=1, kind="stable")[:, :k]


def feature_neighbours(X, k: int, *, exclude_self="by-index", return_distance=False):
    """Each row's ``k`` nearest rows of ``X`` by Euclidean distance (a tree search).

    Parameters
    ----------
    X : ndarray of shape (n, d)
    k : int
    exclude_self : {"by-index", "first"}
        ``"by-index"``: drop the row's own index wherever the search returns it (right
        with duplicate rows too). ``"first"``: drop the first neighbour returned, the
        row itself unless a duplicate came first (then the row can be among its own
        neighbours; the caller drops such self-pairs).
    return_distance : bool
        Also return the ``(n, k)`` distances.

    Returns
    -------
    nn : ndarray of shape (n, k)
        Row ``i``: its neighbours, nearest first.
    dist : ndarray of shape (n, k)
        Their distances; only with ``return_distance=True``.

    Examples
    --------
    >>> import numpy as np
    >>> from proxlearn._graph import feature_neighbours
    >>> nn, dist = feature_neighbours(np.array([[0.], [1.], [3.], [7.]]), 1, return_distance=True)
    >>> nn.ravel().tolist(), dist.ravel().tolist()
    ([1, 0, 1, 2], [1.0, 1.0, 2.0, 4.0])

    See Also
    --------
    knn_indices : the same lists from a dense distance matrix.
    neighbour_adjacency : the graph of the lists.
    """
    if exclude_self not in SELF_RULES:
        raise ValueError(f"exclude_self must be one of {SELF_RULES}, got {exclude_self!r}.")
    search = NearestNeighbors(n_neighbors=k + 1).fit(X)
    if exclude_self == "first":
        if return_distance:
            dist, idx = search.kneighbors(X)
            return idx[:, 1:], dist[:, 1:]
        return search.kneighbors(X, return_distance=False)[:, 1:]
    if return_distance:
        dist, idx = search.kneighbors(X)
    else:
        idx = search.kneighbors(X, return_distance=False)
    n = idx.shape[0]
    out = np.empty((n, k), dtype=np.intp)
    out_d = np.empty((n, k)) if return_distance else None
    for i in range(n):
        own = idx[i] != i
        out[i] = idx[i][own][:k]
        if return_distance:
            out_d[i] = dist[i][own][:k]
    return (out, out_d) if return_distance else out


def neighbour_adjacency(nn, *, mutual: bool = False, isolated: str = "isolated",
                        sparse: bool = False):
    """Symmetric 0/1 adjacency of the neighbour lists ``nn`` (``(n, k)``), zero diagonal.

    Parameters
    ----------
    nn : ndarray of shape (n, k)
        ``nn[i]``: the neighbours of ``i`` (itself excluded).
    mutual : bool, default=False
        ``False``: ``i ~ j`` when either is in the other's list (the union);
        ``True``: when both are (the mutual kNN graph).
    isolated : {"isolated", "own-list"}, default="isolated"
        With ``mutual=True``, a point that has no mutual neighbour stays isolated, or
        keeps the edges to its own list (``"own-list"``, both directions).
    sparse : bool, default=False
        ``False``: a dense boolean array; ``True``: a float64 CSR matrix of ones.

    Returns
    -------
    ndarray of shape (n, n), bool, or scipy.sparse.csr_matrix

    Examples
    --------
    >>> import numpy as np
    >>> from proxlearn._graph import neighbour_adjacency
    >>> nn = np.array([[1], [0], [1], [2]])
    >>> neighbour_adjacency(nn).astype(int).tolist()
    [[0, 1, 0, 0], [1, 0, 1, 0], [0, 1, 0, 1], [0, 0, 1, 0]]
    >>> int(neighbour_adjacency(nn, mutual=True).sum())  # only 0 ~ 1 is mutual
    2

    See Also
    --------
    knn_adjacency : the same from a distance matrix.
    join_components, laplacian
    """
    if isolated not in ("isolated", "own-list"):
        raise ValueError(f"isolated must be 'isolated' or 'own-list', got {isolated!r}.")
    nn = np.asarray(nn)
    n, k = nn.shape
    rows = np.repeat(np.arange(n), k)
    if not sparse:
        A = np.zeros((n, n), dtype=bool)
        A[rows, nn.ravel()] = True
        if not mutual:
            return A | A.T
        M = A & A.T
        if isolated == "own-list":
            lonely = ~M.any(axis=1)
            M[lonely] |= A[lonely]
            M[:, lonely] |= A[lonely].T
        return M
    D = sp.csr_matrix((np.ones(n * k), (rows, nn.ravel())), shape=(n, n))
    if not mutual:
        return ((D + D.T) > 0).astype(np.float64).tocsr()
    W = D.multiply(D.T).tocsr()
    lonely = np.flatnonzero(np.diff(W.indptr) == 0)
    if lonely.size and isolated == "own-list":
        r = np.repeat(lonely, k)
        c = nn[lonely].ravel()
        extra = sp.csr_matrix((np.ones(r.size), (r, c)), shape=(n, n))
        W = ((W + extra + extra.T) > 0).astype(np.float64).tocsr()
    W.eliminate_zeros()
    return W


def knn_adjacency(D, k: int, *, mutual: bool = False) -> np.ndarray:
    """Symmetric boolean ``n x n`` kNN adjacency of the distances ``D``: ``i ~ j`` when
    either is among the other's ``k`` nearest (``mutual=False``, the union) or both
    are (``mutual=True``). Zero diagonal.

    Parameters
    ----------
    D : array-like of shape (n, n)
        Distances.
    k : int
        Neighbours per point.
    mutual : bool, default=False
        The mutual graph instead of the union.

    Returns
    -------
    ndarray of shape (n, n), bool

    Examples
    --------
    >>> import numpy as np
    >>> from proxlearn._graph import knn_adjacency
    >>> x = np.array([0., 1., 3., 7.])
    >>> knn_adjacency(np.abs(x[:, None] - x), 1, mutual=True).astype(int).tolist()
    [[0, 1, 0, 0], [1, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0]]

    See Also
    --------
    neighbour_adjacency : the options (isolated points, sparse output).
    knn_indices, join_components
    """
    return neighbour_adjacency(knn_indices(D, k), mutual=mutual)


def join_components(W, D) -> np.ndarray:
    """``W`` (dense boolean) with the shortest edges that join its components added.

    The edges of a minimum spanning tree of the distances ``D`` in which the edges of
    ``W`` cost nothing: exactly the cheapest links between components. ``W`` itself
    when it is connected.

    Parameters
    ----------
    W : ndarray of shape (n, n), bool
        Symmetric adjacency.
    D : array-like of shape (n, n)
        Distances; the joining edges are the shortest.

    Returns
    -------
    ndarray of shape (n, n), bool

    Examples
    --------
    >>> import numpy as np
    >>> from proxlearn._graph import join_components, knn_adjacency
    >>> x = np.array([0., 1., 3., 7.])
    >>> D = np.abs(x[:, None] - x)
    >>> join_components(knn_adjacency(D, 1, mutual=True), D).astype(int).tolist()
    [[0, 1, 0, 0], [1, 0, 1, 0], [0, 1, 0, 1], [0, 0, 1, 0]]

    See Also
    --------
    knn_adjacency, neighbour_adjacency
    proxlearn.manifold.connected_knn_graph : the embeddings' connected graph.
    """
    n_comp, _ = connected_components(sp.csr_array(W), directed=False)
    if n_comp == 1:
        return W
    weights = np.where(W, 1e-300, D + (D == 0) * 1e-300)
    np.fill_diagonal(weights, 0.0)
    # sparse: a dense graph's entries within 1e-8 of 0 are read as "no edge" by
    # csgraph, which dropped the free edges and added a spanning tree of others
    T = minimum_spanning_tree(sp.csr_array(weights)).toarray() > 0
    return W | T | T.T


def edge_pairs(W) -> np.ndarray:
    """The edges ``(i, j)``, ``i < j``, of the dense adjacency ``W``, ``(p, 2)`` in row order.

    Parameters
    ----------
    W : ndarray of shape (n, n)
        Symmetric adjacency (non-zero entries are edges).

    Returns
    -------
    ndarray of shape (p, 2)

    Examples
    --------
    >>> import numpy as np
    >>> from proxlearn._graph import edge_pairs
    >>> edge_pairs(np.array([[0, 1, 1], [1, 0, 0], [1, 0, 0]])).tolist()
    [[0, 1], [0, 2]]

    See Also
    --------
    neighbour_adjacency, knn_adjacency
    """
    i, j = np.nonzero(np.triu(W, 1))
    return np.column_stack([i, j])


def laplacian(W, *, normalized: bool = False):
    """Graph Laplacian ``D - W`` (``D`` the degrees), or ``I - D^{-1/2} W D^{-1/2}``.

    ``W``: symmetric non-negative weights, a dense array (the result is dense) or a
    sparse matrix (the result is CSR). ``normalized=True`` needs every degree positive.

    Parameters
    ----------
    W : array-like or sparse matrix of shape (n, n)
    normalized : bool, default=False

    Returns
    -------
    ndarray or scipy.sparse.csr_matrix of shape (n, n)

    Examples
    --------
    >>> import numpy as np
    >>> from proxlearn._graph import laplacian
    >>> W = np.array([[0., 1., 0.], [1., 0., 1.], [0., 1., 0.]])
    >>> laplacian(W).tolist()
    [[1.0, -1.0, 0.0], [-1.0, 2.0, -1.0], [0.0, -1.0, 1.0]]
    >>> np.diag(laplacian(W, normalized=True)).tolist()
    [1.0, 1.0, 1.0]

    See Also
    --------
    neighbour_adjacency, knn_adjacency : the graphs.
    proxlearn.kernel_learning.graph_laplacian : the Laplacian of SimpleNPKL.
    """
    if not sp.issparse(W):
        d = W.sum(axis=1)
        if not normalized:
            return np.diag(d) - W
        s = 1.0 / np.sqrt(d)
        return np.eye(W.shape[0]) - s[:, None] * W * s[None, :]
    d = np.asarray(W.sum(axis=1)).ravel()
    if not normalized:
        return (sp.diags(d) - W).tocsr()
    s = 1.0 / np.sqrt(d)
    n = W.shape[0]
    return (sp.identity(n, format="csr") - sp.diags(s) @ W @ sp.diags(s)).tocsr()


def top_k_similar(R, k):
    """Indices and values of the ``k`` largest entries of each row of ``R``.

    Uses :func:`numpy.argpartition` to find the k-th largest value of each
    row, then sorts the candidates (entries ``>=`` that value) by decreasing
    similarity with ties broken by the lower column index, so the result is
    deterministic even when several entries tie at the boundary. Only arrays
    of the size of ``R`` (a boolean mask) and of the candidates are created.

    Parameters
    ----------
    R : ndarray of shape (c, n)
    k : int, 1 <= k <= n

    Returns
    -------
    idx : ndarray of shape (c, k), int
    val : ndarray of shape (c, k), float
        ``val[i, j] = R[i, idx[i, j]]``, non-increasing along each row.

    Examples
    --------
    >>> import numpy as np
    >>> from proxlearn._graph import top_k_similar
    >>> idx, val = top_k_similar(np.array([[0.1, 0.9, 0.5, 0.9], [3.0, 1.0, 2.0, 0.0]]), 2)
    >>> idx.tolist(), val.tolist()  # the tie 0.9 / 0.9 goes to the lower index first
    ([[1, 3], [0, 2]], [[0.9, 0.9], [3.0, 2.0]])

    See Also
    --------
    proxlearn.neighbors.SimilarityKNeighborsClassifier.kneighbors : the neighbours of test rows.
    """
    c, n = R.shape
    if k < n:
        part = np.argpartition(-R, k - 1, axis=1)[:, :k]
        thr = np.take_along_axis(R, part, axis=1).min(axis=1)
        rows, cols = np.nonzero(R >= thr[:, None])
    else:
        rows = np.repeat(np.arange(c), n)
        cols = np.tile(np.arange(n), c)
    vals = R[rows, cols]
    order = np.lexsort((cols, -vals, rows))
    rows, cols, vals = rows[order], cols[order], vals[order]
    counts = np.bincount(rows, minlength=c)
    start = np.concatenate(([0], np.cumsum(counts)[:-1]))
    pos = np.arange(rows.size) - start[rows]
    keep = pos < k
    return cols[keep].reshape(c, k), vals[keep].reshape(c, k)
