"""Dense linear algebra shared by every layer (imports nothing of proxlearn).

* :func:`center_kernel`: ``H K H`` without the ``n x n`` centring matrix.
* :func:`top_eigh`: the ``k`` largest eigenpairs, robust to LAPACK.
* :func:`top_eigh_warm`: the ``k`` largest eigenpairs of an operator given by
  its products, by Lanczos (ARPACK) from a starting vector (built from a
  previous iterate's vectors); ``None`` when it does not converge.

Why :func:`top_eigh` is hand-written: LAPACK's index-range eigensolver (``?syevr`` / ``?sygvx``
behind ``scipy.linalg.eigh(subset_by_index=...)``) may return *fewer*
eigenpairs than asked for when the requested ones sit in an exactly
degenerate cluster (``2 * I``, say); how many depends on the LAPACK build.
Callers indexing the result then crashed with an ``IndexError`` on one
machine and not on another (issue #14). :func:`top_eigh` checks the count
and falls back to the full decomposition, which always returns all pairs.
"""

from __future__ import annotations

import numpy as np
import scipy.linalg

__all__ = ["center_kernel", "top_eigh", "top_eigh_warm"]


def top_eigh(A, k: int, B=None, *, eigvals_only: bool = False, check_finite: bool = False):
    """The ``k`` largest eigenpairs of the symmetric ``A`` (generalised: ``A v = lam B v``).

    Parameters
    ----------
    A : ndarray of shape (n, n), symmetric
    k : int, 1 <= k <= n
    B : ndarray of shape (n, n), symmetric positive definite, optional
    eigvals_only : bool
        Return the eigenvalues only.
    check_finite : bool
        Passed to :func:`scipy.linalg.eigh`.

    Returns
    -------
    w : ndarray of shape (k,)
        Eigenvalues in ascending order (as :func:`scipy.linalg.eigh`).
    v : ndarray of shape (n, k)
        Eigenvectors (columns), unless ``eigvals_only``.
    """
    n = A.shape[0]
    out = scipy.linalg.eigh(A, B, subset_by_index=[n - k, n - 1],
                            eigvals_only=eigvals_only, check_finite=check_finite)
    w = out if eigvals_only else out[0]
    if w.shape[0] == k:
        return out
    # LAPACK returned fewer pairs than asked (degenerate cluster): full solve.
    full = scipy.linalg.eigh(A, B, eigvals_only=eigvals_only, check_finite=check_finite)
    if eigvals_only:
        return full[n - k:]
    return full[0][n - k:], full[1][:, n - k:]


def center_kernel(K) -> np.ndarray:
    """``H K H`` with ``H = I - 11^T / n`` (kernel centring), without forming ``H``."""
    Kc = K - K.mean(axis=0, keepdims=True)
    return Kc - Kc.mean(axis=1, keepdims=True)


def top_eigh_warm(matmat, n, k, v0, *, tol=1e-12, maxiter=None):
    """The ``k`` largest eigenpairs of a symmetric operator, warm-started.

    Implicitly restarted Lanczos (ARPACK through
    :func:`scipy.sparse.linalg.eigsh`) on ``X -> matmat(X)`` from the starting
    vector ``v0`` (for an alternating method: a combination of the previous
    iterate's eigenvectors). Each step costs one product, so when the wanted
    eigenvalues are separated from the rest it replaces an ``O(n^3)`` dense
    decomposition by a few dozen ``O(n^2)`` products; when they are not, Lanczos
    needs many restarts and the dense route is faster (the caller decides, see
    ``proxlearn.kernel_learning._svmca.v_step``). Returns ``None`` when ARPACK
    does not converge (the caller then uses :func:`top_eigh`).

    Returns
    -------
    w : ndarray of shape (k,), ascending; v : ndarray of shape (n, k); or None
    """
    import scipy.sparse.linalg as spla

    op = spla.LinearOperator((n, n), matvec=lambda v: matmat(v.reshape(-1, 1)).ravel(),
                             matmat=matmat, dtype=np.float64)
    try:
        w, V = spla.eigsh(op, k=k, which="LA", v0=v0, tol=tol, maxiter=maxiter)
    except (spla.ArpackNoConvergence, spla.ArpackError):
        return None
    order = np.argsort(w)
    return w[order], V[:, order]
