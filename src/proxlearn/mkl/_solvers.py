"""Binary MKL solvers on ``m`` PSD kernels: SimpleMKL, Lp-MKL, the non-sparse MKL of
Kundu et al. (2010) eq. 10, and the uniform average. Each returns a certificate.

With ``a_k(alpha) = (y o alpha)^T K_k (y o alpha)`` and the SVM dual set
``A = {y^T alpha = 0, 0 <= alpha <= C}``:

==================  =========================================================
solver              problem (dual form) and combined kernel
==================  =========================================================
``simple_mkl``      ``min_{d in simplex} omega(sum d_k K_k)``; dual
                    ``max_A 1^T alpha - 1/2 max_k a_k``: spectral projected
                    gradient (default) or SimpleMKL's reduced gradient +
                    Armijo (Rakotomamonjy, Bach, Canu & Grandvalet 2008)
``lp_mkl``          ``min_{d >= 0, ||d||_p <= 1} omega(sum d_k K_k)``; dual
                    ``max_A 1^T alpha - 1/2 ||a||_{p/(p-1)}`` (Kloft, Brefeld,
                    Sonnenburg & Zien 2011, their closed-form d-update)
``nonsparse_mkl``   Kundu eq. 10 (Saketha Nath et al. 2009):
                    ``max_{gamma in Delta} max_A 1^T alpha - 1/2 alpha^T Y
                    (sum K_k / gamma_k) Y alpha``
                    ``= max_A 1^T alpha - 1/2 (sum_k sqrt(a_k))^2``; combined
                    kernel ``sum K_k / gamma_k``, ``gamma_k ~ sqrt(a_k)``
``uniform_mkl``     one SVM on ``sum K_k / m``
==================  =========================================================

Certificates. SimpleMKL and Lp-MKL minimise over weights: ``J(d) = omega(K_d)``
at the SVM's ``alpha`` against the dual value at the same ``alpha`` gives the
gap ``1/2 (max_k a_k - sum d_k a_k)`` (Lp: ``1/2 (||max(a, 0)||_q - sum d_k a_k)``).
Both bounds hold whatever the kernels (``J`` is convex in ``d`` and the dual value
bounds ``min_d J`` for any feasible ``alpha``); the SVM value is ``J(d)`` when
``K_d`` is PSD, so a PSD combination at the returned weights makes the gap a
certificate even with an indefinite member (the classifiers test it,
:meth:`proxlearn.mkl._classifiers._BaseMKL._check_learned`).
The non-sparse MKL maximises a concave function ``phi`` of ``alpha``: the
lower bound is the best ``phi(alpha_t)``, the upper bound its Frank-Wolfe
bound ``phi(alpha) + max_{alpha' in A} grad phi(alpha)^T (alpha' - alpha)``
(a linear program over ``A``, solved exactly by :func:`box_knapsack_max`).
Every solver stops when its gap is below ``tol`` relative to the objective.
The inner SVM is libsvm at tolerance ``svm_tol``; its own error enters the
certificates.
"""

from __future__ import annotations

import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning

from ._bank import StackPasses, stack_combine, stack_quad
from ._nonsparse_newton import _products, gamma_star, nonsparse_newton
from .._svm._dual import SVMDual, _bound_sets, bordered_solve, box_knapsack_max, svm_dual
from ..solvers import SolverResult, armijo_backtrack

__all__ = ["MKLResult", "PairsDual", "gamma_star", "lp_alternation", "lp_mkl", "nonsparse_mkl",
           "shared_mkl", "simple_mkl", "simplex_descent", "uniform_mkl"]


class MKLResult(SolverResult):
    """Output of a binary MKL solver (a :class:`~proxlearn.solvers.SolverResult`).

    ``x`` (alias ``weights``) are the method's own variables (``d`` or ``gamma``);
    ``kernel_weights`` multiply the kernels in the combined kernel
    ``sum_k kernel_weights[k] K_k`` on which ``alpha`` and ``b`` are the SVM.
    ``fun`` (alias ``objective``) is the method's objective at the returned
    weights, ``gap`` its certified duality gap, ``nit`` (alias ``n_iter``) the
    iterations and ``history`` one record per iteration. Constructed
    positionally as ``MKLResult(weights, kernel_weights, alpha, b, objective,
    gap, n_iter, history)``.

    Examples
    --------
    >>> import numpy as np
    >>> from proxlearn.mkl import simple_mkl
    >>> x = np.random.default_rng(0).normal(size=(40, 2))
    >>> Ks = np.exp(-(x[:, None, :] - x[None, :, :]) ** 2)  # (40, 40, 2): a kernel per feature
    >>> res = simple_mkl(Ks, np.where(x[:, 0] > 0, 1, -1))
    >>> np.round(res.weights, 2).tolist(), res.kernel_weights.shape, res.alpha.shape
    ([1.0, 0.0], (2,), (40,))

    See Also
    --------
    simple_mkl, lp_mkl, nonsparse_mkl, uniform_mkl : the solvers that return it.
    proxlearn.solvers.SolverResult : the base class.
    """

    _aliases = {"weights": "x", "objective": "fun", "n_iter": "nit"}

    def __init__(self, weights, kernel_weights, alpha, b, objective, gap, n_iter, history=None):
        super().__init__(x=weights, kernel_weights=kernel_weights, alpha=alpha, b=b,
                         fun=objective, gap=gap, nit=n_iter,
                         history=[] if history is None else history)


#: Largest support of ``u``, relative to ``n``, for which :func:`_a` reads the
#: kernels on the support only (a gather of ``K_k[sv, sv]``, about ``2 (s / n)^2``
#: passes over a kernel-major stack) instead of a pass over the whole stack.
#: SimpleMKL on the bench_mklpy sets, C in {0.1, 1, 10} (CPU time, medians of 3):
#: Breast 122 -> 96 ms at C = 1, 23 -> 16 ms at C = 0.1, the others unchanged; at
#: 0.5 and 0.7 some fits were slower.
SUPPORT_QUAD_MAX_FRACTION = 0.3


def _a(Ks, u, passes=None):
    """``a_k = u^T K_k u`` for every kernel of the stack (dense or lazy): from the
    kernels on the support of ``u`` when it is small (an SVM with few support
    vectors: Breast at C = 1 has about a tenth of the points); from one gemv
    ``[K_k u]`` over a kernel-major stack (not yet packed by ``passes``); else by
    ``passes.quad`` (:class:`StackPasses`) or :func:`stack_quad`."""
    if isinstance(Ks, np.ndarray):
        sv = np.flatnonzero(u)
        Kt = np.moveaxis(Ks, -1, 0)
        if sv.size <= SUPPORT_QUAD_MAX_FRACTION * Ks.shape[0]:
            us = u[sv]
            return (Kt[:, sv[:, None], sv] @ us) @ us
        if Kt.flags.c_contiguous and (passes is None or passes.packed is None):
            # kernel-major: one gemv for all K_k u, no n x n outer product
            m, n = Kt.shape[0], Kt.shape[1]
            return (Kt.reshape(m * n, n) @ u).reshape(m, n) @ u
    return stack_quad(Ks, u) if passes is None else passes.quad(u)


def _combine(Ks, w):
    return stack_combine(Ks, w)


def _warn(name, max_iter, gap):
    warnings.warn(f"{name} stopped at max_iter={max_iter} with relative gap {gap:.3g}; "
                  "increase max_iter or tol.", ConvergenceWarning, stacklevel=3)


def _projected_step(solve, d, grad, J, step):
    """A projected gradient step ``P_simplex(d - s grad)`` with Armijo backtracking
    (from ``4 step``, or from the step that moves the weights by at most 4; from
    the latter also when the former changes no weight); returns ``(svm, a, d_new)``
    or ``(None, None, None)`` when no step decreases ``J``."""
    from ..solvers import project_simplex

    def path(s):
        trial = project_simplex(d - s * grad)
        return None if np.array_equal(trial, d) else trial

    s_long = 4.0 / max(float(np.abs(grad).max()), 1e-300)
    # try longer than last time, then backtrack; when the remembered step shrank below
    # the weights' rounding, restart once from the long step
    search = armijo_backtrack(_value(solve), path, reference=J, x=d, gradient=grad,
                              step=4.0 * step if step else s_long, max_trials=120,
                              restart_step=s_long)
    if not search.success:
        return None, None, None
    return (*search.state, search.x)


def _reduced_gradient_step(solve, d, D, slope, J):
    """SimpleMKL's step along the reduced-gradient direction ``D``: Armijo
    backtracking on ``J`` from the largest feasible step, at which the weights that
    block it are set to exactly 0; ``(svm, a, d_new)``, or ``None`` when no step
    gives a sufficient decrease or the weights do not change.

    ``d + s D`` at the largest feasible step leaves the blocking weight at a
    rounding residue (``eps d_k``) instead of 0; that residue capped the next
    step, left a smaller residue, and so on down to a subnormal weight (5e-322)
    whose largest step changes no weight: the old loop accepted that step (the
    SVM value did not rise, a tie decided by the last bit) every iteration and
    ran to ``max_iter`` 0.3-17 % above the optimum, on seeds that change with the
    BLAS kernels (``OPENBLAS_CORETYPE``)."""
    neg = D < 0
    if not np.any(neg) or np.allclose(D, 0):
        return None
    ratio = -d[neg] / D[neg]
    s_max = float(ratio.min())
    # near-ties too: a weight left at 1e-9 of its value would be the next residue
    blocking = np.flatnonzero(neg)[ratio <= s_max * (1.0 + 1e-9)]

    def path(s):
        trial = np.maximum(d + s * D, 0.0)
        if s == s_max:
            trial[blocking] = 0.0
        trial /= trial.sum()
        return None if np.array_equal(trial, d) else trial

    search = armijo_backtrack(_value(solve), path, reference=J, step=s_max, slope=slope,
                              min_step=1e-12)
    return (*search.state, search.x) if search.success else None


def _value(solve):
    """``solve`` (a weight vector -> ``(svm, a)``) as the line search's ``(value, state)``."""
    def value(d):
        new, a_new = solve(d)
        return new.value, (new, a_new)
    return value


def _on_simplex(v):
    """``max(v, 0)`` scaled to sum 1."""
    trial = np.maximum(v, 0.0)
    trial /= trial.sum()
    return trial


def _warn_stalled(name, rel_gap, tol):
    if rel_gap > tol:
        warnings.warn(f"{name} stopped: no step decreases the objective at the SVM's "
                      f"precision, with relative gap {rel_gap:.3g} > tol = {tol:g}.",
                      ConvergenceWarning, stacklevel=3)


#: Solvers of :func:`simple_mkl`'s problem.
SIMPLE_MKL_SOLVERS = ("spg", "reduced-gradient")
#: Nonmonotone memory of the spectral projected gradient (Birgin, Martinez & Raydan 2000).
SPG_MEMORY = 10
#: Longest pause (iterations) of :func:`simple_mkl`'s Newton steps after refused ones
#: (the pause doubles from 1 at each refusal and is reset by an accepted step).
NEWTON_MAX_PAUSE = 16


def simple_mkl(Ks, y, C=1.0, *, tol=1e-4, max_iter=200, svm_tol=1e-7,
               alpha0=None, d0=None, solver="spg") -> MKLResult:
    """Convex MKL ``min_{d in simplex} omega(sum_k d_k K_k)`` with a certified gap.

    ``solver="spg"`` (default): spectral projected gradient on the simplex
    (Birgin, Martinez & Raydan, SIAM J. Optim. 2000; used for MKL by Jain,
    Vishwanathan & Varma, KDD 2012): a Barzilai-Borwein step projected on the
    simplex (so many weights reach 0 in one step) and a nonmonotone Armijo search
    over the last :data:`SPG_MEMORY` objectives, with a Newton step on the face of
    ``d`` (:func:`_simplex_newton`) tried first once the spectral
    step keeps the support of ``d``. ``"reduced-gradient"``:
    SimpleMKL's reduced gradient with Armijo (Rakotomamonjy, Bach, Canu &
    Grandvalet, JMLR 2008), whose largest feasible step zeroes one weight per
    iteration: with Zhuang's banks of 442-793 kernels it stopped at
    ``max_iter = 100`` with relative gaps of 0.006 (Ionosphere, C = 1) to 3.1
    (C = 100) where the spectral step certifies 1e-3 (docs/benchmarks.md). Both
    stop at a certified relative gap ``<= tol``: the reduced gradient's is its
    iterate's ``1/2 (max_k a_k - sum_k d_k a_k)``, the spectral solver's its best
    objective minus the best dual value ``1^T alpha - 1/2 max_k a_k`` of the SVMs it
    accepted (never larger than the former at the returned iterate).

    Every SVM after the first is warm-started from the current ``alpha``
    (:func:`svm_dual`); ``alpha0`` warm-starts the first. ``d0``: start weights
    (nonnegative, normalised to sum 1; default uniform).

    Examples
    --------
    >>> import numpy as np
    >>> from proxlearn.mkl import simple_mkl
    >>> x = np.random.default_rng(0).normal(size=(40, 2))
    >>> Ks = np.exp(-(x[:, None, :] - x[None, :, :]) ** 2)  # (40, 40, 2): a kernel per feature
    >>> res = simple_mkl(Ks, np.where(x[:, 0] > 0, 1, -1))
    >>> np.round(res.weights, 2).tolist(), round(res.objective, 2)
    ([1.0, 0.0], 7.8)

    See Also
    --------
    SimpleMKL : the estimator (spectrum, several classes, predictions).
    lp_mkl : the Lp-norm problem.
    MKLResult : the result's fields.
    """
    if solver not in SIMPLE_MKL_SOLVERS:
        raise ValueError(f"solver must be one of {SIMPLE_MKL_SOLVERS}, got {solver!r}.")
    m = Ks.shape[2]
    d = np.full(m, 1.0 / m)
    if d0 is not None:
        d0 = np.maximum(np.asarray(d0, dtype=np.float64).ravel(), 0.0)
        if d0.size == m and d0.sum() > 0:
            d = d0 / d0.sum()
    last = [alpha0]
    passes = StackPasses(Ks)  # a dense stack is packed once the fit runs a while
    kernel = [None]  # the combined kernel of the last SVM solved

    def solve(d):
        kernel[0] = passes.combine(d)
        sol = svm_dual(kernel[0], y, C, tol=svm_tol, alpha0=last[0])
        return sol, _a(Ks, sol.alpha * y, passes)

    def newton(d, sol, grad):  # at the last SVM solved: its kernel is kernel[0]
        return _simplex_newton(Ks, kernel[0], y, C, sol.alpha, d, grad)

    return simplex_descent(solve, d, tol, max_iter, solver=solver, last=last, newton=newton)


def simplex_descent(solve, d, tol, max_iter, *, solver="spg", last=None, newton=None,
                    name="simple_mkl") -> MKLResult:
    """SimpleMKL's outer problem ``min_{d in simplex} J(d)`` for any inner problem
    of the form ``J(d) = max_{beta in B} g(beta) - 1/2 sum_k d_k a_k(beta)``.

    ``solve(d)`` returns ``(sol, a)``: the inner solution at ``d`` (an object with
    ``value = J(d)``, ``alpha`` and ``b``) and ``a_k`` at it, so that the gradient is
    ``-1/2 a`` (Danskin) and ``sol.value - 1/2 (max_k a_k - d^T a)`` is the dual value
    ``g(beta) - 1/2 max_k a_k(beta)``, a lower bound of the optimum. The SVM of
    :func:`simple_mkl` is one such inner problem; the epsilon-SVR and the one-class
    SVM of :mod:`proxlearn.mkl._regression` are others. ``solver``, ``newton``: as
    :func:`simple_mkl`; ``last``: a one-item list set to each accepted solution (the
    warm start of the next ``solve``)."""
    last = [None] if last is None else last
    m = d.size
    sol, a = solve(d)
    last[0] = sol
    if solver == "spg":
        return _spg_simplex(solve, d, sol, a, tol, max_iter, last, newton, name=name)
    history = []
    step = None  # projected-gradient step length, adapted when that step is used
    for t in range(1, int(max_iter) + 1):
        J = sol.value
        gap = 0.5 * (a.max() - d @ a)
        history.append({"iter": t, "objective": J, "gap": gap})
        if gap <= tol * max(abs(J), 1e-12):
            return MKLResult(d, d, sol.alpha, sol.b, J, gap, t, history)
        grad = -0.5 * a
        mu = int(np.argmax(d))
        D = np.zeros(m)
        for k in range(m):
            if k == mu:
                continue
            if d[k] > 0 or grad[k] - grad[mu] < 0:
                D[k] = -(grad[k] - grad[mu])
        D[mu] = -D.sum()
        new = _reduced_gradient_step(solve, d, D, grad @ D, J)
        if new is not None:
            new, a_new, trial = new
        else:
            # The reduced gradient's largest feasible step is capped by the smallest
            # weight moving to 0 (1e-9 with hundreds of kernels: Zhuang's 442-kernel
            # bank on Ionosphere stalled at a relative gap of 3). Take a projected
            # gradient step on the simplex instead (tiny weights are clipped to 0).
            new, a_new, trial = _projected_step(solve, d, grad, J, step)
            if new is None:  # no decrease at the SVM's precision: stop here
                _warn_stalled(name, gap / max(abs(J), 1e-12), tol)
                return MKLResult(d, d, sol.alpha, sol.b, J, gap, t, history)
            step = float(np.abs(trial - d).max()) / max(float(np.abs(grad).max()), 1e-300)
        d, sol, a = trial, new, a_new
        last[0] = sol
    gap = 0.5 * (a.max() - d @ a)
    _warn(name, max_iter, gap / max(abs(sol.value), 1e-12))
    return MKLResult(d, d, sol.alpha, sol.b, sol.value, gap, int(max_iter), history)


def _simplex_newton(Ks, Kd, y, C, alpha, d, grad):
    """A Newton direction for ``J(d) = omega(sum_k d_k K_k)`` on the face of the
    simplex where ``d`` is positive, or ``None`` (fewer than two positive weights, no
    free ``alpha``, a singular system, or not a descent direction).

    With the SVM's active set held (free ``F``, the others at 0 or ``C``), its
    solution on ``K_d = sum d_k K_k`` solves the bordered system ``M [u_F; b] =
    [y_F - (K_d)_FB u_B; -1^T u_B]``, ``M = [(K_d)_FF 1; 1^T 0]``; with
    ``v_k = (K_k u)_F`` the gradient ``g_k = -1/2 u^T K_k u`` (Danskin) has the
    derivative ``H_jk = v_j^T [M^-1 [v_k; 0]]_F`` (PSD: ``J`` is convex). The
    step solves ``min g^T s + 1/2 s^T H s`` subject to ``sum s = 0`` on the positive
    weights (an ``(|S| + 1)``-square system), cut where a weight reaches 0. Near the
    optimum, where the support of ``d`` and the SVM's active set have settled, this
    converges quadratically where the projected gradient crawls (Pima's 13-kernel
    bank, C = 1000: relative gap 5e-4 after 200 spectral steps; with these steps
    1e-4 after 41 iterations, docs/benchmarks.md). Its use changes the path only:
    the caller's line search and certificate are unchanged."""
    if Kd is None:
        return None
    S = np.flatnonzero(d > 0)
    if S.size < 2:
        return None
    H = _face_hessian(Ks, Kd, y, C, alpha, S)
    return None if H is None else _face_newton_step(H, S, d, grad)


def _face_hessian(Ks, Kd, y, C, alpha, S, rows=None):
    """``H_jk = v_j^T [M^-1 [v_k; 0]]_F`` of :func:`_simplex_newton` for the weights
    ``S``: the derivative of ``g_j = -1/2 u^T K_j u`` along ``d_k`` with the SVM's
    active set held; ``None`` when no ``alpha`` is free or the bordered system is
    singular. ``rows``: the SVM is on the samples ``rows`` of ``Ks`` and ``Kd`` (a
    pair of classes of the full stack: :func:`shared_mkl`); ``None``: on all of them.
    ``C``: the box, a number or one per sample (weighted samples)."""
    C = np.asarray(C, dtype=np.float64)
    F = np.flatnonzero(_bound_sets(alpha, C)[1])
    if F.size == 0:
        return None
    u = alpha * y
    Fg = F if rows is None else rows[F]
    if rows is not None:  # u on the whole stack, 0 outside the pair
        u = np.zeros(Ks.shape[0])
        u[rows] = alpha * y
    sv = np.flatnonzero(u)
    V = np.empty((F.size, S.size))  # (K_k u)_F for the positive weights
    for j, k in enumerate(S):
        if isinstance(Ks, np.ndarray):
            K = Ks[:, :, k]
        else:  # a lazy stack: kernel k alone (few kernels have weight)
            K = stack_combine(Ks, np.eye(1, Ks.shape[2], k)[0])
        # a contiguous kernel: one gemv on the whole of it (no copy of its rows F)
        V[:, j] = (K @ u)[Fg] if K.flags.c_contiguous or K.flags.f_contiguous \
            else K[np.ix_(Fg, sv)] @ u[sv]
    got = bordered_solve(Kd[np.ix_(Fg, Fg)], V, np.zeros(S.size))
    if got is None:
        return None
    H = V.T @ got[0]
    return 0.5 * (H + H.T)


def _face_newton_step(H, S, d, grad):
    """The Newton step of :func:`_simplex_newton` from the Hessian ``H`` on the
    positive weights ``S``: ``min g^T s + 1/2 s^T H s``, ``sum s = 0``, cut where a
    weight reaches 0; ``None`` when it is not a descent direction."""
    kkt = np.zeros((S.size + 1, S.size + 1))
    kkt[:-1, :-1] = H
    kkt[:-1, -1] = kkt[-1, :-1] = 1.0
    step = np.linalg.lstsq(kkt, np.r_[-grad[S], 0.0], rcond=1e-12)[0][:-1]
    if not np.all(np.isfinite(step)):
        return None
    direction = np.zeros(d.size)
    direction[S] = step
    if not grad @ direction < 0:
        return None
    neg = step < 0
    if neg.any():  # stay on the simplex: cut the step where a weight reaches 0
        direction *= min(1.0, float(np.min(d[S][neg] / -step[neg])))
    return direction


def _support(d):
    """The positive weights of ``d``, as a tuple (comparable)."""
    return tuple(np.flatnonzero(d > 0).tolist())


def _returns_to(supports, sup):
    """Whether the support ``sup`` of a new iterate differs from the last one in
    ``supports`` and equals one of the two before it: the spectral projected
    gradient cycles through faces (period 2 or 3).

    On Pima's 13-kernel bank at C = 1 the long Barzilai-Borwein step cycled through
    three supports for 50 iterations (59 in all), the Newton step on the face never
    tried since the spectral step never kept the support; the short step taken at
    each return breaks the cycle (20 iterations, the same certified optimum). Paths
    that never return to a face are unchanged (docs/benchmarks.md)."""
    return bool(supports) and sup != supports[-1] and sup in supports[-3:-1]


def _spg_simplex(solve, d, sol, a, tol, max_iter, last, newton=None, name="simple_mkl"):
    """Spectral projected gradient for :func:`simple_mkl` from ``d`` (SVM ``sol``,
    ``a_k = u^T K_k u``). Returns the iterate of lowest objective seen; its gap is
    against the best dual value seen, ``max_t 1^T alpha_t - 1/2 max_k a_k(alpha_t)``
    (every ``alpha_t`` is dual feasible, so this bounds the optimum from below).

    ``newton(d, sol, grad)``: a Newton direction on the face of ``d``
    (:func:`_simplex_newton`), tried first (full step, Armijo on ``J``) whenever the
    projected spectral step keeps the support of ``d`` (the face is identified); if
    it is refused, the spectral step (and Newton pauses, :data:`NEWTON_MAX_PAUSE`).
    The Barzilai-Borwein step is updated from spectral steps only: the long step,
    or the short one when the iterates return to a face (:func:`_returns_to`)."""
    from ..solvers import project_simplex

    J = sol.value
    grad = -0.5 * a
    spread = float(np.ptp(grad))
    step = 1.0 / spread if spread > 0 else 1.0  # first step: weights move by about 1
    recent = [J]
    best = (J, d, sol)
    dual = J - 0.5 * (a.max() - d @ a)
    history = []
    reason = "stalled"
    wait, backoff = 0, 1  # iterations until Newton is tried again, and the next pause
    supports = [_support(d)]  # of the iterates after spectral steps
    for t in range(1, int(max_iter) + 1):
        gap = best[0] - dual
        history.append({"iter": t, "objective": J, "gap": gap})
        if gap <= tol * max(abs(best[0]), 1e-12):
            reason = "converged"
            break
        direction = project_simplex(d - step * grad) - d
        new = None
        wait -= 1
        if newton is not None and wait < 0 and np.array_equal(d + direction > 0, d > 0):
            nd = newton(d, sol, grad)
            if nd is not None:  # the full Newton step, kept if it decreases J (Armijo)
                trial = np.maximum(d + nd, 0.0)
                trial /= trial.sum()
                new, a_new = solve(trial)
                if new.value <= J + 1e-4 * float(grad @ (trial - d)):
                    backoff = 1
                else:  # refused: the spectral step below, Newton again after a pause
                    new, wait, backoff = None, backoff, min(2 * backoff, NEWTON_MAX_PAUSE)
        slope = float(grad @ direction)
        if new is None and not slope < 0:  # the projected step is not a descent
            break  # direction: d is optimal to the SVM's precision
        spectral = new is None
        if spectral:  # nonmonotone Armijo, safeguarded quadratic backtracking
            search = armijo_backtrack(
                _value(solve), lambda s, d=d, direction=direction: _on_simplex(d + s * direction),
                reference=max(recent[-SPG_MEMORY:]), step=1.0, slope=slope,
                shrink="quadratic", value=J, min_step=1e-10)
            if search.success:
                trial, (new, a_new) = search.x, search.state
        if new is None:
            break
        g_new = -0.5 * a_new
        s_vec, y_vec = trial - d, g_new - grad
        sy = float(s_vec @ y_vec)
        # Barzilai-Borwein step, kept within [1e-12, 1e12] (BMR's safeguard), from
        # spectral steps only: the long s^T s / s^T y, or the short s^T y / y^T y when
        # the supports cycle (_returns_to)
        if spectral:
            sup = _support(trial)
            if sy <= 0:
                step = 1e12
            elif _returns_to(supports, sup):
                step = min(max(sy / float(y_vec @ y_vec), 1e-12), 1e12)
            else:
                step = min(max(float(s_vec @ s_vec) / sy, 1e-12), 1e12)
            supports.append(sup)
        d, sol, a, grad, J = trial, new, a_new, g_new, new.value
        last[0] = sol
        recent.append(J)
        dual = max(dual, J - 0.5 * (a.max() - d @ a))
        if J < best[0]:
            best = (J, d, sol)
    else:
        reason = "max_iter"
    J, d, sol = best
    gap = J - dual
    if reason == "max_iter":
        _warn(name, max_iter, gap / max(abs(J), 1e-12))
    elif reason == "stalled":
        _warn_stalled(name, gap / max(abs(J), 1e-12), tol)
    return MKLResult(d, d, sol.alpha, sol.b, J, gap, len(history), history)


#: :func:`lp_mkl`: a weight at 0 whose kernel has ``a_k > 0`` again (an indefinite
#: kernel, zeroed while its ``a_k <= 0``) restarts at this fraction of the best
#: response ``d_k ~ a_k^(q - 1)`` (the update's fixed points), scaled to ``max d``.
#: Protein-multi with an indefinite member (``[rbf, clip(P), P]``, C = 1, tol = 1e-6,
#: six pairs): without restarts two pairs stopped at max_iter with relative gaps
#: 0.26; at 1 they oscillated (zeroed again); at 0.1 all six certified.
LP_REVIVE = 0.1


def lp_mkl(Ks, y, C=1.0, p=2.0, *, tol=1e-4, max_iter=200, svm_tol=1e-7,
           alpha0=None) -> MKLResult:
    """Lp-MKL (``p > 1``) by alternating the SVM and the closed-form ``d``-step
    (each SVM warm-started from the previous ``alpha``; ``alpha0`` for the first).

    Examples
    --------
    >>> import numpy as np
    >>> from proxlearn.mkl import lp_mkl
    >>> x = np.random.default_rng(0).normal(size=(40, 2))
    >>> Ks = np.exp(-(x[:, None, :] - x[None, :, :]) ** 2)  # (40, 40, 2): a kernel per feature
    >>> res = lp_mkl(Ks, np.where(x[:, 0] > 0, 1, -1), p=2.0)
    >>> np.round(res.weights, 2).tolist(), round(res.objective, 2)
    ([0.99, 0.16], 7.77)

    See Also
    --------
    LpMKL : the estimator.
    simple_mkl : the ``p = 1`` problem.
    """
    last = [alpha0]

    def solve(d):
        last[0] = svm_dual(_combine(Ks, d), y, C, tol=svm_tol, alpha0=last[0])
        return last[0], _a(Ks, last[0].alpha * y)

    return lp_alternation(solve, Ks.shape[2], p, tol, max_iter)


def lp_alternation(solve, m, p, tol, max_iter, name="lp_mkl") -> MKLResult:
    """Lp-MKL's outer problem ``min_{d >= 0, ||d||_p <= 1} J(d)`` (``p > 1``) by
    Kloft et al.'s closed-form update ``d_k ~ ||w_k||^(2/(p+1))``, ``||w_k||^2 =
    d_k^2 a_k``, normalised to ``||d||_p = 1``, for any inner problem ``J(d) =
    max_beta g(beta) - 1/2 sum_k d_k a_k(beta)`` (``solve(d) -> (sol, a)`` as for
    :func:`simplex_descent`). Certificate: ``J(d)`` minus the dual value
    ``g(beta) - 1/2 ||max(a, 0)||_q``, ``q = p / (p - 1)``. The SVM of :func:`lp_mkl`
    and the kernel ridge regression of :mod:`proxlearn.mkl._regression` use it."""
    p = float(p)
    q = p / (p - 1.0)
    d = np.full(m, m ** (-1.0 / p))
    history = []
    best = None
    for t in range(1, int(max_iter) + 1):
        sol, a_raw = solve(d)
        a = np.maximum(a_raw, 0.0)
        J = sol.value  # g(beta) - 1/2 d^T a_raw (the SVM: g = 1^T alpha)
        # J minus the dual value g(beta) - 1/2 ||max(a, 0)||_q, a lower bound of the
        # optimum for any feasible alpha (the max of d^T a over the Lp ball): with an
        # indefinite kernel a_k < 0 is possible, and d^T a != d^T a_raw
        gap = 0.5 * (np.linalg.norm(a, q) - d @ a_raw)
        history.append({"iter": t, "objective": J, "gap": gap})
        if best is None or J < best[0]:
            best = (J, d, sol, gap)
        if gap <= tol * max(abs(J), 1e-12):
            return MKLResult(d, d, sol.alpha, sol.b, J, gap, t, history)
        # the update's weight 0 is absorbing (w2 = 0 stays 0), and an indefinite kernel
        # reaches it when its a_k <= 0 (w2 = d_k^2 max(a_k, 0): no NaN powers); when
        # its a_k turns positive it restarts (LP_REVIVE). PSD kernels (a_k >= 0) keep
        # d_k > 0 unless a_k = 0, where the restart is 0 too: the same path as before.
        revive = (d == 0) & (a > 0)
        if revive.any():
            d = d.copy()
            d[revive] = LP_REVIVE * (a[revive] / a.max()) ** (q - 1.0) * d.max()
        w2 = d**2 * a  # ||w_k||^2
        if not np.any(w2 > 0):  # no kernel left to weight: the update is undefined
            _warn_stalled(name, gap / max(abs(J), 1e-12), tol)
            return MKLResult(d, d, sol.alpha, sol.b, J, gap, t, history)
        num = w2 ** (1.0 / (p + 1.0))
        d = num / np.sum(w2 ** (p / (p + 1.0))) ** (1.0 / p)
    J, d, sol, gap = best
    _warn(name, max_iter, gap / max(abs(J), 1e-12))
    return MKLResult(d, d, sol.alpha, sol.b, J, gap, int(max_iter), history)


class PairsDual:
    """The SVMs of all pairs of classes on one combined kernel: the inner problem of
    :func:`shared_mkl` at weights ``d``.

    ``value`` is the sum of the pairs' SVM values ``sum_p omega_p(K_d)``; ``alpha``
    and ``b`` hold one array / intercept per pair (in :func:`ovo_problems` order)
    and ``sols`` the pairs' :class:`SVMDual` (the warm starts of the next solve)."""

    __slots__ = ("alpha", "b", "sols", "value")

    def __init__(self, sols):
        self.sols = list(sols)
        self.alpha = tuple(s.alpha for s in self.sols)
        self.b = tuple(float(s.b) for s in self.sols)
        self.value = float(sum(s.value for s in self.sols))


def shared_mkl(Ks, problems, C=1.0, p=1.0, *, tol=1e-4, max_iter=200, svm_tol=1e-7,
               solver="spg") -> MKLResult:
    """One-vs-one MKL with one weight vector shared by all pairs of classes.

    ``min_d J(d) = sum_pairs omega_pair(sum_k d_k K_k)``, each ``omega_pair`` the SVM
    dual optimum on the pair's samples: ``d`` in the simplex (``p = 1``, SimpleMKL's
    multiclass problem, Rakotomamonjy, Bach, Canu & Grandvalet, JMLR 2008, section
    on multiclass: the objective is the sum of the pairwise ones and the gradient
    the sum of their gradients) or ``d >= 0, ||d||_p <= 1`` (``p > 1``, Kloft et
    al.'s update). ``J`` has the form of :func:`simplex_descent`'s inner problems with
    ``g = sum_pairs 1^T alpha_pair`` and ``a_k = sum_pairs a_k^pair``, so the same
    drivers solve it and the same certificate holds: ``J(d)`` minus the dual value
    ``sum_pairs 1^T alpha_pair - 1/2 max_k a_k`` (Lp: ``- 1/2 ||max(a, 0)||_q``),
    a lower bound for any feasible ``alpha`` of every pair (derivation in
    docs/methods.md, "Multiclass MKL with shared weights").

    Each step combines the whole stack once (``K_d``, ``n x n``), solves each pair's
    SVM on its block warm-started from its previous solution
    (:func:`proxlearn._svm._multiclass.fit_pairs`, :func:`svm_dual`), and reads every
    ``a_k`` in one pass, ``a_k = <K_k, U^T U>`` with ``U`` the pairs' ``y o alpha``
    scattered on the ``n`` samples. ``p = 1``: the Newton step on the face of ``d``
    sums the pairs' Hessians (:func:`_face_hessian`).

    Parameters
    ----------
    Ks : ndarray of shape (n, n, m) or a lazy stack
        PSD kernels (a :class:`KernelBank`'s stack).
    problems : list of BinaryProblem
        The pairs (:func:`proxlearn._svm._multiclass.ovo_problems`).
    C : float
    p : float >= 1
    tol, max_iter, svm_tol, solver
        As :func:`simple_mkl` (``solver`` for ``p = 1``).

    Returns
    -------
    MKLResult
        ``weights`` the shared ``d``; ``alpha`` and ``b`` one per pair (tuples);
        ``objective`` ``J(d)`` summed over the pairs, ``gap`` its certified gap.

    Examples
    --------
    >>> import numpy as np
    >>> from proxlearn._svm._multiclass import ovo_problems
    >>> from proxlearn.mkl._solvers import shared_mkl
    >>> x = np.random.default_rng(0).normal(size=(60, 2))
    >>> Ks = np.exp(-(x[:, None, :] - x[None, :, :]) ** 2)  # (60, 60, 2): a kernel per feature
    >>> y_idx = np.digitize(x[:, 0], [-0.5, 0.5])  # three classes along the first feature
    >>> res = shared_mkl(Ks, ovo_problems(y_idx, 3))
    >>> np.round(res.weights, 2).tolist(), len(res.alpha), bool(res.gap <= 1e-4 * res.objective)
    ([0.97, 0.03], 3, True)

    See Also
    --------
    SimpleMKL, LpMKL : the estimators (``multiclass="shared"``).
    simple_mkl, lp_mkl : one pair (two classes).
    """
    from .._svm._multiclass import fit_pairs

    if solver not in SIMPLE_MKL_SOLVERS:
        raise ValueError(f"solver must be one of {SIMPLE_MKL_SOLVERS}, got {solver!r}.")
    m = Ks.shape[2]
    passes = StackPasses(Ks)
    kernel = [None]  # K_d of the last solve
    last = [None]  # the PairsDual of the last solve: each pair's warm start

    def solve(d):
        K = kernel[0] = passes.combine(d)
        prev = last[0]
        sols = fit_pairs(problems, lambda pr: svm_dual(
            K[np.ix_(pr.idx, pr.idx)], pr.y, C, tol=svm_tol,
            alpha0=None if prev is None else prev.sols[pr.k]))
        new = last[0] = PairsDual(sols)
        return new, _pairs_a(Ks, problems, new, passes)

    if float(p) != 1.0:
        return lp_alternation(solve, m, p, tol, max_iter, name="shared_mkl")

    def newton(d, sol, grad):
        S = np.flatnonzero(d > 0)
        if S.size < 2:
            return None
        H = np.zeros((S.size, S.size))
        for pr, s in zip(problems, sol.sols):
            if not np.any(_bound_sets(s.alpha, float(C))[1]):
                continue  # no free alpha: a_k of the pair is flat in d
            H_p = _face_hessian(Ks, kernel[0], pr.y, C, s.alpha, S, rows=pr.idx)
            if H_p is None:
                return None
            H += H_p
        return _face_newton_step(H, S, d, grad)

    return simplex_descent(solve, np.full(m, 1.0 / m), tol, max_iter, solver=solver,
                           last=last, newton=newton, name="shared_mkl")


def _pairs_a(Ks, problems, sol, passes):
    """``a_k = sum_pairs u_p^T K_k u_p`` (``u_p = y_p o alpha_p`` on the pair's
    samples) as ``<K_k, U^T U>``: one pass over the stack, or over the kernels'
    support block when the support is small (as :func:`_a`)."""
    n = Ks.shape[0]
    U = np.zeros((len(problems), n))
    for pr, alpha in zip(problems, sol.alpha):
        U[pr.k, pr.idx] = alpha * pr.y
    sv = np.flatnonzero(np.any(U != 0.0, axis=0))
    Us = U[:, sv]
    W = Us.T @ Us
    if isinstance(Ks, np.ndarray) and sv.size <= SUPPORT_QUAD_MAX_FRACTION * n:
        Kt = np.moveaxis(Ks, -1, 0)
        return Kt[:, sv[:, None], sv].reshape(Ks.shape[2], -1) @ W.ravel()
    if sv.size == n:
        return passes.inner(W)
    return passes.inner(W, idx=sv)


def nonsparse_mkl(Ks, y, C=1.0, *, tol=1e-4, max_iter=200, svm_tol=1e-7,
                  gamma_floor=1e-3, gamma0=None, alpha0=None,
                  accelerate=True, newton=True) -> MKLResult:
    """Kundu et al. eq. 10 by block ascent: an SVM on ``sum K_k / gamma_k``,
    then the exact maximiser over ``gamma`` (:func:`gamma_star`).

    Each SVM is warm-started from the previous step's ``alpha`` (``alpha0``
    and ``gamma0`` for the first: EMKL and REKL pass the previous outer
    iteration's), which replaces libsvm by one bordered solve once the
    support set settles (:func:`svm_dual`).

    ``accelerate``: the block ascent is a fixed-point map ``gamma -> F(gamma)``
    that converges linearly, slowly when a weight ``1/gamma_k`` grows (ratios
    0.85-0.99 per step for 50 steps on a REKL problem); every second step is
    replaced by a squared extrapolation (SQUAREM, Varadhan & Roland 2008) in
    ``log gamma``, kept only if the SVM value ``h(gamma) = omega(K_gamma)``,
    which the optimum maximises, does not fall. The certificate below holds for
    any sequence of ``gamma``, so this changes the path, not the answer.

    ``newton``: after the first SVM, try Newton's method on the joint problem from
    that SVM's active set (:func:`proxlearn.mkl._nonsparse_newton.nonsparse_newton`, dense
    stacks): quadratic instead of linear convergence, kept only when the result is
    the SVM (libsvm's test at ``svm_tol``) of the kernel its own ``gamma``
    defines; else the block ascent runs from where it was.

    ``gamma`` is kept ``>= gamma_floor`` (the digest's floor): a kernel the
    SVM cannot use drives its ``gamma_k`` to 0 and its weight ``1/gamma_k`` to
    infinity (it becomes the constraint ``a_k = 0``), where libsvm's time grows
    with the weight, and its accuracy drops (on a kernel weighted 1e4 its
    ``alpha`` was 2e-6 below the optimum whatever its tolerance). The
    certificate (Frank-Wolfe upper bound with the gradient
    ``1 - Y K_gamma* Y alpha``, Danskin) is for the problem over
    ``{gamma >= gamma_floor}``, which equals eq. 10 whenever no optimal
    ``gamma_k`` is below the floor. At a fixed point of the block ascent whose
    gap is still above ``tol`` (the SVM's accuracy limits it), it stops and
    warns.

    Examples
    --------
    >>> import numpy as np
    >>> from proxlearn.mkl import nonsparse_mkl
    >>> x = np.random.default_rng(0).normal(size=(40, 2))
    >>> Ks = np.exp(-(x[:, None, :] - x[None, :, :]) ** 2)  # (40, 40, 2): a kernel per feature
    >>> res = nonsparse_mkl(Ks, np.where(x[:, 0] > 0, 1, -1))
    >>> np.round(res.weights, 2).tolist(), round(res.objective, 2)
    ([0.99, 0.01], 6.89)

    See Also
    --------
    NonSparseMKL : the estimator.
    EMKL, REKL : the entropic kernel learners that call it.
    """
    m = Ks.shape[2]
    gamma_floor = float(gamma_floor)
    gamma = np.full(m, 1.0 / m) if gamma0 is None else np.maximum(np.asarray(gamma0, float),
                                                                   gamma_floor)
    gamma = gamma / gamma.sum()
    history = []
    lower, best, gap = -np.inf, None, np.inf
    sol = None
    chain = []  # (gamma, h(gamma)) of consecutive plain steps, for the extrapolation
    fallback = None  # the plain step to take if an extrapolated point is rejected
    cache = []  # the last two (gamma, sum K_k / gamma_k): a step's gradient kernel is
    # the next step's SVM kernel, so each combination is formed once

    dense = isinstance(Ks, np.ndarray)

    def combined(g):
        for g_c, K_c in cache:
            if g_c is g:
                return K_c
        cache.append((g, _combine(Ks, 1.0 / g)))
        del cache[:-2]
        return cache[-1][1]

    for t in range(1, int(max_iter) + 1):
        sol = svm_dual(combined(gamma), y, C, tol=svm_tol,
                       alpha0=alpha0 if sol is None else sol)
        if fallback is not None:  # gamma was extrapolated: keep it only if h rose
            if sol.value < fallback[1]:
                gamma, chain = fallback[0], []
                sol = svm_dual(combined(gamma), y, C, tol=svm_tol, alpha0=sol)
            fallback = None
        jump = None
        if newton and t == 1:
            jump = nonsparse_newton(Ks, y, C, sol.alpha, floor=gamma_floor, tol=svm_tol)
        if jump is not None:
            gamma = jump.gamma
            sol = SVMDual(alpha=jump.alpha, b=jump.b, value=jump.value,
                          smo_work=sol.smo_work)
        u = sol.alpha * y
        sv = np.flatnonzero(u)
        if dense:  # K_k u for every k in one pass: a_k, and K_gamma u for any gamma
            Q = jump.products if jump is not None else _products(Ks, u, sv)
            a = np.maximum(u @ Q, 0.0)
        else:
            a = np.maximum(_a(Ks, u), 0.0)
        g_new = gamma_star(a, gamma_floor)
        phi = float(sol.alpha.sum() - 0.5 * np.sum(a / g_new))
        Kgu = Q @ (1.0 / g_new) if dense else combined(g_new)[:, sv] @ u[sv]
        grad = 1.0 - y * Kgu
        upper = phi + box_knapsack_max(grad, y, C) - grad @ sol.alpha
        if phi > lower:
            lower, best = phi, (gamma, sol)  # (gamma used, its SVM): a consistent model
        gap = upper - lower
        history.append({"iter": t, "objective": sol.value, "lower": lower, "upper": upper})
        if gap <= tol * max(abs(lower), 1e-12):
            g, s_ = best
            return MKLResult(g, 1.0 / g, s_.alpha, s_.b, lower, gap, t, history)
        if np.max(np.abs(g_new - gamma)) <= 1e-12:
            warnings.warn(
                f"nonsparse_mkl reached a fixed point with relative gap "
                f"{gap / max(abs(lower), 1e-12):.3g} > tol = {tol:g}: the SVM solver's "
                "accuracy limits the certificate (a kernel weight 1/gamma_k is large; "
                "raise gamma_floor or tol).", ConvergenceWarning, stacklevel=2)
            g, s_ = best
            return MKLResult(g, 1.0 / g, s_.alpha, s_.b, lower, gap, t, history)
        chain = (chain + [(gamma, sol.value)])[-2:]
        gamma = g_new
        if accelerate and len(chain) == 2:
            x_ext = _squarem(chain[0][0], chain[1][0], g_new, gamma_floor)
            if x_ext is not None:
                fallback, gamma, chain = (g_new, chain[1][1]), x_ext, []
    g, s_ = best
    _warn("nonsparse_mkl", max_iter, gap / max(abs(lower), 1e-12))
    return MKLResult(g, 1.0 / g, s_.alpha, s_.b, lower, gap, int(max_iter), history)


def _squarem(g0, g1, g2, floor):
    """SQUAREM's extrapolation (step ``-|r|/|v|``, at least the plain two steps)
    from three consecutive iterates of the block ascent, in ``log gamma``,
    mapped back onto ``{sum = 1, gamma >= floor}``; ``None`` when it would not
    move beyond ``g2``."""
    x0, x1, x2 = (np.log(np.maximum(g, 1e-300)) for g in (g0, g1, g2))
    r = x1 - x0
    v = x2 - 2.0 * x1 + x0
    nv = float(np.linalg.norm(v))
    if nv == 0.0 or not np.isfinite(nv):
        return None
    step = -float(np.linalg.norm(r)) / nv
    if step >= -1.0:
        return None
    x = x0 - 2.0 * step * r + step**2 * v
    x -= x.max()
    return gamma_star(np.exp(2.0 * x), floor)  # gamma_k = max(floor, c exp(x_k))


def uniform_mkl(Ks, y, C=1.0, *, svm_tol=1e-7, kernel_check=None) -> MKLResult:
    """One SVM on the average kernel (the baseline). ``kernel_check(K)``: called on
    the average kernel before the SVM (may raise).

    Examples
    --------
    >>> import numpy as np
    >>> from proxlearn.mkl import uniform_mkl
    >>> x = np.random.default_rng(0).normal(size=(40, 2))
    >>> Ks = np.exp(-(x[:, None, :] - x[None, :, :]) ** 2)  # (40, 40, 2): a kernel per feature
    >>> res = uniform_mkl(Ks, np.where(x[:, 0] > 0, 1, -1))
    >>> np.round(res.weights, 2).tolist(), round(res.objective, 2)
    ([0.5, 0.5], 10.13)

    See Also
    --------
    AverageKernelSVC : the estimator.
    simple_mkl : the weights learned instead.
    """
    m = Ks.shape[2]
    w = np.full(m, 1.0 / m)
    K = _combine(Ks, w)
    if kernel_check is not None:
        kernel_check(K)
    sol = svm_dual(K, y, C, tol=svm_tol)
    return MKLResult(w, w, sol.alpha, sol.b, sol.value, 0.0, 1, [])
