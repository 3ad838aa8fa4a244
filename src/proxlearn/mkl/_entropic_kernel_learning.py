"""ESKL, EMKL and REKL: kernels learned from several indefinite similarity matrices
(Kundu, Tankasali, Bhattacharyya & Ben-Tal, NIPS 2010), by entropic mirror descent.

With ``omega(K)`` the SVM dual optimum (eq. 1), ``Omega`` the non-sparse MKL of
eq. 10 (:func:`proxlearn.mkl.nonsparse_mkl`) and ``S_1..S_m`` the similarity
matrices (an ``(n, n, m)`` stack, :mod:`proxlearn._multi_input`):

=======  ===================================================================
ESKL     eq. 4: ``min_{K PSD, tr K = tau} omega(K) + rho sum_i L(K - S_i)``
EMKL     eq. 6: ``min_{K_i PSD, tr K_i = tau} Omega(K_1..K_m) + rho sum_i L(K_i - S_i)``
REKL     eq. 7: ``K_i = V_i diag(mu_i) V_i^T`` (eigenvectors of ``S_i``),
         ``mu_i >= 0``, ``sum mu_i = tau``:
         ``min Omega(K_1..K_m) + rho sum_i l(mu_i, lambda_i)``
=======  ===================================================================

Errata and choices (digest ``kundu2010-nips.md``): the exact matrix
exponentiated-gradient step, not the printed one (``update="printed"`` keeps
it for fidelity checks; the first steps agree); the ``rho`` that the printed
eq. 12 and Algorithms 2-3 drop is put back; the **best** iterate is returned
(the guarantee of Prop. 3.1 is on it), with ``objective_history_``; the step
is ``scale / L sqrt(2 log n / t)`` with ``L`` the running maximum subgradient
norm (``scale`` 3 for ESKL, halved once if no step of the first 10 improves on the
start, 1 for EMKL, 0.2 for REKL: ours, the paper says "choose
suitable step-size"); ``tau`` is not given: ``"auto"`` is the mean trace of the
``S_i`` (``n`` for unit-diagonal similarities), or the mean trace of their
clipped versions when that mean is not positive. "Until convergence" is not
defined: we stop when a lower bound certifies a relative gap of ``tol`` (the
Frank-Wolfe bound; for ESKL with the L3 loss also its exact Lagrangian dual, which
closes the gap in 10-20 iterations on the UW matrices where the Frank-Wolfe bound
stays at 0.2-0.5; for REKL the Lagrangian dual at the MKL's ``alpha``, exact per
simplex; for EMKL the Lagrangian dual at an averaged loss subgradient, which closes
slowly for the L1 loss), or when the best objective improved by less than ``tol``
(relative) over the last ``max(10, t/4)`` iterations (after at least two such
windows), else at ``max_iter`` with a ``ConvergenceWarning``.

Test rows (not in the paper, digest 3.7): inductive maps, exact on training rows
(the ``i``-th training row maps to the ``i``-th row of the learned kernel).
**Defaults** (``directions="positive"``, ``start="auto"``, ``rcond=1e-2``,
``normalize=True``): each ``S_i`` is divided by ``c_i = tr S_i / n`` (unit mean
diagonal; the clipped trace if the trace is not positive), so that multiplying a
matrix by a constant changes no prediction; the kernel is learned only in the
eigen-directions of ``S`` with ``lambda > rcond max lambda`` (the positive part
``S+``), starting from the clipped similarity restricted to them
(``tau U diag(lambda) U^T / sum lambda``); the map is ``k(x) = K S+^+ s(x)``
(REKL: ``V diag(mu / lambda) V^T s(x)``), which is the clip SVM's consistent map
``P_+ s(x)`` when ``K`` is the clipped ``S``. ESKL with several matrices: the joint
least-squares map of their positive parts, ``K G+^+ sum_i S_i+ s_i(x)``,
``G+ = sum_i S_i+^2``, from the mean of the ``S_i+``; EMKL: per matrix. Why: the
earlier map (below) divided a test row's component along every direction with
``|lambda| > 1e-3 max |lambda|``, negative ones included, by ``lambda``, and the
learned ``K`` (near the clipped ``S`` plus a label term) has mass there, so that
noise in weak directions dominated:
aural_sonar 0.70 against the transductive fit's 0.93 and the clip SVM's 0.92;
measurements in docs/methods.md (Kundu section). **The earlier reading**
(``directions="all", start="identity", rcond=1e-3, normalize=False``): the paper's
problem over the whole spectrahedron from ``tau/n I``, matrices as given; ESKL's
map is then the joint least-squares ``k(x) = K G^+ sum_i S_i s_i(x)``,
``G = sum_i S_i^2`` (``K S^+ s`` for ``m = 1``), the kernel confined to the
singular directions of the stacked ``[S_1; ...; S_m]`` above ``rcond``; EMKL per
matrix ``K_i S_i^+ s_i(x)`` with the MKL weights ``1/gamma_i``; REKL
``V_i diag(mu_i / lambda_i) V_i^T s_i(x)`` over ``|lambda_ij| > rcond max``. Each map
is linear, so the decision is ``f(x) = sum_i s_i(x)^T w_i + b`` with precomputed
``w_i`` (``coef_``). A matrix with no kept direction (all zero, negative
semidefinite) is refused with :class:`SimilarityMatrixError`. Several classes:
one-vs-one, a kernel learned per pair.
"""

from __future__ import annotations

import warnings

import numpy as np
import scipy.linalg

from sklearn.exceptions import ConvergenceWarning, NotFittedError

from .._validation import (
    InvalidParameterError,
    SimilarityMatrixError,
    boolean,
    check_positive,
    integer,
    options,
    positive,
    satisfies,
    validate_params,
)
from .._multi_input import check_multi_similarity
from .._scale import similarity_scale
from .._progress import IterationLog
from ._classifiers import MKL_CONSTRAINTS, _BaseMKL
from ._solvers import nonsparse_mkl
from .._svm._dual import svm_dual
from ..solvers import project_simplex
from .._svm._multiclass import (ovo_fit, scatter_pairs, transductive_labels,
                                transductive_outputs)
from ._mirror_descent import (
    matrix_loss,
    SubspaceEG,
    kept_basis,
    positive_basis,
    psd_from_eig,
    spectrum_loss,
    step_size,
)

__all__ = ["EMKL", "ESKL", "PAPER_READING", "REKL"]

#: The options that give the paper's problem as printed (the reading of the
#: reproduction runs): the whole spectrum, the scaled-identity start, the matrices as
#: given, step scale 1 and the strict stopping tolerance of the earlier defaults.
PAPER_READING = {"directions": "all", "start": "identity", "rcond": 1e-3,
                 "normalize": False, "scale": 1.0, "tol": 1e-5}

PATIENCE = 10
#: An ``alpha_j`` within this relative distance of ``C`` counts as at its bound.
_INTERIOR = 1e-6


def _tau(Ss, tau):
    if tau != "auto":
        return check_positive(tau, "tau")
    t = float(np.mean(np.trace(Ss, axis1=0, axis2=1)))
    if t > 0:
        return t
    clipped = [np.maximum(np.linalg.eigvalsh(Ss[:, :, k]), 0).sum() for k in range(Ss.shape[2])]
    t = float(np.mean(clipped))
    if not t > 0:
        raise InvalidParameterError(
            "tau='auto' found no positive trace in the similarity matrices; pass tau > 0."
        )
    return t


class _Tracker:
    """Best iterate and the stopping rule.

    Two tests, either stops: the certified gap ``best - lower`` at most ``tol``
    relative, where ``lower`` is the largest lower bound on the optimum seen (the
    Frank-Wolfe bound ``F(K_t) - (<G_t, K_t> - tau lambda_min(G_t))``, valid for
    any subgradient ``G_t`` of the convex objective, and the Lagrangian dual bounds:
    ESKL-L3's :meth:`ESKL._l3_dual_bound`, REKL's :func:`_spectrum_dual_bound`,
    EMKL's :class:`_BlockDual`); or the best objective improved by at most
    ``tol`` relative over the last ``max(PATIENCE, t / 4)`` iterations, after two
    such windows (the fallback where no bound closes the gap). The first test
    depends only on the iterate, not on the path: a start within ``tol`` of the
    optimum (a warm start) stops at once when its bound shows it.
    """

    def __init__(self, tol, log=None):
        self.tol = tol
        self.log = log
        self.history = []
        self.best = np.inf
        self.lower = -np.inf
        self.best_state = None

    def update(self, value, state):
        self.history.append(value)
        if value < self.best:
            self.best, self.best_state = value, state
        if self.log is not None:
            self.log(len(self.history), objective=value, best=self.best)

    def bound(self, value, fw_gap):
        """Record the Frank-Wolfe lower bound of the iterate just recorded."""
        self.lower = max(self.lower, value - max(float(fw_gap), 0.0))

    def dual(self, lower):
        """Record a lower bound on the optimum (a dual value)."""
        self.lower = max(self.lower, float(lower))

    @property
    def gap(self):
        """Certified relative gap of the best iterate (inf before any bound)."""
        return (self.best - self.lower) / max(abs(self.best), 1e-12)

    def converged(self):
        if self.gap <= self.tol:
            return True
        h = self.history
        window = max(PATIENCE, len(h) // 4)
        if len(h) <= 2 * window:  # mirror descent is not monotone: let a
            # transient pass
            return False
        before = min(h[:-window])
        return before - self.best <= self.tol * max(abs(self.best), 1e-12)

    def warn_if_not_converged(self, name, max_iter):
        """``ConvergenceWarning`` when the loop ran to ``max_iter`` without the rule
        (and the closing progress line)."""
        done = self.converged()
        if self.log is not None:
            self.log.end(len(self.history), "stopping rule met" if done else "max_iter",
                         best=self.best, gap=self.gap)
        if len(self.history) >= max_iter and not done:
            warnings.warn(
                f"{name} stopped at max_iter={max_iter} before its stopping rule: "
                f"certified relative gap {self.gap:.3g} > tol={self.tol:g}, and the best "
                f"objective still improved by more than tol over the last "
                f"{max(PATIENCE, len(self.history) // 4)} iterations; the best iterate is "
                "returned. Increase max_iter or tol.",
                ConvergenceWarning, stacklevel=4)


def _matrix_scales(Ss):
    """Per matrix ``c_i`` (:func:`proxlearn._scale.similarity_scale`: ``tr S_i / n``, or
    the clipped trace over ``n`` when the trace is not positive); a matrix with no
    positive eigenvalue is refused by its index."""
    c = np.empty(Ss.shape[2])
    for i in range(Ss.shape[2]):
        try:
            c[i] = similarity_scale(Ss[:, :, i])
        except SimilarityMatrixError:
            raise _no_direction(i) from None
    return c


def _no_direction(i):
    return SimilarityMatrixError(
        f"similarity matrix {i} of the stack has no positive eigenvalue above rcond times "
        "its largest (an all-zero or negative semidefinite matrix, or rcond too large): "
        "the kernel learned from it would have no direction. Remove it from the stack "
        "(or lower rcond).")


#: ``loss`` of ESKL and EMKL (the names :func:`matrix_loss` knows, or a callable).
_MATRIX_LOSS = satisfies(
    lambda v: callable(v) or (isinstance(v, str) and v in ("l1", "l2", "l3")),
    "'l1', 'l2', 'l3' or a callable returning (value, subgradient)")


class _KunduBase(_BaseMKL):
    """Shared fit: OvO over pairs of classes, ``coef_`` as in the MKL classifiers."""

    @staticmethod
    def _constraints(loss, **extra):
        """The parameter table of ESKL / EMKL / REKL: the shared entries, ``loss``
        and the class's ``extra`` ones."""
        return {
            "verbose": MKL_CONSTRAINTS["verbose"], "C": positive(),
            "rho": positive(allow_zero=True), "scale": positive(), "tol": positive(),
            "rcond": positive(), "transductive": boolean(), "normalize": boolean(),
            "directions": options("positive", "all"),
            "start": options("auto", "clip", "identity"), "max_iter": integer(1),
            "tau": positive() | options("auto"), **extra, "loss": loss}

    def fit(self, X, y):
        """Learn the kernel(s) and the SVM.

        Parameters
        ----------
        X : array-like of shape (n, n, m) or (n, n)
            ``m`` similarity matrices over the ``n`` training samples (last axis).
            With ``transductive=True``: over all ``N`` samples, the ``len(y)``
            labelled ones first.
        y : array-like of shape (n,)
        """
        validate_params(self)
        Ss = check_multi_similarity(X, symmetric="symmetrize")
        N, _, m = Ss.shape
        classes, y_idx, n = transductive_labels(y, N, self.transductive, "X")
        # scale-free: each S_i divided by c_i (unit mean diagonal); test rows likewise
        self.scales_ = _matrix_scales(Ss) if self.normalize else np.ones(m)
        if self.normalize:
            Ss = Ss / self.scales_
        self.tau_ = _tau(Ss, self.tau)
        problems, fits = ovo_fit(  # a pair's rows: its labelled samples, then the unlabelled
            y_idx, len(classes), lambda p: self._fit_binary(
                Ss[np.ix_(p.rows, p.rows)], p.y, self._pair_state(p.k)), n_total=N)
        if self.transductive:
            self.coef_ = np.zeros((len(problems), n, m))
            trans_raw = np.column_stack([f["unlabelled_decision"] for f in fits])
        else:
            self.coef_ = scatter_pairs(problems, [f["w"] for f in fits], n)
        self.coef_ /= self.scales_  # the decision is linear in the raw test rows
        self.intercept_ = np.array([f["b"] for f in fits], dtype=np.float64)
        self.classes_ = classes
        self.n_features_in_ = n
        self.n_kernels_ = m
        binary = len(problems) == 1
        self.fits_ = fits
        self.objective_ = fits[0]["objective"] if binary else np.array(
            [f["objective"] for f in fits])
        self.objective_history_ = fits[0]["history"] if binary else [f["history"] for f in fits]
        self.n_iter_ = fits[0]["n_iter"] if binary else np.array([f["n_iter"] for f in fits])
        self.gap_ = fits[0]["gap"] if binary else np.array([f["gap"] for f in fits])
        self._set_learned(fits, binary)
        if self.transductive:
            self.transductive_decision_, self.transduction_ = transductive_outputs(trans_raw,
                                                                                   classes)
        else:  # a refit drops what an earlier transductive fit left (predict keys on it)
            for name in ("transduction_", "transductive_decision_"):
                self.__dict__.pop(name, None)
        return self

    def _pair_state(self, k):
        """What a cross-validated walk shares between the fits of one fold for the
        pair of classes ``k`` (:mod:`._entropic_kernel_learning_cv`): ``state["cache"]``, the basis (one
        ``eigh`` per fold, not per grid point), and ``state["warm"]``, the previous
        point's solution (a warm start, when the walk keeps it). ``None`` for an
        ordinary fit (``_cv_state`` is set only on the walk's private copies)."""
        shared = getattr(self, "_cv_state", None)
        return None if shared is None else shared.setdefault(k, {})

    #: A warm start (``state["warm"]``) continues the previous fit's step schedule
    #: (its step count and Lipschitz estimate): the walk is then one mirror-descent
    #: run whose objective changes at each grid point. ``False`` (REKL): the steps
    #: restart as in a cold fit and only the first iterate is the previous one.
    _resume_steps = True

    def _resumed(self, warm):
        """``(lip, t0)``: the Lipschitz estimate and step count a fit starts from."""
        if warm and self._resume_steps:
            return warm["lip"], warm["t"]
        return 0.0, 0

    def _same_path(self, state, warm):
        """A fit of this walk whose iterates this cold fit would repeat, or ``None``.

        A fit's path depends on ``C`` only through the box ``0 <= alpha <= C`` of its
        SVM / MKL solves; if no solve of a cold fit at ``C0`` had an ``alpha_j``
        at its bound (its largest ``alpha_j``, ``amax``, below ``C0``), the same
        ``alpha`` solve every step's problem at any ``C > amax``, so a cold fit there
        takes the same steps to the same kernel (up to the solvers' tolerance where
        an SVM's maximiser is not unique): its record is returned instead
        (``state["paths"]``, per pair of classes, the other parameters equal).
        """
        if state is None or warm:
            return None
        for amax, out in state.get("paths", {}).get(self._path_key(), ()):
            if amax < self.C * (1.0 - _INTERIOR):
                return out
        return None

    def _record_path(self, state, warm, amax, out):
        """Keep a cold fit none of whose solves reached ``C`` (:meth:`_same_path`)."""
        if state is not None and not warm and amax < self.C * (1.0 - _INTERIOR):
            state.setdefault("paths", {}).setdefault(self._path_key(), []).append(
                (amax, out))

    def _path_key(self):
        return tuple(sorted((k, repr(v)) for k, v in self.get_params().items()
                            if k not in ("C", "verbose")))

    @staticmethod
    def _cached(state, key, make):
        """``state["cache"][key]``, computed by ``make()`` the first time (``state``
        None: no cache)."""
        if state is None:
            return make()
        cache = state.setdefault("cache", {})
        if key not in cache:
            cache[key] = make()
        return cache[key]

    def _test_kernels(self, X_test):
        if hasattr(self, "transduction_"):  # how it was fitted, not the current params
            raise NotFittedError(
                f"{type(self).__name__} was fitted with transductive=True: the predictions "
                "for the unlabelled samples given to fit are in transduction_ (decision "
                "values in transductive_decision_); to predict new samples, fit with "
                "transductive=False (the inductive test maps)."
            )
        return super()._test_kernels(X_test)

    def _checked_test_kernels(self, T):
        """The validated test rows as they are (the hook of :class:`_BaseMKL`): the
        inductive maps and the scales ``c_i`` are folded into ``coef_``, so no
        spectrum transform or scaling applies."""
        return T

    def _raw_stack(self, T):
        """One-vs-one decision values ``sum_i T[:, :, i] coef_[p, :, i] + b_p`` (the
        hook of :class:`_BaseMKL`): the decision is linear in the raw test rows."""
        return np.einsum("tnm,pnm->tp", T, self.coef_) + self.intercept_

    @staticmethod
    def _svm_block(u, N):
        """``-1/2 u u^T`` in the labelled block of an ``N x N`` matrix (the
        subgradient of the SVM value; unlabelled rows do not enter it)."""
        G = np.zeros((N, N))
        nl = u.size
        G[:nl, :nl] = -0.5 * np.outer(u, u)
        return G

    def _basis(self, Ss, index=0):
        """Where the learned kernel may live, its start and the test map.

        Returns ``(U, start, A)``: the kernel is ``U M U^T``; ``start`` the initial
        spectrum of ``M`` (``None``: ``tau / r`` times the identity); the inductive
        decision is ``sum_i s_i(x)^T A_i (K c)`` with ``A`` an ``(n, n, m)`` stack
        given as a function ``z -> (n, m)`` array of ``A_i z``.

        ``directions="positive"``: the positive parts ``S_i+`` of the ``S_i``
        (eigenvalues above ``rcond`` times the largest) and the joint least-squares
        map ``K G+^+ sum_i S_i+ s_i(x)``, ``G+ = sum_i S_i+^2``, the kernel in the
        eigenvectors of ``G+`` above ``rcond^2`` of its largest (``K S+^+ s(x)`` for
        ``m = 1``); ``"all"``: :func:`kept_basis`, the same map with the whole
        ``S_i``.
        """
        m = Ss.shape[2]
        if self.directions == "positive":
            parts = [positive_basis(Ss[:, :, i], self.rcond) for i in range(m)]
            for i, (Ui, _) in enumerate(parts):
                if not Ui.shape[1]:
                    raise _no_direction(index + i)
            if m == 1:
                U, lam = parts[0]
                return U, (None if self.start == "identity" else lam), \
                    lambda z: (U @ ((U.T @ z) / lam))[:, None]
            # the positive parts S_i+ = U_i diag(lam_i) U_i^T and their joint
            # least-squares map K G+^+ sum_i S_i+ s_i(x), G+ = sum_i S_i+^2
            Sp = np.stack([psd_from_eig(Ui, lam) for Ui, lam in parts], axis=-1)
            g, V = scipy.linalg.eigh(
                sum(psd_from_eig(Ui, lam ** 2) for Ui, lam in parts), driver="evd")
            keep = g > self.rcond ** 2 * g.max()
            U, g_inv = V[:, keep], 1.0 / g[keep]
            start = None if self.start == "identity" else U.T @ Sp.mean(axis=2) @ U

            def apply(z):
                v = U @ (g_inv * (U.T @ z))
                return np.stack([Sp[:, :, i] @ v for i in range(m)], axis=-1)
            return U, start, apply
        U, g_inv, V, _ = kept_basis(Ss, self.rcond)
        if not V.shape[1]:
            raise _no_direction(index)
        if self.start == "clip":  # "auto" is the identity here
            raise InvalidParameterError(
                "start='clip' needs directions='positive' (the clipped similarity has no "
                "mass on the negative directions that directions='all' keeps); use "
                "start='identity'.")

        def apply_joint(z):
            v = V @ (g_inv * (V.T @ z))
            return np.stack([Ss[:, :, i] @ v for i in range(m)], axis=-1)
        return U, None, apply_joint

class ESKL(_KunduBase):
    """Entropic single kernel learning (Kundu et al. 2010, eq. 4, Algorithm 1).

    One kernel ``K`` (PSD, trace ``tau``) near all the similarity matrices:
    ``min omega(K) + rho sum_i L(K - S_i)``, by entropic mirror descent; each
    iteration is one SVM solve and one ``eigh``.

    Parameters
    ----------
    C : float, default=1.0
    rho : float >= 0, default=1.0
        Weight of the loss.
    loss : {"l1", "l2", "l3"} or callable, default="l3"
        ``sum |X_ij|``, ``||X||_F``, ``||X||_F^2`` of ``X = K - S_i``, or a
        function ``X -> (value, subgradient)`` (any convex loss).
    tau : float or "auto", default="auto"
        Trace of the learned kernel (see the module docstring).
    scale : float, default=3.0
        Step scale (the paper: "choose suitable step-size"; 3 reaches the objective
        of 1 in 3-6x fewer iterations on the UW matrices, docs/methods.md). If no
        step of the first 10 improves on the start (the first overshot: at
        ``C >= 10`` the start's SVM subgradient sets ``L`` and the later steps are
        too small to come back), the fit restarts from the start at half the scale.
    update : {"exact", "printed"}, default="exact"
        The exact matrix-EG step, or Algorithm 1 as printed (fidelity checks).
    max_iter : int, default=300
    tol : float, default=1e-2
        Relative tolerance of the stopping rule (module docstring). Ours: at
        ``1e-2`` the UW matrices' test accuracy is that of ``1e-3`` in 21-28
        iterations instead of 21-77 (docs/methods.md).
    rcond : float, default=1e-2
        The kernel is learned in the directions kept by the inductive map
        ``K S^+ s(x)`` only: ``lambda > rcond max lambda`` (``directions="positive"``)
        or ``|lambda| > rcond max |lambda|`` (several matrices: singular values of
        the stacked ``[S_1; ...; S_m]``) with ``directions="all"``.
    directions : {"positive", "all"}, default="positive"
        Which eigen-directions of the ``S_i`` the kernel may use: the positive
        ones (the map goes through the positive parts ``S_i+``), or all of them
        (the earlier reading); joint least-squares map for several matrices.
    start : {"auto", "clip", "identity"}, default="auto"
        First iterate: the clipped similarity restricted to the kept directions
        (``"clip"``, needs ``directions="positive"``) or ``tau / r`` times the
        identity there (``"identity"``, the paper's ``K_1``). ``"auto"``: ``"clip"``
        with ``directions="positive"``, else ``"identity"``.
    normalize : bool, default=True
        Divide each ``S_i`` (and the test rows) by ``tr S_i / n`` so that
        predictions do not depend on the matrices' scale; ``False``: as given
        (the paper).
    transductive : bool, default=False
        ``fit(X_all, y)`` with ``X_all`` over labelled and unlabelled samples
        (labelled first, ``len(y)`` of them): the kernel is learned over all of
        them (the loss on the whole matrix, the SVM on the labelled block, digest
        3.7 (a)); the unlabelled samples' labels are ``transduction_`` (decision
        values ``transductive_decision_``). ``predict`` on new samples then refuses.
    verbose : int, default=0
        1: a progress line (iteration, objective, best) every 2 seconds and when a
        kernel is done; 2: every iteration.

    Attributes
    ----------
    kernel_ : ndarray (binary) or list per pair
        The best learned kernel (over the normalised matrices).
    gap_ : float or ndarray
        Certified relative gap of the best iterate (the Frank-Wolfe bound, and for
        ``loss="l3"`` the dual bound; EMKL and REKL: their Lagrangian dual bounds;
        ``inf`` before the first bound).
    scales_ : ndarray of shape (m,)
        The ``c_i`` the matrices were divided by (ones with ``normalize=False``).
    objective_, objective_history_, n_iter_, coef_, intercept_, tau_,
    classes_, n_kernels_, n_features_in_, fits_.

    Examples
    --------
    >>> import numpy as np
    >>> from proxlearn.mkl import ESKL
    >>> X = np.random.default_rng(0).normal(size=(20, 3)); y = np.arange(20) % 2
    >>> X[:, 0] += 2 * y
    >>> S = X @ X.T
    >>> clf = ESKL().fit(S[:16, :16], y[:16])
    >>> clf.predict(S[16:, :16]).shape
    (4,)

    See Also
    --------
    proxlearn.svm.SimilaritySVC : the clip SVM this reduces to when ``K`` is the
        clipped similarity.
    EMKL, REKL
    """

    def __init__(self, C=1.0, *, rho=1.0, loss="l3", tau="auto", scale=3.0,
                 update="exact", max_iter=300, tol=1e-2, rcond=1e-2, directions="positive",
                 start="auto", normalize=True, transductive=False, verbose=0):
        self.C = C
        self.rho = rho
        self.loss = loss
        self.tau = tau
        self.scale = scale
        self.update = update
        self.max_iter = max_iter
        self.tol = tol
        self.rcond = rcond
        self.directions = directions
        self.start = start
        self.normalize = normalize
        self.transductive = transductive
        self.verbose = verbose

    _parameter_constraints = _KunduBase._constraints(
        _MATRIX_LOSS, update=options("exact", "printed"))

    def _fit_binary(self, Ss, y, state=None):
        loss = matrix_loss(self.loss)
        N, _, m = Ss.shape
        nl = y.size  # labelled rows first (all of them unless transductive)
        U, start, apply = ((None, None, None) if self.transductive
                           else self._cached(state, "basis", lambda: self._basis(Ss)))
        warm = state.get("warm") if state is not None else None
        same = self._same_path(state, warm)
        if same is not None:
            return same
        amax = 0.0  # the largest alpha_j of the fit's solves (_same_path)
        if warm:  # the previous grid point's kernel, in U's coordinates
            start = warm["M"]
        eg = SubspaceEG(N, self.tau_, U, self.update, start)
        K = eg.K
        track = _Tracker(self.tol, IterationLog(type(self).__name__, self.verbose))
        lip, t0 = self._resumed(warm)
        scale, t_step = self.scale, t0  # the step schedule (restarted at most once)
        sol = None
        for t in range(1, int(self.max_iter) + 1):
            # warm start from the previous iterate's alpha (kept only if libsvm's own
            # test passes on the new kernel; mkl/_svm_dual.py)
            sol = svm_dual(K[:nl, :nl], y, self.C, alpha0=sol)
            amax = max(amax, float(sol.alpha.max()))
            vals, grads = zip(*(loss(K - Ss[:, :, i]) for i in range(m)), strict=True)
            f = sol.value + self.rho * float(np.sum(vals))
            track.update(f, (K, sol))
            G = self._svm_block(sol.alpha * y, N) + self.rho * np.sum(grads, axis=0)
            Gr = eg.reduce(G)
            if t % PATIENCE == 1:  # an eigvalsh: every PATIENCE iterations suffices
                track.bound(f, eg.fw_gap(Gr))
            if self.loss == "l3" and t % 3 == 1:  # the exact dual bound: an r x r
                # eigvalsh, a third of the step's eigh; every third iteration keeps the
                # stops (at most 2 iterations later) at no net cost (docs/methods.md)
                track.dual(self._l3_dual_bound(sol.alpha, y, U, Ss, state))
            if track.converged():
                break
            if t == PATIENCE and not warm and track.history.index(track.best) == 0:
                # no step improved on the start: the first one overshot (at large C
                # the start's SVM subgradient, ||alpha||^2 up to C^2 n, sets L, and
                # the later steps were too small to come back): restart from the
                # start with half the step scale (docs/methods.md, Kundu section)
                scale, t_step, lip = scale / 2.0, t0 - t, 0.0
                eg = SubspaceEG(N, self.tau_, U, self.update, start)
                K, sol = eg.K, track.best_state[1]
                continue
            lip = max(lip, float(np.linalg.norm(Gr)))
            K = eg.step(Gr, step_size(scale, lip, eg.dim, t_step + t))
        track.warn_if_not_converged(type(self).__name__, int(self.max_iter))
        K, sol = track.best_state
        if state is not None and U is not None:
            state["warm"] = dict(M=U.T @ K @ U, lip=lip, t=t0 + len(track.history))
        coef = sol.alpha * y
        out = {"b": sol.b, "dual_coef": coef, "objective": track.best, "gap": track.gap,
               "history": track.history,
               "n_iter": len(track.history), "kernel": K}
        if self.transductive:
            out["unlabelled_decision"] = K[nl:, :nl] @ coef + sol.b
        else:
            out["w"] = apply(K @ coef)
        self._record_path(state, warm, amax, out)
        return out

    def _set_learned(self, fits, binary):
        self.kernel_ = fits[0]["kernel"] if binary else [f["kernel"] for f in fits]

    def _l3_dual_bound(self, alpha, y, U, Ss, state):
        """The Lagrangian dual value ``D(alpha) <= min F`` of ESKL-L3 at an SVM ``alpha``.

        With ``K = U M U^T`` (``U`` orthonormal, ``None``: the identity), ``u = y o
        alpha`` padded to ``N`` rows, ``v = U^T u``, ``m`` matrices and ``rho > 0``,
        ``L(M, alpha) = 1^T alpha - v^T M v / 2 + rho sum_i ||U M U^T - S_i||_F^2``
        is minimised over ``{M PSD, tr M = tau}`` by the projection of
        ``B = (sum_i U^T S_i U + v v^T / (4 rho)) / m`` (its eigenvalues projected
        onto the simplex of sum ``tau``), so that
        ``D = 1^T alpha + rho m (||w - P(w)||^2 - ||w||^2) + rho sum_i ||S_i||^2``
        with ``w`` the eigenvalues of ``B`` (``rho = 0``: ``1^T alpha - tau ||v||^2 /
        2``). Weak duality makes it a lower bound for any feasible ``alpha``; at the
        saddle point it equals the optimum (the inner problem is strongly convex),
        so ``best - D`` certifies a converged fit whatever its start.
        """
        N, _, m = Ss.shape

        def sums():
            Sh = Ss.sum(axis=2)
            return (Sh if U is None else U.T @ Sh @ U), float(np.vdot(Ss, Ss))
        Sh, sq = self._cached(state, "l3_dual", sums)
        u = np.zeros(N)
        u[:y.size] = alpha * y
        v = u if U is None else U.T @ u
        if self.rho == 0:
            return float(alpha.sum()) - 0.5 * self.tau_ * float(v @ v)
        B = (Sh + np.outer(v, v) / (4.0 * self.rho)) / m
        w = scipy.linalg.eigvalsh(0.5 * (B + B.T))
        p = self.tau_ * project_simplex(w / self.tau_)
        return (float(alpha.sum()) + self.rho * m * float((w - p) @ (w - p) - w @ w)
                + self.rho * sq)




class _BlockDual:
    """A lower bound on EMKL's inner problem per matrix, at fixed MKL ``alpha`` and
    weight ``gamma_i``: ``min {-c v^T M v + rho L(U M U^T - S) : M PSD, tr M = tau}``
    (``v = U^T (y o alpha)``, ``c = 1 / (2 gamma_i)``), for the losses with a simple
    conjugate (``"l1"``, ``"l2"``, ``"l3"``).

    With ``rho L(X) = max_Z <Z, X> - rho L*(Z / rho)`` (``L*``: the indicator of
    ``|Z_jk| <= 1`` for L1, of ``||Z||_F <= 1`` for L2, ``||Z||^2 / 4`` for L3), every
    feasible ``Z`` gives ``h(Z) = tau lambda_min(U^T Z U - c v v^T) - <Z, S> - rho
    L*(Z / rho)`` below the minimum (weak duality; the minimum over the spectrahedron
    of a linear function is ``tau`` times the smallest eigenvalue). The Frank-Wolfe bound
    is ``h`` at ``Z = rho L'(K_t - S)``, the loss's subgradient at the iterate; for the
    L1 loss it stays far below the minimum where entries of ``K - S`` pass through 0 (the
    optimal ``Z`` is strictly inside the box there). Here ``Z`` is the step-weighted
    exponential average (factor ``BETA``) of the iterates' ``rho L'(K_s - S)`` (which
    stays feasible: the sets are convex), improved by ``ASCENT`` projected
    supergradient steps on ``h`` (supergradient ``tau U q q^T U^T - S - rho grad L*``,
    ``q`` a bottom eigenvector), each an ``eigh`` of an ``r x r`` matrix; the step is
    adapted (x1.5 on success, /2 on failure) and kept between calls.
    """

    BETA = 0.95
    ASCENT = 3

    def __init__(self, loss, rho, tau, U, S):
        self.loss, self.rho, self.tau, self.U, self.S = loss, float(rho), float(tau), U, S
        self.Z = np.zeros_like(S)
        self.weight = 0.0
        self.step = 0.01

    def average(self, grad, eta):
        """Fold in the loss subgradient ``grad`` of an iterate taken with step ``eta``."""
        self.Z = self.BETA * self.Z + eta * self.rho * grad
        self.weight = self.BETA * self.weight + eta

    def _project(self, Z):
        if self.loss == "l1":
            return np.clip(Z, -self.rho, self.rho)
        if self.loss == "l2":
            norm = float(np.linalg.norm(Z))
            return Z if norm <= self.rho else Z * (self.rho / norm)
        return Z

    def _value(self, Z, v, c):
        A = Z if self.U is None else self.U.T @ Z @ self.U
        A = A - c * np.outer(v, v)
        w, Q = scipy.linalg.eigh(0.5 * (A + A.T), driver="evd")
        val = self.tau * w[0] - float(np.vdot(Z, self.S))
        grad = -self.S
        if self.loss == "l3":
            val -= float(np.vdot(Z, Z)) / (4.0 * self.rho)
            grad = grad - Z / (2.0 * self.rho)
        q = Q[:, 0] if self.U is None else self.U @ Q[:, 0]
        return val, grad + self.tau * np.outer(q, q)

    def bound(self, v, c):
        """The best ``h`` found from the running average at ``(v, c)``."""
        if self.rho == 0 or self.weight == 0:
            return self._value(np.zeros_like(self.S), v, c)[0]
        Z = self._project(self.Z / self.weight)
        val, g = self._value(Z, v, c)
        for _ in range(self.ASCENT):
            Zn = self._project(Z + self.step * g)
            vn, gn = self._value(Zn, v, c)
            if vn > val:
                Z, val, g, self.step = Zn, vn, gn, self.step * 1.5
            else:
                self.step *= 0.5
        return val

def _spectrum_dual_bound(c, lam, keep, tau, rho, loss):
    """A lower bound on ``min {<c, mu> + rho l(mu, lam) : mu >= 0, sum mu = tau, mu = 0
    off keep}`` (REKL's inner problem at fixed MKL ``alpha`` and weights ``gamma``).

    Weak duality with ``rho l(d) = max_z <z, d> - rho l*(z / rho)``: for any ``z``,
    ``h(z) = tau min_{j in keep} (c_j + z_j) - <z, lam> - rho l*(z / rho)`` is below the
    minimum. ``"l2sq"`` (``l = ||d||^2``, ``l*(w) = ||w||^2 / 4``): the minimiser is
    ``mu* = tau P((lam - c / (2 rho)) / tau)`` (``P`` the projection onto the simplex of
    the kept coordinates) and ``z = 2 rho (mu* - lam)`` attains it. ``"l2"``
    (``l = ||d||_2``, ``l*`` the indicator of the unit ball): the minimiser lies on the
    path ``mu(s) = tau P((lam - s c / rho) / tau)`` (the minimiser of ``<c, mu> + rho
    ||mu - lam||^2 / (2 s)``; at a root ``s`` of ``||mu(s) - lam|| = s`` it satisfies the
    optimality conditions of the problem; bracketed on a grid, then solved in closed
    form on the support of ``mu(s)`` until the support repeats); ``h`` is evaluated at
    ``z(s) = rho (mu(s) - lam) / ||mu(s) - lam||`` there (and on the bracketing grid)
    and the largest value returned. Every ``z`` gives a valid
    bound; at the minimiser's ``s`` it equals the minimum.
    """
    ck, lk = c[keep], lam[keep]
    if rho == 0:
        return tau * float(ck.min())
    if loss == "l2sq":
        mu = np.zeros_like(lam)
        mu[keep] = tau * project_simplex((lk - ck / (2.0 * rho)) / tau)
        z = 2.0 * rho * (mu - lam)
        return float(tau * (ck + z[keep]).min() - z @ lam - z @ z / (4.0 * rho))

    def path(s):  # mu(s) - lam for a vector of s, and its norms
        mu = np.zeros((s.size, lam.size))
        mu[:, keep] = tau * project_simplex((lk - s[:, None] * ck / rho) / tau)
        d = mu - lam
        return d, np.linalg.norm(d, axis=1)

    def h(d, norm):  # the dual value at z = rho d / ||d||
        z = rho * d / np.maximum(norm, 1e-300)[:, None]
        return tau * (ck + z[:, keep]).min(axis=1) - z @ lam

    # the minimiser is mu(s) at a root of ||mu(s) - lam|| = s (positive at s -> 0,
    # negative for large s), bracketed on a grid. On a fixed support J of mu(s),
    # mu_J - lam_J = -s (a_J - mean a_J) - nu0 (a = c / rho, nu0 = (sum lam_J - tau) / |J|)
    # and ||mu(s) - lam||^2 = s^2 A + |J| nu0^2 + R (A = sum (a_J - mean)^2, R = sum of
    # lam^2 off J): the root is closed-form; repeated until the support is consistent
    s = (float(np.linalg.norm(lam)) + tau) * np.logspace(-9, 3, 13)
    d, norm = path(s)
    best = float(h(d, norm).max())
    below = np.flatnonzero(norm <= s)
    root = np.sqrt(s[max(below[0] - 1, 0)] * s[below[0]]) if below.size else s[-1]
    a, support = c / rho, None
    for _ in range(8):
        d, norm = path(np.array([root]))
        J = d[0] > -lam  # mu_j > 0
        if support is not None and np.array_equal(J, support):
            break
        support = J
        aJ = a[J] - a[J].mean()
        A = float(aJ @ aJ)
        if A >= 1.0:
            break
        nu0 = (float(lam[J].sum()) - tau) / J.sum()
        root = np.sqrt((J.sum() * nu0 ** 2 + float(lam[~J] @ lam[~J])) / (1.0 - A))
    return max(best, float(h(d, norm)[0]))


class _MKLBased(_KunduBase):
    """EMKL and REKL: an MKL solve (eq. 10) per iteration."""

    _parameter_constraints = _KunduBase._constraints(_MATRIX_LOSS, mkl_tol=positive())


class EMKL(_MKLBased):
    """Entropic multiple kernel learning (Kundu et al. 2010, eq. 6, Algorithm 2).

    One kernel ``K_i`` (PSD, trace ``tau``) per similarity matrix, combined by
    the non-sparse MKL of eq. 10: ``min Omega(K_1..K_m) + rho sum_i L(K_i - S_i)``.
    Each iteration: one MKL solve (warm-started) and ``m`` ``eigh``. The
    subgradient is ``-1/(2 gamma_i) Y alpha alpha^T Y + rho L'(K_i - S_i)``
    (eq. 12 with its ``rho`` restored).

    Parameters
    ----------
    C, rho, loss, tau, max_iter, tol, rcond, directions, start, normalize, transductive,
    verbose : as :class:`ESKL` (``max_iter`` default 200; ``directions`` per matrix ``S_i``).
    scale : float, default=1.0
        Step scale (at 3 the L1 loss's iterates stop at a worse objective).
    mkl_tol : float, default=1e-4
        Certified relative gap of each MKL solve.

    Attributes
    ----------
    kernels_ : ndarray of shape (n, n, m) (binary) or list per pair
    gamma_ : ndarray of shape (m,) or (n_pairs, m)
        MKL weights (combined kernel ``sum_i K_i / gamma_i``).
    objective_, objective_history_, n_iter_, gap_, scales_, coef_, intercept_, tau_, ...

    Examples
    --------
    >>> import numpy as np
    >>> from proxlearn.mkl import EMKL
    >>> x = np.random.default_rng(0).normal(size=(30, 2))
    >>> S = np.exp(-(x[:, None, :] - x[None, :, :]) ** 2)  # (30, 30, 2): a matrix per feature
    >>> y = (x[:, 0] > 0).astype(int)
    >>> clf = EMKL().fit(S[:24, :24], y[:24])
    >>> clf.predict(S[24:, :24]).tolist(), np.round(clf.gamma_, 2).tolist()
    ([1, 1, 1, 0, 1, 0], [0.99, 0.01])

    See Also
    --------
    EMKLCV : ``C`` and ``rho`` chosen by cross-validation.
    REKL : the kernels restricted to the similarities' eigenvectors.
    ESKL : one kernel from one similarity matrix.
    NonSparseMKL : the MKL of eq. 10 on fixed kernels.
    """

    def __init__(self, C=1.0, *, rho=1.0, loss="l1", tau="auto", scale=1.0, max_iter=200,
                 tol=1e-2, rcond=1e-2, directions="positive", start="auto", normalize=True,
                 mkl_tol=1e-4, transductive=False, verbose=0):
        self.C = C
        self.rho = rho
        self.loss = loss
        self.tau = tau
        self.scale = scale
        self.max_iter = max_iter
        self.tol = tol
        self.rcond = rcond
        self.directions = directions
        self.start = start
        self.normalize = normalize
        self.transductive = transductive
        self.verbose = verbose
        self.mkl_tol = mkl_tol

    def _fit_binary(self, Ss, y, state=None):
        loss = matrix_loss(self.loss)
        N, _, m = Ss.shape
        nl = y.size  # labelled rows first (all of them unless transductive)
        tau = self.tau_
        bases = [(None, None, None) if self.transductive else
                 self._cached(state, ("basis", i), lambda i=i: self._basis(Ss[:, :, i:i + 1], i))
                 for i in range(m)]
        warm = state.get("warm") if state is not None else None
        same = self._same_path(state, warm)
        if same is not None:
            return same
        amax = 0.0  # the largest alpha_j of the fit's solves (_same_path)
        starts = warm["M"] if warm else [b[1] for b in bases]
        egs = [SubspaceEG(N, tau, b[0], start=s0) for b, s0 in zip(bases, starts, strict=True)]
        Ks = np.stack([eg.K for eg in egs], axis=-1)
        track = _Tracker(self.tol, IterationLog(type(self).__name__, self.verbose))
        lip, t0 = self._resumed(warm)
        gamma = warm["gamma"] if warm else None
        alpha = None
        duals = ([_BlockDual(self.loss, self.rho, tau, b[0], Ss[:, :, i])
                  for i, b in enumerate(bases)]
                 if isinstance(self.loss, str) else None)  # a callable: no conjugate
        for t in range(1, int(self.max_iter) + 1):
            res = nonsparse_mkl(Ks[:nl, :nl], y, self.C, tol=self.mkl_tol, gamma0=gamma,
                                alpha0=alpha)
            gamma, alpha = res.weights, res.alpha
            amax = max(amax, float(alpha.max()))
            vals, grads = zip(*(loss(Ks[:, :, i] - Ss[:, :, i]) for i in range(m)),
                              strict=True)
            f = res.objective + self.rho * float(np.sum(vals))
            track.update(f, (Ks.copy(), res))
            svm_g = self._svm_block(res.alpha * y, N)
            Grs = [egs[i].reduce(svm_g / gamma[i] + self.rho * grads[i]) for i in range(m)]
            if t % PATIENCE == 1:
                track.bound(f, sum(egs[i].fw_gap(Grs[i]) for i in range(m)))
            if duals and t % (2 * PATIENCE) == 1 and t > 1:  # the Lagrangian bound at
                # this alpha, gamma (_BlockDual): 4 eigh per matrix; the fits that the
                # fallback stops (t > 2 PATIENCE) get it at least once
                u = np.zeros(N)
                u[:nl] = res.alpha * y
                track.dual(float(res.alpha.sum()) + sum(
                    d.bound(u if d.U is None else d.U.T @ u, 0.5 / gamma[i])
                    for i, d in enumerate(duals)))
            if track.converged():
                break
            lip = max(lip, max(float(np.linalg.norm(G)) for G in Grs))
            for i in range(m):
                eta = step_size(self.scale, lip, egs[i].dim, t0 + t)
                if duals:
                    duals[i].average(grads[i], eta)
                Ks[:, :, i] = egs[i].step(Grs[i], eta)
        track.warn_if_not_converged(type(self).__name__, int(self.max_iter))
        Ks, res = track.best_state
        if state is not None and not self.transductive:
            state["warm"] = dict(M=[b[0].T @ Ks[:, :, i] @ b[0] for i, b in enumerate(bases)],
                                 gamma=res.weights, lip=lip, t=t0 + len(track.history))
        coef = res.alpha * y
        out = {"b": res.b, "dual_coef": coef, "objective": track.best, "gap": track.gap,
               "history": track.history,
               "n_iter": len(track.history), "kernels": Ks, "gamma": res.weights}
        if self.transductive:
            out["unlabelled_decision"] = (Ks[nl:, :nl] @ (1.0 / res.weights)) @ coef + res.b
        else:
            # per matrix K_i S_i^+ s_i(x) (_basis), combined with 1 / gamma_i
            out["w"] = np.stack([apply(Ks[:, :, i] @ coef)[:, 0] / res.weights[i]
                                 for i, (_, _, apply) in enumerate(bases)], axis=-1)
        self._record_path(state, warm, amax, out)
        return out

    def _set_learned(self, fits, binary):
        self.kernels_ = fits[0]["kernels"] if binary else [f["kernels"] for f in fits]
        self.gamma_ = fits[0]["gamma"] if binary else np.array([f["gamma"] for f in fits])


class REKL(_MKLBased):
    """Restricted entropic kernel learning (Kundu et al. 2010, eq. 7, Algorithm 3).

    Each ``K_i = V_i diag(mu_i) V_i^T`` keeps the eigenvectors of ``S_i`` and
    learns its spectrum ``mu_i`` on the simplex of sum ``tau``:
    ``min Omega(K_1..K_m) + rho sum_i l(mu_i, lambda_i)``. One ``eigh`` per
    matrix up front, none per iteration (vector exponentiated gradient; the
    subgradient ``-(v_ij^T Y alpha)^2 / (2 gamma_i) + rho dl/dmu_ij`` with
    ``rho`` restored).

    Parameters
    ----------
    C, rho, tau, max_iter, tol, rcond, directions, start, normalize, mkl_tol,
    transductive, verbose : as :class:`EMKL` (``directions="positive"``: ``mu_ij = 0`` unless
        ``lambda_ij > rcond max_j lambda_ij``; ``start="clip"``: ``mu_i`` from
        ``tau lambda_i / sum``)
    scale : float, default=0.2
        Step scale (ours). At 1 the first steps overshoot on stacks of similarity
        matrices: the objective zigzags and the fit either returns its start or runs
        50-300 iterations; at 0.2 the same accuracy on the panel, lower objectives on
        stacks in 30-42 iterations (docs/methods.md, Kundu section).
    loss : {"l2", "l2sq"}, default="l2"
        ``||mu - lambda||_2`` or its square (the text is ambiguous).

    Attributes
    ----------
    spectra_mu_ : ndarray of shape (n, m) (binary) or list per pair
        The learned spectra ``mu_i`` (columns), in ``eigh``'s order of ``S_i``.
    gamma_, objective_, objective_history_, n_iter_, gap_, scales_, coef_, intercept_,
    tau_, ...

    Examples
    --------
    >>> import numpy as np
    >>> from proxlearn.mkl import REKL
    >>> x = np.random.default_rng(0).normal(size=(30, 2))
    >>> S = np.exp(-(x[:, None, :] - x[None, :, :]) ** 2)  # (30, 30, 2): a matrix per feature
    >>> y = (x[:, 0] > 0).astype(int)
    >>> clf = REKL().fit(S[:24, :24], y[:24])
    >>> clf.predict(S[24:, :24]).tolist(), np.round(clf.gamma_, 2).tolist()
    ([1, 1, 1, 0, 1, 0], [0.99, 0.01])

    See Also
    --------
    REKLCV : ``C`` and ``rho`` chosen by cross-validation.
    EMKL : the kernels learned in full.
    ESKL : one kernel from one similarity matrix.
    """

    def __init__(self, C=1.0, *, rho=1.0, loss="l2", tau="auto", scale=0.2, max_iter=300,
                 tol=1e-2, rcond=1e-2, directions="positive", start="auto", normalize=True,
                 mkl_tol=1e-4, transductive=False, verbose=0):
        self.C = C
        self.rho = rho
        self.loss = loss
        self.tau = tau
        self.scale = scale
        self.max_iter = max_iter
        self.tol = tol
        self.rcond = rcond
        self.directions = directions
        self.start = start
        self.normalize = normalize
        self.transductive = transductive
        self.verbose = verbose
        self.mkl_tol = mkl_tol

    _parameter_constraints = _KunduBase._constraints(
        satisfies(lambda v: isinstance(v, str) and v in ("l2", "l2sq"),
                  "'l2' or 'l2sq' for REKL"),
        mkl_tol=positive())
    # resumed small steps from a previous grid point's spectra stalled far from the new
    # optimum (objective up to 4.8x a cold fit's, sonar-noisy; docs/methods.md)
    _resume_steps = False

    def _fit_binary(self, Ss, y, state=None):
        loss = spectrum_loss(self.loss)
        N, _, m = Ss.shape
        nl = y.size  # labelled rows first (all of them unless transductive)
        tau = self.tau_
        eig = self._cached(state, "eig", lambda: [scipy.linalg.eigh(Ss[:, :, i], driver="evd")
                                                for i in range(m)])
        lams = np.stack([e[0] for e in eig], axis=1)  # (n, m)
        Vs = [e[1] for e in eig]
        # mu_ij = 0 where |lambda_ij| <= rcond max|lambda_i|: the test map divides by
        # lambda_ij, so only the kept part of the spectrum is learned (exact and stable)
        if self.directions == "positive":  # the clipped spectrum above rcond of its top
            keeps = lams > self.rcond * lams.max(axis=0)
        else:
            keeps = np.abs(lams) > self.rcond * np.abs(lams).max(axis=0)
        if self.transductive:  # no test map: the whole spectrum is learned
            keeps[:] = True
        for i in np.flatnonzero(~keeps.any(axis=0)):
            raise _no_direction(i)
        # cumulative -sum eta g (plus the start): mu_i = tau softmax(Z[:, i]) on keeps
        Z = np.zeros((N, m))
        clip_start = (self.start != "identity" and self.directions == "positive"
                      and not self.transductive)
        if self.start == "clip" and not clip_start:
            raise InvalidParameterError(
                "start='clip' needs directions='positive' and transductive=False; use "
                "start='identity' or 'auto'.")
        if clip_start:
            Z = np.where(keeps, np.log(np.where(keeps, lams, 1.0)
                                       / np.where(keeps, lams, 0.0).max(axis=0)), 0.0)
        warm = state.get("warm") if state is not None else None
        same = self._same_path(state, warm)
        if same is not None:
            return same
        amax = 0.0  # the largest alpha_j of the fit's solves (_same_path)
        if warm:  # the previous grid point's spectra (log-weights)
            Z = warm["Z"].copy()
        track = _Tracker(self.tol, IterationLog(type(self).__name__, self.verbose))
        lip, t0 = self._resumed(warm)
        gamma = warm["gamma"] if warm else None
        alpha = None
        for t in range(1, int(self.max_iter) + 1):
            Zk = np.where(keeps, Z, -np.inf)
            W = np.exp(Zk - Zk.max(axis=0))
            mu = tau * W / W.sum(axis=0)
            # kernel-major (each K_i contiguous): the MKL solve's products K_i u and
            # sub-stack gathers read whole kernels instead of every m-th entry
            Ks = np.moveaxis(np.stack([psd_from_eig(Vs[i], mu[:, i]) for i in range(m)]), 0, -1)
            res = nonsparse_mkl(Ks[:nl, :nl], y, self.C, tol=self.mkl_tol, gamma0=gamma,
                                alpha0=alpha)
            gamma, alpha = res.weights, res.alpha
            amax = max(amax, float(alpha.max()))
            vals, grads = zip(*(loss(mu[:, i] - lams[:, i]) for i in range(m)),
                              strict=True)
            f = res.objective + self.rho * float(np.sum(vals))
            track.update(f, (mu.copy(), res, Z.copy()))
            u = res.alpha * y
            svm_g = np.stack([-(Vs[i][:nl].T @ u) ** 2 / (2.0 * gamma[i]) for i in range(m)],
                             axis=1)
            g = np.where(keeps, svm_g + self.rho * np.stack(grads, axis=1), 0.0)
            # Frank-Wolfe gap on the simplices: <g_i, mu_i> - tau min_{kept j} g_ij
            g_min = np.where(keeps, g, np.inf).min(axis=0)
            track.bound(f, float(np.sum(g * mu) - tau * g_min.sum()))
            if t % 3 == 1:  # the Lagrangian dual at this (alpha, gamma): the inner
                # problem per matrix is over a simplex (_spectrum_dual_bound); about as
                # costly as an iteration's MKL solve, hence every third iteration
                track.dual(float(res.alpha.sum()) + sum(
                    _spectrum_dual_bound(svm_g[:, i], lams[:, i], keeps[:, i], tau,
                                         self.rho, self.loss) for i in range(m)))
            if track.converged():
                break
            lip = max(lip, float(np.abs(g).max()))
            Z -= step_size(self.scale, lip, N, t0 + t) * g
        track.warn_if_not_converged(type(self).__name__, int(self.max_iter))
        mu, res, Z_best = track.best_state
        if state is not None:
            state["warm"] = dict(Z=Z_best, gamma=res.weights, lip=lip,
                                 t=t0 + len(track.history))
        coef = res.alpha * y
        out = {"b": res.b, "dual_coef": coef, "objective": track.best, "gap": track.gap,
               "history": track.history,
               "n_iter": len(track.history), "mu": mu, "gamma": res.weights}
        if self.transductive:
            Kc = sum(psd_from_eig(Vs[i], mu[:, i]) / res.weights[i] for i in range(m))
            out["unlabelled_decision"] = Kc[nl:, :nl] @ coef + res.b
        else:
            w = np.empty((N, m))
            for i in range(m):
                lam, keep = lams[:, i], keeps[:, i]
                factor = np.where(keep, mu[:, i] / np.where(keep, lam, 1.0), 0.0)
                w[:, i] = Vs[i] @ (factor * (Vs[i].T @ coef)) / res.weights[i]
            out["w"] = w
        self._record_path(state, warm, amax, out)
        return out

    def _set_learned(self, fits, binary):
        self.spectra_mu_ = fits[0]["mu"] if binary else [f["mu"] for f in fits]
        self.gamma_ = fits[0]["gamma"] if binary else np.array([f["gamma"] for f in fits])
