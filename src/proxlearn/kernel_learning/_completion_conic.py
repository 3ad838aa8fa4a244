"""Kernel completion with an auxiliary kernel as conic programs (Chen 2010, sec. 6.3).

=====================  ======================================================
name                   problem
=====================  ======================================================
``frobenius_complete``  (6.5): ``min ||K - sum w_i M_i||_F``, ``K`` PSD, ``K11`` kept
``complete_test_row``   (6.8): one new object's row of the completed kernel
``KernelCompleter``     estimator: ``fit(K11, K_aux)``, em (6.4) or (6.5)
``CompletionSVC``       joint SVM + completion, inductive (6.6/6.7) and
                        transductive (6.9/6.10), test rows by (6.8)
=====================  ======================================================

``M_i = v_i v_i^T`` with ``v_i`` the eigenvectors of the auxiliary kernel.
Because ``V`` is orthogonal, ``||K - V diag(w) V^T||_F = ||V^T K V - diag(w)||_F``;
cvxpy gets the left form (``n^3`` non-zeros against ``n^4``; docs/benchmarks.md,
"Kernel-learning docstrings: moved measurements"). Errata followed: "K >= 0" printed in
(6.6)/(6.9) means ``K`` PSD; the norm subscript "H" of the chapter's QCQP is
``F``; and the QCQP's constraint ``r^T K* r <= t`` must read
``r^T (K*)^+ r <= t`` (with ``r`` in the range of ``K*``) -- stated here as
the equivalent LMI ``[[K*, r], [r^T, t]]`` PSD, which is exactly that
condition (and solved as its exact second-order cone form, ``r = K*^{1/2} s``,
``||s||^2 <= t``); ``w >= 0`` in (6.8), not printed there, is imposed as in (6.3).
No solver, hyper-parameters or experiments are given in the chapter: the
defaults (``eta = gamma = 0.01``, as :class:`FullKernelSVM`) are ours.
"""

from __future__ import annotations

import numpy as np
import scipy.linalg
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.validation import check_is_fitted

from .._validation import (
    InvalidParameterError,
    SimilarityMatrixError,
    boolean,
    check_option,
    check_similarity,
    check_test_similarity,
    integer,
    only_if,
    options,
    positive,
    unchecked,
    validate_params,
)
from ..base import PairwiseMixin
from .._svm._multiclass import (
    ovo_decision,
    ovo_fit,
    ovo_labels,
    transductive_labels,
    transductive_outputs,
    unlabelled_decisions,
)
from ._completion import CompletionResult, em_complete
from ._full_kernel_svm import SOLVERS, psd_pinv_solve, solve_problem

__all__ = ["CompletionSVC", "KernelCompleter", "complete_test_row", "frobenius_complete"]


def _check_pair(K11, K_aux):
    K11 = check_similarity(K11, name="K11", symmetric="symmetrize", dissimilarity_check=False)
    A = check_similarity(K_aux, name="K_aux", symmetric="symmetrize", dissimilarity_check=False)
    if A.shape[0] <= K11.shape[0]:
        raise InvalidParameterError(
            f"K_aux ({A.shape[0]} objects) must cover more objects than K11 "
            f"({K11.shape[0]}), the first ones, in the same order: nothing to complete."
        )
    return K11, A


def _cp_frobenius_gap(cp, K, V, w):
    """``||K - V diag(w) V^T||_F`` (``= ||V^T K V - diag(w)||_F``, ``V`` orthogonal).

    Written as ``||vec(K) - (V * V) w||`` with the Khatri-Rao product ``(V * V)``
    (column ``i`` is ``vec(v_i v_i^T)``): ``n^3`` non-zeros in the cone
    constraint, where ``V^T K V`` has ``n^4`` (every entry depends on all of
    ``K``) -- at ``n = 70`` 0.34 million against 24 million, which made
    cvxpy's canonicalisation and the solver's KKT matrix the bottleneck.
    """
    n = V.shape[0]
    kr = (V[:, None, :] * V[None, :, :]).reshape(n * n, V.shape[1])
    return cp.norm(cp.vec(K, order="F") - kr @ w, 2)


def frobenius_complete(K11, K_aux, *, solver="CLARABEL", solver_options=None) -> CompletionResult:
    """Complete ``K11`` to all objects of ``K_aux`` by the conic program (6.5).

    ``min_{K12, K22, w >= 0} ||K - sum_i w_i v_i v_i^T||_F`` s.t. ``K`` PSD and
    ``K[:n1, :n1] = K11``: the convex Frobenius version of the em algorithm
    (:func:`em_complete`), which needs no positive definiteness. Labels are
    not used. An SDP with ``n^2 / 2`` variables: small ``n`` only.

    Parameters
    ----------
    K11 : array-like of shape (n1, n1)
        The known block (kept exactly).
    K_aux : array-like of shape (n, n), n > n1
        Auxiliary kernel on all objects, the ``n1`` known ones first.
    solver : {"CLARABEL", "SCS"}, default="CLARABEL"
    solver_options : dict or None, default=None
        Extra keyword arguments for ``cvxpy.Problem.solve``.

    Returns
    -------
    CompletionResult
        ``kernel`` (K11 kept exactly, PSD up to the solver's tolerance),
        ``model`` ``V diag(w) V^T``, ``weights`` ``w``, ``objective_history``
        the single optimal value.

    Examples
    --------
    >>> import numpy as np
    >>> from proxlearn.kernel_learning import frobenius_complete
    >>> X = np.random.default_rng(0).normal(size=(6, 2))
    >>> K_aux = X @ X.T + np.eye(6)
    >>> res = frobenius_complete(K_aux[:4, :4] + 0.5 * np.eye(4), K_aux)
    >>> res.kernel.shape, bool(np.linalg.eigvalsh(res.kernel).min() > -1e-6)
    ((6, 6), True)

    See Also
    --------
    em_complete : the em algorithm (6.4).
    complete_test_row : rows of the completed kernel for new objects.
    KernelCompleter : both completions as an estimator.
    """
    import cvxpy as cp

    check_option(solver, "solver", SOLVERS)
    K11, A = _check_pair(K11, K_aux)
    n1, n = K11.shape[0], A.shape[0]
    _, V = scipy.linalg.eigh(A, driver="evd")
    K = cp.Variable((n, n), PSD=True)
    w = cp.Variable(n, nonneg=True)
    prob = cp.Problem(cp.Minimize(_cp_frobenius_gap(cp, K, V, w)), [K[:n1, :n1] == K11])
    solve_problem(prob, solver, solver_options, "Frobenius kernel completion (Chen 2010 eq. 6.5)")
    Kv = np.asarray(K.value, dtype=np.float64)
    Kv = 0.5 * (Kv + Kv.T)
    Kv[:n1, :n1] = K11  # equal up to the solver's tolerance; kept exactly
    wv = np.maximum(np.asarray(w.value, dtype=np.float64), 0.0)
    return CompletionResult(Kv, (V * wv) @ V.T, wv, 1, [float(prob.value)])


def _complete_rows(K_star, A, aux_rows, aux_self, known, known_self, solver, solver_options,
                   rank_tol=1e-10):
    """(6.8) for each row of ``aux_rows`` (m, n); returns ``(R (m, n), t (m,))``.

    The LMI ``[[K*, r], [r^T, t]]`` PSD is imposed in its exact second-order
    cone form: with ``K* = U diag(lam) U^T`` (eigenvalues above
    ``rank_tol * max(lam)``), ``r = U diag(sqrt(lam)) s`` and
    ``||s||^2 <= t`` (``r`` in the range of ``K*`` and ``r^T (K*)^+ r <= t``,
    the Schur complement). One eigendecomposition of ``K*`` serves every row,
    and each row is an SOCP with ``n + rank + 2`` variables instead of an SDP
    with an ``(n + 1) x (n + 1)`` cone: much faster, and without the empty
    interior that stalls interior-point solvers when ``K*`` is singular. The
    problem is solved on ``K*`` scaled to unit mean diagonal (the objective is
    homogeneous in the kernel's scale) and scaled back.
    """
    import cvxpy as cp

    n = K_star.shape[0]
    m = aux_rows.shape[0]
    scale = float(np.mean(np.abs(np.diag(K_star))))
    if not scale > 0:
        scale = max(float(np.max(np.abs(K_star))), 1.0)
    lam, U = scipy.linalg.eigh(K_star / scale, driver="evd")
    keep = lam > rank_tol * max(float(lam.max()), 0.0) if lam.max() > 0 else np.zeros(n, bool)
    F = U[:, keep] * np.sqrt(lam[keep])  # r = F s
    Ks = K_star / scale
    R, T = np.empty((m, n)), np.empty(m)
    for q in range(m):
        ext = np.empty((n + 1, n + 1))
        ext[:n, :n] = A
        ext[:n, n] = ext[n, :n] = aux_rows[q]
        ext[n, n] = aux_self[q]
        _, B = scipy.linalg.eigh(ext, driver="evd")
        Bn, b = B[:n], B[n]  # rows of B for the training objects and the new one
        base = Bn.T @ Ks @ Bn  # the fixed part of B^T Z B
        s = cp.Variable(F.shape[1])
        t = cp.Variable()
        w = cp.Variable(n + 1, nonneg=True)
        # B^T Z B = base + u b^T + b u^T + t b b^T with u = B_n^T F s a variable of its
        # own: every entry of the gap then has 4 non-zeros, not rank + 3
        u = cp.Variable(n + 1)
        cross = cp.reshape(u, (n + 1, 1), order="F") @ b[None, :]
        gap = base + cross + cross.T + t * np.outer(b, b) - cp.diag(w)
        cons = [cp.sum_squares(s) <= t, u == (Bn.T @ F) @ s]
        if known is not None:
            n1 = known.shape[1]
            cons.append(F[:n1] @ s == known[q] / scale)
        if known_self is not None:
            cons.append(t == known_self[q] / scale)
        prob = cp.Problem(cp.Minimize(cp.norm(gap, "fro")), cons)
        solve_problem(prob, solver, solver_options, "test-row completion (Chen 2010 eq. 6.8)")
        R[q] = scale * (F @ np.asarray(s.value, dtype=np.float64).ravel())
        T[q] = scale * float(t.value)
    return R, T


def complete_test_row(K_star, K_aux, aux_rows, aux_self, *, known=None,
                      known_self=None, solver="CLARABEL", solver_options=None):
    """Rows of the completed kernel for new objects, by (6.8) (cases 1 and 2).

    For each new object ``x``:
    ``min_{r, t, w >= 0} ||[[K*, r], [r^T, t]] - sum_i w_i b_i b_i^T||_F``
    s.t. ``[[K*, r], [r^T, t]]`` PSD (the corrected constraint
    ``r^T (K*)^+ r <= t``, ``r`` in ``range(K*)``), ``b_i`` the eigenvectors
    of the auxiliary kernel extended by ``x``. One SDP of size ``n + 1`` per
    new object.

    Parameters
    ----------
    K_star : array-like of shape (n, n)
        The completed training kernel.
    K_aux : array-like of shape (n, n)
        The auxiliary kernel on the same training objects.
    aux_rows : array-like of shape (m, n)
        Auxiliary kernel between the new objects and the training objects.
    aux_self : float or array-like of shape (m,)
        ``k_aux(x, x)`` of each new object.
    known : array-like of shape (m, n1), optional
        Case 2: the kernel of interest between the new objects and the first
        ``n1`` training objects (kept fixed).
    known_self : float or array-like of shape (m,), optional
        Case 2: ``k(x, x)`` (kept fixed).

    Returns
    -------
    R : ndarray of shape (m, n)
        The completed rows ``r*``.
    t : ndarray of shape (m,)
        Their self-similarities.

    Examples
    --------
    >>> import numpy as np
    >>> from proxlearn.kernel_learning import complete_test_row
    >>> X = np.random.default_rng(0).normal(size=(6, 2))
    >>> K = X @ X.T + np.eye(6)
    >>> R, t = complete_test_row(K[:5, :5], K[:5, :5], K[5:, :5], K[5, 5])
    >>> R.shape, t.shape
    ((1, 5), (1,))

    See Also
    --------
    frobenius_complete : the completion of the training kernel.
    CompletionSVC : uses it for its test rows.
    """
    check_option(solver, "solver", SOLVERS)
    Ks = check_similarity(K_star, name="K_star", symmetric="symmetrize",
                          dissimilarity_check=False)
    A = check_similarity(K_aux, name="K_aux", symmetric="symmetrize", dissimilarity_check=False)
    if A.shape != Ks.shape:
        raise SimilarityMatrixError(
            f"K_aux {A.shape} must be over the same training objects as K_star {Ks.shape}."
        )
    n = Ks.shape[0]
    rows = check_test_similarity(aux_rows, n, name="aux_rows")
    m = rows.shape[0]
    aux_self = _per_row(aux_self, m, "aux_self")
    if known is not None:
        known = np.atleast_2d(np.asarray(known, dtype=np.float64))
        if known.shape[0] != m or known.shape[1] > n or not np.all(np.isfinite(known)):
            raise InvalidParameterError(
                f"known must be finite of shape ({m}, n1) with n1 <= {n}, got {known.shape}."
            )
    if known_self is not None:
        known_self = _per_row(known_self, m, "known_self")
    return _complete_rows(Ks, A, rows, aux_self, known, known_self, solver, solver_options)


def _per_row(v, m, name):
    v = np.asarray(v, dtype=np.float64)
    if v.ndim == 0:
        v = np.full(m, float(v))
    if v.shape != (m,) or not np.all(np.isfinite(v)):
        raise InvalidParameterError(f"{name} must be a finite scalar or {m} values, got "
                                    f"shape {v.shape}.")
    return v


class KernelCompleter(BaseEstimator):
    """Complete a kernel known on its first ``n1`` objects from an auxiliary kernel.

    Chen 2010, chapter 6, setting (b) (whole rows and columns missing):
    ``method="em"`` is Tsuda, Akaho & Asai's em algorithm (6.4,
    :func:`em_complete`; ``K11`` positive definite), ``"frobenius"`` the conic
    version (6.5, :func:`frobenius_complete`; any PSD ``K11``).

    ``fit(K11, K_aux)``: the known block and the auxiliary kernel on all
    ``n`` objects, the ``n1`` known ones first. Not a supervised estimator:
    the second argument is a kernel, not labels.

    Parameters
    ----------
    method : {"em", "frobenius"}, default="em"
    max_iter, tol : for ``"em"``
    solver : {"CLARABEL", "SCS"}, for ``"frobenius"``

    Attributes
    ----------
    kernel_ : ndarray of shape (n, n)
        The completed kernel; ``kernel_[:n1, :n1]`` is ``K11`` exactly.
    weights_ : ndarray of shape (n,)
        ``w`` of the model ``sum w_i v_i v_i^T``.
    result_ : CompletionResult

    Examples
    --------
    >>> import numpy as np
    >>> from proxlearn.kernel_learning import KernelCompleter
    >>> X = np.random.default_rng(0).normal(size=(6, 2))
    >>> K_aux = X @ X.T + np.eye(6)
    >>> KernelCompleter().fit_transform(K_aux[:4, :4] + 0.5 * np.eye(4), K_aux).shape
    (6, 6)

    See Also
    --------
    em_complete, frobenius_complete : the two methods.
    CompletionSVC : the completion learned jointly with an SVM.
    """

    def __init__(self, method="em", *, max_iter=200, tol=1e-10, solver="CLARABEL"):
        self.method = method
        self.max_iter = max_iter
        self.tol = tol
        self.solver = solver

    _parameter_constraints = {
        "method": options("em", "frobenius"),
        "max_iter": only_if(integer(1), "method", "em"),
        "tol": only_if(positive(allow_zero=True), "method", "em"),
        "solver": only_if(options(*SOLVERS), "method", "frobenius"),
    }

    def fit(self, K11, K_aux):
        params = validate_params(self)
        if K_aux is None:
            raise InvalidParameterError(
                "KernelCompleter.fit(K11, K_aux) needs the auxiliary kernel on all objects."
            )
        if params["method"] == "em":
            self.result_ = em_complete(K11, K_aux, max_iter=params["max_iter"], tol=params["tol"])
        else:
            self.result_ = frobenius_complete(K11, K_aux, solver=params["solver"])
        self.kernel_ = self.result_.kernel
        self.weights_ = self.result_.weights
        return self

    def fit_transform(self, K11, K_aux):
        """Fit and return the completed ``(n, n)`` kernel."""
        return self.fit(K11, K_aux).kernel_.copy()


def _solve_completion_svm(A, K11, known, y, eta, gamma, n_unl, solver, solver_options):
    """(6.7) (``n_unl == 0``) or (6.10) over the samples of ``A`` (labelled first).

    ``known``: positions (into ``A``) of the objects whose kernel block ``K11``
    is known, in ``K11``'s order.
    """
    import cvxpy as cp

    N = A.shape[0]
    n = N - n_unl
    _, V = scipy.linalg.eigh(A, driver="evd")
    X = cp.Variable((n + 1, n + 1), PSD=True)  # [[K_T, z], [z^T, u]]
    if n_unl == 0:  # K is the labelled block of X itself (one LMI, as FullKernelSVM)
        K = X[:n, :n]
        cons = []
    else:  # (6.10): two LMIs, K over all samples
        K = cp.Variable((N, N), PSD=True)
        cons = [X[:n, :n] == K[:n, :n]]
    w = cp.Variable(N, nonneg=True)
    z, u = X[:n, n], X[n, n]
    b = cp.Variable()
    xi = cp.Variable(n, nonneg=True)
    v = cp.Variable()
    cons += [
        cp.multiply(y, z + b) >= 1 - xi,
        _cp_frobenius_gap(cp, K, V, w) <= v,
    ]
    if known.size:
        cons.append(K[known][:, known] == K11)
    prob = cp.Problem(cp.Minimize(cp.sum(xi) / n + eta * u + gamma * v), cons)
    what = "joint SVM + completion SDP (Chen 2010 eq. 6.%s)" % ("7" if n_unl == 0 else "10")
    solve_problem(prob, solver, solver_options, what)
    Kv = np.asarray(K.value, dtype=np.float64)
    Kv = 0.5 * (Kv + Kv.T)
    if known.size:
        Kv[np.ix_(known, known)] = K11
    return {
        "K": Kv,
        "z": np.asarray(z.value, dtype=np.float64).ravel(),
        "b": float(b.value),
        "objective": float(prob.value),
        "weights": np.maximum(np.asarray(w.value, dtype=np.float64), 0.0),
    }


class CompletionSVC(PairwiseMixin, ClassifierMixin, BaseEstimator):
    """SVM learned jointly with the completion of a partly known kernel (Chen 2010, 6.6-6.10).

    ``fit(K_aux, y, K11=...)``: ``K_aux`` is the auxiliary kernel over all
    training samples (``(n, n)``, or ``(n + n', n + n')`` with ``n'``
    unlabelled samples last when ``transductive``), ``K11`` the kernel of
    interest on the first ``n1`` samples (``None``: nothing known, the kernel
    is learned near the auxiliary model alone; then the problem has no
    minimiser -- any ``V diag(d) V^T`` has zero gap and scaling it up drives
    the objective to 0 -- and the solver returns a point far out on that ray,
    see docs/methods.md "Kernel matrix completion"). Solves, per pair of classes,

    ``min (1/n) 1^T xi + eta c^T K_T c + gamma ||K - sum_i w_i v_i v_i^T||_F``
    s.t. the hinge constraints on ``K_T c + b``, ``K`` PSD, ``w >= 0``,
    ``K_ij = (K11)_ij`` on the known block -- the conic form (6.7) with
    ``z = K_T c`` and the LMI ``[[K_T, z], [z^T, u]]`` PSD (``K_T`` = the
    labelled block; with ``transductive=True`` the completion also covers the
    unlabelled samples, (6.10), whose labels are in ``transduction_``).

    New samples (inductive, case 1) get their row of the completed kernel by
    the test-time program (6.8) (:func:`complete_test_row`) from their
    auxiliary kernel values; in case 2 pass the kernel values already known
    (``known``, ``known_self``). The decision value is ``c*^T r* + b*``, with
    ``c* = K_T^+ z*``. One SDP of size ``n + 1`` per test sample and pair:
    small problems only (``max_samples``).

    Parameters
    ----------
    eta : float, default=0.01
        Weight of ``c^T K c`` (the SVM's ``C = 1 / (2 n eta)``).
    gamma : float, default=0.01
        Weight of the Frobenius distance to the auxiliary model.
    transductive : bool, default=False
    solver : {"CLARABEL", "SCS"}, default="CLARABEL"
    solver_options : dict or None
    max_samples : int, default=80
        Refuse larger problems (per pair, labelled plus unlabelled).
    rank_tol : float, default=1e-8
        Relative eigenvalue cutoff of ``K_T^+``.

    Attributes
    ----------
    classes_, kernels_ (completed kernel per pair), kernel_ (binary problems),
    weights_ (``w`` per pair), dual_coef_, intercept_, objective_,
    pair_indices_, transduction_ (transductive), n_features_in_.

    Examples
    --------
    >>> import numpy as np
    >>> from proxlearn.datasets import make_noisy_blobs
    >>> from proxlearn.kernel_learning import CompletionSVC
    >>> S, y = make_noisy_blobs(2, 6, random_state=0)[:2]
    >>> K_aux = S @ S.T / 12 + np.eye(12)
    >>> CompletionSVC().fit(K_aux, y, K11=K_aux[:8, :8]).predict(K_aux[::4]).tolist()
    [0, 0, 1]

    See Also
    --------
    KernelCompleter : the completion alone, without labels.
    FullKernelSVM : a full kernel learned near one similarity with the SVM.
    complete_test_row : the test rows (6.8).
    """

    def __init__(self, eta=0.01, gamma=0.01, *, transductive=False, solver="CLARABEL",
                 solver_options=None, max_samples=80, rank_tol=1e-8):
        self.eta = eta
        self.gamma = gamma
        self.transductive = transductive
        self.solver = solver
        self.solver_options = solver_options
        self.max_samples = max_samples
        self.rank_tol = rank_tol

    _parameter_constraints = {
        "eta": positive(),
        "gamma": positive(),
        "transductive": boolean(),
        "solver": options(*SOLVERS),
        "solver_options": unchecked("handed to cvxpy's solve"),
        "max_samples": integer(2),
        "rank_tol": positive(),
    }

    def fit(self, K_aux, y, K11=None):
        """Learn the completion and the SVM (see the class docstring)."""
        params = validate_params(self)
        eta, gamma, rank_tol, max_samples, solver = (
            params[k] for k in ("eta", "gamma", "rank_tol", "max_samples", "solver"))
        A = check_similarity(K_aux, name="K_aux", symmetric="symmetrize")
        N = A.shape[0]
        classes, y_idx, n = transductive_labels(y, N, params["transductive"], "K_aux")
        if K11 is None:
            K11 = np.zeros((0, 0))
        else:
            K11 = check_similarity(K11, name="K11", symmetric="symmetrize",
                                   dissimilarity_check=False)
            if K11.shape[0] > N:
                raise SimilarityMatrixError(
                    f"K11 covers {K11.shape[0]} samples but K_aux only {N}; K11 is the "
                    "kernel of interest on the first n1 samples of K_aux."
                )
        n1 = K11.shape[0]
        n_unl = N - n
        self._aux, self._K11 = A, K11
        self._ranges = []

        def fit_binary(p):
            full_idx = p.rows
            if full_idx.size > max_samples:
                raise InvalidParameterError(
                    f"CompletionSVC solves an SDP with about {full_idx.size}^2 variables "
                    f"for {full_idx.size} samples, more than max_samples="
                    f"{max_samples}; raise it knowingly (the cost grows like n^6)."
                )
            known = np.flatnonzero(full_idx < n1)
            sub = full_idx[known]
            sol = _solve_completion_svm(
                A[np.ix_(full_idx, full_idx)], K11[np.ix_(sub, sub)], known, p.y, eta, gamma,
                n_unl, solver, self.solver_options,
            )
            c, V, d = psd_pinv_solve(sol["K"][: p.idx.size, : p.idx.size], sol["z"], rank_tol)
            return sol, c

        problems, fits = ovo_fit(y_idx, len(classes), fit_binary, n_total=N)
        self.kernels_ = [sol["K"] for sol, _ in fits]
        self.weights_ = [sol["weights"] for sol, _ in fits]
        self.pair_indices_ = [p.idx for p in problems]
        self.dual_coef_ = [c for _, c in fits]
        self.intercept_ = np.asarray([sol["b"] for sol, _ in fits])
        self.objective_ = np.asarray([sol["objective"] for sol, _ in fits])
        self.classes_ = classes
        self.kernel_ = self.kernels_[0] if len(problems) == 1 else None
        self.n_features_in_ = n
        if params["transductive"]:
            _, self.transduction_ = transductive_outputs(
                unlabelled_decisions(problems, self.kernels_, self.dual_coef_, self.intercept_),
                classes)
        return self

    def _raw(self, K_aux_test, aux_self, known, known_self):
        check_is_fitted(self, "kernels_")
        solver = validate_params(self, "solver")["solver"]  # the one parameter read here
        rows = check_test_similarity(K_aux_test, self.n_features_in_, name="K_aux_test")
        m = rows.shape[0]
        n = self.n_features_in_
        diag = np.diag(self._aux)[:n]
        aux_self = _per_row(diag.mean() if aux_self is None else aux_self, m, "aux_self")
        n1 = min(self._K11.shape[0], n)
        if known is not None:
            known = np.atleast_2d(np.asarray(known, dtype=np.float64))
            if known.shape != (m, n1) or not np.all(np.isfinite(known)):
                raise InvalidParameterError(
                    f"known must be finite of shape ({m}, {n1}): the kernel of interest "
                    f"between the test samples and the first {n1} training samples."
                )
        if known_self is not None:
            known_self = _per_row(known_self, m, "known_self")
        raw = np.empty((m, len(self.kernels_)))
        for k, (idx, c) in enumerate(zip(self.pair_indices_, self.dual_coef_, strict=True)):
            KT = self.kernels_[k][: idx.size, : idx.size]
            kn = None
            if known is not None:  # case 2: the pair's known training columns, first
                order = np.argsort(idx >= n1, kind="stable")
                idx_o = idx[order]
                kn = known[:, idx_o[idx_o < n1]]
                R, _ = _complete_rows(KT[np.ix_(order, order)],
                                      self._aux[np.ix_(idx_o, idx_o)], rows[:, idx_o],
                                      aux_self, kn, known_self, solver,
                                      self.solver_options)
                raw[:, k] = R @ c[order] + self.intercept_[k]
            else:
                R, _ = _complete_rows(KT, self._aux[np.ix_(idx, idx)], rows[:, idx], aux_self,
                                      None, known_self, solver, self.solver_options)
                raw[:, k] = R @ c + self.intercept_[k]
        return raw

    def decision_function(self, K_aux_test, aux_self=None, known=None, known_self=None):
        """Decision values ``c*^T r* + b*`` with ``r*`` from (6.8).

        Parameters
        ----------
        K_aux_test : array-like of shape (m, n)
            Auxiliary kernel between test and training samples.
        aux_self : float or (m,), optional
            ``k_aux(x, x)``; the mean training diagonal by default.
        known, known_self : case 2 (see :func:`complete_test_row`).
        """
        return ovo_decision(self._raw(K_aux_test, aux_self, known, known_self),
                            len(self.classes_))

    def predict(self, K_aux_test, aux_self=None, known=None, known_self=None):
        return ovo_labels(self._raw(K_aux_test, aux_self, known, known_self), self.classes_)
