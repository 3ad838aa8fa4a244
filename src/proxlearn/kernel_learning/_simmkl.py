"""SimMKL: multiple kernel learning with an indefinite similarity (Chen 2010, eqs. 5.35/5.36).

Binary problem (thesis scaling; ``S = U diag(lambda) U^T``)::

    minimize   (1/n) 1^T xi + eta c^T kappa c + gamma ||alpha - alpha_ref||_2
    subject to diag(y)(kappa c + b 1) >= 1 - xi,  xi >= 0,  w >= 0,
               Lambda alpha >= 0,   sum_j w_j tr(K_j) <= tau,
    kappa(alpha, w) = U diag(alpha) Lambda U^T + sum_j w_j K_j           (5.35)

The thesis writes it as the conic program (5.36) with one (n+1) x (n+1) LMI
``[[kappa, z], [z^T, u]] PSD`` (solved with SDPT3). We solve an **exactly
equivalent SOCP** instead (our derivation; checked against the SDP (5.36) in
``tests/kernel_learning/test_simmkl.py``): kappa is a conic combination of
rank-one / low-rank PSD terms, ``kappa = sum_i theta_i u_i u_i^T + sum_j w_j L_j L_j^T``
with ``theta = Lambda alpha >= 0`` and ``K_j = L_j L_j^T`` (eigen-factor of
``K_j``), and for such sums ::

    z^T kappa^+ z = min { sum_i zeta_i^2 / theta_i + sum_j ||v_j||^2 / w_j :
                          U zeta + sum_j L_j v_j = z }

(the standard MKL / group-lasso identity; ``z`` outside ``range(kappa)`` is
infeasible on both sides). Each ratio is a rotated second-order cone
(Lemma 5.3 / App. B), so (5.36) becomes::

    minimize   (1/n) 1^T xi + eta (1^T t + 1^T r) + gamma v
    subject to diag(y)(U zeta + sum_j L_j v_j + b 1) >= 1 - xi,  xi >= 0,
               zeta_i^2 <= theta_i t_i,  theta = Lambda alpha >= 0,
               ||v_j||^2 <= w_j r_j,  w >= 0,  sum_j w_j tr(K_j) <= tau,
               ||alpha - alpha_ref||_2 <= v

with n three-dimensional cones and m cones of dimension rank(K_j) + 2 instead
of an (n+1)-dimensional LMI. With no base kernels it is exactly the SimSVM
SOCP (5.31). Eigen-directions with ``|lambda_i| <= tol`` are removed (their
``alpha_i`` only enters ``h`` and equals the reference value at the optimum,
docs/methods.md, "Kernel-learning reference notes").

Recovery and test rows follow the thesis (end of section 5.4.2):
``c* = kappa(alpha*, w*)^+ z*`` and a test sample with similarity row ``s`` and
base-kernel rows ``k_j`` gets ``f = c*^T (U diag(alpha*) U^T s + sum_j w*_j k_j) + b*``.
In the test map ``U diag(alpha*) U^T`` the removed near-zero directions get
factor 0 (the Proposition-1 convention of
:class:`proxlearn.transforms.SpectrumTransformer`); this leaves every training
row consistent.

Choices the thesis leaves open (docs/methods.md, "Kernel-learning reference
notes"): ``tau`` (default
``tr(S_clip)`` of the training problem, i.e. the kernel part may have the
trace of the clipped similarity), base kernels are not normalised, the
reference of the regulariser is ``alpha_clip`` (``reference="clip"``, used for
all SimMKL experiments in the thesis; ``"flip"`` is available).
"""

from __future__ import annotations

import warnings

import numpy as np
import scipy.linalg
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.utils.validation import check_is_fitted

from ..exceptions import DissimilarityWarning
from .._validation import (
    NORMALIZE,
    InvalidParameterError,
    LabelError,
    check_labels,
    check_option,
    check_similarity,
    check_test_similarity,
    options,
    positive,
    unchecked,
    validate_params,
)
from ..base import PairwiseMixin
from .._normalize import ScaleNormalizeMixin
from .._svm._platt import PlattProbabilityMixin
from .._svm._multiclass import ovo_decision, ovo_fit, ovo_labels, scatter_pairs
from ..transforms._spectrum import default_tol
from ._base_kernels import make_base_kernel
from ._full_kernel_svm import SOLVERS, SolverFailedError, psd_pinv_solve, solve_problem

__all__ = ["SimMKL", "SimMKLProblem"]

REFERENCES = ("clip", "flip")


def _factor(K, rel_tol=1e-10):
    """``L`` with ``K ~= L L^T`` from the eigenvalues above ``rel_tol * max``."""
    d, V = scipy.linalg.eigh(0.5 * (K + K.T), check_finite=False)
    top = float(d.max(initial=0.0))
    if top <= 0:
        return np.zeros((K.shape[0], 0))
    keep = d > rel_tol * top
    return V[:, keep] * np.sqrt(d[keep])


class SimMKLProblem:
    """The SOCP form of SimMKL (5.36) for one binary problem, assembled once.

    The eigendecomposition of ``S``, the base-kernel factors and the conic data
    do not depend on (eta, gamma): a whole grid re-solves the same data with a
    new cost vector (the study's fold evaluator uses this).

    Parameters
    ----------
    S : ndarray of shape (n, n)
        Symmetric training similarity.
    y : ndarray of shape (n,)
        Labels in {-1, +1}.
    kernels : list of ndarray of shape (n, n)
        PSD base kernels on the same samples.
    tau : float or None
        Trace bound; None uses ``tr(S_clip)`` (the sum of positive eigenvalues).
    reference : {"clip", "flip"}
    tol : float or None
        Zero-eigenvalue tolerance of ``S`` (None: ``n eps max|lambda|``).
    """

    def __init__(self, S, y, kernels, tau=None, reference="clip", tol=None):
        n = S.shape[0]
        lam, U = scipy.linalg.eigh(S, check_finite=False)
        self.tol = default_tol(lam) if tol is None else float(tol)
        active = np.abs(lam) > self.tol
        if reference == "clip":
            a_ref = (lam > 0).astype(np.float64)
        else:
            a_ref = np.sign(lam)
        self.lam, self.U, self.active, self.a_ref = lam, U, active, a_ref
        self.kernels = [np.asarray(K, dtype=np.float64) for K in kernels]
        self.traces = np.array([float(np.trace(K)) for K in self.kernels])
        if np.any(self.traces <= 0):
            raise InvalidParameterError(
                "every base kernel needs a positive trace (a non-zero PSD matrix)."
            )
        self.tau = float(np.sum(np.maximum(lam, 0.0))) if tau is None else float(tau)
        if self.tau <= 0:
            self.tau = float(n)  # all-nonpositive spectrum: fall back to n
        self.n, self.y = n, y

        self.factors = [_factor(K) for K in self.kernels]
        self._cvx = None

    # ------------------------------------------------------------ Clarabel
    def _assemble(self):
        """Sparse conic data ``A x + s = b, s in K`` of the SOCP for Clarabel (cached)."""
        import scipy.sparse as sp

        if getattr(self, "_data", None) is not None:
            return self._data
        n, y = self.n, self.y
        act = self.active
        la, Ua, ar = self.lam[act], self.U[:, act], self.a_ref[act]
        k, m = int(act.sum()), len(self.kernels)
        ranks = [L.shape[1] for L in self.factors]
        # variable layout
        o_xi, o_b, o_vr = 0, n, n + 1
        o_al = n + 2
        o_ze, o_t = o_al + k, o_al + 2 * k
        o_w = o_al + 3 * k
        o_r = o_w + m
        o_v = np.cumsum([o_r + m] + ranks)
        N = int(o_v[-1])
        rows, cols, vals, rhs = [], [], [], []
        row = [0]

        def add(r, c, v):
            rows.append(np.broadcast_to(np.asarray(r), np.shape(v)).ravel()
                        if np.ndim(v) else np.asarray([r]))
            cols.append(np.asarray(c).ravel() if np.ndim(c) else np.asarray([c]))
            vals.append(np.asarray(v, dtype=float).ravel())

        def new_rows(cnt, b=0.0):
            r0 = row[0]
            row[0] += cnt
            rhs.append(np.broadcast_to(np.asarray(b, dtype=float), (cnt,)).copy())
            return np.arange(r0, r0 + cnt)

        # --- non-negative cone -------------------------------------------
        h = new_rows(n, -1.0)  # hinge: y (z + b) + xi >= 1
        if k:
            R, C = np.meshgrid(h, o_ze + np.arange(k), indexing="ij")
            add(R, C, -(y[:, None] * Ua))
        for j, L in enumerate(self.factors):
            if ranks[j]:
                R, C = np.meshgrid(h, o_v[j] + np.arange(ranks[j]), indexing="ij")
                add(R, C, -(y[:, None] * L))
        add(h, np.full(n, o_b), -y)
        add(h, o_xi + np.arange(n), -np.ones(n))
        r = new_rows(n)  # xi >= 0
        add(r, o_xi + np.arange(n), -np.ones(n))
        r = new_rows(1)  # vreg >= 0
        add(r, [o_vr], [-1.0])
        if k:
            r = new_rows(k)  # theta = lambda alpha >= 0
            add(r, o_al + np.arange(k), -la)
            r = new_rows(k)  # t >= 0
            add(r, o_t + np.arange(k), -np.ones(k))
        if m:
            r = new_rows(2 * m)  # w, r >= 0
            add(r, o_w + np.arange(2 * m), -np.ones(2 * m))
            r = new_rows(1, self.tau)  # sum w_j tr(K_j) <= tau
            add(np.full(m, r[0]), o_w + np.arange(m), self.traces)
        n_nonneg = row[0]
        cones = [("nonneg", n_nonneg)]
        # --- second-order cones ------------------------------------------
        if k:
            r = new_rows(1 + k, np.concatenate([[0.0], -ar]))  # ||alpha - a_ref|| <= vreg
            add(r[0], [o_vr], [-1.0])
            add(r[1:], o_al + np.arange(k), -np.ones(k))
            cones.append(("soc", 1 + k))
            for i in range(k):  # zeta_i^2 <= theta_i t_i
                r = new_rows(3)
                add(r[[0, 0, 1, 2, 2]], [o_al + i, o_t + i, o_ze + i, o_al + i, o_t + i],
                    [-la[i], -1.0, -2.0, -la[i], 1.0])
                cones.append(("soc", 3))
        for j in range(m):  # ||v_j||^2 <= w_j r_j
            rj = ranks[j]
            r = new_rows(rj + 2)
            add(r[[0, 0]], [o_w + j, o_r + j], [-1.0, -1.0])
            if rj:
                add(r[1:-1], o_v[j] + np.arange(rj), -2.0 * np.ones(rj))
            add(r[[-1, -1]], [o_w + j, o_r + j], [-1.0, 1.0])
            cones.append(("soc", rj + 2))
        A = sp.csc_matrix(
            (np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))),
            shape=(row[0], N),
        )
        self._data = {
            "A": A, "b": np.concatenate(rhs), "cones": cones, "N": N,
            "off": dict(xi=o_xi, b=o_b, vr=o_vr, al=o_al, ze=o_ze, t=o_t, w=o_w, r=o_r),
            "o_v": o_v, "k": k, "m": m,
        }
        return self._data

    def _solve_clarabel(self, eta, gamma, solver_options):
        import clarabel
        import scipy.sparse as sp

        from ._full_kernel_svm import SolverFailedError, _warn_inaccurate

        d = self._assemble()
        n, k, m, off, N = self.n, d["k"], d["m"], d["off"], d["N"]
        q = np.zeros(N)
        q[off["xi"]:off["xi"] + n] = 1.0 / n
        q[off["vr"]] = gamma
        q[off["t"]:off["t"] + k] = eta
        q[off["r"]:off["r"] + m] = eta
        cones = [clarabel.NonnegativeConeT(c) if kind == "nonneg" else clarabel.SecondOrderConeT(c)
                 for kind, c in d["cones"]]
        settings = clarabel.DefaultSettings()
        settings.verbose = False
        for key, val in dict(solver_options or {}).items():
            if not hasattr(settings, key):
                raise InvalidParameterError(f"unknown Clarabel setting {key!r}.")
            setattr(settings, key, val)
        P = sp.csc_matrix((N, N))
        sol = clarabel.DefaultSolver(P, q, d["A"], d["b"], cones, settings).solve()
        status = str(sol.status)
        what = "SimMKL SOCP (Chen 2010 eq. 5.36)"
        if status.endswith("AlmostSolved"):
            _warn_inaccurate("CLARABEL", what)
        elif not status.endswith("Solved"):
            raise SolverFailedError(
                f"CLARABEL failed on the {what}: status {status!r}. The problem is always "
                "feasible and bounded, so this is numerical trouble: rescale S (e.g. to "
                "[0, 1]), change eta/gamma, or try solver='SCS'."
            )
        x = np.asarray(sol.x)
        zdual = np.asarray(sol.z)
        alpha = x[off["al"]:off["al"] + k]
        zeta = x[off["ze"]:off["ze"] + k]
        w = x[off["w"]:off["w"] + m]
        z = self.U[:, self.active] @ zeta
        for j, L in enumerate(self.factors):
            z = z + L @ x[d["o_v"][j]:d["o_v"][j + 1]]
        return alpha, w, float(x[off["b"]]), z, float(sol.obj_val), zdual[:n]

    # --------------------------------------------------------------- cvxpy
    def _build_cvxpy(self):
        import cvxpy as cp

        n, y = self.n, self.y
        act = self.active
        la, Ua, ar = self.lam[act], self.U[:, act], self.a_ref[act]
        k = int(act.sum())
        eta = cp.Parameter(nonneg=True, value=1.0)
        gamma = cp.Parameter(nonneg=True, value=1.0)
        xi = cp.Variable(n, nonneg=True)
        b = cp.Variable()
        vreg = cp.Variable(nonneg=True)
        z_expr = np.zeros(n)
        cons = []
        obj_quad = 0
        alpha = w = None
        if k:
            alpha = cp.Variable(k)
            zeta = cp.Variable(k)
            t = cp.Variable(k, nonneg=True)
            theta = cp.multiply(la, alpha)
            cons += [theta >= 0, cp.SOC(theta + t, cp.vstack([2 * zeta, theta - t]), axis=0),
                     cp.norm(alpha - ar, 2) <= vreg]
            z_expr = z_expr + Ua @ zeta
            obj_quad = obj_quad + cp.sum(t)
        m = len(self.kernels)
        if m:
            w = cp.Variable(m, nonneg=True)
            r = cp.Variable(m, nonneg=True)
            cons.append(self.traces @ w <= self.tau)
            for j, L in enumerate(self.factors):
                if L.shape[1] == 0:
                    continue
                v = cp.Variable(L.shape[1])
                last = cp.reshape(w[j] - r[j], (1,), order="F")
                cons.append(cp.SOC(w[j] + r[j], cp.hstack([2 * v, last])))
                z_expr = z_expr + L @ v
            obj_quad = obj_quad + cp.sum(r)
        hinge = cp.multiply(y, z_expr + b) >= 1 - xi
        cons.append(hinge)
        prob = cp.Problem(cp.Minimize(cp.sum(xi) / n + eta * obj_quad + gamma * vreg), cons)
        self._cvx = (prob, eta, gamma, alpha, w, b, z_expr, hinge)

    def _solve_cvxpy(self, eta, gamma, solver, solver_options):
        if self._cvx is None:
            self._build_cvxpy()
        prob, p_eta, p_gamma, alpha, w, b, z_expr, hinge = self._cvx
        p_eta.value, p_gamma.value = float(eta), float(gamma)
        solve_problem(prob, solver, solver_options, "SimMKL SOCP (Chen 2010 eq. 5.36)")
        k, m = int(self.active.sum()), len(self.kernels)
        a = np.asarray(alpha.value).ravel() if k else np.zeros(0)
        wv = np.asarray(w.value).ravel() if m else np.zeros(0)
        z = np.asarray(z_expr.value if hasattr(z_expr, "value") else z_expr).ravel()
        return (a, wv, float(b.value), z, float(prob.value),
                np.asarray(hinge.dual_value, dtype=np.float64).ravel())

    def solve(self, eta, gamma, solver="CLARABEL", solver_options=None, rank_tol=1e-10):
        """Solve for one (eta, gamma); return a dict of the recovered solution.

        ``solver="CLARABEL"`` calls Clarabel directly on the assembled conic
        data (the data are built once and reused across an (eta, gamma) grid);
        ``"SCS"`` goes through cvxpy.

        Keys: ``alpha`` (n, eigen-order of ``S``; removed directions at the
        reference value), ``test_factor`` (n, factor of the test map, 0 on
        removed directions), ``weights`` (m,), ``b``, ``z`` (n,), ``c`` (n,)
        ``= kappa^+ z``, ``kappa`` (n, n), ``objective``, ``hinge_dual`` (n,),
        the multipliers of the hinge constraints.
        """
        if solver == "CLARABEL":
            a, w, b, z, obj, hd = self._solve_clarabel(eta, gamma, solver_options)
        else:
            a, w, b, z, obj, hd = self._solve_cvxpy(eta, gamma, solver, solver_options)
        n = self.n
        alpha = self.a_ref.copy()
        factor = np.zeros(n)
        alpha[self.active] = a
        factor[self.active] = a
        theta = np.maximum(self.lam * factor, 0.0)
        w = np.maximum(w, 0.0)
        kappa = (self.U * theta) @ self.U.T
        for wj, K in zip(w, self.kernels, strict=True):
            kappa += wj * K
        c, _, _ = psd_pinv_solve(kappa, z, rank_tol)
        return {
            "alpha": alpha,
            "test_factor": factor,
            "weights": w,
            "b": b,
            "z": z,
            "c": c,
            "kappa": kappa,
            "objective": obj,
            "hinge_dual": hd,
        }


def _check_kernels(kernels):
    if kernels is None:
        return [make_base_kernel("linear")]
    if isinstance(kernels, str) or not isinstance(kernels, list | tuple):
        raise InvalidParameterError(
            "kernels must be a list of base-kernel specs, e.g. "
            "['linear', ('rbf', 0.01), ('rbf', 0.1)], or None."
        )
    return [make_base_kernel(k) for k in kernels]


class SimMKL(PairwiseMixin, PlattProbabilityMixin, ScaleNormalizeMixin, ClassifierMixin, BaseEstimator):
    """Fuse an indefinite similarity with PSD base kernels (Chen 2010, SimMKL, eqs. 5.35/5.36).

    Jointly learns a spectrum modification ``alpha`` of ``S`` (as SimSVM), the
    conic weights ``w`` of the base kernels and the SVM, solving the exact
    SOCP reformulation of (5.36) described in :mod:`proxlearn.kernel_learning._simmkl`.
    Test rows: ``f = c*^T (U diag(alpha*) U^T s + sum_j w*_j k_j(x)) + b*`` with
    the base kernels' consistent test rows. Multiclass: one-vs-one, one SOCP per
    pair on the pair's samples (base kernels are computed on the whole
    training set and sliced, as libsvm does with a precomputed kernel).

    Parameters
    ----------
    eta : float, default=0.01
        Weight of ``c^T kappa c`` (thesis grid 1e-4 .. 1).
    gamma : float, default=1.0
        Weight of ``h(alpha) = ||alpha - alpha_ref||_2`` (thesis grid 1e-3 .. 1e3).
    tau : float or None, default=None
        Trace bound ``sum_j w_j tr(K_j) <= tau`` (not stated in the thesis).
        None uses ``tr(S_clip)`` of each binary training problem.
    kernels : list of specs or None, default=None
        Base kernels built from the similarities, see
        :func:`~proxlearn.kernel_learning._base_kernels.make_base_kernel`:
        ``"linear"``, ``("rbf", beta)``, ``("diffusion", sigma2)`` or
        transformers. None means ``["linear"]``. An empty list gives SimSVM
        (5.31).
    reference : {"clip", "flip"}, default="clip"
        ``alpha_ref`` of the regulariser (thesis: clip for all SimMKL runs).
    solver : {"CLARABEL", "SCS"}, default="CLARABEL"
    solver_options : dict or None, default=None
    tol : float or None, default=None
        Zero-eigenvalue tolerance of ``S`` (None: ``n eps max|lambda|``).
    probability, random_state : bool, default=False; int or None, default=None
        ``predict_proba`` by Platt scaling on an internal CV, see
        :class:`~proxlearn._svm._platt.PlattProbabilityMixin`.
    normalize : bool, default=True
        Divide ``S`` and the test rows by ``scale_ = tr S / n`` (1 for a
        unit-diagonal similarity) before the eigendecomposition and the base
        kernels, so that ``eta`` and the base kernels' parameters do not depend
        on the units of ``S`` and a positive factor on ``S`` leaves every
        prediction unchanged; ``False`` uses ``S`` as given (the thesis). See
        :mod:`proxlearn._normalize`.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    scale_ : float
        The factor ``S`` was divided by (1.0 with ``normalize=False``); the
        eigenvalues, coefficients and ``tau_`` below are those of ``S / scale_``.
    alpha_ : ndarray of shape (n,) or None
        Learned spectrum modification (eigenvalues of ``S`` in ascending
        order, see ``eigenvalues_``), binary problems; None for multiclass
        (see ``alphas_``).
    alphas_ : list of ndarray
        ``alpha*`` per one-vs-one pair.
    eigenvalues_ : list of ndarray
        Ascending eigenvalues of each pair's ``S``.
    weights_ : ndarray of shape (n_pairs, n_kernels)
        Learned base-kernel weights ``w*``.
    kernel_transformers_ : list
        Fitted base-kernel transformers.
    dual_coef_ : ndarray of shape (n_pairs, n)
        ``c* = kappa^+ z*`` (zero outside each pair's samples).
    similarity_coef_ : ndarray of shape (n_pairs, n)
        ``U diag(alpha*) U^T c*``, the weight of the raw test similarities.
    intercept_ : ndarray of shape (n_pairs,)
    objective_ : ndarray of shape (n_pairs,)
        Optimal value of (5.36) per pair.
    tau_ : ndarray of shape (n_pairs,)
        Trace bound used per pair.
    n_features_in_ : int

    Examples
    --------
    >>> from proxlearn.datasets import make_noisy_blobs
    >>> from proxlearn.kernel_learning import SimMKL
    >>> S, y = make_noisy_blobs(2, 15, random_state=0)[:2]
    >>> clf = SimMKL(kernels=["linear"]).fit(S, y)
    >>> clf.predict(S[::10]).tolist(), clf.weights_.shape
    ([0, 0, 1], (1, 1))

    See Also
    --------
    SimSVM : the same problem without base kernels (thesis eq. 5.31).
    make_base_kernel : the base kernels built from the similarities.
    BaseKernelSVC : an SVM on one base kernel.
    proxlearn.mkl : multiple kernel learning over PSD kernels only.
    """

    def __init__(
        self,
        eta=0.01,
        gamma=1.0,
        tau=None,
        kernels=None,
        reference="clip",
        solver="CLARABEL",
        solver_options=None,
        tol=None,
        *,
        probability=False,
        random_state=None,
        normalize=True,
    ):
        self.eta = eta
        self.gamma = gamma
        self.tau = tau
        self.kernels = kernels
        self.reference = reference
        self.solver = solver
        self.solver_options = solver_options
        self.tol = tol
        self.probability = probability
        self.random_state = random_state
        self.normalize = normalize

    _parameter_constraints = {
        "normalize": NORMALIZE,
        "eta": positive(),
        "gamma": positive(),
        "tau": options(None) | positive(),
        "reference": options(*REFERENCES),
        "solver": options(*SOLVERS),
        "tol": options(None) | positive(allow_zero=True),
        "kernels": unchecked("base kernel specs, checked by _check_kernels"),
        "solver_options": unchecked("handed to cvxpy's solve"),
        "probability": unchecked("read as a truth value, as scikit-learn's SVC"),
        "random_state": unchecked("sklearn.utils.check_random_state, in the probability CV"),
    }

    @staticmethod
    def _solver_args(params):
        """``eta, gamma, tau, tol`` of validated parameters (:func:`validate_params`)."""
        return tuple(params[k] for k in ("eta", "gamma", "tau", "tol"))

    def fit(self, S, y):
        """Fit on the ``n x n`` training similarity matrix.

        Parameters
        ----------
        S : array-like of shape (n, n)
            Training similarities. The spectral part uses the symmetric part
            (warning when asymmetric); similarity-feature kernels use the rows
            as given.
        y : array-like of shape (n,)

        Returns
        -------
        self
        """
        params = validate_params(self)
        eta, gamma, tau, tol = self._solver_args(params)
        transformers, classes, y_idx, Ssym, Ks = self._prepare(S, y, params["normalize"])
        self._fit_from_kernels(Ssym, y_idx, classes, Ks, eta, gamma, tau, tol)
        self.kernel_transformers_ = transformers
        return self._fit_probability(S, y)

    def _prepare(self, S, y, normalize):
        """What a fit computes before the conic problem, shared by ``fit`` and
        ``grid_predictions``: ``(transformers, classes, y_idx, Ssym, Ks)`` with the
        symmetrised, scaled ``S`` and the base kernels of the scaled rows (sets
        ``scale_``)."""
        transformers = _check_kernels(self.kernels)
        raw = check_similarity(S, symmetric="allow", dissimilarity_check=False)
        classes, y_idx = check_labels(y, raw.shape[0])
        if classes.dtype.kind == "f" and np.any(classes != np.round(classes)):
            raise LabelError("Unknown label type: continuous. Pass class labels.")
        Ssym = self._fit_scale(check_similarity(raw, symmetric="symmetrize"), normalize)
        raw = raw / self.scale_
        with warnings.catch_warnings():  # S was checked just above: warn once, not per kernel
            warnings.simplefilter("ignore", DissimilarityWarning)
            Ks = [tf.fit_transform(raw) for tf in transformers]
        return transformers, classes, y_idx, Ssym, Ks

    def grid_predictions(self, S, y, S_test, params_list, *, on_failure="raise"):
        """Labels of ``S_test`` for every parameter set of ``params_list``, fitted on ``S, y``.

        One call for a whole grid (the grid-path protocol, docs/architecture.md).
        Entry ``i`` equals ``clone(self).set_params(**params_list[i]).fit(S, y).predict(S_test)``.
        Shared: the base kernels of the training and test rows, each one-vs-one
        block's eigendecomposition and its compiled conic problem (the grid's
        ``eta`` and ``gamma`` are its parameters; Chen 2010, sec. 5.4).

        Parameters
        ----------
        S : array-like of shape (n, n)
        y : array-like of shape (n,)
        S_test : array-like of shape (m, n)
        params_list : list of dict
            Values of ``eta`` and ``gamma`` (and other parameters that do not change
            the base kernels).
        on_failure : {"raise", "none"}, default="raise"
            A grid point whose conic solver fails (``SolverFailedError``): raise, or
            return an object array of ``None`` for it (the reproduction study counts
            such a point as wrong on every validation sample).

        Returns
        -------
        list of ndarray of shape (m,)
        """
        check_option(on_failure, "on_failure", ("raise", "none"))
        model = clone(self)
        transformers, classes, y_idx, Ssym, Ks = model._prepare(
            S, y, validate_params(model)["normalize"])
        S_test = check_test_similarity(S_test, Ssym.shape[0]) / model.scale_
        K_tests = [tf.transform(S_test) for tf in transformers]
        k = len(classes)
        problems = [None] * (k * (k - 1) // 2)
        out = []
        for p in params_list:
            model.set_params(**p)
            eta, gamma, tau, tol = model._solver_args(validate_params(model))
            try:
                model._fit_from_kernels(Ssym, y_idx, classes, Ks, eta, gamma, tau, tol,
                                        problems=problems)
            except SolverFailedError:
                if on_failure == "raise":
                    raise
                out.append(np.full(S_test.shape[0], None, dtype=object))
                continue
            out.append(ovo_labels(model._raw_from_kernels(S_test, K_tests), classes))
        return out

    def _fit_from_kernels(self, Ssym, y_idx, classes, Ks, eta, gamma, tau, tol, problems=None):
        n = Ssym.shape[0]

        def fit_binary(p):
            if problems is not None and problems[p.k] is not None:
                prob = problems[p.k]
            else:
                prob = SimMKLProblem(
                    Ssym[np.ix_(p.idx, p.idx)], p.y, [K[np.ix_(p.idx, p.idx)] for K in Ks],
                    tau=tau, reference=self.reference, tol=tol,
                )
                if problems is not None:
                    problems[p.k] = prob
            return prob, prob.solve(eta, gamma, self.solver, self.solver_options)

        pairs, fits = ovo_fit(y_idx, len(classes), fit_binary)
        self.dual_coef_ = scatter_pairs(pairs, [sol["c"] for _, sol in fits], n)
        self.similarity_coef_ = scatter_pairs(
            pairs, [prob.U @ (sol["test_factor"] * (prob.U.T @ sol["c"])) for prob, sol in fits], n)
        self.weights_ = np.array([sol["weights"] for _, sol in fits], dtype=np.float64)
        self.intercept_ = np.asarray([sol["b"] for _, sol in fits])
        self.objective_ = np.asarray([sol["objective"] for _, sol in fits])
        self.tau_ = np.asarray([prob.tau for prob, _ in fits])
        self.alphas_ = [sol["alpha"] for _, sol in fits]
        self.eigenvalues_ = [prob.lam for prob, _ in fits]
        self.classes_ = classes
        self.alpha_ = self.alphas_[0] if len(pairs) == 1 else None
        self.n_features_in_ = n
        return self

    def _raw_from_kernels(self, S_test, K_tests):
        raw = S_test @ self.similarity_coef_.T
        for j, Kt in enumerate(K_tests):
            raw += (Kt @ self.dual_coef_.T) * self.weights_[:, j]
        return raw + self.intercept_

    def _raw(self, S_test):
        check_is_fitted(self, "dual_coef_")
        S_test = check_test_similarity(S_test, self.n_features_in_) / getattr(self, "scale_", 1.0)
        K_tests = [tf.transform(S_test) for tf in self.kernel_transformers_]
        return self._raw_from_kernels(S_test, K_tests)

    def decision_function(self, S_test):
        """Decision values for test-to-train similarities ``(m, n)``.

        Shape ``(m,)`` for two classes (positive means ``classes_[1]``), else
        ``(m, n_classes)`` (one-vs-one votes plus a tie-breaking term).
        """
        return ovo_decision(self._raw(S_test), len(self.classes_))

    def predict(self, S_test):
        """Predict class labels for test-to-train similarities ``(m, n)``."""
        return ovo_labels(self._raw(S_test), self.classes_)

