"""ESKL, EMKL and REKL: kernels learned from several indefinite similarity matrices
(Kundu, Tankasali, Bhattacharyya & Ben-Tal, NIPS 2010), by entropic mirror descent.

With ``omega(K)`` the SVM dual optimum (eq. 1), ``Omega`` the non-sparse MKL of
eq. 10 (:func:`proxlearn.mkl.nonsparse_mkl`) and ``S_1..S_m`` the similarity
matrices (an ``(n, n, m)`` stack, :mod:`proxlearn.mkl._input`):

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
norm; ``tau`` is not given: ``"auto"`` is the mean trace of the ``S_i``
(``n`` for unit-diagonal similarities), or the mean trace of their clipped
versions when that mean is not positive. "Until convergence" is not defined:
we stop when the best objective improved by less than ``tol`` (relative)
over the last 25 iterations, or at ``max_iter``.

Test rows (not in the paper, digest 3.7): inductive maps ``k(x) = K S_i^+ s_i(x)``
(ESKL: averaged over ``i``; EMKL: per matrix, combined with the MKL weights
``1/gamma_i``) and ``V_i diag(mu_i / lambda_i) V_i^T s_i(x)`` (REKL), with
pseudo-inverse tolerance ``rcond``. ``S_i^+`` multiplies a test row's component
along an eigenvector of ``S_i`` by ``1 / lambda``; so that the maps are both
exact and stable, **the kernels are learned only in the directions the maps keep**
(``|lambda| > rcond max |lambda|``; for ESKL with several matrices, the directions
every ``S_i`` keeps): ``K = U M U^T`` with ``M`` on the spectrahedron of trace
``tau`` (mirror descent is rotation invariant, so for well-conditioned ``S_i`` this
is the paper's problem), and REKL's ``mu_ij = 0`` for the dropped ``lambda_ij``.
Training rows then map exactly to the learned training kernel for any ``S_i``
(tested with singular and ill-conditioned matrices). The default ``rcond = 1e-3``
was chosen on aural_sonar: with ``1e-10`` one eigenvalue at ``9e-5 max |lambda|``
(amplification 11,000x) turned an ESKL-L1 test partition to 40 % accuracy, 80 %
with it excluded (docs/reproduction-discussion.md). Because each map is linear,
the decision is ``f(x) = sum_i s_i(x)^T w_i + b`` with precomputed ``w_i``
(``coef_``).
Several classes: one-vs-one, a kernel learned per pair.
"""

from __future__ import annotations

import numbers

import numpy as np
import scipy.linalg

from .._validation import (
    InvalidParameterError,
    LabelError,
    check_labels,
    check_option,
    check_positive,
)
from ..mkl._classifiers import _BaseMKL
from ..mkl._input import check_multi_similarity
from ..mkl._solvers import nonsparse_mkl
from ..mkl._svm_dual import svm_dual
from ..svm._ovo import ovo_pairs, ovo_subproblems
from ._entropic import (
    matrix_loss,
    SubspaceEG,
    kept_basis,
    pinv_factor,
    psd_from_eig,
    spectrum_loss,
    step_size,
)

__all__ = ["EMKL", "ESKL", "REKL"]

PATIENCE = 25


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
    """Best iterate and the stopping rule (relative improvement over a window)."""

    def __init__(self, tol):
        self.tol = tol
        self.history = []
        self.best = np.inf
        self.best_state = None

    def update(self, value, state):
        self.history.append(value)
        if value < self.best:
            self.best, self.best_state = value, state

    def converged(self):
        h = self.history
        if len(h) <= PATIENCE:
            return False
        before = min(h[:-PATIENCE])
        return before - self.best <= self.tol * max(abs(self.best), 1e-12)


class _KunduBase(_BaseMKL):
    """Shared fit: OvO over pairs of classes, ``coef_`` as in the MKL classifiers."""

    def _check_common(self):
        check_positive(self.C, "C")
        check_positive(self.rho, "rho", allow_zero=True)
        check_positive(self.scale, "scale")
        check_positive(self.tol, "tol")
        check_positive(self.rcond, "rcond")
        if (isinstance(self.max_iter, bool) or not isinstance(self.max_iter, numbers.Integral)
                or self.max_iter < 1):
            raise InvalidParameterError(f"max_iter must be an integer >= 1, got {self.max_iter!r}.")

    def fit(self, X, y):
        """Learn the kernel(s) and the SVM.

        Parameters
        ----------
        X : array-like of shape (n, n, m) or (n, n)
            ``m`` similarity matrices over the ``n`` training samples (last axis).
        y : array-like of shape (n,)
        """
        self._check_params()
        Ss = check_multi_similarity(X, symmetric="symmetrize")
        n, _, m = Ss.shape
        classes, y_idx = check_labels(y, n)
        if classes.dtype.kind == "f" and np.any(classes != np.round(classes)):
            raise LabelError("Unknown label type: continuous. Pass class labels.")
        self.tau_ = _tau(Ss, self.tau)
        pairs = ovo_pairs(len(classes))
        self.coef_ = np.zeros((len(pairs), n, m))
        self.intercept_ = np.zeros(len(pairs))
        self.spectra_ = []
        fits = []
        for k, idx, y_pm in ovo_subproblems(y_idx, len(classes)):
            fit = self._fit_binary(Ss[np.ix_(idx, idx)], y_pm)
            self.coef_[k, idx] = fit["w"]
            self.intercept_[k] = fit["b"]
            fits.append(fit)
        self.classes_ = classes
        self.n_features_in_ = n
        self.n_kernels_ = m
        binary = len(pairs) == 1
        self.fits_ = fits
        self.objective_ = fits[0]["objective"] if binary else np.array(
            [f["objective"] for f in fits])
        self.objective_history_ = fits[0]["history"] if binary else [f["history"] for f in fits]
        self.n_iter_ = fits[0]["n_iter"] if binary else np.array([f["n_iter"] for f in fits])
        self._set_learned(fits, binary)
        return self

    def _basis(self, Ss):
        """Where the learned kernel may live (:func:`kept_basis`); a clear error if
        the matrices keep no common direction."""
        U, dropped = kept_basis(Ss, self.rcond)
        if U is not None and U.shape[1] == 0:
            raise InvalidParameterError(
                f"the similarity matrices keep no common direction at rcond={self.rcond:g} "
                f"(eigen-directions dropped per matrix: {dropped}); lower rcond, or learn "
                "one kernel per matrix (EMKL, REKL)."
            )
        return U

    def _pinv_apply(self, S, K):
        """``S^+ K`` with the explicit tolerance ``rcond``."""
        V, inv = pinv_factor(S, self.rcond)
        return (V * inv) @ (V.T @ K)


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
    scale : float, default=1.0
        Step scale (the paper: "choose suitable step-size").
    update : {"exact", "printed"}, default="exact"
        The exact matrix-EG step, or Algorithm 1 as printed (fidelity checks).
    max_iter : int, default=300
    tol : float, default=1e-5
    rcond : float, default=1e-3
        Pseudo-inverse tolerance of the inductive test map ``K S_i^+``; the
        kernel is learned in the directions of ``S_i`` with
        ``|lambda| > rcond max |lambda|`` only (module docstring). Near 0: the
        unrestricted problem of eq. 4, with a test map that may amplify noise.

    Attributes
    ----------
    kernel_ : ndarray (binary) or list per pair
        The best learned kernel.
    objective_, objective_history_, n_iter_, coef_, intercept_, tau_,
    classes_, n_kernels_, n_features_in_, fits_.
    """

    def __init__(self, C=1.0, *, rho=1.0, loss="l3", tau="auto", scale=1.0,
                 update="exact", max_iter=300, tol=1e-5, rcond=1e-3):
        self.C = C
        self.rho = rho
        self.loss = loss
        self.tau = tau
        self.scale = scale
        self.update = update
        self.max_iter = max_iter
        self.tol = tol
        self.rcond = rcond

    def _check_params(self):
        self._check_common()
        check_option(self.update, "update", {"exact", "printed"})
        matrix_loss(self.loss)  # validates; not stored (closures do not pickle)

    def _fit_binary(self, Ss, y):
        loss = matrix_loss(self.loss)
        n, _, m = Ss.shape
        eg = SubspaceEG(n, self.tau_, self._basis(Ss), self.update)
        K = eg.K
        track = _Tracker(self.tol)
        lip = 0.0
        for t in range(1, int(self.max_iter) + 1):
            sol = svm_dual(K, y, self.C)
            vals, grads = zip(*(loss(K - Ss[:, :, i]) for i in range(m)), strict=True)
            f = sol.value + self.rho * float(np.sum(vals))
            track.update(f, (K, sol))
            if track.converged():
                break
            u = sol.alpha * y
            Gr = eg.reduce(-0.5 * np.outer(u, u) + self.rho * np.sum(grads, axis=0))
            lip = max(lip, float(np.linalg.norm(Gr)))
            K = eg.step(Gr, step_size(self.scale, lip, eg.dim, t))
        K, sol = track.best_state
        coef = sol.alpha * y
        Kc = K @ coef
        w = np.stack([self._pinv_apply(Ss[:, :, i], Kc) for i in range(m)], axis=-1) / m
        return {"w": w, "b": sol.b, "dual_coef": coef, "objective": track.best, "history": track.history,
                "n_iter": len(track.history), "kernel": K}

    def _set_learned(self, fits, binary):
        self.kernel_ = fits[0]["kernel"] if binary else [f["kernel"] for f in fits]


class _MKLBased(_KunduBase):
    """EMKL and REKL: an MKL solve (eq. 10) per iteration."""

    _loss_factory = staticmethod(matrix_loss)

    def _check_params(self):
        self._check_common()
        check_positive(self.mkl_tol, "mkl_tol")
        self._loss_factory(self.loss)  # validates; not stored (closures do not pickle)


class EMKL(_MKLBased):
    """Entropic multiple kernel learning (Kundu et al. 2010, eq. 6, Algorithm 2).

    One kernel ``K_i`` (PSD, trace ``tau``) per similarity matrix, combined by
    the non-sparse MKL of eq. 10: ``min Omega(K_1..K_m) + rho sum_i L(K_i - S_i)``.
    Each iteration: one MKL solve (warm-started) and ``m`` ``eigh``. The
    subgradient is ``-1/(2 gamma_i) Y alpha alpha^T Y + rho L'(K_i - S_i)``
    (eq. 12 with its ``rho`` restored).

    Parameters
    ----------
    C, rho, loss, tau, scale, max_iter, tol, rcond : as :class:`ESKL`
        (``max_iter`` default 200).
    mkl_tol : float, default=1e-4
        Certified relative gap of each MKL solve.

    Attributes
    ----------
    kernels_ : ndarray of shape (n, n, m) (binary) or list per pair
    gamma_ : ndarray of shape (m,) or (n_pairs, m)
        MKL weights (combined kernel ``sum_i K_i / gamma_i``).
    objective_, objective_history_, n_iter_, coef_, intercept_, tau_, ...
    """

    def __init__(self, C=1.0, *, rho=1.0, loss="l1", tau="auto", scale=1.0, max_iter=200,
                 tol=1e-5, rcond=1e-3, mkl_tol=1e-4):
        self.C = C
        self.rho = rho
        self.loss = loss
        self.tau = tau
        self.scale = scale
        self.max_iter = max_iter
        self.tol = tol
        self.rcond = rcond
        self.mkl_tol = mkl_tol

    def _fit_binary(self, Ss, y):
        loss = matrix_loss(self.loss)
        n, _, m = Ss.shape
        tau = self.tau_
        egs = [SubspaceEG(n, tau, self._basis(Ss[:, :, i:i + 1])) for i in range(m)]
        Ks = np.stack([eg.K for eg in egs], axis=-1)
        track = _Tracker(self.tol)
        lip = 0.0
        gamma = None
        for t in range(1, int(self.max_iter) + 1):
            res = nonsparse_mkl(Ks, y, self.C, tol=self.mkl_tol, gamma0=gamma)
            gamma = res.weights
            vals, grads = zip(*(loss(Ks[:, :, i] - Ss[:, :, i]) for i in range(m)),
                              strict=True)
            f = res.objective + self.rho * float(np.sum(vals))
            track.update(f, (Ks.copy(), res))
            if track.converged():
                break
            u = res.alpha * y
            uu = np.outer(u, u)
            Grs = [egs[i].reduce(-uu / (2.0 * gamma[i]) + self.rho * grads[i]) for i in range(m)]
            lip = max(lip, max(float(np.linalg.norm(G)) for G in Grs))
            for i in range(m):
                eta = step_size(self.scale, lip, egs[i].dim, t)
                Ks[:, :, i] = egs[i].step(Grs[i], eta)
        Ks, res = track.best_state
        coef = res.alpha * y
        w = np.stack([self._pinv_apply(Ss[:, :, i], Ks[:, :, i] @ coef) / res.weights[i]
                      for i in range(m)], axis=-1)
        return {"w": w, "b": res.b, "dual_coef": coef, "objective": track.best, "history": track.history,
                "n_iter": len(track.history), "kernels": Ks, "gamma": res.weights}

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
    C, rho, tau, scale, max_iter, tol, rcond, mkl_tol : as :class:`EMKL`
    loss : {"l2", "l2sq"}, default="l2"
        ``||mu - lambda||_2`` or its square (the text is ambiguous).

    Attributes
    ----------
    spectra_mu_ : ndarray of shape (n, m) (binary) or list per pair
        The learned spectra ``mu_i`` (columns), in ``eigh``'s order of ``S_i``.
    gamma_, objective_, objective_history_, n_iter_, coef_, intercept_, tau_, ...
    """

    def __init__(self, C=1.0, *, rho=1.0, loss="l2", tau="auto", scale=1.0, max_iter=300,
                 tol=1e-5, rcond=1e-3, mkl_tol=1e-4):
        self.C = C
        self.rho = rho
        self.loss = loss
        self.tau = tau
        self.scale = scale
        self.max_iter = max_iter
        self.tol = tol
        self.rcond = rcond
        self.mkl_tol = mkl_tol

    _loss_factory = staticmethod(spectrum_loss)

    def _fit_binary(self, Ss, y):
        loss = spectrum_loss(self.loss)
        n, _, m = Ss.shape
        tau = self.tau_
        eig = [scipy.linalg.eigh(Ss[:, :, i], driver="evd") for i in range(m)]
        lams = np.stack([e[0] for e in eig], axis=1)  # (n, m)
        Vs = [e[1] for e in eig]
        # mu_ij = 0 where |lambda_ij| <= rcond max|lambda_i|: the test map divides by
        # lambda_ij, so only the kept part of the spectrum is learned (exact and stable)
        keeps = np.abs(lams) > self.rcond * np.maximum(np.abs(lams).max(axis=0), 1e-300)
        Z = np.zeros((n, m))  # cumulative -sum eta g: mu_i = tau softmax(Z[:, i]) on keeps
        track = _Tracker(self.tol)
        lip = 0.0
        gamma = None
        for t in range(1, int(self.max_iter) + 1):
            Zk = np.where(keeps, Z, -np.inf)
            W = np.exp(Zk - Zk.max(axis=0))
            mu = tau * W / W.sum(axis=0)
            Ks = np.stack([psd_from_eig(Vs[i], mu[:, i]) for i in range(m)], axis=-1)
            res = nonsparse_mkl(Ks, y, self.C, tol=self.mkl_tol, gamma0=gamma)
            gamma = res.weights
            vals, grads = zip(*(loss(mu[:, i] - lams[:, i]) for i in range(m)),
                              strict=True)
            f = res.objective + self.rho * float(np.sum(vals))
            track.update(f, (mu.copy(), res))
            if track.converged():
                break
            u = res.alpha * y
            g = np.stack([-(Vs[i].T @ u) ** 2 / (2.0 * gamma[i]) + self.rho * grads[i]
                          for i in range(m)], axis=1)
            g = np.where(keeps, g, 0.0)
            lip = max(lip, float(np.abs(g).max()))
            Z -= step_size(self.scale, lip, n, t) * g
        mu, res = track.best_state
        coef = res.alpha * y
        w = np.empty((n, m))
        for i in range(m):
            lam, keep = lams[:, i], keeps[:, i]
            factor = np.where(keep, mu[:, i] / np.where(keep, lam, 1.0), 0.0)
            w[:, i] = Vs[i] @ (factor * (Vs[i].T @ coef)) / res.weights[i]
        return {"w": w, "b": res.b, "dual_coef": coef, "objective": track.best, "history": track.history,
                "n_iter": len(track.history), "mu": mu, "gamma": res.weights}

    def _set_learned(self, fits, binary):
        self.spectra_mu_ = fits[0]["mu"] if binary else [f["mu"] for f in fits]
        self.gamma_ = fits[0]["gamma"] if binary else np.array([f["gamma"] for f in fits])
