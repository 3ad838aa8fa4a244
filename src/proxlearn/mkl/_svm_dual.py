"""The binary SVM dual on a precomputed kernel, as every MKL solver needs it.

``omega(K) = max_{alpha in A} 1^T alpha - 1/2 (y o alpha)^T K (y o alpha)``,
``A = {alpha : y^T alpha = 0, 0 <= alpha <= C}`` (Kundu et al. 2010 eq. 1;
the inner problem of SimpleMKL and Lp-MKL). Solved by libsvm through
scikit-learn (the field's standard SMO solver: no reason to hand-write one),
at a tight tolerance because the MKL certificates are built on its ``alpha``.
MKL and the Kundu methods call it hundreds of times per fit, so it goes through
:func:`proxlearn.svm._small_svc.libsvm_fit` (the binding ``SVC.fit`` calls,
without the ~1 ms of argument validation per call that dominated at n = 200;
falls back to ``SVC`` with the same answers).

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
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.linalg.lapack import dsysv as _sysv
from sklearn.svm import SVC

from ..svm._small_svc import libsvm_fit

__all__ = ["SVMDual", "svm_dual", "box_knapsack_max", "kkt_violation"]


@dataclass
class SVMDual:
    alpha: np.ndarray  # (n,), in [0, C]
    b: float
    value: float  # omega(K) at alpha
    #: n x (SMO iterations) of the last libsvm solve in this chain of warm starts
    #: (inherited by warm-started solutions): what a cold solve is expected to cost
    smo_work: float = float("inf")


#: Cost model deciding whether a warm start is worth trying (seconds; measured on
#: the 2-core machine of 2026-11-26): libsvm about 8 ns per SMO iteration per
#: sample; a round of the active-set solve an LDL of the free set at about 2 GFlop/s,
#: a pass over the support columns and 0.25 ms of overhead, 2.5 rounds on average.
#: ESKL at n = 1,000 (600 free variables, 5,000 SMO iterations: libsvm 39 ms, warm
#: 70-135 ms) skips it; REKL at n = 200 (106 free, 14,000 iterations: 17 ms against
#: 0.4 ms) takes it. Only the speed depends on this, never the answer.
SMO_SECONDS = 8e-9
LDL_FLOPS = 2e9
#: Active-set corrections tried from a warm start before libsvm takes over.
MAX_ACTIVE_SET_ROUNDS = 10


def _warm_start_rounds(n, n_free, n_sv, smo_work):
    """Rounds of the active-set solve worth spending: 0 unless 2.5 rounds are
    expected to cost less than libsvm, and no more than libsvm's expected time
    (a failed attempt then costs at most one libsvm solve extra)."""
    per_round = n_free**3 / (3.0 * LDL_FLOPS) + n * n_sv / 1e9 + 2.5e-4
    budget = SMO_SECONDS * smo_work
    if 2.5 * per_round >= budget:
        return 0
    return int(min(MAX_ACTIVE_SET_ROUNDS, budget // per_round))


#: SMO iterations after which libsvm is stopped and re-run at its default
#: tolerance 1e-3: on a nearly constant kernel (entries 1 +- 6e-6, a 2LMKL line
#: search trial with tiny weights) it never reaches 1e-7 and ran for minutes;
#: 10^6 iterations take about 0.1 s at n = 138.
MAX_SMO_ITER = 1_000_000


def kkt_violation(K, y, C, alpha, u=None, Ku=None):
    """libsvm's stopping measure at ``alpha``: the maximal violating pair
    ``max_{I_up} v - min_{I_low} v`` with ``v = y - K (y o alpha)``
    (Fan, Chen & Lin 2005; ``<= tol`` is libsvm's convergence test)."""
    y = np.asarray(y, dtype=np.float64)
    if Ku is None:
        u = alpha * y if u is None else u
        sv = np.flatnonzero(u)
        Ku = K[:, sv] @ u[sv]
    v = y - Ku
    below, above = alpha < C, alpha > 0
    up = (below & (y > 0)) | (above & (y < 0))
    low = (below & (y < 0)) | (above & (y > 0))
    if not up.any() or not low.any():
        return 0.0
    return float(v[up].max() - v[low].min())


def _bordered_solve(K, y, F, B, C):
    """Free ``alpha_F`` and ``b`` with ``alpha_B = C`` and the rest at 0:
    ``K_FF u_F + b 1 = y_F - K_FB u_B``, ``1^T u_F = -1^T u_B`` (LAPACK
    ``sysv``: this runs hundreds of times per MKL fit, where ``scipy.linalg.solve``'s
    checks cost more than the solve); ``None`` if singular. Ill-conditioning is
    not checked here: the caller's KKT test on the result decides."""
    uB = C * y[B]
    KF = K[F]
    A = np.empty((F.size + 1, F.size + 1))
    A[:-1, :-1] = KF[:, F]
    A[:-1, -1] = A[-1, :-1] = 1.0
    A[-1, -1] = 0.0
    rhs = np.empty(F.size + 1)
    rhs[:-1] = y[F] - (KF[:, B] @ uB if B.size else 0.0)
    rhs[-1] = -uB.sum()
    _, _, sol, info = _sysv(A, rhs, lower=1, overwrite_a=1, overwrite_b=1)
    if info != 0 or not np.all(np.isfinite(sol)):
        return None
    return sol


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
    upper = alpha0 >= C * (1.0 - 1e-10)
    free = (alpha0 > C * 1e-10) & ~upper
    slack = 1e-12 * C
    for _ in range(int(max_rounds)):
        F, B = np.flatnonzero(free), np.flatnonzero(upper)
        if F.size == 0:
            return None
        sol = _bordered_solve(K, y, F, B, C)
        if sol is None:
            return None
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


def _free_violators(free, upper, margin, tol):
    """Free (in place) the bounded points whose margin ``y_i f(x_i)`` violates
    their KKT condition by more than ``tol``; ``False`` when there is none."""
    wrong = (~free & ~upper & (margin < 1.0 - tol)) | (upper & (margin > 1.0 + tol))
    free |= wrong
    upper &= ~wrong
    return bool(wrong.any())


def svm_dual(K, y, C, *, tol=1e-7, alpha0=None) -> SVMDual:
    """Solve the SVM dual on ``K`` (n x n PSD) with labels ``y`` in ``{-1, +1}``
    (at ``tol``; at libsvm's default 1e-3 when ``tol`` is out of reach, see
    :data:`MAX_SMO_ITER`).

    ``alpha0``: a previous solution (of a nearby kernel), an ``alpha`` array or
    the :class:`SVMDual` itself; its active set is tried first and kept when it
    passes libsvm's test at ``tol`` (module docstring). With an ``SVMDual`` the
    attempt is made only when the cost model (:data:`SMO_SECONDS`) expects it to
    be cheaper than libsvm was on that chain.
    """
    y = np.asarray(y, dtype=np.float64)
    if alpha0 is not None:
        if isinstance(alpha0, SVMDual):
            work, alpha0 = alpha0.smo_work, alpha0.alpha
            n_sv = int(np.count_nonzero(alpha0))
            n_free = n_sv - int(np.count_nonzero(alpha0 >= float(C) * (1.0 - 1e-10)))
            rounds = _warm_start_rounds(y.size, n_free, n_sv, work)
        else:
            work, rounds = float("inf"), MAX_ACTIVE_SET_ROUNDS
        warm = _active_set_solution(K, y, C, alpha0, tol, rounds) if rounds else None
        if warm is not None:
            warm.smo_work = work
            return warm
    alpha = np.zeros(K.shape[0])
    fit = libsvm_fit(K, (y > 0).astype(np.float64), C, tol=tol, max_iter=MAX_SMO_ITER)
    smo_iter = 0
    if fit is not None and int(np.max(fit["n_iter"])) >= MAX_SMO_ITER:
        smo_iter = MAX_SMO_ITER
        fit = libsvm_fit(K, (y > 0).astype(np.float64), C, tol=max(tol, 1e-3),
                         max_iter=MAX_SMO_ITER)
    if fit is not None:
        smo_iter += int(np.max(fit["n_iter"]))
        # libsvm's sign convention is the negative of SVC's for two classes
        support = fit["support"]
        alpha[support] = -fit["dual_coef"][0] * y[support]
        b = -float(fit["intercept"][0])
    else:  # the private binding is unavailable or changed (tested by monkeypatching)
        import warnings

        from sklearn.exceptions import ConvergenceWarning

        clf = SVC(kernel="precomputed", C=float(C), tol=tol, shrinking=True,
                  max_iter=MAX_SMO_ITER)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", ConvergenceWarning)
            clf.fit(K, y)
        if any(issubclass(w.category, ConvergenceWarning) for w in caught):
            smo_iter = MAX_SMO_ITER
            clf.set_params(tol=max(tol, 1e-3)).fit(K, y)
        smo_iter += int(np.max(clf.n_iter_))
        # dual_coef_ = alpha_i y_i of the support vectors (classes_ = [-1, 1])
        alpha[clf.support_] = clf.dual_coef_[0] * y[clf.support_]
        b = float(clf.intercept_[0])
    alpha = np.clip(alpha, 0.0, float(C))
    u = alpha * y
    value = float(alpha.sum() - 0.5 * u @ K @ u)
    return SVMDual(alpha=alpha, b=b, value=value, smo_work=float(K.shape[0] * smo_iter))


def box_knapsack_max(g, y, C) -> float:
    """``max g^T a`` over ``{a : y^T a = 0, 0 <= a <= C}`` (``y`` in ``{-1, +1}``).

    The LP's dual is ``min_nu C sum_i max(g_i - nu y_i, 0)``, a convex
    piecewise-linear function of ``nu`` minimised at one of its breakpoints
    ``nu = g_i y_i``; all of them are evaluated (``O(n log n)`` by sorting).
    Used for Frank-Wolfe upper bounds on concave MKL duals.
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
