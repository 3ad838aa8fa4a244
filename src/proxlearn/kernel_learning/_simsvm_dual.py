"""SimSVM with an l1 or l2 regulariser through its dual (Chen 2010, section 5.2).

The exact SimSVM problem (5.20) with ``h(alpha) = ||alpha - alpha_ref||_1`` and
a clip or flip reference (``lambda_i ref_i >= 0``) is the SOCP (5.31). Its
Lagrangian dual is a *quadratic program* in the SVM dual variables ``beta``
(derivation in docs/methods.md); with ``||alpha - alpha_ref||_2`` the dual is the same
quadratic objective under one convex quartic constraint. This module solves
both with a primal-dual interior point whose Newton systems cost ``O(n k^2)`` -- instead of handing the SOCP's
``(n + 4k)``-dimensional KKT system with a dense ``n x k`` block to a general
sparse conic solver.

The derivation of the dual, the optimality certificate (a primal point completed
from every dual iterate, so ``P - D`` bounds the error) and why the interior
point is hand-written (the ``k x k`` reduced Newton system) are in
docs/methods.md, "SimSVM through its dual: derivation and certificate"; the
measurements against Clarabel and cvxpy in docs/benchmarks.md, "Solvers: simplex
QP and SimSVM". The solver stops when ``P - D <= tol |D|``.

The Frobenius regulariser (reference ``alpha = 1``, so ``lambda_i ref_i < 0``
on negative eigenvalues) stays with Clarabel on the SOCP
(:class:`proxlearn.kernel_learning._simsvm_socp.SimSVMSOCP`).
"""

from __future__ import annotations

import time
import warnings

import numpy as np
import scipy.linalg
import scipy.linalg.lapack

from ..solvers._hinge import central_hinge_intercept
from ._simsvm_socp import (
    SimSVMSolution,
    SimSVMSolverError,
    SimSVMSolverWarning,
    simsvm_objective,
)

__all__ = ["SimSVMDualQP", "dual_qp_applicable"]

#: fraction-to-boundary factor of the interior-point steps
_STEP = 0.99
#: certified gap (relative to |D|) accepted as optimal when ``tol`` is not reached
#: (1e-6 relative is the agreement asked of SimSVM's exact solvers)
_ACCEPT = 1e-6
#: certified gap accepted with a warning
_LOOSE = 1e-5
#: floor of |D| in the relative gap (objectives are means of hinge losses, O(0.01-1))
_SCALE_FLOOR = 1e-3
#: complementarity below which a gap that stops shrinking ends the iteration
_MU_FLOOR = 1e-10
#: certified iterations without progress that end the iteration otherwise
_STALL = 6
#: the primal completion is computed once m * mu <= _CERT_FROM * max(tol, _ACCEPT) * |D|
_CERT_FROM = 100.0
#: complementarity below which the Newton solves get a step of iterative refinement
_REFINE_BELOW = 1e-6
#: relative distances to a bound below which polish() calls a constraint active
_ACTIVE = (1e-3, 1e-2, 1e-1)


def dual_qp_applicable(kind, lam, ref) -> bool:
    """Whether :class:`SimSVMDualQP` solves this problem (l1 or l2, ``lambda ref >= 0``)."""
    return kind in ("l1", "l2") and bool(np.all(np.asarray(lam) * np.asarray(ref) >= 0))


class _L1Block:
    """The ``2k`` linear constraints ``-r <= g <= r`` of the l1 dual."""

    def __init__(self, qp, eta, gamma):
        self.B, self.k = qp.B, qp.k
        self.r = np.sqrt(4.0 * eta * gamma / qp.abs_lam)
        self.eta = eta

    def scale_start(self, g):
        """Factor bringing a start with these ``g`` well inside the constraints."""
        ratio = np.max(np.abs(g) / self.r)
        return 0.5 / ratio if ratio > 0.5 else 1.0

    def slack(self, g):
        return np.concatenate([self.r - g, self.r + g])

    def prepare(self, g, lm_c):
        """Per-iteration state; nothing to prepare for linear constraints."""

    def rows(self, v):
        gv = self.B @ v
        return np.concatenate([gv, -gv])

    def rows_t(self, w):
        return self.B.T @ (w[: self.k] - w[self.k:])

    def residual(self, g, s_c):
        return np.concatenate([g + s_c[: self.k] - self.r, -g + s_c[self.k:] - self.r])

    def z(self, coef, g, lm_c):
        return coef * g + lm_c[: self.k] - lm_c[self.k:]

    def newton_terms(self, coef, g, lm_c, w_c):
        """Diagonal ``e`` of the g-space Newton block and a rank-one ``(v, weight)``."""
        return coef + w_c[: self.k] + w_c[self.k:], None, 0.0

    def spectrum(self, qp, z, g):
        """Best ``a`` for ``z``: argmin ``eta z^2/a + gamma |a - a_ref| / |lambda|``."""
        return np.maximum(qp.a_ref, 2.0 * self.eta * np.abs(z) / self.r), z

    def feasible_scale(self, g):
        return 1.0 if np.all(np.abs(g) <= self.r * (1 + 1e-12)) else 0.0

    def polish(self, qp, beta, g, coef):
        """``z`` with ``delta`` on the active constraints and ``b`` fitted to the free margins."""
        C = 1.0 / qp.n
        out, seen = [], set()
        for thr in _ACTIVE:
            free = (beta > thr * C) & (beta < (1.0 - thr) * C)
            act = self.r - np.abs(g) < thr * self.r
            key = (free.tobytes(), act.tobytes())
            if not free.any() or key in seen:
                continue
            seen.add(key)
            Uf = qp.U[free]
            z0 = coef * g
            M = np.column_stack([Uf[:, act], np.ones(int(free.sum()))])
            sol, *_ = scipy.linalg.lstsq(
                M, qp.y[free] - Uf @ z0, check_finite=False, lapack_driver="gelsd"
            )
            z = z0.copy()
            z[act] += sol[:-1]
            out.append(z)
        return out


class _L2Block:
    """The one convex constraint ``c(g) = (sum kappa^2 g^4 - gamma^2) / 2 <= 0`` of the l2 dual."""

    def __init__(self, qp, eta, gamma):
        self.B = qp.B
        self.kap2 = (qp.abs_lam / (4.0 * eta)) ** 2
        self.gamma, self.eta = gamma, eta

    def c(self, g):
        return 0.5 * (np.sum(self.kap2 * g**4) - self.gamma**2)

    def scale_start(self, g):
        q = np.sum(self.kap2 * g**4)
        return (0.25 * self.gamma**2 / q) ** 0.25 if q > 0.25 * self.gamma**2 else 1.0

    def slack(self, g):
        return np.array([-self.c(g)])

    def prepare(self, g, lm_c):
        self.gc = 2.0 * self.kap2 * g**3  # gradient of c in g
        self.v = self.B.T @ self.gc  # gradient of c in beta

    def rows(self, v):
        return np.array([self.v @ v])

    def rows_t(self, w):
        return self.v * w[0]

    def residual(self, g, s_c):
        return np.array([self.c(g) + s_c[0]])

    def z(self, coef, g, lm_c):
        return coef * g + lm_c[0] * self.gc

    def newton_terms(self, coef, g, lm_c, w_c):
        # Lagrangian Hessian nu * 6 kappa^2 g^2 (diagonal in g) plus the
        # linearised constraint's rank-one term w_c v v^T
        return coef + lm_c[0] * 6.0 * self.kap2 * g * g, self.v, float(w_c[0])

    def spectrum(self, qp, z, g):
        """``a`` from ``z = a g / (2 eta)`` (the multiplier's spectrum), kept >= a_ref."""
        with np.errstate(divide="ignore", invalid="ignore"):
            a = np.where(g != 0, 2.0 * self.eta * z / g, qp.a_ref)
        a = np.maximum(a, qp.a_ref)
        return a, a * g / (2.0 * self.eta)

    def feasible_scale(self, g):
        q = np.sum(self.kap2 * g**4)
        return 1.0 if q <= self.gamma**2 else (self.gamma**2 / q) ** 0.25

    def polish(self, qp, beta, g, coef):
        """``z = coef g + nu gc`` with ``(nu, b)`` fitted to the free margins."""
        C = 1.0 / qp.n
        free = (beta > _ACTIVE[0] * C) & (beta < (1.0 - _ACTIVE[0]) * C)
        if not free.any():
            return []
        Uf = qp.U[free]
        M = np.column_stack([Uf @ self.gc, np.ones(int(free.sum()))])
        sol, *_ = scipy.linalg.lstsq(
            M, qp.y[free] - Uf @ (coef * g), check_finite=False, lapack_driver="gelsd"
        )
        return [coef * g + sol[0] * self.gc] if sol[0] >= 0 else []


class SimSVMDualQP:
    """SimSVM (5.20) with an l1 or l2 regulariser solved through its dual.

    Same inputs and output as :class:`~proxlearn.kernel_learning._simsvm_socp.SimSVMSOCP`
    with ``kind="l1"`` or ``"l2"``; re-solvable for any ``(eta, gamma)``.

    Parameters
    ----------
    U, lam, y
        Kept eigenvectors, their (non-zero) eigenvalues and the labels, as for
        :class:`~proxlearn.kernel_learning._simsvm_socp.SimSVMSOCP`; both labels present.
    ref : ndarray of shape (k,)
        Reference spectrum weights with ``lam * ref >= 0`` (clip or flip).
    kind : {"l1", "l2"}
        ``h = ||alpha - ref||_1`` (the dual is a QP) or ``||alpha - ref||_2``
        (the dual has one more, quartic, constraint).
    tol : float
        Certified duality gap at which to stop, relative to ``|D|`` (floored at
        ``1e-3``): the returned objective is within ``tol`` (relative) of the
        optimum.
    max_iter : int
        Interior-point iterations.
    """

    def __init__(self, U, lam, y, ref, kind="l1", *, tol=1e-7, max_iter=100):
        U = np.ascontiguousarray(U, dtype=np.float64)
        lam = np.asarray(lam, dtype=np.float64)
        y = np.asarray(y, dtype=np.float64)
        ref = np.asarray(ref, dtype=np.float64)
        if kind not in ("l1", "l2"):
            raise ValueError(f"SimSVMDualQP solves kind 'l1' or 'l2', got {kind!r}.")
        if not dual_qp_applicable(kind, lam, ref):
            raise ValueError(
                "SimSVMDualQP needs lambda_i * ref_i >= 0 for every direction (a clip or "
                "flip reference); use SimSVMSOCP for other references."
            )
        if not (np.any(y > 0) and np.any(y < 0)):
            raise ValueError("SimSVMDualQP needs labels of both signs.")
        self.U, self.lam, self.y, self.ref, self.kind = U, lam, y, ref, kind
        self.n, self.k = U.shape
        self.B = np.ascontiguousarray((U * y[:, None]).T)
        self.a_ref = lam * ref
        self.abs_lam = np.abs(lam)
        self.tol = float(tol)
        self.max_iter = int(max_iter)

    # -- pieces ------------------------------------------------------------
    def _start(self, block):
        """A strictly feasible ``beta``: balanced classes, scaled inside the constraints."""
        y, n = self.y, self.n
        C = 1.0 / n
        npos, nneg = np.sum(y > 0), np.sum(y < 0)
        m = min(npos, nneg)
        beta = np.where(y > 0, 0.5 * C * m / npos, 0.5 * C * m / nneg)
        return beta * block.scale_start(self.B @ beta)

    def primal_value(self, z, eta, gamma, block, g):
        """Objective ``P`` of the primal point completed from ``z``, with ``a``, ``b``, ``z``.

        Any ``z`` completes to a feasible primal point, so ``P`` is an upper
        bound of the optimum.
        """
        a, z = block.spectrum(self, z, g)
        b = float(central_hinge_intercept(self.U @ z, self.y))
        P = simsvm_objective(self.U, self.lam, self.y, self.ref, self.kind, eta, gamma,
                             z, b, a / self.lam)
        return P, a, b, z

    def dual_value(self, beta, coef, block):
        """Dual objective ``D`` of ``beta`` (a lower bound), or ``-inf`` if infeasible.

        The box and ``y^T beta = 0`` are checked with a rounding allowance of
        ``1e-12`` relative; for l2, ``beta`` is scaled into the quartic
        constraint (``t beta`` stays in the box and orthogonal to ``y``).
        """
        C = 1.0 / self.n
        if (beta.min() < -1e-12 * C or beta.max() > C * (1 + 1e-12)
                or abs(self.y @ beta) > 1e-12 * C * self.n):
            return -np.inf
        g = self.B @ beta
        t = block.feasible_scale(g)
        if t <= 0:
            return -np.inf
        return float(t * beta.sum() - 0.5 * t * t * np.dot(coef, g * g))

    # -- solve ------------------------------------------------------------
    def solve(self, eta, gamma) -> SimSVMSolution:
        """Solve for ``(eta, gamma)``; returns the certified-optimal solution.

        Raises
        ------
        SimSVMSolverError
            If the certified gap stays above ``1e-5 |D|``. The iteration aims
            at ``tol``; a gap up to ``1e-6 |D|`` still counts as optimal, and
            one up to ``1e-5 |D|`` is returned with a
            :class:`SimSVMSolverWarning`.
        """
        eta, gamma = float(eta), float(gamma)
        if not (eta > 0 and gamma > 0 and np.isfinite(eta) and np.isfinite(gamma)):
            raise ValueError(f"eta and gamma must be positive and finite, got {eta}, {gamma}.")
        t0 = time.perf_counter()
        potrf, potrs = scipy.linalg.lapack.dpotrf, scipy.linalg.lapack.dpotrs
        n, k, B, y = self.n, self.k, self.B, self.y
        C = 1.0 / n
        coef = self.a_ref / (2.0 * eta)
        block = (_L1Block if self.kind == "l1" else _L2Block)(self, eta, gamma)
        i_lo, i_up, i_c = slice(0, n), slice(n, 2 * n), slice(2 * n, None)

        def G(v):  # rows of -beta <= 0, beta <= C and the block's constraints
            return np.concatenate([-v, v, block.rows(v)])

        def GT(w):
            return -w[i_lo] + w[i_up] + block.rows_t(w[i_c])

        beta = self._start(block)
        s = np.concatenate([beta, C - beta, block.slack(B @ beta)])  # slacks, > 0
        m_tot = s.size
        lm = (1.0 / n) / s  # multipliers: a perfectly centred start, mu = 1/n
        nu = 0.0
        best_p = None  # (P, z, a, b): smallest upper bound so far
        best_d = -np.inf  # largest lower bound so far
        stall = 0
        last_gap = np.inf
        min_rd = np.inf
        mu = np.inf
        it = 0
        # a step taken after the Newton systems lost their accuracy can overflow;
        # such iterates are never certified, so the warnings are noise
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            for it in range(1, self.max_iter + 1):
                g = B @ beta
                block.prepare(g, lm[i_c])
                z = block.z(coef, g, lm[i_c])
                D = self.dual_value(beta, coef, block)
                mu_prev, mu = mu, float(s @ lm) / m_tot
                best_d = max(best_d, D)
                # the primal completion needs a sort and the polish a solve: do them
                # once the complementarity gap is within reach of the tolerance
                reach = _CERT_FROM * max(self.tol, _ACCEPT) * max(abs(best_d), _SCALE_FLOOR)
                if m_tot * mu <= reach or best_p is None:
                    for zc in [z] + block.polish(self, beta, g, coef):
                        P, ac, bb, zc = self.primal_value(zc, eta, gamma, block, g)
                        if best_p is None or P < best_p[0]:
                            best_p = (P, zc, ac, bb)
                    gap = best_p[0] - best_d
                    improved = gap < 0.9 * last_gap
                    last_gap = min(last_gap, gap)
                    if gap <= self.tol * max(abs(best_d), _SCALE_FLOOR):
                        break
                    # stop when the bounds no longer move: quickly once the
                    # complementarity is exhausted, else after a few tries
                    stall = 0 if improved else stall + 1
                    if stall >= (3 if mu_prev < _MU_FLOOR else _STALL):
                        break
                # residuals (the linear ones only by rounding: the start is feasible)
                rd = B.T @ z - 1.0 - lm[i_lo] + lm[i_up] + y * nu
                rp = np.concatenate([-beta + s[i_lo], beta + s[i_up] - C,
                                     block.residual(g, s[i_c])])
                re = float(y @ beta)
                rd_norm = float(np.abs(rd).max())
                min_rd = min(min_rd, rd_norm)
                if it > 5 and min_rd < 1e-6 and rd_norm > 1e8 * max(min_rd, 1e-12):
                    break  # the Newton directions have lost their accuracy
                w = lm / s
                d = w[i_lo] + w[i_up]
                e, v1, w1 = block.newton_terms(coef, g, lm[i_c], w[i_c])
                dinv = 1.0 / d
                N = (B * dinv) @ B.T
                N[np.diag_indices(k)] += 1.0 / np.maximum(e, 1e-300)
                # LAPACK directly: these k x k solves are microseconds, and the
                # scipy wrappers' checks would cost more than the arithmetic
                L, info = potrf(N, lower=True, overwrite_a=True, clean=False)
                if info != 0:
                    break
                refine = mu < _REFINE_BELOW

                def m0solve(R, L=L, dinv=dinv, d=d, e=e, refine=refine):
                    # (diag(d) + B^T diag(e) B)^-1 R through the k x k system
                    def once(Q):
                        W, _ = potrs(L, B @ (dinv[:, None] * Q), lower=True)
                        return dinv[:, None] * (Q - B.T @ W)

                    X = once(R)
                    if not refine:
                        return X
                    # one step of iterative refinement against the full matrix
                    return X + once(R - (d[:, None] * X + B.T @ (e[:, None] * (B @ X))))

                def msolve(R, v1=v1, w1=w1):
                    if v1 is None:
                        return m0solve(R)
                    # Sherman-Morrison for the rank-one term w1 v1 v1^T
                    X = m0solve(np.column_stack([R, v1]))
                    xv, X = X[:, -1], X[:, :-1]
                    return X - np.outer(xv, w1 * (v1 @ X) / (1.0 + w1 * (v1 @ xv)))

                def rhs(c):
                    # complementarity target c = l ds + s dl; eliminating ds, dl
                    return -rd - GT(c / s + w * rp)

                def finish(x1, x_y, c):
                    dnu = (y @ x1 + re) / (y @ x_y)
                    db = x1 - dnu * x_y
                    ds = -rp - G(db)
                    return db, dnu, ds, (c - lm * ds) / s

                # predictor (affine scaling), solved together with M^-1 y
                c_aff = -s * lm
                X = msolve(np.column_stack([rhs(c_aff), y]))
                x_y = X[:, 1]
                _, _, ds, dl = finish(X[:, 0], x_y, c_aff)
                step = min(_max_step(s, ds), _max_step(lm, dl))
                mu_aff = float((s + step * ds) @ (lm + step * dl)) / m_tot
                sigma = (mu_aff / mu) ** 3
                # corrector
                c_cor = c_aff + sigma * mu - ds * dl
                x1 = msolve(rhs(c_cor)[:, None])[:, 0]
                db, dnu, ds, dl = finish(x1, x_y, c_cor)
                step = _STEP * min(_max_step(s, ds), _max_step(lm, dl))
                beta = beta + step * db
                nu += step * dnu
                s = s + step * ds
                lm = lm + step * dl
        P, z, a, b = best_p
        D = best_d
        gap = P - D
        seconds = time.perf_counter() - t0
        scale = max(abs(D), _SCALE_FLOOR)
        if gap <= max(self.tol, _ACCEPT) * scale:
            status = "optimal"
        elif gap <= _LOOSE * scale:
            status = "optimal_inaccurate"
            warnings.warn(
                f"SimSVM dual QP stopped at a certified gap of {gap:.2g} "
                f"(tolerance {self.tol:.0e} x {scale:.3g}) for eta={eta}, gamma={gamma}; "
                "the objective is within that gap of the optimum.",
                SimSVMSolverWarning,
                stacklevel=2,
            )
        else:
            raise SimSVMSolverError(
                f"SimSVM dual QP interior point (eta={eta}, gamma={gamma}) stopped after "
                f"{it} iterations with a certified duality gap of {gap:.3g} "
                f"(objective {P:.6g}); use SimSVM's solver='socp' (Clarabel) for this problem."
            )
        pos = a > 0
        t = np.zeros_like(z)
        t[pos] = z[pos] ** 2 / a[pos]
        return SimSVMSolution(
            z=z.copy(),
            b=b,
            alpha=a / self.lam,
            t=t,
            objective=float(P),
            status=status,
            iterations=it,
            seconds=seconds,
            gap=float(gap),
            dual_objective=float(D),
        )


def _max_step(v, dv):
    """Largest step in (0, 1] keeping ``v + step dv >= 0``."""
    neg = dv < 0
    if not neg.any():
        return 1.0
    return min(1.0, float(np.min(-v[neg] / dv[neg])))
