"""Conic solvers of SimSVM (Chen 2010 thesis, section 5.2, eqs. 5.20-5.31).

SimSVM learns spectrum weights ``alpha`` of ``S = U diag(lambda) U^T`` jointly
with an SVM (eq. 5.20)::

    min_{c, b, xi, alpha}  (1/n) 1^T xi + eta c^T K_alpha c + gamma h(alpha)
    s.t.  diag(y) (K_alpha c + b 1) >= 1 - xi,  xi >= 0,  Lambda alpha >= 0,

with ``K_alpha = U diag(alpha * lambda) U^T`` on the eigen-directions the
caller keeps (``|lambda_i|`` above a tolerance). Three solvers of the same
problem, each returning a :class:`SimSVMSolution`:

* :class:`SimSVMSOCP` -- the exact SOCP (5.31), assembled once and solved by
  Clarabel for any ``(eta, gamma)``; :func:`conic_kkt_residuals` certifies it;
* :func:`solve_simsvm_lp` -- the random LP approximation (5.28), an upper bound
  on the SOCP optimum (its parts: :func:`lp_basis_draws`,
  :func:`simsvm_lp_program`, :func:`lp_solution_parts`);
* :func:`solve_simsvm_sdp` -- the LMI form (5.21) in cvxpy, for verification on
  small problems.

A failed solve raises :class:`SimSVMSolverError` naming the solver's status; a
solution to reduced accuracy warns (:class:`SimSVMSolverWarning`). Why Clarabel
is called without a modelling layer, how dropped eigen-directions enter, and the
LP's compact form: docs/methods.md, "SimSVM's conic solvers".

Examples
--------
>>> import numpy as np
>>> from proxlearn.kernel_learning._simsvm_socp import SimSVMSOCP
>>> U, lam = np.eye(4), np.array([3.0, 2.0, 1.0, 0.5])  # kept eigenpairs of S
>>> y, ref = np.array([1.0, 1.0, -1.0, -1.0]), np.ones(4)
>>> sol = SimSVMSOCP(U, lam, y, ref, kind="l1").solve(eta=0.01, gamma=0.01)
>>> sol.status, sol.alpha.shape
('Solved', (4,))

See Also
--------
proxlearn.kernel_learning.SimSVM : the estimator these solvers serve.
proxlearn.kernel_learning._simsvm_dual.SimSVMDualQP : the same problem through its dual.
"""

from __future__ import annotations

import time
import warnings
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from ..exceptions import SimSVMSolverError, SimSVMSolverWarning, SolverError

__all__ = [
    "REG_KINDS",
    "SimSVMSOCP",
    "SimSVMSolution",
    "SimSVMSolverError",
    "SimSVMSolverWarning",
    "conic_kkt_residuals",
    "simsvm_objective",
    "SimSVMLinearProgram",
    "lp_basis_draws",
    "lp_solution_parts",
    "simsvm_lp_program",
    "solve_simsvm_lp",
    "solve_simsvm_sdp",
]

#: Regulariser kinds understood by the solvers: ``"l1"`` (``||alpha - ref||_1``),
#: ``"l2"`` (``||alpha - ref||_2``), ``"frobenius"`` (``||Lambda (alpha - 1)||_2
#: = ||K_alpha - S||_F``).
REG_KINDS = ("l1", "l2", "frobenius")


@dataclass
class SimSVMSolution:
    """Solution of one SimSVM training problem in the eigenbasis.

    Attributes
    ----------
    z : ndarray of shape (k,)
        ``z_i = lambda_i alpha_i (U^T c)_i`` on the kept eigen-directions
        (so ``K_alpha c = U z``).
    b : float
        Bias.
    alpha : ndarray of shape (k,)
        Spectrum weights of the kept directions.
    t : ndarray of shape (k,)
        Epigraph variables, ``t_i >= z_i^2 / (lambda_i alpha_i)``.
    objective : float
        Optimal value in the thesis's normalisation
        ``(1/n) 1^T xi + eta 1^T t + gamma h(alpha)``.
    status : str
    iterations : int
    seconds : float
        Solver wall time (excluding assembly).
    x, s, dual : ndarray or None
        Raw conic primal, slack and dual vectors (Clarabel SOCP only).
    gap, dual_objective : float or None
        Certified duality gap and the dual (lower-bound) objective (the dual-QP
        interior point of :mod:`proxlearn.kernel_learning._simsvm_dual` only).
    """

    z: np.ndarray
    b: float
    alpha: np.ndarray
    t: np.ndarray
    objective: float
    status: str
    iterations: int
    seconds: float
    x: np.ndarray | None = None
    s: np.ndarray | None = None
    dual: np.ndarray | None = None
    gap: float | None = None
    dual_objective: float | None = None


def _reg_value(kind, alpha, ref, lam, const=0.0):
    if kind == "l1":
        return float(np.sum(np.abs(alpha - ref)))
    if kind == "l2":
        return float(np.sqrt(np.sum((alpha - ref) ** 2) + const**2))
    return float(np.sqrt(np.sum((lam * (alpha - ref)) ** 2) + const**2))


def simsvm_objective(U, lam, y, ref, kind, eta, gamma, z, b, alpha, const=0.0):
    """Objective (5.20) at ``(z, b, alpha)``: ``mean hinge + eta c^T K c + gamma h``.

    ``c^T K_alpha c = sum_i z_i^2 / (lambda_i alpha_i)`` over directions with
    ``lambda_i alpha_i > 0`` (``inf`` if some ``z_i != 0`` has
    ``lambda_i alpha_i <= 0``).

    Parameters
    ----------
    U, lam, y, ref, kind, const
        The problem, as in :class:`SimSVMSOCP`.
    eta, gamma : float
        Weights of the quadratic term and of the regulariser ``h``.
    z, b, alpha
        The point, as in :class:`SimSVMSolution`.

    Returns
    -------
    float

    Examples
    --------
    >>> import numpy as np
    >>> from proxlearn.kernel_learning._simsvm_socp import SimSVMSOCP, simsvm_objective
    >>> U, lam = np.eye(4), np.array([3.0, 2.0, 1.0, 0.5])  # kept eigenpairs of S
    >>> y, ref = np.array([1.0, 1.0, -1.0, -1.0]), np.ones(4)
    >>> sol = SimSVMSOCP(U, lam, y, ref, kind="l1").solve(0.01, 0.01)
    >>> value = simsvm_objective(U, lam, y, ref, "l1", 0.01, 0.01, sol.z, sol.b, sol.alpha)
    >>> bool(abs(value - sol.objective) < 1e-6)
    True

    See Also
    --------
    SimSVMSOCP : the exact solver of this objective.
    """
    f = U @ z + b
    hinge = np.maximum(0.0, 1.0 - y * f).mean()
    a = lam * alpha
    pos = a > 0
    if np.any(z[~pos] != 0.0):
        quad = np.inf
    else:
        quad = float(np.sum(z[pos] ** 2 / a[pos]))
    return float(hinge + eta * quad + gamma * _reg_value(kind, alpha, ref, lam, const))


# ---------------------------------------------------------------------------
# exact SOCP (5.31), Clarabel called directly
# ---------------------------------------------------------------------------


class SimSVMSOCP:
    """The SOCP (5.31) for fixed data, re-solvable for any ``(eta, gamma)``.

    With ``z = diag(alpha) Lambda U^T c`` and epigraph variables ``t``, the
    quadratic term is ``eta 1^T t`` under the rotated cones
    ``||(2 z_i, lambda_i alpha_i - t_i)|| <= lambda_i alpha_i + t_i`` (Lemma 5.3).
    Variables (in this order): ``z`` (k), ``b`` (1), ``xi`` (n), ``alpha`` (k),
    ``t`` (k), ``v`` (k for l1, 1 for l2/frobenius). Constraints, as
    ``A x + s = b_vec``:

    * hinge ``y_j ((U z)_j + b) + xi_j >= 1`` and ``xi >= 0`` (non-negative cone);
    * l1: ``|alpha_i - ref_i| <= v_i`` (2k non-negative rows), objective
      ``gamma 1^T v``; l2: ``||(alpha - ref, const)|| <= v``; frobenius:
      ``||(lambda (alpha - ref), const)|| <= v`` (one SOC);
    * per direction the 3-dimensional cone
      ``(lambda_i alpha_i + t_i, 2 z_i, lambda_i alpha_i - t_i)``.

    :meth:`solve` changes only the cost vector between grid points and keeps
    Clarabel's factorisation.

    Parameters
    ----------
    U : ndarray of shape (n, k)
        Kept eigenvectors (orthonormal columns).
    lam : ndarray of shape (k,)
        Kept eigenvalues (non-zero).
    y : ndarray of shape (n,)
        Labels in ``{-1, +1}``.
    ref : ndarray of shape (k,)
        Reference spectrum weights (``alpha_clip``, ``alpha_flip`` or ones).
    kind : {"l1", "l2", "frobenius"}
    const : float
        Constant residual of the dropped directions inside an l2 regulariser.
    max_iter, tol : int, float
        Clarabel's ``max_iter`` and ``tol_gap_rel`` / ``tol_gap_abs`` /
        ``tol_feas``.

    Examples
    --------
    >>> import numpy as np
    >>> from proxlearn.kernel_learning._simsvm_socp import SimSVMSOCP
    >>> U, lam = np.eye(4), np.array([3.0, 2.0, 1.0, 0.5])  # kept eigenpairs of S
    >>> y, ref = np.array([1.0, 1.0, -1.0, -1.0]), np.ones(4)
    >>> problem = SimSVMSOCP(U, lam, y, ref, kind="l1")
    >>> a, b = problem.solve(0.01, 0.01), problem.solve(1.0, 0.01)  # one assembly
    >>> a.status, b.status, bool(a.objective < b.objective)
    ('Solved', 'Solved', True)

    See Also
    --------
    conic_kkt_residuals : the certificate of a solution.
    solve_simsvm_sdp : the same problem as an LMI, for verification.
    """

    def __init__(self, U, lam, y, ref, kind="l2", const=0.0, *, max_iter=200, tol=1e-8):
        if kind not in REG_KINDS:
            raise ValueError(f"kind must be one of {REG_KINDS}, got {kind!r}")
        U = np.asarray(U, dtype=np.float64)
        lam = np.asarray(lam, dtype=np.float64)
        y = np.asarray(y, dtype=np.float64)
        ref = np.asarray(ref, dtype=np.float64)
        n, k = U.shape
        self.U, self.lam, self.y, self.ref = U, lam, y, ref
        self.kind, self.const = kind, float(const)
        self.n, self.k = n, k
        nv = k if kind == "l1" else 1
        # variable offsets
        iz, ib, ixi, ia, it, iv = 0, k, k + 1, k + 1 + n, 2 * k + 1 + n, 3 * k + 1 + n
        self.nx = iv + nv
        self._sl = {
            "z": slice(iz, iz + k),
            "b": ib,
            "xi": slice(ixi, ixi + n),
            "alpha": slice(ia, ia + k),
            "t": slice(it, it + k),
            "v": slice(iv, iv + nv),
        }
        rows, cols, vals, bvec, cones = [], [], [], [], []
        r = 0
        ar_n = np.arange(n)
        ar_k = np.arange(k)
        # hinge rows: -y_j U_j z - y_j b - xi_j + s = -1
        blk = -(y[:, None] * U)
        rr, cc = np.nonzero(blk)  # dense block, keeps exact zeros out
        rows.append(r + rr)
        cols.append(iz + cc)
        vals.append(blk[rr, cc])
        rows += [r + ar_n, r + ar_n]
        cols += [np.full(n, ib), ixi + ar_n]
        vals += [-y, -np.ones(n)]
        bvec.append(-np.ones(n))
        r += n
        # xi >= 0
        rows.append(r + ar_n)
        cols.append(ixi + ar_n)
        vals.append(-np.ones(n))
        bvec.append(np.zeros(n))
        r += n
        n_nonneg = 2 * n
        if kind == "l1":
            # alpha - v <= ref ; -alpha - v <= -ref
            rows += [r + ar_k, r + ar_k, r + k + ar_k, r + k + ar_k]
            cols += [ia + ar_k, iv + ar_k, ia + ar_k, iv + ar_k]
            vals += [np.ones(k), -np.ones(k), -np.ones(k), -np.ones(k)]
            bvec += [ref, -ref]
            r += 2 * k
            n_nonneg += 2 * k
        cones.append(("nonneg", n_nonneg))
        # 3-dim rotated cones, one per kept direction
        base = r + 3 * ar_k
        rows += [base, base, base + 1, base + 2, base + 2]
        cols += [ia + ar_k, it + ar_k, iz + ar_k, ia + ar_k, it + ar_k]
        vals += [-lam, -np.ones(k), -2.0 * np.ones(k), -lam, np.ones(k)]
        bvec.append(np.zeros(3 * k))
        r += 3 * k
        cones += [("soc", 3)] * k
        if kind != "l1":
            scale = np.ones(k) if kind == "l2" else lam
            rows += [np.array([r]), r + 1 + ar_k]
            cols += [np.array([iv]), ia + ar_k]
            vals += [np.array([-1.0]), -scale]
            bvec += [np.zeros(1), -scale * ref]
            r += 1 + k
            dim = 1 + k
            if self.const != 0.0:
                bvec.append(np.array([self.const]))
                r += 1
                dim += 1
            cones.append(("soc", dim))
        self.A = sp.csc_matrix(
            (np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))),
            shape=(r, self.nx),
        )
        self.bvec = np.concatenate(bvec)
        self.cones = cones
        self.max_iter = int(max_iter)
        self.tol = float(tol)
        self._solver = None

    def cost(self, eta, gamma):
        """Cost vector ``q`` for given ``(eta, gamma)``."""
        q = np.zeros(self.nx)
        q[self._sl["xi"]] = 1.0 / self.n
        q[self._sl["t"]] = eta
        q[self._sl["v"]] = gamma
        return q

    def _clarabel_cones(self):
        import clarabel

        out = []
        for name, dim in self.cones:
            if name == "nonneg":
                out.append(clarabel.NonnegativeConeT(dim))
            else:
                out.append(clarabel.SecondOrderConeT(dim))
        return out

    def _settings(self):
        import clarabel

        st = clarabel.DefaultSettings()
        st.verbose = False
        st.max_iter = self.max_iter
        st.tol_gap_rel = self.tol
        st.tol_gap_abs = self.tol
        st.tol_feas = self.tol
        st.direct_solve_method = "qdldl"
        # presolve could drop rows and forbid data updates between grid points
        st.presolve_enable = False
        return st

    def solve(self, eta, gamma) -> SimSVMSolution:
        """Solve for ``(eta, gamma)``, reusing the Clarabel solver if possible."""
        import clarabel

        q = self.cost(eta, gamma)
        t0 = time.perf_counter()
        if self._solver is not None and self._solver.is_data_update_allowed():
            self._solver.update(q=q)
        else:
            P = sp.csc_matrix((self.nx, self.nx))
            self._solver = clarabel.DefaultSolver(
                P, q, self.A, self.bvec, self._clarabel_cones(), self._settings()
            )
        sol = self._solver.solve()
        seconds = time.perf_counter() - t0
        status = str(sol.status)
        _check_status(status, "Clarabel (SOCP 5.31)", eta, gamma)
        x = np.asarray(sol.x)
        alpha = x[self._sl["alpha"]]
        reg = _reg_value(self.kind, alpha, self.ref, self.lam, self.const)
        xi = x[self._sl["xi"]]
        t = x[self._sl["t"]]
        objective = float(xi.sum() / self.n + eta * t.sum() + gamma * reg)
        return SimSVMSolution(
            z=x[self._sl["z"]].copy(),
            b=float(x[self._sl["b"]]),
            alpha=alpha.copy(),
            t=t.copy(),
            objective=objective,
            status=status,
            iterations=int(sol.iterations),
            seconds=seconds,
            x=x,
            s=np.asarray(sol.s),
            dual=np.asarray(sol.z),
        )

    def __getstate__(self):  # the Rust solver object cannot be pickled
        state = self.__dict__.copy()
        state["_solver"] = None
        return state


def _check_status(status, who, eta, gamma):
    s = status.split(".")[-1]
    if s == "Solved":
        return
    if s == "AlmostSolved":
        warnings.warn(
            f"{who} returned status {s!r} (solved to reduced accuracy) at "
            f"eta={eta:g}, gamma={gamma:g}.",
            SimSVMSolverWarning,
            stacklevel=3,
        )
        return
    raise SimSVMSolverError(
        f"{who} failed at eta={eta:g}, gamma={gamma:g} with solver status {s!r}; "
        "no solution is returned (the problem is always feasible, so this is a "
        "numerical failure: try another eig_tol, rescale S, or another solver)."
    )


def _cone_violation(name, dim, v):
    if name == "nonneg":
        return float(max(0.0, -v.min())) if dim else 0.0
    return float(max(0.0, np.linalg.norm(v[1:]) - v[0]))


def conic_kkt_residuals(problem: SimSVMSOCP, sol: SimSVMSolution, eta, gamma) -> dict:
    """KKT residuals of a Clarabel solution of :class:`SimSVMSOCP`.

    Clarabel solves ``min q^T x s.t. A x + s = b, s in K`` with dual
    ``max -b^T z s.t. A^T z + q = 0, z in K*`` (``K`` self-dual here).

    Parameters
    ----------
    problem : SimSVMSOCP
    sol : SimSVMSolution
        Returned by ``problem.solve(eta, gamma)``.
    eta, gamma : float

    Returns
    -------
    dict with ``primal`` (``||A x + s - b||_inf``), ``dual``
    (``||A^T z + q||_inf``), ``cone`` (largest violation of ``s in K`` and
    ``z in K``), ``complementarity`` (``|s^T z|``) and ``gap``
    (``|q^T x + b^T z| / max(1, |q^T x|)``).

    Examples
    --------
    >>> import numpy as np
    >>> from proxlearn.kernel_learning._simsvm_socp import SimSVMSOCP, conic_kkt_residuals
    >>> U, lam = np.eye(4), np.array([3.0, 2.0, 1.0, 0.5])  # kept eigenpairs of S
    >>> y, ref = np.array([1.0, 1.0, -1.0, -1.0]), np.ones(4)
    >>> problem = SimSVMSOCP(U, lam, y, ref, kind="l1")
    >>> res = conic_kkt_residuals(problem, problem.solve(0.01, 0.01), 0.01, 0.01)
    >>> sorted(res), bool(max(res.values()) < 1e-6)
    (['complementarity', 'cone', 'dual', 'gap', 'primal'], True)

    See Also
    --------
    SimSVMSOCP : the problem certified.
    """
    q = problem.cost(eta, gamma)
    A, b = problem.A, problem.bvec
    x, s, z = sol.x, sol.s, sol.dual
    cone = 0.0
    r = 0
    for name, dim in problem.cones:
        cone = max(cone, _cone_violation(name, dim, s[r : r + dim]))
        cone = max(cone, _cone_violation(name, dim, z[r : r + dim]))
        r += dim
    pobj = float(q @ x)
    return {
        "primal": float(np.abs(A @ x + s - b).max()),
        "dual": float(np.abs(A.T @ z + q).max()),
        "cone": cone,
        "complementarity": float(abs(s @ z)),
        "gap": abs(pobj + float(b @ z)) / max(1.0, abs(pobj)),
    }


# ---------------------------------------------------------------------------
# random LP approximation (5.28), HiGHS dual simplex
# ---------------------------------------------------------------------------


def lp_basis_draws(U, n_basis, rng):
    """The random scalars ``tau_ij`` of the LP basis ``[u_i; tau_ij]`` (thesis section 5.3.1).

    ``tau_ij = mean(u_i) + std(u_i) g_ij`` with i.i.d. standard normal ``g``
    (drawn row by row, ``(k, p)``) and the mean and population standard
    deviation of the ``n`` entries of ``u_i`` (the thesis's words and this
    reading: docs/methods.md, "SimSVM's conic solvers").

    Parameters
    ----------
    U : ndarray of shape (n, k)
        Kept eigenvectors (columns).
    n_basis : int
        ``p``, draws per eigenvector.
    rng : numpy.random.RandomState

    Returns
    -------
    tau : ndarray of shape (k, p)

    Examples
    --------
    >>> import numpy as np
    >>> from proxlearn.kernel_learning._simsvm_socp import lp_basis_draws
    >>> U, lam = np.eye(4), np.array([3.0, 2.0, 1.0, 0.5])  # kept eigenpairs of S
    >>> y, ref = np.array([1.0, 1.0, -1.0, -1.0]), np.ones(4)
    >>> lp_basis_draws(U, 5, np.random.RandomState(0)).shape
    (4, 5)

    See Also
    --------
    solve_simsvm_lp : the LP these draws define.
    """
    U = np.asarray(U, dtype=np.float64)
    mu = U.mean(axis=0)
    sd = U.std(axis=0)
    return mu[:, None] + sd[:, None] * rng.standard_normal((U.shape[1], int(n_basis)))


@dataclass
class SimSVMLinearProgram:
    """``min c^T x  s.t.  A_ub x <= b_ub``, ``bounds``: one LP (5.28) instance.

    ``ib`` is the index of the bias ``b`` in ``x``; ``tau`` the basis scalars.
    Variables: ``"naive"``: ``w`` (``k p``, row-major), ``b``, ``xi`` (``n``),
    ``v`` (``k``); ``"compact"``: ``z`` (``k``), ``b``, ``xi`` (``n``), ``a =
    lambda alpha`` (``k``), ``t`` (``k``), ``v`` (``k``).
    """

    c: np.ndarray
    A_ub: sp.csc_matrix
    b_ub: np.ndarray
    bounds: list
    ib: int
    tau: np.ndarray
    formulation: str


def simsvm_lp_program(U, lam, y, ref, eta, gamma, tau, formulation="compact"):
    """Assemble the LP (5.28) for the basis scalars ``tau`` (shape ``(k, p)``).

    Parameters
    ----------
    U, lam, y, ref
        The problem, as in :class:`SimSVMSOCP`.
    eta, gamma : float
    tau : ndarray of shape (k, p)
        Basis scalars (:func:`lp_basis_draws`).
    formulation : {"compact", "naive"}, default="compact"
        See :func:`solve_simsvm_lp`.

    Returns
    -------
    SimSVMLinearProgram

    Examples
    --------
    >>> import numpy as np
    >>> from proxlearn.kernel_learning._simsvm_socp import lp_basis_draws, lp_solution_parts, simsvm_lp_program
    >>> U, lam = np.eye(4), np.array([3.0, 2.0, 1.0, 0.5])  # kept eigenpairs of S
    >>> y, ref = np.array([1.0, 1.0, -1.0, -1.0]), np.ones(4)
    >>> from scipy.optimize import linprog
    >>> tau = lp_basis_draws(U, 5, np.random.RandomState(0))
    >>> prog = simsvm_lp_program(U, lam, y, ref, 0.01, 0.01, tau)
    >>> res = linprog(prog.c, A_ub=prog.A_ub, b_ub=prog.b_ub, bounds=prog.bounds)
    >>> z, b, a, t = lp_solution_parts(prog, res.x)
    >>> bool(np.all(z**2 <= a * t + 1e-9))  # an SOCP-feasible point
    True

    See Also
    --------
    solve_simsvm_lp : assembles and solves it.
    """
    U = np.asarray(U, dtype=np.float64)
    lam = np.asarray(lam, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    ref = np.asarray(ref, dtype=np.float64)
    tau = np.asarray(tau, dtype=np.float64)
    n, k = U.shape
    p = tau.shape[1]
    if tau.shape[0] != k:
        raise ValueError(f"tau must have one row per eigenvector ({k}), got shape {tau.shape}")
    Ik = sp.identity(k, format="csr")
    if formulation == "naive":
        # variables: w (k*p, row-major: i then j), b, xi (n), v (k)
        nw = k * p
        nx = nw + 1 + n + k
        c = np.zeros(nx)
        c[:nw] = eta * (tau**2).ravel()
        c[nw + 1 : nw + 1 + n] = 1.0 / n
        c[nw + 1 + n :] = gamma
        H = -(y[:, None, None] * U[:, :, None] * tau[None, :, :]).reshape(n, nw)
        hinge = sp.hstack(
            [sp.csr_matrix(H), sp.csr_matrix(-y[:, None]), -sp.identity(n), sp.csr_matrix((n, k))]
        )
        G = sp.kron(sp.diags(1.0 / lam), np.ones((1, p)))
        z1 = sp.csr_matrix((k, 1 + n))
        reg = sp.vstack([sp.hstack([G, z1, -Ik]), sp.hstack([-G, z1, -Ik])])
        A_ub = sp.vstack([hinge, reg]).tocsc()
        b_ub = np.concatenate([-np.ones(n), ref, -ref])
        bounds = [(0, None)] * nw + [(None, None)] + [(0, None)] * (n + k)
    elif formulation == "compact":
        # variables: z (k), b, xi (n), a (k) = lambda*alpha, t (k), v (k)
        iz, ib, ixi, ia, it, iv = 0, k, k + 1, k + 1 + n, 2 * k + 1 + n, 3 * k + 1 + n
        nx = iv + k
        c = np.zeros(nx)
        c[ixi : ixi + n] = 1.0 / n
        c[it : it + k] = eta
        c[iv:] = gamma
        ts = np.sort(tau, axis=1)
        blocks, rhs = [], []

        def rowblock(cols_vals, m):
            rr, cc, vv = [], [], []
            for col0, rows_idx, col_idx, vals in cols_vals:
                rr.append(rows_idx)
                cc.append(col0 + col_idx)
                vv.append(vals)
            return sp.csr_matrix(
                (np.concatenate(vv), (np.concatenate(rr), np.concatenate(cc))), shape=(m, nx)
            )

        ar_n, ar_k = np.arange(n), np.arange(k)
        hr, hc = np.nonzero(np.ones((n, k)))
        blocks.append(rowblock([
            (iz, hr, hc, -(y[:, None] * U)[hr, hc]),
            (ib, ar_n, np.zeros(n, int), -y),
            (ixi, ar_n, ar_n, -np.ones(n)),
        ], n))
        rhs.append(-np.ones(n))
        if p > 1:
            lo, hi = ts[:, :-1], ts[:, 1:]  # (k, p-1)
            m = k * (p - 1)
            ri = np.arange(m)
            ii = np.repeat(ar_k, p - 1)
            blocks.append(rowblock([
                (iz, ri, ii, (lo + hi).ravel()),
                (ia, ri, ii, -(lo * hi).ravel()),
                (it, ri, ii, -np.ones(m)),
            ], m))
        else:
            m = k
            blocks.append(rowblock([
                (ia, ar_k, ar_k, ts[:, 0] ** 2),
                (it, ar_k, ar_k, -np.ones(k)),
            ], k))
        rhs.append(np.zeros(m))
        # tau_min a - z <= 0 ; z - tau_max a <= 0
        blocks.append(rowblock([(ia, ar_k, ar_k, ts[:, 0]), (iz, ar_k, ar_k, -np.ones(k))], k))
        blocks.append(rowblock([(iz, ar_k, ar_k, np.ones(k)), (ia, ar_k, ar_k, -ts[:, -1])], k))
        rhs += [np.zeros(k), np.zeros(k)]
        # +-(a / lambda - ref) <= v
        blocks.append(rowblock([(ia, ar_k, ar_k, 1.0 / lam), (iv, ar_k, ar_k, -np.ones(k))], k))
        blocks.append(rowblock([(ia, ar_k, ar_k, -1.0 / lam), (iv, ar_k, ar_k, -np.ones(k))], k))
        rhs += [ref, -ref]
        A_ub = sp.vstack(blocks).tocsc()
        b_ub = np.concatenate(rhs)
        bounds = (
            [(None, None)] * (k + 1) + [(0, None)] * n + [(0, None)] * k
            + [(None, None)] * k + [(0, None)] * k
        )
    else:
        raise ValueError(f"formulation must be 'compact' or 'naive', got {formulation!r}")
    return SimSVMLinearProgram(c, A_ub, b_ub, bounds, nw if formulation == "naive" else ib,
                               tau, formulation)


def lp_solution_parts(prog, x):
    """``(z, b, a, t)`` of an LP (5.28) point ``x``, ``a = lambda alpha`` ((5.25)-(5.27)).

    Parameters
    ----------
    prog : SimSVMLinearProgram
    x : ndarray
        A point of ``prog`` (its solution).

    Returns
    -------
    z : ndarray of shape (k,)
    b : float
    a : ndarray of shape (k,)
    t : ndarray of shape (k,)

    Examples
    --------
    See :func:`simsvm_lp_program`.

    See Also
    --------
    simsvm_lp_program : the LP whose points it reads.
    """
    x = np.asarray(x, dtype=np.float64)
    tau, ib = prog.tau, prog.ib
    k = tau.shape[0]
    if prog.formulation == "naive":
        w = x[:ib].reshape(tau.shape)
        return (w * tau).sum(axis=1), float(x[ib]), w.sum(axis=1), (w * tau**2).sum(axis=1)
    ia = x.size - 3 * k  # z (k), b, xi (n), a (k), t (k), v (k)
    return x[:k].copy(), float(x[ib]), x[ia : ia + k].copy(), x[ia + k : ia + 2 * k].copy()


def solve_simsvm_lp(
    U, lam, y, ref, eta, gamma, n_basis, rng, *, formulation="compact", tau=None
) -> SimSVMSolution:
    """Random LP approximation (5.28) with the l1 regulariser ``||alpha - ref||_1``.

    For every kept eigenvector ``u_i``, ``p = n_basis`` scalars ``tau_ij``
    (:func:`lp_basis_draws`) give the basis ``[u_i; tau_ij]``, and the LMI block
    is written as ``sum_ij w_ij [u_i; tau_ij][u_i; tau_ij]^T``, ``w >= 0``:
    ``lambda_i alpha_i = sum_j w_ij`` (5.25), ``z_i = sum_j w_ij tau_ij`` (5.26)
    and ``t_i = sum_j w_ij tau_ij^2`` (5.27). Every LP-feasible point is
    SOCP-feasible, so the LP optimum is an upper bound on the SOCP optimum.
    Solved by HiGHS's dual simplex (``scipy.optimize.linprog``, ``"highs-ds"``).

    Parameters
    ----------
    U, lam, y, ref
        The problem, as in :class:`SimSVMSOCP`.
    eta, gamma : float
    n_basis : int
        ``p``, draws per eigenvector.
    rng : numpy.random.RandomState
        Draws ``tau`` (unused when ``tau`` is given).
    formulation : {"compact", "naive"}, default="compact"
        ``"naive"`` is (5.28) as printed: ``k p`` weights ``w`` and a dense
        ``n x k p`` hinge block. ``"compact"`` is an exactly equivalent LP in
        ``(z, lambda alpha, t)`` with the SOCP's ``n x k`` hinge block, much
        faster for large ``p`` (derivation: docs/methods.md, "SimSVM's conic
        solvers"; timings: docs/benchmarks.md, "Solvers: simplex QP and SimSVM").
    tau : ndarray of shape (k, n_basis), optional
        Basis scalars to use instead of drawing them (``rng`` is then unused).

    Returns
    -------
    SimSVMSolution
        ``objective`` is the LP's optimal value.

    Examples
    --------
    >>> import numpy as np
    >>> from proxlearn.kernel_learning._simsvm_socp import SimSVMSOCP, solve_simsvm_lp
    >>> U, lam = np.eye(4), np.array([3.0, 2.0, 1.0, 0.5])  # kept eigenpairs of S
    >>> y, ref = np.array([1.0, 1.0, -1.0, -1.0]), np.ones(4)
    >>> exact = SimSVMSOCP(U, lam, y, ref, kind="l1").solve(0.01, 0.01)
    >>> lp = solve_simsvm_lp(U, lam, y, ref, 0.01, 0.01, 20, np.random.RandomState(0))
    >>> bool(lp.objective >= exact.objective - 1e-7)
    True

    See Also
    --------
    SimSVMSOCP : the exact problem it approximates.
    simsvm_lp_program, lp_solution_parts : its assembly and its solution's parts.
    """
    from scipy.optimize import linprog

    if tau is None:
        tau = lp_basis_draws(U, n_basis, rng)
    prog = simsvm_lp_program(U, lam, y, ref, eta, gamma, tau, formulation)
    t0 = time.perf_counter()
    res = linprog(prog.c, A_ub=prog.A_ub, b_ub=prog.b_ub, bounds=prog.bounds, method="highs-ds")
    seconds = time.perf_counter() - t0
    if res.status != 0:
        raise SimSVMSolverError(
            f"HiGHS dual simplex (LP 5.28) failed at eta={eta:g}, gamma={gamma:g} "
            f"with status {res.status} ({res.message}); no solution is returned."
        )
    z, b, a, t = lp_solution_parts(prog, res.x)
    lam = np.asarray(lam, dtype=np.float64)
    return SimSVMSolution(
        z=np.array(z),
        b=b,
        alpha=a / lam,
        t=np.array(t),
        objective=float(res.fun),
        status="optimal",
        iterations=int(getattr(res, "nit", 0)),
        seconds=seconds,
    )


# ---------------------------------------------------------------------------
# LMI form (5.21) in cvxpy, for verification
# ---------------------------------------------------------------------------


def solve_simsvm_sdp(U, lam, y, ref, kind, eta, gamma, const=0.0, solver="CLARABEL"):
    """LMI form (5.21): ``[[K_alpha, z], [z^T, t]] >= 0`` with one (n+1) x (n+1) LMI.

    ``K_alpha = U diag(lambda alpha) U^T`` over the kept directions; ``z`` here
    is ``K_alpha c`` in sample space and is mapped back to the eigenbasis as
    ``U^T z``. Only for small ``n`` (the LMI has O(n^2) entries).

    Parameters
    ----------
    U, lam, y, ref, kind, const
        The problem, as in :class:`SimSVMSOCP`.
    eta, gamma : float
    solver : str, default="CLARABEL"
        The cvxpy solver.

    Returns
    -------
    SimSVMSolution
        ``t_i = z_i^2 / (lambda_i alpha_i)`` (0 where ``lambda_i alpha_i <= 0``).

    Examples
    --------
    >>> import numpy as np
    >>> from proxlearn.kernel_learning._simsvm_socp import SimSVMSOCP, solve_simsvm_sdp
    >>> U, lam = np.eye(4), np.array([3.0, 2.0, 1.0, 0.5])
    >>> y, ref = np.array([1.0, 1.0, -1.0, -1.0]), np.ones(4)
    >>> sdp = solve_simsvm_sdp(U, lam, y, ref, "l1", 0.01, 0.01)
    >>> socp = SimSVMSOCP(U, lam, y, ref, kind="l1").solve(0.01, 0.01)
    >>> bool(abs(sdp.objective - socp.objective) < 1e-6)
    True

    See Also
    --------
    SimSVMSOCP : the same problem as an SOCP, the solver to use.
    """
    import cvxpy as cp

    U = np.asarray(U, dtype=np.float64)
    n, k = U.shape
    alpha = cp.Variable(k)
    z = cp.Variable(n)
    b = cp.Variable()
    xi = cp.Variable(n, nonneg=True)
    t = cp.Variable()
    # K_alpha = sum_i (lambda_i alpha_i) u_i u_i^T as one constant-times-variable
    # product (column i of G is vec(u_i u_i^T)); cheap for cvxpy to canonicalise
    G = (U[:, None, :] * U[None, :, :]).reshape(n * n, k)
    K = cp.reshape(G @ cp.multiply(lam, alpha), (n, n), order="F")
    M = cp.bmat([[K, cp.reshape(z, (n, 1), order="F")],
                 [cp.reshape(z, (1, n), order="F"), cp.reshape(t, (1, 1), order="F")]])
    if kind == "l1":
        h = cp.norm1(alpha - ref)
    elif kind == "l2":
        h = cp.norm(cp.hstack([alpha - ref, np.array([const])]), 2)
    else:
        h = cp.norm(cp.hstack([cp.multiply(lam, alpha - ref), np.array([const])]), 2)
    cons = [cp.multiply(y, z + b) >= 1 - xi, M >> 0]
    prob = cp.Problem(cp.Minimize(cp.sum(xi) / n + eta * t + gamma * h), cons)
    t0 = time.perf_counter()
    try:
        prob.solve(solver=solver)
    except cp.error.SolverError as exc:  # e.g. numerical trouble inside the solver
        raise SimSVMSolverError(
            f"{solver} via cvxpy (LMI 5.21) failed at eta={eta:g}, gamma={gamma:g} "
            f"({exc}); no solution is returned. Rescale S (e.g. to [0, 1]), change "
            "eta/gamma, or use solver='socp' (the same problem in its SOCP form)."
        ) from None
    seconds = time.perf_counter() - t0
    if prob.status == cp.OPTIMAL_INACCURATE:
        # Clarabel's reduced-accuracy status (its AlmostSolved); the LMI is
        # degenerate at the optimum (clipped directions), so this is common
        warnings.warn(
            f"{solver} via cvxpy (LMI 5.21) returned status {prob.status!r} at "
            f"eta={eta:g}, gamma={gamma:g} (solved to reduced accuracy).",
            SimSVMSolverWarning,
            stacklevel=2,
        )
    elif prob.status != cp.OPTIMAL:
        raise SimSVMSolverError(
            f"{solver} via cvxpy (LMI 5.21) failed at eta={eta:g}, gamma={gamma:g} "
            f"with status {prob.status!r}; no solution is returned."
        )
    zz = U.T @ z.value
    a = lam * alpha.value
    tt = np.where(a > 0, zz**2 / np.where(a > 0, a, 1.0), 0.0)
    return SimSVMSolution(
        z=zz,
        b=float(b.value),
        alpha=np.asarray(alpha.value),
        t=tt,
        objective=float(prob.value),
        status=str(prob.status),
        iterations=0,
        seconds=seconds,
    )
