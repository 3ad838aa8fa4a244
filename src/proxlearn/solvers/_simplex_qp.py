"""Exact batched solver for small convex QPs over the probability simplex.

Solves, for every problem ``b`` of a batch,

.. math::

    \\min_x \\; \\tfrac12 x^T Q_b x - c_b^T x
    \\quad \\text{s.t.} \\quad x \\ge 0, \\; \\mathbf 1^T x = 1,

with ``Q_b`` symmetric positive semidefinite. This is the KRI weight problem of
Chen et al. (2009), section 5.2, eq. (12), with ``Q = S_local + reg * I`` and
``c = s``. A reproduction run solves it once per test point, per fold and per
grid value, so the solver works on a whole batch at once: every step is a
batched numpy operation and there is no Python loop over problems.

Method: two active-set phases on the bordered KKT systems of the faces, solved
for the whole batch by batched :func:`numpy.linalg.solve` calls: a primal-dual
active set (semismooth Newton) that usually finishes in a few iterations, then
a primal active set with exact line search (Nocedal & Wright, Alg. 16.3) for
the problems it did not finish. Optimality is certified by the KKT residual of
:func:`simplex_qp_kkt_residual`. Warm starts: ``x0`` (for example the solution
at the previous value of a regularisation grid) gives the first phase its free
set and proximal centre. The systems, the proximal term and the phases in
detail: docs/methods.md, section "The simplex QP solver".
"""

from __future__ import annotations

import contextlib
import warnings

import numpy as np

from ..exceptions import SimplexQPConvergenceWarning

__all__ = [
    "SimplexQPConvergenceWarning",
    "project_capped_simplex",
    "project_simplex",
    "simplex_qp_kkt_residual",
    "simplex_qp_objective",
    "single_threaded_blas",
    "solve_simplex_qp",
]


_CONTROLLER = None


def single_threaded_blas():
    """Context manager limiting BLAS/LAPACK to one thread (no-op if unavailable).

    Batched small-matrix LAPACK calls (``np.linalg.solve`` / ``eigh`` on
    ``(B, k, k)`` stacks) gain nothing from BLAS threads, and on a loaded
    machine multi-threaded OpenBLAS can be much slower on them (docs/benchmarks.md,
    "Solvers: simplex QP and SimSVM"). The :mod:`threadpoolctl` controller is
    created once and cached.
    """
    global _CONTROLLER
    try:
        if _CONTROLLER is None:
            from threadpoolctl import ThreadpoolController

            _CONTROLLER = ThreadpoolController()
        return _CONTROLLER.limit(limits=1, user_api="blas")
    except Exception:  # pragma: no cover - threadpoolctl missing or failing
        return contextlib.nullcontext()


def _as_batch(Q, c):
    Q = np.asarray(Q, dtype=np.float64)
    c = np.asarray(c, dtype=np.float64)
    single = Q.ndim == 2
    if single:
        Q = Q[None]
        c = c[None] if c.ndim == 1 else c
    if Q.ndim != 3 or Q.shape[1] != Q.shape[2]:
        raise ValueError(
            f"Q must have shape (B, k, k) (or (k, k) for one problem), got {Q.shape}."
        )
    if c.shape != Q.shape[:2]:
        raise ValueError(
            f"c must have shape {Q.shape[:2]} to match Q of shape {Q.shape}, "
            f"got {c.shape}."
        )
    if Q.shape[1] == 0:
        raise ValueError("The problems must have at least one variable (k >= 1).")
    if not (np.isfinite(Q).all() and np.isfinite(c).all()):
        raise ValueError("Q and c must be finite (no NaN or inf).")
    return Q, c, single


def project_simplex(V):
    """Euclidean projection of each row of ``V`` onto the probability simplex.

    Sorting-based algorithm (Held, Wolfe & Crowder 1974; Duchi et al. 2008):
    ``x = max(v - tau, 0)`` with the threshold ``tau`` found from the sorted
    values. Exact zeros are produced for the clipped coordinates.

    Parameters
    ----------
    V : array-like of shape (B, k) or (k,)

    Returns
    -------
    X : ndarray of the same shape, rows on the simplex.

    Examples
    --------
    >>> import numpy as np
    >>> from proxlearn.solvers import project_simplex
    >>> project_simplex(np.array([[0.5, 0.2, -0.1], [2., 0., 0.]])).round(4).tolist()
    [[0.6333, 0.3333, 0.0333], [1.0, 0.0, 0.0]]

    See Also
    --------
    project_capped_simplex : onto ``{x >= 0, sum x <= C}``.
    solve_simplex_qp : quadratic programs over the simplex.
    """
    V = np.asarray(V, dtype=np.float64)
    single = V.ndim == 1
    V2 = V[None] if single else V
    k = V2.shape[1]
    u = -np.sort(-V2, axis=1)  # descending
    css = np.cumsum(u, axis=1) - 1.0
    idx = np.arange(1, k + 1, dtype=np.float64)
    cond = u - css / idx > 0
    rho = k - 1 - np.argmax(cond[:, ::-1], axis=1)  # last index where cond holds
    tau = css[np.arange(V2.shape[0]), rho] / (rho + 1.0)
    X = np.maximum(V2 - tau[:, None], 0.0)
    return X[0] if single else X


def project_capped_simplex(v, C):
    """Euclidean projection of ``v`` onto ``{x >= 0, sum x <= C}`` (``C > 0``).

    ``max(v, 0)`` if that is inside, else ``C`` times the projection of ``v / C`` onto
    the probability simplex (:func:`project_simplex`). The dual feasible set of SPE's
    shared slack (:func:`proxlearn.manifold.spe_npkl`).

    Parameters
    ----------
    v : array-like of shape (n,)
    C : float > 0
        Bound on the sum.

    Returns
    -------
    ndarray of shape (n,)

    Examples
    --------
    >>> import numpy as np
    >>> from proxlearn.solvers import project_capped_simplex
    >>> project_capped_simplex(np.array([0.5, 0.7, -0.2]), 1.0).round(4).tolist()
    [0.4, 0.6, 0.0]
    >>> project_capped_simplex(np.array([0.2, 0.3]), 1.0).tolist()  # inside: kept
    [0.2, 0.3]

    See Also
    --------
    project_simplex : onto ``{x >= 0, sum x = 1}``.
    proxlearn.manifold.SPE : the caller (its dual projection).
    """
    p = np.maximum(v, 0.0)
    if p.sum() <= C:
        return p
    return C * project_simplex(v / C)


def simplex_qp_objective(Q, c, x):
    """Objective ``1/2 x^T Q x - c^T x`` of each problem, shape (B,).

    Parameters
    ----------
    Q, c : as in :func:`solve_simplex_qp`.
    x : array-like of shape (B, k) or (k,)
        Candidate solutions.

    Returns
    -------
    ndarray of shape (B,) (or float)

    Examples
    --------
    >>> import numpy as np
    >>> from proxlearn.solvers import simplex_qp_objective
    >>> float(simplex_qp_objective(np.diag([2., 1.]), np.array([1., 0.]), np.array([0.5, 0.5])))
    -0.125

    See Also
    --------
    solve_simplex_qp, simplex_qp_kkt_residual
    """
    Q, c, single = _as_batch(Q, c)
    x = np.asarray(x, dtype=np.float64).reshape(c.shape)
    val = 0.5 * np.einsum("bi,bij,bj->b", x, Q, x) - np.einsum("bi,bi->b", c, x)
    return val[0] if single else val


def _scale(Q, c):
    """Per-problem scale ``max(||Q||_inf, ||c||_inf, tiny)`` used to make residuals relative."""
    s = np.maximum(np.abs(Q).sum(axis=2).max(axis=1), np.abs(c).max(axis=1))
    return np.where(s > 0, s, 1.0)


def _matvec(Q, x):
    """Batched ``Q @ x`` for (B, k, k) and (B, k)."""
    return np.matmul(Q, x[:, :, None])[:, :, 0]


def _kkt(Q, c, x, scale):
    """KKT residual for batched arrays (no validation)."""
    return _kkt_from_grad(_matvec(Q, x) - c, x, scale)


def _kkt_from_grad(g, x, scale):
    """KKT residual given the gradient ``g = Q x - c``."""
    sx = x.sum(axis=1)
    # multiplier of the equality: x-weighted mean of the gradient (exact at a
    # solution because g_i = nu wherever x_i > 0)
    nu = np.einsum("bi,bi->b", np.maximum(x, 0.0), g) / np.where(sx > 0, sx, 1.0)
    dual = (g - nu[:, None]) / scale[:, None]
    # natural (min-function) residual: covers x_i < 0, g_i < nu, and
    # complementarity x_i * (g_i - nu) = 0 in one number per coordinate
    comp = np.abs(np.minimum(x, dual)).max(axis=1)
    return np.maximum(comp, np.abs(sx - 1.0))


def simplex_qp_kkt_residual(Q, c, x):
    """Scaled KKT residual of candidate solutions of the simplex QP.

    With ``g = Q x - c`` and ``nu = sum_i x_i g_i / sum_i x_i`` (the multiplier
    of ``1^T x = 1``), the KKT conditions are ``x >= 0``, ``1^T x = 1``,
    ``g_i >= nu`` for all ``i`` and ``g_i = nu`` where ``x_i > 0``. The
    residual is

    ``max( max_i |min(x_i, (g_i - nu) / s)|, |1^T x - 1| )``

    with ``s = max(||Q||_inf, ||c||_inf)`` (the largest absolute row sum of
    ``Q``; an upper bound on ``||Q||_2``). It is zero exactly at a solution and
    is invariant to scaling ``Q`` and ``c`` together.

    Parameters
    ----------
    Q : array-like of shape (B, k, k) or (k, k)
    c : array-like of shape (B, k) or (k,)
    x : array-like of shape (B, k) or (k,)

    Returns
    -------
    residual : ndarray of shape (B,) (float for a single problem)

    Examples
    --------
    >>> import numpy as np
    >>> from proxlearn.solvers import simplex_qp_kkt_residual
    >>> Q, c = np.diag([2., 1.]), np.array([1., 0.])
    >>> simplex_qp_kkt_residual(Q, c, np.array([0.5, 0.5]))  # not optimal
    0.125
    >>> bool(simplex_qp_kkt_residual(Q, c, np.array([2 / 3, 1 / 3])) < 1e-12)
    True

    See Also
    --------
    solve_simplex_qp, simplex_qp_objective
    """
    Q, c, single = _as_batch(Q, c)
    x = np.asarray(x, dtype=np.float64).reshape(c.shape)
    r = _kkt(Q, c, x, _scale(Q, c))
    return float(r[0]) if single else r


def _face_solve(Q, rows, c, free, xref, delta):
    """Minimise over the affine hull of each face {x_i = 0 for i not free, 1^T x = 1}.

    Solves the proximally regularised bordered KKT system on the free
    coordinates of every problem ``Q[rows[b]]`` (``Q`` symmetric; ``c``,
    ``free``, ``xref`` and ``delta`` are aligned with ``rows``). Only the rows
    of ``Q`` indexed by the free set are gathered (contiguous rows, never the
    full ``(k, k)`` matrices), the free coordinates are moved to the front, and
    problems are grouped by free-set size (rounded up to a multiple of 8) so
    that each group is one batched :func:`numpy.linalg.solve` of size
    ``m + 1`` rather than ``k + 1``; padded rows are identity rows. The
    gathered rows also give the gradient ``g = Q y - c`` (``y`` is zero off
    the free set). Returns ``(y, nu, g)``.
    """
    B, k = c.shape
    cnt = free.sum(axis=1)
    y = np.zeros((B, k))
    g = np.empty((B, k))
    nu = np.zeros(B)
    bucket = np.minimum(-(-cnt // 8) * 8, k)
    for m in np.unique(bucket):
        sel = np.flatnonzero(bucket == m)
        n = sel.size
        fr = free[sel]
        valid = np.arange(m)[None, :] < cnt[sel, None]
        vf = valid.astype(np.float64)
        M = np.empty((n, m + 1, m + 1))
        full = m == k and valid.all()
        if full:
            order = np.broadcast_to(np.arange(k), (n, k))
            r = rows[sel]
            if n == Q.shape[0] and (r == np.arange(n)).all():
                Qr = Q
            else:
                Qr = Q[r]  # (n, k, k)
            Qs = Qr
            M[:, :m, :m] = Qs
        else:
            order = np.argsort(~fr, axis=1, kind="stable")[:, :m]  # free first
            # rows of the free set, (n, m, k), and their (n, m, m) sub-block
            # (flat np.take: much faster than fancy indexing here)
            Qr = np.take(Q.reshape(-1, k), rows[sel][:, None] * k + order, axis=0)
            ind = (np.arange(n * m) * k).reshape(n, m, 1) + order[:, None, :]
            Qs = np.take(Qr.reshape(-1), ind)
            np.multiply(Qs, vf[:, :, None] * vf[:, None, :], out=M[:, :m, :m])
        dg = np.arange(m)
        M[:, dg, dg] = np.where(valid, Qs[:, dg, dg] + delta[sel, None], 1.0)
        M[:, :m, m] = -vf
        M[:, m, :m] = vf
        M[:, m, m] = 0.0
        rhs = np.empty((n, m + 1))
        cs = np.take_along_axis(c[sel], order, axis=1)
        xs = np.take_along_axis(xref[sel], order, axis=1)
        rhs[:, :m] = np.where(valid, cs + delta[sel, None] * xs, 0.0)
        rhs[:, m] = 1.0
        sol = np.linalg.solve(M, rhs[:, :, None])[:, :, 0]
        yv = np.where(valid, sol[:, :m], 0.0)
        ys = np.zeros((n, k))
        np.put_along_axis(ys, order, yv, axis=1)
        y[sel] = ys
        nu[sel] = sol[:, m]
        # g = Q y - c = Q[:, F] y_F = Q[F, :]^T y_F (Q symmetric)
        g[sel] = np.matmul(yv[:, None, :], Qr)[:, 0, :] - c[sel]
    return y, nu, g


def _symmetrize_and_scale(Q, c):
    """Symmetric part ``(Q + Q^T) / 2`` of each problem and its :func:`_scale`.

    One cache-friendly pass over chunks of problems. Exactly symmetric input
    (the usual case) is returned as is, without a copy (it is never written
    to); otherwise a symmetrised copy is made.
    """
    B, k, _ = Q.shape
    out = None
    rs = np.empty(B)
    step = max(1, (1 << 16) // (k * k))  # ~512 kB of float64 per chunk
    for i in range(0, B, step):
        q = Q[i : i + step]
        qt = np.swapaxes(q, 1, 2)
        if out is None and np.array_equal(q, qt):
            blk = q
        else:
            if out is None:
                out = np.empty_like(Q)
                out[:i] = Q[:i]
            blk = out[i : i + step]
            np.add(q, qt, out=blk)
            blk *= 0.5
        rs[i : i + step] = np.abs(blk).sum(axis=2).max(axis=1)
    s = np.maximum(rs, np.abs(c).max(axis=1))
    return (Q if out is None else out), np.where(s > 0, s, 1.0)


def solve_simplex_qp(
    Q,
    c,
    *,
    x0=None,
    tol: float = 1e-10,
    max_iter: int | None = None,
    n_pdas: int = 20,
    return_info: bool = False,
):
    """Solve a batch of convex QPs over the probability simplex exactly.

    ``minimise 1/2 x^T Q x - c^T x  subject to  x >= 0, sum(x) = 1`` for each
    problem of the batch. Used for the KRI weights of Chen et al. (2009),
    section 5.2, eq. (12) (``Q = S + reg * I``, ``c = s``; the caller adds the
    ridge term).

    Parameters
    ----------
    Q : array-like of shape (B, k, k) or (k, k)
        Symmetric positive semidefinite matrices (only the symmetric part is
        used). Indefinite matrices are not supported: the result is then a
        KKT point at best and the residual may stay large.
    c : array-like of shape (B, k) or (k,)
        Linear terms.
    x0 : array-like of shape (B, k), optional
        Warm start (e.g. the solution at a neighbouring regularisation value).
        It is projected onto the simplex; its support is the initial guess of
        the active set.
    tol : float, default=1e-10
        Target scaled KKT residual (see :func:`simplex_qp_kkt_residual`).
    max_iter : int, optional
        Iteration cap of the primal active-set phase, default ``10 * k + 50``.
    n_pdas : int, default=20
        Iteration cap of the primal-dual active-set phase.
    return_info : bool, default=False
        Also return a dict with ``"n_iter"`` (per problem, both phases) and
        ``"converged"`` (residual <= tol).

    Returns
    -------
    x : ndarray of shape (B, k) (or (k,))
        The solutions (exactly on the simplex up to rounding; exact zeros off
        the support).
    residual : ndarray of shape (B,) (or float)
        Scaled KKT residuals of the returned ``x``.
    info : dict
        Only with ``return_info=True``.

    Warns
    -----
    SimplexQPConvergenceWarning
        If some problem did not reach ``tol`` (reported with the worst
        residual; the best iterate found is returned).

    Examples
    --------
    >>> import numpy as np
    >>> from proxlearn.solvers import solve_simplex_qp
    >>> Q = np.stack([np.diag([2., 1.]), np.eye(2)])
    >>> x, residual = solve_simplex_qp(Q, np.array([[1., 0.], [0., 1.]]))
    >>> x.round(4).tolist(), bool((residual < 1e-10).all())
    ([[0.6667, 0.3333], [0.0, 1.0]], True)

    See Also
    --------
    simplex_qp_kkt_residual : the certificate.
    project_simplex : the Euclidean projection (``Q = I``).
    proxlearn.neighbors.kri_weights : the caller (Chen et al. 2009, eq. (12)).
    """
    Q, c, single = _as_batch(Q, c)
    with single_threaded_blas():
        return _solve(Q, c, single, x0, tol, max_iter, n_pdas, return_info)


def _solve(Q, c, single, x0, tol, max_iter, n_pdas, return_info):
    Q, scale = _symmetrize_and_scale(Q, c)
    B, k = c.shape
    if max_iter is None:
        max_iter = 10 * k + 50
    delta = 1e-13 * scale
    n_iter = np.zeros(B, dtype=np.int64)

    if x0 is None:
        x = np.full((B, k), 1.0 / k)
        g = _matvec(Q, x) - c
        res = _kkt_from_grad(g, x, scale)
        m0 = k // 4
        if m0 >= 4:
            # initial free set: the k/4 coordinates of steepest descent at
            # the barycentre (much smaller than k and usually close to the
            # support, so the first face solves are small)
            top = np.argpartition(g, m0 - 1, axis=1)[:, :m0]
            free = np.zeros((B, k), dtype=bool)
            np.put_along_axis(free, top, True, axis=1)
        else:
            free = np.ones((B, k), dtype=bool)
    else:
        x0 = np.asarray(x0, dtype=np.float64)
        if x0.size != B * k:
            raise ValueError(f"x0 must have shape {(B, k)}, got {x0.shape}.")
        x0 = x0.reshape(B, k)
        # A warm start that is feasible up to rounding (a previous solution)
        # is only renormalised: projecting it would shift every coordinate by
        # the tiny rounding error of its sum and so turn the exact zeros off
        # its support into positive values, i.e. give a full initial free set.
        feasible = (x0 >= 0).all(axis=1) & (np.abs(x0.sum(axis=1) - 1.0) <= 1e-9)
        x = np.empty((B, k))
        x[feasible] = x0[feasible] / x0[feasible].sum(axis=1, keepdims=True)
        x[~feasible] = project_simplex(x0[~feasible])
        res = _kkt(Q, c, x, scale)
        free = x > 0

    # ---- phase 1: primal-dual active set (many coordinates per step) ----
    # Active problems are kept as an index array into the (uncopied) Q.
    keep = res > tol
    todo = np.flatnonzero(keep)
    ca, sa, da = c[todo], scale[todo], delta[todo]
    fa, xa, ra = free[todo], x[todo], res[todo]
    for _ in range(n_pdas):
        if todo.size == 0:
            break
        y, nu, g = _face_solve(Q, todo, ca, fa, xa, da)
        n_iter[todo] += 1
        r = _kkt_from_grad(g, y, sa)
        better = r < ra
        xa = np.where(better[:, None], y, xa)
        ra = np.where(better, r, ra)
        x[todo] = xa
        res[todo] = ra
        newfree = (fa & (y > 0)) | (~fa & (g < nu[:, None]))
        # keep at least one coordinate free (the largest y)
        empty = ~newfree.any(axis=1)
        if empty.any():
            newfree[empty, np.argmax(y[empty], axis=1)] = True
        fa = newfree
        keep = r > tol
        if not keep.all():
            todo, ca, sa, da = todo[keep], ca[keep], sa[keep], da[keep]
            fa, xa, ra = fa[keep], xa[keep], ra[keep]

    Qa = Q[todo]

    def compact(keep):
        nonlocal todo, Qa, ca, sa, da, fa, xa, ra
        if not keep.all():
            todo, Qa, ca, sa, da = todo[keep], Qa[keep], ca[keep], sa[keep], da[keep]
            fa, xa, ra = fa[keep], xa[keep], ra[keep]

    # ---- phase 2: primal active set with exact line search (monotone) ----
    if todo.size:
        # start from a feasible point with exact zeros
        bad = (xa < 0).any(axis=1) | (np.abs(xa.sum(axis=1) - 1.0) > 1e-12)
        if bad.any():
            xa = xa.copy()
            xa[bad] = project_simplex(xa[bad])
        fa = xa > 0
        g = _matvec(Qa, xa) - ca
        ra = _kkt_from_grad(g, xa, sa)
        x[todo] = xa
        res[todo] = ra
        it = 0
        while todo.size and it < max_iter:
            it += 1
            n_iter[todo] += 1
            y, _, _ = _face_solve(Qa, np.arange(todo.size), ca, fa, xa, da)
            d = y - xa
            slope = np.einsum("bi,bi->b", g, d)
            curv = np.einsum("bi,bi->b", d, _matvec(Qa, d))
            with np.errstate(divide="ignore", invalid="ignore"):
                a_exact = np.where(
                    curv > 0, -slope / curv, np.where(slope < 0, np.inf, 0.0)
                )
                a_exact = np.maximum(a_exact, 0.0)
                neg = fa & (d < 0)
                ratios = np.where(neg, xa / np.where(neg, -d, 1.0), np.inf)
            a_block = ratios.min(axis=1)
            blocked = a_block <= a_exact
            alpha = np.minimum(a_block, a_exact)
            alpha = np.where(np.isfinite(alpha), alpha, 0.0)
            xn = xa + alpha[:, None] * d
            # fix the blocking coordinates at exactly zero
            hit = blocked[:, None] & neg & (ratios <= a_block[:, None])
            xn = np.where(hit, 0.0, np.maximum(xn, 0.0))
            xn /= xn.sum(axis=1, keepdims=True)
            fn = fa & ~hit
            g = _matvec(Qa, xn) - ca
            nu = np.einsum("bi,bi->b", xn, g)
            mu = np.where(fn, np.inf, g - nu[:, None])
            j = np.argmin(mu, axis=1)
            rows = np.arange(todo.size)
            release = ~blocked & (mu[rows, j] < -tol * sa)
            fn[rows[release], j[release]] = True
            xa, fa = xn, fn
            ra = _kkt_from_grad(g, xn, sa)
            x[todo] = xa
            res[todo] = ra
            keep = ra > tol
            g = g[keep]
            compact(keep)

    # Final residuals with the plain batched matvec, so that they agree to the
    # last bit with simplex_qp_kkt_residual (phase 1 computes the gradient from
    # the gathered rows, a different summation order).
    res = _kkt(Q, c, x, scale)
    todo = np.flatnonzero(res > tol)
    if todo.size:
        warnings.warn(
            f"{todo.size} of {B} simplex QPs did not reach the KKT tolerance "
            f"{tol:g} (worst scaled residual {res[todo].max():.3g}); the best "
            "iterates are returned. Is Q positive semidefinite?",
            SimplexQPConvergenceWarning,
            stacklevel=3,
        )
    if single:
        out = (x[0], float(res[0]))
    else:
        out = (x, res)
    if return_info:
        info = {"n_iter": n_iter, "converged": res <= tol}
        return (*out, info)
    return out
