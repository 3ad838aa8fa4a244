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
* :func:`eigh_leading_tridiagonal`: the same route for the ``k`` leading
  eigenpairs (largest values or largest moduli).
* :func:`lowest_eigenvalue`: the smallest eigenvalue only, by Lanczos on a
  budget of products, else one LAPACK eigenvalue (no eigenvectors).

Why these are hand-written rather than ``scipy.linalg.eigh(subset_by_...)``,
and what they cost: docs/methods.md, "Foundations reference notes: eigen-tools",
and docs/benchmarks.md, "Foundations: partial eigendecompositions".
"""

from __future__ import annotations

import numpy as np
import scipy.linalg

__all__ = [
    "center_kernel",
    "eigh_below",
    "eigh_leading_tridiagonal",
    "leading_eigh",
    "lowest_eigenvalue",
    "top_eigh",
    "top_eigh_warm",
]


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

    Unlike LAPACK's index-range solver, always returns ``k`` pairs, also inside
    an exactly degenerate cluster (it checks the count and falls back to the
    full decomposition).

    See Also
    --------
    leading_eigh : Largest values or moduli, by iterative solvers too.
    top_eigh_warm : The same by Lanczos from a starting vector.

    Examples
    --------
    >>> import numpy as np
    >>> from proxlearn._linalg import top_eigh
    >>> top_eigh(np.diag([1.0, 2.0, 3.0, 4.0]), 2, eigvals_only=True).tolist()
    [3.0, 4.0]
    >>> top_eigh(2.0 * np.eye(4), 3)[1].shape
    (4, 3)
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
    """``H K H`` with ``H = I - 11^T / n`` (kernel centring), without forming ``H``.

    Parameters
    ----------
    K : ndarray of shape (n, n)

    Returns
    -------
    ndarray of shape (n, n)
        Rows and columns of mean zero.

    See Also
    --------
    proxlearn.metrics.centered_alignment : Alignment of two centred kernels.

    Examples
    --------
    >>> import numpy as np
    >>> from proxlearn._linalg import center_kernel
    >>> center_kernel(np.array([[2.0, 0.0], [0.0, 0.0]])).tolist()
    [[0.5, -0.5], [-0.5, 0.5]]
    """
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

    Parameters
    ----------
    matmat : callable
        ``X -> A @ X`` for an ``(n, p)`` block ``X``.
    n : int
        Order of ``A``.
    k : int, 1 <= k < n
    v0 : ndarray of shape (n,)
        Starting vector.
    tol : float, default=1e-12
        ARPACK's relative accuracy.
    maxiter : int, optional
        ARPACK's restart limit.

    Returns
    -------
    w : ndarray of shape (k,), ascending; v : ndarray of shape (n, k); or None

    See Also
    --------
    top_eigh : The dense route.

    Examples
    --------
    >>> import numpy as np
    >>> from proxlearn._linalg import top_eigh_warm
    >>> A = np.diag([1.0, 2.0, 3.0, 4.0])
    >>> w, v = top_eigh_warm(lambda X: A @ X, 4, 1, np.ones(4))
    >>> round(float(w[0]), 10), round(abs(float(v[3, 0])), 10)
    (4.0, 1.0)
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


def leading_eigh(A, k, *, by="value", solver="arpack", rng=None, rtol=1e-10, max_iter=200,
                 max_matvec=None, overwrite_a=False, return_solver=False):
    """The ``k`` leading eigenpairs of the symmetric ``A``: largest values
    (``by="value"``) or largest moduli (``by="modulus"``).

    ``solver``: ``"dense"`` (one full LAPACK decomposition, then selected),
    ``"tridiagonal"`` (:func:`eigh_leading_tridiagonal`: the reduction, then the
    ``k`` wanted vectors only), ``"arpack"`` (implicitly restarted Lanczos,
    :func:`scipy.sparse.linalg.eigsh`, ``which="LA"`` / ``"LM"`` to machine
    precision, starting vector from ``rng``: None, a seed, a RandomState or a
    Generator) or ``"randomized"`` (subspace iteration from a Gaussian block of
    ``k + max(10, k // 5)`` columns, Halko, Martinsson & Tropp 2011, Alg. 4.4
    with a Rayleigh-Ritz step each iteration, stopped when every kept Ritz
    pair has ``||A u - theta u|| <= rtol max|theta|``; after ``max_iter``
    iterations ARPACK finishes the job). Both iterative solvers fall back to
    ``"dense"`` when ``k >= n - 1`` (ARPACK needs ``k < n``).

    ``max_matvec``: a budget of products ``A x`` for ARPACK. Lanczos converges
    fast on a decaying spectrum and very slowly on a flat one (a bulk of nearly
    equal eigenvalues next to the wanted ones), which cannot be told in advance;
    when the budget runs out the ``"tridiagonal"`` route, whose cost does not
    depend on the spectrum, computes the pairs instead (deterministic: the count
    of products, not a time, decides). The same route takes over when ARPACK
    stops without converging (wanted pairs inside a degenerate cluster). ``overwrite_a`` lets the LAPACK routes
    destroy ``A``. ``return_solver=True`` adds the route that produced the
    result.

    Returns
    -------
    w : ndarray of shape (k,), ascending; v : ndarray of shape (n, k)
    (; solver : str)

    See Also
    --------
    top_eigh : The ``k`` largest values by one LAPACK call.
    eigh_leading_tridiagonal : The ``"tridiagonal"`` route.

    Examples
    --------
    >>> import numpy as np
    >>> from proxlearn._linalg import leading_eigh
    >>> A = np.diag([-5.0, 1.0, 2.0, 3.0])
    >>> leading_eigh(A, 2, by="modulus", solver="dense")[0].tolist()
    [-5.0, 3.0]
    >>> leading_eigh(A, 2, solver="tridiagonal", return_solver=True)[2]
    'tridiagonal'
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

    def done(w, V, used):
        return (w, V, used) if return_solver else (w, V)

    if solver == "dense" or k >= n - 1:
        w, V = scipy.linalg.eigh(A, check_finite=False, driver="evd", overwrite_a=overwrite_a)
        return done(*select(w, V), "dense")
    if solver == "tridiagonal":
        w, V = eigh_leading_tridiagonal(A, k, by=by, overwrite_a=overwrite_a)
        return done(*select(w, V), "tridiagonal")
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
                    return done(w, U, "randomized")
                X = AQ
        # not certified within max_iter (or p too close to n): ARPACK
    v0 = rng.standard_normal(n)
    op = A
    if max_matvec is not None:
        op = _budget_operator(A, int(max_matvec))
    try:
        w, V = spla.eigsh(op, k=k, which="LA" if by == "value" else "LM", v0=v0, tol=0.0)
    except (_BudgetExhausted, spla.ArpackNoConvergence):
        # out of budget, or Lanczos cannot resolve the wanted pairs to machine precision
        # (a degenerate cluster among them): the route whose cost does not depend on the
        # spectrum gives them exactly
        w, V = eigh_leading_tridiagonal(A, k, by=by, overwrite_a=overwrite_a)
        return done(*select(w, V), "tridiagonal")
    return done(*select(w, V), "arpack")


def lowest_eigenvalue(A, *, max_matvec, rng=None, overwrite_a=False):
    """The smallest eigenvalue of the symmetric ``A``, without eigenvectors.

    Implicitly restarted Lanczos (:func:`scipy.sparse.linalg.eigsh`,
    ``which="SA"``, ``k=1``, ``tol=0``: ARPACK's machine-precision test, Ritz
    residual ``<= eps * |theta|``) on a budget of ``max_matvec`` products ``A x``.
    When the budget runs out (a flat bottom of the spectrum), shift-invert
    Lanczos from the spent products (:func:`_lowest_by_shift_invert`): a
    Rayleigh-Ritz estimate ``theta`` from the last Lanczos vectors, a shift
    ``sigma`` below it *certified* to lie below ``lambda_min`` by a Cholesky
    factorisation of ``A - sigma I``, then ARPACK (``tol=0``) on
    ``(A - sigma I)^{-1}`` through that factor, whose largest eigenvalue is
    ``1 / (lambda_min - sigma)``. When that fails too, or ARPACK stops
    otherwise, one LAPACK call computes the eigenvalue instead (``dsyevr`` with
    ``subset_by_index=[0, 0]``: Householder tridiagonalisation, then bisection
    for one eigenvalue; a cost that does not depend on the spectrum). Accuracy
    of each route: docs/methods.md, "Spectrum shift from lambda_min only".

    Parameters
    ----------
    A : ndarray of shape (n, n), symmetric
    max_matvec : int
        Budget of products for Lanczos (0: LAPACK directly).
    rng : None, int, RandomState or Generator
        Starting vector of Lanczos (None: a fixed seed, so that the result is
        reproducible).
    overwrite_a : bool, default=False
        Let LAPACK destroy ``A`` (the LAPACK route only).

    Returns
    -------
    lam : float
    solver : {"arpack", "shift-invert", "tridiagonal"}
        The route that produced ``lam``.

    See Also
    --------
    leading_eigh : The ``k`` leading eigenpairs, with the same budget rule.

    Examples
    --------
    >>> import numpy as np
    >>> from proxlearn._linalg import lowest_eigenvalue
    >>> A = np.diag(np.arange(-1.0, 29.0))
    >>> lam, solver = lowest_eigenvalue(A, max_matvec=200)
    >>> round(lam, 12), solver
    (-1.0, 'arpack')
    >>> lowest_eigenvalue(A, max_matvec=0)
    (-1.0, 'tridiagonal')
    """
    import scipy.sparse.linalg as spla

    n = A.shape[0]
    if max_matvec > 0 and n >= 3:  # ARPACK needs k < n - 1 for a symmetric problem
        if isinstance(rng, np.random.Generator):
            v0 = rng.standard_normal(n)
        else:
            from sklearn.utils import check_random_state

            v0 = check_random_state(0 if rng is None else rng).standard_normal(n)
        history = []
        try:
            w = spla.eigsh(_budget_operator(A, int(max_matvec), history), k=1, which="SA",
                           v0=v0, tol=0.0, return_eigenvectors=False)
            return float(w[0]), "arpack"
        except _BudgetExhausted:
            lam = _lowest_by_shift_invert(A, history, int(max_matvec))
            if lam is not None:
                return lam, "shift-invert"
        except spla.ArpackError:  # incl. ArpackNoConvergence
            pass  # (e.g. an invariant subspace at once, A = 0)
    w = scipy.linalg.eigh(A, eigvals_only=True, subset_by_index=[0, 0], driver="evr",
                          overwrite_a=overwrite_a, check_finite=False)
    return float(w[0]), "tridiagonal"


class _BudgetExhausted(Exception):
    """Raised inside ARPACK's reverse communication when the budget is spent."""


def _budget_operator(A, budget, history=None):
    """``A`` as a linear operator that raises :class:`_BudgetExhausted` on its
    ``budget + 1``-th product; the last :data:`_RITZ_HISTORY` pairs ``(x, A x)``
    are kept in the list ``history`` when one is given."""
    import scipy.sparse.linalg as spla

    count = [0]

    def matvec(x):
        count[0] += 1
        if count[0] > budget:
            raise _BudgetExhausted
        y = A @ x
        if history is not None:
            history.append((np.array(x, dtype=np.float64).ravel(), np.ravel(y)))
            if len(history) > _RITZ_HISTORY:
                del history[0]
        return y

    return spla.LinearOperator(A.shape, matvec=matvec, dtype=np.float64)


#: Products of the spent Lanczos run kept for the Rayleigh-Ritz estimate of
#: :func:`_lowest_by_shift_invert` (two of ARPACK's default 20-vector cycles).
_RITZ_HISTORY = 40
#: Cholesky attempts of :func:`_lowest_by_shift_invert` (the shift moves 4x
#: further below the estimate after each failure).
_SHIFT_INVERT_TRIES = 3


def _lowest_by_shift_invert(A, history, max_matvec):
    """``lambda_min`` of the symmetric ``A`` by shift-invert Lanczos, or None.

    ``history``: pairs ``(x, A x)`` of a spent Lanczos run. Their Rayleigh-Ritz
    pair ``(theta, q)`` (``theta >= lambda_min``, residual ``rho``) gives the
    shift ``sigma = theta - 4^j max(rho, n eps |theta|_max)``, ``j = 0, 1, ...``
    until the Cholesky factorisation of ``A - sigma I`` exists: a certificate
    that ``sigma < lambda_min`` (to rounding). Then every eigenvalue of
    ``(A - sigma I)^{-1}`` is positive and the largest is
    ``1 / (lambda_min - sigma)``: ARPACK (``which="LM"``, ``tol=0``, started from
    ``q``, at most ``max_matvec`` solves with the factor) converges to it quickly
    when ``sigma`` is close, because the next one, ``1 / (lambda_2 - sigma)``, is
    much smaller. The value returned, ``sigma + 1 / mu``, is a Rayleigh quotient
    of ``A``'s inverse map, so ``>= lambda_min`` as the ``"SA"`` route's. None when
    no factorisation exists within :data:`_SHIFT_INVERT_TRIES` shifts or ARPACK
    does not converge (the caller then asks LAPACK).
    """
    import scipy.sparse.linalg as spla

    n = A.shape[0]
    if len(history) < 2:
        return None
    X = np.column_stack([x for x, _ in history])
    Y = np.column_stack([y for _, y in history])
    # an orthonormal basis of span(X) and A times it, without new products
    U, s, Vt = np.linalg.svd(X, full_matrices=False)
    keep = s > 1e-8 * s[0]
    W = Vt[keep].T / s[keep]
    Q, AQ = U[:, keep], Y @ W
    H = Q.T @ AQ
    theta, Z = np.linalg.eigh((H + H.T) / 2)
    q = Q @ Z[:, 0]
    rho = float(np.linalg.norm(AQ @ Z[:, 0] - theta[0] * q))
    floor = n * np.finfo(float).eps * float(np.max(np.abs(theta)))
    step = max(rho, floor)
    potrf = scipy.linalg.get_lapack_funcs("potrf", (A,))
    potrs = scipy.linalg.get_lapack_funcs("potrs", (A,))
    for j in range(_SHIFT_INVERT_TRIES):
        sigma = float(theta[0]) - step * 4.0 ** j
        B = A.copy(order="F")
        B.flat[:: n + 1] -= sigma
        L, info = potrf(B, lower=True, clean=False, overwrite_a=True)
        if info == 0:
            break
    else:
        return None
    count = [0]

    def solve(x):
        count[0] += 1
        if count[0] > max_matvec:
            raise _BudgetExhausted
        return potrs(L, x, lower=True)[0]

    OPinv = spla.LinearOperator(A.shape, matvec=solve, dtype=np.float64)
    try:
        w = spla.eigsh(A, k=1, sigma=sigma, which="LM", OPinv=OPinv, v0=q, tol=0.0,
                       return_eigenvectors=False)
    except (_BudgetExhausted, spla.ArpackError):
        return None
    return float(w[0])


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
      iteration fails), then the back-transformation ``Q Z`` (``O(n^2 count)``);
    * otherwise every eigenvector of ``T`` by divide and conquer (``dstevd``)
      and ``Q Z``: the work of ``dsyevd`` itself.

    Why hand-assembled, and the back-transformation without ``dormtr``:
    docs/methods.md, "Foundations reference notes: eigen-tools".

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

    See Also
    --------
    eigh_leading_tridiagonal : The same route for the ``k`` leading pairs.

    Examples
    --------
    >>> import numpy as np
    >>> from proxlearn._linalg import eigh_below
    >>> w, V, t = eigh_below(np.diag([-5.0, 1.0, 2.0, 3.0]), lambda w: 0.0, max_count=3)
    >>> w.tolist(), V.shape, t
    ([-5.0, 1.0, 2.0, 3.0], (4, 1), 0.0)
    """
    A = np.asarray(A, dtype=np.float64)
    n = A.shape[0]
    c, d, e, tau, w = _tridiagonal_reduce(A, overwrite_a)
    t = float(threshold(w))
    count = int(np.searchsorted(w, t, side="right"))
    if count == 0:
        return w, np.zeros((n, 0)), t
    if count <= max_count:
        Z = _tridiagonal_vectors(d, e, [(0, count - 1)])
    else:
        _, Z = scipy.linalg.eigh_tridiagonal(d, e, lapack_driver="stevd", check_finite=False)
        Z = np.asfortranarray(Z)
    del d, e
    return w, _back_transform(c, tau, Z), t


def eigh_leading_tridiagonal(A, k, *, by="value", overwrite_a=False):
    """The ``k`` leading eigenpairs of the symmetric ``A`` through the tridiagonal form.

    The route of :func:`eigh_below` with another selection: Householder
    reduction (``dsytrd``), every eigenvalue (``dsterf``), then bisection and
    inverse iteration for the ``k`` wanted indices only (the largest values, or
    the largest moduli: a run at each end of the sorted spectrum) and the
    back-transformation of those ``k`` vectors. No convergence risk (unlike
    ARPACK on a flat spectrum) and, for ``k`` well below ``n``, about the cost of
    the reduction alone (docs/benchmarks.md, "Foundations: partial
    eigendecompositions"; why not ``dsyevr``: docs/methods.md, "Foundations
    reference notes: eigen-tools").

    Parameters
    ----------
    A : ndarray of shape (n, n), symmetric
    k : int
    by : {"value", "modulus"}, default="value"
        Largest values, or largest moduli.
    overwrite_a : bool, default=False
        Let LAPACK destroy ``A``.

    Returns
    -------
    w : ndarray of shape (k,), ascending; V : ndarray of shape (n, k)

    See Also
    --------
    leading_eigh : Chooses among this route, dense LAPACK and iterative solvers.
    eigh_below : The same reduction for the eigenpairs below a threshold.

    Examples
    --------
    >>> import numpy as np
    >>> from proxlearn._linalg import eigh_leading_tridiagonal
    >>> w, V = eigh_leading_tridiagonal(np.diag([-5.0, 1.0, 2.0, 3.0]), 2, by="modulus")
    >>> w.tolist(), V.shape
    ([-5.0, 3.0], (4, 2))
    """
    A = np.asarray(A, dtype=np.float64)
    n = A.shape[0]
    c, d, e, tau, w_all = _tridiagonal_reduce(A, overwrite_a)
    if by == "value":
        low, high = 0, k
    else:  # the k largest |w| of an ascending w: the a lowest and the k - a highest
        top = np.argsort(np.abs(w_all), kind="stable")[n - k:]
        low = int(np.count_nonzero(w_all[top] < 0))
        high = k - low
    ranges = [(0, low - 1)] if low else []
    if high:
        ranges.append((n - high, n - 1))
    Z = _tridiagonal_vectors(d, e, ranges)
    w = np.concatenate([w_all[:low], w_all[n - high:]]) if high else w_all[:low]
    del d, e
    return w, _back_transform(c, tau, Z)


def _tridiagonal_reduce(A, overwrite_a):
    """``dsytrd`` of the lower triangle and every eigenvalue (``dsterf``)."""
    from scipy.linalg import lapack

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
    return c, d, e, tau, w


def _tridiagonal_vectors(d, e, ranges):
    """Eigenvectors of the tridiagonal ``(d, e)`` for the inclusive index ranges
    (ascending, disjoint): bisection + inverse iteration (``dstebz`` +
    ``dstein``), MRRR (``dstemr``) if inverse iteration fails (see
    :func:`eigh_below`). Fortran-ordered ``n x count``."""
    blocks = []
    for lo, hi in ranges:
        count = hi - lo + 1
        try:
            _, Z = scipy.linalg.eigh_tridiagonal(d, e, select="i", select_range=(lo, hi),
                                                 lapack_driver="stebz", check_finite=False)
        except np.linalg.LinAlgError:  # dstein did not converge: MRRR
            _, Z = scipy.linalg.eigh_tridiagonal(d, e, select="i", select_range=(lo, hi),
                                                 lapack_driver="stemr", check_finite=False)
        blocks.append(Z[:, :count])
    if len(blocks) == 1:
        return np.array(blocks[0], order="F")  # own buffer (stemr's output is n x n)
    return np.asfortranarray(np.hstack(blocks))


def _back_transform(c, tau, Z):
    """``Q Z`` for the reflectors ``(c, tau)`` of :func:`_tridiagonal_reduce`, in
    ``Z``'s own (Fortran-ordered) buffer: ``dormqr`` on the reflector block
    ``c[1:, :n-1]`` (column ``j``, rows ``j+2..``) acting on rows ``1..`` of
    ``Z`` (``Q = diag(1, Q')``), which is ``dormtr`` (see :func:`eigh_below`)."""
    from scipy.linalg import lapack

    n = c.shape[0]
    refl = _drop_first_row(c, n - 1)
    first = Z[0].copy()
    k = Z.shape[1]
    if k == 0:
        return Z
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
    return Z


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
