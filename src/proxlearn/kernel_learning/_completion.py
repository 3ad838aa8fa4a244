"""Kernel matrix completion with an auxiliary kernel: the em algorithm.

================  ============================================================
function          what
================  ============================================================
``em_complete``   complete ``K = [[K11, ?], [?, ?]]`` from ``K_aux`` (n x n)
``stein_loss``    ``tr(K M^-1) - log|K M^-1| - n``
================  ============================================================

References
----------
K. Tsuda, S. Akaho and K. Asai. The em algorithm for kernel matrix completion
with auxiliary data. JMLR 4 (2003) 67-81. Y. Chen, PhD thesis 2010, section
6.1 (problem 6.4), setting (b): whole rows and columns missing.

Only ``K11`` (the first ``n1`` objects) of the kernel of interest is known;
``K_aux`` is a cheaper kernel on all ``n`` objects. With ``v_i`` the
eigenvectors of ``K_aux``, the model set is ``M = sum_i w_i v_i v_i^T``
(``w_i > 0``) and the algorithm alternates (closed forms the thesis does not
print, derived in the thesis digest; docs/methods.md, "Kernel-learning
reference notes"; index ``v`` = known, ``h`` = missing):

* e-step: ``K_hv = M_hv M_vv^-1 K11``,
  ``K_hh = M_hh - M_hv M_vv^-1 M_vh + M_hv M_vv^-1 K11 M_vv^-1 M_vh``
  (the minimiser of Stein's loss over completions of ``K11``);
* m-step: ``w_i = v_i^T K v_i``.

Both steps minimise the Stein loss ``L(K, M)`` in one argument, so it never
increases (``objective_history``). ``K`` keeps ``K11`` exactly and is
positive definite when ``K11`` and ``M`` are. ``M_vv^-1`` is never formed:
one Cholesky factorisation of ``M_vv`` per e-step. Convergence to a solution
of (6.4) is open (the loss is not jointly convex); the iteration stops when
the loss changes by less than ``tol`` (relative).
"""

from __future__ import annotations

import warnings

import numpy as np
import scipy.linalg
from sklearn.exceptions import ConvergenceWarning

from .._validation import (
    InvalidParameterError,
    SimilarityMatrixError,
    check_int,
    check_option,
    check_similarity,
)
from ..solvers import SolverResult

__all__ = ["CompletionResult", "em_complete", "stein_loss"]


def stein_loss(K, M) -> float:
    """``tr(K M^-1) - log det(K M^-1) - n`` for positive definite ``K`` and ``M``.

    Parameters
    ----------
    K, M : ndarray of shape (n, n)
        Positive definite matrices (``M`` is factorised by Cholesky).

    Returns
    -------
    float
        Stein's loss, 0 when ``K = M``; ``inf`` when ``K`` is not positive definite.

    Examples
    --------
    >>> import numpy as np
    >>> from proxlearn.kernel_learning import stein_loss
    >>> stein_loss(np.eye(2), np.eye(2)), round(stein_loss(2 * np.eye(2), np.eye(2)), 3)
    (0.0, 0.614)

    See Also
    --------
    em_complete : minimises it over completions and models.
    """
    L = scipy.linalg.cho_factor(M, lower=True)
    KMi = scipy.linalg.cho_solve(L, K)  # M^-1 K, same trace and determinant as K M^-1
    sign, logdet_k = np.linalg.slogdet(K)
    if sign <= 0:
        return float("inf")
    logdet_m = 2.0 * np.sum(np.log(np.diag(L[0])))
    return float(np.trace(KMi) - (logdet_k - logdet_m) - K.shape[0])


class CompletionResult(SolverResult):
    """Output of :func:`em_complete` (and :func:`frobenius_complete`).

    A :class:`~proxlearn.solvers.SolverResult` with fields ``kernel`` (the
    completed ``n x n`` kernel, ``K11`` kept), ``model`` (the last ``M``),
    ``weights`` (``w_i`` of ``M`` in the eigenbasis of ``K_aux``), ``nit`` (alias
    ``n_iter``) and ``objective_history``.

    Examples
    --------
    >>> import numpy as np
    >>> from proxlearn.kernel_learning import CompletionResult, em_complete
    >>> res = em_complete(2 * np.eye(2), np.eye(3))
    >>> isinstance(res, CompletionResult), res.kernel.shape
    (True, (3, 3))

    See Also
    --------
    em_complete, frobenius_complete : the completions that return it.
    proxlearn.solvers.SolverResult : the base class.
    """

    _aliases = {"n_iter": "nit"}

    def __init__(self, kernel, model, weights, n_iter, objective_history=None):
        super().__init__(kernel=kernel, model=model, weights=weights, nit=n_iter,
                         objective_history=[] if objective_history is None
                         else objective_history)


def _e_step(K11, M, n1):
    Mvv, Mhv, Mhh = M[:n1, :n1], M[n1:, :n1], M[n1:, n1:]
    c = scipy.linalg.cho_factor(Mvv, lower=True)
    G = scipy.linalg.cho_solve(c, Mhv.T).T  # M_hv M_vv^-1
    Khv = G @ K11
    Khh = Mhh - G @ Mhv.T + G @ K11 @ G.T
    K = np.empty_like(M)
    K[:n1, :n1] = K11
    K[n1:, :n1] = Khv
    K[:n1, n1:] = Khv.T
    K[n1:, n1:] = 0.5 * (Khh + Khh.T)
    return K


def em_complete(K11, K_aux, *, max_iter=200, tol=1e-10, eig_floor=1e-10,
                acceleration="squarem") -> CompletionResult:
    """Complete a kernel known on its first ``n1`` objects, with an auxiliary kernel.

    Parameters
    ----------
    K11 : array-like of shape (n1, n1)
        The known block, positive definite (it is kept exactly).
    K_aux : array-like of shape (n, n), n > n1
        Auxiliary kernel on all objects, in the same order (the ``n1`` known first).
    max_iter : int, default=200
        Iterations (each is one em step, or one accelerated cycle of three).
    tol : float, default=1e-10
        Stop when the Stein loss decreases by less than ``tol * max(1, |loss|)``.
    eig_floor : float, default=1e-10
        Eigenvalues of ``K_aux`` below ``eig_floor * max eigenvalue`` are raised
        to it, so that the initial ``M`` is positive definite (``w_i > 0``).
    acceleration : {"squarem", "none"}, default="squarem"
        ``"squarem"``: Varadhan & Roland's (2008) squared extrapolation of the
        weights ``w`` between em steps, kept only when it lowers the loss, so the
        loss still never increases and the fixed point is the em algorithm's;
        ``"none"``: the plain em iteration (linear convergence, often thousands
        of steps to ``tol``; docs/methods.md).

    Returns
    -------
    CompletionResult

    Examples
    --------
    >>> import numpy as np
    >>> from proxlearn.kernel_learning import em_complete
    >>> X = np.random.default_rng(0).normal(size=(8, 3))
    >>> K_aux = X @ X.T + np.eye(8)
    >>> res = em_complete(K_aux[:5, :5] + 0.5 * np.eye(5), K_aux)
    >>> bool(np.allclose(res.kernel[:5, :5], K_aux[:5, :5] + 0.5 * np.eye(5)))
    True

    See Also
    --------
    frobenius_complete : the conic completion (thesis 6.5).
    KernelCompleter : both completions as an estimator.
    stein_loss : the loss minimised.
    """
    K11 = check_similarity(K11, name="K11", symmetric="symmetrize", dissimilarity_check=False)
    A = check_similarity(K_aux, name="K_aux", symmetric="symmetrize", dissimilarity_check=False)
    check_option(acceleration, "acceleration", {"squarem", "none"})
    max_iter = check_int(max_iter, "max_iter")
    n1, n = K11.shape[0], A.shape[0]
    if n <= n1:
        raise InvalidParameterError(
            f"K_aux ({n} objects) must cover more objects than K11 ({n1}): nothing to complete."
        )
    if np.linalg.eigvalsh(K11)[0] <= 0:
        raise SimilarityMatrixError(
            "K11 must be positive definite for the em algorithm (Tsuda et al. 2003); add a "
            "small ridge (K11 + eps I) or clip its spectrum first."
        )
    lam, V = scipy.linalg.eigh(A, driver="evd")
    floor = eig_floor * max(lam.max(), 1e-300)

    def state(w):
        """``(loss, K, M, w)`` after the e-step at the model of weights ``w``."""
        M = (V * w) @ V.T
        K = _e_step(K11, M, n1)
        return stein_loss(K, M), K, M, w

    def em(s):  # m-step (w_i = v_i^T K v_i, floored), then the e-step
        return state(np.maximum(np.einsum("ij,ik,kj->j", V, s[1], V), floor))

    cur = state(np.maximum(lam, floor))
    history = [cur[0]]
    for t in range(1, int(max_iter) + 1):
        nxt = em(cur)
        if acceleration == "squarem":
            nxt = _squarem(cur, nxt, em(nxt), em, state, floor)
        history.append(nxt[0])
        decrease = cur[0] - nxt[0]
        cur = nxt
        if decrease <= tol * max(1.0, abs(nxt[0])):
            return CompletionResult(cur[1], cur[2], cur[3], t, history)
    warnings.warn(f"em_complete did not converge in {max_iter} iterations "
                  f"(last decrease {decrease:.3g}).",
                  ConvergenceWarning, stacklevel=2)
    return CompletionResult(cur[1], cur[2], cur[3], int(max_iter), history)


def _squarem(s0, s1, s2, em, state, floor):
    """One SQUAREM cycle (Varadhan & Roland 2008, scheme S3) on the weights: from the
    em steps ``s0 -> s1 -> s2``, extrapolate ``w = w0 - 2 a r + a^2 v`` (``r = w1 - w0``,
    ``v = w2 - 2 w1 + w0``, ``a = -|r| / |v|`` capped at -1), take one em step from
    there, and keep it only if its loss is below ``s2``'s (else ``s2``)."""
    r = s1[3] - s0[3]
    v = s2[3] - 2.0 * s1[3] + s0[3]
    nv = np.linalg.norm(v)
    if not nv > 0:
        return s2
    a = min(-np.linalg.norm(r) / nv, -1.0)
    if a == -1.0:  # the extrapolation is the plain double step
        return s2
    try:
        s3 = em(state(np.maximum(s0[3] - 2.0 * a * r + a * a * v, floor)))
    except (np.linalg.LinAlgError, ValueError):  # an extrapolated M that is not PD
        return s2
    return s3 if np.isfinite(s3[0]) and s3[0] < s2[0] else s2
