"""The SDP forms of the embeddings through cvxpy (the originals and the test oracles).

====================  ==========================================================
function              problem (``dist_ij(K) = K_ii + K_jj - 2 K_ij``)
====================  ==========================================================
``mve_step_sdp``      one MVE step (Shaw & Jebara 2007, Table 1 steps 5-6):
                      ``min -tr(K A0)  s.t.  K PSD, sum K = 0`` and either the
                      hard equalities ``dist_ij(K) = D_ij`` on the k-NN edges
                      (the original; ``C=None``) or the squared slack
                      ``+ C/2 sum xi^2, dist_ij(K) = D_ij - xi_ij`` (the NPKL
                      saddle problem, Zhuang 2011 sec. 3.4.1-3.4.2); optional
                      ``tr(K K) <= B``. CMVU's full problem is this with
                      ``A0 = H Y H``; ``G``: ``+ G/2 tr(K K)`` (penalty form).
``cmvu_lowrank_sdp``  colored MVU as published (Song et al. 2007): ``K = V P V^T``
                      with ``V`` fixed, ``P`` a ``d x d`` PSD variable
``spe_sdp``           SPE (Shaw & Jebara 2009): ``min -tr(K W) + C xi`` s.t.
                      ``dist_ij(K) >= dist_ik(K) - xi`` for ``k`` in ``N_i``, ``j``
                      not; ``xi >= 0``, ``sum K = 0`` and ``tr K <= 1`` (the
                      original) or ``tr(K K) <= B`` (the NPKL saddle problem);
                      all triplets, or cutting planes (the original's scheme)
====================  ==========================================================

``options`` is passed to ``cvxpy.Problem.solve`` (solver tolerances, iteration caps).
Each refuses ``n > max_n`` (default :data:`MAX_SDP_N`) with an
:class:`~proxlearn.exceptions.InvalidParameterError`: the interior-point cost
grows like ``n^6.5`` (thesis sec. 2.6); use ``solver="npkl"`` instead.
"""

from __future__ import annotations

import numpy as np

from .._validation import InvalidParameterError
from ..exceptions import SolverFailedError

__all__ = ["MAX_SDP_N", "cmvu_lowrank_sdp", "mve_step_sdp", "spe_sdp", "spe_violations"]

#: Largest ``n`` the cvxpy forms accept by default.
MAX_SDP_N = 200


def _guard(n, max_n):
    if n > max_n:
        raise InvalidParameterError(
            f"the SDP (cvxpy) form is limited to n <= max_n = {max_n} samples (interior-point "
            f"cost grows like n^6.5), got n = {n}. Use solver='npkl', or raise max_sdp_n "
            "knowingly.")


def _solve(prob, solver, what, options=None):
    import cvxpy as cp

    try:
        prob.solve(solver=solver, **(options or {}))
    except cp.error.SolverError as exc:
        raise SolverFailedError(f"{solver} failed on the {what} SDP ({exc}).") from None
    if prob.status not in (cp.OPTIMAL, cp.OPTIMAL_INACCURATE):
        raise SolverFailedError(f"{solver} returned status {prob.status!r} on the {what} SDP.")


def mve_step_sdp(A0, pairs, d2, *, C=None, B=None, G=None, solver="CLARABEL",
                 max_n=MAX_SDP_N, options=None):
    """One MVE step / the CMVU problem as a cvxpy SDP (see the module docstring).

    Returns ``(K, value)`` with ``value`` the optimal objective.

    Parameters
    ----------
    A0 : ndarray of shape (n, n)
        The objective ``tr(A0 K)`` (MVE: the step's ``K0``; CMVU: the centred label kernel).
    pairs : ndarray of shape (p, 2)
        The k-NN edges.
    d2 : ndarray of shape (p,)
        Their squared distances.
    C : float, optional
        ``None``: hard distance equalities (the original); else the squared-slack weight.
    B, G : float, optional
        The ball ``tr(K K) <= B`` or the penalty ``(G/2) tr(K K)``.
    solver : str, default="CLARABEL"
    max_n : int, default=MAX_SDP_N
    options : dict, optional

    Examples
    --------
    >>> import numpy as np
    >>> from proxlearn.manifold import mve_step_sdp
    >>> pairs, d2 = np.array([[0, 1], [0, 2], [1, 3]]), np.ones(3)
    >>> K, value = mve_step_sdp(np.eye(4) - 0.25, pairs, d2)
    >>> K.shape, np.allclose(K.sum(), 0.0, atol=1e-6)
    ((4, 4), True)

    See Also
    --------
    MVE : the estimator (``solver="sdp"``).
    cmvu_lowrank_sdp, spe_sdp
    """
    import cvxpy as cp

    n = A0.shape[0]
    _guard(n, max_n)
    K = cp.Variable((n, n), PSD=True)
    i, j = pairs[:, 0], pairs[:, 1]
    dK = cp.diag(K)
    dist = dK[i] + dK[j] - 2 * K[i, j]
    cons = [cp.sum(K) == 0]
    obj = -cp.trace(A0 @ K)
    if C is None:
        cons.append(dist == d2)
    else:
        obj = obj + 0.5 * C * cp.sum_squares(d2 - dist)
    if B is not None:
        cons.append(cp.sum_squares(K) <= B)
    if G is not None:  # the penalty form (Prop. 3.26)
        obj = obj + 0.5 * G * cp.sum_squares(K)
    prob = cp.Problem(cp.Minimize(obj), cons)
    _solve(prob, solver, "MVE", options)
    Kv = 0.5 * (K.value + K.value.T)
    return Kv, float(prob.value)


def cmvu_lowrank_sdp(A0, pairs, d2, V, *, C, B, G=None, solver="CLARABEL"):
    """CMVU with ``K = V P V^T`` (Song et al. 2007 sec. 4): ``d^2`` variables.

    ``min -tr(P V^T A0 V) + C/2 sum (D_ij - dist_ij)^2  s.t.  P PSD, tr(P P) <= B``
    (``V`` orthonormal, so ``tr(K K) = tr(P P)``); with ``G``: ``+ (G/2) tr(P P)`` in
    the objective and no ball (``B`` may be None). Returns ``(K, value)``.

    Examples
    --------
    >>> import numpy as np
    >>> from proxlearn.manifold import cmvu_lowrank_sdp
    >>> pairs, d2 = np.array([[0, 1], [0, 2], [1, 3]]), np.ones(3)
    >>> V = np.linalg.qr(np.eye(4) - 0.25)[0][:, :3]
    >>> K, value = cmvu_lowrank_sdp(np.eye(4) - 0.25, pairs, d2, V, C=1.0, B=1.0)
    >>> K.shape
    (4, 4)

    See Also
    --------
    CMVU : the estimator (``solver="lowrank"``).
    mve_step_sdp : the full problem.
    """
    import cvxpy as cp

    d = V.shape[1]
    P = cp.Variable((d, d), PSD=True)
    E = V[pairs[:, 0]] - V[pairs[:, 1]]  # dist_ij = e^T P e
    dist = cp.sum(cp.multiply(E @ P, E), axis=1)
    Gv = V.T @ A0 @ V
    obj = -cp.trace(Gv @ P) + 0.5 * C * cp.sum_squares(d2 - dist)
    cons = [] if B is None else [cp.sum_squares(P) <= B]
    if G is not None:
        obj = obj + 0.5 * G * cp.sum_squares(P)
    prob = cp.Problem(cp.Minimize(obj), cons)
    _solve(prob, solver, "low-rank CMVU")
    Pv = 0.5 * (P.value + P.value.T)
    return V @ Pv @ V.T, float(prob.value)


def spe_violations(K, W):
    """Per point ``i``: the most violated SPE triplet and its violation.

    ``v_i = max_{k in N_i} dist_ik(K) - min_{j not in N_i, j != i} dist_ij(K)``
    (``N_i`` the neighbours of ``i`` in ``W``); returns ``(v, j, k)``, ``O(n^2)``.
    Points with no neighbour or no non-neighbour get ``v = -inf``.
    """
    d = np.diag(K)
    Dk = d[:, None] + d[None, :] - 2.0 * K
    nb = W > 0
    far = ~nb
    np.fill_diagonal(far, False)
    near_d = np.where(nb, Dk, -np.inf)
    far_d = np.where(far, Dk, np.inf)
    k = np.argmax(near_d, axis=1)
    j = np.argmin(far_d, axis=1)
    rows = np.arange(K.shape[0])
    v = near_d[rows, k] - far_d[rows, j]
    v[~np.isfinite(v)] = -np.inf
    return v, j, k


def all_triplets(W):
    """Every SPE triplet ``(i, j, k)``: ``k`` in ``N_i``, ``j`` not (``j != i``)."""
    nb = W > 0
    out = []
    for i in range(W.shape[0]):
        ks = np.flatnonzero(nb[i])
        far = ~nb[i]
        far[i] = False
        js = np.flatnonzero(far)
        if len(ks) and len(js):
            jj, kk = np.meshgrid(js, ks, indexing="ij")
            out.append(np.column_stack([np.full(jj.size, i), jj.ravel(), kk.ravel()]))
    return np.concatenate(out) if out else np.zeros((0, 3), dtype=int)


def spe_sdp(W, *, C, B=None, G=None, triplets="cutting", solver="CLARABEL", max_n=MAX_SDP_N,
            tol=1e-6, max_rounds=50, options=None):
    """SPE as a cvxpy SDP (see the module docstring).

    ``B=None``: the original constraint ``tr K <= 1``; else ``tr(K K) <= B``;
    ``G``: ``+ (G/2) tr(K K)`` in the objective and no ball (penalty form).
    ``triplets="all"`` imposes every triplet at once (small ``n``);
    ``"cutting"`` starts from each point's most violated triplet at the
    unconstrained optimum and adds, per round, each point's most violated
    triplet whose violation exceeds the current ``xi`` by more than ``tol``
    (relative to the mean edge distance), until none does.

    Returns ``(K, value, n_rounds)``.

    Parameters
    ----------
    W : ndarray of shape (n, n)
        0/1 connectivity.
    C : float
        Weight of the shared slack.
    B, G : float, optional
        See above.
    triplets : {"cutting", "all"}, default="cutting"
    solver : str, default="CLARABEL"
        A cvxpy solver.
    max_n : int, default=MAX_SDP_N
        Larger problems are refused.
    tol : float, default=1e-6
    max_rounds : int, default=50
    options : dict, optional
        Passed to ``cvxpy.Problem.solve``.

    Examples
    --------
    >>> import numpy as np
    >>> from proxlearn.manifold import spe_sdp
    >>> W = np.array([[0., 1, 1, 0], [1, 0, 0, 1], [1, 0, 0, 1], [0, 1, 1, 0]])
    >>> K, value, n_rounds = spe_sdp(W, C=1.0)
    >>> K.shape, bool(np.trace(K) <= 1 + 1e-6)  # the original's tr K <= 1
    ((4, 4), True)

    See Also
    --------
    spe_npkl : the SimpleNPKL solver of :class:`SPE`.
    SPE : the estimator (``solver="sdp"``).
    """
    import cvxpy as cp

    n = W.shape[0]
    _guard(n, max_n)
    K = cp.Variable((n, n), PSD=True)
    xi = cp.Variable(nonneg=True)
    dK = cp.diag(K)
    obj = -cp.trace(W @ K) + C * xi
    if G is not None:  # penalty form (Prop. 3.26): no ball
        base = [cp.sum(K) == 0]
        obj = obj + 0.5 * G * cp.sum_squares(K)
    else:
        base = [cp.sum(K) == 0, (cp.trace(K) <= 1) if B is None else (cp.sum_squares(K) <= B)]
    obj = cp.Minimize(obj)

    def solve_with(T):
        cons = list(base)
        if len(T):
            i, j, k = T[:, 0], T[:, 1], T[:, 2]
            dij = dK[i] + dK[j] - 2 * K[i, j]
            dik = dK[i] + dK[k] - 2 * K[i, k]
            cons.append(dij >= dik - xi)
        prob = cp.Problem(obj, cons)
        _solve(prob, solver, "SPE", options)
        return 0.5 * (K.value + K.value.T), float(prob.value), float(xi.value)

    if triplets == "all":
        Kv, val, _ = solve_with(all_triplets(W))
        return Kv, val, 1
    if triplets != "cutting":
        raise InvalidParameterError(f"triplets must be 'all' or 'cutting', got {triplets!r}.")
    T = np.zeros((0, 3), dtype=int)
    Kv, val, xv = solve_with(T)
    seen = set()
    for rounds in range(1, max_rounds + 1):
        v, j, k = spe_violations(Kv, W)
        d = np.diag(Kv)
        scale = max(float(np.mean((d[:, None] + d[None, :] - 2 * Kv)[W > 0])), 1e-12)
        new = [(i, j[i], k[i]) for i in np.flatnonzero(v > xv + tol * scale)
               if (i, j[i], k[i]) not in seen]
        if not new:
            return Kv, val, rounds
        seen.update(new)
        T = np.vstack([T, np.array(new, dtype=int)])
        Kv, val, xv = solve_with(T)
    return Kv, val, max_rounds
