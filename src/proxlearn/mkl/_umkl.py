"""Unsupervised multiple kernel learning (UMKL): kernel weights from unlabelled data.

With ``m`` base kernels ``K_t`` over ``n`` points, the points' representation
``X`` (columns ``x_i``; only its Gram matrix ``P = X^T X`` is used) and the
squared distances ``M_ij = P_ii + P_jj - 2 P_ij``:

============  ================================================================
problem       ``min_{mu, D} 1/2 ||X (I - K o D)||_F^2 + gamma1 1^T (K o D o M) 1``
              ``s.t. K = sum_t mu_t K_t, mu in simplex, D in {0, 1}^{n x n},``
              ``d_ii = 0, |d_i| = B`` (eq. 5.3; column ``d_i`` marks the local
              bases of ``x_i``, which is reconstructed as ``X (kappa_i o d_i)``)
mu-step       ``min_{mu in simplex} mu^T W mu + u^T mu`` (eq. 5.4, corrected)
D-step        per point, greedy: ``B`` times add the ``j`` with the smallest
              increase of ``J(d) = d^T (kappa kappa^T o P) d + w^T d`` (eq. 5.6)
init of D     the ``B`` nearest neighbours in ``M`` (``init="knn"``), or the
              first ``B`` points on the Lasso path of eq. 5.5 (``init="lasso"``)
============  ================================================================

References
----------
J. Zhuang, *Kernel Learning: Methods and Applications*, PhD thesis, 2011,
chapter 5: eqs. 5.1-5.3 (problem), 5.4 (mu-step), 5.5 (sparse-coding
initialisation), 5.6 (greedy D-step), Protocol 4 (the alternation) and
section 5.3 (``B = 10``).

Erratum followed: the printed ``W`` of eq. 5.4 is ``n x n``; the mu-step uses
the ``m x m`` Gram matrix consistent with the thesis's ``u``, with
``gamma1 = 1/2``, ``d_ii = 0``, our start of ``D`` and our stopping rule
(docs/methods.md, section "UMKL: errata, solver and cost"). The mu-step is solved
exactly (:func:`_mu_step`, around :func:`proxlearn.solvers.solve_simplex_qp`)
and certified by its KKT residual. Our additions in :class:`UMKL`: on a
precomputed stack, ``P`` from a reference kernel and a shift of each kernel
with negative entries to non-negative ones; each kernel divided by its mean
diagonal (same section). ``distortion="abs"`` is the option of
docs/methods.md, section "UMKL's distortion term"; the default
``distortion="both"`` averages the weights learned under the printed and the
absolute distortion (section "UMKL's default: both readings").
"""

from __future__ import annotations

import copy
import numbers
import warnings

import numpy as np
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.validation import _check_feature_names_in, check_is_fitted

from .._multi_input import check_multi_similarity, check_multi_test
from .._validation import (
    FeatureMatrixError,
    InvalidParameterError,
    check_features,
    check_int,
    check_option,
    check_positive,
    integer,
    options,
    positive,
    unchecked,
    validate_params,
)
from ..base import PairwiseMixin, row_chunks
from ..solvers import SolverResult, simplex_qp_kkt_residual, solve_simplex_qp
from ..transforms import modify_spectrum
from ._bank import LazyKernelStack, stack_combine, stack_entries, stack_mean_diagonal
from ._classifiers import MKL_CONSTRAINTS

__all__ = ["UMKL", "UMKLResult", "umkl", "umkl_objective"]

INITS = {"knn", "lasso"}
DISTORTIONS = {"abs", "signed"}
#: the readings that UMKL(distortion="both") learns and averages
READINGS = ("signed", "abs")


def _combine(Ks, w):
    """``sum_t w_t Ks[:, :, t]``; the only full read of the base kernels (a dense
    stack or a :class:`~proxlearn.mkl.LazyKernelStack`)."""
    return stack_combine(Ks, np.asarray(w, dtype=np.float64))


def _entries(Ks, rows, cols):
    """``(len(rows), m)``: every base kernel at the entries ``(rows[k], cols[k])``."""
    return stack_entries(Ks, np.asarray(rows), np.asarray(cols))


class UMKLResult(SolverResult):
    """Output of :func:`umkl` (a :class:`~proxlearn.solvers.SolverResult`).

    ``x`` (alias ``weights``: ``mu`` on the simplex) and ``basis`` (``D`` as
    ``(n, B)`` indices: row ``i`` lists the bases of point ``i``, in the order
    they were chosen) are the best recorded pair, ``kernel = sum_t weights[t] K_t``;
    ``fun`` (alias ``objective``) is (5.3) there (without the constant
    ``gamma2 n B``), ``kkt_residual`` the scaled KKT residual of its mu-step.
    ``objective_history`` holds (5.3) after every mu-step, ``nit`` (alias
    ``n_iter``) their number; ``success`` (alias ``converged``) is False
    (``status`` 1) when ``max_iter`` stopped a still decreasing run.

    Examples
    --------
    >>> import numpy as np
    >>> from proxlearn.mkl import umkl
    >>> x = np.random.default_rng(1).normal(size=(20, 3))
    >>> res = umkl(np.exp(-(x[:, None, :] - x[None, :, :]) ** 2), x @ x.T, B=3)
    >>> res.kernel.shape, res.basis.shape, len(res.objective_history) == res.n_iter
    ((20, 20), (20, 3), True)

    See Also
    --------
    umkl : the solver that returns it.
    proxlearn.solvers.SolverResult : the base class.
    """

    _aliases = {"weights": "x", "objective": "fun", "n_iter": "nit", "converged": "success"}

    def __init__(self, weights, basis, kernel, objective, kkt_residual, n_iter, converged,
                 objective_history=None):
        super().__init__(x=weights, basis=basis, kernel=kernel, fun=objective,
                         kkt_residual=kkt_residual, nit=n_iter,
                         objective_history=(np.zeros(0) if objective_history is None
                                            else objective_history),
                         **self.stopping(converged))


def _scaled(Ks, f):
    """The stack with kernel ``t`` multiplied by ``f[t]`` (a lazy stack: a copy whose
    kernels carry the factor; the stack itself when every factor is 1)."""
    if np.all(f == 1.0):
        return Ks
    if isinstance(Ks, np.ndarray):
        return Ks * f
    out = copy.copy(Ks)
    out.scales = Ks.scales * f
    out._dense, out._tables = {}, {}
    return out


def _sq_dists(P):
    """``M_ij = P_ii + P_jj - 2 P_ij``, the squared distances of the representation."""
    d = np.diag(P)
    return np.maximum(d[:, None] + d[None, :] - 2.0 * P, 0.0)


def _check_B(B, n):
    B = check_int(B, "B", 1)
    if B >= n:
        raise InvalidParameterError(
            f"B={B} local bases per point, but there are only n_samples = {n} points and a "
            f"point is never its own basis (d_ii = 0), so B <= n - 1 = {n - 1}. Choose a "
            "smaller B or fit on more points (in cross-validation n is the training-fold size)."
        )
    return B


def _check_basis(basis, n, B):
    """An explicit initial ``D`` as ``(n, B)`` indices."""
    arr = np.asarray(basis)
    if arr.shape != (n, B) or arr.dtype.kind not in "iu":
        raise InvalidParameterError(
            f"init as an array must be ({n}, {B}) integer indices (the B bases of each "
            f"point), got shape {arr.shape} and dtype {arr.dtype}."
        )
    arr = arr.astype(np.intp)
    srt = np.sort(arr, axis=1)
    if (arr.min() < 0 or arr.max() >= n or np.any(arr == np.arange(n)[:, None])
            or np.any(srt[:, 1:] == srt[:, :-1])):
        raise InvalidParameterError(
            f"init rows must hold B distinct indices in [0, {n}) other than the row's "
            "own index (d_ii = 0)."
        )
    return arr


def _knn_basis(M, B):
    """The ``B`` nearest other points of each point (ties: lower index first)."""
    n = M.shape[0]
    D = M.copy()
    D[np.arange(n), np.arange(n)] = np.inf
    return np.argsort(D, axis=1, kind="stable")[:, :B].astype(np.intp)


def _lasso_basis(P, M, B):
    """Eq. 5.5 binarised: the first ``B`` points active on the Lasso path of
    ``min_d 1/2 ||x_i - sum_{j != i} d_j x_j||^2 + gamma2 ||d||_1`` (LARS on the
    Gram matrix ``P``), filled up with the nearest points if the path stops early."""
    from sklearn.linear_model import lars_path_gram

    n = P.shape[0]
    out = np.empty((n, B), dtype=np.intp)
    for i in range(n):
        others = np.delete(np.arange(n), i)
        with warnings.catch_warnings():  # degenerate (rank-deficient) paths: filled below
            warnings.simplefilter("ignore", ConvergenceWarning)
            _, _, coefs = lars_path_gram(P[others, i], P[np.ix_(others, others)],
                                         n_samples=1, method="lasso", max_iter=3 * B)
        counts = np.count_nonzero(coefs, axis=0)
        hit = np.flatnonzero(counts >= B)
        col = coefs[:, hit[0]] if hit.size else coefs[:, -1]
        k = min(B, int(np.count_nonzero(col)))
        chosen = others[np.argsort(-np.abs(col), kind="stable")[:k]]
        if chosen.size < B:
            order = np.argsort(M[i], kind="stable")
            extra = order[(order != i) & ~np.isin(order, chosen)]
            chosen = np.concatenate([chosen, extra[:B - chosen.size]])
        out[i] = chosen
    return out


def _mu_problem(Ks, P, M, basis, gamma1, distortion="signed"):
    """``W`` (``m x m``) and ``u`` (``m``) of the mu-step for the basis ``D``,
    from the base-kernel entries on the support of ``D`` only. ``distortion="abs"``:
    the distortion of kernel ``t`` is ``|K_t| o D o M`` (linear in ``mu``)."""
    n, B = basis.shape
    m = Ks.shape[2]
    W = np.zeros((m, m))
    u = np.zeros(m)
    for sl in row_chunks(n, 16 * B * m + 8 * B * B):
        bs = basis[sl]
        r = bs.shape[0]
        rows = bs.ravel()
        cols = np.repeat(np.arange(sl.start, sl.stop), B)
        E = _entries(Ks, rows, cols).reshape(r, B, m)  # E[i, b, t] = K_t[basis[i, b], i]
        Pb = P[bs[:, :, None], bs[:, None, :]]  # (r, B, B) blocks P[B_i, B_i]
        G = np.matmul(Pb, E)  # (r, B, m)
        E2 = E.reshape(r * B, m)
        W += E2.T @ G.reshape(r * B, m)  # sum_i a_i^T P a_i on the support
        if distortion == "abs":
            u += np.abs(E2).T @ (2.0 * gamma1 * M[rows, cols]) - E2.T @ (2.0 * P[rows, cols])
        else:
            u += E2.T @ (2.0 * (gamma1 * M[rows, cols] - P[rows, cols]))
    return 0.5 * (W + W.T), u


def _objective(trP, W, u, mu):
    """(5.3) from the mu-step data: ``(tr P + mu^T W mu + u^T mu) / 2``."""
    return 0.5 * (trP + float(mu @ W @ mu) + float(u @ mu))


def _mu_step(W, u, mu0, *, tol=1e-10, batch=8):
    """``argmin_{mu in simplex} mu^T W mu + u^T mu``; returns ``(mu, kkt_residual)``.

    A working-set (column-generation) method around the library's exact
    simplex-QP solver :func:`proxlearn.solvers.solve_simplex_qp` (``Q = 2 W``,
    ``c = -u``; active set, KKT-certified, tested against cvxpy): solve the QP
    exactly on a working set ``S`` of kernels, compute the full gradient
    ``g = 2 W mu + u`` and its multiplier ``nu = mu^T g``, add the (at most
    ``batch``) kernels outside ``S`` with the most negative ``g_j - nu``, and
    repeat until none is negative beyond ``tol`` (scaled as the residual of
    :func:`proxlearn.solvers.simplex_qp_kkt_residual`, which certifies the
    result on all ``m`` kernels). Each addition strictly lowers the restricted
    optimum, so it terminates. ``S`` starts at the support of ``mu0`` (the
    previous weights) or at the best single kernel.

    UMKL's weights are sparse, so the exact subproblems stay small (why a working
    set: docs/methods.md, section "UMKL: errata, solver and cost").
    """
    m = u.size
    Q, c = 2.0 * W, -u
    scale = max(float(np.abs(Q).sum(axis=1).max()), float(np.abs(c).max()))
    scale = scale if scale > 0 else 1.0
    in_S = np.zeros(m, dtype=bool)
    if mu0 is None or not np.any(mu0 > 0):
        in_S[np.argmin(np.diag(W) + u)] = True  # the best vertex
    else:
        in_S[mu0 > 0] = True
    x0 = None if mu0 is None else mu0
    mu = np.zeros(m)
    for _ in range(m):
        S = np.flatnonzero(in_S)
        xs = None if x0 is None or not np.any(x0[S] > 0) else x0[S] / x0[S].sum()
        mu_S, _ = solve_simplex_qp(Q[np.ix_(S, S)], c[S], x0=xs)
        mu = np.zeros(m)
        mu[S] = mu_S
        g = Q[:, S] @ mu_S - c  # gradient of 1/2 mu^T Q mu - c^T mu
        viol = np.where(in_S, np.inf, (g - mu @ g) / scale)
        add = np.argsort(viol, kind="stable")[:batch]
        add = add[viol[add] < -tol]
        if add.size == 0:
            break
        in_S[add] = True
        x0 = mu
    return mu, float(simplex_qp_kkt_residual(Q, c, mu))


def _d_step(K, P, M, B, gamma1, distortion="signed"):
    """Greedy eq. 5.6 for every point at once: ``(n, B)`` indices in the order chosen.

    For point ``i`` with ``kappa = K[:, i]``: ``U = kappa kappa^T o P``,
    ``w = 2 gamma1 kappa o m_i - 2 kappa o p_i``; the increase of ``J`` when
    ``j`` joins the current set ``S`` is ``U_jj + w_j + 2 sum_{l in S} U_lj``.
    The last sum is kept as a running vector (``+= 2 U_{j*, :}`` per step).
    ``distortion="abs"``: ``|kappa| o m_i`` in place of ``kappa o m_i``.
    """
    n = K.shape[0]
    basis = np.empty((n, B), dtype=np.intp)
    Kt = np.ascontiguousarray(K.T)  # Kt[i, j] = kappa_i[j] = K[j, i]
    dP = np.diag(P)
    for sl in row_chunks(n, 40 * n):
        kap = Kt[sl]
        r = kap.shape[0]
        ar = np.arange(r)
        own = np.arange(sl.start, sl.stop)
        # increase from the empty set: U_jj + w_j (P, M symmetric: column i = row i)
        dist = np.abs(kap) if distortion == "abs" else kap
        inc = kap * kap * dP + 2.0 * (gamma1 * dist * M[sl] - kap * P[sl])
        inc[ar, own] = np.inf  # d_ii = 0
        for b in range(B):
            j = np.argmin(inc, axis=1)
            basis[sl, b] = j
            inc[ar, j] = np.inf
            if b + 1 < B:
                inc += 2.0 * (kap[ar, j][:, None] * kap) * P[j]  # 2 U_{j, :}
    return basis


def _same_sets(a, b):
    return np.array_equal(np.sort(a, axis=1), np.sort(b, axis=1))


def _check_P(P, n):
    P = np.asarray(P, dtype=np.float64)
    if P.shape != (n, n):
        raise InvalidParameterError(
            f"P must be the ({n}, {n}) Gram matrix of the points' representation "
            f"(X X^T for features), got shape {P.shape}."
        )
    if not np.all(np.isfinite(P)):
        raise InvalidParameterError("P contains NaN or inf; pass a finite Gram matrix.")
    return 0.5 * (P + P.T)


def umkl_objective(Ks, P, weights, basis, *, gamma1=0.5, distortion="signed"):
    """Objective (5.3) of ``(mu, D)``: ``1/2 ||X (I - K o D)||_F^2 + gamma1 1^T (K o D o M) 1``.

    With ``c_i = kappa_i o d_i`` this is
    ``sum_i 1/2 (P_ii - 2 c_i^T p_i + c_i^T P c_i) + gamma1 c_i^T m_i``
    (``K = sum_t weights[t] Ks[:, :, t]``, ``D`` given as ``(n, B)`` indices).
    ``distortion="signed"`` (default) is (5.3) as printed; ``"abs"`` takes the
    distortion term as ``gamma1 sum_t weights[t] 1^T (|K_t| o D o M) 1`` (see
    :func:`umkl`).

    Examples
    --------
    >>> import numpy as np
    >>> x = np.random.default_rng(0).normal(size=(30, 2))
    >>> S = np.exp(-(x[:, None, :] - x[None, :, :]) ** 2)  # (30, 30, 2): a kernel per feature
    >>> from proxlearn.mkl import umkl, umkl_objective
    >>> res = umkl(S, x @ x.T, B=5)
    >>> round(umkl_objective(S, x @ x.T, res.weights, res.basis), 3), round(res.objective, 3)
    (11.63, 11.63)

    See Also
    --------
    umkl : minimises this objective.
    """
    n = Ks.shape[0]
    P = _check_P(P, n)
    basis = np.asarray(basis, dtype=np.intp)
    check_option(distortion, "distortion", DISTORTIONS)
    W, u = _mu_problem(Ks, P, _sq_dists(P), basis, float(gamma1), distortion)
    return _objective(float(np.trace(P)), W, u, np.asarray(weights, dtype=np.float64))


def umkl(Ks, P, *, B=10, gamma1=0.5, max_iter=30, tol=1e-6, init="knn",
         distortion="signed") -> UMKLResult:
    """Unsupervised MKL (Zhuang 2011, Protocol 4) on a stack of base kernels.

    Parameters
    ----------
    Ks : array-like of shape (n, n, m), or a :class:`~proxlearn.mkl.LazyKernelStack`
        Base kernels stacked on the last axis (read only through
        :func:`_combine` and :func:`_entries`; used as given, not symmetrised).
    P : ndarray of shape (n, n)
        Gram matrix of the points' representation (``X X^T`` for features
        ``X``), PSD for the mu-step to be convex.
    B : int, default=10
        Local bases per point, ``1 <= B <= n - 1`` (Table 5.3 uses 10).
    gamma1 : float, default=0.5
        Weight of the distortion term; 1/2 is the value implied by eqs. 5.4
        and 5.6.
    max_iter : int, default=30
        Maximum number of mu-steps (ours: the thesis gives no cap).
    tol : float, default=1e-6
        Stop when the objective decreases by less than ``tol`` times its
        magnitude (ours).
    init : {"knn", "lasso"} or ndarray of shape (n, B), default="knn"
        Initial ``D``: the ``B`` nearest neighbours in ``M``, the first ``B``
        points on the Lasso path of eq. 5.5, or explicit indices.
    distortion : {"signed", "abs"}, default="signed"
        ``"signed"``: eq. 5.3 as printed; a kernel with negative entries between
        distant points earns a negative distortion (the linear kernel of a bank
        on z-scored features takes the weight, with a negative objective).
        ``"abs"`` (ours): each distance weighted by the absolute kernel value,
        ``|k_ij| ||x_i - x_j||^2`` as in Theorem 5.32's bound (in the mu-step
        ``sum_t mu_t |K_t|``, which equals ``|K|`` where the base kernels agree
        in sign; the D-step uses ``|K|``).

    Returns
    -------
    UMKLResult

    Warns
    -----
    ConvergenceWarning
        When ``max_iter`` stops a run whose objective still decreases.

    Examples
    --------
    >>> import numpy as np
    >>> x = np.random.default_rng(0).normal(size=(30, 2))
    >>> S = np.exp(-(x[:, None, :] - x[None, :, :]) ** 2)  # (30, 30, 2): a kernel per feature
    >>> from proxlearn.mkl import umkl
    >>> res = umkl(S, x @ x.T, B=5)  # P: the Gram matrix of the features
    >>> np.round(res.weights, 3).tolist(), round(res.objective, 3)
    ([1.0, 0.0], 11.63)

    See Also
    --------
    UMKL : the estimator (a kernel transformer; ``P`` from the kernels by default).
    umkl_objective : the objective (5.3) of given weights and bases.
    UMKLResult : the result's fields.
    """
    if not isinstance(Ks, LazyKernelStack):  # a bank's kernels are valid by construction
        Ks = check_multi_similarity(Ks, name="Ks", symmetric="allow",
                                    dissimilarity_check=False, copy=False)
    return _umkl(Ks, P, B=B, gamma1=gamma1, max_iter=max_iter, tol=tol, init=init,
                 distortion=distortion)


def _umkl(Ks, P, *, B, gamma1, max_iter, tol, init, distortion) -> UMKLResult:
    """:func:`umkl` on a validated stack (dense or lazy), for :class:`UMKL`, which
    validated its input; checks the parameters and ``P``."""
    n = Ks.shape[0]
    P = _check_P(P, n)
    B = _check_B(B, n)
    gamma1 = check_positive(gamma1, "gamma1", allow_zero=True)
    max_iter = check_int(max_iter, "max_iter", 1)
    tol = check_positive(tol, "tol", allow_zero=True)
    check_option(distortion, "distortion", DISTORTIONS)
    M = _sq_dists(P)
    if isinstance(init, str):
        check_option(init, "init", INITS)
        basis = _knn_basis(M, B) if init == "knn" else _lasso_basis(P, M, B)
    else:
        basis = _check_basis(init, n, B)
    trP = float(np.trace(P))
    mu = None  # the first mu-step starts from the best single kernel (_mu_step)
    history = []
    best = None
    converged = False
    for _ in range(max_iter):
        W, u = _mu_problem(Ks, P, M, basis, gamma1, distortion)
        mu, res = _mu_step(W, u, mu)
        f = _objective(trP, W, u, mu)
        prev = history[-1] if history else None
        history.append(f)
        K = _combine(Ks, mu)
        if best is None or f < best[0]:
            best = (f, mu, basis, res, K)
        if prev is not None and f > prev - tol * max(abs(prev), np.finfo(float).tiny):
            converged = True  # stopped decreasing
            break
        new = _d_step(K, P, M, B, gamma1, distortion)
        if _same_sets(new, basis):
            converged = True  # fixed point: the next mu-step would repeat this one
            break
        basis = new
    if not converged:
        last = (f" (last decrease {history[-2] - history[-1]:.3g})"
                if len(history) > 1 else "")
        warnings.warn(
            f"umkl stopped at max_iter={max_iter} before the objective stopped decreasing"
            f"{last}; the best iterate is returned. Increase max_iter or tol.",
            ConvergenceWarning, stacklevel=3)
    f, mu, basis, res, K = best
    return UMKLResult(weights=mu, basis=basis, kernel=K, objective=f, kkt_residual=res,
                      n_iter=len(history), converged=converged,
                      objective_history=np.asarray(history))


class UMKL(PairwiseMixin, TransformerMixin, BaseEstimator):
    """Unsupervised multiple kernel learning (Zhuang 2011, ch. 5) as a kernel transformer.

    Learns convex weights ``mu`` of ``m`` base kernels without labels, so that
    each point is well reconstructed from ``B`` local bases weighted by the
    kernel values, with kernel values small between distant points (see
    :func:`umkl` and the module docstring). ``fit`` takes the ``(n, n, m)``
    stack of base kernels (an ``(n, n)`` matrix is ``m = 1``); ``transform``
    maps ``(n_test, n_train, m)`` test rows to rows of the learned kernel
    ``sum_t mu_t K_t``, and ``fit_transform`` returns the learned training
    kernel, so that ``make_pipeline(UMKL(), SVC(kernel="precomputed"))`` works
    under scikit-learn's pairwise slicing.

    The points' representation ``P`` (their Gram matrix; ``M`` their squared
    distances) is, by default, the feature map of the average base kernel
    (``reference="average"``, **our extension**: the thesis has features and
    ``P = X^T X``); its negative eigenvalues, if any, are clipped. With
    features pass ``fit(X, features=Z)`` for ``P = Z Z^T``.

    Parameters
    ----------
    B : int, default=10
        Local bases per point (Table 5.3), at most ``n - 1``.
    gamma1 : float, default=0.5
        Distortion weight; 1/2 is implied by the thesis's eqs. 5.4 and 5.6.
    max_iter : int, default=30
        Maximum number of alternations (ours; the thesis gives none).
    tol : float, default=1e-6
        Relative decrease of the objective below which the alternation stops
        (ours).
    init : {"knn", "lasso"}, default="knn"
        Initial local bases: ``B`` nearest neighbours (ours), or the first ``B``
        points on the Lasso path of eq. 5.5.
    reference : "average" or int, default="average"
        Kernel whose feature map represents the points: the average base
        kernel, or base kernel number ``reference``. Ignored with ``features``.
    bank : KernelBank or None, default=None
        ``None``: ``X`` is the stack of base kernels (pairwise input). A
        :class:`~proxlearn.mkl.KernelBank`: ``X`` is a feature matrix, the base
        kernels are the bank's and ``P = Z Z^T`` on the bank's standardised
        features ``Z`` (the thesis's setting, Tables 5.2-5.3); ``transform``
        then takes test features. Not pairwise.
    shift : {"nonnegative"} or None, default="nonnegative"
        On a precomputed stack (``bank=None``), add to each base kernel with a
        negative training entry the constant that makes its smallest entry 0
        (``kernel_offsets_``; test rows alike) before ``normalize`` (ours).
        Objective (5.3) is linear in the kernel values, so a kernel with
        negative entries (a cosine or correlation similarity of centred
        features) earns a negative distortion and takes the weight
        (docs/methods.md, section "MKL classifiers at their defaults", on
        ``UMKL`` on stacks). A constant added to a PSD kernel changes no SVM
        with a bias.
        ``None``: the kernels as given (the thesis; its bank's kernels are not
        shifted either way).
    normalize : {"diagonal"} or None, default="diagonal"
        Divide each base kernel by its mean training diagonal before learning
        (ours): the weights then do not depend on each kernel's scale, and the
        learned kernel has mean diagonal about 1, the scale an SVM's default
        ``C`` expects. ``None``: the kernels as given (the thesis; with its
        unit-trace bank the learned kernel is ``n`` times smaller than an SVM's
        default ``C`` expects; docs/methods.md, section "Zhuang ch. 4-5 at their
        defaults").
    distortion : {"both", "signed", "abs"}, default="both"
        Distortion term of (5.3): as printed (``"signed"``), with absolute
        kernel values, ``|k_ij| ||x_i - x_j||^2`` as in the bound of
        Theorem 5.32 (``"abs"``, ours), or both (``"both"``, ours, the
        default): learn the weights under each reading and average them (the
        mean of the two learned kernels, still a convex combination of the base
        kernels). With signed values a kernel with negative entries between
        distant points (the linear and cubic kernels of
        :class:`~proxlearn.mkl.KernelBank` on z-scored features) lowers the
        objective by choosing far points as "local" bases: with a bank the
        linear kernel takes the weight on every UCI set of Table 5.2; ``"abs"``
        lets Gaussians take it, which helps where a linear kernel is not
        enough and costs accuracy on most other sets. The average keeps both
        (docs/methods.md, section "UMKL's default: both readings"). On
        non-negative kernels (a shifted stack) the readings coincide and
        ``"both"`` runs once. See :func:`umkl`.

    Attributes
    ----------
    weights_ : ndarray of shape (m,)
        Kernel weights ``mu`` on the simplex (of the normalised kernels);
        with ``distortion="both"`` the mean of ``readings_``' weights.
    readings_ : dict
        The weights learned under each reading run (``"signed"``, ``"abs"``;
        one entry unless ``distortion="both"`` ran both).
    kernel_offsets_ : ndarray of shape (m,)
        The constant added to each base kernel (``shift``; zeros when none).
    kernel_scales_ : ndarray of shape (m,)
        The divisor of each base kernel (its mean training diagonal; ones with
        ``normalize=None``).
    basis_ : ndarray of shape (n, B)
        Local bases ``D``: row ``i`` lists the training indices of point
        ``i``'s bases (never ``i``). With ``distortion="both"``, this and
        ``objective_``, ``objective_history_``, ``n_iter_``, ``kkt_residual_``
        are those of the ``"abs"`` run (of the one run on non-negative kernels).
    kernel_ : ndarray of shape (n, n)
        The learned training kernel
        ``sum_t mu_t (K_t + kernel_offsets_[t]) / kernel_scales_[t]``.
    objective_ : float
        Objective (5.3) at the returned iterate (the best recorded).
    objective_history_ : ndarray of shape (``n_iter_``,)
        Objective (5.3) after every mu-step.
    n_iter_ : int
    kkt_residual_ : float
        Scaled KKT residual of the returned weights' simplex QP.
    n_features_in_ : int
        Number of training samples ``n`` (the width of test rows).
    n_kernels_ : int
        Number of base kernels ``m``.

    Examples
    --------
    >>> import numpy as np
    >>> x = np.random.default_rng(0).normal(size=(30, 2))
    >>> S = np.exp(-(x[:, None, :] - x[None, :, :]) ** 2)  # (30, 30, 2): a kernel per feature
    >>> from proxlearn.mkl import UMKL
    >>> umkl = UMKL(B=5).fit(S)
    >>> np.round(umkl.weights_, 3).tolist(), umkl.transform(S[:3]).shape
    ([1.0, 0.0], (3, 30))

    See Also
    --------
    umkl : the solver, on a kernel stack and a given ``P``.
    KernelBank : Zhuang's base kernels (``bank=KernelBank()`` on features).
    SimpleMKL : supervised MKL.
    """

    def __init__(self, B=10, gamma1=0.5, max_iter=30, tol=1e-6, init="knn",
                 reference="average", bank=None, shift="nonnegative", normalize="diagonal",
                 distortion="both"):
        self.B = B
        self.gamma1 = gamma1
        self.max_iter = max_iter
        self.tol = tol
        self.init = init
        self.reference = reference
        self.bank = bank
        self.shift = shift
        self.normalize = normalize
        self.distortion = distortion

    _parameter_constraints = {
        # a non-string init is refused before the table, with the pointer to umkl()
        "init": options(*INITS),
        "gamma1": positive(allow_zero=True),
        "tol": positive(allow_zero=True),
        "max_iter": integer(1),
        "distortion": options("both", *DISTORTIONS),
        "normalize": options("diagonal", None),
        "shift": options("nonnegative", None),
        "B": integer(1),  # and B <= n, compared with the data by _check_B in fit
        "reference": unchecked("'average' or a kernel index, compared with m in _reference"),
        "bank": MKL_CONSTRAINTS["bank"],
    }

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.pairwise = self.bank is None
        tags.input_tags.sparse = self.bank is not None  # features: densified
        return tags

    def _reference(self, Ks):
        m = Ks.shape[2]
        ref = self.reference
        if isinstance(ref, str):
            check_option(ref, "reference", {"average"})
            w = np.full(m, 1.0 / m)
        elif isinstance(ref, numbers.Integral) and not isinstance(ref, bool) and 0 <= ref < m:
            w = np.zeros(m)
            w[int(ref)] = 1.0
        else:
            raise InvalidParameterError(
                f"reference must be 'average' or a base-kernel index in [0, {m}), got {ref!r}."
            )
        P = _combine(Ks, w)
        P = 0.5 * (P + P.T)
        lam, V = np.linalg.eigh(P)
        # clip (the PSD part is the Gram matrix of a representation) when an eigenvalue
        # is negative beyond rounding, n eps max|lambda| (transforms' default tolerance)
        if lam[0] < -P.shape[0] * np.finfo(float).eps * np.abs(lam).max():
            new, _ = modify_spectrum(lam, "clip")
            P = (V * new) @ V.T
            P = 0.5 * (P + P.T)
        return P

    def fit(self, X, y=None, *, features=None):
        """Learn the kernel weights.

        Parameters
        ----------
        X : array-like of shape (n, n, m) or (n, n)
            Base kernels over the ``n`` training samples, stacked on the last
            axis (symmetrised).
        y : ignored
        features : array-like of shape (n, d), optional
            Features of the training samples: ``P = features @ features.T``
            (the thesis's setting) instead of the reference kernel.
        """
        if not isinstance(self.init, str):
            raise InvalidParameterError(
                f"init must be 'knn' or 'lasso', got {type(self.init).__name__}; explicit "
                "initial bases are taken by proxlearn.mkl.umkl(..., init=array).")
        validate_params(self)
        if self.bank is not None:
            from sklearn.base import clone

            self.bank_ = clone(self.bank).fit(X)
            Ks = self.bank_.stack()
            features = self.bank_.Z_
        else:
            Ks = check_multi_similarity(X, symmetric="symmetrize")
        n, _, m = Ks.shape
        self.kernel_offsets_ = np.zeros(m)
        if self.shift == "nonnegative" and self.bank is None:
            self.kernel_offsets_ = np.maximum(-Ks.min(axis=(0, 1)), 0.0)
            if np.any(self.kernel_offsets_):
                Ks = Ks + self.kernel_offsets_
        d = stack_mean_diagonal(Ks)
        self.kernel_scales_ = (np.where(d > 0, d, 1.0) if self.normalize == "diagonal"
                               else np.ones(m))
        Ks = _scaled(Ks, 1.0 / self.kernel_scales_)
        _check_B(self.B, n)
        if features is None:
            P = self._reference(Ks)
        else:
            Z = check_features(features, name="features")
            if Z.shape[0] != n:
                raise FeatureMatrixError(
                    f"features has {Z.shape[0]} rows but X is over n = {n} samples; pass "
                    "one feature row per training sample, in X's order."
                )
            P = Z @ Z.T
        readings = (self.distortion,)
        if self.distortion == "both":
            # the readings coincide on non-negative kernels (a shifted stack): one run
            nonneg = (self.bank is None and (self.shift == "nonnegative"
                                              or float(np.min(Ks)) >= 0.0))
            readings = ("signed",) if nonneg else READINGS
        runs = {d: _umkl(Ks, P, B=self.B, gamma1=self.gamma1, max_iter=self.max_iter,
                         tol=self.tol, init=self.init, distortion=d) for d in readings}
        # "both": the mean of the readings' weights, i.e. the mean of their kernels
        weights = np.mean([r.weights for r in runs.values()], axis=0)
        res = runs[readings[-1]]  # "both": the attributes below are the "abs" run's
        self.readings_ = {d: r.weights for d, r in runs.items()}
        self._test_weights = weights / self.kernel_scales_
        self.weights_ = weights
        self.basis_ = res.basis
        self.kernel_ = res.kernel if len(runs) == 1 else _combine(Ks, weights)
        self.objective_ = res.objective
        self.objective_history_ = res.objective_history
        self.n_iter_ = res.n_iter
        self.kkt_residual_ = res.kkt_residual
        self.n_features_in_ = n if self.bank is None else self.bank_.n_features_in_
        self.n_train_ = n
        self.n_kernels_ = m
        return self

    def get_feature_names_out(self, input_features=None):
        """Names of the output columns, the training samples: the input's column
        names on a precomputed stack (``x0, x1, ...`` without a DataFrame), and
        ``umkl0, umkl1, ...`` with a ``bank`` (whose input columns are features)."""
        check_is_fitted(self, "weights_")
        if self.bank is None:
            return _check_feature_names_in(self, input_features)
        return np.asarray([f"umkl{i}" for i in range(self.n_train_)], dtype=object)

    def fit_transform(self, X, y=None, *, features=None):
        """Fit and return the learned training kernel ``kernel_`` (a copy), ``(n, n)``."""
        return self.fit(X, y, features=features).kernel_.copy()

    def transform(self, X):
        """Rows of the learned kernel: ``sum_t mu_t (X[:, :, t] + kernel_offsets_[t])
        / kernel_scales_[t]``.

        Parameters
        ----------
        X : array-like of shape (n_test, n_train, m) or (n_test, n_train) when m = 1
            Base-kernel values between test and training samples, the kernels
            on the last axis in the training order.

        Returns
        -------
        K_test : ndarray of shape (n_test, n_train)
        """
        check_is_fitted(self, "weights_")
        if self.bank is not None:
            return _combine(self.bank_.stack(X), self._test_weights)
        T = check_multi_test(X, self.n_features_in_, self.n_kernels_, name="X")
        return _combine(T, self._test_weights) + self._test_weights @ self.kernel_offsets_
