"""Batched spectrum modification of local k x k neighbour matrices (private).

Chen et al. (2009), sections 2.1.2-2.1.4 and 2.2:
for each symmetric local matrix ``S = V diag(lam) V^T`` (numpy's eigenvector
convention, ``U = V^T`` in the paper)

* ``"clip"``:  ``S_clip = V diag(max(lam, 0)) V^T`` and
  ``P_clip = V diag(1{lam > tol}) V^T`` (zero eigenvalues dropped, as in the
  proof of Proposition 1; our reading, the default);
* ``"flip"``:  ``S_flip = V diag(|lam|) V^T`` and ``P_flip = V diag(sgn(lam)) V^T``
  (``sgn = 0`` for ``|lam| <= tol``);
* ``"shift"``: ``S_shift = S + |min(lam_min, 0)| I`` and no test transformation
  (``s~ = s``, following Wu et al. as the paper does);
* ``"none"``:  ``S`` unchanged.

The test transformation is ``s~ = P s`` (consistent: ``P S = S~``). Only the
eigendecomposition is returned for the methods that need it, so that KRR can
solve with the modified spectrum without forming any inverse.

This module is for the *local* (per test point) case only; the global
transformer lives in :mod:`proxlearn.transforms`.
"""

from __future__ import annotations

import numpy as np

from proxlearn.solvers._simplex_qp import single_threaded_blas

__all__ = [
    "LOCAL_SPECTRA",
    "eigen_tolerance",
    "local_eigh",
    "modify_local",
    "reconstruct",
    "spectrum_map",
]

LOCAL_SPECTRA = ("clip", "flip", "shift", "none")


def eigen_tolerance(lam):
    """Per-matrix zero-eigenvalue tolerance ``k * eps * max|lam|`` (shape (B,))."""
    k = lam.shape[-1]
    return k * np.finfo(np.float64).eps * np.abs(lam).max(axis=-1)


def local_eigh(S):
    """Batched symmetric eigendecomposition of (B, k, k) matrices.

    Runs LAPACK single-threaded (see
    :func:`proxlearn.solvers._simplex_qp.single_threaded_blas`).
    """
    with single_threaded_blas():
        return np.linalg.eigh(S)


def modify_local(S, s, method, *, transform_s=True):
    """Apply a spectrum modification to a batch of local matrices.

    Parameters
    ----------
    S : ndarray of shape (B, k, k)
        Symmetric local neighbour matrices.
    s : ndarray of shape (B, k)
        Test-to-neighbour similarities.
    method : {"clip", "flip", "shift", "none"}
    transform_s : bool
        Replace ``s`` by ``P s`` for clip and flip (Chen et al. 2009, section
        2.2). Ignored for shift and none (``P = I``).

    Returns
    -------
    lam : ndarray of shape (B, k)
        Eigenvalues of the modified matrices (ascending order not guaranteed).
    V : ndarray of shape (B, k, k)
        Their eigenvectors (columns); ``S~ = V diag(lam) V^T``.
    s_t : ndarray of shape (B, k)
        The (possibly transformed) test similarities.
    """
    lam, V = local_eigh(S)
    if method == "none":
        return lam, V, s
    if method == "shift":
        shift = np.maximum(-lam.min(axis=1), 0.0)
        return lam + shift[:, None], V, s
    lam_t, mask = spectrum_map(lam, method)
    if transform_s:
        # s~ = V diag(mask) V^T s
        coef = np.einsum("bji,bj->bi", V, s) * mask
        s = np.einsum("bij,bj->bi", V, coef)
    return lam_t, V, s


def spectrum_map(lam, method):
    """``(lam_t, mask)`` of clip or flip for eigenvalues ``lam`` of shape (B, k):
    the modified spectrum and the diagonal of the test map ``P = V diag(mask) V^T``."""
    tol = eigen_tolerance(lam)[:, None]
    if method == "clip":
        return np.where(lam > tol, lam, 0.0), (lam > tol).astype(np.float64)
    if method == "flip":
        big = np.abs(lam) > tol
        return np.where(big, np.abs(lam), 0.0), np.where(big, np.sign(lam), 0.0)
    raise ValueError(f"unknown spectrum {method!r}")  # pragma: no cover - validated by callers


def reconstruct(lam, V):
    """``V diag(lam) V^T`` for a batch, symmetrised against rounding."""
    with single_threaded_blas():
        M = (V * lam[:, None, :]) @ np.swapaxes(V, 1, 2)
    M += np.swapaxes(M, 1, 2)
    M *= 0.5
    return M
