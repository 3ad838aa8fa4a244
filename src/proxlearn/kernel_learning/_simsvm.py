"""SimSVM: learn a spectrum modification of an indefinite similarity jointly with an SVM.

Chen (2010), *Strategies for Similarity-based Learning*, PhD thesis, section 5.2
(Chen, Gupta & Recht, ICML 2009). With the symmetrised training matrix
``S = U diag(lambda) U^T`` (numpy convention: eigenvectors are columns, in
ascending eigenvalue order), SimSVM restricts the kernel to
``K_alpha = U diag(alpha) U^T S = U diag(alpha * lambda) U^T`` (5.18) and solves
(5.20)::

    min_{c, b, xi, alpha}  (1/n) 1^T xi + eta c^T K_alpha c + gamma h(alpha)
    s.t.  diag(y) (K_alpha c + b 1) >= 1 - xi,  xi >= 0,  Lambda alpha >= 0.

``eta`` is the SVM regularisation of the thesis's scaling (2.3) (the usual
``C = 1 / (2 n eta)``), ``gamma`` weighs the regulariser ``h`` (section 5.2.1).
Test rows are modified with the same matrix, ``s~ = U diag(alpha) U^T s``
(5.19), which is consistent: the ``i``-th training row maps to the ``i``-th row
of ``K_alpha``.

Implementation notes (the choices the thesis leaves open, and the measurements
behind them, are in docs/methods.md, "Kernel-learning reference notes"):

* **Near-zero eigenvalues.** Directions with ``|lambda_i| <= eig_tol_`` (default
  ``eig_tol = 1e-6`` relative to ``max |lambda|``, never below the rounding
  level ``n eps max|lambda|``) are removed from the problem, as the thesis
  removes the variables of zero eigenvalues (section 5.2.2/5.2.3): they are
  treated as exact zeros, do not enter ``K_alpha`` and keep ``alpha_i`` at the
  reference value.
* **Recovery.** ``c* = U (diag(alpha*) Lambda)^+ z*`` (thesis, below 5.31) with
  the pseudo-inverse taken with an explicit tolerance: effective eigenvalues
  ``alpha_i lambda_i <= pinv_tol_ = max(eig_tol_, 1e-8 max|lambda|)`` count as
  zero (interior-point solutions leave ~1e-9 there). The digest's erratum on
  the test-similarity QCQP (5.14: ``r^T (K*)^+ r <= t``, not ``r^T K* r <= t``)
  concerns the full-kernel method of section 5.1.2; SimSVM needs no QCQP, and
  its only pseudo-inverse is this diagonal one. The decision function with
  modified test rows is ``f(s) = c*^T U diag(alpha) U^T s + b
  = sum_{active i} (z_i / lambda_i) u_i^T s + b``, a fixed
  linear function of the raw test row that we store in ``coef_``.
* ``test_transform="raw"`` uses ``f(s) = c*^T s + b`` with unmodified test
  similarities (the ablation of Table 5.4).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
import scipy.linalg
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted

from .._validation import (
    NORMALIZE,
    InvalidParameterError,
    check_classification_data,
    check_positive,
    check_test_similarity,
    integer,
    options,
    positive,
    unchecked,
    validate_params,
)
from ..base import PairwiseMixin
from .._normalize import ScaleNormalizeMixin
from .._svm._platt import PlattProbabilityMixin
from ._simsvm_dual import SimSVMDualQP, dual_qp_applicable
from ._simsvm_socp import (
    SimSVMSOCP,
    SimSVMSolution,
    SimSVMSolverError,
    SimSVMSolverWarning,
    solve_simsvm_lp,
    solve_simsvm_sdp,
)
from .._svm._multiclass import _OvOLinearMixin, ovo_fit, ovo_labels, scatter_pairs

__all__ = ["REGULARIZERS", "SIMSVM_SOLVERS", "SimSVM", "SimSVMProblem"]

#: regulariser name -> (kind, reference)
REGULARIZERS = {
    "l2-clip": ("l2", "clip"),
    "l1-clip": ("l1", "clip"),
    "l2-flip": ("l2", "flip"),
    "l1-flip": ("l1", "flip"),
    "frobenius": ("frobenius", "ones"),
}
SIMSVM_SOLVERS = ("auto", "socp", "dual-qp", "lp", "sdp")
SIMSVM_TEST_TRANSFORMS = ("consistent", "raw")
_EIGH_DRIVER = "evd"


def _reference(lam, ref_name):
    """alpha_clip = 1{lambda > 0}, alpha_flip = sign(lambda), or ones (5.17)."""
    if ref_name == "clip":
        return (lam > 0).astype(np.float64)
    if ref_name == "flip":
        return np.sign(lam)
    return np.ones_like(lam)


class SimSVMProblem:
    """One binary SimSVM training problem after its eigendecomposition.

    Built once per training matrix (per fold, per one-vs-one pair) and solved for
    any number of ``(eta, gamma)`` (the SOCP data are assembled once).

    Parameters
    ----------
    S : ndarray of shape (n, n)
        Symmetric training similarities.
    y : ndarray of shape (n,)
        Labels in ``{-1, +1}``.
    regularizer : str
        Key of :data:`REGULARIZERS`.
    eig_tol : float
        Relative zero-eigenvalue tolerance (see :class:`SimSVM`).
    """

    def __init__(self, S, y, regularizer="l2-clip", eig_tol=1e-6):
        self.kind, ref_name = REGULARIZERS[regularizer]
        lam, U = scipy.linalg.eigh(S, check_finite=False, driver=_EIGH_DRIVER)
        n = lam.shape[0]
        scale = float(np.max(np.abs(lam))) if n else 0.0
        self.tol = max(eig_tol * scale, n * np.finfo(np.float64).eps * scale)
        self.pinv_tol = max(self.tol, 1e-8 * scale)
        keep = np.abs(lam) > self.tol
        self.lam, self.U, self.keep = lam, U, keep
        self.y = np.asarray(y, dtype=np.float64)
        self.Uk, self.lamk = U[:, keep], lam[keep]
        ref = _reference(lam, ref_name)
        self.refk = ref[keep]
        # dropped directions: alpha at the reference projected onto lambda*alpha >= 0
        alpha_full = ref.copy()
        alpha_full[~keep & (lam * ref < 0)] = 0.0
        self.alpha_dropped = alpha_full
        # h = ||K_alpha - S||_F includes every dropped eigenvalue (not in K_alpha)
        self.const = float(np.linalg.norm(lam[~keep])) if self.kind == "frobenius" else 0.0
        self._socp = None
        self._dual = None
        self.last_solver = None

    @property
    def n_components(self):
        return int(self.keep.sum())

    def solve(self, eta, gamma, solver="auto", n_basis=50, rng=None) -> SimSVMSolution:
        """Solve (5.20) for one ``(eta, gamma)``; ``solver`` as in :class:`SimSVM`.

        ``"auto"`` uses the dual QP where it applies (l1/l2 regulariser, clip or
        flip reference) and Clarabel on the SOCP otherwise, and also when the
        dual QP certifies only a gap above ``1e-6`` (it then warns or raises);
        :attr:`last_solver` names the solver that produced the solution.
        """
        if self.n_components == 0:
            # K_alpha = 0: the SVM reduces to the best constant, xi = 1 - y b
            self.last_solver = "trivial"
            return self._constant_solution(eta, gamma)
        if solver == "auto":
            if dual_qp_applicable(self.kind, self.lamk, self.refk):
                with warnings.catch_warnings(record=True) as caught:
                    warnings.simplefilter("always", SimSVMSolverWarning)
                    try:
                        sol = self.solve(eta, gamma, "dual-qp")
                    except SimSVMSolverError:
                        sol = None
                inaccurate = any(issubclass(w.category, SimSVMSolverWarning) for w in caught)
                for w in caught:  # pass on anything that is not the dual QP's gap warning
                    if not issubclass(w.category, SimSVMSolverWarning):
                        warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
                if sol is not None and not inaccurate:
                    return sol
            solver = "socp"
        self.last_solver = solver
        if solver == "dual-qp":
            if not dual_qp_applicable(self.kind, self.lamk, self.refk):
                raise InvalidParameterError(
                    "solver='dual-qp' solves the l1 and l2 regularisers with a clip or "
                    f"flip reference, got kind {self.kind!r}; use solver='socp'."
                )
            if self._dual is None:
                self._dual = SimSVMDualQP(self.Uk, self.lamk, self.y, self.refk, self.kind)
            return self._dual.solve(eta, gamma)
        if solver == "socp":
            if self._socp is None:
                self._socp = SimSVMSOCP(
                    self.Uk, self.lamk, self.y, self.refk, self.kind, self.const
                )
            return self._socp.solve(eta, gamma)
        if solver == "lp":
            if self.kind != "l1":
                raise InvalidParameterError(
                    "solver='lp' (the LP approximation 5.28) needs an l1 regulariser "
                    f"('l1-clip' or 'l1-flip'), got kind {self.kind!r}."
                )
            return solve_simsvm_lp(
                self.Uk, self.lamk, self.y, self.refk, eta, gamma, n_basis, rng
            )
        return solve_simsvm_sdp(
            self.Uk, self.lamk, self.y, self.refk, self.kind, eta, gamma, self.const
        )

    def _constant_solution(self, eta, gamma):
        # minimise mean(max(0, 1 - y b)): any b in [-1, 1] with the majority sign
        b = 1.0 if np.sum(self.y > 0) >= np.sum(self.y < 0) else -1.0
        hinge = np.maximum(0.0, 1.0 - self.y * b).mean()
        return SimSVMSolution(
            z=np.zeros(0), b=b, alpha=np.zeros(0), t=np.zeros(0),
            objective=float(hinge + gamma * self.const), status="trivial",
            iterations=0, seconds=0.0,
        )

    def finish(self, sol: SimSVMSolution, eta, gamma) -> _PairModel:
        """Recover ``c``, the decision coefficients and the training statistics."""
        a = self.lamk * sol.alpha
        active = a > self.pinv_tol
        z = np.where(active, sol.z, 0.0)
        Uk = self.Uk
        coef_consistent = Uk @ np.where(active, z / np.where(active, self.lamk, 1.0), 0.0)
        c = Uk @ np.where(active, z / np.where(active, a, 1.0), 0.0)
        f = Uk @ sol.z + sol.b
        hinge = np.maximum(0.0, 1.0 - self.y * f)
        alpha_full = self.alpha_dropped.copy()
        alpha_full[self.keep] = sol.alpha
        return _PairModel(
            eigenvalues=self.lam,
            keep=self.keep,
            Uk=Uk,
            alpha=alpha_full,
            z=sol.z,
            intercept=sol.b,
            kernel_coef=c,
            coef_consistent=coef_consistent,
            objective=sol.objective,
            empirical_risk=float(hinge.mean()),
            train_error=float(100.0 * np.mean(np.where(f > 0, 1.0, -1.0) != self.y)),
            status=sol.status,
            iterations=sol.iterations,
            seconds=sol.seconds,
            eig_tol=self.tol,
            gap=np.nan if sol.gap is None else float(sol.gap),
        )


@dataclass
class _PairModel:
    """Fitted binary SimSVM (one one-vs-one pair)."""

    eigenvalues: np.ndarray
    keep: np.ndarray
    Uk: np.ndarray
    alpha: np.ndarray
    z: np.ndarray
    intercept: float
    kernel_coef: np.ndarray
    coef_consistent: np.ndarray
    objective: float
    empirical_risk: float
    train_error: float
    status: str
    iterations: int
    seconds: float
    eig_tol: float
    gap: float = np.nan

    def test_map(self):
        """``P = U diag(alpha) U^T`` over the kept directions (5.19)."""
        Uk = self.Uk
        return (Uk * self.alpha[self.keep]) @ Uk.T

    def kernel(self):
        """``K_alpha = U diag(alpha * lambda) U^T`` over the kept directions (5.18)."""
        Uk = self.Uk
        K = (Uk * (self.alpha * self.eigenvalues)[self.keep]) @ Uk.T
        return 0.5 * (K + K.T)


class SimSVM(PairwiseMixin, PlattProbabilityMixin, ScaleNormalizeMixin, _OvOLinearMixin, ClassifierMixin,
             BaseEstimator):
    """SimSVM: SVM with a learned spectrum modification (Chen 2010, eqs. 5.19-5.31).

    Learns spectrum weights ``alpha`` (``K_alpha = U diag(alpha * lambda) U^T``)
    jointly with the SVM by solving (5.20) exactly, through the dual QP of
    :mod:`proxlearn.kernel_learning._simsvm_dual` where it applies (default) or as the
    SOCP (5.31), approximately as the random LP (5.28), or as the LMI (5.21). Multiclass
    problems are split one-vs-one (each pair has its own eigendecomposition and
    its own ``alpha``). See :mod:`proxlearn.kernel_learning._simsvm` for the
    tolerance and recovery details.

    Parameters
    ----------
    eta : float, default=0.01
        SVM regularisation ``eta > 0`` of (5.20) (``C = 1 / (2 n eta)``).
    gamma : float, default=0.01
        Weight ``gamma > 0`` of the regulariser ``h(alpha)``.
    regularizer : {"l2-clip", "l1-clip", "l2-flip", "l1-flip", "frobenius"}, default="l2-clip"
        ``h(alpha)`` (section 5.2.1): ``||alpha - alpha_clip||_2`` (the thesis's
        default), its l1 version (needed by the LP; used in Table 5.1), the same
        towards ``alpha_flip = sign(lambda)`` (used for Protein-2), or
        ``||K_alpha - S||_F = ||Lambda (alpha - 1)||_2``.
    solver : {"auto", "socp", "dual-qp", "lp", "sdp"}, default="auto"
        ``"auto"`` (default): the fastest exact solver that applies, i.e.
        ``"dual-qp"`` for the l1 and l2 regularisers with a clip or flip
        reference, and ``"socp"`` for ``"frobenius"`` (its reference
        ``alpha = 1`` has ``lambda_i alpha_i < 0`` on the negative eigenvalues, so
        the dual is not the QP of :mod:`proxlearn.kernel_learning._simsvm_dual`). A pair
        whose dual QP certifies only a gap above ``1e-6`` (warning or error
        below) is re-solved by ``"socp"`` without a warning; ``solver_used_``
        names the solver per pair. Both reach the same optimum; the dual QP
        is the faster (docs/benchmarks.md, "Kernel-learning docstrings:
        moved measurements").
        ``"socp"``: exact SOCP (5.31), Clarabel called directly (see
        :mod:`proxlearn.kernel_learning._simsvm_socp`). ``"dual-qp"``: the same exact
        problem through its Lagrangian dual, by our interior point with a
        certified duality gap (:mod:`proxlearn.kernel_learning._simsvm_dual`); every
        regulariser but ``"frobenius"``. Its
        optimum is certified to ``1e-6`` relative; a gap up to ``1e-5`` gives a
        :class:`~proxlearn.kernel_learning._simsvm_socp.SimSVMSolverWarning`, a larger
        one a :class:`~proxlearn.kernel_learning._simsvm_socp.SimSVMSolverError`
        (how often: docs/benchmarks.md, same section). ``"lp"``: random LP approximation
        (5.28) with ``n_basis`` basis draws per eigenvector, HiGHS dual simplex;
        l1 regularisers only; its optimum is an upper bound. ``"sdp"``: LMI
        (5.21) through cvxpy, for verification on small problems.
    n_basis : int, default=50
        ``p`` of the LP approximation (ignored by the other solvers).
    test_transform : {"consistent", "raw"}, default="consistent"
        ``"consistent"``: ``s~ = U diag(alpha) U^T s`` (5.19).
        ``"raw"``: unmodified test similarities (Table 5.4 ablation).
    eig_tol : float, default=1e-6
        Eigenvalues with ``|lambda| <= eig_tol * max|lambda|`` (and never below
        ``n eps max|lambda|``) are treated as zero and removed from the problem.
    random_state : int, RandomState or None, default=None
        Seeds the LP's random basis (``solver="lp"``) and the folds of the
        internal CV of ``probability=True``.
    probability : bool, default=False
        ``predict_proba`` by Platt scaling on an internal CV, see
        :class:`~proxlearn._svm._platt.PlattProbabilityMixin`.
    normalize : bool, default=True
        Solve (5.20) on ``S / scale_`` with ``scale_ = tr S / n`` (1 for a
        unit-diagonal similarity) and divide test rows likewise, so that
        ``eta`` does not depend on the units of ``S`` and a positive factor on
        ``S`` leaves every prediction unchanged; ``False`` uses ``S`` as given
        (the thesis). See :mod:`proxlearn._normalize`.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    scale_ : float
        The factor ``S`` was divided by (1.0 with ``normalize=False``). The
        eigenvalues, learned kernels, ``kernel_coef_`` and objectives below are
        those of ``S / scale_``.
    coef_ : ndarray of shape (n_pairs, n_train)
        Decision ``f(s) = s @ coef_[k] + intercept_[k]`` on *raw* test rows:
        ``U diag(1/lambda) z / scale_`` over the active directions for
        ``"consistent"``, ``c* / scale_`` for ``"raw"``. Zero outside the pair's
        samples.
    intercept_ : ndarray of shape (n_pairs,)
    kernel_coef_ : ndarray of shape (n_pairs, n_train)
        ``c* = U (diag(alpha) Lambda)^+ z`` (kernel-expansion coefficients).
    alpha_ : ndarray of shape (n,) or list of ndarray
        Spectrum weights in ascending eigenvalue order of the (pair's)
        symmetrised training matrix; a list over pairs for multiclass.
    eigenvalues_ : ndarray of shape (n,) or list of ndarray
        The eigenvalues ``lambda`` matching ``alpha_``.
    objective_ : float or ndarray of shape (n_pairs,)
        Optimal value of the training problem in the thesis's normalisation
        ``(1/n) sum xi + eta c^T K_alpha c + gamma h(alpha)`` (for ``"lp"``:
        the LP optimum, an upper bound).
    empirical_risk_ : float or ndarray of shape (n_pairs,)
        Mean training hinge loss.
    train_error_ : float or ndarray of shape (n_pairs,)
        Training error in %.
    n_components_ : int or ndarray of shape (n_pairs,)
        Number of eigen-directions kept.
    eig_tol_ : float or ndarray of shape (n_pairs,)
        Absolute eigenvalue tolerance used.
    solver_status_ : list of str
    solver_used_ : list of str
        Solver that produced each pair's solution (``"dual-qp"``, ``"socp"``,
        ``"lp"``, ``"sdp"``, or ``"trivial"`` when no direction is kept).
    n_iter_ : ndarray of shape (n_pairs,)
    fit_seconds_ : ndarray of shape (n_pairs,)
        Solver time per pair (excluding the eigendecomposition).
    duality_gap_ : ndarray of shape (n_pairs,)
        Certified duality gap of ``objective_`` per pair (``solver="dual-qp"``;
        NaN for the other solvers).
    support_, n_support_, n_features_in_

    Examples
    --------
    >>> from proxlearn.datasets import make_noisy_blobs
    >>> from proxlearn.kernel_learning import SimSVM
    >>> S, y = make_noisy_blobs(2, 15, random_state=0)[:2]
    >>> clf = SimSVM().fit(S, y)
    >>> clf.predict(S[::10]).tolist(), clf.solver_used_
    ([0, 0, 1], ['dual-qp'])

    See Also
    --------
    proxlearn.svm.SimilaritySVC : a fixed spectrum modification (clip, flip, ...).
    FullKernelSVM : a full PSD kernel learned near ``S`` (thesis section 5.1).
    SimMKL : the modified ``S`` combined with base kernels (thesis eq. 5.35).
    IndefiniteSVM : Luss & d'Aspremont's robust SVM (thesis eq. 5.8).
    """

    def __init__(
        self,
        eta=0.01,
        gamma=0.01,
        regularizer="l2-clip",
        solver="auto",
        n_basis=50,
        test_transform="consistent",
        eig_tol=1e-6,
        random_state=None,
        *,
        probability=False,
        normalize=True,
    ):
        self.eta = eta
        self.gamma = gamma
        self.regularizer = regularizer
        self.solver = solver
        self.n_basis = n_basis
        self.test_transform = test_transform
        self.eig_tol = eig_tol
        self.random_state = random_state
        self.probability = probability
        self.normalize = normalize

    _parameter_constraints = {
        "normalize": NORMALIZE,
        "eta": positive(),
        "gamma": positive(),
        "regularizer": options(*REGULARIZERS),
        "solver": options(*SIMSVM_SOLVERS),
        "test_transform": options(*SIMSVM_TEST_TRANSFORMS),
        "eig_tol": positive(allow_zero=True),
        "n_basis": integer(1),
        "random_state": unchecked("sklearn.utils.check_random_state, in fit"),
        "probability": unchecked("read as a truth value, as scikit-learn's SVC"),
    }

    def _validated_params(self):
        """:func:`validate_params`, then the rules that tie two parameters;
        returns the validated values."""
        params = validate_params(self)
        eig_tol = params["eig_tol"]
        if eig_tol >= 1.0:
            raise InvalidParameterError(
                f"eig_tol is relative to max|lambda| and must be < 1, got {eig_tol}."
            )
        if self.solver == "dual-qp" and self.regularizer == "frobenius":
            raise InvalidParameterError(
                "solver='dual-qp' needs a clip or flip reference ('l2-clip', 'l1-clip', "
                f"'l2-flip' or 'l1-flip'), got {self.regularizer!r}; use solver='socp'."
            )
        if self.solver == "lp":
            if REGULARIZERS[self.regularizer][0] != "l1":
                raise InvalidParameterError(
                    "solver='lp' (the LP approximation 5.28) needs regularizer "
                    f"'l1-clip' or 'l1-flip', got {self.regularizer!r}."
                )
        return params

    def fit(self, S, y):
        """Fit on the ``n x n`` training similarity matrix.

        Parameters
        ----------
        S : array-like of shape (n, n)
            Training similarities (asymmetric input is symmetrised with an
            :class:`~proxlearn._validation.AsymmetricSimilarityWarning`).
        y : array-like of shape (n,)
            Class labels (at least two classes).

        Returns
        -------
        self

        Raises
        ------
        SimSVMSolverError
            If the solver does not reach an optimal solution (names its status).
        """
        S_raw = S  # as given: the probability CV refits on slices of it
        params = self._validated_params()
        eta, gamma, eig_tol = (params[k] for k in ("eta", "gamma", "eig_tol"))
        S, classes, y_idx = check_classification_data(S, y, symmetric="symmetrize")
        S = self._fit_scale(S, params["normalize"])
        rng = check_random_state(self.random_state)
        n = S.shape[0]
        self.classes_ = classes

        def fit_binary(p):
            prob = SimSVMProblem(S[np.ix_(p.idx, p.idx)], p.y, self.regularizer, eig_tol)
            sol = prob.solve(eta, gamma, self.solver, self.n_basis, rng)
            used = prob.last_solver
            return used, prob.finish(sol, eta, gamma)

        problems, fits = ovo_fit(y_idx, len(classes), fit_binary)
        used = [u for u, _ in fits]
        models = [m for _, m in fits]
        coef = scatter_pairs(problems, [m.kernel_coef if self.test_transform == "raw"
                                        else m.coef_consistent for m in models], n)
        kcoef = scatter_pairs(problems, [m.kernel_coef for m in models], n)
        intercept = np.array([m.intercept for m in models], dtype=np.float64)
        self.coef_, self.intercept_, self.kernel_coef_ = coef / self.scale_, intercept, kcoef
        self.pair_models_ = models
        self.pair_indices_ = [p.idx for p in problems]
        binary = len(problems) == 1

        def collect(attr, as_array=True):
            vals = [getattr(m, attr) for m in models]
            if binary:
                return vals[0]
            return np.array(vals) if as_array else vals

        self.alpha_ = collect("alpha", as_array=False)
        self.eigenvalues_ = collect("eigenvalues", as_array=False)
        self.objective_ = collect("objective")
        self.empirical_risk_ = collect("empirical_risk")
        self.train_error_ = collect("train_error")
        self.eig_tol_ = collect("eig_tol")
        self.n_components_ = (
            int(models[0].keep.sum()) if binary else np.array([int(m.keep.sum()) for m in models])
        )
        self.solver_status_ = [m.status for m in models]
        self.solver_used_ = used
        self.n_iter_ = np.array([m.iterations for m in models])
        self.fit_seconds_ = np.array([m.seconds for m in models])
        self.duality_gap_ = np.array([m.gap for m in models])
        self._set_support(y_idx, n)
        return self._fit_probability(S_raw, y)

    # ----------------------------------------------------------- inspection
    def learned_kernel(self, pair=0):
        """Learned kernel ``K_alpha = U diag(alpha lambda) U^T`` of one pair (5.18).

        Returns the ``(n_pair, n_pair)`` matrix over the samples
        ``pair_indices_[pair]`` (all training samples for two classes).
        """
        check_is_fitted(self, "pair_models_")
        return self.pair_models_[pair].kernel()

    def modify_test(self, S_test, pair=0):
        """Consistently modified test rows ``s~ = U diag(alpha) U^T s`` (5.19).

        Parameters
        ----------
        S_test : array-like of shape (m, n_train)
        pair : int
            One-vs-one pair (0 for two classes).

        Returns
        -------
        ndarray of shape (m, n_pair)
            Row ``i`` of a training row given as test row equals row ``i`` of
            :meth:`learned_kernel`.
        """
        check_is_fitted(self, "pair_models_")
        arr = check_test_similarity(S_test, self.n_features_in_) / self.scale_
        idx = self.pair_indices_[pair]
        return arr[:, idx] @ self.pair_models_[pair].test_map()


def simsvm_fold_decisions(
    S_train, y_train, S_test, params_list, regularizer="l2-clip", eig_tol=1e-6,
    test_transforms=("consistent",),
):
    """Predictions of SimSVM for every ``(eta, gamma)`` of a grid, sharing work.

    One eigendecomposition and one solver set-up per one-vs-one pair, re-solved
    for each grid point with ``solver="auto"`` (as :class:`SimSVM`'s default):
    the dual QP's data are ``(eta, gamma)``-free, and the SOCP of a fallback is
    assembled once with only its cost vector updated (Clarabel data update).

    Returns
    -------
    dict mapping each test transform to a list of predicted labels per params.
    """
    S, classes, y_idx = check_classification_data(S_train, y_train, symmetric="symmetrize")
    S_test = check_test_similarity(S_test, S.shape[0])

    def decisions(pair):
        """The pair's decision values ``(n_params, m)`` per test transform."""
        prob = SimSVMProblem(S[np.ix_(pair.idx, pair.idx)], pair.y, regularizer, eig_tol)
        St = S_test[:, pair.idx]
        out = {tt: np.zeros((len(params_list), S_test.shape[0])) for tt in test_transforms}
        for g, p in enumerate(params_list):
            eta, gamma = check_positive(p["eta"], "eta"), check_positive(p["gamma"], "gamma")
            m = prob.finish(prob.solve(eta, gamma), eta, gamma)
            for tt in test_transforms:
                w = m.kernel_coef if tt == "raw" else m.coef_consistent
                out[tt][g] = St @ w + m.intercept
        return out

    _, per_pair = ovo_fit(y_idx, len(classes), decisions)
    return {
        tt: [ovo_labels(np.stack([d[tt][g] for d in per_pair], axis=1), classes)
             for g in range(len(params_list))]
        for tt in test_transforms
    }

