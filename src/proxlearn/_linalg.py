"""Dense linear algebra shared by every layer (imports nothing of proxlearn).

* :func:`center_kernel`: ``H K H`` without the ``n x n`` centring matrix.
* :func:`top_eigh`: the ``k`` largest eigenpairs, robust to LAPACK.
* :func:`leading_eigh`: the ``k`` leading eigenpairs (largest values or
  largest moduli) by LAPACK, ARPACK or randomized subspace iteration.
* :func:`top_eigh_warm`: the ``k`` largest eigenpairs of an operator given by
  its products, by Lanczos (ARPACK) from a starting vector (built from a
  previous iterate's vectors); ``None`` when it does not converge.
* :func:`eigh_below`: every eigenvalue and the eigenvectors of the eigenvalues
  below a threshold only (tridiagonal reduction, then bisection and inverse
  iteration on the wanted indices), or all eigenvectors when too many are below it.

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

__all__ = ["center_kernel", "eigh_below", "leading_eigh", "top_eigh", "top_eigh_warm"]


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


def eigh_below(A, threshold, *, max_count, overwrite_a=False):
    """All eigenvalues of the symmetric ``A`` and the eigenvectors of those ``<= t``.

    The steps of LAPACK's ``dsyevd`` / ``dsyevr`` run one by one so that the
    count of wanted pairs is known *before* any eigenvector is computed:
    Householder reduction to tridiagonal form ``A = Q T Q^T`` (``dsytrd``),
    every eigenvalue of ``T`` by the root-free QR algorithm (``dsterf``,
    ``O(n^2)``), the threshold ``t = threshold(eigenvalues)``, then

    * ``count <= max_count``: the ``count`` lowest eigenvalues of ``T`` by
      bisection and their eigenvectors by inverse iteration (``dstebz`` +
      ``dstein``, the pair ``dsyevx`` uses; MRRR, ``dstemr``, if inverse
      iteration fails: SciPy's wrapper of ``dstemr`` writes an ``n x n``
      output and was 3x slower at n = 5,000), then the back-transformation
      ``Q Z`` (``O(n^2 count)``);
    * otherwise every eigenvector of ``T`` by divide and conquer (``dstevd``)
      and ``Q Z``: the work of ``dsyevd`` itself.

    Why hand-assembled: :func:`scipy.linalg.eigh` with ``subset_by_value``
    (``dsyevr``, bisection and inverse iteration for a partial spectrum) cannot
    say how many eigenvalues lie below ``t`` before computing their vectors,
    and is 2.2x slower than the full divide and conquer when half of them are
    wanted (issue #19); here the count is known after the reduction and the
    cheaper route taken. SciPy exposes ``dsytrd`` and ``dormqr`` but not
    ``dormtr``; for the lower triangle ``dormtr`` is ``dormqr`` on the block
    ``A[1:, :n-1]`` holding the reflectors (LAPACK's own ``dormtr`` does
    exactly that), which is moved in place to the front of the buffer to be
    contiguous (no ``n x n`` copy).

    Parameters
    ----------
    A : ndarray of shape (n, n), symmetric, n >= 2
    threshold : callable
        ``threshold(eigenvalues) -> t`` (eigenvalues ascending, shape (n,)).
    max_count : int
        Largest count for the partial route.
    overwrite_a : bool
        Let LAPACK destroy ``A`` (must then be a float64 array that is C- or
        Fortran-contiguous; no copy is made).

    Returns
    -------
    w : ndarray of shape (n,)
        All eigenvalues, ascending.
    V : ndarray of shape (n, k)
        ``k = count`` eigenvectors of ``w[:k]`` (``k`` may be 0), or all ``n``
        eigenvectors when ``count > max_count``.
    t : float
        The threshold used.
    """
    from scipy.linalg import lapack

    A = np.asarray(A, dtype=np.float64)
    n = A.shape[0]
    # A symmetric C-contiguous matrix is its own Fortran-ordered transpose.
    work = A.T if A.flags.c_contiguous else A
    if not (overwrite_a and work.flags.f_contiguous):
        work = np.array(A, dtype=np.float64, order="F")
    lwork, info = lapack.dsytrd_lwork(n, lower=1)
    _check(info, "dsytrd_lwork")
    c, d, e, tau, info = lapack.dsytrd(work, lower=1, lwork=int(lwork), overwrite_a=1)
    _check(info, "dsytrd")
    w, info = lapack.dsterf(d.copy(), e.copy())
    _check(info, "dsterf")
    t = float(threshold(w))
    count = int(np.searchsorted(w, t, side="right"))
    if count == 0:
        return w, np.zeros((n, 0)), t
    if count <= max_count:
        try:  # bisection + inverse iteration: an n x count output
            _, Z = scipy.linalg.eigh_tridiagonal(d, e, select="i", select_range=(0, count - 1),
                                                 lapack_driver="stebz", check_finite=False)
        except np.linalg.LinAlgError:  # dstein did not converge: MRRR
            _, Z = scipy.linalg.eigh_tridiagonal(d, e, select="i", select_range=(0, count - 1),
                                                 lapack_driver="stemr", check_finite=False)
        Z = np.array(Z[:, :count], order="F")  # own buffer (stemr's output is n x n)
    else:
        _, Z = scipy.linalg.eigh_tridiagonal(d, e, lapack_driver="stevd", check_finite=False)
        Z = np.asfortranarray(Z)
    del d, e
    # Reflectors: column j of the lower triangle, rows j+2.., i.e. the (n-1) x (n-1)
    # block c[1:, :n-1]; dormqr applies them to rows 1.. of Z (Q = diag(1, Q')).
    refl = _drop_first_row(c, n - 1)
    first = Z[0].copy()
    k = Z.shape[1]
    C = _drop_first_row(Z, k)
    _, qwork, info = lapack.dormqr("L", "N", refl, tau, C, lwork=-1)
    _check(info, "dormqr (workspace query)")
    C, _, info = lapack.dormqr("L", "N", refl, tau, C, lwork=max(1, int(qwork[0])),
                               overwrite_c=1)
    _check(info, "dormqr")
    # undo the compaction, last column first (its target lies above every source)
    flat = Z.reshape(-1, order="F")
    for j in range(k - 1, -1, -1):
        flat[j * n + 1:(j + 1) * n] = flat[j * (n - 1):(j + 1) * (n - 1)]
    Z[0] = first
    return w, Z, t


def _drop_first_row(F, ncols):
    """The block ``F[1:, :ncols]`` of a Fortran-ordered ``F``, moved in place to the
    front of ``F``'s buffer: a Fortran-contiguous view (LAPACK wrappers copy
    strided arrays; this avoids an ``n x n`` copy). ``F`` is clobbered."""
    rows = F.shape[0]
    m = rows - 1
    flat = F.reshape(-1, order="F")
    for j in range(ncols):  # targets never pass their sources; numpy buffers the overlap
        flat[j * m:(j + 1) * m] = flat[j * rows + 1:(j + 1) * rows]
    return flat[: m * ncols].reshape((m, ncols), order="F")


def _check(info, name):
    if info != 0:
        raise np.linalg.LinAlgError(f"LAPACK {name} failed (info={info}).")
