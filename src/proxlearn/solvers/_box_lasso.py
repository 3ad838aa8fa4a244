"""Box-constrained lasso, the optimisation problem behind the P-SVM.

Problem
-------
.. math::

    \\min_x \\; P(x) = \\tfrac12 \\|b - A x\\|_2^2 + \\varepsilon \\|x\\|_1
    \\quad \\text{s.t.} \\quad \\|x\\|_\\infty \\le C,

which is eq. (2.8) of Chen (2010, PhD thesis) and eq. (6) of Chen et al.
(JMLR 2009) with ``A = S`` and ``b = y`` (Hochreiter & Obermayer 2006).

Optimality certificate
----------------------
Write ``r = b - A x`` (residual) and ``g = A^T (A x - b) = -A^T r`` (gradient
of the smooth part). ``x`` is optimal iff for every coordinate ``j``
``0 in g_j + eps * d|x_j| + N_[-C, C](x_j)``, i.e.

* ``0 < |x_j| < C``: ``g_j = -eps * sign(x_j)``;
* ``x_j = 0``:       ``|g_j| <= eps``;
* ``x_j = C``:       ``g_j <= -eps``;
* ``x_j = -C``:      ``g_j >= eps``.

:func:`box_lasso_kkt_residual` returns, per coordinate, the distance from 0 to
that set and takes the maximum.

:func:`box_lasso_duality_gap` returns the Fenchel duality gap at the dual point
``u = A x - b``, the separable non-negative sum
``sum_j [eps |x_j| + g_j x_j + C max(0, |g_j| - eps)]``, an upper bound on
``P(x) - P(x*)`` for any feasible ``x`` (derivation in docs/methods.md,
"Box-constrained lasso: the duality gap").

Algorithms
----------
``method="ipm"`` (default): primal-dual interior point with an exact
active-set polish (see :func:`box_lasso`).

``method="fista"``: accelerated proximal gradient (Beck & Teboulle
2009) on the Gram matrix ``G = A^T A`` with step ``1 / lambda_max(G)``, gradient
-based adaptive restart (O'Donoghue & Candes 2015) and an *active-set polish*:
whenever the sign/bound pattern of the iterate is stable between two checks,
the reduced linear system on the free coordinates is solved exactly (Cholesky)
and accepted if it is sign-consistent, inside the box and not worse. The
prox of ``eps ||x||_1 + indicator(box)`` is soft-thresholding followed by
clipping, which gives exact zeros and exact bounds.

``method="cd"``: cyclic coordinate descent with exact coordinate minimisation
``x_j <- clip(soft(x_j - g_j / G_jj, eps / G_jj), -C, C)``. It is pure Python
per coordinate and therefore slower for n in the hundreds; it is kept as a
reference implementation (see ``benchmarks/bench_psvm_lp.py``).
"""

from __future__ import annotations

import numbers

import numpy as np
import scipy.linalg

from .._linalg import top_eigh
from .._validation import InvalidParameterError, check_option, check_positive
from ._result import SolverResult

__all__ = [
    "BoxLassoResult",
    "box_lasso",
    "box_lasso_duality_gap",
    "box_lasso_kkt_residual",
    "box_lasso_objective",
]


class BoxLassoResult(SolverResult):
    """Solution of :func:`box_lasso` and its optimality certificate (a :class:`SolverResult`).

    Attributes
    ----------
    x : ndarray of shape (n,)
        The solution.
    fun : float
        ``1/2 ||b - A x||^2 + eps ||x||_1`` (alias ``objective``).
    gap : float
        ``P(x) - D(x)`` for the Fenchel dual point ``u = A x - b`` (an upper
        bound on the suboptimality ``P(x) - P*``; alias ``duality_gap``).
    kkt_residual : float
        Largest per-coordinate distance from 0 to the subdifferential of the
        objective (including the box normal cone).
    nit : int
        Iterations (FISTA steps or coordinate-descent sweeps; alias ``n_iter``).
    success : bool
        Whether the stopping rule ``gap <= tol * max(1, P(x))`` was met (alias
        ``converged``).
    status, message
        0 and ``"stopping rule met"``, or 1 and ``"max_iter reached"``.

    Examples
    --------
    >>> import numpy as np
    >>> from proxlearn.solvers import box_lasso
    >>> res = box_lasso(np.array([[1., 0.], [0., 2.], [1., 1.]]), np.array([1., 2., 0.]), 0.1, 1.0)
    >>> res.converged, round(res.objective, 4), res.duality_gap < 1e-8
    (True, 0.975, True)

    See Also
    --------
    box_lasso : the solver that returns it.
    box_lasso_kkt_residual, box_lasso_duality_gap : the certificate for any ``x``.
    """

    _aliases = {"objective": "fun", "duality_gap": "gap", "n_iter": "nit",
                "converged": "success"}

    def __init__(self, x, objective, duality_gap, kkt_residual, n_iter, converged):
        super().__init__(x=x, fun=objective, gap=duality_gap, kkt_residual=kkt_residual,
                         nit=n_iter, **self.stopping(converged))


def _soft_clip(v, thr, C):
    """Prox of ``thr ||.||_1 + indicator(|.| <= C)``: soft-threshold then clip."""
    return np.clip(np.sign(v) * np.maximum(np.abs(v) - thr, 0.0), -C, C)


def _objective_from_gram(x, G, c, bb, eps):
    """``1/2 ||b - Ax||^2 + eps ||x||_1`` via ``G = A^T A``, ``c = A^T b``, ``bb = b^T b``."""
    Gx = G @ x
    return 0.5 * (bb - 2.0 * c @ x + x @ Gx) + eps * np.abs(x).sum(), Gx


def _gap_terms(x, g, eps, C):
    """Separable duality-gap terms ``eps|x_j| + g_j x_j + C (|g_j| - eps)_+``."""
    return eps * np.abs(x) + g * x + C * np.maximum(np.abs(g) - eps, 0.0)


def _kkt_from_gradient(x, g, eps, C):
    """Per-coordinate KKT residual from the smooth-part gradient ``g``."""
    res = np.empty_like(x)
    at_upper = x >= C
    at_lower = x <= -C
    zero = x == 0.0
    pos = (x > 0.0) & ~at_upper
    neg = (x < 0.0) & ~at_lower
    res[zero] = np.maximum(np.abs(g[zero]) - eps, 0.0)
    res[pos] = np.abs(g[pos] + eps)
    res[neg] = np.abs(g[neg] - eps)
    res[at_upper] = np.maximum(g[at_upper] + eps, 0.0)
    res[at_lower] = np.maximum(eps - g[at_lower], 0.0)
    return res


def _check_problem(A, b, eps, C):
    A = np.ascontiguousarray(A, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64).ravel()
    if A.ndim != 2:
        raise InvalidParameterError(f"A must be a 2-D matrix, got shape {A.shape}.")
    if b.shape[0] != A.shape[0]:
        raise InvalidParameterError(
            f"b has {b.shape[0]} entries but A has {A.shape[0]} rows."
        )
    if not (np.all(np.isfinite(A)) and np.all(np.isfinite(b))):
        raise InvalidParameterError("A and b must be finite.")
    eps = check_positive(eps, "eps", allow_zero=True)
    C = check_positive(C, "C")
    return A, b, eps, C


def box_lasso_objective(A, b, x, eps) -> float:
    """Primal objective ``1/2 ||b - A x||^2 + eps ||x||_1`` (box not checked).

    Parameters
    ----------
    A, b, eps : as in :func:`box_lasso`.
    x : array-like of shape (n,)
        Candidate solution.

    Returns
    -------
    float

    Examples
    --------
    >>> import numpy as np
    >>> from proxlearn.solvers import box_lasso_objective
    >>> A, b = np.array([[1., 0.], [0., 2.], [1., 1.]]), np.array([1., 2., 0.])
    >>> box_lasso_objective(A, b, np.zeros(2), eps=0.1)
    2.5

    See Also
    --------
    box_lasso, box_lasso_duality_gap
    """
    A = np.asarray(A, dtype=np.float64)
    x = np.asarray(x, dtype=np.float64).ravel()
    r = np.asarray(b, dtype=np.float64).ravel() - A @ x
    return float(0.5 * r @ r + eps * np.abs(x).sum())


def box_lasso_kkt_residual(A, b, x, eps, C, *, bound_tol: float = 0.0) -> float:
    """Largest KKT violation of ``x`` for the box-constrained lasso.

    Parameters
    ----------
    A, b, eps, C : as in :func:`box_lasso`.
    x : array-like of shape (n,)
        Candidate solution; it must satisfy ``|x_j| <= C`` (up to
        ``bound_tol``, which also decides which coordinates count as ``0`` or
        at a bound; use a small positive value for solutions of an interior
        point solver such as Clarabel).

    Returns
    -------
    float
        ``max_j dist(0, g_j + eps * d|x_j| + N_box(x_j))`` with
        ``g = A^T (A x - b)``.

    Examples
    --------
    >>> import numpy as np
    >>> from proxlearn.solvers import box_lasso, box_lasso_kkt_residual
    >>> A, b = np.array([[1., 0.], [0., 2.], [1., 1.]]), np.array([1., 2., 0.])
    >>> x = box_lasso(A, b, 0.1, 1.0).x
    >>> box_lasso_kkt_residual(A, b, x, 0.1, 1.0) < 1e-8
    True

    See Also
    --------
    box_lasso_duality_gap : the other certificate (a bound on ``P(x) - P*``).
    box_lasso
    """
    A, b, eps, C = _check_problem(A, b, eps, C)
    x = np.asarray(x, dtype=np.float64).ravel().copy()
    if np.any(np.abs(x) > C + bound_tol):
        raise InvalidParameterError(
            f"x violates the box |x_j| <= C = {C} by {np.abs(x).max() - C:.3g}."
        )
    if bound_tol > 0.0:
        x[np.abs(x) <= bound_tol] = 0.0
        x[x >= C - bound_tol] = C
        x[x <= -C + bound_tol] = -C
    g = A.T @ (A @ x - b)
    return float(_kkt_from_gradient(x, g, eps, C).max())


def box_lasso_duality_gap(A, b, x, eps, C) -> float:
    """Fenchel duality gap ``P(x) - D(-r)`` of a feasible ``x`` (see module docstring).

    Parameters
    ----------
    A, b, eps, C : as in :func:`box_lasso`.
    x : array-like of shape (n,)
        Candidate solution (clipped to the box ``|x_j| <= C``).

    Returns
    -------
    float
        ``P(x) - D(-r)`` with ``r = b - A x``, an upper bound on ``P(x) - P*``.

    Examples
    --------
    >>> import numpy as np
    >>> from proxlearn.solvers import box_lasso_duality_gap
    >>> A, b = np.array([[1., 0.], [0., 2.], [1., 1.]]), np.array([1., 2., 0.])
    >>> round(box_lasso_duality_gap(A, b, np.zeros(2), 0.1, 1.0), 4)
    4.8

    See Also
    --------
    box_lasso_kkt_residual, box_lasso_objective, box_lasso
    """
    A, b, eps, C = _check_problem(A, b, eps, C)
    x = np.clip(np.asarray(x, dtype=np.float64).ravel(), -C, C)
    g = A.T @ (A @ x - b)
    return float(max(_gap_terms(x, g, eps, C).sum(), 0.0))


def _lambda_max(G):
    """Largest eigenvalue of the symmetric PSD matrix ``G`` (the Lipschitz constant)."""
    n = G.shape[0]
    if n <= 2:
        return float(np.linalg.eigvalsh(G)[-1])
    return float(top_eigh(G, 1, eigvals_only=True)[0])


# The interior point method factorises a small n x n matrix in every iteration
# and solves with it twice; scipy.linalg.cho_factor / cho_solve add input
# checks and array-API dispatch that cost more than the LAPACK calls at these
# sizes, so the LAPACK routines are called directly.
_potrf, _potrs = scipy.linalg.lapack.get_lapack_funcs(("potrf", "potrs"), dtype=np.float64)


def _cholesky(M):
    """Upper Cholesky factor of the symmetric matrix ``M``, or None if not PD."""
    factor, info = _potrf(M, lower=0, clean=0, overwrite_a=0)
    return factor if info == 0 else None


def _cho_solve(factor, rhs):
    x, info = _potrs(factor, rhs, lower=0, overwrite_b=0)
    if info != 0:  # pragma: no cover - only on invalid arguments
        raise np.linalg.LinAlgError(f"potrs failed with info={info}")
    return x


def _polish(x, G, c, eps, C):
    """Solve the quadratic on the current face exactly; None if not consistent."""
    free = (x != 0.0) & (np.abs(x) < C)
    if not free.any():  # the face is a single point
        return x.copy()
    fixed = ~free
    s = np.sign(x[free])
    rhs = c[free] - eps * s - G[np.ix_(free, fixed)] @ x[fixed]
    GFF = G[np.ix_(free, free)]
    factor = _cholesky(GFF)
    if factor is None:
        return None
    xf = _cho_solve(factor, rhs)
    # one step of iterative refinement (the reduced Gram matrix is often
    # ill-conditioned for similarity matrices)
    xf += _cho_solve(factor, rhs - GFF @ xf)
    if not np.all(np.isfinite(xf)):
        return None
    if np.any(np.sign(xf) != s) or np.any(np.abs(xf) > C):
        return None
    out = x.copy()
    out[free] = xf
    return out


def _polish_refine(x, G, c, bb, eps, C, rounds=10):
    """Polish on the face of ``x``; then repeatedly free the fixed coordinates
    whose KKT condition fails and polish again (a primal active-set step).

    Returns ``(gap, x)`` of the best polished point, or ``(inf, None)``.
    """
    best = (np.inf, None)
    face = x
    for _ in range(rounds):
        pol = _polish(face, G, c, eps, C)
        if pol is None:
            break
        g = G @ pol - c
        gap = _gap_terms(pol, g, eps, C).sum()
        if gap < best[0]:
            best = (gap, pol)
        # violated fixed coordinates: at 0 with |g| > eps, at +C with g > -eps,
        # at -C with g < eps; release them into the free set with the sign the
        # gradient asks for.
        zero = pol == 0.0
        viol_zero = zero & (np.abs(g) > eps)
        viol_up = (pol >= C) & (g > -eps)
        viol_lo = (pol <= -C) & (g < eps)
        if not (viol_zero.any() or viol_up.any() or viol_lo.any()):
            break
        nxt = pol.copy()
        tiny = 1e-300
        nxt[viol_zero] = -np.sign(g[viol_zero]) * tiny
        nxt[viol_up] = C * (1.0 - 1e-12)
        nxt[viol_lo] = -C * (1.0 - 1e-12)
        face = nxt
    return best


def _ipm_identify(u, v, lam_u, lam_v, mu_u, mu_v, C):
    """Guess the optimal face from an interior point: compare slacks with duals."""
    x = u - v
    out = x.copy()
    zero = (lam_u > u) & (lam_v > v)
    upper = mu_u > (C - u)
    lower = mu_v > (C - v)
    out[zero] = 0.0
    out[upper] = C
    out[lower] = -C
    return out


def _ipm(G, c, bb, eps, C, tol, max_iter):
    """Mehrotra predictor-corrector interior point on the split problem.

    With ``x = u - v``, ``0 <= u, v <= C`` the problem is the bound-constrained
    QP ``min 1/2 (u-v)^T G (u-v) - c^T (u-v) + eps 1^T (u + v)``. Each Newton
    system ``(H + diag(D_u, D_v)) (du, dv) = (p, q)`` with
    ``H = [[G, -G], [-G, G]]`` reduces to the n x n positive definite system
    ``(G + D_u D_v / (D_u + D_v)) dx = p - D_u (p + q) / (D_u + D_v)`` for
    ``dx = du - dv``, then ``du = (p + q + D_v dx) / (D_u + D_v)``,
    ``dv = du - dx`` (one Cholesky factorisation per iteration).

    Once the duality gap of ``x = u - v`` is small, the optimal face is guessed
    by comparing slacks with their duals and solved exactly (:func:`_polish`).
    Stops when the gap meets ``tol`` or stops improving.
    """
    n = G.shape[0]
    u = np.full(n, 0.5 * C)
    v = np.full(n, 0.5 * C)
    scale = max(1.0, float(np.abs(c).max(initial=0.0)), eps)
    lam_u = np.full(n, scale)
    lam_v = np.full(n, scale)
    mu_u = np.full(n, scale)
    mu_v = np.full(n, scale)
    diag_scale = max(float(np.abs(np.diag(G)).max(initial=0.0)), 1.0)
    tried = set()
    best = (np.inf, None)  # best interior iterate (gap, x)
    best_pol = (np.inf, None)  # best polished point (gap, x)
    last_improved = 0
    target = tol
    it = 0
    while True:
        it += 1
        x = u - v
        Gx = G @ x
        g = Gx - c
        obj = 0.5 * (bb - 2.0 * c @ x + x @ Gx) + eps * np.abs(x).sum()
        gap = _gap_terms(x, g, eps, C).sum()
        target = tol * max(1.0, obj)
        if gap < 0.5 * best[0]:
            last_improved = it
        if gap < best[0]:
            best = (gap, x)
        if gap <= 1e-3 * max(1.0, obj):
            cand = _ipm_identify(u, v, lam_u, lam_v, mu_u, mu_v, C)
            key = (np.sign(cand).astype(np.int8) * (1 + (np.abs(cand) >= C))).tobytes()
            if key not in tried:
                tried.add(key)
                gap_p, pol = _polish_refine(cand, G, c, bb, eps, C)
                if pol is not None:
                    obj_p, _ = _objective_from_gram(pol, G, c, bb, eps)
                    if gap_p < best_pol[0]:
                        best_pol = (gap_p, pol)
                    if gap_p <= tol * max(1.0, obj_p):
                        return pol, it, True
        if gap <= target or it - last_improved >= 8 or it >= max_iter:
            break
        if not _ipm_step(G, c, eps, C, g, u, v, lam_u, lam_v, mu_u, mu_v, diag_scale):
            break
    # Prefer the polished point (exact zeros / bounds) unless clearly worse:
    # its gap is limited by the conditioning of the reduced Gram matrix.
    if best_pol[1] is not None and best_pol[0] <= max(100.0 * best[0], target):
        x_out, gap_out = best_pol[1], best_pol[0]
    else:
        x_out, gap_out = best[1], best[0]
    obj_out, _ = _objective_from_gram(x_out, G, c, bb, eps)
    return x_out, it, bool(gap_out <= tol * max(1.0, obj_out))


def _ipm_step(G, c, eps, C, g, u, v, lam_u, lam_v, mu_u, mu_v, diag_scale):
    """One predictor-corrector step, updating the iterates in place.

    Returns False when the Newton matrix cannot be factorised.
    """
    n = G.shape[0]
    wu = C - u
    wv = C - v
    # dual residual r_d = H z + f - lam + mu, with f = (eps - c, eps + c)
    rd_u = g + eps - lam_u + mu_u
    rd_v = -g + eps - lam_v + mu_v
    m = (u @ lam_u + v @ lam_v + wu @ mu_u + wv @ mu_v) / (4.0 * n)
    Du = lam_u / u + mu_u / wu
    Dv = lam_v / v + mu_v / wv
    Dsum = Du + Dv
    M = G + np.diag(Du * Dv / Dsum)
    reg = 0.0
    while True:
        factor = _cholesky(M if reg == 0.0 else M + reg * np.eye(n))
        if factor is not None:
            break
        reg = 1e-14 * diag_scale if reg == 0.0 else reg * 100.0
        if reg > 1e-2 * diag_scale:
            return False

    def solve(r_lu, r_lv, r_mu, r_mv):
        # complementarity rows: lam dz + z dlam = -r_l ; -mu dz + w dmu = -r_m
        p = -rd_u - r_lu / u + r_mu / wu
        q = -rd_v - r_lv / v + r_mv / wv
        dx = _cho_solve(factor, p - Du * (p + q) / Dsum)
        du = (p + q + Dv * dx) / Dsum
        dv = du - dx
        return (
            du,
            dv,
            (-r_lu - lam_u * du) / u,
            (-r_lv - lam_v * dv) / v,
            (-r_mu + mu_u * du) / wu,
            (-r_mv + mu_v * dv) / wv,
        )

    vals = np.concatenate((u, v, wu, wv, lam_u, lam_v, mu_u, mu_v))

    def max_step(du, dv, dlu, dlv, dmu, dmv):
        # largest alpha <= 1 keeping every slack and dual positive (one pass)
        d = np.concatenate((du, dv, -du, -dv, dlu, dlv, dmu, dmv))
        neg = d < 0
        return min(1.0, float(np.min(-vals[neg] / d[neg], initial=np.inf)))

    # predictor (affine scaling direction, sigma = 0)
    du, dv, dlu, dlv, dmu, dmv = solve(u * lam_u, v * lam_v, wu * mu_u, wv * mu_v)
    a = max_step(du, dv, dlu, dlv, dmu, dmv)
    m_aff = (
        (u + a * du) @ (lam_u + a * dlu)
        + (v + a * dv) @ (lam_v + a * dlv)
        + (wu - a * du) @ (mu_u + a * dmu)
        + (wv - a * dv) @ (mu_v + a * dmv)
    ) / (4.0 * n)
    sm = min(1.0, (m_aff / m) ** 3) * m
    # corrector with the second-order (Mehrotra) term
    step = solve(
        u * lam_u + du * dlu - sm,
        v * lam_v + dv * dlv - sm,
        wu * mu_u - du * dmu - sm,
        wv * mu_v - dv * dmv - sm,
    )
    alpha = min(1.0, 0.99 * max_step(*step))
    tiny = 1e-300
    for arr, d in zip((u, v, lam_u, lam_v, mu_u, mu_v), step, strict=True):
        arr += alpha * d
        np.maximum(arr, tiny, out=arr)
    np.minimum(u, C * (1.0 - 1e-16), out=u)
    np.minimum(v, C * (1.0 - 1e-16), out=v)
    return True


def _fista(G, c, bb, eps, C, x0, tol, max_iter, check_every):
    n = G.shape[0]
    L = _lambda_max(G)
    if L <= 0.0:  # A == 0: x = 0 is optimal
        return np.zeros(n), 0, True
    step = 1.0 / L
    x = np.clip(x0, -C, C)
    y = x.copy()
    theta = 1.0
    last_pattern = None
    tried = set()
    for it in range(1, max_iter + 1):
        grad_y = G @ y - c
        x_new = _soft_clip(y - step * grad_y, eps * step, C)
        diff = x_new - x
        if grad_y @ diff > 0.0:  # gradient restart: momentum points uphill
            theta = 1.0
            y = x_new
        else:
            theta_new = 0.5 * (1.0 + np.sqrt(1.0 + 4.0 * theta * theta))
            y = x_new + ((theta - 1.0) / theta_new) * diff
            theta = theta_new
        x = x_new
        if it % check_every == 0 or it == max_iter:
            obj, Gx = _objective_from_gram(x, G, c, bb, eps)
            gap = _gap_terms(x, Gx - c, eps, C).sum()
            if gap <= tol * max(1.0, obj):
                return x, it, True
            pattern = np.sign(x).astype(np.int8) * (1 + (np.abs(x) >= C))
            key = pattern.tobytes()
            if last_pattern == key and key not in tried:
                tried.add(key)
                cand = _polish(x, G, c, eps, C)
                if cand is not None:
                    obj_c, Gxc = _objective_from_gram(cand, G, c, bb, eps)
                    if obj_c <= obj + 1e-14 * max(1.0, abs(obj)):
                        x = cand
                        y = cand.copy()
                        theta = 1.0
                        gap_c = _gap_terms(cand, Gxc - c, eps, C).sum()
                        if gap_c <= tol * max(1.0, obj_c):
                            return x, it, True
            last_pattern = key
    return x, max_iter, False


def _cd(G, c, bb, eps, C, x0, tol, max_iter):
    n = G.shape[0]
    x = np.clip(x0, -C, C)
    Gx = G @ x
    diag = np.diag(G).copy()
    for sweep in range(1, max_iter + 1):
        for j in range(n):
            d = diag[j]
            if d <= 0.0:  # zero column: its coefficient only pays eps|x_j|
                new = 0.0
            else:
                v = x[j] - (Gx[j] - c[j]) / d
                new = min(max(np.sign(v) * max(abs(v) - eps / d, 0.0), -C), C)
            delta = new - x[j]
            if delta != 0.0:
                Gx += delta * G[:, j]
                x[j] = new
        obj = 0.5 * (bb - 2.0 * c @ x + x @ Gx) + eps * np.abs(x).sum()
        gap = _gap_terms(x, Gx - c, eps, C).sum()
        if gap <= tol * max(1.0, obj):
            return x, sweep, True
    return x, max_iter, False


def box_lasso(
    A,
    b,
    eps,
    C,
    *,
    x0=None,
    method: str = "ipm",
    tol: float = 1e-9,
    max_iter: int | None = None,
    check_every: int = 10,
) -> BoxLassoResult:
    """Solve ``min_x 1/2 ||b - A x||^2 + eps ||x||_1`` s.t. ``|x_j| <= C``.

    This is the P-SVM problem, eq. (2.8) of Chen (2010) / eq. (6) of Chen et
    al. (2009), with ``A = S`` (rows are similarity feature vectors) and
    ``b = y``.

    Parameters
    ----------
    A : array-like of shape (m, n)
    b : array-like of shape (m,)
    eps : float >= 0
        Weight of the l1 penalty (P-SVM ``epsilon``).
    C : float > 0
        Box bound (P-SVM ``C``).
    x0 : array-like of shape (n,), optional
        Warm start for ``"fista"`` and ``"cd"`` (clipped to the box), e.g. the
        solution for a neighbouring grid point. Ignored by ``"ipm"``.
    method : {"ipm", "fista", "cd"}
        ``"ipm"`` (default): primal-dual interior point (Mehrotra
        predictor-corrector, one n x n Cholesky per iteration) followed by an
        exact active-set polish, so the returned ``x`` has exact zeros and
        exact bounds. ``"fista"``: accelerated proximal gradient with restart
        and polishing; cheap per iteration, supports warm starts, but slow on
        the ill-conditioned ``S^T S`` of typical similarity matrices.
        ``"cd"``: cyclic coordinate descent (pure Python loop, reference only).
        See ``benchmarks/bench_psvm_lp.py`` for measurements.
    tol : float
        Stop when the duality gap is ``<= tol * max(1, P(x))``; the gap bounds
        ``P(x) - P*``.
    max_iter : int, optional
        Maximum interior-point iterations (default 200), FISTA iterations
        (default 20000) or coordinate-descent sweeps (default 2000).
    check_every : int
        FISTA checks the gap (and tries a polish) every ``check_every`` steps.

    Returns
    -------
    BoxLassoResult
        The solution with its objective, duality gap and KKT residual. If
        ``converged`` is False the certificate still tells how far off it is.

    Examples
    --------
    >>> import numpy as np
    >>> from proxlearn.solvers import box_lasso
    >>> A, b = np.array([[1., 0.], [0., 2.], [1., 1.]]), np.array([1., 2., 0.])
    >>> box_lasso(A, b, eps=0.1, C=1.0).x.round(4).tolist()
    [0.0667, 0.7667]

    See Also
    --------
    BoxLassoResult : the solution and its certificate.
    box_lasso_kkt_residual, box_lasso_duality_gap, box_lasso_objective :
        optimality checks of a candidate ``x``.
    proxlearn.svm.PotentialSVM : the P-SVM classifier built on it.
    """
    A, b, eps, C = _check_problem(A, b, eps, C)
    check_option(method, "method", {"ipm", "fista", "cd"})
    if max_iter is None:
        max_iter = {"ipm": 200, "fista": 20000, "cd": 2000}[method]
    for name, val in (("max_iter", max_iter), ("check_every", check_every)):
        if isinstance(val, bool) or not isinstance(val, numbers.Integral) or val < 1:
            raise InvalidParameterError(f"{name} must be a positive integer, got {val!r}.")
    tol = check_positive(tol, "tol")
    n = A.shape[1]
    if x0 is None:
        x0 = np.zeros(n)
    else:
        x0 = np.asarray(x0, dtype=np.float64).ravel()
        if x0.shape[0] != n:
            raise InvalidParameterError(f"x0 has {x0.shape[0]} entries, expected {n}.")
    G = A.T @ A
    c = A.T @ b
    bb = float(b @ b)
    if n == 0:
        x, n_iter, converged = np.zeros(0), 0, True
    elif method == "ipm":
        x, n_iter, converged = _ipm(G, c, bb, eps, C, tol, int(max_iter))
    elif method == "fista":
        x, n_iter, converged = _fista(G, c, bb, eps, C, x0, tol, int(max_iter), int(check_every))
    else:
        x, n_iter, converged = _cd(G, c, bb, eps, C, x0.copy(), tol, int(max_iter))
    g = G @ x - c
    r = b - A @ x
    obj = 0.5 * r @ r + eps * np.abs(x).sum()
    gap = float(max(_gap_terms(x, g, eps, C).sum(), 0.0))
    kkt = float(_kkt_from_gradient(x, g, eps, C).max()) if n else 0.0
    return BoxLassoResult(
        x=x,
        objective=float(obj),
        duality_gap=gap,
        kkt_residual=kkt,
        n_iter=int(n_iter),
        converged=bool(converged),
    )
