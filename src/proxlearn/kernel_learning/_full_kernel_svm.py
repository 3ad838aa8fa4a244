"""Learning a full PSD kernel jointly with the SVM (Chen 2010, thesis, eqs. 5.6 and 5.16).

Binary problem (thesis scaling, eq. 2.3 with ``C = 1 / (2 n eta)``), conic form
(5.6), variables ``K`` (n x n symmetric), ``z = K c``, ``b``, ``xi``, ``u``, ``v``::

    minimize   (1/n) 1^T xi + eta u + gamma v
    subject to diag(y)(z + b 1) >= 1 - xi,  xi >= 0
               [[K, z], [z^T, u]] PSD          (one (n+1) x (n+1) LMI)
               ||K - S||_F <= v

solved by default (``solver="dual"``) with our first-order solver
(:mod:`proxlearn.kernel_learning._full_kernel_dual`: an outer 1-D search over
``tau = ||K - S||_F``, inside it the Indefinite SVM (5.8) at ``rho = gamma / (4
eta tau)`` by accelerated projected gradient with rank-one eigen-updates of
``S``; derivation in docs/methods.md, "FullKernelSVM: the dual solver"), or
(``solver="cvxpy"``, ``"CLARABEL"`` or ``"SCS"``) as one cvxpy SDP with a single
PSD matrix variable ``X = [[K, z], [z^T, u]]``. The SDP has about ``n^2 / 2``
scalar variables and its interior-point cost grows about as ``n^5``
(docs/benchmarks.md, "FullKernelSVM and CompletionSVC at their defaults"), so
the conic solvers refuse problems (per one-vs-one pair, labelled plus
unlabelled samples) larger than ``max_samples`` (150 unless set) with an
:class:`InvalidParameterError`; the dual solver has no limit unless
``max_samples`` is set.

Test rows (thesis section 5.1.2, eq. 5.13) - **erratum followed**: the QCQP
(5.14) is printed with the constraint ``r^T K* r <= t``; by Lemma 5.1 the correct
constraint is ``r^T (K*)^+ r <= t`` (docs/methods.md, "Kernel-learning reference
notes"). We use the closed form of the corrected problem: with
``K* = V diag(d) V^T`` (eigenvalues above ``rank_tol * max(d)``) and
``s_hat = V^T s``,

* if the self-similarity ``psi(x, x)`` is not given (``predict(S_test)``): the
  entry ``t`` is free, the constraint is inactive and ``r = V V^T s`` (the
  projection of ``s`` onto the range of ``K*``);
* if ``sum(s_hat^2 / d) <= psi``: ``r = V s_hat``;
* else ``r = V a(mu)``, ``a_i = s_hat_i 2 d_i / (2 d_i + mu)``, with ``mu > 0`` the
  root of ``sum(a_i(mu)^2 / d_i) = psi + mu / 2`` (Brent's method).

The decision value is ``c*^T r + b*`` with ``c* = (K*)^+ z*`` (minimum-norm
solution of ``K* c = z*``, thesis section 5.1).

Transductive variant (eq. 5.16): the kernel is learned over training *and*
unlabelled samples, ``K = [[K11, K12], [K21, K22]] PSD``, the hinge and the
``[[K11, z], [z^T, u]]`` LMI use the training block only, and the Frobenius
penalty uses the whole matrix; unlabelled samples are classified with the
learned ``K*_21``: ``f = K*_21 c* + b*``. Use ``transductive=True`` and pass the
``(n + n') x (n + n')`` matrix with the ``n`` labelled samples first and
``y`` of length ``n``; predictions for the ``n'`` unlabelled samples are in
``transduction_`` (as in scikit-learn's semi-supervised estimators).
"""

from __future__ import annotations

import warnings

import numpy as np
import scipy.linalg
import scipy.optimize
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.validation import check_is_fitted

from .._validation import (
    NORMALIZE,
    InvalidParameterError,
    SolverError,
    boolean,
    check_similarity,
    check_test_similarity,
    integer,
    options,
    positive,
    unchecked,
    validate_params,
)
from ..base import PairwiseMixin
from ..exceptions import SolverFailedError
from .._normalize import ScaleNormalizeMixin
from ._full_kernel_dual import solve_full_kernel_dual
from .._svm._multiclass import (
    ovo_decision,
    ovo_fit,
    ovo_labels,
    transductive_labels,
    transductive_outputs,
    unlabelled_decisions,
)

__all__ = ["FullKernelSVM", "SolverFailedError", "modify_test_rows"]

#: conic solvers accepted (both ship with cvxpy's default install)
SOLVERS = ("CLARABEL", "SCS")
#: ``solver`` values: our dual solver, or cvxpy ("cvxpy" is Clarabel through cvxpy)
SOLVER_OPTIONS = ("dual", "cvxpy") + SOLVERS
#: ``max_samples`` of the conic solvers when it is not set
CONIC_MAX_SAMPLES = 150


def _warn_inaccurate(solver: str, what: str) -> None:
    warnings.warn(
        f"{solver} solved the {what} only to reduced accuracy (status "
        "'optimal_inaccurate'); the solution is used. Try the other solver "
        "('CLARABEL' or 'SCS') or rescale S.",
        ConvergenceWarning,
        stacklevel=4,
    )


def check_status(prob, what: str, solver: str) -> None:
    """Raise :class:`SolverFailedError` unless ``prob`` was solved (reduced accuracy warns)."""
    status = prob.status
    if status == "optimal":
        return
    if status == "optimal_inaccurate":
        _warn_inaccurate(solver, what)
        return
    raise SolverFailedError(
        f"{solver} failed on the {what}: status {status!r}. The problem is always "
        "feasible and bounded, so this is numerical trouble: rescale S (e.g. to "
        "[0, 1]), change eta/gamma, or try the other solver ('CLARABEL' or 'SCS')."
    )


def solve_problem(prob, solver: str, solver_options, what: str):
    """Solve a cvxpy problem, turning solver exceptions into :class:`SolverFailedError`."""
    import cvxpy as cp

    opts = dict(solver_options or {})
    try:
        prob.solve(solver=solver, **opts)
    except cp.error.SolverError as exc:
        raise SolverFailedError(
            f"{solver} failed on the {what} ({exc}). Rescale S (e.g. to [0, 1]), "
            "change eta/gamma, or try the other solver ('CLARABEL' or 'SCS')."
        ) from None
    check_status(prob, what, solver)


def psd_pinv_solve(K, z, rank_tol):
    """Minimum-norm ``c`` with ``K c = z`` for PSD ``K`` (eigenvalues <= rank_tol*max dropped).

    Returns ``(c, V, d)`` with ``V``, ``d`` the kept eigenpairs.
    """
    d, V = scipy.linalg.eigh(K, check_finite=False)
    top = max(float(d.max(initial=0.0)), 0.0)
    keep = d > rank_tol * top if top > 0 else np.zeros_like(d, dtype=bool)
    V, d = V[:, keep], d[keep]
    c = V @ ((V.T @ z) / d)
    return c, V, d


def modify_test_rows(K, s_rows, self_similarity=None, rank_tol=1e-8):
    """Modified test rows ``r`` of the corrected QCQP (thesis 5.13/5.14, erratum 1).

    Parameters
    ----------
    K : ndarray of shape (n, n)
        Learned PSD kernel ``K*``.
    s_rows : ndarray of shape (m, n)
        Test-to-train similarities.
    self_similarity : None, float or array of shape (m,)
        ``psi(x, x)`` per test row; None leaves ``t`` free (projection onto
        ``range(K*)``).
    rank_tol : float
        Relative eigenvalue cut-off defining ``range(K*)``.

    Returns
    -------
    R : ndarray of shape (m, n)

    Examples
    --------
    >>> import numpy as np
    >>> from proxlearn.kernel_learning import modify_test_rows
    >>> K = np.array([[2.0, 0.0], [0.0, 0.0]])
    >>> s = np.array([[1.0, 3.0]])
    >>> float(modify_test_rows(K, s)[0, 0]), round(float(modify_test_rows(K, s, 0.1)[0, 0]), 3)
    (1.0, 0.876)

    See Also
    --------
    FullKernelSVM : modifies its test rows with it.
    """
    d, V = scipy.linalg.eigh(K, check_finite=False)
    top = max(float(d.max(initial=0.0)), 0.0)
    keep = d > rank_tol * top if top > 0 else np.zeros_like(d, dtype=bool)
    V, d = V[:, keep], d[keep]
    return _modified_rows(V, d, np.atleast_2d(s_rows), self_similarity)


def _modified_rows(V, d, S_test, self_similarity):
    S_hat = S_test @ V  # (m, k)
    if self_similarity is None or d.size == 0:
        return S_hat @ V.T
    psi = np.broadcast_to(np.asarray(self_similarity, dtype=np.float64), (S_test.shape[0],))
    A = S_hat.copy()
    for i in range(S_test.shape[0]):
        sh = S_hat[i]
        if np.sum(sh * sh / d) <= psi[i]:
            continue

        def g(mu, sh=sh, p=psi[i]):
            a = sh * (2.0 * d / (2.0 * d + mu))
            return np.sum(a * a / d) - (p + mu / 2.0)

        hi = max(1.0, 2.0 * (np.sum(sh * sh / d) - psi[i]) + 1.0)
        while g(hi) > 0:  # pragma: no cover - the bound above already suffices
            hi *= 2.0
        mu = scipy.optimize.brentq(g, 0.0, hi, xtol=1e-14, rtol=1e-12)
        A[i] = sh * (2.0 * d / (2.0 * d + mu))
    return A @ V.T


def _solve_dual(S, y, eta, gamma, n_unlabelled, tol):
    """(5.6) / (5.16) by :func:`solve_full_kernel_dual`, in :func:`_solve_full_kernel`'s form."""
    res = solve_full_kernel_dual(S, y, eta, gamma, n_unlabelled, tol=tol)
    if not res.success:
        warnings.warn(
            f"FullKernelSVM's dual solver stopped before its tolerance ({res.message}; "
            f"relative residual {res.residual:.2e}). Rescale S, change eta/gamma, or use "
            "solver='cvxpy'.",
            ConvergenceWarning,
            stacklevel=4,
        )
    K = 0.5 * (res.K + res.K.T)
    return {"K": K, "z": res.z, "b": res.b, "u": float(res.z @ (y * res.x)),
            "objective": res.fun, "status": res.message}


def _solve_full_kernel(S, y, eta, gamma, n_unlabelled, solver, solver_options):
    """Solve (5.6) (``n_unlabelled == 0``) or (5.16); S covers labelled samples first."""
    import cvxpy as cp

    N = S.shape[0]
    n = N - n_unlabelled
    # X = [[K, z], [z^T, u]] over the labelled samples, the rest of K separately
    if n_unlabelled == 0:
        X = cp.Variable((n + 1, n + 1), PSD=True)
        K = X[:n, :n]
        cons = []
    else:
        Kfull = cp.Variable((N, N), PSD=True)
        X = cp.Variable((n + 1, n + 1), PSD=True)
        K = Kfull
        cons = [X[:n, :n] == Kfull[:n, :n]]
    z = X[:n, n]
    u = X[n, n]
    b = cp.Variable()
    xi = cp.Variable(n, nonneg=True)
    v = cp.Variable()
    cons += [
        cp.multiply(y, z + b) >= 1 - xi,
        cp.norm(cp.vec(K - S, order="F"), 2) <= v,
    ]
    prob = cp.Problem(cp.Minimize(cp.sum(xi) / n + eta * u + gamma * v), cons)
    what = "full-kernel SVM SDP (Chen 2010 eq. 5.%s)" % ("6" if n_unlabelled == 0 else "16")
    solve_problem(prob, solver, solver_options, what)
    Kv = np.asarray(K.value, dtype=np.float64)
    Kv = 0.5 * (Kv + Kv.T)
    return {
        "K": Kv,
        "z": np.asarray(z.value, dtype=np.float64).ravel(),
        "b": float(b.value),
        "u": float(u.value),
        "objective": float(prob.value),
        "status": prob.status,
    }


class FullKernelSVM(PairwiseMixin, ScaleNormalizeMixin, ClassifierMixin, BaseEstimator):
    """SVM that learns a full PSD kernel near an indefinite similarity (Chen 2010, eq. 5.6).

    Jointly minimises ``(1/n) sum hinge + eta c^T K c + gamma ||K - S||_F`` over
    the SVM ``(c, b)`` and a PSD kernel ``K`` (thesis eqs. 5.1-5.6), by a
    first-order dual solver (default) or as one SDP through cvxpy.
    Test rows are modified by the corrected QCQP of section 5.1.2 (erratum:
    ``r^T (K*)^+ r <= t``, not ``r^T K* r <= t``); see
    :mod:`proxlearn.kernel_learning._full_kernel_svm`. Multiclass problems are
    solved one-vs-one, one problem per pair of classes on that pair's samples.

    Practical limit of the conic solvers: one SDP has about ``n^2 / 2``
    variables; problems with more than ``max_samples`` samples (per pair; 150
    when not set) are refused.

    Parameters
    ----------
    eta : float or "auto", default="auto"
        Weight of ``c^T K c`` (thesis eta; the SVM's ``C = 1 / (2 n eta)``).
        ``"auto"``: ``1 / (2 n)`` with ``n`` the labelled samples of each
        one-vs-one pair, i.e. ``C = 1`` as the clip SVM's default; a fixed
        ``eta`` makes ``C`` shrink with ``n`` (the former default 0.001 gives
        ``C = 500 / n``, 1.8-5 on the defaults panel, and loses to the clip
        SVM on 6 of 14 sets: docs/methods.md, "FullKernelSVM: the dual
        solver").
    gamma : float, default=100.0
        Weight of ``||K - S||_F`` (not squared). For PSD ``S`` and large
        ``gamma`` the solution is the plain SVM on ``S``; as ``gamma -> inf``
        it approaches the SVM on the spectrum-clipped ``S``. The defaults
        ``(eta, gamma) = ("auto", 100)`` are ours, from the defaults benchmark
        (the thesis's grid gives no default; docs/methods.md, "FullKernelSVM
        defaults" and "FullKernelSVM: the dual solver"): the large-``gamma``
        limit is then the clip SVM at its default ``C = 1``.
    transductive : bool, default=False
        Learn the kernel over the labelled and unlabelled samples together
        (thesis eq. 5.16). ``fit(S, y)`` then takes the ``(n + n')`` square
        matrix with the ``n = len(y)`` labelled samples first; predictions for
        the unlabelled ones are stored in ``transduction_``.
    solver : {"dual", "cvxpy", "CLARABEL", "SCS"}, default="dual"
        ``"dual"``: our solver (an outer search over ``||K - S||_F``, the
        Indefinite SVM's accelerated gradient inside; the same optimum as the
        SDP, about 360 and 1,300 times faster than Clarabel on real pairs
        at n = 70 and 100: docs/benchmarks.md, "FullKernelSVM: the dual
        solver"). ``"cvxpy"`` (= ``"CLARABEL"``) or
        ``"SCS"``: the SDP (5.6) through cvxpy with that conic solver (the
        former default).
    solver_options : dict or None, default=None
        Extra keyword arguments for ``cvxpy.Problem.solve`` (conic solvers only).
    tol : float, default=1e-7
        ``solver="dual"`` only: the inner maximal KKT violation and the outer
        relative residual ``| ||K - S||_F - tau | / tau`` at which it stops.
    rank_tol : float, default=1e-8
        Eigenvalues of ``K*`` below ``rank_tol * max eigenvalue`` count as zero
        when computing ``c* = (K*)^+ z*`` and ``range(K*)``.
    max_samples : int or None, default=None
        Largest problem (labelled + unlabelled samples of one pair) accepted;
        ``None``: no limit for ``solver="dual"``, 150 for the conic solvers.
    normalize : bool, default=True
        Solve on ``S / scale_`` with ``scale_ = tr S / n`` (1 for a
        unit-diagonal similarity; transductive: the whole matrix) and divide
        test rows and ``self_similarity`` likewise, so that ``eta`` and
        ``gamma`` do not depend on the units of ``S`` and a positive factor on
        ``S`` leaves every prediction unchanged; ``False`` uses ``S`` as given
        (the thesis). See :mod:`proxlearn._normalize`.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    scale_ : float
        The factor ``S`` was divided by (1.0 with ``normalize=False``); the
        learned kernels and coefficients below are those of ``S / scale_``.
    kernel_ : ndarray of shape (n, n) or None
        Learned kernel ``K*`` (binary problems; ``None`` for multiclass, see
        ``kernels_``). Transductive: the whole ``(n + n')`` matrix.
    kernels_ : list of ndarray
        Learned kernel of every one-vs-one pair, on the samples ``pair_indices_[k]``.
    pair_indices_ : list of ndarray
        Training-sample indices of every pair.
    dual_coef_ : list of ndarray
        ``c* = (K*)^+ z*`` per pair (on that pair's labelled samples).
    intercept_ : ndarray of shape (n_pairs,)
    objective_ : ndarray of shape (n_pairs,)
        Optimal value of (5.6) / (5.16) per pair.
    eta_ : ndarray of shape (n_pairs,)
        The ``eta`` of each pair (``1 / (2 n_pair)`` with ``eta="auto"``).
    transduction_ : ndarray of shape (n',)
        Transductive mode only: predicted labels of the unlabelled samples.
    transductive_decision_ : ndarray
        Transductive mode only: decision values for the unlabelled samples.
    n_features_in_ : int
        Number of labelled training samples.

    Examples
    --------
    >>> from proxlearn.datasets import make_noisy_blobs
    >>> from proxlearn.kernel_learning import FullKernelSVM
    >>> S, y = make_noisy_blobs(2, 10, random_state=0)[:2]
    >>> clf = FullKernelSVM().fit(S, y)
    >>> clf.predict(S[::5]).tolist(), clf.kernel_.shape
    ([0, 0, 1, 1], (20, 20))

    See Also
    --------
    modify_test_rows : the test-row modification.
    SimSVM : a learned spectrum modification, for larger ``n``.
    IndefiniteSVM : a PSD kernel near ``S`` by a first-order method.
    CompletionSVC : the SVM learned with a kernel completion.
    """

    def __init__(
        self,
        eta="auto",
        gamma=100.0,
        transductive=False,
        solver="dual",
        solver_options=None,
        rank_tol=1e-8,
        max_samples=None,
        normalize=True,
        tol=1e-7,
    ):
        self.eta = eta
        self.gamma = gamma
        self.transductive = transductive
        self.solver = solver
        self.solver_options = solver_options
        self.rank_tol = rank_tol
        self.max_samples = max_samples
        self.normalize = normalize
        self.tol = tol

    _parameter_constraints = {
        "normalize": NORMALIZE,
        "eta": positive() | options("auto"),
        "gamma": positive(),
        "solver": options(*SOLVER_OPTIONS),
        "rank_tol": positive(),
        "tol": positive(),
        "transductive": boolean(),
        "max_samples": integer(2) | options(None),
        "solver_options": unchecked("handed to cvxpy's solve"),
    }

    def fit(self, S, y):
        """Learn the kernel and the SVM.

        Parameters
        ----------
        S : array-like of shape (n, n), or (n + n', n + n') if ``transductive``
            Similarities (symmetrised with a warning when asymmetric). In
            transductive mode the first ``len(y)`` samples are labelled.
        y : array-like of shape (n,)

        Returns
        -------
        self
        """
        params = validate_params(self)
        eta, gamma, rank_tol = (params[k] for k in ("eta", "gamma", "rank_tol"))
        S = check_similarity(S, symmetric="symmetrize")
        N = S.shape[0]
        classes, y_idx, n = transductive_labels(y, N, self.transductive, "S")
        S = self._fit_scale(S, params["normalize"])
        n_unl = N - n
        solver = params["solver"]
        conic = solver != "dual"
        limit = params["max_samples"]
        if limit is None and conic:
            limit = CONIC_MAX_SAMPLES

        def fit_binary(p):
            if limit is not None and p.rows.size > limit:
                what = (f"an SDP with about {p.rows.size}^2/2 variables" if conic
                        else "a problem")
                raise InvalidParameterError(
                    f"FullKernelSVM(solver={solver!r}) solves {what} for {p.rows.size} "
                    f"samples, more than max_samples={limit}. The conic solvers are "
                    "practical only for small problems (n <= 150): use solver='dual' "
                    "(no limit unless max_samples is set) or raise max_samples knowingly."
                )
            Sp = S[np.ix_(p.rows, p.rows)]
            eta_p = 1.0 / (2.0 * p.y.size) if eta == "auto" else eta
            if conic:
                sol = _solve_full_kernel(
                    Sp, p.y, eta_p, gamma, n_unl,
                    "CLARABEL" if solver == "cvxpy" else solver, self.solver_options,
                )
            else:
                sol = _solve_dual(Sp, p.y, eta_p, gamma, n_unl, params["tol"])
            sol["eta"] = eta_p
            c, V, d = psd_pinv_solve(sol["K"][: p.idx.size, : p.idx.size], sol["z"], rank_tol)
            return sol, c, (V, d)

        problems, fits = ovo_fit(y_idx, len(classes), fit_binary, n_total=N)
        self.kernels_ = [sol["K"] for sol, _, _ in fits]
        self.pair_indices_ = [p.idx for p in problems]
        self.dual_coef_ = [c for _, c, _ in fits]
        self._ranges = [r for _, _, r in fits]
        self.intercept_ = np.asarray([sol["b"] for sol, _, _ in fits])
        self.objective_ = np.asarray([sol["objective"] for sol, _, _ in fits])
        self.eta_ = np.asarray([sol["eta"] for sol, _, _ in fits])
        self.classes_ = classes
        self.kernel_ = self.kernels_[0] if len(problems) == 1 else None
        self.n_features_in_ = n
        if self.transductive:
            self.transductive_decision_, self.transduction_ = transductive_outputs(
                unlabelled_decisions(problems, self.kernels_, self.dual_coef_, self.intercept_),
                classes)
        return self

    def modified_test_rows(self, S_test, self_similarity=None, pair=0):
        """Test rows modified by the corrected QCQP (5.13/5.14) for one pair.

        Returns the ``(m, n_pair)`` rows ``r*`` in the coordinates of
        ``pair_indices_[pair]``.
        """
        check_is_fitted(self, "kernels_")
        S_test, psi = self._scaled_test(S_test, self_similarity)
        V, d = self._ranges[pair]
        idx = self.pair_indices_[pair]
        return _modified_rows(V, d, S_test[:, idx], psi)

    def _scaled_test(self, S_test, self_similarity):
        """Validated test rows and self-similarities, divided by ``scale_``."""
        S_test = check_test_similarity(S_test, self.n_features_in_)
        psi = self._psi(self_similarity, S_test)
        scale = getattr(self, "scale_", 1.0)
        return S_test / scale, (None if psi is None else psi / scale)

    @staticmethod
    def _psi(self_similarity, S_test):
        if self_similarity is None:
            return None
        psi = np.asarray(self_similarity, dtype=np.float64)
        if psi.ndim > 1 or (psi.ndim == 1 and psi.shape[0] != S_test.shape[0]) or not np.all(
            np.isfinite(psi)
        ):
            raise InvalidParameterError(
                "self_similarity must be a finite scalar or one value psi(x, x) per "
                f"test row ({S_test.shape[0]})."
            )
        return psi

    def _raw(self, S_test, self_similarity):
        check_is_fitted(self, "kernels_")
        S_test, psi = self._scaled_test(S_test, self_similarity)
        raw = np.empty((S_test.shape[0], len(self.kernels_)))
        for k, ((V, d), idx, c) in enumerate(zip(self._ranges, self.pair_indices_,
                                                 self.dual_coef_, strict=True)):
            R = _modified_rows(V, d, S_test[:, idx], psi)
            raw[:, k] = R @ c + self.intercept_[k]
        return raw

    def decision_function(self, S_test, self_similarity=None):
        """Decision values ``c*^T r* + b*`` for test-to-train similarities ``(m, n)``.

        Parameters
        ----------
        S_test : array-like of shape (m, n)
        self_similarity : None, float or array of shape (m,), default=None
            ``psi(x, x)`` of each test sample for the corrected QCQP; None
            leaves that entry free (``r*`` = projection onto ``range(K*)``).

        Returns
        -------
        ndarray of shape (m,) (binary, positive means ``classes_[1]``) or
        (m, n_classes) (one-vs-one votes plus a tie-breaking term).
        """
        return ovo_decision(self._raw(S_test, self_similarity), len(self.classes_))

    def predict(self, S_test, self_similarity=None):
        """Predict labels for test-to-train similarities ``(m, n)``."""
        return ovo_labels(self._raw(S_test, self_similarity), self.classes_)
