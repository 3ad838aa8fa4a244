"""Entropic mirror descent on the spectrahedron and the simplex (Kundu et al. 2010, sec. 3).

Pieces shared by :class:`ESKL`, :class:`EMKL` and :class:`REKL`:

* losses ``L(K - S)`` with a subgradient (``"l1"``: ``sum |X_ij|``,
  ``"l2"``: ``||X||_F``, ``"l3"``: ``||X||_F^2``, or a callable returning
  ``(value, subgradient)``), and the spectrum losses of REKL (``"l2"``:
  ``||mu - lambda||_2``, ``"l2sq"``: its square; the paper's text is
  ambiguous);
* the **exact** matrix exponentiated-gradient step (the erratum followed):
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
* the inductive test map ``k(x) = K S^+ s(x)``.

Kundu et al. (2010), Algorithms 1-3 and Prop. 3.1. The erratum, the readings of
the ambiguous loss and of the test map: docs/methods.md, section "Kernels from
several indefinite similarity matrices".
"""

from __future__ import annotations

import numpy as np
import scipy.linalg

from .._validation import InvalidParameterError

__all__ = ["matrix_loss", "spectrum_loss", "eg_spectrahedron", "eg_printed", "softmax_eig",
           "SubspaceEG", "kept_basis", "positive_basis", "psd_from_eig"]


def _norm_loss(d):
    """``||d||`` (Frobenius or Euclidean) and its subgradient (0 at 0)."""
    v = float(np.linalg.norm(d))
    return v, (d / v if v > 0 else np.zeros_like(d))


def matrix_loss(loss):
    """``(value, subgradient)`` function of ``X = K - S`` for a loss name or callable.

    Examples
    --------
    >>> import numpy as np
    >>> from proxlearn.mkl._mirror_descent import matrix_loss
    >>> value, grad = matrix_loss("l1")(np.array([[0.0, -2.0], [-2.0, 1.0]]))
    >>> value, grad.tolist()
    (5.0, [[0.0, -1.0], [-1.0, 1.0]])

    See Also
    --------
    spectrum_loss : REKL's losses on spectra.
    """
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


def psd_from_eig(Q, lam):
    """``Q diag(lam) Q^T`` for ``lam >= 0``, exactly symmetric.

    One BLAS ``syrk`` on ``Q sqrt(lam)`` over the columns with ``lam > 0`` only
    (half the flops of the ``gemm`` in ``(Q * lam) @ Q.T``, times ``r / n``); numpy
    has no symmetric rank-k product, hence the direct BLAS call. It is the
    per-iteration O(n^2 r) term of every method here.
    """
    lam = np.maximum(lam, 0.0)
    keep = lam > 0  # zero weights (REKL's unkept directions) add nothing: rank-r product
    if not keep.all():
        Q, lam = Q[:, keep], lam[keep]
    A = np.asarray(Q * np.sqrt(lam), order="F")
    L = scipy.linalg.blas.dsyrk(1.0, A, lower=1)  # the lower triangle; the upper is 0
    out = L + L.T  # exactly symmetric; the diagonal counted twice (exact: 2d - d = d)
    out.flat[:: out.shape[0] + 1] -= L.diagonal()
    return out


def softmax_eig(M, tau, form=True):
    """``tau exp(M) / tr exp(M)`` for symmetric ``M``; returns ``(K, eigvals, eigvecs)``
    (``K`` is ``None`` with ``form=False``: the caller builds it from the factors)."""
    c, Q = scipy.linalg.eigh(0.5 * (M + M.T), driver="evd")
    w = np.exp(c - c.max())
    lam = tau * w / w.sum()
    return (psd_from_eig(Q, lam) if form else None), lam, Q


def eg_spectrahedron(M, G, eta, tau, form=True):
    """One exact matrix-EG step in cumulative form: ``M <- M - eta G``; new ``K``
    (``None`` with ``form=False``).

    Returns ``(M, K, eigenvalues of K, eigenvectors of K)``; ``K`` is PSD with
    trace ``tau``.

    Examples
    --------
    >>> import numpy as np
    >>> from proxlearn.mkl._mirror_descent import eg_spectrahedron
    >>> M, K, lam, Q = eg_spectrahedron(np.zeros((2, 2)), np.diag([1.0, -1.0]), 0.5, 2.0)
    >>> np.round(K, 4).tolist(), float(np.trace(K))
    ([[0.5379, 0.0], [0.0, 1.4621]], 2.0)

    See Also
    --------
    eg_printed : the update as printed in Algorithm 1.
    step_size : the step ``eta`` of Prop. 3.1.
    """
    M = M - eta * G
    K, lam, Q = softmax_eig(M, tau, form)
    return M, K, lam, Q


def eg_printed(lam, G, eta, tau):
    """The update as printed in Algorithm 1 (eigenvectors of ``G``, eigenvalues of ``K``)."""
    d, V = scipy.linalg.eigh(0.5 * (G + G.T), driver="evd")
    z = np.log(np.maximum(lam, 1e-300)) - eta * d
    w = np.exp(z - z.max())
    lam_new = tau * w / w.sum()
    return psd_from_eig(V, lam_new), lam_new, V


class SubspaceEG:
    """Exponentiated gradient on ``{K = U M U^T : M PSD, tr M = tau}``.

    ``U`` (n x r, orthonormal columns) confines the learned kernel to a subspace
    (the directions in which the inductive test map ``K S^+ s`` is defined and
    stable, see :func:`kept_basis`); ``U = None`` is the whole spectrahedron.
    Mirror descent with the von Neumann entropy is rotation invariant, so the
    iterates for ``U`` square are those of the unrestricted method. The
    subgradient with respect to ``M`` is ``U^T G U`` (``K`` is linear in ``M``).
    """

    def __init__(self, n, tau, U=None, update="exact", start=None):
        self.U, self.tau, self.update = U, float(tau), update
        self.dim = n if U is None else U.shape[1]
        self._Q = None  # eigenvectors of M in U's coordinates (None: M diagonal)
        if start is None:  # tau / dim times the identity (the paper's K_1)
            self.Z = np.zeros((self.dim, self.dim))
            self.lam = np.full(self.dim, self.tau / self.dim)
        else:  # tau start / tr(start) in U's coordinates: a spectrum, or a PD matrix
            start = np.asarray(start, dtype=np.float64)
            if start.ndim == 2:
                w, self._Q = scipy.linalg.eigh(0.5 * (start + start.T), driver="evd")
                w = np.maximum(w, 1e-12 * w.max())
            else:
                w = start
            logw = np.log(w / w.max())
            self.Z = np.diag(logw) if self._Q is None else (self._Q * logw) @ self._Q.T
            self.lam = self.tau * w / w.sum()
        if U is None:
            self.K = (np.eye(n) * (self.tau / n) if start is None
                      else psd_from_eig(np.eye(n) if self._Q is None else self._Q, self.lam))
        else:
            self.K = psd_from_eig(U if self._Q is None else U @ self._Q, self.lam)

    def reduce(self, G):
        """The subgradient in ``M``'s coordinates."""
        return G if self.U is None else self.U.T @ G @ self.U

    def fw_gap(self, Gr):
        """Frank-Wolfe gap ``<Gr, M> - tau lambda_min(Gr)`` of the current iterate
        (``>= F(K) - min F`` for a subgradient ``Gr`` of a convex ``F``)."""
        Q = self._Q  # M = Q diag(lam) Q^T
        d = Gr.diagonal() if Q is None else np.einsum("ij,ij->j", Q, Gr @ Q)
        M_dot = float(d @ self.lam)
        low = scipy.linalg.eigvalsh(0.5 * (Gr + Gr.T), subset_by_index=[0, 0])[0]
        return M_dot - self.tau * float(low)

    def step(self, Gr, eta):
        """One step with the reduced subgradient ``Gr``; returns the new ``K``."""
        if self.update == "exact":  # in a subspace the kernel is U Q diag(lam) Q^T U^T:
            # the r x r product Q diag(lam) Q^T is not needed
            self.Z, M, self.lam, Q = eg_spectrahedron(self.Z, Gr, eta, self.tau,
                                                      form=self.U is None)
        else:
            M, self.lam, Q = eg_printed(self.lam, Gr, eta, self.tau)
        self._Q = Q
        self.K = M if self.U is None else psd_from_eig(self.U @ Q, self.lam)
        return self.K


def kept_basis(Ss, rcond):
    """Where a kernel learned from ``S_1..S_m`` can be mapped to test rows exactly.

    The joint least-squares map of ESKL sends test rows through
    ``G^+ sum_i S_i s_i(x)`` with ``G = sum_i S_i^2`` (``= A^T A`` for the stacked
    ``A = [S_1; ...; S_m]``); it is exact on training rows for kernels in the span
    of ``G``'s eigenvectors with eigenvalue ``> rcond^2 max`` (singular values of
    ``A`` above ``rcond`` times the largest) and stable there. For ``m = 1`` these
    are the eigenvectors of ``S`` with ``|lambda| > rcond max |lambda|``.

    Returns
    -------
    U : ndarray of shape (n, r), or None when every direction is kept
    g_inv : ndarray of shape (r,) or (n,)
        ``1 / g`` of the kept eigenvalues of ``G`` (for the test map).
    V : ndarray of shape (n, r) or (n, n)
        The kept eigenvectors (``U`` when not None).
    n_dropped : int
    """
    G = sum(Ss[:, :, i] @ Ss[:, :, i] for i in range(Ss.shape[2]))
    g, V = scipy.linalg.eigh(0.5 * (G + G.T), driver="evd")
    keep = g > (rcond ** 2) * max(float(g.max()), 1e-300)
    Vk = V[:, keep]
    return (None if keep.all() else Vk), 1.0 / g[keep], Vk, int((~keep).sum())


def positive_basis(S, rcond):
    """The eigen-directions of ``S`` with ``lambda > rcond max(lambda)``: ``(U, lam)``.

    The learned kernel lives there by default (``directions="positive"``): the
    inductive map ``K S^+ s(x)`` then divides only by eigenvalues above
    ``rcond`` times the largest, and the start ``tau U diag(lam) U^T / sum(lam)``
    is the clipped similarity restricted to them (docs/methods.md, Kundu section).
    ``U`` has no column when no eigenvalue qualifies (the caller refuses).
    """
    lam, V = scipy.linalg.eigh(0.5 * (S + S.T), driver="evd")
    top = float(lam.max()) if lam.size else 0.0
    keep = lam > rcond * top if top > 0 else np.zeros(lam.shape, dtype=bool)
    return V[:, keep], lam[keep]


def step_size(scale, lip, n, t):
    """``eta_t = scale / L sqrt(2 log n / t)`` (Kundu Prop. 3.1).

    Examples
    --------
    >>> from proxlearn.mkl._mirror_descent import step_size
    >>> round(step_size(1.0, 2.0, 100, 4), 4)
    0.7587

    See Also
    --------
    eg_spectrahedron : the step it sizes.
    """
    return float(scale) / max(lip, 1e-300) * np.sqrt(2.0 * np.log(max(n, 3)) / t)
