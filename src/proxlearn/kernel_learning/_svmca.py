"""SVM-CA: joint SVM and kernel component analysis for indefinite kernels.

Gu & Guo, "Learning SVM Classifiers with Indefinite Kernels" (AAAI 2012),
eqs. 17-25. A KPCA-like transform ``V`` (``n x d``, ``V^T K0 V = I_d``) maps
the symmetric, possibly indefinite training similarity ``K0`` to the PSD proxy
kernel ``K_v = K0 V V^T K0`` (eq. 9), shared by all one-vs-one SVMs (eq. 20)::

    max_{alpha_ab} min_V  sum_ab [ e^T alpha_ab - 1/2 beta_ab^T K_v beta_ab ]
                          - rho tr(V^T K0 K0 V)

solved by alternating libsvm alpha-steps with closed-form V-steps
(:func:`v_step`: the symmetric eigenproblem of ``M^{1/2} K0 M^{1/2}``, no
inverse of ``K0``), keeping the iterate with the smallest gap
(:func:`svmca_path`). Test rows: ``k_v = K0 V V^T k0`` (section 2.1).

The derivation, the erratum on the V-step for an indefinite ``K0``, the
stopping rule and the values recorded in ``history_`` are in docs/methods.md,
"Kernel-learning reference notes" (SVM-CA).
"""

from __future__ import annotations

import numbers
import warnings
from dataclasses import dataclass

import numpy as np
import scipy.linalg
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.validation import check_is_fitted

from .._validation import (
    NORMALIZE,
    InvalidParameterError,
    LabelError,
    check_labels,
    check_similarity,
    check_test_similarity,
    integer,
    options,
    positive,
    satisfies,
    unchecked,
    validate_params,
)
from .._linalg import top_eigh, top_eigh_warm
from ..base import PairwiseMixin
from ..solvers import SolverResult
from .._svm._platt import PlattProbabilityMixin
from ..exceptions import ComponentsClampedWarning
from .._svm._multiclass import _OvOLinearMixin, fit_pairs, ovo_labels, ovo_problems, scatter_pairs
from .._normalize import ScaleNormalizeMixin
from .._svm._libsvm import MAX_ITER, binary_libsvm, binary_svc

__all__ = [
    "PREPROCESS_OPTIONS",
    "SVMCA",
    "ComponentsClampedWarning",
    "svmca_path",
    "v_step",
    "v_step_nonsymmetric",
]

#: Pre-processing options of the paper (section 4, digest 3.2).
PREPROCESS_OPTIONS = ("symmetrize", "dissimilarity")
#: What to do when ``n_components`` exceeds the number of positive eigenvalues.
EXCESS_OPTIONS = ("raise", "clamp")


#: Rank of the proxy kernel with ``n_components="auto"`` (at most ``d0``).
AUTO_COMPONENTS = 10


def _eig_tol(eigenvalues) -> float:
    """Zero-eigenvalue tolerance ``n * eps * max|lambda|`` (as ``default_tol``)."""
    lam = np.asarray(eigenvalues)
    if lam.size == 0:
        return 0.0
    return float(lam.size * np.finfo(np.float64).eps * np.max(np.abs(lam)))


# --------------------------------------------------------------------------
# V-step
# --------------------------------------------------------------------------


def _sqrt_factors(beta, rho):
    """Low-rank square roots of ``M = rho I + 1/2 beta^T beta`` (eq. 22).

    Returns ``(Q, up, down)`` with ``M^{1/2} X = sqrt(rho) X + Q (up * Q^T X)``
    and ``M^{-1/2} X = X / sqrt(rho) + Q (down * Q^T X)``; ``Q`` (``n x r``) is an
    orthonormal basis of the span of the rows of ``beta``.
    """
    if beta.size == 0 or not np.any(beta):
        return np.zeros((beta.shape[1], 0)), np.zeros(0), np.zeros(0)
    Q, s, _ = scipy.linalg.svd(beta.T, full_matrices=False, check_finite=False)
    keep = s > _eig_tol(s)
    Q, s = Q[:, keep], s[keep]
    m = rho + 0.5 * s**2  # eigenvalues of M on span(Q)
    sr = np.sqrt(rho)
    return Q, np.sqrt(m) - sr, 1.0 / np.sqrt(m) - 1.0 / sr


#: ``eigen_solver="auto"`` takes the warm-started Lanczos V-step from this many
#: samples on when the previous V-step's top-``d`` eigenvalues were separated
#: from the next by at least :data:`ITERATIVE_MIN_GAP` (``b_d / b_{d+1}``).
#: Measured with ``benchmarks/bench_svmca.py --v-step`` (random indefinite
#: 3-class problems, one thread, second V-step): Lanczos was 6.3x (n = 1000,
#: gap 1.20) and 22x (n = 2000, gap 1.59) faster than the dense route for
#: d = 5, but 0.5x (n = 1000, gap 1.011) and 1.0x (n = 2000, gap 1.003) for
#: d = 13, where the wanted eigenvalues sit in the bulk and Lanczos restarts
#: many times; at n = 400 it gained at most 2x. 1.1 is a conservative cut
#: between the measured gaps.
ITERATIVE_MIN_N = 1000
ITERATIVE_MIN_GAP = 1.1
V_STEP_SOLVERS = ("auto", "dense", "arpack")


def _use_iterative(eigen_solver, n, d, start, gap):
    if start is None or eigen_solver == "dense" or d + 1 >= n:
        return False
    if eigen_solver == "arpack":
        return True
    return n >= ITERATIVE_MIN_N and gap is not None and gap >= ITERATIVE_MIN_GAP


def v_step(K0, beta, rho, d, *, start=None, eigen_solver="dense", gap=None, info=None):
    """Solve the V-step (eq. 21) by the symmetric route of digest section 2.5.

    Parameters
    ----------
    K0 : ndarray of shape (n, n)
        Symmetric (possibly indefinite) training kernel.
    beta : ndarray of shape (n_pairs, n)
        Rows ``beta_ab`` (``y_i alpha_i`` on the samples of pair ``(a, b)``).
    rho : float
        Trade-off ``rho > 0``.
    d : int
        Number of components, ``1 <= d <= #{lambda(K0) > 0}``.

    Returns
    -------
    P : ndarray of shape (n, d)
        ``K0 V`` (so ``K_v = P P^T``).
    V : ndarray of shape (n, d)
        The transform, ``V^T K0 V = I_d``.
    value : float
        The optimum ``tr(V^T K0 M K0 V) = sum of the top-d eigenvalues of
        M^{1/2} K0 M^{1/2}``.

    Other Parameters
    ----------------
    start : ndarray of shape (n, d), optional
        The previous iterate's ``P``: ``M^{1/2} P`` spans (nearly) the wanted
        eigenvectors ``W`` (``P = M^{-1/2} W sqrt(b)``); their sum is the
        starting vector of the iterative solver.
    eigen_solver : {"dense", "arpack", "auto"}
        ``"dense"``: form ``B = M^{1/2} K0 M^{1/2}`` and take its top ``d + 1``
        eigenpairs with LAPACK (``subset_by_index``; its tridiagonal reduction
        is ``O(n^3)`` however small ``d`` is). ``"arpack"`` (needs ``start``):
        Lanczos on ``X -> M^{1/2} K0 M^{1/2} X`` without forming ``B``
        (:func:`proxlearn._linalg.top_eigh_warm`, ARPACK ``tol=1e-12``;
        eigenvalues agree with the dense ones to rounding, eigenvectors to
        about ``1e-12`` over the relative gap), ``O(n^2)`` per product; the
        dense route if ARPACK does not converge. ``"auto"``: ``"arpack"``
        when ``start`` is given, ``n >=`` :data:`ITERATIVE_MIN_N` and the
        previous step's ``gap >=`` :data:`ITERATIVE_MIN_GAP`, else ``"dense"``.
    gap : float, optional
        ``b_d / b_{d+1}`` of the previous V-step (for ``"auto"``).
    info : dict, optional
        Receives ``"solver"`` (the route taken) and ``"gap"`` (this step's
        ``b_d / b_{d+1}``; inf if ``b_{d+1} <= 0``, NaN if ``d = n``).
    """
    n = K0.shape[0]
    Q, up, down = _sqrt_factors(beta, rho)
    sr = np.sqrt(rho)

    def half(X):
        return sr * X + Q @ (up[:, None] * (Q.T @ X))

    def ihalf(X):
        return X / sr + Q @ (down[:, None] * (Q.T @ X))

    out, solver = None, "dense"
    k = min(d + 1, n)  # one more pair: the gap that decides the next step's route
    if _use_iterative(eigen_solver, n, d, start, gap):
        out = top_eigh_warm(lambda X: half(K0 @ half(X)), n, k, half(start).sum(axis=1))
        solver = "arpack"
    if out is None:
        B = half(half(K0).T)
        B = 0.5 * (B + B.T)
        out = top_eigh(B, k)
        solver = "dense"
    b, W = out
    b, W = b[::-1], W[:, ::-1]
    if info is not None:
        info["solver"] = solver
        info["gap"] = (float(b[d - 1] / b[d]) if b[d] > 0 else np.inf) if k > d else np.nan
    b, W = b[:d], W[:, :d]
    if b[-1] <= 0.0:
        raise InvalidParameterError(
            f"the V-step needs d={d} positive eigenvalues of M^(1/2) K0 M^(1/2) but "
            f"the {d}-th largest is {b[-1]:.3g}; choose a smaller n_components."
        )
    rb = np.sqrt(b)
    P = ihalf(W) * rb
    V = half(W) / rb
    return P, V, float(b.sum())


def v_step_nonsymmetric(K0, beta, rho, d):
    """The paper's route for the V-step (eqs. 23-25), for comparison only.

    Eigenvectors ``u_i`` of the non-symmetric ``M K0`` for the ``d`` largest
    eigenvalues, ``v_i = K0^{-1} M^{-1} u_i`` (two linear solves), renormalised
    to ``v_i^T K0 v_i = 1``. Needs a nonsingular ``K0`` (the paper's footnote 1
    adds ``eps I``). Returns ``(P = K0 V, V, value)`` like :func:`v_step`.
    """
    n = K0.shape[0]
    M = rho * np.eye(n) + 0.5 * beta.T @ beta
    ev, U = scipy.linalg.eig(M @ K0)
    order = np.argsort(-ev.real)[:d]
    U = U[:, order].real
    V = np.linalg.solve(K0, np.linalg.solve(M, U))
    V = V / np.sqrt(np.einsum("ij,ij->j", V, K0 @ V))
    P = K0 @ V
    value = float(np.trace(V.T @ K0 @ M @ P))
    return P, V, value


# --------------------------------------------------------------------------
# alternating optimisation
# --------------------------------------------------------------------------


@dataclass
class _AlphaStep:
    """One-vs-one SVMs on a fixed kernel: ``beta`` rows, intercepts, flags."""

    beta: np.ndarray  # (n_pairs, n)
    intercept: np.ndarray  # (n_pairs,)
    saturated: bool  # some alpha at the bound C
    svm_iter: np.ndarray


#: SMO iterations per training sample after which an alpha-step SVM is handed to
#: the low-rank primal QP (:func:`_lowrank_svm_qp`); see :func:`_binary_svm`.
SMO_ITER_PER_SAMPLE = 200


def _lowrank_svm_qp(F, ypm, C):
    """The binary C-SVM on ``K = F F^T`` solved in the primal over ``d`` features.

    ``min 1/2 |w|^2 + C sum xi`` s.t. ``y_i (F_i w + b) >= 1 - xi_i``, ``xi >= 0``:
    ``d + 1 + n`` variables and ``2 n`` linear inequalities, solved with
    Clarabel's own interface (an interior point method: about ten iterations
    whatever the conditioning; cvxpy's compilation would cost more than the
    solve on these sizes). The duals of the margin rows are the SVM's
    ``alpha``. The interior point stops just inside the box, and the bound
    flags of the study's C-reuse rely on exact bounds, so complementarity is
    enforced: ``alpha = C`` where the margin is below ``1 - 1e-5``, ``0`` where
    it is above ``1 + 1e-5``, and values within ``1e-7 C`` of a bound are set
    to it.

    Returns ``(dual_coef, support, intercept, n_iter)`` like libsvm in
    :func:`_binary_svm`, or ``None`` if Clarabel does not report a solution
    (the caller then lets libsvm finish).
    """
    import clarabel
    import scipy.sparse as sp

    n, d = F.shape
    P = sp.block_diag([sp.eye(d), sp.csc_matrix((n + 1, n + 1))], format="csc")
    q = np.concatenate([np.zeros(d + 1), np.full(n, float(C))])
    A = sp.vstack(
        [
            sp.hstack([sp.csc_matrix(-ypm[:, None] * F), sp.csc_matrix(-ypm[:, None]), -sp.eye(n)]),
            sp.hstack([sp.csc_matrix((n, d + 1)), -sp.eye(n)]),
        ],
        format="csc",
    )
    rhs = np.concatenate([-np.ones(n), np.zeros(n)])
    settings = clarabel.DefaultSettings()
    settings.verbose = False
    sol = clarabel.DefaultSolver(P, q, A, rhs, [clarabel.NonnegativeConeT(2 * n)], settings).solve()
    if str(sol.status) not in ("Solved", "AlmostSolved"):
        return None
    x = np.asarray(sol.x)
    b = float(x[d])
    margin = ypm * (F @ x[:d] + b)
    alpha = np.clip(np.asarray(sol.z)[:n], 0.0, C)
    # complementarity fixes alpha where the margin is off 1: the interior point
    # leaves such alphas a little inside the box (1e-7 C from 0, 1.5e-7 C from C)
    alpha[margin < 1.0 - 1e-5] = C
    alpha[margin > 1.0 + 1e-5] = 0.0
    alpha[alpha >= C * (1.0 - 1e-7)] = C
    alpha[alpha <= C * 1e-7] = 0.0
    support = np.flatnonzero(alpha)
    return ypm[support] * alpha[support], support, b, int(sol.iterations)


def _binary_svm(K, ypm, C, svm_tol, factor=None):
    """libsvm C-SVC on a precomputed kernel: ``(dual_coef, support, b, n_iter)``.

    Calls scikit-learn's compiled libsvm wrapper directly
    (:func:`proxlearn._svm._libsvm.binary_libsvm`): the estimator
    :class:`sklearn.svm.SVC` adds about 3 ms of input validation per fit, ten
    times the solve itself on the small pair blocks of the alpha-step
    (measured). Signs follow ``SVC``: ``f = K[:, support] @ dual_coef + b``,
    positive for ``ypm = +1``. Falls back to ``SVC`` if the private wrapper
    is unavailable.

    ``factor`` (``F`` with ``K = F F^T``, ``d`` columns) enables the low-rank
    fallback. The proxy kernel ``K_v`` has rank ``d <= 55``; at large ``C`` on
    data that are not separable in ``d`` dimensions libsvm's SMO crawls (on
    synthetic-4 with ``d = 2``, ``C = 100``: median 18 000 iterations, some
    at the 10^7 cap, 94% of a fold's time in 150 such fits). After
    ``SMO_ITER_PER_SAMPLE * n`` iterations the same QP is solved in the
    primal over the ``d`` features (:func:`_lowrank_svm_qp`, about 5 ms for
    ``n = 144``), which reaches the optimum libsvm was approaching (equal dual
    objective, and higher where libsvm stopped early; tested with the KKT
    conditions). If that solver fails, libsvm runs to its own stopping rule.
    """
    cap = MAX_ITER
    if factor is not None:
        cap = max(1, SMO_ITER_PER_SAMPLE * K.shape[0])
    fit = binary_libsvm(K, ypm, C, tol=svm_tol, max_iter=cap)
    if fit is not None and factor is not None and fit[3] >= cap:
        qp = _lowrank_svm_qp(np.asarray(factor, dtype=np.float64), ypm, C)
        if qp is not None:
            return qp[0], qp[1], qp[2], cap + qp[3]
        fit = binary_libsvm(K, ypm, C, tol=svm_tol, max_iter=MAX_ITER)
    return fit or binary_svc(K, ypm, C, tol=svm_tol, max_iter=MAX_ITER)


def _alpha_step(Kv, pairs, C, svm_tol, factor=None) -> _AlphaStep:
    """One-vs-one SVMs on the blocks ``K_v[L_ab, L_ab]`` (the paper's alpha-step).

    ``factor``: ``P`` with ``K_v = P P^T``, for the low-rank fallback of
    :func:`_binary_svm`.
    """

    def fit_binary(p):
        coef, support, b, it = _binary_svm(
            np.ascontiguousarray(Kv[np.ix_(p.idx, p.idx)]), p.y, C, svm_tol,
            None if factor is None else factor[p.idx]
        )
        u = np.zeros(p.idx.size)
        u[support] = coef
        return u, b, it, bool(np.abs(coef).max(initial=0.0) >= C * (1.0 - 1e-12))

    fits = fit_pairs(pairs, fit_binary)
    return _AlphaStep(scatter_pairs(pairs, [f[0] for f in fits], Kv.shape[0]),
                      np.array([f[1] for f in fits], dtype=np.float64),
                      any(f[3] for f in fits), np.array([f[2] for f in fits], dtype=np.int64))


class SVMCAResult(SolverResult):
    """Output of :func:`svmca_path`: the kept iterate and the history.

    A :class:`~proxlearn.solvers.SolverResult` with fields ``P`` (``K0 V`` of the
    kernel the SVMs were trained on, ``(n, d)``), ``V`` (``(n, d)``), ``beta``
    (``(n_pairs, n)``), ``intercept`` (``(n_pairs,)``), ``history``, ``nit`` (alias
    ``n_iter``), ``best_iter``, ``saturated`` (any alpha at the bound in any
    iteration) and ``success`` (alias ``converged``: the stopping rule was met, not
    ``max_iter``; ``status`` 0 or 1, ``message``).
    """

    _aliases = {"n_iter": "nit", "converged": "success"}

    def __init__(self, P, V, beta, intercept, history=None, n_iter=0, best_iter=0,
                 saturated=False, converged=False):
        super().__init__(P=P, V=V, beta=beta, intercept=intercept,
                         history=[] if history is None else history, nit=n_iter,
                         best_iter=best_iter, saturated=saturated, **self.stopping(converged))

    def coef(self) -> np.ndarray:
        """Weights on the test similarities: ``f = k0 @ coef.T + intercept``."""
        return (self.V @ (self.P.T @ self.beta.T)).T


def svmca_path(
    K0,
    pairs,
    C,
    rho,
    P0,
    V0,
    *,
    max_iter=30,
    tol=1e-3,
    svm_tol=1e-3,
    first=None,
    step=v_step,
    eigen_solver="auto",
) -> SVMCAResult:
    """Alternate alpha- and V-steps from the transform ``V0`` (``P0 = K0 V0``).

    Parameters
    ----------
    K0 : ndarray of shape (n, n)
        Symmetric training kernel (preprocessed).
    pairs : list of BinaryProblem
        One-vs-one pairs (:func:`proxlearn._svm._multiclass.ovo_problems`).
    C, rho : float
    P0, V0 : ndarray of shape (n, d)
        Starting transform (the rank-``d`` clip in :class:`SVMCA`).
    max_iter, tol, svm_tol
        See :class:`SVMCA`.
    first : _AlphaStep, optional
        A precomputed alpha-step on ``P0 P0^T`` (shared across a ``rho`` grid).
    step : callable
        The V-step (:func:`v_step` or :func:`v_step_nonsymmetric`).
    eigen_solver : {"auto", "dense", "arpack"}
        Route of :func:`v_step` (warm-started from the current ``P`` and the
        previous step's eigenvalue gap); each history entry names the route
        taken (``"v_step"``).

    Returns
    -------
    SVMCAResult
    """
    d = P0.shape[1]
    P, V = P0, V0
    best = None
    history = []
    dual_prev = None
    saturated = False
    eig_gap = None  # b_d / b_{d+1} of the previous V-step (decides the next route)
    t = 0
    for t in range(1, max_iter + 1):
        Kv = P @ P.T
        a = (first if (t == 1 and first is not None)
             else _alpha_step(Kv, pairs, C, svm_tol, factor=P))
        saturated = saturated or a.saturated
        Kb = Kv @ a.beta.T  # (n, n_pairs)
        quad = float(np.einsum("ki,ik->", a.beta, Kb))
        sum_alpha = float(np.abs(a.beta).sum())
        tr = float(np.trace(Kv))
        hinge = 0.0
        for p in pairs:
            hinge += np.maximum(0.0, 1.0 - p.y * (Kb[p.idx, p.k] + a.intercept[p.k])).sum()
        primal = 0.5 * quad + C * hinge - rho * tr
        svm_dual = sum_alpha - 0.5 * quad - rho * tr
        info = {"solver": "nonsymmetric"}
        if step is v_step:
            P_new, V_new, value = v_step(K0, a.beta, rho, d, start=P, eigen_solver=eigen_solver,
                                         gap=eig_gap, info=info)
            eig_gap = info["gap"]
        else:
            P_new, V_new, value = step(K0, a.beta, rho, d)
        dual = sum_alpha - value
        gap = primal - dual
        history.append(
            {"iter": t, "primal": primal, "dual": dual, "svm_dual": svm_dual, "gap": gap,
             "sum_alpha": sum_alpha, "svm_iter": int(a.svm_iter.sum()), "v_step": info["solver"]}
        )
        if best is None or abs(gap) < best[0]:
            best = (abs(gap), t, P, V, a)
        # scale: the SVM part sum(alpha), not |dual|, which the constant-size
        # term rho tr(K_v) dominates at large rho or kernel scale (synthetic
        # data: |dual| ~ 1e4 while sum(alpha) ~ 1, so a |dual|-relative test
        # stopped after one iteration, i.e. at the rank-d clip)
        scale = sum_alpha
        done = abs(gap) <= tol * scale or (
            dual_prev is not None and abs(dual - dual_prev) <= tol * scale
        )
        P, V = P_new, V_new
        dual_prev = dual
        if done:
            break
    _, t_best, P_b, V_b, a_b = best
    return SVMCAResult(P_b, V_b, a_b.beta, a_b.intercept, history, t, t_best, saturated,
                       converged=done)


def _preprocess_train(arr, preprocess):
    """Paper pre-processing (section 4): returns ``(K0, scale, shift)``.

    Test rows then become ``shift + scale * S_test`` (see :class:`SVMCA`).
    """
    if preprocess == "symmetrize":
        return arr + arr.T, 2.0, 0.0
    if preprocess == "dissimilarity":
        m = float(arr.max())
        K = check_similarity(m - arr, symmetric="symmetrize", dissimilarity_check=False)
        return K, -1.0, m
    return check_similarity(arr, symmetric="symmetrize", dissimilarity_check=False), 1.0, 0.0


class SVMCA(PairwiseMixin, PlattProbabilityMixin, ScaleNormalizeMixin, _OvOLinearMixin,
            ClassifierMixin, BaseEstimator):
    """Joint SVM and kernel component analysis (SVM-CA; Gu & Guo, AAAI 2012).

    Learns one PSD proxy kernel ``K_v = K0 V V^T K0`` of rank ``d`` jointly with
    the one-vs-one SVMs on it (eqs. 17-20), alternating libsvm alpha-steps and
    closed-form V-steps (eqs. 21-25) solved by the symmetric eigenproblem of
    ``M^{1/2} K0 M^{1/2}`` (docs/methods.md, "Kernel-learning reference
    notes").

    Parameters
    ----------
    C : float, default=1.0
        SVM box constraint (> 0).
    rho : float, default=1.0
        Weight of the KPCA term ``rho tr(V^T K0 K0 V)`` (> 0).
    n_components : int or "auto", default="auto"
        Rank ``d`` of the proxy kernel, at most the number ``d0`` of positive
        eigenvalues of ``K0`` (Lemma 1). ``"auto"`` is ``min(AUTO_COMPONENTS,
        d0)`` with ``AUTO_COMPONENTS = 10``. The paper tunes ``d`` over 2..55 and
        gives no default; ``"auto"`` is ours (docs/methods.md, "SVM-CA
        defaults").
    normalize : bool, default=True
        Divide ``K0`` (after ``preprocess``) and the test rows by the training
        scale ``tr K0 / n`` (:mod:`proxlearn._normalize`), so that
        ``C`` and ``rho`` do not depend on the units of ``S`` and predictions are
        unchanged by a positive factor on ``S``. ``False`` is the paper's
        reading (``K0`` as given; identical for unit-diagonal ``S``).
    eps : float, default=0.0
        Diagonal ``eps I`` added to ``K0`` before anything else (the paper's
        footnote 1, to avoid zero eigenvalues). Not needed here: no inverse of
        ``K0`` is used, so the default adds nothing. Test rows are not changed.
    max_iter : int, default=10
        Maximum number of alternations (alpha-step + V-step). The paper
        reports convergence "within 10 iterations" (Fig. 1); the alternation
        can also cycle (it is a best-response scheme on a saddle problem), in
        which case the iterate with the smallest ``|gap|`` is kept.
    tol : float, default=1e-3
        Stop when ``|gap| <= tol sum(alpha)`` or ``|dual_t - dual_{t-1}| <= tol
        sum(alpha)`` (``history_``); ``0`` runs ``max_iter`` iterations
        (unless an exact fixed point is reached). With ``tol > 0``, stopping at
        ``max_iter`` before the rule is met warns with
        :class:`sklearn.exceptions.ConvergenceWarning` naming the gap reached.
    preprocess : {None, "symmetrize", "dissimilarity"}, default=None
        ``None``: use the symmetric part ``(S + S^T) / 2`` (library policy,
        warning when asymmetric). ``"symmetrize"``: the paper's ``K0 = S^T +
        S`` (no 1/2); test rows are doubled (``2 s``, the same map when only
        the test-to-train block is known). ``"dissimilarity"``: the paper's
        ``K0 = m - D`` with ``m`` the largest training entry; test rows
        become ``m - d`` with the same ``m``.
    excess_components : {"raise", "clamp"}, default="raise"
        What happens when ``n_components > d0``: raise
        :class:`~proxlearn.exceptions.InvalidParameterError`, or use ``d0``
        with a :class:`ComponentsClampedWarning` (the study's grids do this).
    svm_tol : float, default=1e-3
        libsvm's stopping tolerance in the alpha-steps.
    eigen_solver : {"auto", "dense", "arpack"}, default="auto"
        Eigensolver of the V-steps: the top ``d``
        eigenpairs of ``M^{1/2} K0 M^{1/2}`` by LAPACK on the formed matrix
        (``"dense"``, ``O(n^3)``) or by Lanczos warm-started from the previous
        iterate (``"arpack"``, ``O(n^2)`` per product; same eigenpairs to
        rounding). ``"auto"`` takes Lanczos for ``n >= 1000`` when the previous
        step's ``b_d / b_{d+1} >= 1.1`` (measured rule, see :func:`v_step`;
        so the first step is always dense).
        ``history_`` names the route of each step.
    probability, random_state : bool, default=False; int or None, default=None
        ``predict_proba`` by Platt scaling on an internal CV, see
        :class:`~proxlearn._svm._platt.PlattProbabilityMixin`.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    kernel_ : ndarray of shape (n, n)
        The learned proxy kernel ``K_v`` the kept SVMs were trained on.
    V_ : ndarray of shape (n, ``n_components_``)
        The transform (``V^T K0 V = I``).
    embedding_ : ndarray of shape (n, ``n_components_``)
        ``K0 V``: training samples in the learned ``d``-dim space
        (``kernel_ = embedding_ @ embedding_.T``).
    dual_coef_ : ndarray of shape (n_pairs, n)
        ``y_i alpha_i`` per one-vs-one pair (zero outside the pair).
    coef_ : ndarray of shape (n_pairs, n)
        Weights on the preprocessed test similarities:
        ``f_ab(k0) = k0 @ coef_[ab] + intercept_[ab]``.
    intercept_ : ndarray of shape (n_pairs,)
    support_, n_support_ : ndarray
        Training samples with a non-zero ``alpha`` in some pair, and their
        count per class.
    history_ : list of dict
        Per iteration: ``iter``, ``primal``, ``dual``, ``svm_dual``, ``gap``,
        ``sum_alpha`` (the stopping scale), ``svm_iter`` (libsvm iterations
        summed over the pairs); see docs/methods.md, "Kernel-learning
        reference notes".
    n_iter_ : int
        Alternations run.
    best_iter_ : int
        Iteration (1-based) of the kept model.
    n_components_ : int
        Rank used (``n_components`` or ``d0`` if clamped).
    n_positive_ : int
        ``d0``, the number of positive eigenvalues of ``K0``.
    n_features_in_ : int
        Number of training samples.
    scale_ : float
        The training scale divided out (``1.0`` with ``normalize=False``).
    preprocess_scale_, preprocess_shift_ : float
        Test rows enter as ``preprocess_shift_ + preprocess_scale_ * S_test``
        (the ``preprocess`` map divided by ``scale_``).

    Examples
    --------
    >>> from proxlearn.datasets import make_noisy_blobs
    >>> from proxlearn.kernel_learning import SVMCA
    >>> S, y = make_noisy_blobs(2, 15, random_state=0)[:2]
    >>> clf = SVMCA(n_components=2).fit(S, y)
    >>> clf.predict(S[::10]).tolist(), clf.embedding_.shape
    ([0, 0, 1], (30, 2))

    See Also
    --------
    IndefiniteSVM : a full PSD kernel near ``S`` learned with the SVM.
    SimSVM : a learned spectrum modification of ``S``.
    proxlearn.svm.SimilaritySVC : a fixed spectrum modification (the paper's baselines).
    proxlearn.transforms.SpectrumTransformer : the rank-``d`` clip SVM-CA starts from.
    """

    def __init__(
        self,
        C=1.0,
        rho=1.0,
        n_components="auto",
        eps=0.0,
        max_iter=10,
        tol=1e-3,
        preprocess=None,
        excess_components="raise",
        svm_tol=1e-3,
        eigen_solver="auto",
        *,
        normalize=True,
        probability=False,
        random_state=None,
    ):
        self.C = C
        self.rho = rho
        self.normalize = normalize
        self.n_components = n_components
        self.eps = eps
        self.max_iter = max_iter
        self.tol = tol
        self.preprocess = preprocess
        self.excess_components = excess_components
        self.svm_tol = svm_tol
        self.eigen_solver = eigen_solver
        self.probability = probability
        self.random_state = random_state

    # -- validation / preparation, shared with the study's fold evaluator --

    _parameter_constraints = {
        "C": positive(),
        "rho": positive(),
        "n_components": integer(1) | options("auto"),
        "max_iter": integer(1),
        "tol": positive(allow_zero=True),
        "svm_tol": positive(),
        "eps": satisfies(lambda e: isinstance(e, numbers.Real) and not isinstance(e, bool)
                         and np.isfinite(e), "a finite real number"),
        "preprocess": options(*PREPROCESS_OPTIONS, None),
        "excess_components": options(*EXCESS_OPTIONS),
        "eigen_solver": options(*V_STEP_SOLVERS),
        "normalize": NORMALIZE,
        "probability": unchecked("read as a truth value, as scikit-learn's SVC"),
        "random_state": unchecked("sklearn.utils.check_random_state, in the probability CV"),
    }

    def _prepare(self, S, y):
        """Validate, preprocess, eigendecompose: ``(K0, classes, y_idx, lam, U)``."""
        params = validate_params(self)
        arr = check_similarity(S, symmetric="allow", dissimilarity_check=self.preprocess is None)
        classes, y_idx = check_labels(y, arr.shape[0])
        if classes.dtype.kind == "f" and np.any(classes != np.round(classes)):
            raise LabelError(
                "Unknown label type: continuous. y holds non-integer numbers; "
                "classifiers need class labels (use integers or strings)."
            )
        K0, self.preprocess_scale_, self.preprocess_shift_ = _preprocess_train(arr, self.preprocess)
        K0 = self._fit_scale(K0, params["normalize"])
        if self.scale_ != 1.0:  # test rows: (shift + scale * S_test) / c
            self.preprocess_scale_ /= self.scale_
            self.preprocess_shift_ /= self.scale_
        if self.eps:
            K0 = K0 + self.eps * np.eye(K0.shape[0])
        lam, U = scipy.linalg.eigh(K0, check_finite=False, driver="evd")
        return K0, classes, y_idx, lam, U

    def _resolve_d(self, lam) -> int:
        d0 = int(np.count_nonzero(lam > _eig_tol(lam)))
        auto = isinstance(self.n_components, str)
        d = min(AUTO_COMPONENTS, max(d0, 1)) if auto else int(self.n_components)
        if d0 == 0:
            raise InvalidParameterError(
                "the training kernel has no positive eigenvalue, so no real "
                "transform V exists (Lemma 1 of Gu & Guo 2012). Check the sign "
                "convention (is it a dissimilarity? use preprocess='dissimilarity')."
            )
        if d > d0:
            if self.excess_components == "raise":
                raise InvalidParameterError(
                    f"n_components={d} exceeds the {d0} positive eigenvalues of the "
                    "training kernel; SVM-CA needs n_components <= d0 (Lemma 1 of Gu "
                    f"& Guo 2012). Choose n_components <= {d0} or pass "
                    "excess_components='clamp'."
                )
            warnings.warn(
                f"n_components={d} exceeds the {d0} positive eigenvalues of the "
                f"training kernel; using n_components={d0}.",
                ComponentsClampedWarning,
                stacklevel=3,
            )
            d = d0
        self.n_positive_ = d0
        return d

    @staticmethod
    def _clip_start(lam, U, d):
        """Rank-``d`` clip of ``K0``: the V-step at ``alpha = 0`` (``P0, V0``)."""
        top = lam[-d:][::-1]
        Ud = U[:, -d:][:, ::-1]
        r = np.sqrt(top)
        return Ud * r, Ud / r

    def _set_result(self, res: SVMCAResult, y_idx, n):
        self.V_ = res.V
        self.embedding_ = res.P
        self.kernel_ = res.P @ res.P.T
        self.dual_coef_ = res.beta
        self.intercept_ = res.intercept
        self.coef_ = res.coef()
        self.history_ = res.history
        self.n_iter_ = res.n_iter
        self.best_iter_ = res.best_iter
        self.n_components_ = res.P.shape[1]
        nz = np.any(res.beta != 0.0, axis=0)
        self.support_ = np.flatnonzero(nz)
        self.n_support_ = np.bincount(y_idx[nz], minlength=len(self.classes_)).astype(np.int32)
        self.n_features_in_ = n

    def grid_predictions(self, S, y, S_test, params_list, *, stats=None):
        """Labels of ``S_test`` for every parameter set of ``params_list``, fitted on ``S, y``.

        One call for a whole grid (the grid-path protocol, docs/architecture.md).
        Entry ``i`` equals ``clone(self).set_params(**params_list[i]).fit(S, y).predict(S_test)``
        (tested). Shared: the preparation of ``S`` (scaling, eigendecomposition), the
        clipped start per ``n_components``, the first alpha-step per ``(d, C)``, and the
        predictions of a path on which no dual coefficient reached its bound, reused
        for every larger ``C`` (they satisfy its KKT conditions too).

        Parameters
        ----------
        S : array-like of shape (n, n)
        y : array-like of shape (n,)
        S_test : array-like of shape (m, n)
        params_list : list of dict
            Values of ``C``, ``rho`` and ``n_components`` (missing ones: this
            estimator's).
        stats : dict, optional
            Receives counters: ``paths`` (alternations run), ``iterations`` (their
            total), ``first_steps`` (shared first alpha-steps), ``reused`` (grid
            points answered by reuse or clamping).

        Returns
        -------
        list of ndarray of shape (m,)
        """
        est = clone(self)
        K0, classes, y_idx, lam, U = est._prepare(S, y)
        pairs = ovo_problems(y_idx, len(classes))
        S_test = np.asarray(S_test, dtype=np.float64)
        if est.preprocess_scale_ != 1.0 or est.preprocess_shift_ != 0.0:
            S_test = est.preprocess_shift_ + est.preprocess_scale_ * S_test
        counters = {"paths": 0, "iterations": 0, "first_steps": 0, "reused": 0}

        def d_eff(p):
            est.set_params(n_components=p.get("n_components", est.n_components))
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", ComponentsClampedWarning)
                return est._resolve_d(lam)

        # (d, rho) -> [(C, i), ...]
        groups: dict[tuple, list] = {}
        for i, p in enumerate(params_list):
            key = (d_eff(p), float(p.get("rho", self.rho)))
            groups.setdefault(key, []).append((float(p.get("C", self.C)), i))
        out: list = [None] * len(params_list)
        starts: dict[int, tuple] = {}
        firsts: dict[tuple, object] = {}  # (d, C) -> _AlphaStep
        first_free: dict[int, tuple] = {}  # d -> (C, step) of an unsaturated first step
        done: dict[tuple, np.ndarray] = {}  # (d, rho, C) -> predictions
        for (d, rho), items in sorted(groups.items()):
            if d not in starts:
                P0, V0 = est._clip_start(lam, U, d)
                starts[d] = (P0, V0, P0 @ P0.T)
            P0, V0, Kv0 = starts[d]
            free = None  # predictions of an all-unsaturated trajectory
            for C, i in sorted(items):
                if (d, rho, C) in done:
                    out[i] = done[(d, rho, C)]
                    counters["reused"] += 1
                    continue
                if free is not None:
                    out[i] = done[(d, rho, C)] = free
                    counters["reused"] += 1
                    continue
                if (d, C) not in firsts:
                    prev = first_free.get(d)
                    if prev is not None and prev[0] <= C:
                        firsts[(d, C)] = prev[1]
                    else:
                        step = _alpha_step(Kv0, pairs, C, est.svm_tol, factor=P0)
                        counters["first_steps"] += 1
                        firsts[(d, C)] = step
                        if not step.saturated and d not in first_free:
                            first_free[d] = (C, step)
                res = svmca_path(
                    K0, pairs, C, rho, P0, V0, max_iter=est.max_iter, tol=est.tol,
                    svm_tol=est.svm_tol, first=firsts[(d, C)],
                )
                counters["paths"] += 1
                counters["iterations"] += res.n_iter
                raw = S_test @ res.coef().T + res.intercept
                pred = ovo_labels(raw, classes)
                out[i] = done[(d, rho, C)] = pred
                if not res.saturated:
                    free = pred
        if isinstance(stats, dict):
            for key, val in counters.items():
                stats[key] = stats.get(key, 0) + val
        return out

    def fit(self, S, y):
        """Fit on the ``n x n`` training similarity matrix.

        Parameters
        ----------
        S : array-like of shape (n, n)
            Training similarities (or dissimilarities with
            ``preprocess="dissimilarity"``).
        y : array-like of shape (n,)
            Class labels (at least two classes; one-vs-one for more).

        Returns
        -------
        self
        """
        K0, classes, y_idx, lam, U = self._prepare(S, y)
        self.classes_ = classes
        d = self._resolve_d(lam)
        P0, V0 = self._clip_start(lam, U, d)
        res = svmca_path(
            K0, ovo_problems(y_idx, len(classes)), float(self.C), float(self.rho), P0, V0,
            max_iter=int(self.max_iter), tol=float(self.tol), svm_tol=float(self.svm_tol),
            eigen_solver=self.eigen_solver,
        )
        self._set_result(res, y_idx, K0.shape[0])
        if not res.converged and self.tol > 0:
            last = res.history[-1]
            change = (abs(last["dual"] - res.history[-2]["dual"])
                      if len(res.history) > 1 else float("nan"))
            warnings.warn(
                f"SVMCA stopped at max_iter={self.max_iter} before meeting tol={self.tol:g}: "
                f"relative gap {abs(last['gap']) / last['sum_alpha']:.3g}, relative dual "
                f"change {change / last['sum_alpha']:.3g}. The iterate with the smallest gap "
                f"(iteration {res.best_iter}) is used; increase max_iter or tol for a "
                "converged model.",
                ConvergenceWarning,
                stacklevel=2,
            )
        return self._fit_probability(S, y)

    # -- test side ---------------------------------------------------------

    def _preprocess_test(self, S_test):
        check_is_fitted(self, "coef_")
        S_test = check_test_similarity(S_test, self.n_features_in_)
        if self.preprocess_scale_ == 1.0 and self.preprocess_shift_ == 0.0:
            return S_test
        return self.preprocess_shift_ + self.preprocess_scale_ * S_test

    def _raw_decision(self, S_test):
        return self._preprocess_test(S_test) @ self.coef_.T + self.intercept_

    def embed(self, S_test):
        """Test samples in the learned space, ``V^T k0`` (shape ``(m, d)``).

        ``S_test`` holds the raw test-to-train similarities (preprocessed like
        the training matrix).
        """
        return self._preprocess_test(S_test) @ self.V_

    def transform_similarity(self, S_test):
        """Consistent test transform ``k_v = K0 V V^T k0`` (shape ``(m, n)``).

        Rows of the training matrix map to the rows of ``kernel_``.
        """
        return self.embed(S_test) @ self.embedding_.T

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = True
        return tags
