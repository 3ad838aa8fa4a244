"""First-order solver of the full-kernel SVM (Chen 2010, thesis eq. 5.6 and 5.16).

* :func:`solve_full_kernel_dual`: (5.6) / (5.16) by an outer 1-D search over the
  Frobenius distance ``tau = ||K - S||_F`` and, inside, the Indefinite SVM (5.8) at
  ``rho = gamma / (4 eta tau)`` (accelerated projected gradient on ``alpha``,
  rank-one eigen-updates of ``S``), warm started along ``tau``;
* :func:`full_kernel_primal`: the objective of (5.6) at ``(K, c, b)``;
* :func:`full_kernel_dual_bound`: a lower bound on the optimum of (5.6) at any
  feasible ``alpha`` (the certificate: primal minus bound).

Derivation (docs/methods.md, "FullKernelSVM: the dual solver"). With the thesis's
scaling the SVM part of (5.2) at a fixed PSD ``K`` equals ``2 eta D(K)``, ``D(K) =
max_alpha 1^T alpha - 1/2 a^T K a`` (``a = y o alpha``, ``0 <= alpha <= C = 1 / (2 n
eta)``, ``y^T alpha = 0``). The norm, not squared, is written as
``gamma ||X||_F = min_{tau > 0} gamma (||X||_F^2 / (2 tau) + tau / 2)``, so that

    opt(5.6) = min_{tau > 0}  gamma tau / 2 + 2 eta V(gamma / (4 eta tau)),

where ``V(rho) = max_alpha min_{K PSD} 1^T alpha - 1/2 a^T K a + rho ||K - S||_F^2``
is the Indefinite SVM (5.8), whose inner minimiser is ``(S + a a^T / (4 rho))_+``
(5.9). The outer function is convex in ``tau`` (a perspective); its derivative
vanishes where ``||K*(tau) - S||_F = tau``, a fixed point found by safeguarded
secant steps on ``log tau``. At the fixed point ``(K*, c = a, b)`` solves (5.6)
(Sion's theorem, as in the thesis's equivalence of (5.8) and (5.12)).

Certificate: for any feasible ``alpha``,
``D(alpha) = min_{tau > 0} gamma tau / 2 + 2 eta f_{rho(tau)}(alpha) <= opt(5.6)``
(``f_rho`` the objective of (5.8)); :func:`full_kernel_dual_bound` evaluates it by
a bounded 1-D search, with full eigendecompositions. The transductive problem
(5.16) is the same with ``a`` padded by zeros on the unlabelled samples.
"""

from __future__ import annotations

import numpy as np
import scipy.linalg
import scipy.optimize

from .._svm._dual import kkt_intercept
from ..solvers import SolverResult
from ._indefinite_svm import _Problem, _solve, isvm_objective

__all__ = [
    "FullKernelDualResult",
    "full_kernel_dual_bound",
    "full_kernel_primal",
    "solve_full_kernel_dual",
]


class FullKernelDualResult(SolverResult):
    """Result of :func:`solve_full_kernel_dual` (a :class:`~proxlearn.solvers.SolverResult`).

    Fields beyond scipy's (``x``: the dual ``alpha`` on the labelled samples,
    ``fun``: the objective of (5.6) at ``(K, a, b)``, ``nit``: outer steps):

    ===============  ===========================================================
    ``K``            learned kernel ``(S + t a~ a~^T)_+`` (``a~`` padded by zeros)
    ``z``            ``K[:n, :n] a``, the thesis's ``z = K c`` with ``c = a``
    ``b``            intercept
    ``tau``          ``||K - S||_F`` at the solution (the outer variable)
    ``rho``          the Indefinite SVM weight ``gamma / (4 eta tau)`` of the last solve
    ``inner_iter``   accelerated-gradient iterations summed over the outer steps
    ``residual``     ``| ||K - S||_F - tau | / tau`` at the solution
    ``history``      ``(tau, ||K_tau - S||_F)`` of every outer step, shape (steps, 2)
    ===============  ===========================================================
    """

    _aliases = {"alpha": "x", "objective": "fun", "n_iter": "nit"}


class _Padded:
    """The labelled-sample view of a (5.8) problem on labelled + unlabelled samples."""

    def __init__(self, prob, n):
        self.prob, self.n = prob, n
        self.y = prob.y[:n]
        self.lam_max = prob.lam_max
        self.N = prob.y.size

    def full(self, alpha):
        out = np.zeros(self.N)
        out[: self.n] = alpha
        return out

    def evaluate(self, alpha, rho):
        f, g, Ka = self.prob.evaluate(self.full(alpha), rho)
        return f, g[: self.n], Ka[: self.n]

    def exact(self, alpha, rho):
        return self.prob.exact(self.full(alpha), rho)


def full_kernel_primal(S, y, K, a, b, eta, gamma):
    """Objective of (5.6) at ``(K, c = a, b)``: ``(1/n) sum hinge + eta a^T K a + gamma ||K - S||_F``.

    ``K`` and ``S`` may be ``(N, N)`` with the ``n = len(y)`` labelled samples first (5.16).
    """
    n = y.size
    Ka = K[:n, :n] @ a
    hinge = np.maximum(0.0, 1.0 - y * (Ka + b))
    return float(hinge.mean() + eta * (a @ Ka) + gamma * np.linalg.norm(K - S))


def full_kernel_dual_bound(S, y, alpha, eta, gamma):
    """Lower bound ``D(alpha)`` on the optimum of (5.6) / (5.16) at a feasible ``alpha``.

    ``D(alpha) = min_{tau > 0} gamma tau / 2 + 2 eta f_rho(alpha)``, ``rho = gamma /
    (4 eta tau)``, with ``f_rho`` the Indefinite SVM objective (full eigendecompositions);
    ``-inf`` when ``eta ||alpha||^2 >= gamma`` (the inner minimum over ``K`` is
    unbounded there). ``alpha`` covers the labelled samples (the first ``len(y)``).
    """
    y = np.asarray(y, dtype=np.float64)
    N, n = S.shape[0], y.size
    al = np.zeros(N)
    al[:n] = alpha
    yf = np.zeros(N)
    yf[:n] = y
    if eta * float(alpha @ alpha) >= gamma:
        return -np.inf

    def psi(s):
        tau = np.exp(s)
        return gamma * tau / 2.0 + 2.0 * eta * isvm_objective(S, yf, al, gamma / (4.0 * eta * tau))

    lam = scipy.linalg.eigvalsh(S)
    lo = np.log(max(np.linalg.norm(np.minimum(lam, 0.0)), 1e-12 * max(np.abs(lam).max(), 1.0)))
    hi = lo + 1.0
    while psi(hi + 1.0) < psi(hi) and hi < lo + 200.0:
        hi += 1.0
    res = scipy.optimize.minimize_scalar(psi, bounds=(lo - 1.0, hi + 1.0), method="bounded",
                                         options={"xatol": 1e-12})
    return float(min(res.fun, psi(lo - 1.0), psi(hi + 1.0)))


def solve_full_kernel_dual(S, y, eta, gamma, n_unlabelled=0, tol=1e-7, max_iter=60,
                           inner_max_iter=20000):
    """Solve (5.6) (or the transductive (5.16)) by the outer search over ``tau``.

    Parameters
    ----------
    S : ndarray of shape (N, N)
        Symmetric similarities, the ``n = N - n_unlabelled`` labelled samples first.
    y : ndarray of shape (n,)
        Labels in ``{-1, +1}``.
    eta, gamma : float
        The weights of (5.6).
    n_unlabelled : int, default=0
    tol : float, default=1e-7
        Inner stop: libsvm's maximal KKT violation of (5.8) below ``tol``; outer stop:
        ``| ||K*(tau) - S||_F - tau | <= tol * tau`` (and a step below ``tol`` of ``tau``).
    max_iter : int, default=60
        Outer steps.
    inner_max_iter : int, default=20000
        Accelerated-gradient iterations per inner solve.

    Returns
    -------
    FullKernelDualResult

    Examples
    --------
    >>> import numpy as np
    >>> from proxlearn.kernel_learning._full_kernel_dual import (
    ...     full_kernel_dual_bound, solve_full_kernel_dual)
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(20, 3))
    >>> S = np.tanh(X @ X.T - 0.5)
    >>> y = np.where(X[:, 0] > 0, 1.0, -1.0)
    >>> res = solve_full_kernel_dual(S, y, 0.01, 1.0)
    >>> bool(res.success), bool(res.fun - full_kernel_dual_bound(S, y, res.x, 0.01, 1.0) < 1e-6)
    (True, True)

    See Also
    --------
    full_kernel_dual_bound : the certificate.
    FullKernelSVM : the estimator that calls it (``solver="dual"``).
    """
    S = np.asarray(S, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    N = S.shape[0]
    n = N - n_unlabelled
    C = 1.0 / (2.0 * n * eta)
    yf = np.concatenate([y, np.zeros(n_unlabelled)])
    base = _Problem(S, yf)
    prob = base if n_unlabelled == 0 else _Padded(base, n)
    lam = base.lam_raw
    top = max(float(np.abs(lam).max(initial=0.0)), 1e-300)
    neg = float(np.linalg.norm(np.minimum(lam, 0.0)))
    tau_floor = 1e-12 * max(top, 1.0)

    alpha = None
    inner = 0
    cache = {}

    def distance(tau):
        """``||K*(tau) - S||_F`` after the inner solve at ``tau`` (warm started)."""
        nonlocal alpha, inner
        rho = gamma / (4.0 * eta * tau)
        alpha, _, _, it, conv = _solve(prob, C, rho, alpha, inner_max_iter, tol)
        inner += it
        f, K, _, _, _ = prob.exact(alpha, rho)
        d = float(np.linalg.norm(K - S))
        cache[tau] = (alpha.copy(), K, rho, conv)
        return d

    # g(s) = log ||K*(e^s) - S|| - s is decreasing (the outer function is convex);
    # at tau = ||S_-||_F it is >= 0 (no PSD matrix is nearer to S)
    tau = max(neg, tau_floor)
    d = distance(tau)
    lo, g_lo = (tau, np.log(max(d, 1e-300) / tau))
    hi = g_hi = None
    history = [(tau, d)]
    it = 0
    converged = abs(d - tau) <= tol * tau or d <= tau
    prev = None
    while not converged and it < max_iter:
        it += 1
        g = np.log(max(d, 1e-300) / tau)
        if g > 0:
            lo, g_lo = tau, g
        else:
            hi, g_hi = tau, g
        st = np.log(tau)
        sec = None
        if prev is not None:  # secant on g over the last two points
            sp, gp = np.log(prev[0]), np.log(max(prev[1], 1e-300) / prev[0])
            if g != gp:
                sec = st - g * (st - sp) / (g - gp)
        if hi is None:  # not bracketed yet: g > 0, the root lies above tau
            s = np.log(d)  # fixed-point step (a contraction at the usual weights)
            if sec is not None and s < sec < st + 5.0:
                s = sec
        else:
            s_lo, s_hi = np.log(lo), np.log(hi)
            s = s_lo - g_lo * (s_hi - s_lo) / (g_hi - g_lo)  # regula falsi on log tau
            if sec is not None and s_lo < sec < s_hi:
                s = sec
            if not (s_lo < s < s_hi):
                s = 0.5 * (s_lo + s_hi)
        new = float(np.exp(s))
        prev = (tau, d)
        step = abs(new - tau)
        tau = new
        d = distance(tau)
        history.append((tau, d))
        converged = abs(d - tau) <= tol * tau or step <= 1e-3 * tol * tau
    alpha, K, rho, inner_conv = cache[tau]
    a = y * alpha
    z = K[:n, :n] @ a
    b = kkt_intercept(alpha, y, z, C)
    fun = full_kernel_primal(S, y, K, a, b, eta, gamma)
    ok = bool(converged and inner_conv)
    return FullKernelDualResult(
        x=alpha, fun=fun, nit=it, K=K, z=z, b=b, tau=tau, rho=rho,
        inner_iter=inner, residual=abs(d - tau) / tau, history=np.array(history),
        **SolverResult.stopping(ok, message=(
            "||K - S||_F = tau to tol" if ok else
            "outer or inner iteration limit reached")),
    )
