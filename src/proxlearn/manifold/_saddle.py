"""The SimpleNPKL template (Zhuang 2011, Protocol 1 applied as in sec. 3.4) for the embeddings.

==================  ============================================================
function            problem
==================  ============================================================
``dual_ascent``     ``max_{alpha in F} g(alpha)``,
                    ``g(alpha) = min_{K in Kset} -tr(A(alpha) K) + h(alpha)``
==================  ============================================================

with ``A(alpha) = A0 + sum_l alpha_l T_l`` (``A0`` centred, every ``T_l``
annihilating the all-ones vector), ``Kset = {K PSD, K 1 = 0, tr(K K) <= B}``
and ``h`` the concave linear-quadratic part of the method:

* MVE / CMVU (distance equalities with squared slack, sec. 3.4.1-3.4.2):
  ``h(alpha) = alpha . D - ||alpha||^2 / (2C)``, ``alpha`` free (equality
  constraints: no projection);
* SPE (triplets with one shared slack, sec. 3.4.3): ``h = 0``,
  ``F = {alpha >= 0, sum alpha <= C}`` (the capped simplex).

K-step in closed form, ``K(alpha) = sqrt(B) A_+ / ||A_+||_F``
(:func:`proxlearn.solvers.max_trace_psd_ball`, Prop. 3.25 with ``p = 2``);
alpha-step (Protocol 1 step 7) by projected gradient ascent with Danskin's
gradient (eq. 3.19), Prop. 3.28's safe step first, then Barzilai-Borwein steps
with non-monotone Armijo backtracking, in the loop of
:func:`proxlearn.solvers.dual_ascent`. Every ``K(alpha)`` is primal feasible,
so the run stops at a certified relative duality gap ``tol`` (the thesis gives
neither a step size for the ``B`` form nor a stopping rule). Derivation and
step constants: docs/methods.md, section "Embeddings: the dual-ascent template".
"""

from __future__ import annotations

import numpy as np
import scipy.linalg

from ..solvers import dual_ascent as engine
from ..solvers import SolverResult, max_trace_psd_ball

__all__ = ["SaddleResult", "dual_ascent"]


class SaddleResult(SolverResult):
    """What :func:`dual_ascent` returns (a :class:`~proxlearn.solvers.SolverResult`).

    Fields: ``K`` the learned kernel ``K(alpha)``; ``x`` (alias ``alpha``) the
    multipliers; ``primal``, ``dual`` and ``gap = primal - dual`` the certificate;
    ``nit`` (alias ``n_iter``); ``success`` (alias ``converged``), ``status`` and
    ``message`` as :class:`~proxlearn.solvers.DualAscentResult`'s; ``history`` the
    dual value after each iteration; ``eig`` ``(w, V)``, the positive eigenvalues of
    ``K`` and their eigenvectors (from the last K-step's eigendecomposition; callers
    reuse them instead of another ``eigh``), or ``None``.
    """

    _aliases = {"alpha": "x", "n_iter": "nit", "converged": "success"}

    def __init__(self, K, alpha, primal, dual, n_iter, converged, history=None, eig=None, *,
                 status=None, message=None):
        super().__init__(K=K, x=alpha, primal=primal, dual=dual, gap=primal - dual, nit=n_iter,
                         history=[] if history is None else history, eig=eig,
                         **self.stopping(converged, status, message))


def dual_ascent(A0, M, B, *, h, grad_h, primal, project=None, C=np.inf, alpha0=None,
                tol=1e-4, max_iter=200, G=None):
    """Run the template of the module docstring (``max_{alpha in F} g(alpha)``).

    Parameters
    ----------
    A0 : ndarray (n, n), centred symmetric base matrix.
    M : sparse (m, n^2) operator of the ``T_l`` (see ``selector_operator``).
    B : float, bound on ``tr(K K)``.
    h, grad_h : callables of ``alpha``.
    primal : callable of ``K``: the primal objective at the feasible ``K``.
    project : callable or None (``alpha`` free).
    C : float, the curvature ``1/C`` of ``h`` (``inf`` when ``h`` is linear).
    alpha0 : warm start (projected), zeros by default.
    G : float, optional
        Penalty form (Prop. 3.26, ``p = 2``): ``+ (G/2) tr(K K)`` in the primal
        instead of the ball (``B`` ignored); ``K(alpha) = A_+ / G``, continuous in
        ``alpha``, ``g = -||A_+||_F^2 / (2G) + h`` and Prop. 3.28's step ``1/L``,
        ``L = ||M||_F^2 / G + 1/C``, is safe everywhere.
    """
    n = A0.shape[0]
    m = M.shape[0]
    MT = M.T.tocsr()

    def k_step(alpha):
        """``g(alpha)`` and ``(K(alpha), max_K tr(A K) - penalty, eigenpairs of K)``."""
        A = A0 + (MT @ alpha).reshape(n, n)
        A = 0.5 * (A + A.T)
        lam, V = scipy.linalg.eigh(A, driver="evd")
        pos = lam > 0
        if G is not None:  # penalty form: min_K -tr(AK) + G/2 ||K||^2 = -||A_+||^2 / (2G)
            Vp = V[:, pos]
            K = (Vp * (lam[pos] / G)) @ Vp.T
            value = float(lam[pos] @ lam[pos]) / (2.0 * G)
            return -value + h(alpha), (0.5 * (K + K.T), value, (lam[pos] / G, Vp))
        K, value = max_trace_psd_ball(A, B, eigh=(lam, V))
        lp = lam[pos]  # Prop. 3.25, p = 2: the eigenvalues of K are sqrt(B) lp / ||lp||
        w = np.sqrt(B) * lp / np.linalg.norm(lp) if lp.size else lp
        return -value + h(alpha), (K, value, (w, V[:, pos]))

    user_primal = primal
    if G is not None:
        def primal(K):
            return user_primal(K) + 0.5 * G * float(np.vdot(K, K))

    def measure(alpha, state):
        K = state[0]
        return primal(K), -(M @ K.ravel()) + grad_h(alpha)

    def first_step(state):
        # Prop. 3.28: the G of the penalty form, or the one giving the same K (Prop. 3.26)
        value = state[1]
        G_eff = G if G is not None else (value / B if value > 0 else 0.0)
        lip = (norm_sq / G_eff if G_eff > 0 else np.inf) + (1.0 / C if np.isfinite(C) else 0.0)
        return 1.0 / lip if np.isfinite(lip) and lip > 0 else 1.0

    norm_sq = float(np.sum(M.data ** 2))
    res = engine(k_step, measure,
                 np.zeros(m) if alpha0 is None else np.asarray(alpha0, dtype=float),
                 project=project, step=first_step, bb_bounds=(1e-12, 1e12),
                 max_backtracks=60, tol=tol, max_iter=max_iter)
    K, _, eig = res.state
    return SaddleResult(K, res.x, res.primal, res.dual, res.nit, res.success,
                        res.trace["dual"][1:], eig, status=res.status, message=res.message)
