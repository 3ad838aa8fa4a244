"""Semantics-preserving non-parametric kernel learning for re-ranking (Zhuang 2011, ch. 6).

===============  ===========================================================
function         problem
===============  ===========================================================
``npk_rank``     eq. 6.2 by Protocol 5: closed-form K-step, projected alpha-step
``npk_rank_sdp`` eq. 6.2 as a cvxpy SDP (the oracle, small ``n`` only)
===============  ===========================================================

Eq. 6.2 (soft version)::

    min_{K, xi}  -tr(H K H K_t) + (C/2) sum_{(i,j) in N} xi_ij^2
    s.t.  K PSD,  tr(K K) <= B,  K_ii + K_jj - 2 K_ij <= d_ij^2 + xi_ij,

with ``K_t`` the text (tag) kernel, ``H = I - 11^T/n``, ``N`` the pairs of
visual k-nearest neighbours and ``d_ij`` their visual distances: the learned
kernel depends as much as possible (HSIC) on the text kernel while keeping
visual neighbours close.

Protocol 5 alternates a closed-form K-step, ``K = A_+ sqrt(B / tr A_+^2)``
with ``A = H K_t H - sum alpha_ij A^ij``
(:func:`proxlearn.solvers.max_trace_psd_ball`), and a projected step on the
duals ``alpha >= 0`` of the distance constraints (``xi = alpha / C``), run as
projected gradient ascent on the concave dual by
:func:`proxlearn.solvers.dual_ascent` and stopped at a certified relative
duality gap ``tol``. Errata followed: the sign of ``A`` printed before eq. 6.6
is wrong (Protocol 5 step 3 is right), and the alpha-step needs the
``max(0, .)`` the text omits. The dual, the step rule and the choices the
thesis leaves open (``N``, ``B = n``, ``C = 1``): docs/methods.md, section
"NPK ranking: the dual ascent and its choices".
"""

from __future__ import annotations

import warnings

import numpy as np
import scipy.linalg
from sklearn.exceptions import ConvergenceWarning

from .._validation import (
    InvalidParameterError,
    check_n_neighbors,
    check_positive,
    check_similarity,
)
from .._graph import edge_pairs, feature_neighbours, knn_adjacency, laplacian
from .._linalg import center_kernel, top_eigh
from ..solvers import SolverResult, dual_ascent, max_trace_psd_ball

__all__ = ["NPKRankResult", "laplacian_basis", "neighbour_pairs", "npk_rank", "npk_rank_lowrank",
           "npk_rank_sdp"]


def neighbour_pairs(D, k: int, *, mutual: bool = False) -> np.ndarray:
    """Pairs ``(i, j)``, ``i < j``, of visual k-nearest neighbours in the distance matrix ``D``.

    Parameters
    ----------
    D : array-like of shape (n, n)
        Visual distances.
    k : int
        Neighbours per item.
    mutual : bool, default=False
        Both must be among the other's neighbours.

    Returns
    -------
    ndarray of shape (p, 2)

    Examples
    --------
    >>> import numpy as np
    >>> from proxlearn.ranking import neighbour_pairs
    >>> x = np.array([0., 1., 3., 7.])
    >>> neighbour_pairs(np.abs(x[:, None] - x), 1).tolist()
    [[0, 1], [1, 2], [2, 3]]

    See Also
    --------
    npk_rank : the constraints it builds from these pairs.
    proxlearn._graph.knn_adjacency : the graph.
    """
    return edge_pairs(knn_adjacency(D, k, mutual=mutual))


#: Above this many nodes the Laplacian basis uses ARPACK on the sparse graph.
SPARSE_BASIS_N = 500


def laplacian_basis(pairs, n: int, m: int, *, sparse: bool | None = None) -> np.ndarray:
    """The ``m`` eigenvectors of smallest eigenvalue of the (unweighted) Laplacian of
    the neighbour graph ``pairs`` on ``n`` nodes (sec. 6.3.4), orthonormal ``(n, m)``.

    ``sparse`` (default: ``n > SPARSE_BASIS_N``) uses ARPACK
    (``scipy.sparse.linalg.eigsh``) on the sparse Laplacian, as the thesis
    does, instead of a dense eigendecomposition: the largest eigenvalues of
    ``c I - L`` with ``c = 2 max degree >= lambda_max(L)`` (Gershgorin), so
    only sparse products are needed. (Shift-invert around 0 needs a sparse LU
    whose fill-in on a k-NN graph costs more time and memory: docs/benchmarks.md,
    "Ranking: the Laplacian basis".)

    Parameters
    ----------
    pairs : ndarray of shape (p, 2)
    n : int
        Number of nodes.
    m : int
        Number of eigenvectors.
    sparse : bool, optional

    Returns
    -------
    ndarray of shape (n, m)

    Examples
    --------
    >>> import numpy as np
    >>> from proxlearn.ranking import laplacian_basis
    >>> V = laplacian_basis(np.array([[0, 1], [1, 2], [2, 3]]), n=4, m=2)
    >>> V.shape, np.allclose(V.T @ V, np.eye(2)), np.abs(V[:, 0]).round(4).tolist()
    ((4, 2), True, [0.5, 0.5, 0.5, 0.5])

    See Also
    --------
    npk_rank : ``n_components`` uses this basis.
    proxlearn._graph.laplacian
    """
    import scipy.sparse as sp

    i, j = pairs[:, 0], pairs[:, 1]
    W = sp.coo_array((np.ones(2 * len(i)), (np.r_[i, j], np.r_[j, i])), shape=(n, n)).tocsr()
    L = laplacian(W)
    if sparse is None:
        sparse = n > SPARSE_BASIS_N
    if sparse and m < n - 1:
        from scipy.sparse.linalg import eigsh

        c = 2.0 * max(float(L.diagonal().max()), 1.0)  # 2 max degree
        mu, V = eigsh(c * sp.eye_array(n, format="csr") - L, k=m, which="LA",
                      v0=np.ones(n), tol=1e-10)
        return V[:, np.argsort(-mu)]
    _, V = top_eigh(-L.toarray(), m)  # largest of -L = smallest of L
    return V[:, ::-1]


class NPKRankResult(SolverResult):
    """Output of :func:`npk_rank` (a :class:`~proxlearn.solvers.SolverResult`).

    Attributes
    ----------
    kernel : ndarray of shape (n, n) or None
        The learned kernel (``None`` from :func:`npk_rank_lowrank`).
    x : ndarray of shape (p,)
        Duals of the distance constraints, one per pair (alias ``alpha``).
    pairs : ndarray of shape (p, 2)
    primal, dual, gap : float
        The certificate; ``gap = primal - dual``.
    nit : int
        Ascent steps (alias ``n_iter``).
    history : list
    basis, factor : ndarray or None
        ``V`` and ``P`` of the low-rank form (``kernel = V P V^T``).

    Examples
    --------
    >>> import numpy as np
    >>> from proxlearn.ranking import kernel_distances, label_kernel, npk_rank
    >>> X = np.random.RandomState(0).randn(20, 3)
    >>> res = npk_rank(label_kernel(np.repeat([0, 1], 10)), kernel_distances(X @ X.T), n_neighbors=3)
    >>> res.kernel.shape, res.pairs.shape[1], bool(res.gap <= 1e-6 * max(1, abs(res.primal)))
    ((20, 20), 2, True)

    See Also
    --------
    npk_rank, npk_rank_lowrank
    proxlearn.solvers.SolverResult : the base class.
    """

    _aliases = {"alpha": "x", "n_iter": "nit"}

    def __init__(self, kernel, alpha, pairs, primal, dual, n_iter, history=None, basis=None,
                 factor=None):
        super().__init__(kernel=kernel, x=alpha, pairs=pairs, primal=primal, dual=dual,
                         gap=primal - dual, nit=n_iter,
                         history=[] if history is None else history, basis=basis, factor=factor)

    def rows(self, index) -> np.ndarray:
        """Rows ``index`` of the learned kernel, without forming it when it is factored."""
        if self.kernel is not None:
            return self.kernel[index]
        return (self.basis[index] @ self.factor) @ self.basis.T



def _pair_dist(K, pairs):
    """``tr(K A^ij) = K_ii + K_jj - 2 K_ij`` for every pair."""
    i, j = pairs[:, 0], pairs[:, 1]
    return K[i, i] + K[j, j] - 2.0 * K[i, j]


def _check(K_text, D, n_neighbors, C, B):
    Kt = check_similarity(K_text, name="K_text", symmetric="symmetrize",
                          dissimilarity_check=False)
    D = check_similarity(D, name="D", symmetric="symmetrize", dissimilarity_check=False)
    return _check_checked(Kt, D, n_neighbors, C, B)


def _check_checked(Kt, D, n_neighbors, C, B):
    """:func:`_check` on validated symmetric matrices (the caller checked them once)."""
    if D.shape != Kt.shape:
        raise InvalidParameterError(
            f"K_text {Kt.shape} and the visual distances D {D.shape} must be over the "
            "same n objects."
        )
    if np.any(D < 0):
        raise InvalidParameterError("D must hold non-negative visual distances.")
    n = Kt.shape[0]
    k = check_n_neighbors(n_neighbors, n - 1)
    C = check_positive(C, "C")
    B = float(n) if B is None else check_positive(B, "B")
    return Kt, D, k, C, B


def npk_rank(K_text, D, *, n_neighbors=5, C=1.0, B=None, mutual=False, n_components=None,
             tol=1e-6, max_iter=500) -> NPKRankResult:
    """Learn the re-ranking kernel of eq. 6.2 by Protocol 5 (see the module docstring).

    Parameters
    ----------
    K_text : array-like of shape (n, n)
        Text (tag) kernel ``K_t``.
    D : array-like of shape (n, n)
        Visual distances; their ``n_neighbors`` nearest pairs are kept close.
    n_neighbors : int, default=5
    C : float, default=1.0
        Weight of the squared slacks.
    B : float, optional
        Bound on ``tr(K K)``; ``n`` by default.
    mutual : bool, default=False
        Keep a pair only if each is among the other's nearest neighbours.
    n_components : int, optional
        Low-rank form of sec. 6.3.4: ``K = V P V^T`` with ``V`` the
        ``n_components`` eigenvectors of smallest eigenvalue of the Laplacian
        of the neighbour graph (:func:`laplacian_basis`), so every K-step is an
        ``m x m`` eigendecomposition; the gap then certifies the optimum over
        that subspace. ``None``: the full problem.
    tol : float, default=1e-6
        Stop when the certified duality gap is below ``tol * max(1, |primal|)``.
    max_iter : int, default=500

    Returns
    -------
    NPKRankResult
        ``kernel``, ``alpha``, ``pairs``, ``primal``, ``dual`` (``gap``),
        ``n_iter`` and the per-iteration ``history``.

    Examples
    --------
    >>> import numpy as np
    >>> from proxlearn.ranking import kernel_distances, label_kernel, npk_rank
    >>> X = np.random.RandomState(0).randn(20, 3)
    >>> res = npk_rank(label_kernel(np.repeat([0, 1], 10)), kernel_distances(X @ X.T), n_neighbors=3)
    >>> res.kernel.shape
    (20, 20)

    See Also
    --------
    NPKReranker : the estimator (learned kernel, VisualRank, warping).
    npk_rank_lowrank : the low-rank form from features.
    npk_rank_sdp : the SDP oracle.
    proxlearn.solvers.dual_ascent : the engine.
    """
    return _npk_rank(*_check(K_text, D, n_neighbors, C, B), mutual, n_components, tol, max_iter)


def _npk_rank(Kt, D, k, C, B, mutual, n_components, tol, max_iter) -> NPKRankResult:
    """:func:`npk_rank` on checked input (:func:`_check`, or :func:`_check_checked` for
    callers that validated the matrices themselves: :class:`NPKReranker`)."""
    pairs = neighbour_pairs(D, k, mutual=mutual)
    d2 = D[pairs[:, 0], pairs[:, 1]] ** 2
    HKtH = center_kernel(Kt)
    n = Kt.shape[0]
    i, j = pairs[:, 0], pairs[:, 1]
    if n_components is None:  # K itself: one n x n eigendecomposition per K-step
        basis = None
        G = HKtH

        def objective_matrix(alpha):
            A = HKtH.copy()
            # - sum alpha_ij A^ij: -alpha on (i,i), (j,j); +alpha on (i,j), (j,i)
            np.add.at(A, (i, i), -alpha)
            np.add.at(A, (j, j), -alpha)
            np.add.at(A, (i, j), alpha)
            np.add.at(A, (j, i), alpha)
            return A

        def pair_dist(K):
            return _pair_dist(K, pairs)
    else:  # K = V P V^T (sec. 6.3.4): m x m problems
        m = check_n_neighbors(n_components, n, name="n_components")
        basis = laplacian_basis(pairs, n, m)
        G = basis.T @ HKtH @ basis
        E = basis[i] - basis[j]  # tr(K A^ij) = (v_i - v_j)^T P (v_i - v_j)

        def objective_matrix(alpha):
            return G - E.T @ (alpha[:, None] * E)

        def pair_dist(P):
            return np.einsum("pa,ab,pb->p", E, P, E)

    K, alpha, t, primal, dual, history = _protocol5(
        objective_matrix, pair_dist, G, d2, C, B, tol, max_iter)
    if basis is None:
        return NPKRankResult(K, alpha, pairs, primal, dual, t, history)
    return NPKRankResult(basis @ K @ basis.T, alpha, pairs, primal, dual, t, history, basis, K)


def _protocol5(objective_matrix, pair_dist, G, d2, C, B, tol, max_iter):
    """Protocol 5 (K-step, BB + non-monotone Armijo alpha-step) on any parametrisation.

    ``objective_matrix(alpha)`` is ``A`` (or ``V^T A V``), ``pair_dist(K)`` the
    ``tr(K A^ij)``, ``G`` the centred text kernel in the same coordinates. The
    loop is :func:`proxlearn.solvers.dual_ascent` (first step ``C``, BB steps
    within ``[1e-10 C, 1e6 C]``, a trial below ``1e-14 C`` taken as it is).
    """
    def k_step(alpha):
        A = objective_matrix(alpha)
        lam, V = scipy.linalg.eigh(0.5 * (A + A.T), driver="evd")
        K, value = max_trace_psd_ball(A, B, eigh=(lam, V))
        return -value - alpha @ d2 - alpha @ alpha / (2.0 * C), K

    def measure(alpha, K):
        dist = pair_dist(K)
        xi = np.maximum(0.0, dist - d2)
        return -float(np.vdot(G, K)) + 0.5 * C * float(xi @ xi), dist - d2 - alpha / C

    res = dual_ascent(k_step, measure, np.zeros(len(d2)),
                      project=lambda a: np.maximum(0.0, a), step=C,
                      bb_bounds=(1e-10 * C, 1e6 * C), min_step=1e-14 * C, tol=tol,
                      max_iter=max_iter)
    # the gap is tested before each step: a point certified only after the last
    # step still counts as max_iter (and warns), as before the shared engine
    early = res.success and res.nit < int(max_iter)
    n_iter = res.nit + 1 if early else int(max_iter)
    trace = res.trace
    history = [{"iter": t + 1, "primal": trace["primal"][t], "dual": trace["dual"][t],
                "step": trace["step"][t]} for t in range(n_iter)]
    if not early:
        warnings.warn(
            f"npk_rank stopped at max_iter={max_iter} with duality gap {res.gap:.3g} "
            f"(tol {tol:g}); increase max_iter or tol.",
            ConvergenceWarning, stacklevel=4,
        )
    return res.state, res.x, n_iter, res.primal, res.dual, history


def npk_rank_lowrank(text_features, visual_features, n_components, *, n_neighbors=5,
                     C=1.0, B=None, tol=1e-6, max_iter=500):
    """The low-rank form of eq. 6.2 from features, in ``O(n (m + k))`` memory.

    For large ``n`` (the thesis's query-dependent candidate sets reach
    thousands of images): no ``n x n`` matrix is formed. The text kernel is
    the linear kernel of ``text_features`` (the thesis's normalised tf-idf
    vectors), the neighbour pairs and their Euclidean distances come from a
    k-nearest-neighbour search on ``visual_features`` (scikit-learn's
    ``NearestNeighbors``), the basis ``V`` from ARPACK on the sparse
    neighbour-graph Laplacian, and ``V^T H K_t H V = (V^T H T)(V^T H T)^T``.

    Returns
    -------
    NPKRankResult
        With ``kernel=None``: the learned kernel is ``basis @ factor @ basis.T``
        (``factor`` is the ``m x m`` ``P``); see :meth:`NPKRankResult.rows`.

    Parameters
    ----------
    text_features : array-like of shape (n, t)
    visual_features : array-like of shape (n, d)
    n_components : int
        ``m``, the size of the Laplacian basis.
    n_neighbors, C, B, tol, max_iter : as :func:`npk_rank`.

    Examples
    --------
    >>> import numpy as np
    >>> from proxlearn.ranking import npk_rank_lowrank
    >>> X = np.random.RandomState(0).randn(20, 3)
    >>> res = npk_rank_lowrank(np.eye(2)[np.repeat([0, 1], 10)], X, 5, n_neighbors=3)
    >>> res.kernel is None, res.basis.shape, res.factor.shape
    (True, (20, 5), (5, 5))

    See Also
    --------
    npk_rank : the full form.
    laplacian_basis : the basis ``V``.
    """
    T = np.asarray(text_features, dtype=np.float64)
    X = np.asarray(visual_features, dtype=np.float64)
    n = X.shape[0]
    if T.ndim != 2 or X.ndim != 2 or T.shape[0] != n:
        raise InvalidParameterError(
            f"text_features {T.shape} and visual_features {X.shape} must be 2-D with one "
            "row per item."
        )
    if not (np.all(np.isfinite(T)) and np.all(np.isfinite(X))):
        raise InvalidParameterError("text_features and visual_features must be finite.")
    k = check_n_neighbors(n_neighbors, n - 1)
    m = check_n_neighbors(n_components, n, name="n_components")
    C = check_positive(C, "C")
    B = float(n) if B is None else check_positive(B, "B")
    nn, dist = feature_neighbours(X, k, exclude_self="first", return_distance=True)
    i = np.repeat(np.arange(n), k)
    j = nn.ravel()
    d = dist.ravel()
    a, b = np.minimum(i, j), np.maximum(i, j)
    keep = a != b
    key, first = np.unique(a[keep] * n + b[keep], return_index=True)
    pairs = np.column_stack([key // n, key % n])
    d2 = d[keep][first] ** 2
    basis = laplacian_basis(pairs, n, m, sparse=n > SPARSE_BASIS_N)
    F = basis.T @ (T - T.mean(axis=0))
    G = F @ F.T
    E = basis[pairs[:, 0]] - basis[pairs[:, 1]]
    P, alpha, t, primal, dual, history = _protocol5(
        lambda al: G - E.T @ (al[:, None] * E),
        lambda P: np.einsum("pa,ab,pb->p", E, P, E),
        G, d2, C, B, tol, max_iter)
    return NPKRankResult(None, alpha, pairs, primal, dual, t, history, basis, P)


def npk_rank_sdp(K_text, D, *, n_neighbors=5, C=1.0, B=None, mutual=False,
                 solver="CLARABEL", max_n=60):
    """Eq. 6.2 as a cvxpy SDP (the oracle for :func:`npk_rank`; small ``n`` only).

    ``max_n`` guards against an accidental hour-long solve (the benchmark raises it).
    Returns ``(K, value)``.

    Parameters
    ----------
    K_text, D, n_neighbors, C, B, mutual : as :func:`npk_rank`.
    solver : str, default="CLARABEL"
        A cvxpy solver.
    max_n : int, default=60

    Examples
    --------
    >>> import numpy as np
    >>> from proxlearn.ranking import kernel_distances, label_kernel, npk_rank_sdp
    >>> X = np.random.RandomState(0).randn(8, 3)
    >>> K, value = npk_rank_sdp(label_kernel(np.repeat([0, 1], 4)), kernel_distances(X @ X.T), n_neighbors=2)
    >>> K.shape
    (8, 8)

    See Also
    --------
    npk_rank : the first-order solver it checks.
    """
    import cvxpy as cp

    from ..exceptions import SolverError

    Kt, D, k, C, B = _check(K_text, D, n_neighbors, C, B)
    n = Kt.shape[0]
    if n > max_n:
        raise InvalidParameterError(
            f"the SDP oracle is for small n (<= max_n = {max_n}), got n = {n}."
        )
    pairs = neighbour_pairs(D, k, mutual=mutual)
    d2 = D[pairs[:, 0], pairs[:, 1]] ** 2
    K = cp.Variable((n, n), PSD=True)
    xi = cp.Variable(len(pairs))
    i, j = pairs[:, 0], pairs[:, 1]
    dK = cp.diag(K)
    dist = dK[i] + dK[j] - 2 * K[i, j]  # vectorised: one affine map, fast to compile
    prob = cp.Problem(
        cp.Minimize(-cp.trace(center_kernel(Kt) @ K) + 0.5 * C * cp.sum_squares(xi)),
        [cp.sum_squares(K) <= B, dist <= d2 + xi],
    )
    try:
        prob.solve(solver=solver)
    except cp.error.SolverError as exc:
        raise SolverError(f"{solver} failed on the NPK SDP ({exc}).") from None
    if prob.status not in (cp.OPTIMAL, cp.OPTIMAL_INACCURATE):
        raise SolverError(f"{solver} returned status {prob.status!r} on the NPK SDP.")
    return K.value, float(prob.value)
