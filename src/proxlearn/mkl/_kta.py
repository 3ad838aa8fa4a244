"""Kernel combination by centred kernel-target alignment ("alignf").

==========  ==================================================================
function    problem
==========  ==================================================================
``alignf``  ``max_{theta >= 0, ||theta|| = 1} rho(sum_k theta_k K_k, Y)``
==========  ==================================================================

References
----------
C. Cortes, M. Mohri and A. Rostamizadeh. Two-stage learning kernel
algorithms. ICML 2010 (alignf, Proposition 9). J. Zhuang, PhD thesis 2011,
Definition 7.4 and Theorem 7.35 (social strength), and the KTA baseline of
chapter 5 (``Y = y y^T``).

Theorem 7.35: with centred kernels ``K_c = H K H``, ``M_kl = <K_k,c, K_l,c>_F``
and ``a_k = <K_k,c, Y>_F``, the maximiser is ``theta* = v* / ||v*||`` with
``v* = argmin_{v >= 0} v^T M v - 2 v^T a``. Erratum followed: the centring
formula is printed with an index typo; ``K_c = H K H`` is used (docs/methods.md,
section "Kernels for ranking"). Table 7.3 reports weights normalised to sum 1:
``normalize="l1"`` gives those, ``"l2"`` (default) the unit vector of the
theorem.

The non-negative QP is solved exactly as a non-negative least-squares problem
(``scipy.optimize.nnls``) on a factor ``M = R^T R`` taken from the
eigendecomposition of ``M`` (formed by one product of the stacked centred
kernels), so no ``m x m`` system is ever inverted.
"""

from __future__ import annotations

import warnings

import numpy as np
import scipy.optimize

from .._multi_input import check_multi_similarity
from .._validation import InvalidParameterError, check_option, check_similarity

__all__ = ["alignf", "check_kernel_stack"]


def check_kernel_stack(kernels, *, name="kernels") -> np.ndarray:
    """Deprecated: use :func:`proxlearn.mkl.check_multi_similarity` (the one validator
    of stacks; ``symmetric="allow", dissimilarity_check=False`` as here).

    ``m`` kernels over the same ``n`` objects (an ``(n, n, m)`` array or a list of ``m``
    ``(n, n)`` matrices) as an ``(n, n, m)`` float64 array. Input errors are
    :class:`~proxlearn.exceptions.SimilarityMatrixError` (an empty list and kernels
    of different sizes were ``InvalidParameterError`` before).

    See Also
    --------
    check_multi_similarity : the replacement.
    """
    warnings.warn(
        "check_kernel_stack is deprecated and will be removed: use "
        "proxlearn.mkl.check_multi_similarity(kernels, symmetric='allow', "
        "dissimilarity_check=False).", FutureWarning, stacklevel=2)
    return check_multi_similarity(kernels, name=name, symmetric="allow",
                                  dissimilarity_check=False)


def alignf(kernels, target, *, normalize="l2"):
    """Weights of the kernel combination best aligned with ``target`` (Theorem 7.35).

    Parameters
    ----------
    kernels : array-like of shape (n, n, m), or a list of m (n, n) kernels
    target : array-like of shape (n, n)
        The target kernel ``Y`` (``y y^T`` for labels, a graph's adjacency, ...).
    normalize : {"l2", "l1"}, default="l2"
        ``theta / ||theta||_2`` (the theorem) or ``theta / sum(theta)`` (the
        weights the thesis tabulates).

    Returns
    -------
    theta : ndarray of shape (m,), non-negative

    Examples
    --------
    >>> import numpy as np
    >>> from proxlearn.mkl import alignf
    >>> x = np.random.default_rng(0).normal(size=(40, 2))
    >>> Ks = np.exp(-(x[:, None, :] - x[None, :, :]) ** 2)  # (40, 40, 2): a kernel per feature
    >>> y = np.where(x[:, 0] > 0, 1, -1)
    >>> np.round(alignf(Ks, np.outer(y, y), normalize="l1"), 3).tolist()
    [1.0, 0.0]

    See Also
    --------
    KTASVC : these weights (``l1``), then an SVM on the combination.
    """
    check_option(normalize, "normalize", {"l1", "l2"})
    Ks = check_multi_similarity(kernels, name="kernels", symmetric="allow",
                                dissimilarity_check=False)
    Y = check_similarity(target, name="target", dissimilarity_check=False)
    n = Ks.shape[0]
    if Y.shape != (n, n):
        raise InvalidParameterError(f"target must be ({n}, {n}) like the kernels, got {Y.shape}.")
    return alignf_checked(Ks, Y, normalize)


def alignf_checked(Ks, Y, normalize):
    """:func:`alignf` on a validated float64 ``(n, n, m)`` stack ``Ks`` (read, never
    written: it may be the caller's array) and ``(n, n)`` target ``Y``, for estimators
    that checked their input once already (:class:`proxlearn.mkl.KTASVC`)."""
    n, _, m = Ks.shape
    # centre every kernel at once (H K H), then M = F^T F by one gemm: the QR of the
    # (n^2, m) matrix F cost 2-3x more and dominated KTA on Zhuang's 793-kernel bank
    Fc = Ks - Ks.mean(axis=0, keepdims=True)  # one stack-sized array, centred in place
    Fc -= Ks.mean(axis=1, keepdims=True)
    Fc += Ks.mean(axis=(0, 1), keepdims=True)
    F = Fc.reshape(n * n, m)
    a = F.T @ Y.ravel()
    M = F.T @ F
    # v^T M v - 2 v^T a = ||R v - c||^2 - ||c||^2 with M = R^T R, R^T c = a
    # (R = Lambda^1/2 Q^T over M's eigenvalues above 1e-12 of the largest; a lies in
    # the range of F^T, hence of M)
    lam, Q = np.linalg.eigh(M)
    keep = lam > 1e-12 * max(lam[-1], 0.0) if lam[-1] > 0 else np.zeros(m, dtype=bool)
    if not keep.any():
        raise InvalidParameterError(
            "every centred kernel is zero: no combination is aligned with the target.")
    root = np.sqrt(lam[keep])
    R = root[:, None] * Q[:, keep].T
    c = (Q[:, keep].T @ a) / root
    v, _ = scipy.optimize.nnls(R, c)
    if not np.any(v > 0):
        raise InvalidParameterError(
            "no non-negative combination of the kernels is positively aligned with the "
            "target (every centred kernel has <K_c, Y> <= 0)."
        )
    return v / (np.linalg.norm(v) if normalize == "l2" else v.sum())
