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
``v* = argmin_{v >= 0} v^T M v - 2 v^T a``. Erratum followed: the thesis
prints an index typo in the centring formula (digest 4.3); and its Table 7.3
reports weights normalised to sum 1 -- ``normalize="l1"`` gives those,
``"l2"`` (default) the unit vector of the theorem.

The non-negative QP is solved exactly as a non-negative least-squares problem
(``scipy.optimize.nnls``) on the factor ``M = R^T R`` (a thin QR of the
stacked centred kernels), so no ``m x m`` system is ever inverted.
"""

from __future__ import annotations

import numpy as np
import scipy.optimize

from .._validation import InvalidParameterError, check_option, check_similarity

__all__ = ["alignf", "check_kernel_stack"]


def check_kernel_stack(kernels, *, name="kernels") -> np.ndarray:
    """``m`` kernels over the same ``n`` objects as an ``(n, n, m)`` float64 array.

    Accepts an ``(n, n, m)`` array (the kernels stacked on the **last** axis, so
    that scikit-learn's pairwise slicing ``X[np.ix_(rows, cols)]`` slices every
    kernel) or a sequence of ``m`` ``(n, n)`` matrices. Each kernel is checked
    like a similarity matrix; a bad one is named by its index.
    """
    if isinstance(kernels, np.ndarray) and kernels.ndim == 3:
        mats = [kernels[:, :, k] for k in range(kernels.shape[2])]
    else:
        try:
            mats = list(kernels)
        except TypeError:
            raise InvalidParameterError(
                f"{name} must be an (n, n, m) array or a sequence of (n, n) matrices."
            ) from None
    if not mats:
        raise InvalidParameterError(f"{name} is empty: give at least one kernel.")
    out = [check_similarity(K, name=f"{name}[{k}]", dissimilarity_check=False)
           for k, K in enumerate(mats)]
    shapes = {K.shape for K in out}
    if len(shapes) > 1:
        raise InvalidParameterError(
            f"{name} must all be over the same n objects; got shapes {sorted(shapes)}."
        )
    return np.stack(out, axis=-1)



def alignf(kernels, target, *, normalize="l2"):
    """Weights of the kernel combination best aligned with ``target`` (Theorem 7.35).

    Parameters
    ----------
    kernels : array-like of shape (n, n, m) or sequence of m (n, n) kernels
    target : array-like of shape (n, n)
        The target kernel ``Y`` (``y y^T`` for labels, a graph's adjacency, ...).
    normalize : {"l2", "l1"}, default="l2"
        ``theta / ||theta||_2`` (the theorem) or ``theta / sum(theta)`` (the
        weights the thesis tabulates).

    Returns
    -------
    theta : ndarray of shape (m,), non-negative
    """
    check_option(normalize, "normalize", {"l1", "l2"})
    Ks = check_kernel_stack(kernels)
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
