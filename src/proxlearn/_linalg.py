"""Dense linear algebra shared by every layer (imports nothing of proxlearn).

* :func:`center_kernel`: ``H K H`` without the ``n x n`` centring matrix.
* :func:`top_eigh`: the ``k`` largest eigenpairs, robust to LAPACK.
* :func:`leading_eigh`: the ``k`` leading eigenpairs (largest values or
  largest moduli) by LAPACK, ARPACK or randomized subspace iteration.
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

__all__ = ["center_kernel", "leading_eigh", "top_eigh", "top_eigh_warm"]


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


def leading_eigh(A, k, *, by="value", solver="arpack", rng=None, rtol=1e-10, max_iter=200):
    """The ``k`` leading eigenpairs of the symmetric ``A``: largest values
    (``by="value"``) or largest moduli (``by="modulus"``).

    ``solver``: ``"dense"`` (one full LAPACK decomposition, then selected),
    ``"arpack"`` (implicitly restarted Lanczos, :func:`scipy.sparse.linalg.eigsh`,
    ``which="LA"`` / ``"LM"`` to machine precision, starting vector from
    ``rng``: None, a seed, a RandomState or a Generator) or ``"randomized"`` (subspace iteration from a Gaussian block of
    ``k + max(10, k // 5)`` columns, Halko, Martinsson & Tropp 2011, Alg. 4.4
    with a Rayleigh-Ritz step each iteration, stopped when every kept Ritz
    pair has ``||A u - theta u|| <= rtol max|theta|``; after ``max_iter``
    iterations ARPACK finishes the job). Both iterative solvers fall back to
    ``"dense"`` when ``k >= n - 1`` (ARPACK needs ``k < n``).

    Returns
    -------
    w : ndarray of shape (k,), ascending; v : ndarray of shape (n, k)
    """
    import scipy.sparse.linalg as spla

    n = A.shape[0]
    if not isinstance(rng, np.random.Generator):  # None, int or RandomState
        from sklearn.utils import check_random_state

        rng = check_random_state(rng)

    def select(w, V):
        if w.size > k:
            key = w if by == "value" else np.abs(w)
            idx = np.sort(np.argsort(key, kind="stable")[-k:])
            w, V = w[idx], V[:, idx]
        order = np.argsort(w, kind="stable")
        return w[order], V[:, order]

    if solver == "dense" or k >= n - 1:
        w, V = scipy.linalg.eigh(A, check_finite=False, driver="evd")
        return select(w, V)
    if solver == "randomized":
        p = k + max(10, k // 5)
        if p < n - 1:
            X = A @ rng.standard_normal((n, p))
            for _ in range(max_iter):
                Q, _ = np.linalg.qr(X)
                AQ = A @ Q
                T = Q.T @ AQ
                w, Z = np.linalg.eigh(0.5 * (T + T.T))
                w, Z = select(w, Z)
                U = Q @ Z
                res = np.linalg.norm(AQ @ Z - U * w, axis=0)
                if res.max() <= rtol * max(np.abs(w).max(), 1e-300):
                    return w, U
                X = AQ
        # not certified within max_iter (or p too close to n): ARPACK
    v0 = rng.standard_normal(n)
    w, V = spla.eigsh(A, k=k, which="LA" if by == "value" else "LM", v0=v0, tol=0.0)
    return select(w, V)
