"""Newton's method for the non-sparse MKL of Kundu et al. (2010) eq. 10 on a fixed
active set: the joint optimum in one solve sequence instead of a slow block ascent.

Eq. 10 with ``gamma`` eliminated is the concave problem ``max_{alpha in A}
h(alpha)``, ``h = 1^T alpha - 1/2 sum_k a_k / gamma*_k(a)``, ``a_k = u^T K_k u``,
``u = y o alpha``, ``gamma* = gamma_star(a, floor)``. On the face of the box
where the free ``alpha`` are ``F``, each step solves the bordered system
``[M_FF 1; 1^T 0] [du; b] = [y_F - (K_gamma u)_F; -1^T u]``
(:func:`proxlearn._svm._dual.bordered_solve`) with the Hessian ``M`` (the
combined kernel ``K_gamma = sum_k K_k / gamma_k`` plus a low-rank correction),
then an Armijo step on ``h`` in the box. A result is kept only when it passes
libsvm's stopping test (:func:`proxlearn._svm._dual.kkt_violation` ``<= tol``)
for the SVM on ``K_gamma`` at ``gamma*(a(alpha))``: it is then the optimum up
to ``tol``. Dense stacks only; the caller
(:func:`proxlearn.mkl.nonsparse_mkl`, ``newton=True``) runs the block ascent
whenever this returns ``None``. The derivation of the gradient and Hessian, the
face rounds and why this solver exists: docs/methods.md, section "Non-sparse
MKL: the Newton solver".
"""

from __future__ import annotations

import numpy as np

from ._bank import stack_combine
from .._svm._dual import _active_set_solution, _free_violators, bordered_solve, kkt_violation
from ..solvers import SolverResult

__all__ = ["NonsparseNewtonResult", "gamma_star", "nonsparse_newton"]


class NonsparseNewtonResult(SolverResult):
    """What :func:`nonsparse_newton` returns: the certified joint optimum.

    A :class:`~proxlearn.solvers.SolverResult` with fields ``alpha`` and ``b``
    (the SVM on ``K_gamma``), ``gamma`` (``gamma*(a(alpha))``), ``fun`` (alias
    ``value``: ``h(alpha) = omega(K_gamma)`` at ``alpha``), ``nit`` (alias
    ``n_steps``) and ``products`` (``(n, m)``: ``[K_k (y o alpha)]`` on every row,
    the final test's products; the caller's certificate reads ``a`` and
    ``K_gamma u`` from them, or ``None``).
    """

    _aliases = {"value": "fun", "n_steps": "nit"}

    def __init__(self, alpha, b, gamma, value, n_steps, products=None):
        super().__init__(alpha=alpha, b=b, gamma=gamma, fun=value, nit=n_steps,
                         products=products)


def _products(Ks, v, cols):
    """``(n, m)``: ``K_k[:, cols] @ v[cols]`` for every kernel of a dense stack
    (symmetric kernels): one gemv on the whole kernel when it is contiguous and
    ``cols`` is not small; else the rows ``cols`` of a C-contiguous kernel (as in a
    kernel-major stack: contiguous rows, ``K[cols]^T v = K[:, cols] v`` by symmetry),
    the columns of a Fortran-ordered one, or a gather of the columns otherwise."""
    n, _, m = Ks.shape
    out = np.empty((n, m))
    whole = 3 * cols.size > n
    vv = np.zeros(n)  # v on cols, zero elsewhere: the whole-kernel gemv's vector
    vv[cols] = v[cols]
    vc = vv[cols]
    for k in range(m):
        K = Ks[:, :, k]
        if whole and (K.flags.f_contiguous or K.flags.c_contiguous):
            out[:, k] = K @ vv
        elif K.flags.c_contiguous:
            out[:, k] = vc @ K[cols]
        else:
            out[:, k] = K[:, cols] @ vc
    return out


def gamma_star(a, floor):
    """``argmin sum_k a_k / gamma_k`` over ``{sum gamma = 1, gamma >= floor}``.

    KKT: ``gamma_k = max(floor, c sqrt(a_k))`` with ``c`` such that the sum is
    1 (``floor = 0``: ``sqrt(a) / sum sqrt(a)``). The clamped set
    only grows, so at most ``m`` passes.

    Examples
    --------
    >>> import numpy as np
    >>> from proxlearn.mkl._nonsparse_newton import gamma_star
    >>> gamma_star(np.array([1.0, 4.0]), 0.0).round(4).tolist()
    [0.3333, 0.6667]
    >>> gamma_star(np.array([1e-6, 1.0, 4.0]), 0.1).round(4).tolist()  # the floor binds
    [0.1, 0.3, 0.6]

    See Also
    --------
    nonsparse_newton : Newton's method on eq. 10 with this ``gamma`` eliminated.
    proxlearn.mkl.nonsparse_mkl : the solver that calls both.
    """
    r = np.sqrt(np.maximum(np.asarray(a, dtype=np.float64), 0.0))
    m = r.size
    total = float(r.sum())
    if floor * m >= 1.0 or not total > 0:
        return np.full(m, 1.0 / m)
    g = (1.0 / total) * r  # the first pass below with nothing clamped, as one product
    if float(g.min()) >= floor:  # the usual case (no weight at the floor)
        return g
    clamped = np.zeros(m, dtype=bool)
    for _ in range(m):
        free = ~clamped
        c = (1.0 - floor * clamped.sum()) / r[free].sum() if np.any(r[free] > 0) else 0.0
        g = np.where(clamped, floor, c * r)
        newly = free & (g < floor)
        if not newly.any():
            return g
        clamped |= newly
    return np.where(clamped, floor, c * r)


def _face(alpha, C):
    """``alpha`` snapped to its bounds, and the free and at-``C`` masks."""
    alpha = np.clip(alpha, 0.0, C)
    upper = alpha >= C * (1.0 - 1e-10)
    free = (alpha > C * 1e-10) & ~upper
    return np.where(upper, C, np.where(free, alpha, 0.0)), free, upper


def _state(Ks, y, alpha, floor):
    """``(u, Q, a, gamma*, K_gamma u)`` at ``alpha`` with ``Q = [K_k u]`` from the
    whole stack, or ``None`` when a ``gamma_k`` is 0 (``floor = 0``)."""
    u = alpha * y
    return _state_from(_products(Ks, u, np.flatnonzero(u)), u, floor)


def _state_from(Q, u, floor):
    """:func:`_state` from the products ``Q = [K_k u]`` (on any rows holding the
    support of ``u``)."""
    a = np.maximum(u @ Q, 0.0)
    g = gamma_star(a, floor)
    if not np.all(g > 0):
        return None
    return u, Q, a, g, Q @ (1.0 / g)


def _h(y_u, a, floor):
    g = gamma_star(a, floor)
    return y_u - 0.5 * float(np.sum(a / g))


#: Largest support, relative to ``n``, for which :class:`_Face` gathers the
#: sub-stack ``K_k[S, S]``: one gather costs about ``2 (s / n)^2`` passes over the
#: stack, after which the three passes of a face's first Newton step (products of
#: ``u`` and of the step, the combined block) read ``(s / n)^2`` of one each, and the
#: faces often change after one step. 0.4 was as fast as or faster than 0, 0.6 and 1
#: on all four sets tried (docs/benchmarks.md, "MKL solvers' speed, second pass" and
#: "Non-sparse MKL: the sub-stack gather").
SUB_STACK_MAX_FRACTION = 0.4


class _Face:
    """The kernels a Newton step reads, on the support ``S`` of ``alpha``: the
    products ``[K_k v]_S`` for ``v`` supported on ``S`` and the block
    ``(sum_k w_k K_k)[S_F, S_F]``. A small support is gathered once, kernel-major
    ``(m, s, s)``; a large one is read from the whole stack at each step."""

    def __init__(self, Ks, S):
        self.Ks, self.S, n = Ks, S, Ks.shape[0]
        self.sub = None
        if S.size <= SUB_STACK_MAX_FRACTION * n:
            # one fancy index (an (s, s) block per kernel), several times faster
            # than gathering the rows and then the columns
            self.sub = np.moveaxis(Ks, -1, 0)[:, S[:, None], S]

    def products(self, v):
        """``(s, m)``: ``[K_k v]_S`` for ``v`` given on ``S``."""
        if self.sub is not None:
            return (self.sub @ v).T
        full = np.zeros(self.Ks.shape[0])
        full[self.S] = v
        return _products(self.Ks, full, self.S[v != 0])[self.S]

    def block(self, w, F):
        """``(sum_k w_k K_k)`` on the positions ``F`` of ``S``."""
        if self.sub is not None:
            return np.tensordot(w, self.sub, axes=1)[np.ix_(F, F)]
        rows = self.S[F]
        if 3 * rows.size > self.Ks.shape[0]:
            return stack_combine(self.Ks, w)[np.ix_(rows, rows)]
        # a small free set of a large support: gather its (f, f) blocks only
        return np.tensordot(w, np.moveaxis(self.Ks, -1, 0)[:, rows[:, None], rows], axes=1)


def nonsparse_newton(Ks, y, C, alpha, *, floor, tol, max_steps=40, max_rounds=6):
    """The eq. 10 optimum reached by Newton steps from the active set of
    ``alpha`` (an SVM solution at a nearby ``gamma``), or ``None``.

    ``Ks``: dense ``(n, n, m)`` stack; ``tol``: libsvm's stopping tolerance that
    the result must pass on ``K_gamma``. ``None`` when a face's system is
    singular, no ascent step is found, ``floor`` is 0 with an unused kernel, or
    the step or round budget is spent (the caller then runs the block ascent).

    The steps on a face touch only the support ``S`` of ``alpha`` (free or at
    ``C``; the points at 0 stay there): they read the kernels on ``S`` only
    (:class:`_Face`), and the final test reads the whole stack.
    """
    if not isinstance(Ks, np.ndarray) or Ks.ndim != 3:
        return None
    y = np.asarray(y, dtype=np.float64)
    C, floor, tol = float(C), float(floor), float(tol)
    alpha, free, upper = _face(np.asarray(alpha, dtype=np.float64), C)
    steps = 0
    for _ in range(int(max_rounds)):
        Q = None
        S = np.flatnonzero(free | upper)
        face, yS = _Face(Ks, S), y[S]
        while True:  # Newton on the face {alpha_F free, the rest at their bound}
            F = np.flatnonzero(free[S])  # positions in S
            if F.size == 0:
                return None
            aS = alpha[S]
            u = aS * yS
            state = _state_from(face.products(u) if Q is None else Q, u, floor)
            if state is None:
                return None
            u, Q, a, g, Kgu = state
            resid = yS[F] - Kgu[F]
            r_lo, r_hi = float(resid.min()), float(resid.max())
            if r_hi - r_lo <= 0.5 * tol and abs(u.sum()) <= 1e-12 * C:
                # the face is solved: y_F - (K_gamma u)_F is within tol / 4 of the
                # constant b = its midrange (no Newton system needed to see it)
                b = 0.5 * (r_lo + r_hi)
                break
            hi = (g > floor * (1.0 + 1e-12)) & (a > 0)
            kappa = 1.0 - floor * float(np.count_nonzero(~hi))
            QF = Q[F][:, hi]
            w = QF @ (1.0 / np.sqrt(a[hi]))
            M_FF = face.block(1.0 / g, F)
            M_FF += np.outer(w, w) / kappa
            M_FF -= (QF / (g[hi] * a[hi])) @ QF.T
            got = bordered_solve(M_FF, resid, -u.sum())
            if got is None:
                return None
            du, b = got
            if np.max(np.abs(M_FF @ du)) <= 0.25 * tol and abs(u.sum()) <= 1e-12 * C:
                break  # the face's KKT residual y_F - (K_gamma u)_F - b is below tol / 4
            steps += 1
            if steps > max_steps:
                return None
            da = yS[F] * du
            with np.errstate(divide="ignore", invalid="ignore"):
                room = np.where(da < 0, -aS[F] / da, np.where(da > 0, (C - aS[F]) / da,
                                                              np.inf))
            j = int(np.argmin(room))
            t_max = min(1.0, float(room[j]))
            # h along the step: a_k(t) = a_k + t c1_k + t^2 c2_k, with K_k du
            du_S = np.zeros(S.size)
            du_S[F] = du
            P = face.products(du_S)
            c1, c2 = 2.0 * (du @ Q[F]), du @ P[F]
            y_u = float(yS @ u)
            y_du = float(yS[F] @ du)
            h0 = _h(y_u, a, floor)
            slope = float(resid @ du)  # directional derivative of h (du^T M du >= 0)
            if slope < -1e-12 * max(1.0, abs(h0)):  # not an ascent direction: M_FF is
                return None  # not PSD numerically
            t = t_max
            for _ in range(40):
                if _h(y_u + t * y_du, np.maximum(a + t * c1 + t * t * c2, 0.0), floor) \
                        >= h0 + 1e-4 * t * max(slope, 0.0):
                    break
                t *= 0.5
            else:
                return None
            alpha[S[F]] = np.clip(aS[F] + t * da, 0.0, C)
            Q = Q + t * P  # K_k u is linear in u (the snap below moves it by rounding only)
            if t == t_max and t_max < 1.0:  # a variable reached its bound: off the face
                hit = S[F[j]]
                at_c = da[j] > 0
                alpha[hit] = C if at_c else 0.0
                free[hit] = False
                upper[hit] = at_c
                # the face moved: the SVM at gamma*(alpha) finds the new one (bulk moves
                # of the active-set SVM solver; a block-ascent step, so h does not fall)
                # rather than leaving it one variable per Newton step
                g = gamma_star(np.maximum((alpha[S] * yS) @ Q, 0.0), floor)
                svm = _active_set_solution(stack_combine(Ks, 1.0 / g), y, C, alpha, tol)
                if svm is not None:
                    alpha, free, upper = _face(svm.alpha, C)
                    Q = None
                    S = np.flatnonzero(free | upper)
                    face, yS = _Face(Ks, S), y[S]
        state = _state(Ks, y, alpha, floor)  # the final test on fresh products
        if state is None:
            return None
        u, Q, a, g, Kgu = state
        value = float(alpha.sum() - 0.5 * np.sum(a / g))
        if kkt_violation(None, y, C, alpha, Ku=Kgu) <= tol:
            return NonsparseNewtonResult(alpha=alpha, b=b, gamma=g, value=value, n_steps=steps,
                              products=Q)
        if not _free_violators(free, upper, y * (Kgu + b), tol):
            return None
    return None
