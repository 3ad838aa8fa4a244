"""Entropic mirror descent on the spectrahedron and the simplex (Kundu et al. 2010, sec. 3).

Pieces shared by :class:`ESKL`, :class:`EMKL` and :class:`REKL`:

* losses ``L(K - S)`` with a subgradient (``"l1"``: ``sum |X_ij|``,
  ``"l2"``: ``||X||_F``, ``"l3"``: ``||X||_F^2``, or a callable returning
  ``(value, subgradient)``), and the spectrum losses of REKL (``"l2"``:
  ``||mu - lambda||_2``, ``"l2sq"``: its square; the paper's text is
  ambiguous, digest 3.4);
* the **exact** matrix exponentiated-gradient step (digest 3.1):
  ``K_{t+1} = tau exp(log K_t - eta G) / tr exp(...)``, kept in the cumulative
  form ``K_{t+1} = tau exp(M_t) / tr exp(M_t)``, ``M_t = -sum_s eta_s G_s``
  (exact from ``K_1 = tau/n I``; no matrix logarithm, one ``eigh`` per step,
  the largest eigenvalue subtracted before exponentiating);
* the printed step of Algorithm 1, which pairs the eigenvalues of ``K_t``
  with the eigenvectors of ``G`` (both in ``eigh``'s ascending order) and is
  only right when they commute (kept for fidelity checks);
* the step size ``eta_t = scale / L_t sqrt(2 log n / t)`` (Prop. 3.1) with
  ``L_t`` the running maximum of ``||G_s||_F`` (the unknown Lipschitz
  constant, estimated);
* the inductive test map ``k(x) = K S^+ s(x)`` (digest 3.7 (c)).
"""

from __future__ import annotations

import numpy as np
import scipy.linalg

from .._validation import InvalidParameterError

__all__ = ["matrix_loss", "spectrum_loss", "eg_spectrahedron", "eg_printed", "softmax_eig"]


def _norm_loss(d):
    """``||d||`` (Frobenius or Euclidean) and its subgradient (0 at 0)."""
    v = float(np.linalg.norm(d))
    return v, (d / v if v > 0 else np.zeros_like(d))


def matrix_loss(loss):
    """``(value, subgradient)`` function of ``X = K - S`` for a loss name or callable."""
    if callable(loss):
        def user(X):
            out = loss(X)
            if not (isinstance(out, tuple) and len(out) == 2):
                raise InvalidParameterError(
                    "a callable loss must return (value, subgradient) for X = K - S_i."
                )
            v, g = out
            g = np.asarray(g, dtype=np.float64)
            if g.shape != X.shape or not np.isfinite(v) or not np.all(np.isfinite(g)):
                raise InvalidParameterError(
                    f"the callable loss must return a finite value and an {X.shape} "
                    "finite subgradient."
                )
            return float(v), 0.5 * (g + g.T)
        return user
    if loss == "l1":
        return lambda X: (float(np.abs(X).sum()), np.sign(X))
    if loss == "l2":
        return _norm_loss
    if loss == "l3":
        return lambda X: (float(np.vdot(X, X)), 2.0 * X)
    raise InvalidParameterError(
        f"loss must be 'l1', 'l2', 'l3' or a callable returning (value, subgradient), "
        f"got {loss!r}."
    )


def spectrum_loss(loss):
    """REKL's ``l(mu, lambda)``: ``"l2"`` (``||mu - lambda||_2``) or ``"l2sq"``."""
    if loss == "l2":
        return _norm_loss
    if loss == "l2sq":
        return lambda d: (float(d @ d), 2.0 * d)
    raise InvalidParameterError(f"loss must be 'l2' or 'l2sq' for REKL, got {loss!r}.")


def softmax_eig(M, tau):
    """``tau exp(M) / tr exp(M)`` for symmetric ``M``; returns ``(K, eigvals, eigvecs)``."""
    c, Q = scipy.linalg.eigh(0.5 * (M + M.T), driver="evd")
    w = np.exp(c - c.max())
    lam = tau * w / w.sum()
    K = (Q * lam) @ Q.T
    return 0.5 * (K + K.T), lam, Q


def eg_spectrahedron(M, G, eta, tau):
    """One exact matrix-EG step in cumulative form: ``M <- M - eta G``; new ``K``."""
    M = M - eta * G
    K, lam, Q = softmax_eig(M, tau)
    return M, K, lam, Q


def eg_printed(lam, G, eta, tau):
    """The update as printed in Algorithm 1 (eigenvectors of ``G``, eigenvalues of ``K``)."""
    d, V = scipy.linalg.eigh(0.5 * (G + G.T), driver="evd")
    z = np.log(np.maximum(lam, 1e-300)) - eta * d
    w = np.exp(z - z.max())
    lam_new = tau * w / w.sum()
    K = (V * lam_new) @ V.T
    return 0.5 * (K + K.T), lam_new, V


def step_size(scale, lip, n, t):
    """``eta_t = scale / L sqrt(2 log n / t)`` (Kundu Prop. 3.1)."""
    return float(scale) / max(lip, 1e-300) * np.sqrt(2.0 * np.log(max(n, 3)) / t)


def pinv_factor(S, rcond):
    """``(V_r, 1/lambda_r)`` of ``S^+`` with eigenvalues ``|lambda| > rcond max|lambda|``."""
    lam, V = scipy.linalg.eigh(S, driver="evd")
    keep = np.abs(lam) > rcond * max(float(np.abs(lam).max()), 1e-300)
    return V[:, keep], 1.0 / lam[keep]
