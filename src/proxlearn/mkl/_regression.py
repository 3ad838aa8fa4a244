"""MKL beyond classification: epsilon-SVR and the one-class SVM by SimpleMKL, and
Lp-norm MKL kernel ridge regression, each with a certified duality gap.

With ``m`` kernels ``K_k`` (an ``(n, n, m)`` stack) and ``K_d = sum_k d_k K_k``:

==============================  ====================================================
solver / estimator              problem ``min_d J(d)`` and inner dual ``J(d)``
==============================  ====================================================
:func:`simple_mkl_svr`          ``d`` in the simplex; ``J(d) = max_{1^T beta = 0,
:class:`SimpleMKLRegressor`     |beta_i| <= C} y^T beta - epsilon ||beta||_1 -
                                1/2 beta^T K_d beta`` (epsilon-SVR, ``beta = alpha -
                                alpha*``)
:func:`simple_mkl_one_class`    ``d`` in the simplex; ``J(d) = max_{0 <= alpha_i <=
:class:`SimpleMKLOneClass`      1/(nu n), 1^T alpha = 1} -1/2 alpha^T K_d alpha``
                                (the one-class SVM of Schoelkopf et al. 2001)
:func:`lp_mkl_krr`              ``d >= 0, ||d||_p <= 1``; ``J(d) = max_{1^T c = 0}
:class:`LpMKLKernelRidge`       y^T c - 1/2 ||c||^2 - 1/(2 alpha) c^T K_d c``, the dual
                                of ``min_{w, b} 1/2 sum_i (y_i - f(x_i))^2 + alpha/2
                                sum_k ||w_k||^2 / d_k`` (kernel ridge regression with
                                intercept; ``c`` is the residual)
==============================  ====================================================

Every ``J`` has the form ``max_beta g(beta) - 1/2 sum_k d_k a_k(beta)`` with
``a_k = beta^T K_k beta`` (ridge: ``c^T K_k c / alpha``), so the outer problems are
those of the classifiers and use their drivers: SimpleMKL's simplex descent
(:func:`proxlearn.mkl._solvers.simplex_descent`: spectral projected gradient, or the
reduced gradient with Armijo of Rakotomamonjy, Bach, Canu & Grandvalet, JMLR 2008,
whose section on extensions gives the SVR and one-class cases) and Kloft, Brefeld,
Sonnenburg & Zien's closed-form Lp update (JMLR 2011; here with the squared
loss, :func:`proxlearn.mkl._solvers.lp_alternation`). The gradient is
``dJ/dd_k = -1/2 a_k`` (Danskin), and for any feasible ``beta`` the dual value
``g(beta) - 1/2 max_k a_k`` (Lp: ``- 1/2 ||max(a, 0)||_q``, ``q = p / (p - 1)``)
bounds ``min_d J`` from below: the certificate is ``J(d)`` minus that bound
(derivation in docs/methods.md, "MKL regression and one-class").

Newton steps. The spectral projected gradient alone crawls near the optimum (an
SVR on the 78 kernels of bupa's bank: relative gap 4e-3 after 200 iterations);
the classifiers' Newton step on the face of ``d``
(:func:`proxlearn.mkl._solvers._simplex_newton`) applies unchanged, since each
inner problem's free variables solve a bordered system ``[K_FF 1; 1^T 0]`` like the
SVM's: the SVR with ``u = beta`` (free where ``0 < |beta_i| < C``), the one-class
SVM with ``u = alpha`` (box ``1/(nu n)``), the ridge with every ``gamma_i`` free on
``K_d + alpha I`` (``u = sqrt(alpha) gamma``, for the factor ``alpha`` of its
``a_k``). With it: 3e-7 after 68 iterations. The Armijo test keeps it honest.

Inner solvers: libsvm's epsilon-SVR and one-class SVM through scikit-learn; the SVR
warm-started from the previous ``beta``'s active set (:func:`_svr_active_set`, the
SVR's version of :func:`proxlearn._svm._dual.svm_dual`'s warm start: kept only when
it passes libsvm's test); the one-class SVM cold (libsvm takes no warm start); the
ridge system ``[K_d + alpha I, 1;
1^T, 0]`` by :func:`proxlearn._svm._dual.bordered_solve` (Cholesky, never an
inverse).
"""

from __future__ import annotations

import copy
import numbers
import warnings

import numpy as np
from scipy.linalg import LinAlgError
from scipy.linalg import solve as _dense_solve
from sklearn import config_context
from sklearn.base import BaseEstimator, OutlierMixin, RegressorMixin
from sklearn.svm import SVR, OneClassSVM

from .._svm._dual import (
    MAX_ACTIVE_SET_ROUNDS,
    SMO_SECONDS,
    SVMDual,
    _warm_start_rounds,
    bordered_solve,
    max_violating_pair,
)
from .._svm._libsvm import MAX_ITER
from .._validation import (
    boolean,
    check_sample_weight,
    check_targets,
    options,
    positive,
    satisfies,
    validate_params,
)
from ..base import PairwiseMixin
from ..exceptions import SolverError
from ..transforms._spectrum_kernel import fit_target_scale
from ._bank import StackPasses, stack_combine, stack_take
from ._classifiers import _MKLKernels, mkl_constraints
from ._solvers import (
    SIMPLE_MKL_SOLVERS,
    MKLResult,
    _a,
    _simplex_newton,
    lp_alternation,
    simplex_descent,
)

__all__ = ["LpMKLKernelRidge", "SimpleMKLOneClass", "SimpleMKLRegressor", "lp_mkl_krr",
           "simple_mkl_one_class", "simple_mkl_svr"]


def _uniform(m):
    return np.full(m, 1.0 / m)


# --------------------------------------------------------------------------- inner solvers
#: The time of one ``SVR(kernel="precomputed").fit`` beyond libsvm's SMO iterations
#: (scikit-learn's wrapper, validation skipped), added to the cost model of the warm
#: start (:data:`proxlearn._svm._dual.SMO_SECONDS`): at n = 241 with 393 SMO
#: iterations the fit took 2.2 ms CPU where the iterations account for 0.8.
SVR_CALL_SECONDS = 1e-3


def _svr_dual(K, y, C, epsilon, tol, warm=None, sample_weight=None):
    """``(beta, b, smo_work)`` of the epsilon-SVR on the precomputed kernel ``K``:
    ``f = K beta + b``, ``beta = alpha - alpha*`` in ``[-C, C]``, ``1^T beta = 0``;
    ``smo_work`` is ``n`` times libsvm's SMO iterations (the cost of a cold solve).
    ``sample_weight`` (positive): the box of sample ``i`` is ``C w_i`` (libsvm's).

    ``warm = (beta0, smo_work)``: a previous solution on a nearby kernel, tried first
    by :func:`_svr_active_set` when the cost model of
    :func:`proxlearn._svm._dual.svm_dual` expects its bordered solve to be cheaper
    than libsvm was; kept only when it passes libsvm's own test at ``tol``."""
    box = C if sample_weight is None else C * sample_weight
    if warm is not None:
        beta0, work = warm
        free = (np.abs(beta0) > 1e-10 * box) & (np.abs(beta0) < box * (1.0 - 1e-10))
        # tried when the cost model expects it to pay; then with all its rounds: on
        # bupa's 78-kernel bank the model's 5 rounds certified 14 of 64 warm starts, 10
        # rounds 58 of 62 (fit 0.51 -> 0.30 s CPU)
        worth = _warm_start_rounds(y.size, int(free.sum()), int(np.count_nonzero(beta0)),
                                   work + SVR_CALL_SECONDS / SMO_SECONDS)
        got = _svr_active_set(K, y, box, epsilon, tol, beta0) if worth else None
        if got is not None:
            return (*got, work)
    with config_context(skip_parameter_validation=True, assume_finite=True), \
            warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a capped SMO shows in the certificate
        svr = SVR(kernel="precomputed", C=float(C), epsilon=float(epsilon), tol=tol,
                  max_iter=MAX_ITER).fit(K, y, sample_weight=sample_weight)
    beta = np.zeros(y.size)
    beta[svr.support_] = svr.dual_coef_[0]
    return beta, float(svr.intercept_[0]), float(y.size * np.max(svr.n_iter_))


def _svr_active_set(K, y, C, epsilon, tol, beta0, max_rounds=MAX_ACTIVE_SET_ROUNDS):
    """The SVR solution reached from the active set of ``beta0`` (free where
    ``0 < |beta_i| < C``, the others at ``0`` or ``+-C``) by at most ``max_rounds``
    corrections, or ``None``: the SVR's version of the classification warm start
    (:func:`proxlearn._svm._dual.svm_dual`).

    Each round solves the bordered system of the free set, ``[K_FF 1; 1^T 0] [beta_F;
    b] = [y_F - epsilon s_F - K_FB beta_B; -1^T beta_B]`` (``s_F``: the side of the tube
    each free point sits on; :func:`proxlearn._svm._dual.bordered_solve`); free values
    that cross 0 or leave the box go to that bound, else bounded points that violate
    their KKT condition become free. The result is returned only when the whole
    problem passes libsvm's stopping test (the maximal violating pair of the
    ``2 n``-variable dual over ``(alpha, alpha*)``, :func:`max_violating_pair`) at
    ``tol``, so the heuristic changes the speed, never the answer. ``C``: a number,
    or the box of each sample (weighted samples)."""
    n = y.size
    C = np.broadcast_to(np.asarray(C, dtype=np.float64), (n,))
    slack = 1e-10 * C
    side = np.sign(beta0)  # +1 / -1: the upper / lower edge of the tube; 0: inside
    at_c = np.abs(beta0) >= C - slack
    free = (side != 0) & ~at_c & (np.abs(beta0) > slack)
    side[~free & ~at_c] = 0.0
    s2 = np.concatenate([np.ones(n), -np.ones(n)])
    for _ in range(int(max_rounds)):
        F, B = np.flatnonzero(free), np.flatnonzero(at_c)
        if F.size == 0:
            return None
        bB = C[B] * side[B]
        rhs = y[F] - epsilon * side[F] - (K[np.ix_(F, B)] @ bB if B.size else 0.0)
        got = bordered_solve(K[np.ix_(F, F)], rhs, -bB.sum())
        if got is None:
            return None
        bF, b = got
        crossed, over = bF * side[F] < -slack[F], np.abs(bF) > C[F] + slack[F]
        if crossed.any() or over.any():  # to the bound each one crossed
            free[F[crossed | over]] = False
            at_c[F[over]] = True
            side[F[crossed]] = 0.0
            continue
        beta = np.zeros(n)
        beta[F], beta[B] = np.clip(bF, -C[F], C[F]), bB
        if abs(beta.sum()) > 1e-9 * C.max():
            return None
        sv = np.flatnonzero(beta)
        r = y - K[:, sv] @ beta[sv] - b  # residuals with the bordered intercept
        a = np.concatenate([np.maximum(beta, 0.0), np.maximum(-beta, 0.0)])
        rb = r + b
        if max_violating_pair(np.concatenate([rb - epsilon, rb + epsilon]), a, s2,
                              np.concatenate([C, C])) <= tol:
            return beta, float(b)
        # KKT at the bounds: inside the tube |r| <= epsilon at 0; outside on its side at C
        out = (side == 0) & (np.abs(r) > epsilon + tol)
        back = at_c & (side * r < epsilon - tol)
        if not (out.any() or back.any()):
            return None
        free[out | back] = True
        side[out] = np.sign(r[out])
        at_c[back] = False
    return None


def _one_class_dual(K, nu, tol):
    """``(alpha, rho)`` of libsvm's one-class SVM on ``K``, rescaled to ``0 <= alpha_i
    <= 1 / (nu n)``, ``1^T alpha = 1`` (libsvm's own box is ``[0, 1]``, sum ``nu n``):
    the decision is ``K alpha - rho``."""
    n = K.shape[0]
    with config_context(skip_parameter_validation=True, assume_finite=True), \
            warnings.catch_warnings():
        warnings.simplefilter("ignore")
        oc = OneClassSVM(kernel="precomputed", nu=float(nu), tol=tol,
                         max_iter=MAX_ITER).fit(K)
    alpha = np.zeros(n)
    alpha[oc.support_] = oc.dual_coef_[0]
    total = alpha.sum()
    if not total > 0:
        raise SolverError("the one-class SVM returned no support vector; check the kernels.")
    return alpha / total, float(-oc.intercept_[0]) / total


def _ridge_dual(K, y, alpha, fit_intercept, sample_weight=None):
    """``(gamma, b)`` with ``(K + alpha I) gamma + b 1 = y`` and ``1^T gamma = 0``
    (without intercept: ``b = 0`` and no constraint); solved, never inverted.
    ``sample_weight`` (positive): ``alpha W^-1`` instead of ``alpha I``."""
    A = np.array(K, dtype=np.float64, copy=True)
    A.flat[:: A.shape[0] + 1] += alpha if sample_weight is None else alpha / sample_weight
    if fit_intercept:
        got = bordered_solve(A, y, 0.0)
        if got is None:
            raise SolverError("the kernel ridge system [K_d + alpha I, 1; 1^T, 0] is "
                              "singular; raise alpha.")
        return got[0], float(got[1])
    try:  # PD when K_d is PSD (Cholesky); an indefinite K_d (spectrum=None): LDL
        return _dense_solve(A, y, assume_a="pos", check_finite=False), 0.0
    except LinAlgError:
        return _dense_solve(A, y, assume_a="sym", check_finite=False), 0.0


# --------------------------------------------------------------------------- solvers
def simple_mkl_svr(Ks, y, C=1.0, epsilon=0.1, *, tol=1e-4, max_iter=200, svm_tol=1e-7,
                   solver="spg", sample_weight=None) -> MKLResult:
    """SimpleMKL for epsilon-SVR: ``min_{d in simplex} J(d)``, ``J(d)`` the SVR dual
    optimum on ``sum_k d_k K_k`` (Rakotomamonjy et al. 2008, extensions), with a
    certified duality gap ``J(d) - (y^T beta - epsilon ||beta||_1 - 1/2 max_k
    beta^T K_k beta)``.

    Parameters
    ----------
    Ks : ndarray of shape (n, n, m)
        PSD kernels (or a lazy stack of a :class:`KernelBank`).
    y : ndarray of shape (n,)
        Real targets.
    C, epsilon : float
        The SVR's box and insensitive zone (in the units of ``y``).
    tol : float
        Relative gap at which the descent stops.
    max_iter : int
    svm_tol : float
        libsvm's tolerance for each SVR.
    solver : {"spg", "reduced-gradient"}
        As :func:`simple_mkl`.
    sample_weight : ndarray of shape (n,), optional
        Positive weights: the box of sample ``i`` is ``C w_i`` (libsvm's weighted
        SVR; the weighted epsilon-insensitive loss). Leave weight-0 samples out
        before the call.

    Returns
    -------
    MKLResult
        ``alpha`` holds ``beta = alpha - alpha*``; predictions are
        ``sum_k weights[k] K_k(x, .) @ alpha + b``.

    Examples
    --------
    >>> import numpy as np
    >>> from proxlearn.mkl import simple_mkl_svr
    >>> x = np.random.default_rng(0).normal(size=(40, 2))
    >>> Ks = np.exp(-(x[:, None, :] - x[None, :, :]) ** 2)  # (40, 40, 2): a kernel per feature
    >>> res = simple_mkl_svr(Ks, np.sin(2 * x[:, 0]))
    >>> np.round(res.weights, 2).tolist(), bool(res.gap <= 1e-4 * res.objective)
    ([1.0, 0.0], True)

    See Also
    --------
    SimpleMKLRegressor : the estimator.
    simple_mkl : the classification problem.
    """
    if solver not in SIMPLE_MKL_SOLVERS:
        raise ValueError(f"solver must be one of {SIMPLE_MKL_SOLVERS}, got {solver!r}.")
    y = np.asarray(y, dtype=np.float64)
    passes = StackPasses(Ks)
    kernel = [None]  # the combined kernel of the last SVR solved
    warm = [None]  # (beta, smo_work) of the last SVR: the next one's warm start

    def solve(d):
        kernel[0] = passes.combine(d)
        beta, b, work = _svr_dual(kernel[0], y, C, epsilon, svm_tol, warm[0], sample_weight)
        warm[0] = (beta, work)
        a = _a(Ks, beta, passes)
        value = float(y @ beta - epsilon * np.abs(beta).sum() - 0.5 * d @ a)
        return SVMDual(alpha=beta, b=b, value=value), a

    box = C if sample_weight is None else C * sample_weight

    def newton(d, sol, grad):  # the SVM's Newton step with u = beta: |beta| and its sign
        beta = sol.alpha
        return _simplex_newton(Ks, kernel[0], np.where(beta < 0, -1.0, 1.0), box,
                               np.abs(beta), d, grad)

    return simplex_descent(solve, _uniform(Ks.shape[2]), tol, max_iter, solver=solver,
                           newton=newton, name="simple_mkl_svr")


def simple_mkl_one_class(Ks, nu=0.5, *, tol=1e-4, max_iter=200, svm_tol=1e-7,
                         solver="spg") -> MKLResult:
    """SimpleMKL for the one-class SVM: ``min_{d in simplex} J(d)``, ``J(d) = max
    -1/2 alpha^T K_d alpha`` over ``0 <= alpha_i <= 1/(nu n)``, ``1^T alpha = 1``
    (Rakotomamonjy et al. 2008, extensions), with the certified gap ``1/2 (max_k a_k -
    sum_k d_k a_k)``.

    Returns
    -------
    MKLResult
        ``alpha`` on that scale, ``b = -rho``: the decision is
        ``sum_k weights[k] K_k(x, .) @ alpha + b``.

    Examples
    --------
    >>> import numpy as np
    >>> from proxlearn.mkl import simple_mkl_one_class
    >>> x = np.random.default_rng(0).normal(size=(40, 2))
    >>> Ks = np.exp(-(x[:, None, :] - x[None, :, :]) ** 2)  # (40, 40, 2): a kernel per feature
    >>> res = simple_mkl_one_class(Ks, nu=0.2)
    >>> bool(np.isclose(res.weights.sum(), 1.0)), bool(res.gap <= 1e-4 * abs(res.objective))
    (True, True)

    See Also
    --------
    SimpleMKLOneClass : the estimator.
    simple_mkl_svr : the regression problem.
    """
    if solver not in SIMPLE_MKL_SOLVERS:
        raise ValueError(f"solver must be one of {SIMPLE_MKL_SOLVERS}, got {solver!r}.")
    passes = StackPasses(Ks)
    kernel = [None]
    box = 1.0 / (float(nu) * Ks.shape[0])

    def solve(d):
        kernel[0] = passes.combine(d)
        alpha, rho = _one_class_dual(kernel[0], nu, svm_tol)
        a = _a(Ks, alpha, passes)
        return SVMDual(alpha=alpha, b=-rho, value=float(-0.5 * d @ a)), a

    def newton(d, sol, grad):  # the SVM's Newton step with u = alpha, labels 1, box 1/(nu n)
        return _simplex_newton(Ks, kernel[0], np.ones(Ks.shape[0]), box, sol.alpha, d, grad)

    return simplex_descent(solve, _uniform(Ks.shape[2]), tol, max_iter, solver=solver,
                           newton=newton, name="simple_mkl_one_class")


def lp_mkl_krr(Ks, y, alpha=1.0, p=2.0, *, tol=1e-4, max_iter=200,
               fit_intercept=True, sample_weight=None) -> MKLResult:
    """Lp-norm MKL kernel ridge regression, ``min_{d >= 0, ||d||_p <= 1} J(d)`` with
    ``J(d) = min_{w, b} 1/2 sum_i (y_i - f(x_i))^2 + alpha/2 sum_k ||w_k||^2 / d_k``.

    ``p > 1``: Kloft et al.'s closed-form update ``d_k ~ ||w_k||^(2/(p+1))`` on the
    Lp sphere, alternated with the ridge solve; ``p = 1``: the simplex, by
    SimpleMKL's spectral projected gradient. The ridge solution on ``K_d`` is
    ``(K_d + alpha I) gamma + b 1 = y``, ``1^T gamma = 0`` (a bordered Cholesky
    solve); ``||w_k||^2 = d_k^2 gamma^T K_k gamma``. Certificate: ``J(d)`` minus the
    dual value at ``c = alpha gamma``. ``sample_weight`` (positive; leave weight-0
    samples out before the call): the loss ``1/2 sum_i w_i (y_i - f(x_i))^2``, whose
    dual has ``- 1/2 c^T W^-1 c`` for ``- 1/2 ||c||^2`` and the system
    ``K_d + alpha W^-1``.

    Returns
    -------
    MKLResult
        ``alpha`` holds ``gamma``: predictions are
        ``sum_k weights[k] K_k(x, .) @ gamma + b``.

    Examples
    --------
    >>> import numpy as np
    >>> from proxlearn.mkl import lp_mkl_krr
    >>> x = np.random.default_rng(0).normal(size=(40, 2))
    >>> Ks = np.exp(-(x[:, None, :] - x[None, :, :]) ** 2)  # (40, 40, 2): a kernel per feature
    >>> res = lp_mkl_krr(Ks, np.sin(2 * x[:, 0]), alpha=0.1, p=2.0)
    >>> round(float(np.linalg.norm(res.weights, 2)), 6), bool(res.weights[0] > res.weights[1])
    (1.0, True)

    See Also
    --------
    LpMKLKernelRidge : the estimator.
    lp_mkl : the classification problem.
    """
    y = np.asarray(y, dtype=np.float64)
    passes = StackPasses(Ks)
    alpha = float(alpha)
    kernel = [None]

    def solve(d):
        kernel[0] = passes.combine(d)
        gamma, b = _ridge_dual(kernel[0], y, alpha, fit_intercept, sample_weight)
        c = alpha * gamma  # W times the residual y - f
        a = alpha * _a(Ks, gamma, passes)  # c^T K_k c / alpha
        cc = c @ c if sample_weight is None else c @ (c / sample_weight)
        value = float(y @ c - 0.5 * cc - 0.5 * d @ a)
        return SVMDual(alpha=gamma, b=b, value=value), a

    def newton(d, sol, grad):
        # the SVM's Newton step on the ridge system: every gamma_i free, the bordered
        # matrix [K_d + alpha I, 1; 1^T, 0], and u = sqrt(alpha) gamma so that its
        # Hessian v_j^T M^-1 v_k carries the factor alpha of a_k = alpha gamma^T K_k gamma
        # (without intercept the bordered Hessian is an approximation: Armijo decides)
        u = np.sqrt(alpha) * sol.alpha
        Kr = np.array(kernel[0], dtype=np.float64, copy=True)
        Kr.flat[:: Kr.shape[0] + 1] += alpha if sample_weight is None else alpha / sample_weight
        box = 2.0 * float(np.abs(u).max()) + 1.0  # no bound is active
        return _simplex_newton(Ks, Kr, np.where(u < 0, -1.0, 1.0), box, np.abs(u), d, grad)

    if float(p) == 1.0:
        return simplex_descent(solve, _uniform(Ks.shape[2]), tol, max_iter, newton=newton,
                               name="lp_mkl_krr")
    return lp_alternation(solve, Ks.shape[2], p, tol, max_iter, name="lp_mkl_krr")


# --------------------------------------------------------------------------- estimators
_PARAMS_DOC = """
    spectrum : {"clip", "flip", "shift", "square"} or None, default="clip"
        How each similarity matrix of a stack becomes a kernel (consistent test
        map; :class:`proxlearn.transforms.SpectrumTransformer`). ``None``: used as
        given; the learned combination must then be PSD (one Cholesky test after
        the solver), else ``fit`` raises :class:`SimilarityMatrixError`.
    tol : float, default=1e-4
        Relative duality gap at which the solver stops.
    max_iter : int, default=200
    bank : KernelBank or None, default=None
        ``None``: ``X`` is an ``(n, n, m)`` stack of similarities (pairwise
        input). A :class:`proxlearn.mkl.KernelBank`: ``X`` is a feature matrix
        and the base kernels are the bank's (``spectrum`` is not applied).
    normalize : bool, default=True
        Divide each matrix of a stack (after ``spectrum``), and its test rows, by
        its training scale ``tr K_k / n`` (``scales_``): scaling a matrix changes
        no prediction. ``False``: the matrices as given. With a ``bank`` the
        bank's own ``normalize`` scales the kernels."""

_ATTRS_DOC = """
    Attributes
    ----------
    weights_ : ndarray of shape (m,)
        The learned kernel weights ``d``.
    dual_coef_ : ndarray of shape (n_train,)
        The coefficients of the training samples in the decision on ``K_d``.
    coef_ : ndarray of shape (n_train, m)
        ``dual_coef_`` times each kernel's weight.
    intercept_ : float
    objective_, gap_ : float
        ``J`` at ``weights_`` and its certified duality gap.
    n_iter_ : int
    result_ : MKLResult
    scales_ : ndarray of shape (m,)
        The divisor of each matrix (``normalize``; ones with a ``bank``).
    spectra_ : list of SpectrumTransformer
    n_kernels_, n_features_in_ : int
"""


class _MKLDecision(_MKLKernels, PairwiseMixin):
    """Fit and decision of one MKL problem (no classes): ``sum_k d_k K_k(x, .) @
    dual_coef_ + intercept_``."""

    _psd = "learned"

    def _fit_kernels(self, X):
        validate_params(self)
        Ks = self._kernels(X)
        return Ks

    def _store(self, Ks, res):
        self._check_learned(Ks, Ks, res, None)
        n, _, m = Ks.shape
        self.result_ = res
        self.weights_ = res.weights
        self.dual_coef_ = res.alpha
        self.coef_ = res.alpha[:, None] * res.kernel_weights[None, :]
        self.intercept_ = float(res.b)
        self.objective_, self.gap_, self.n_iter_ = res.objective, res.gap, res.n_iter
        self.n_features_in_ = self.bank_.n_features_in_ if getattr(self, "bank", None) \
            is not None else n
        self.n_train_, self.n_kernels_ = n, m
        return self

    def _decision(self, X_test):
        return self._decision_stack(self._test_kernels(X_test))

    def _decision_stack(self, T):
        """The decision on test kernels ``T`` (``(n_test, n_train, m)``, dense or lazy)."""
        u = self.dual_coef_
        sv = np.flatnonzero(u)
        out = np.full(T.shape[0], self.intercept_)
        if sv.size:
            w = self.result_.kernel_weights
            if isinstance(T, np.ndarray):
                out += stack_combine(T, w)[:, sv] @ u[sv]
            else:  # lazy: the support vectors' columns only
                out += stack_combine(stack_take(T, np.arange(T.shape[0]), sv), w) @ u[sv]
        return out


class _MKLRegression(_MKLDecision, RegressorMixin, BaseEstimator):
    """Fit and predict of the MKL regressors: ``_solve(Ks, y)`` is the solver."""

    def fit(self, X, y, sample_weight=None):
        """Learn the kernel weights and the regression on their combination.

        Parameters
        ----------
        X : array-like of shape (n, n, m) or (n, n), or (n, n_features) with a ``bank``
        y : array-like of shape (n,)
            Real targets.
        sample_weight : array-like of shape (n,), optional
            Non-negative weight of each sample's loss (README "Sample weights"): the
            spectrum modification and ``scales_`` are of the whole stack; a weight-0
            sample is left out of the problem (its ``dual_coef_`` is 0).

        Returns
        -------
        self
        """
        Ks = self._fit_kernels(X)
        n = Ks.shape[0]
        y = check_targets(y, n, rows_of=self._rows_of())
        return self._store(Ks, self._solve_weighted(Ks, y, check_sample_weight(sample_weight, n)))

    def _solve_weighted(self, Ks, y, w):
        """``_solve`` with validated weights ``w`` (``None``: all 1): the samples of
        weight 0 are left out of the solver and get dual coefficient 0."""
        if w is None:
            return self._solve(Ks, y)
        keep = np.flatnonzero(w > 0)
        if keep.size == w.size:
            return self._solve(Ks, y, w)
        res = copy.copy(self._solve(stack_take(Ks, keep, keep), y[keep], w[keep]))
        dual = np.zeros(w.size)
        dual[keep] = res.alpha
        res.alpha = dual
        return res

    def predict(self, X):
        """Predicted targets for ``(n_test, n_train, m)`` test rows (or test features
        with a ``bank``)."""
        return self._predict_stack(self._test_kernels(X))

    def _predict_stack(self, T):
        return self._decision_stack(T)

    def _grid_point(self, bank_, Ks, y, T):
        """One entry of :meth:`grid_predictions` (the grid-path protocol): fitted on
        the bank's stack ``Ks``, the predictions on its test stack ``T``."""
        self._use_prebuilt(bank_, Ks)
        self._store(Ks, self._solve(Ks, check_targets(y, Ks.shape[0], rows_of="X")))
        return self._predict_stack(T)


class SimpleMKLRegressor(_MKLRegression):
    __doc__ = """SimpleMKL for epsilon-SVR: kernel weights on the simplex and an SVR on
    their combination.

    ``min_{d in simplex} J(d)``, ``J(d)`` the epsilon-SVR dual optimum on
    ``sum_k d_k K_k`` (Rakotomamonjy, Bach, Canu & Grandvalet, JMLR 2008, extensions),
    by SimpleMKL's simplex descent with a certified duality gap
    (:func:`proxlearn.mkl.simple_mkl_svr`). Input: an ``(n, n, m)`` stack of
    similarities, or features with ``bank=KernelBank()``.

    Parameters
    ----------
    C : float, default=1.0
        The SVR's box, for targets of unit deviation when ``normalize_y``.
    epsilon : float, default=0.1
        The insensitive zone, in units of the target's deviation when
        ``normalize_y`` (else of ``y``).""" + _PARAMS_DOC + """
    normalize_y : bool, default=True
        Fit on ``(y - mean) / std`` of the training targets and map predictions
        back, so that ``C`` and ``epsilon`` are relative to the target's spread
        (ours: scikit-learn's ``SVR`` reads them in the units of ``y``, where
        ``epsilon=0.1`` ignores every target that varies by less). ``False``:
        the literal SVR.
    solver : {"spg", "reduced-gradient"}, default="spg"
        As :class:`SimpleMKL`: spectral projected gradient, or SimpleMKL's own
        reduced gradient with Armijo.
    """ + _ATTRS_DOC + """    y_mean_, y_scale_ : float
        The target's standardisation (0 and 1 without ``normalize_y``).

    Examples
    --------
    >>> import numpy as np
    >>> from proxlearn.mkl import SimpleMKLRegressor
    >>> x = np.random.default_rng(0).normal(size=(40, 2))
    >>> S = np.exp(-(x[:, None, :] - x[None, :, :]) ** 2)  # (40, 40, 2): a kernel per feature
    >>> reg = SimpleMKLRegressor().fit(S, np.sin(2 * x[:, 0]))
    >>> np.round(reg.weights_, 2).tolist(), round(reg.score(S, np.sin(2 * x[:, 0])), 2)
    ([1.0, 0.0], 0.99)

    See Also
    --------
    simple_mkl_svr : the solver.
    LpMKLKernelRidge : Lp-norm MKL with the squared loss.
    SimpleMKL : the classifier.
    sklearn.svm.SVR : the SVR on one kernel.
    """

    def __init__(self, C=1.0, epsilon=0.1, *, spectrum="clip", tol=1e-4, max_iter=200,
                 bank=None, normalize=True, normalize_y=True, solver="spg"):
        self.C = C
        self.epsilon = epsilon
        self.spectrum = spectrum
        self.tol = tol
        self.max_iter = max_iter
        self.bank = bank
        self.normalize = normalize
        self.normalize_y = normalize_y
        self.solver = solver

    _parameter_constraints = mkl_constraints(
        "C", "normalize", "spectrum", "tol", "max_iter", "bank",
        epsilon=positive(allow_zero=True),
        normalize_y=boolean("True fits on the standardised target."),
        solver=options(*SIMPLE_MKL_SOLVERS))

    def _solve(self, Ks, y, sample_weight=None):
        target = fit_target_scale(self, y, self.normalize_y, sample_weight)
        return simple_mkl_svr(Ks, target, self.C, self.epsilon, tol=self.tol,
                              max_iter=self.max_iter, solver=self.solver,
                              sample_weight=sample_weight)

    def _predict_stack(self, T):
        return self.y_mean_ + self.y_scale_ * self._decision_stack(T)


def _p_at_least_one(p):
    return isinstance(p, numbers.Real) and not isinstance(p, bool) and np.isfinite(p) and p >= 1


class LpMKLKernelRidge(_MKLRegression):
    __doc__ = """Lp-norm MKL kernel ridge regression: kernel weights on an Lp sphere and
    kernel ridge regression on their combination.

    ``min_{d >= 0, ||d||_p <= r} min_{w, b} 1/2 sum_i (y_i - f(x_i))^2 + alpha/2
    sum_k ||w_k||^2 / d_k`` (Kloft, Brefeld, Sonnenburg & Zien, JMLR 2011, with the
    squared loss): the closed-form update ``d_k ~ ||w_k||^(2/(p+1))`` alternated with
    the ridge solve (``p > 1``), or SimpleMKL's simplex descent (``p = 1``), stopped
    at a certified duality gap (:func:`proxlearn.mkl.lp_mkl_krr`). On one kernel
    (``m = 1``, where ``d = 1``) it is :class:`sklearn.kernel_ridge.KernelRidge` with
    an intercept. Input: an ``(n, n, m)`` stack, or features with ``bank=KernelBank()``.

    Parameters
    ----------
    alpha : float, default=1.0
        Ridge regularisation (``KernelRidge``'s ``alpha``).
    p : float >= 1, default=2.0
        The norm of the weights (``1``: sparse, SimpleMKL's simplex).
    radius : {"average", "unit"}, default="average"
        ``r`` of the weights' ball. ``"average"``: ``r = m^(1/p - 1)``, the ball
        whose sphere holds the uniform weights ``1/m`` (the average kernel), so
        that ``alpha`` acts on kernels of the scale of the average kernel and of
        ``p = 1``'s convex combinations, for every ``p`` and ``m`` (ours). ``"unit"``:
        ``r = 1``, Kloft et al.'s literal ball, on which the uniform combination
        is ``m^(1 - 1/p)`` times the average kernel (8.8 times with ``p = 2`` and
        the 78 kernels of a 5-feature bank): ``alpha`` then shrinks with ``m``
        (R^2 0.13 instead of 0.19 on bupa-drinks at ``alpha = 1``;
        docs/benchmarks.md). Both give the same models up to ``alpha``: ``"unit"``
        with ``alpha`` is ``"average"`` with ``alpha m^(1/p - 1)``.""" + _PARAMS_DOC + """
    fit_intercept : bool, default=True
        An unregularised intercept ``b`` (``1^T gamma = 0``); ``False``: none, as
        ``KernelRidge``.
    """ + _ATTRS_DOC + """
    Examples
    --------
    >>> import numpy as np
    >>> from proxlearn.mkl import LpMKLKernelRidge
    >>> x = np.random.default_rng(0).normal(size=(40, 2))
    >>> S = np.exp(-(x[:, None, :] - x[None, :, :]) ** 2)  # (40, 40, 2): a kernel per feature
    >>> reg = LpMKLKernelRidge(alpha=0.1).fit(S, np.sin(2 * x[:, 0]))
    >>> bool(reg.weights_[0] > reg.weights_[1]), round(reg.score(S, np.sin(2 * x[:, 0])), 2)
    (True, 1.0)

    See Also
    --------
    lp_mkl_krr : the solver.
    SimpleMKLRegressor : the epsilon-insensitive loss on the simplex.
    LpMKL : the classifier.
    sklearn.kernel_ridge.KernelRidge : ridge regression on one kernel.
    """

    def __init__(self, alpha=1.0, p=2.0, *, radius="average", spectrum="clip", tol=1e-4,
                 max_iter=200, bank=None, normalize=True, fit_intercept=True):
        self.alpha = alpha
        self.p = p
        self.radius = radius
        self.spectrum = spectrum
        self.tol = tol
        self.max_iter = max_iter
        self.bank = bank
        self.normalize = normalize
        self.fit_intercept = fit_intercept

    _parameter_constraints = {
        "alpha": positive(),
        "p": satisfies(_p_at_least_one, "a finite number >= 1"),
        "radius": options("average", "unit"),
        **mkl_constraints("normalize", "spectrum", "tol", "max_iter", "bank"),
        "fit_intercept": boolean("True fits an unregularised intercept."),
    }

    def _solve(self, Ks, y, sample_weight=None):
        # on the ball of radius r: K_{r d} = r K_d, i.e. the unit ball's problem with
        # alpha / r (the same objective), whose weights are r times and dual
        # coefficients 1 / r times those of the problem solved
        r = Ks.shape[2] ** (1.0 / self.p - 1.0) if self.radius == "average" else 1.0
        res = lp_mkl_krr(Ks, y, self.alpha / r, self.p, tol=self.tol,
                         max_iter=self.max_iter, fit_intercept=self.fit_intercept,
                         sample_weight=sample_weight)
        out = copy.copy(res)
        out.weights, out.kernel_weights = r * res.weights, r * res.kernel_weights
        out.alpha = res.alpha / r
        return out


class SimpleMKLOneClass(_MKLDecision, OutlierMixin, BaseEstimator):
    __doc__ = """SimpleMKL for the one-class SVM: novelty detection with learned kernel
    weights on the simplex.

    ``min_{d in simplex} J(d)``, ``J(d) = max -1/2 alpha^T K_d alpha`` over ``0 <=
    alpha_i <= 1/(nu n)``, ``1^T alpha = 1`` (Schoelkopf et al. 2001's dual;
    Rakotomamonjy et al. 2008, extensions), with a certified duality gap
    (:func:`proxlearn.mkl.simple_mkl_one_class`). The outlier-detector contract of
    scikit-learn: ``score_samples`` (``K_d(x, .) @ alpha``, larger is more normal),
    ``decision_function = score_samples - offset_`` (``offset_ = rho``),
    ``predict`` in ``{-1, +1}`` (``-1``: outlier).

    Parameters
    ----------
    nu : float in (0, 1], default=0.5
        Upper bound on the fraction of training outliers, lower bound on the
        fraction of support vectors (``OneClassSVM``'s ``nu``).""" + _PARAMS_DOC + """
    solver : {"spg", "reduced-gradient"}, default="spg"
    """ + _ATTRS_DOC + """    offset_ : float
        ``rho``: the threshold of ``score_samples``.

    Examples
    --------
    >>> import numpy as np
    >>> from proxlearn.mkl import SimpleMKLOneClass
    >>> x = np.random.default_rng(0).normal(size=(40, 2))
    >>> S = np.exp(-(x[:, None, :] - x[None, :, :]) ** 2)  # (40, 40, 2): a kernel per feature
    >>> det = SimpleMKLOneClass(nu=0.1).fit(S)
    >>> bool(np.mean(det.predict(S) == -1) <= 0.15), bool(np.isclose(det.weights_.sum(), 1))
    (True, True)

    See Also
    --------
    simple_mkl_one_class : the solver.
    sklearn.svm.OneClassSVM : the one-class SVM on one kernel.
    SimpleMKLRegressor : SimpleMKL for regression.
    """

    def __init__(self, nu=0.5, *, spectrum="clip", tol=1e-4, max_iter=200, bank=None,
                 normalize=True, solver="spg"):
        self.nu = nu
        self.spectrum = spectrum
        self.tol = tol
        self.max_iter = max_iter
        self.bank = bank
        self.normalize = normalize
        self.solver = solver

    _parameter_constraints = {
        "nu": satisfies(lambda v: isinstance(v, numbers.Real) and not isinstance(v, bool)
                        and 0 < v <= 1, "a number in (0, 1]"),
        **mkl_constraints("normalize", "spectrum", "tol", "max_iter", "bank"),
        "solver": options(*SIMPLE_MKL_SOLVERS),
    }

    def fit(self, X, y=None):
        """Learn the kernel weights and the one-class SVM (``y`` is ignored).

        Parameters
        ----------
        X : array-like of shape (n, n, m) or (n, n), or (n, n_features) with a ``bank``
        y : ignored

        Returns
        -------
        self
        """
        return self._fit_on(self._fit_kernels(X))

    def _fit_on(self, Ks):
        res = simple_mkl_one_class(Ks, self.nu, tol=self.tol, max_iter=self.max_iter,
                                   solver=self.solver)
        self._store(Ks, res)
        self.offset_ = -self.intercept_
        return self

    def _grid_point(self, bank_, Ks, y, T):
        """One entry of :meth:`grid_predictions`: the labels in {-1, +1} of ``T``."""
        self._use_prebuilt(bank_, Ks)
        return self._fit_on(Ks)._labels(self._decision_stack(T))

    @staticmethod
    def _labels(decision):
        return np.where(decision < 0, -1, 1)

    def score_samples(self, X):
        """``K_d(x, .) @ alpha``: larger is more normal."""
        return self._decision(X) - self.intercept_

    def decision_function(self, X):
        """``score_samples - offset_``: negative for outliers."""
        return self._decision(X)

    def predict(self, X):
        """``+1`` for inliers, ``-1`` for outliers."""
        return self._labels(self.decision_function(X))
