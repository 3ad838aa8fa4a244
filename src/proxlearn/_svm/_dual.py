"""The binary SVM dual on a precomputed kernel, as every MKL solver needs it.

``omega(K) = max_{alpha in A} 1^T alpha - 1/2 (y o alpha)^T K (y o alpha)``,
``A = {alpha : y^T alpha = 0, 0 <= alpha <= C}`` (Kundu et al. 2010 eq. 1;
the inner problem of SimpleMKL and Lp-MKL). Solved by libsvm through
scikit-learn (the field's standard SMO solver: no reason to hand-write one),
at a tight tolerance because the MKL certificates are built on its ``alpha``.
MKL and the Kundu methods call it hundreds of times per fit, so it goes through
:func:`proxlearn._svm._libsvm.libsvm_fit` (the binding ``SVC.fit`` calls,
without ``SVC``'s argument validation per call, which dominated at small n;
falls back to ``SVC`` with the same answers; docs/benchmarks.md, "SVM core:
the libsvm binding and the polish of slow SMO").

Warm start. libsvm cannot start from a previous ``alpha``, yet MKL solvers call
it on a sequence of slowly changing kernels whose support-vector sets stop
changing long before the weights converge (the non-sparse MKL of Kundu eq. 10
on a REKL problem kept 117 support vectors, 11 at ``C``, for its last 50 of 56
block-ascent steps). Given the previous ``alpha``, :func:`svm_dual` first
solves the equality-constrained QP of that active set (free ``alpha`` from the
bordered system ``[K_FF 1; 1^T 0]``, bounded ones at ``0`` or ``C``) and keeps
the result only if it satisfies libsvm's own stopping rule (maximal violating
pair below ``tol``) on the whole problem, so it is an SVM solution by the same
certificate libsvm gives, and more accurate (a direct solve, no SMO
tolerance). Otherwise libsvm runs as before. Hand-written because no SVM
library in the field takes a warm start on a precomputed kernel.

Slow SMO. On some learned kernels libsvm needs hundreds of thousands of SMO
iterations to reach 1e-7, or never does (ESKL-L1's learned kernels on Liver at
C = 100, rho = 10). There, libsvm at 1e-3 followed by a monotone primal
active-set method (:func:`_monotone_active_set`) reaches the same certificate at
1e-7 in a fraction of the time, and a chain of solves that met such a kernel
keeps using that route (:func:`svm_dual`). Measured with
``benchmarks/bench_svm_polish.py``: docs/benchmarks.md, "SVM core: the libsvm
binding and the polish of slow SMO".
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.linalg.lapack import dpotrf as _potrf
from scipy.linalg.lapack import dpotrs as _potrs
from scipy.linalg.lapack import dsysv as _sysv

from ._libsvm import binary_libsvm, binary_svc

__all__ = [
    "SVMDual",
    "bordered_solve",
    "box_knapsack_max",
    "frank_wolfe_gap",
    "kkt_intercept",
    "kkt_violation",
    "max_violating_pair",
    "svm_dual",
]


@dataclass
class SVMDual:
    """A solution of the binary SVM dual, as :func:`svm_dual` returns it.

    Attributes
    ----------
    alpha : ndarray of shape (n,)
        The dual variables, in ``[0, C]``.
    b : float
        The intercept of the decision ``K (y o alpha) + b``.
    value : float
        The dual objective ``omega(K)`` at ``alpha``.
    smo_work : float
        ``n`` times libsvm's SMO iterations on this chain of warm starts (the
        expected cost of a cold solve).
    polish : bool
        Whether the chain's next solve goes to libsvm at 1e-3 and the polish first.

    Examples
    --------
    >>> import numpy as np
    >>> from proxlearn._svm._dual import svm_dual
    >>> x = np.array([0.0, 1.0, 3.0, 4.0])
    >>> res = svm_dual(np.outer(x, x) + 1, np.array([-1.0, -1.0, 1.0, 1.0]), 1.0)
    >>> res.alpha.tolist(), float(res.b), float(res.value)
    ([0.0, 0.5, 0.5, 0.0], -2.0, 0.5)

    See Also
    --------
    svm_dual : the solver that returns it (and takes it as a warm start).
    """

    alpha: np.ndarray  # (n,), in [0, C]
    b: float
    value: float  # omega(K) at alpha
    #: n x (SMO iterations) of the last libsvm solve in this chain of warm starts
    #: (inherited by warm-started solutions): what a cold solve is expected to cost
    smo_work: float = float("inf")
    #: True when libsvm was slow at the requested tolerance on this chain of warm
    #: starts: the next solve goes to 1e-3 + polish first (:func:`svm_dual`)
    polish: bool = False


#: Cost model deciding whether a warm start is worth trying (seconds; measured on
#: the 2-core machine of 2026-11-26): libsvm about 8 ns per SMO iteration per
#: sample; a round of the active-set solve a factorisation of the free set
#: (Cholesky, :func:`bordered_solve`: ``k^3 / 3`` flops at about 5 GFlop/s, 2026-11-27;
#: the bordered LDL it replaced ran at 2), a pass over the support columns and
#: 0.25 ms of overhead, 2.5 rounds on average.
#: ESKL at n = 1,000 (600 free variables, 5,000 SMO iterations: libsvm 39 ms, warm
#: 70-135 ms) skips it; REKL at n = 200 (106 free, 14,000 iterations: 17 ms against
#: 0.4 ms) takes it. Only the speed depends on this, never the answer.
SMO_SECONDS = 8e-9
FACTOR_FLOPS = 5e9
#: Active-set corrections tried from a warm start before libsvm takes over.
MAX_ACTIVE_SET_ROUNDS = 10


def _warm_start_rounds(n, n_free, n_sv, smo_work):
    """Rounds of the active-set solve worth spending: 0 unless 2.5 rounds are
    expected to cost less than libsvm, and no more than libsvm's expected time
    (a failed attempt then costs at most one libsvm solve extra)."""
    per_round = n_free**3 / (3.0 * FACTOR_FLOPS) + n * n_sv / 1e9 + 2.5e-4
    budget = SMO_SECONDS * smo_work
    if 2.5 * per_round >= budget:
        return 0
    return int(min(MAX_ACTIVE_SET_ROUNDS, budget // per_round))


#: SMO iterations after which libsvm is stopped and re-run at its default
#: tolerance 1e-3: on a nearly constant kernel (entries 1 +- 6e-6, a 2LMKL line
#: search trial with tiny weights) it never reaches 1e-7 and ran for minutes;
#: 10^6 iterations take about 0.1 s at n = 138.
MAX_SMO_ITER = 1_000_000
#: Bordered solves allowed when polishing libsvm's 1e-3 solution to the requested
#: tolerance (:func:`_monotone_active_set`; 11-20 on the capped Liver kernels).
POLISH_ROUNDS = 100
#: SMO iterations per sample from which a chain switches to 1e-3 + polish. libsvm
#: needs 5-70 n at 1e-7 on the MKL and REKL kernels of the benchmarks, and
#: 1,300-4,300 n (up to the cap) on ESKL-L1's learned kernels on Liver, where
#: 1e-3 takes about 100 n and the polish 11-20 bordered solves.
SLOW_SMO_PER_SAMPLE = 500


def max_violating_pair(v, alpha, y, C):
    """libsvm's stopping measure at a feasible ``alpha`` of a concave maximisation
    over the SVM's feasible set ``{0 <= alpha <= C, y^T alpha = 0}``.

    ``v = y o grad f(alpha)``; the KKT conditions hold iff
    ``max_{I_up} v <= min_{I_low} v`` with ``I_up = {y_i = 1, alpha_i < C} u
    {y_i = -1, alpha_i > 0}`` and ``I_low = {y_i = 1, alpha_i > 0} u {y_i = -1,
    alpha_i < C}`` (Fan, Chen & Lin 2005). Returns ``max_{I_up} v - min_{I_low} v``
    (``<= tol`` is libsvm's convergence test; negative strictly inside), 0 when a
    set is empty.

    Examples
    --------
    >>> import numpy as np
    >>> from proxlearn._svm._dual import max_violating_pair
    >>> x = np.array([0.0, 1.0, 3.0, 4.0])
    >>> K, y = np.outer(x, x) + 1, np.array([-1.0, -1.0, 1.0, 1.0])
    >>> alpha = np.array([0.0, 0.5, 0.5, 0.0])
    >>> float(max_violating_pair(y - K @ (y * alpha), alpha, y, 1.0)) <= 1e-12
    True

    See Also
    --------
    kkt_violation : this measure for the SVM dual on a kernel.
    frank_wolfe_gap : a bound on the suboptimality instead.
    """
    below, above = alpha < C, alpha > 0
    up = (below & (y > 0)) | (above & (y < 0))
    low = (below & (y < 0)) | (above & (y > 0))
    if not up.any() or not low.any():
        return 0.0
    return float(v[up].max() - v[low].min())


def kkt_violation(K, y, C, alpha, u=None, Ku=None):
    """libsvm's stopping measure at ``alpha`` for the SVM dual on ``K``:
    :func:`max_violating_pair` of ``v = y - K (y o alpha)`` (``y`` times the
    gradient ``1 - y o K (y o alpha)``).

    Examples
    --------
    >>> import numpy as np
    >>> from proxlearn._svm._dual import kkt_violation
    >>> x = np.array([0.0, 1.0, 3.0, 4.0])
    >>> K, y = np.outer(x, x) + 1, np.array([-1.0, -1.0, 1.0, 1.0])
    >>> alpha = np.array([0.0, 0.5, 0.5, 0.0])  # the solution at C = 1
    >>> float(kkt_violation(K, y, 1.0, alpha)) <= 1e-12
    True

    See Also
    --------
    max_violating_pair : the measure, for any concave objective.
    svm_dual : the solver it certifies.
    """
    y = np.asarray(y, dtype=np.float64)
    if Ku is None:
        u = alpha * y if u is None else u
        sv = np.flatnonzero(u)
        Ku = K[:, sv] @ u[sv]
    return max_violating_pair(y - Ku, alpha, y, C)


def frank_wolfe_gap(g, alpha, y, C):
    """``max_{alpha' feasible} g^T (alpha' - alpha)`` over the SVM's feasible set
    (``>= 0`` for a feasible ``alpha``; clipped at 0): the Frank-Wolfe gap of a
    concave objective with gradient ``g`` at ``alpha``, an upper bound on its
    suboptimality (:func:`box_knapsack_max`).

    Examples
    --------
    >>> import numpy as np
    >>> from proxlearn._svm._dual import frank_wolfe_gap
    >>> x = np.array([0.0, 1.0, 3.0, 4.0])
    >>> K, y = np.outer(x, x) + 1, np.array([-1.0, -1.0, 1.0, 1.0])
    >>> alpha = np.zeros(4)  # feasible, not optimal: gradient 1
    >>> float(frank_wolfe_gap(np.ones(4), alpha, y, 1.0))
    4.0

    See Also
    --------
    box_knapsack_max : the linear maximisation it uses.
    kkt_violation : libsvm's stopping measure.
    """
    return max(0.0, box_knapsack_max(g, y, C) - float(g @ alpha))


def kkt_intercept(alpha, y, Ku, C):
    """The intercept ``b`` of the SVM decision ``K (y o alpha) + b`` from the KKT
    conditions at ``alpha`` (``Ku = K (y o alpha)``), as libsvm computes it: the
    mean of ``y_i - Ku_i`` over the free support vectors (``1e-8 C < alpha_i <
    C - 1e-8 C``); without free ones, the middle of the interval of intercepts
    that the bounded ones allow (or its finite end).

    Examples
    --------
    >>> import numpy as np
    >>> from proxlearn._svm._dual import kkt_intercept
    >>> x = np.array([0.0, 1.0, 3.0, 4.0])
    >>> K, y = np.outer(x, x) + 1, np.array([-1.0, -1.0, 1.0, 1.0])
    >>> alpha = np.array([0.0, 0.5, 0.5, 0.0])
    >>> float(kkt_intercept(alpha, y, K @ (y * alpha), 1.0))
    -2.0

    See Also
    --------
    svm_dual : the solver whose intercept this is.
    """
    eps = 1e-8 * C
    free = (alpha > eps) & (alpha < C - eps)
    r = y - Ku
    if free.any():
        return float(r[free].mean())
    low = ((alpha <= eps) & (y > 0)) | ((alpha >= C - eps) & (y < 0))  # b >= r_i
    up = ((alpha <= eps) & (y < 0)) | ((alpha >= C - eps) & (y > 0))  # b <= r_i
    lb = r[low].max() if low.any() else -np.inf
    ub = r[up].min() if up.any() else np.inf
    if np.isfinite(lb) and np.isfinite(ub):
        return 0.5 * (lb + ub)
    return float(lb if np.isfinite(lb) else ub if np.isfinite(ub) else 0.0)


#: Largest ratio ``max_i A_ii / min_i L_ii^2`` of a Cholesky factor ``A = L L^T``
#: that :func:`bordered_solve` accepts; beyond it (a numerically singular free set)
#: the bordered system is solved by LAPACK ``sysv`` as before.
CHOLESKY_MAX_RATIO = 1e12


def bordered_solve(A, R, s):
    """``(X, b)`` solving ``[A 1; 1^T 0] [X; b^T] = [R; s^T]`` for a symmetric ``A``
    (``k x k``; ``R`` of shape ``(k,)`` or ``(k, r)``, ``s`` a scalar or ``(r,)``),
    or ``None`` when the system is singular or the result is not finite.

    The SVM's free block ``A = K_FF`` is PSD: Cholesky ``A = L L^T`` (LAPACK
    ``potrf``, a third of the bordered ``sysv``'s time at ``k = 450``) and the
    border by its Schur complement, ``e = A^-1 1``, ``b = (1^T A^-1 R - s) /
    1^T e``, ``X = A^-1 R - e b``. A matrix that is not numerically positive
    definite (``potrf`` fails, or a pivot below :data:`CHOLESKY_MAX_RATIO`
    of the diagonal) goes to ``sysv`` on the bordered matrix (Bunch-Kaufman, which
    also solves an indefinite ``A``). Ill-conditioning is not checked beyond that:
    the callers' tests on the result (KKT, Armijo) decide.

    Examples
    --------
    >>> import numpy as np
    >>> from proxlearn._svm._dual import bordered_solve
    >>> x = np.array([0.0, 1.0, 3.0, 4.0])
    >>> K, y = np.outer(x, x) + 1, np.array([-1.0, -1.0, 1.0, 1.0])
    >>> X, b = bordered_solve(np.eye(2), np.array([1.0, 3.0]), 0.0)
    >>> X.tolist(), float(b)
    ([-1.0, 1.0], 2.0)

    See Also
    --------
    svm_dual : whose warm start solves the free block this way.
    scipy.linalg.solve : a dense solve of the whole bordered system.
    """
    A = np.asarray(A, dtype=np.float64)
    R = np.asarray(R, dtype=np.float64)
    k = A.shape[0]
    single = R.ndim == 1
    R2 = R.reshape(k, -1)
    s2 = np.broadcast_to(np.asarray(s, dtype=np.float64), (R2.shape[1],))
    L, info = _potrf(A, lower=1, clean=0)
    if info == 0 and k:
        piv = np.diagonal(L) ** 2
        ok = piv.min() * CHOLESKY_MAX_RATIO > np.diagonal(A).max()
    else:
        ok = info == 0
    if ok:
        rhs = np.empty((k, R2.shape[1] + 1))
        rhs[:, :-1] = R2
        rhs[:, -1] = 1.0
        Z, info = _potrs(L, rhs, lower=1, overwrite_b=1)
        one_e = Z[:, -1].sum()
        if info == 0 and one_e > 0:
            b = (Z[:, :-1].sum(axis=0) - s2) / one_e
            X = Z[:, :-1] - np.outer(Z[:, -1], b)
            if np.all(np.isfinite(X)) and np.all(np.isfinite(b)):
                return (X[:, 0], float(b[0])) if single else (X, b)
    M = np.empty((k + 1, k + 1))
    M[:-1, :-1] = A
    M[:-1, -1] = M[-1, :-1] = 1.0
    M[-1, -1] = 0.0
    rhs = np.empty((k + 1, R2.shape[1]))
    rhs[:-1] = R2
    rhs[-1] = s2
    _, _, Z, info = _sysv(M, rhs, lower=1, overwrite_a=1, overwrite_b=1)
    if info != 0 or not np.all(np.isfinite(Z)):
        return None
    return (Z[:-1, 0], float(Z[-1, 0])) if single else (Z[:-1], Z[-1])


def _bordered_solve(K, y, F, B, C):
    """Free ``alpha_F`` and ``b`` with ``alpha_B = C`` and the rest at 0:
    ``K_FF u_F + b 1 = y_F - K_FB u_B``, ``1^T u_F = -1^T u_B``
    (:func:`bordered_solve`: this runs hundreds of times per MKL fit, where
    ``scipy.linalg.solve``'s checks cost more than the solve); ``None`` if
    singular. Returns ``[u_F; b]``."""
    uB = C * y[B]
    KF = K[F]
    rhs = y[F] - (KF[:, B] @ uB if B.size else 0.0)
    got = bordered_solve(KF[:, F], rhs, -uB.sum())
    if got is None:
        return None
    return np.append(got[0], got[1])


def _bound_sets(alpha, C):
    """Masks of the points at ``C`` and of the free ones (relative slack 1e-10)."""
    upper = alpha >= C * (1.0 - 1e-10)
    return upper, (alpha > C * 1e-10) & ~upper


def _free_set_solve(K, y, free, upper, C):
    """``(F, B, bordered solution)`` of the free set ``free`` with ``upper`` at
    ``C``; ``None`` when nothing is free or the system is singular."""
    F, B = np.flatnonzero(free), np.flatnonzero(upper)
    if F.size == 0:
        return None
    sol = _bordered_solve(K, y, F, B, C)
    return None if sol is None else (F, B, sol)


def _active_set_solution(K, y, C, alpha0, tol, max_rounds=MAX_ACTIVE_SET_ROUNDS):
    """The SVM solution reached from the active set of ``alpha0`` (free / at 0 /
    at C) by at most ``max_rounds`` corrections, or ``None``.

    Each round solves the bordered system of the current free set; free
    ``alpha`` outside ``[0, C]`` go to their bound, else bounded points that
    violate their KKT condition become free. The result is returned only when
    it passes libsvm's test (:func:`kkt_violation` ``<= tol``), so the
    heuristic affects the speed, never the answer.
    """
    C = float(C)
    alpha0 = np.asarray(alpha0, dtype=np.float64)
    if alpha0.shape != y.shape:
        return None
    upper, free = _bound_sets(alpha0, C)
    slack = 1e-12 * C
    for _ in range(int(max_rounds)):
        got = _free_set_solve(K, y, free, upper, C)
        if got is None:
            return None
        F, B, sol = got
        aF = sol[:-1] * y[F]
        low, high = aF < -slack, aF > C + slack
        if low.any() or high.any():  # leave the box: those go to their bound
            free[F[low | high]] = False
            upper[F[high]] = True
            continue
        alpha = np.zeros(y.size)
        alpha[F] = np.clip(aF, 0.0, C)
        alpha[B] = C
        if abs(alpha @ y) > 1e-9 * C:  # the clip or a near-singular solve broke y^T alpha = 0
            return None
        u = alpha * y
        sv = np.flatnonzero(u)
        Ku = K[:, sv] @ u[sv]
        if kkt_violation(K, y, C, alpha, Ku=Ku) <= tol:
            return SVMDual(alpha=alpha, b=float(sol[-1]),
                           value=float(alpha.sum() - 0.5 * u @ Ku))
        if not _free_violators(free, upper, y * (Ku + sol[-1]), tol):
            return None
    return None


def _monotone_active_set(K, y, C, alpha, tol, max_rounds):
    """The SVM solution reached from the feasible ``alpha`` by a primal
    active-set method, or ``None`` after ``max_rounds`` bordered solves.

    Unlike :func:`_active_set_solution` (which jumps to each free set's
    optimum and clips, and oscillated on 48 of 156 capped Liver kernels), each
    round moves from the feasible point along the line to the bordered solution
    of its free set, to the maximum of the (concave quadratic) objective on that
    line or as far as the box allows (ratio test), fixing the blocking variables
    at their bound; at the free set's optimum it frees the one bounded point that
    violates its KKT condition most. The dual objective never decreases, so it
    cannot cycle on nondegenerate problems (Nocedal & Wright 2006, sec. 16.5).

    Singular free sets. On a low-rank kernel the free set can outgrow the rank:
    the bordered system is then singular, its computed solution is dominated by a
    null vector whose sign is decided by the last bits of the factorisation (it
    depends on the BLAS kernels), and the objective is linear along it. The
    direction is therefore taken with the sign of the objective's slope along it
    (:func:`_line_step`): the step goes uphill to the bound that blocks it, where
    the old rule (full step towards the bordered solution, else to the bound)
    made no move and freed and fixed the same point forever (seed 42 of the
    polish test under ``OPENBLAS_CORETYPE=Prescott``). Hand-written for the same
    reason as the warm start. The result is returned only when it passes
    libsvm's test at ``tol``.
    """
    C = float(C)
    alpha = np.clip(np.asarray(alpha, dtype=np.float64), 0.0, C)
    upper, free = _bound_sets(alpha, C)
    alpha[upper], alpha[~free & ~upper] = C, 0.0
    for _ in range(int(max_rounds)):
        got = _free_set_solve(K, y, free, upper, C)
        if got is None:
            return None
        F, _, sol = got
        u = alpha * y
        sv = np.flatnonzero(u)
        step = _line_step(K[np.ix_(F, F)], y[F] - K[np.ix_(F, sv)] @ u[sv],
                          sol[:-1] - u[F], y[F], alpha[F], C)
        if step is None:  # a non-finite direction: the solve is useless
            return None
        d, t, hit = step
        alpha[F] += t * d
        if hit.any():  # blocked: the blocking variables go to their bound
            free[F[hit]] = False
            up = F[hit & (d > 0)]
            upper[up], alpha[up], alpha[F[hit & (d < 0)]] = True, C, 0.0
            continue
        if abs(alpha @ y) > 1e-9 * C:  # a near-singular solve broke y^T alpha = 0
            return None
        u = alpha * y
        sv = np.flatnonzero(u)
        Ku = K[:, sv] @ u[sv]
        if kkt_violation(K, y, C, alpha, Ku=Ku) <= tol:
            return SVMDual(alpha=alpha.copy(), b=float(sol[-1]),
                           value=float(alpha.sum() - 0.5 * u @ Ku))
        margin = y * (Ku + sol[-1])
        worst = np.where(upper, margin - 1.0, np.where(free, -np.inf, 1.0 - margin))
        j = int(np.argmax(worst))
        if worst[j] <= tol:
            return None
        free[j], upper[j] = True, False
    return None


def _line_step(Q, r, delta, yF, aF, C):
    """The step of :func:`_monotone_active_set` along the line ``u_F + t delta``
    (``delta``: bordered solution minus the current ``u_F = y_F o alpha_F``, ``r``
    the gradient ``y_F - (K u)_F``, ``Q = K_FF``): ``(d, t, hit)`` with the
    ``alpha``-direction ``d`` (sign chosen uphill), the step ``t`` (the line's
    maximum ``slope / curvature``, which is 1 for an exact bordered solution, or
    the ratio test's bound if smaller) and the mask of the variables that block
    it; ``None`` when the direction is not finite."""
    slope = float(r @ delta)
    if not np.isfinite(slope):
        return None
    if slope < 0.0:  # a null vector of a singular system, pointing downhill
        delta, slope = -delta, -slope
    curv = float(delta @ (Q @ delta))
    d = yF * delta
    with np.errstate(divide="ignore", invalid="ignore"):
        room = np.where(d < 0, aF / -d, np.where(d > 0, (C - aF) / d, np.inf))
    best = slope / curv if curv > 0 else (np.inf if slope > 0 else 0.0)
    bound = float(room.min()) if room.size else np.inf
    if best <= bound:
        return d, best, np.zeros(d.size, dtype=bool)
    return d, bound, room <= bound * (1.0 + 1e-12)


def _free_violators(free, upper, margin, tol):
    """Free (in place) the bounded points whose margin ``y_i f(x_i)`` violates
    their KKT condition by more than ``tol``; ``False`` when there is none."""
    wrong = (~free & ~upper & (margin < 1.0 - tol)) | (upper & (margin > 1.0 + tol))
    free |= wrong
    upper &= ~wrong
    return bool(wrong.any())


def _libsvm(K, y, C, tol):
    """``alpha``, ``b`` and the SMO iterations of libsvm at ``tol`` (at most
    :data:`MAX_SMO_ITER`; that many means the tolerance was not reached)."""
    alpha = np.zeros(K.shape[0])
    # the SVC route when the private binding is unavailable (tested by monkeypatching)
    coef, support, b, n_iter = (binary_libsvm(K, y, C, tol=tol, max_iter=MAX_SMO_ITER)
                                or binary_svc(K, y, C, tol=tol, max_iter=MAX_SMO_ITER))
    alpha[support] = coef * y[support]
    return np.clip(alpha, 0.0, float(C)), b, n_iter


def _loose_then_polished(K, y, C, tol):
    """libsvm at its default 1e-3, then the monotone active-set solve from that
    ``alpha`` at ``tol``: the :class:`SVMDual` certified at ``tol`` (or ``None``)
    with libsvm's ``alpha``, ``b`` and iterations. On the kernels where SMO cannot
    reach 1e-7 within :data:`MAX_SMO_ITER` (ESKL-L1's learned kernels on Liver at C = 100,
    rho = 10), the loose solve and the polish take a small fraction of the capped
    solve (docs/benchmarks.md, "SVM core: the libsvm binding and the polish of slow
    SMO"), and the polished ``alpha`` passes the test at 1e-7 that libsvm's own did
    not reach."""
    alpha, b, n_iter = _libsvm(K, y, C, max(tol, 1e-3))
    polished = (_monotone_active_set(K, y, C, alpha, tol, POLISH_ROUNDS) if tol < 1e-3
                else None)
    return polished, alpha, b, n_iter


def svm_dual(K, y, C, *, tol=1e-7, alpha0=None) -> SVMDual:
    """Solve the SVM dual on ``K`` (n x n PSD) with labels ``y`` in ``{-1, +1}``
    at ``tol``.

    ``alpha0``: a previous solution (of a nearby kernel), an ``alpha`` array or
    the :class:`SVMDual` itself; its active set is tried first and kept when it
    passes libsvm's test at ``tol`` (module docstring). With an ``SVMDual`` the
    attempt is made only when the cost model (:data:`SMO_SECONDS`) expects it to
    be cheaper than libsvm was on that chain.

    Slow SMO. When libsvm needs :data:`SLOW_SMO_PER_SAMPLE` ``n`` iterations or
    more at ``tol`` (or stops at :data:`MAX_SMO_ITER`), the chain of solves
    remembers it (:attr:`SVMDual.polish`): its next kernels are solved by
    libsvm at 1e-3 followed by the monotone active-set method, which certifies
    the answer at ``tol`` (:func:`_loose_then_polished`); libsvm at ``tol`` runs
    only if that fails. A capped solve is itself polished that way, and is
    libsvm's answer at 1e-3 when the polish fails too.

    Parameters
    ----------
    K : ndarray of shape (n, n)
    y : ndarray of shape (n,), values in {-1, +1}
    C : float > 0
    tol : float
        libsvm's stopping tolerance, and the certificate's.
    alpha0 : SVMDual, ndarray or None
        The warm start described above.

    Returns
    -------
    SVMDual

    Examples
    --------
    >>> import numpy as np
    >>> from proxlearn._svm._dual import svm_dual
    >>> x = np.array([0.0, 1.0, 3.0, 4.0])
    >>> K, y = np.outer(x, x) + 1, np.array([-1.0, -1.0, 1.0, 1.0])
    >>> res = svm_dual(K, y, 1.0)
    >>> res.alpha.tolist(), float(res.b)
    ([0.0, 0.5, 0.5, 0.0], -2.0)

    See Also
    --------
    SVMDual : the result, and the warm start of the next solve.
    kkt_violation : the certificate checked at ``tol``.
    sklearn.svm.SVC : the libsvm solver behind it.
    """
    y = np.asarray(y, dtype=np.float64)
    n = K.shape[0]
    polish = False
    if alpha0 is not None:
        if isinstance(alpha0, SVMDual):
            work, polish, alpha0 = alpha0.smo_work, alpha0.polish, alpha0.alpha
            n_sv = int(np.count_nonzero(alpha0))
            n_free = n_sv - int(np.count_nonzero(_bound_sets(alpha0, float(C))[0]))
            rounds = _warm_start_rounds(y.size, n_free, n_sv, work)
        else:
            work, rounds = float("inf"), MAX_ACTIVE_SET_ROUNDS
        warm = _active_set_solution(K, y, C, alpha0, tol, rounds) if rounds else None
        if warm is not None:
            warm.smo_work, warm.polish = work, polish
            return warm
    if polish:
        polished, _, _, n_iter = _loose_then_polished(K, y, C, tol)
        if polished is not None:
            polished.smo_work, polished.polish = float(n * n_iter), True
            return polished
    alpha, b, smo_iter = _libsvm(K, y, C, tol)
    if smo_iter >= MAX_SMO_ITER:
        polished, alpha, b, n_iter = _loose_then_polished(K, y, C, tol)
        smo_iter += n_iter
        if polished is not None:
            polished.smo_work, polished.polish = float(n * smo_iter), True
            return polished
    u = alpha * y
    value = float(alpha.sum() - 0.5 * u @ K @ u)
    return SVMDual(alpha=alpha, b=b, value=value, smo_work=float(n * smo_iter),
                   polish=smo_iter >= SLOW_SMO_PER_SAMPLE * n)


def box_knapsack_max(g, y, C) -> float:
    """``max g^T a`` over ``{a : y^T a = 0, 0 <= a <= C}`` (``y`` in ``{-1, +1}``).

    The LP's dual is ``min_nu C sum_i max(g_i - nu y_i, 0)``, a convex
    piecewise-linear function of ``nu`` minimised at one of its breakpoints
    ``nu = g_i y_i``; all of them are evaluated (``O(n log n)`` by sorting).
    Used for Frank-Wolfe upper bounds on concave MKL duals.

    Examples
    --------
    >>> import numpy as np
    >>> from proxlearn._svm._dual import box_knapsack_max
    >>> x = np.array([0.0, 1.0, 3.0, 4.0])
    >>> K, y = np.outer(x, x) + 1, np.array([-1.0, -1.0, 1.0, 1.0])
    >>> float(box_knapsack_max(np.array([1.0, -1.0, 2.0, 0.0]), y, 1.0))
    3.0

    See Also
    --------
    frank_wolfe_gap : the bound built on it.
    """
    g = np.asarray(g, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    t = g * y  # g_i - nu y_i = y_i (t_i - nu)
    pos, neg = t[y > 0], t[y < 0]
    # h(nu) = C [sum_{pos} max(t - nu, 0) + sum_{neg} max(nu - t, 0)]
    ps, ns = np.sort(pos), np.sort(neg)
    pcum = np.concatenate([[0.0], np.cumsum(ps[::-1])])  # sums of the largest k
    ncum = np.concatenate([[0.0], np.cumsum(ns)])  # sums of the smallest k
    nus = np.concatenate([ps, ns])
    # number of pos above nu, and of neg below nu
    kp = ps.size - np.searchsorted(ps, nus, side="right")
    kn = np.searchsorted(ns, nus, side="left")
    h = (pcum[kp] - kp * nus) + (kn * nus - ncum[kn])
    return float(float(C) * h.min()) if h.size else 0.0
