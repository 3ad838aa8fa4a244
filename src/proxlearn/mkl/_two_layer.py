"""Two-layer multiple kernel learning (Zhuang 2011 ch. 4): 2LMKL and 2LMKL-Inf.

==================  ==========================================================
method              problem
==================  ==========================================================
``TwoLayerMKL``     ``min_{mu >= 0} omega(K2(mu)) + sum_t mu_t`` with
                    ``K2(mu) = exp(sum_t mu_t K_t)`` (entrywise), ``omega``
                    the SVM dual optimum (eqs. 4.2-4.3, Protocol 2)
``TwoLayerMKLInf``  the same, adding one Gaussian inner kernel per outer
                    round, its width found by a 1-D search (Protocol 3)
==================  ==========================================================

Zhuang, *Kernel Learning: Methods and Applications* (2011), section 4.3-4.4;
Zhuang, Tsang & Hoi, "Two-layer multiple kernel learning", AISTATS 2011.
The decision function is ``f(x) = sum_i alpha_i y_i K2(x_i, x) + b`` (eq. 4.4).

Protocol 2 alternates an SVM on ``K2(mu)`` with a projected gradient step on
``mu`` (the gradient of eq. 4.5, by Danskin's theorem; projected on ``mu >= 0``
and on the limit ``|sum mu_t K_t| <= MAX_INNER``), its step chosen by Armijo's
rule on ``F`` itself, so ``objective_history_`` never increases; the start, step
rule and stopping rule (a certificate in the units of ``F``; any other stop
warns) are ours (the thesis gives none). The
default ``penalty="normalized"`` is eq. 4.3 on the kernels divided by their
mean diagonal, so that scaling a kernel changes nothing; ``penalty="thesis"``
is eq. 4.3 literally. Protocol 3 follows the errata that eq. 4.7's gradient
lacks a minus sign and that its stopping test compares quantities of different
problems (``criterion="gradient"``; ``"thesis"`` is eq. 4.6 as printed).
Derivations and choices: docs/methods.md, section "2LMKL: the search, the scale
and Protocol 3".
"""

from __future__ import annotations

import warnings

import numpy as np
import scipy.optimize
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.validation import check_is_fitted

from .._progress import IterationLog
from .._validation import (
    InvalidParameterError,
    check_option,
    integer,
    options,
    unchecked,
    validate_params,
)
from ..base import PairwiseMixin
from ._bank import (
    KernelBank,
    StackPasses,
    stack_combine,
    stack_entries,
    stack_inner,
    stack_mean_diagonal,
    stack_take,
)
from ._classifiers import MKL_CONSTRAINTS, _BaseMKL, mkl_constraints
from ._cv import ZHUANG_CS, RefittedMixin, fit_grid
from ._solvers import MKLResult
from .._svm._dual import svm_dual
from ..solvers import armijo_backtrack

__all__ = ["TwoLayerMKL", "TwoLayerMKLCV", "TwoLayerMKLInf", "two_layer_mkl"]

_ARMIJO = 1e-4
#: Largest inner combination ``sum mu_t K_t`` a trial step may reach: libsvm stalls
#: on larger entries of ``K2``, and the optima lie far below (docs/benchmarks.md,
#: "2LMKL: the limit on the inner combination").
MAX_INNER = 30.0
#: Precision of the packed stack the search reads once a fit runs a while
#: (mkl._bank.StackPasses): float32 halves the traffic of float64's pack at relative
#: errors of about 1e-6 in the search's combinations and gradients; the returned
#: ``alpha``, ``b``, objective and gap are float64 (:func:`_exact_end`). Measured in
#: docs/benchmarks.md, "Zhuang (2011) ch. 4-5: MKL on the base-kernel bank".
SEARCH_DTYPE = np.float32
#: A step decreasing ``F`` by less than this (relative) is within the float32 search's
#: rounding of ``F``: the search goes on in float64.
ROUNDING = 1e-6


#: Relative distance to ``MAX_INNER`` within which an entry of the inner combination
#: counts as on the limit (above float32's rounding of the search's combinations).
WALL = 1e-5
#: Entries on the limit passed to the KKT residual at most (the largest).
MAX_LIMIT_ENTRIES = 2000
#: Curved steps (``s'y > 0``) whose flattest curvature the stopping test uses.
CURVATURE_WINDOW = 10
PENALTIES = {"normalized", "thesis"}


def _exp_kernel(A):
    with np.errstate(over="ignore"):
        K2 = np.exp(A)
    return K2


def default_mu0(Ks):
    """``mu_t = 1 / (m mean diag K_t)`` (0 for a kernel with a zero diagonal): the
    combination ``sum mu_t K_t`` has mean diagonal 1 whatever each kernel's scale."""
    m = Ks.shape[2]
    diag = stack_mean_diagonal(Ks)
    return np.where(diag > 0, 1.0 / (m * np.where(diag > 0, diag, 1.0)), 0.0)


def kernel_scales(Ks):
    """Each kernel's mean diagonal ``s_t`` (1 for a kernel whose diagonal is not
    positive: a zero kernel under ``spectrum``/bank input)."""
    d = stack_mean_diagonal(Ks)
    return np.where(d > 0, d, 1.0)


def two_layer_mkl(Ks, y, C=1.0, *, mu0=None, tol=1e-4, max_iter=50, svm_tol=1e-7,
                  penalty="normalized", verbose=0):
    """Protocol 2 on a stack of base kernels (dense or lazy); labels in ``{-1, +1}``.

    ``penalty="normalized"`` (default) minimises ``F(mu) = omega(K2(mu)) + sum_t
    s_t mu_t`` with ``s_t`` the mean diagonal of ``K_t``: the problem of eq. 4.3 on
    the kernels ``K_t / s_t``, so that multiplying a kernel by a constant changes
    neither the solution's ``K2`` nor the iterates. ``penalty="thesis"``: eq. 4.3's
    ``sum_t mu_t`` on the kernels as given. Either way the search runs in the
    coordinates ``nu_t = s_t mu_t`` of the normalised kernels, from ``nu_t = 1 / m``
    (``mu0`` overrides).

    Returns an :class:`MKLResult` whose ``weights`` and ``kernel_weights`` are
    ``mu`` (the weights of the kernels as given), ``objective`` is ``F(mu)``,
    ``gap`` the KKT residual (the norm of the projected gradient, in ``nu``, on
    the tangent cone of ``nu >= 0`` and the limit ``|sum nu_t K_t / s_t| <=
    MAX_INNER``: :func:`kkt_direction`), and ``history`` one
    record per accepted step. ``verbose`` (0, 1, 2) prints progress lines as the
    estimators' ``verbose`` does (:mod:`proxlearn._progress`).

    Warns
    -----
    ConvergenceWarning
        Whenever it stops uncertified: the search stops when the decrease of ``F``
        that a quadratic model predicts (the KKT residual and the flattest
        curvature of the last :data:`CURVATURE_WINDOW` curved steps) is at most
        ``tol |F|`` (or, once a curvature was seen, the residual times
        ``max(1, |nu|)`` is); at ``max_iter`` or when no step decreases ``F`` before
        that, it warns and says what to do.

    Examples
    --------
    >>> import numpy as np
    >>> x = np.random.default_rng(0).normal(size=(40, 2))
    >>> S = np.exp(-(x[:, None, :] - x[None, :, :]) ** 2)  # (40, 40, 2): a kernel per feature
    >>> y = (x[:, 0] > 0).astype(int)
    >>> from proxlearn.mkl import two_layer_mkl
    >>> res = two_layer_mkl(S, 2 * y - 1)
    >>> np.round(res.weights, 2).tolist(), round(res.objective, 3)
    ([1.85, 0.5], 4.868)

    See Also
    --------
    TwoLayerMKL : the estimator (several classes, test predictions).
    simple_mkl : convex MKL on the same stacks.
    """
    check_option(penalty, "penalty", PENALTIES)
    y = np.asarray(y, dtype=np.float64)
    m = Ks.shape[2]
    scales = kernel_scales(Ks)
    weight = np.ones(m) if penalty == "normalized" else 1.0 / scales  # penalty on nu
    # The search reads a dense stack through a float32 pack once the fit runs a while
    # (SEARCH_DTYPE); the answer is recomputed in float64 at the end (_exact_end).
    passes = StackPasses(Ks, dtype=SEARCH_DTYPE)

    def combine(nu):
        return passes.combine(nu / scales)

    def inner(W, sv):
        return passes.inner(W, sv) / scales

    if mu0 is None:
        nu = np.where(stack_mean_diagonal(Ks) > 0, 1.0 / m, 0.0)
        top = float(np.max(np.abs(combine(nu))))
        if top > 0.5 * MAX_INNER:  # an outlier's polynomial kernel entries: start lower
            nu *= 0.5 * MAX_INNER / top
    else:
        nu = np.maximum(np.asarray(mu0, dtype=np.float64), 0.0) * scales
        top = float(np.max(np.abs(combine(nu))))
        if top > MAX_INNER:  # e.g. a previous solution at the limit, read in float64
            nu *= 0.5 * MAX_INNER / top

    # The trial point of step s moves along d, the projection of -g on the tangent cone
    # of the feasible set (d = -g off the limit; the path is then the projected path
    # P(nu - s g)), projected on nu >= 0 and cut where it first reaches the limit
    # |sum nu_t K_t| <= MAX_INNER (the combination is linear in nu). The trial's
    # combination is kept for the evaluation that follows.
    trial = {}

    def path(s, nu, d, A0):
        x = np.maximum(nu + s * d, 0.0)
        A = combine(x)
        if not np.all(np.abs(A) <= MAX_INNER):  # (NaN: evaluate refuses it)
            x, A = _cut_at_limit(nu, A0, x, A)
        trial.update(x=x, A=A)
        return x

    def evaluate(nu, alpha0=None):
        A = trial["A"] if trial.get("x") is nu else combine(nu)
        trial.clear()
        if not np.all(np.abs(A) <= MAX_INNER * (1.0 + WALL)):  # NaN
            return np.inf, None, None, None
        K2 = _exp_kernel(A)
        # line-search trials are near the accepted point: warm-start from its alpha
        sol = svm_dual(K2, y, C, tol=svm_tol, alpha0=alpha0)
        return sol.value + weight @ nu, sol, K2, A

    def descent(x, f_state, nu, g):
        """Only trials that decrease the linear model count (a cut step may not)."""
        f, state = _split(f_state)
        return (f if x is nu or g @ (x - nu) < 0 else np.inf), state

    def gradient(sol, K2):
        return _gradient(inner, sol.alpha * y, K2, m, weight)

    def direction(nu, g, A):
        return kkt_direction(nu, g, _limit_normals(Ks, _on_limit(A), scales))

    F, sol, K2, A = evaluate(nu)
    if sol is None:
        raise InvalidParameterError(
            "sum_t mu0_t K_t is not finite: the kernels or mu0 hold NaN or inf values.")
    g = gradient(sol, K2)
    history = [{"iter": 0, "objective": F}]
    eta = 0.1 * max(np.linalg.norm(nu), 1e-3) / max(np.linalg.norm(g), 1e-12)
    d = direction(nu, g, A)
    pg = float(np.linalg.norm(d))
    n_iter, stop, curv, curvs = 0, "max_iter", np.inf, []
    log = IterationLog("two_layer_mkl", verbose)
    for n_iter in range(1, int(max_iter) + 1):
        if _certified(pg, curv, nu, F, tol):
            stop = "certified"
            break
        # Armijo backtracking on F along the projected path, 40 trials at most
        search = armijo_backtrack(lambda t, sol=sol, nu=nu, g=g: descent(
                                      t, evaluate(t, sol), nu, g),
                                  lambda s, nu=nu, d=d, A=A: path(s, nu, d, A),
                                  reference=F, step=eta, x=nu, gradient=g,
                                  sufficient=_ARMIJO, max_trials=40)
        rounded = passes.packed is not None and passes.dtype != np.float64
        if rounded and (not search.success or F - search.fun <= ROUNDING * abs(F)):
            # no step, or one below the float32 pack's rounding of F (which then
            # steers the search): go on from here with float64 passes
            passes = StackPasses(Ks, dtype=np.float64)
            F, sol, K2, A = evaluate(nu, sol)
            g = gradient(sol, K2)
            d = direction(nu, g, A)
            pg = float(np.linalg.norm(d))
            continue
        if not search.success:
            stop = "stalled"
            break
        eta, x_t, F_t, (sol_t, K2_t, A_t) = search.step, search.x, search.fun, search.state
        g_old, nu_old = g, nu
        nu, F, sol, K2, A = x_t, F_t, sol_t, K2_t, A_t
        g = gradient(sol, K2)
        d = direction(nu, g, A)
        pg = float(np.linalg.norm(d))
        history.append({"iter": n_iter, "objective": F, "eta": eta, "proj_grad": pg})
        log(n_iter, objective=F, proj_grad=pg)
        # next trial step: Barzilai-Borwein's s's / s'y from the accepted step (kept
        # within 1e-3..1e3 times the last step; doubling where the curvature is not
        # positive). Sonar's bank: 1.45-1.61 SVMs per step against 1.81-1.83 with
        # doubling alone, and 29 SVMs per fit against 38-53 (docs/benchmarks.md).
        s_vec, y_vec = nu - nu_old, g - g_old
        sy = float(s_vec @ y_vec)
        bb = float(s_vec @ s_vec) / sy if sy > 0 else np.inf  # 1 / curvature along it
        eta = min(max(bb, 1e-3 * eta), 1e3 * eta) if sy > 0 else 2.0 * eta
        if sy > 0:  # the flattest curvature of the last curved steps (none yet: inf)
            curvs.append(bb)
            curv = max(curvs[-CURVATURE_WINDOW:])
    if passes.packed is not None and passes.packed.P.dtype != np.float64:
        F, sol, pg = _exact_end(Ks, y, C, nu, sol, svm_tol, scales, weight)
    certified = _certified(pg, curv, nu, F, tol)
    log.end(len(history) - 1, "stopped" if certified else stop, objective=F, proj_grad=pg)
    if not certified:
        warnings.warn(_uncertified_message(stop, len(history) - 1, max_iter, pg, curv, F, tol),
                      ConvergenceWarning, stacklevel=2)
    mu = nu / scales
    return MKLResult(mu, mu, sol.alpha, sol.b, F, pg, n_iter, history)


def model_decrease(pg, curv):
    """``pg^2 curv / 2``: the decrease of ``F`` that a quadratic model with the
    curvature ``1 / curv`` (the flattest seen along the accepted steps, Barzilai-Borwein's
    ``s's / s'y``) predicts from a step along the projected gradient ``d``, ``|d| = pg``; ``inf``
    while no positive curvature was seen (0 at an exact KKT point). In the units of
    ``F`` whatever the kernels' scale, the weights' scale or ``C``."""
    return 0.0 if pg == 0 else 0.5 * pg * pg * curv


def _certified(pg, curv, nu, F, tol):
    """The stopping test, in the units of ``F`` (free of the kernels' and the weights'
    scale): the decrease the quadratic model predicts (:func:`model_decrease`, with the
    flattest curvature seen over the fit) is at most ``tol |F|``; or, once some positive
    curvature was seen, the first-order decrease of a move of the normalised weights by
    their own size (at least 1), ``pg max(1, |nu|)``, is (a curvature measured from a
    step at the inner SVM's noise level can be far too flat)."""
    bound = tol * max(abs(F), 1e-12)
    return model_decrease(pg, curv) <= bound or (
        np.isfinite(curv) and pg * max(1.0, float(np.linalg.norm(nu))) <= bound)


def _uncertified_message(stop, steps, max_iter, pg, curv, F, tol):
    gain = model_decrease(pg, curv) / max(abs(F), 1e-12)
    where = (f"the KKT residual of the weights is {pg:.3g}, a decrease of {gain:.3g} "
             f"of the objective {F:.6g} is predicted (tol={tol:g}), after {steps} "
             "accepted steps")
    if stop == "max_iter":
        return (f"two_layer_mkl stopped at max_iter={max_iter}: {where}. Increase "
                "max_iter (or tol, to accept this point).")
    return (f"two_layer_mkl stopped: no step along the projected gradient decreases the "
            f"objective, and {where}; the weights may be far from stationary (an inexact "
            "inner SVM, or kernels holding NaN or huge values). Check the kernels, or "
            "start elsewhere with mu0.")


def _on_limit(A):
    """``(rows, cols, signs)`` of the entries of the inner combination ``A`` on the
    limit ``|A_ij| = MAX_INNER`` (upper triangle of a symmetric ``A``), at most
    :data:`MAX_LIMIT_ENTRIES` of them (the largest)."""
    mag = np.abs(A)
    hit = np.flatnonzero(mag.ravel() >= MAX_INNER * (1.0 - WALL))
    if hit.size == 0:
        return None
    rows, cols = np.unravel_index(hit, A.shape)
    keep = rows <= cols
    rows, cols = rows[keep], cols[keep]
    if rows.size > MAX_LIMIT_ENTRIES:
        top = np.argsort(mag[rows, cols])[-MAX_LIMIT_ENTRIES:]
        rows, cols = rows[top], cols[top]
    return rows, cols, np.sign(A[rows, cols])


def _limit_normals(Ks, limit, scales):
    """The outward normals ``sign(A_ij) K_t[i, j] / s_t`` of the entries on the limit
    (one row per distinct normal), or ``None``."""
    if limit is None:
        return None
    rows, cols, signs = limit
    B = signs[:, None] * stack_entries(Ks, rows, cols) / scales
    return np.unique(B, axis=0)


def kkt_direction(nu, g, normals=None):
    """The projection of ``-g`` on the tangent cone of the feasible set at ``nu``,
    ``{d : d_t >= 0 where nu_t = 0, b . d <= 0 for each normal b of an entry on the
    limit}``: ``-g`` minus its projection on the polar cone (the non-negative
    combinations of the active normals, by NNLS; Moreau's decomposition). Its norm, the
    KKT residual, is 0 exactly at a KKT point of ``min F`` over ``nu >= 0``,
    ``|sum nu_t K_t| <= MAX_INNER``; off the limit it is ``max(nu - g, 0) - nu``
    restricted to the face of ``nu``."""
    v = -np.asarray(g, dtype=np.float64)
    zero = nu <= 0
    if normals is None:
        return np.where(zero, np.maximum(v, 0.0), v)
    B = np.vstack([-np.eye(nu.size)[zero], normals])
    lam, _ = scipy.optimize.nnls(B.T, v)
    return v - B.T @ lam


def _cut_at_limit(nu, A0, x, A):
    """``nu + tau (x - nu)`` and its combination for the largest ``tau`` in ``[0, 1]``
    that keeps ``|A| <= MAX_INNER`` on the entries not already on the limit at ``nu``
    (``A0``, ``A``: the combinations at ``nu`` and ``x``)."""
    dA = A - A0
    free = np.abs(A0) < MAX_INNER * (1.0 - WALL)
    with np.errstate(divide="ignore", invalid="ignore"):
        up = np.where(free & (A > MAX_INNER), (MAX_INNER - A0) / dA, np.inf)
        down = np.where(free & (A < -MAX_INNER), (-MAX_INNER - A0) / dA, np.inf)
    tau = float(min(np.min(up), np.min(down), 1.0))
    if not np.isfinite(tau):
        return x, A
    return nu + tau * (x - nu), A0 + tau * dA


def _split(evaluated):
    """``(F, sol, K2) -> (F, (sol, K2))``: a value and its state for the line search."""
    return evaluated[0], evaluated[1:]


def _exact_end(Ks, y, C, nu, sol, svm_tol, scales, weight):
    """``F``, the SVM and the KKT residual at ``nu`` from the float64 stack:
    what a fit returns does not carry the float32 search's rounding (the SVM is
    warm-started from the search's ``alpha``, usually one bordered solve)."""
    A = stack_combine(Ks, nu / scales)
    K2 = _exp_kernel(A)
    sol = svm_dual(K2, y, C, tol=svm_tol, alpha0=sol)
    g = _gradient(lambda W, sv: stack_inner(Ks, W, sv) / scales, sol.alpha * y, K2,
                  nu.size, weight)
    pg = float(np.linalg.norm(kkt_direction(nu, g, _limit_normals(Ks, _on_limit(A), scales))))
    return sol.value + weight @ nu, sol, pg


#: Largest exponent of a decision value: ``exp(LOG_MAX)`` times a sum of ``n`` terms
#: of size ``C`` stays finite in float64.
LOG_MAX = 600.0


def exp_decision(A, u):
    """``exp(A) @ u`` for rows ``A`` of the inner combination (test rows by support
    vectors), finite: each row is computed as ``exp(a_max) * (exp(A - a_max) @ u)``,
    exactly when that is representable and with its sign kept and the magnitude
    capped at ``exp(LOG_MAX)`` otherwise. A test row far from the training samples
    (polynomial kernels grow with its norm) would overflow ``exp`` to ``inf`` and the
    sum of opposite infinities to NaN."""
    A = np.asarray(A, dtype=np.float64)
    if A.size == 0:
        return np.zeros(A.shape[0])
    top = A.max(axis=1)
    top = np.where(np.isfinite(top), top, 0.0)
    with np.errstate(over="ignore", under="ignore"):
        v = np.exp(A - top[:, None]) @ u
        small = top <= LOG_MAX
        out = np.where(small, v * np.exp(np.minimum(top, LOG_MAX)), 0.0)
        big = ~small & (v != 0)
        out[big] = np.sign(v[big]) * np.exp(np.minimum(top[big] + np.log(np.abs(v[big])),
                                                       LOG_MAX))
    return out


def _gradient(inner, u, K2, m, weight=1.0):
    """``dF/dmu_t = w_t - 1/2 u^T (K2 o K_t) u`` (eq. 4.5, penalty weights ``w``) with
    ``inner(W, sv)`` the stack's ``<W, K_t[sv, sv]>`` on the support ``sv`` of
    ``u = alpha o y``."""
    sv = np.flatnonzero(u)
    if sv.size == 0:
        return np.ones(m) * weight
    return weight - 0.5 * inner(np.outer(u[sv], u[sv]) * K2[np.ix_(sv, sv)], sv)


class TwoLayerMKL(_BaseMKL):
    """Two-layer MKL: an SVM on ``exp(sum_t mu_t K_t)``, ``mu >= 0`` learned (Protocol 2).

    Zhuang (2011) section 4.3; the choices the thesis leaves open are in
    docs/methods.md, section "2LMKL: the search, the scale and Protocol 3". Binary problems directly; several classes one versus
    one, each pair with its own ``mu``. At the defaults, multiplying one kernel
    of the stack (or the features, with a ``bank``) by a positive constant does
    not change the predictions (``penalty="normalized"``).

    Parameters
    ----------
    C : float, default=1.0
        SVM regularisation (the thesis picks it by 5-fold CV in {0.01, ..., 100}).
    spectrum : {"clip", "flip", "shift", "square"} or None, default="clip"
        How each precomputed similarity matrix becomes a kernel (ignored with
        a ``bank``).
    tol : float, default=1e-3
        The search stops when the decrease of the objective its model predicts
        (from the KKT residual and the curvature seen) is at most ``tol`` times
        the objective; a stop before that warns (:func:`two_layer_mkl`).
    max_iter : int, default=100
    bank : KernelBank or None, default=None
        ``None``: ``X`` is an ``(n, n, m)`` stack of similarities (pairwise).
        A :class:`KernelBank`: ``X`` is features (Zhuang's base kernels).
    mu0 : array-like of shape (m,) or None, default=None
        Start; ``None``: ``mu_t = 1 / (m mean diag K_t)``. A start whose inner
        combination exceeds ``MAX_INNER = 30`` is scaled down to half of it.
    penalty : {"normalized", "thesis"}, default="normalized"
        ``"normalized"``: ``sum_t mu_t mean diag K_t`` (scale-free, ours);
        ``"thesis"``: eq. 4.3's ``sum_t mu_t``.

    verbose : int, default=0
        1: a progress line (step, objective, projected gradient) every 2 seconds and
        at the end of each weight search; 2: every accepted step.

    Attributes
    ----------
    weights_ : ndarray of shape (m,) or (n_pairs, m)
        ``mu``.
    objective_ : float
        ``F(mu) = omega(K2(mu))`` plus the penalty at the returned ``mu``.
    objective_history_ : list
        ``F`` per accepted step (per pair of classes for several classes):
        non-increasing.
    gap_ : float
        KKT residual at the end: the norm of the projected gradient on the
        feasible set's tangent cone, in the normalised weights ``mu_t mean diag K_t``.
    coef_, intercept_, n_iter_, classes_, n_kernels_, results_, bank_, spectra_

    Examples
    --------
    >>> import numpy as np
    >>> x = np.random.default_rng(0).normal(size=(40, 2))
    >>> S = np.exp(-(x[:, None, :] - x[None, :, :]) ** 2)  # (40, 40, 2): a kernel per feature
    >>> y = (x[:, 0] > 0).astype(int)
    >>> from proxlearn.mkl import TwoLayerMKL
    >>> clf = TwoLayerMKL().fit(S, y)
    >>> np.round(clf.weights_, 2).tolist(), clf.score(S, y)
    ([1.85, 0.5], 0.975)

    See Also
    --------
    TwoLayerMKLCV : ``C`` chosen by cross-validation (the thesis's protocol).
    TwoLayerMKLInf : Gaussian inner kernels added during the fit.
    two_layer_mkl : the solver, on a kernel stack and labels in {-1, +1}.
    SimpleMKL : the one-layer (convex) MKL.
    """

    def __init__(self, C=1.0, *, spectrum="clip", tol=1e-3, max_iter=100, bank=None, mu0=None,
                 penalty="normalized", verbose=0):
        self.C = C
        self.spectrum = spectrum
        self.tol = tol
        self.max_iter = max_iter
        self.bank = bank
        self.mu0 = mu0
        self.penalty = penalty
        self.verbose = verbose

    _parameter_constraints = mkl_constraints(
        "C", "spectrum", "tol", "max_iter", "bank",
        mu0=unchecked("an array of m weights, checked by two_layer_mkl"),
        penalty=options(*PENALTIES), verbose=MKL_CONSTRAINTS["verbose"])

    def _solve(self, Ks, y_pm):
        return two_layer_mkl(Ks, y_pm, self.C, mu0=self.mu0, tol=self.tol,
                             max_iter=self.max_iter, penalty=self.penalty,
                             verbose=self.verbose)

    def _combine_test(self, T, res):
        return stack_combine(T, res.kernel_weights)  # the inner layer; exp in _raw_stack

    def _raw_stack(self, T):
        raw = np.tile(self.intercept_, (T.shape[0], 1))
        rows = np.arange(T.shape[0])
        for k, (u, res) in enumerate(zip(self._uw, self.results_)):
            sv = np.flatnonzero(u)
            if not sv.size:
                continue
            if isinstance(T, np.ndarray):  # one gemv on the whole stack (as _BaseMKL)
                A = self._combine_test(T, res)[:, sv]
            else:  # lazy: the support vectors' columns only
                A = self._combine_test(stack_take(T, rows, sv), res)
            raw[:, k] += exp_decision(A, u[sv])
        return raw

    def _fit_stack(self, Ks, y):
        super()._fit_stack(Ks, y)
        hist = [[h["objective"] for h in r.history] for r in self.results_]
        self.objective_history_ = hist[0] if len(hist) == 1 else hist
        return self


def _gauss(D2, sigma, scale):
    """A Gaussian kernel times ``scale`` (the bank's ``gaussian_scale_``: 1, or ``1 / n``
    for the thesis's unit trace)."""
    return np.exp(D2 * (-0.5 / sigma**2)) * scale


def _sq_dists(A, B, feature=None):
    """Squared distances between the rows of ``A`` and ``B`` (standardised
    features), on all features or on one."""
    if feature is not None:
        return np.subtract.outer(A[:, feature], B[:, feature]) ** 2
    return np.maximum((A * A).sum(1)[:, None] + (B * B).sum(1)[None] - 2.0 * A @ B.T, 0.0)


def pair_profile(W, D2):
    """``(d, c)`` with ``sum_ij W_ij phi(D2_ij) = sum_k c_k phi(d_k)`` for any ``phi``
    (``W`` and ``D2`` symmetric): the upper triangle with doubled weights, and pairs at
    the same squared distance merged when that at least halves their number.

    The width searches evaluate such sums for 50-70 widths per feature set and round:
    on a single categorical feature (Splice's nucleotides: at most 7 distinct
    distances among 125,000 pairs) each evaluation costs a few exponentials instead
    of ``n^2``; on continuous features the triangle halves it."""
    iu = np.triu_indices(D2.shape[0], 1)
    d = np.concatenate([np.diag(D2), D2[iu]])
    c = np.concatenate([np.diag(W), 2.0 * W[iu]])
    vals, inv = np.unique(d, return_inverse=True)
    if 2 * vals.size <= d.size:
        return vals, np.bincount(inv, weights=c, minlength=vals.size)
    return d, c


def best_gaussian(h, grid=None):
    """``(sigma, h(sigma))`` maximising ``h`` over Gaussian widths: a log grid of 41
    values in ``[2^-5, 2^8]`` refined by a bounded 1-D search in ``log sigma``
    around the grid's best point (a local search only: the grid decides the basin)."""
    grid = 2.0 ** np.linspace(-5, 8, 41) if grid is None else grid
    vals = np.array([h(s) for s in grid])
    k = int(np.argmax(vals))
    lo, hi = np.log2(grid[max(k - 1, 0)]), np.log2(grid[min(k + 1, len(grid) - 1)])
    opt = scipy.optimize.minimize_scalar(lambda t: -h(2.0**t), bounds=(lo, hi),
                                         method="bounded")
    return (float(2.0 ** opt.x), float(-opt.fun)) if -opt.fun > vals[k] else \
        (float(grid[k]), float(vals[k]))


class _AddedGaussians(_BaseMKL):
    """Shared machinery of the estimators that add Gaussian kernels to a bank's
    kernels during the fit (:class:`TwoLayerMKLInf`, :class:`~proxlearn.mkl.IKL`):
    features in, one-vs-one pairs, and test kernels with the added Gaussians
    (``res.widths`` and ``res.features`` per pair; ``features`` ``None`` means
    all features). Subclasses give ``_solve(Ks, y_pm, idx)`` and ``_decision(A, u)``,
    the decision values from the combined base kernels ``A`` of test rows."""

    spectrum = None

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.pairwise = False
        tags.input_tags.sparse = True  # features: densified
        return tags

    @staticmethod
    def _decision(A, u):  # pragma: no cover - abstract
        """``outer(A) @ u`` for the inner combination ``A`` of test rows."""
        raise NotImplementedError

    def _kernels(self, X):
        bank = KernelBank(per_feature=False) if self.bank is None else self.bank
        self.bank_ = clone(bank).fit(X)
        self.spectra_ = []
        Ks = self.bank_.stack()
        if not isinstance(Ks, np.ndarray):
            Ks = Ks.toarray()
        Z = self.bank_.Z_
        self._D2 = _sq_dists(Z, Z)
        return Ks

    def fit(self, X, y):
        validate_params(self)
        Ks = self._kernels(X)
        from .._validation import LabelError, check_labels
        from .._svm._multiclass import ovo_fit, scatter_pairs

        n = Ks.shape[0]
        classes, y_idx = check_labels(y, n, rows_of=self._rows_of())
        if classes.dtype.kind == "f" and np.any(classes != np.round(classes)):
            raise LabelError("Unknown label type: continuous. Pass class labels.")
        problems, self.results_ = ovo_fit(
            y_idx, len(classes), lambda p: self._solve(Ks[np.ix_(p.idx, p.idx)], p.y, p.idx))
        self._uw = list(scatter_pairs(problems, [r.alpha * p.y for p, r in
                                                 zip(problems, self.results_)], n))
        self.intercept_ = np.array([r.b for r in self.results_], dtype=np.float64)
        del self._D2
        binary = len(problems) == 1
        pick = (lambda v: v[0]) if binary else list
        self.classes_ = classes
        self.coef_ = np.array(self._uw)
        self.weights_ = pick([r.kernel_weights for r in self.results_])
        self.added_widths_ = pick([r.widths for r in self.results_])
        self.added_features_ = pick([r.features for r in self.results_])
        self.objective_ = pick([r.objective for r in self.results_])
        self.objective_history_ = pick([[h["objective"] for h in r.history]
                                        for r in self.results_])
        self.n_kernels_ = pick([r.kernel_weights.size for r in self.results_])
        self.n_iter_ = pick([r.n_iter for r in self.results_])
        self.n_features_in_ = self.bank_.n_features_in_
        self.n_train_ = n
        return self

    def _raw(self, X_test):
        check_is_fitted(self, "coef_")
        T = self.bank_.stack(X_test)
        if not isinstance(T, np.ndarray):
            T = T.toarray()
        Zt = self.bank_.standardized(X_test)
        Z = self.bank_.Z_
        gscale = self.bank_.gaussian_scale_
        raw = np.tile(self.intercept_, (T.shape[0], 1))
        D2 = {}
        for k, (u, res) in enumerate(zip(self._uw, self.results_)):
            sv = np.flatnonzero(u)
            if not sv.size:
                continue
            m0 = T.shape[2]
            A = T[:, sv] @ res.kernel_weights[:m0]
            for j, (f, s) in enumerate(zip(res.features, res.widths)):
                if f not in D2:
                    D2[f] = _sq_dists(Zt, Z, f)
                A += res.kernel_weights[m0 + j] * _gauss(D2[f][:, sv], s, gscale)
            raw[:, k] += self._decision(A, u[sv])
        return raw


class TwoLayerMKLInf(_AddedGaussians):
    """2LMKL with inner Gaussian kernels added one per outer round (Protocol 3).

    Starts from ``bank``'s kernels on all features (Zhuang: the 10 Gaussian
    widths and 3 polynomial degrees, ``KernelBank(per_feature=False)``), runs
    :class:`TwoLayerMKL`'s Protocol 2, then searches the Gaussian width whose
    kernel (on all standardised features, unit training trace) is most worth
    adding (docs/methods.md, section "2LMKL: the search, the scale and
    Protocol 3"), adds it with ``mu = 0`` and repeats until no
    width qualifies or ``max_kernels`` were added. Features only (the new
    kernels are computed from them): ``fit(X, y)`` with ``X`` of shape
    ``(n, d)``.

    Parameters
    ----------
    C : float, default=1.0
    bank : KernelBank or None, default=None
        ``None``: ``KernelBank(per_feature=False)``.
    criterion : {"gradient", "thesis"}, default="gradient"
    max_kernels : int, default=10
        Most kernels added (the thesis gives no limit).
    tol : float, default=1e-4
        As :class:`TwoLayerMKL`'s, per Protocol-2 run, ten times tighter than
        its default: the ``"gradient"`` criterion reads the gradient at that
        run's stop, and with 1e-3 the certified stops of the defaults panel's
        fits were loose enough to change which widths were added (worse than
        the RBF SVC on 4 of 13 sets, against 1 with 1e-4; docs/benchmarks.md,
        "2LMKL: a certified stop or a warning").
    max_iter, penalty : as :class:`TwoLayerMKL` (per Protocol-2 run). With
        ``penalty="normalized"`` the ``"gradient"`` criterion tests the new
        Gaussian at mean diagonal 1.

    Attributes
    ----------
    added_widths_ : list of float (per pair of classes for several classes)
        The ``sigma`` of the Gaussians added, in order.
    added_features_ : list (per pair of classes for several classes)
        ``None`` for each added kernel (all features; the attribute is shared
        with :class:`~proxlearn.mkl.IKL`, which also adds single-feature kernels).
    weights_, objective_, objective_history_ (``F`` after each outer round),
    coef_, intercept_, classes_, bank_, n_kernels_ (per pair: ``m0 +`` added).

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from proxlearn.mkl import TwoLayerMKLInf
    >>> X, y = load_iris(return_X_y=True)
    >>> clf = TwoLayerMKLInf(max_kernels=2).fit(X[:100], y[:100])
    >>> len(clf.added_widths_), clf.n_kernels_, clf.score(X[:100], y[:100])
    (2, 15, 1.0)

    See Also
    --------
    TwoLayerMKL : the same problem on a fixed set of kernels.
    IKL : one-layer MKL adding Gaussian kernels (also single-feature ones).
    KernelBank : the starting kernels.
    """

    def __init__(self, C=1.0, *, bank=None, criterion="gradient", max_kernels=10, tol=1e-4,
                 max_iter=100, penalty="normalized"):
        self.C = C
        self.bank = bank
        self.criterion = criterion
        self.max_kernels = max_kernels
        self.tol = tol
        self.max_iter = max_iter
        self.penalty = penalty

    _decision = staticmethod(exp_decision)

    _parameter_constraints = mkl_constraints(
        "C", "tol", "max_iter", bank=MKL_CONSTRAINTS["feature_bank"],
        criterion=options("gradient", "thesis"),
        penalty=options(*PENALTIES), max_kernels=integer(0))

    def _solve(self, Ks, y_pm, idx=None):
        D2 = self._D2 if idx is None else self._D2[np.ix_(idx, idx)]
        gscale = self.bank_.gaussian_scale_
        # the gradient criterion's kernel: normalised (mean diagonal 1) when the penalty is
        hscale = 1.0 if self.penalty == "normalized" else gscale
        fit = dict(tol=self.tol, max_iter=self.max_iter, penalty=self.penalty)
        widths, history = [], []
        res = two_layer_mkl(Ks, y_pm, self.C, **fit)
        history.append(res.objective)
        steps = max(res.n_iter, 1)
        for _ in range(int(self.max_kernels)):
            u = res.alpha * y_pm
            sv = np.flatnonzero(u)
            if sv.size == 0:
                break
            K2 = _exp_kernel(stack_combine(Ks, res.kernel_weights))
            U = np.outer(u[sv], u[sv])
            D2s = D2[np.ix_(sv, sv)]
            if self.criterion == "gradient":
                d, c = pair_profile(U * K2[np.ix_(sv, sv)], D2s)

                def h(s, d=d, c=c):
                    return 0.5 * (c @ _gauss(d, s, hscale))

                threshold = 1.0
            else:
                d, c = pair_profile(U, D2s)

                def h(s, d=d, c=c):
                    return 0.5 * (c @ np.exp(_gauss(d, s, gscale)))

                threshold = 0.5 * u @ K2 @ u - res.alpha.sum() - res.kernel_weights.sum()
            s_best, h_best = best_gaussian(h)
            if h_best <= threshold * (1.0 + self.tol):
                break
            widths.append(float(s_best))
            Ks = np.concatenate([Ks, _gauss(D2, s_best, gscale)[:, :, None]], axis=2)
            mu0 = np.append(res.kernel_weights, 0.0)
            res = two_layer_mkl(Ks, y_pm, self.C, mu0=mu0, **fit)
            history.append(res.objective)
            steps += res.n_iter
        res.history = [{"objective": f} for f in history]
        res.widths = widths
        res.features = [None] * len(widths)
        res.n_iter = steps  # 2LMKL steps, summed
        return res




class TwoLayerMKLCV(RefittedMixin, PairwiseMixin, ClassifierMixin, BaseEstimator):
    """:class:`TwoLayerMKL` with ``C`` chosen by cross-validation, then refitted.

    In the style of scikit-learn's ``LogisticRegressionCV``: for each fold the
    base kernels are built once (the bank fitted on the fold's training part, or
    the spectrum transform of each similarity) and shared by every ``C`` of the
    grid, which is walked in increasing order with each fit started from the
    previous ``C``'s weights (binary problems). The ``C`` of the best mean
    validation accuracy (the smallest among ties) is refitted on all the data.
    Zhuang (2011) section 4.5.1 chooses ``C`` this way for 2LMKL.

    Parameters
    ----------
    Cs : sequence of float, default=(0.01, 0.1, 1, 10, 100)
        The grid (the thesis's).
    cv : int or cross-validation splitter, default=5
        As scikit-learn's ``check_cv`` (stratified folds for an int).
    spectrum, tol, max_iter, bank, penalty : as :class:`TwoLayerMKL`.

    Attributes
    ----------
    best_C_ : float
    best_params_ : dict
        ``{"C": best_C_}``.
    best_score_ : float
        Mean validation accuracy at ``best_C_``.
    cv_scores_ : ndarray of shape (len(Cs), n_folds)
        Validation accuracy per ``C`` and fold.
    cv_results_ : dict
        As ``GridSearchCV``'s (:func:`proxlearn._cv.cv_results`).
    best_index_, n_splits_ : int
    best_estimator_ : TwoLayerMKL
        Refitted on all the data with ``best_C_``.
    classes_, n_features_in_, weights_ (those of ``best_estimator_``)

    Examples
    --------
    >>> from sklearn.datasets import make_classification
    >>> from proxlearn.mkl import KernelBank, TwoLayerMKLCV
    >>> X, y = make_classification(60, 4, random_state=0)
    >>> clf = TwoLayerMKLCV(Cs=[0.1, 1.0], cv=3, bank=KernelBank(per_feature=False))
    >>> clf.fit(X, y).best_C_ in (0.1, 1.0)
    True

    See Also
    --------
    TwoLayerMKL : the estimator refitted with ``best_C_``.
    MKLClassifierCV : the same search for any MKL classifier.
    """

    def __init__(self, Cs=ZHUANG_CS, *, cv=5, spectrum="clip", tol=1e-3, max_iter=100, bank=None,
                 penalty="normalized"):
        self.Cs = Cs
        self.cv = cv
        self.spectrum = spectrum
        self.tol = tol
        self.max_iter = max_iter
        self.bank = bank
        self.penalty = penalty

    _parameter_constraints = {
        "Cs": unchecked("a grid, checked by check_grid"),
        "cv": unchecked("folds, checked by cv_folds"),
        **{k: unchecked("TwoLayerMKL's, checked on the model of the first C")
           for k in ("spectrum", "tol", "max_iter", "bank", "penalty")},
    }

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.pairwise = self.bank is None
        tags.input_tags.sparse = self.bank is not None
        return tags

    def _model(self, C):
        return TwoLayerMKL(C, spectrum=self.spectrum, tol=self.tol, max_iter=self.max_iter,
                           bank=self.bank, penalty=self.penalty)

    def fit(self, X, y):
        return fit_grid(self, self._model, self.Cs, X, y, self.bank is None,
                        warm_start=self._warm_start)

    @staticmethod
    def _warm_start(est, previous):
        """Along the grid, start from the previous ``C``'s weights (one weight
        vector: binary problems)."""
        if previous is not None and np.ndim(previous.weights_) == 1:
            est.mu0 = previous.weights_

