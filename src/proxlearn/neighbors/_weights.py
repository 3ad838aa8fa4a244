"""KRI and KRR neighbour weights (Chen et al. 2009, section 5.2).

Notation of the paper's section 5: for a test sample ``x`` with neighbours
``x_1..x_k``, ``S`` is the k x k matrix of similarities among the neighbours
and ``s`` the k-vector of similarities from ``x`` to them.

* **KRI** (kernel ridge interpolation), eq. (12)::

      minimise_w  1/2 w^T S~ w - s~^T w + reg/2 w^T w   s.t.  w >= 0, 1^T w = 1

  solved exactly with :func:`proxlearn.solvers._simplex_qp.solve_simplex_qp`.
  ``S~`` is the locally modified (PSD) matrix; the paper recommends clip.
* **KRR** (kernel ridge regression), eq. (15): ``w = (S~ + reg I)^{-1} s~``,
  or with ``spectrum="pinv"`` ``w = pinv(S + reg I) s`` for the unmodified
  (symmetrised) local ``S``; the paper's best choice (Table 4).

``s~ = P s`` with the consistent test transformation of section 2.2 when
``transform_s=True`` (clip and flip; ``P = I`` for shift, none and pinv). The
paper does not say whether local KRI/KRR transform ``s``; our reading
(transform by default) is followed, and it is an option.

Zero eigenvalues: an eigenvalue with ``|lam| <= k * eps * max|lam|`` counts as
zero (dropped by ``P_clip``/``P_flip``, as in the proof of Proposition 1).
"""

from __future__ import annotations

import numpy as np

from proxlearn._validation import (
    InvalidParameterError,
    SimilarityMatrixError,
    check_option,
    check_positive,
)
from proxlearn.solvers._simplex_qp import solve_simplex_qp

from ._local_spectrum import (
    LOCAL_SPECTRA,
    eigen_tolerance,
    local_eigh,
    modify_local,
    reconstruct,
)

__all__ = [
    "KRI_SPECTRA",
    "KRR_SPECTRA",
    "kri_weights",
    "kri_weights_batch",
    "krr_weights",
    "krr_weights_batch",
    "krr_weights_path",
    "normalize_krr_weights",
]

#: Largest neighbourhood size for which :func:`kri_weights_path` solves every
#: ``reg`` in one stacked batch instead of a warm-started sequence (measured on
#: voting folds: below about 32 the per-call overhead outweighs warm starts).
_STACK_REGS_MAX_K = 32
#: Spectrum options accepted by the KRI weights.
KRI_SPECTRA = LOCAL_SPECTRA
#: Spectrum options accepted by the KRR weights.
KRR_SPECTRA = (*LOCAL_SPECTRA, "pinv")


def _check_batch(S_locals, s_batch):
    S = np.asarray(S_locals, dtype=np.float64)
    s = np.asarray(s_batch, dtype=np.float64)
    if S.ndim != 3 or S.shape[1] != S.shape[2]:
        raise SimilarityMatrixError(
            f"S_locals must have shape (B, k, k), got {S.shape}. For a single "
            "neighbourhood use kri_weights / krr_weights."
        )
    if s.shape != S.shape[:2]:
        raise SimilarityMatrixError(
            f"s_batch must have shape {S.shape[:2]} to match S_locals of shape "
            f"{S.shape}, got {s.shape}."
        )
    if S.shape[1] == 0:
        raise SimilarityMatrixError("neighbourhoods must contain at least one sample.")
    if not (np.isfinite(S).all() and np.isfinite(s).all()):
        raise SimilarityMatrixError(
            "S_locals and s_batch must be finite (no NaN or inf)."
        )
    return 0.5 * (S + np.swapaxes(S, 1, 2)), s


def _check_single(S_local, s):
    S = np.asarray(S_local, dtype=np.float64)
    s = np.asarray(s, dtype=np.float64)
    if S.ndim != 2 or S.shape[0] != S.shape[1]:
        raise SimilarityMatrixError(
            f"S_local must be a k x k matrix, got shape {S.shape}."
        )
    if s.shape != (S.shape[0],):
        raise SimilarityMatrixError(
            f"s must have shape ({S.shape[0]},) to match S_local, got {s.shape}."
        )
    return S[None], s[None]


def kri_weights_batch(
    S_locals,
    s_batch,
    reg,
    spectrum="clip",
    *,
    transform_s=True,
    x0=None,
    tol=1e-10,
    return_residual=False,
):
    """KRI weights for a batch of neighbourhoods (Chen et al. 2009, eq. 12).

    Parameters
    ----------
    S_locals : array-like of shape (B, k, k)
        Similarities among each test point's neighbours (symmetrised here).
    s_batch : array-like of shape (B, k)
        Similarities from each test point to its neighbours.
    reg : float >= 0
        Ridge parameter lambda. ``reg -> inf`` gives uniform weights (k-NN).
    spectrum : {"clip", "flip", "shift", "none"}, default="clip"
        Local PSD modification (the paper recommends clip for KRI, section
        7.4). ``"none"`` uses ``S`` as is and raises
        :class:`~proxlearn._validation.InvalidParameterError` if
        ``S + reg I`` is indefinite (beyond rounding): the QP would be
        non-convex.
    transform_s : bool, default=True
        Use ``s~ = P s`` for clip and flip (section 2.2).
    x0 : array-like of shape (B, k), optional
        Warm start for the QP solver (e.g. the weights at a neighbouring reg).
    tol : float, default=1e-10
        KKT tolerance of the QP solver.
    return_residual : bool, default=False
        Also return the scaled KKT residuals (shape (B,)).

    Returns
    -------
    W : ndarray of shape (B, k)
        Non-negative weights summing to one.

    Examples
    --------
    >>> import numpy as np
    >>> from proxlearn.neighbors import kri_weights_batch
    >>> S_local = np.array([[1.0, 0.5], [0.5, 1.0]])
    >>> s = np.array([0.9, 0.2])
    >>> kri_weights_batch(S_local[None], s[None], 1.0).round(3).tolist()
    [[0.733, 0.267]]

    See Also
    --------
    kri_weights : one neighbourhood.
    kri_weights_path : a grid of ``reg`` sharing the eigendecompositions.
    proxlearn.solvers.solve_simplex_qp : the QP solver.
    """
    S, s = _check_batch(S_locals, s_batch)
    reg = check_positive(reg, "reg", allow_zero=True)
    check_option(spectrum, "spectrum", KRI_SPECTRA)
    lam, V, s_t = modify_local(S, s, spectrum, transform_s=transform_s)
    k = S.shape[1]
    if spectrum == "none":
        low = lam.min(axis=1) + reg
        bad = low < -eigen_tolerance(lam)
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise InvalidParameterError(
                f"spectrum='none' needs S_local + reg*I to be positive "
                f"semidefinite for the KRI QP to be convex, but neighbourhood {i} "
                f"has smallest eigenvalue {low[i]:.3g}. Use spectrum='clip' "
                "(recommended), 'flip' or 'shift', or a larger reg."
            )
        Q = S.copy()
    else:
        Q = reconstruct(lam, V)
    diag = np.arange(k)
    Q[:, diag, diag] += reg
    W, res = solve_simplex_qp(Q, s_t, x0=x0, tol=tol)
    return (W, res) if return_residual else W


def kri_weights_path(S_locals, s_batch, regs, spectrum="clip", *, transform_s=True, tol=1e-10):
    """KRI weights for a grid of ``reg`` values, sharing the local work.

    The local spectrum modification (one batched eigendecomposition) does not
    depend on ``reg``, so it is done once; the QPs are then solved from the
    largest ``reg`` (nearly uniform weights) down, each warm-started at the
    previous solution, or, for neighbourhoods of at most 32 samples, all at
    once as one stacked batch (there the solver's per-call overhead outweighs
    the warm starts). Equals ``[kri_weights_batch(S_locals, s_batch, r,
    spectrum) for r in regs]``.

    Returns
    -------
    list of ndarray of shape (B, k), in the order of ``regs``.

    Examples
    --------
    >>> import numpy as np
    >>> from proxlearn.neighbors import kri_weights_path
    >>> S_local = np.array([[1.0, 0.5], [0.5, 1.0]])
    >>> s = np.array([0.9, 0.2])
    >>> [W.round(3).tolist() for W in kri_weights_path(S_local[None], s[None], [0.1, 100.0])]
    [[[1.0, 0.0]], [[0.503, 0.497]]]

    See Also
    --------
    kri_weights_batch : one ``reg``.
    krr_weights_path : the same for KRR weights.
    """
    S, s = _check_batch(S_locals, s_batch)
    regs = [check_positive(r, "reg", allow_zero=True) for r in regs]
    check_option(spectrum, "spectrum", KRI_SPECTRA)
    if spectrum == "none":  # needs the per-reg convexity check
        return [
            kri_weights_batch(S, s, r, "none", transform_s=transform_s, tol=tol) for r in regs
        ]
    lam, V, s_t = modify_local(S, s, spectrum, transform_s=transform_s)
    Q0 = reconstruct(lam, V)
    B, k = s.shape
    diag = np.arange(k)
    uniq = sorted(set(regs), reverse=True)
    solved: dict[float, np.ndarray] = {}
    if k <= _STACK_REGS_MAX_K:
        # small problems: per-call overhead dominates, so all reg values are
        # solved as one stacked batch (cold starts, one solver call)
        Q = np.repeat(Q0[None], len(uniq), axis=0)
        Q[:, :, diag, diag] += np.asarray(uniq)[:, None, None]
        W, _ = solve_simplex_qp(
            Q.reshape(-1, k, k), np.tile(s_t, (len(uniq), 1)), tol=tol
        )
        W = W.reshape(len(uniq), B, k)
        return [W[uniq.index(r)] for r in regs]
    x0 = None
    for r in uniq:
        Q = Q0.copy()
        Q[:, diag, diag] += r
        x0, _ = solve_simplex_qp(Q, s_t, x0=x0, tol=tol)
        solved[r] = x0
    return [solved[r] for r in regs]


def kri_weights(S_local, s, reg, spectrum="clip", *, transform_s=True, tol=1e-10):
    """KRI weights for one neighbourhood (Chen et al. 2009, eq. 12).

    ``S_local`` is k x k, ``s`` has length k. See :func:`kri_weights_batch`
    for the parameters. Returns a length-k non-negative vector summing to 1.

    Examples
    --------
    >>> import numpy as np
    >>> from proxlearn.neighbors import kri_weights
    >>> S_local = np.array([[1.0, 0.5], [0.5, 1.0]])
    >>> s = np.array([0.9, 0.2])
    >>> kri_weights(S_local, s, 1.0).round(3).tolist()
    [0.733, 0.267]

    See Also
    --------
    kri_weights_batch : a batch of neighbourhoods.
    krr_weights : the KRR weights of eq. (15).
    """
    S, s = _check_single(S_local, s)
    return kri_weights_batch(S, s, reg, spectrum, transform_s=transform_s, tol=tol)[0]


def krr_weights_batch(
    S_locals, s_batch, reg, spectrum="pinv", *, transform_s=True, rcond=None
):
    """KRR weights for a batch of neighbourhoods (Chen et al. 2009, eq. 15).

    ``w = (S~ + reg I)^{-1} s~`` computed from the eigendecomposition of the
    local matrix (a spectral solve; no inverse matrix is formed).

    Parameters
    ----------
    S_locals : array-like of shape (B, k, k)
    s_batch : array-like of shape (B, k)
    reg : float
        Ridge parameter lambda: ``>= 0`` for ``"pinv"``, ``> 0`` otherwise
        (clip and shift make ``S~`` singular).
    spectrum : {"pinv", "clip", "flip", "shift", "none"}, default="pinv"
        ``"pinv"``: ``w = pinv(S + reg I) s`` with the unmodified symmetrised
        ``S`` (the paper's choice in Table 3). ``"none"``: ``(S + reg I)^{-1} s``
        for an unmodified ``S``; raises
        :class:`~proxlearn._validation.InvalidParameterError` when
        ``S + reg I`` is (numerically) singular.
    transform_s : bool, default=True
        Use ``s~ = P s`` for clip and flip (section 2.2).
    rcond : float, optional
        Relative cut-off of ``pinv``: eigenvalues of ``S + reg I`` with
        ``|lam| <= rcond * max|lam|`` are treated as zero. Default
        ``k * eps`` (MATLAB's ``pinv`` default, which the paper presumably
        used).

    Returns
    -------
    W : ndarray of shape (B, k)
        Weights; they can be negative and need not sum to one (see
        :func:`normalize_krr_weights` for the paper's display normalisation).

    Examples
    --------
    >>> import numpy as np
    >>> from proxlearn.neighbors import krr_weights_batch
    >>> S_local = np.array([[1.0, 0.5], [0.5, 1.0]])
    >>> s = np.array([0.9, 0.2])
    >>> krr_weights_batch(S_local[None], s[None], 1.0).round(3).tolist()
    [[0.453, -0.013]]

    See Also
    --------
    krr_weights : one neighbourhood.
    krr_weights_path : a grid of ``reg`` sharing the eigendecompositions.
    normalize_krr_weights : the paper's display normalisation.
    """
    return krr_weights_path(
        S_locals, s_batch, [reg], spectrum, transform_s=transform_s, rcond=rcond
    )[0]


def krr_weights_path(
    S_locals, s_batch, regs, spectrum="pinv", *, transform_s=True, rcond=None
):
    """KRR weights for a grid of ``reg`` values, sharing the local eigendecompositions.

    The (batched) eigendecomposition of the local matrices and the projection
    of ``s`` onto their eigenvectors do not depend on ``reg``; each ``reg``
    then costs one spectral solve. Equals ``[krr_weights_batch(S_locals,
    s_batch, r, spectrum) for r in regs]`` (see :func:`krr_weights_batch` for
    the parameters).

    Returns
    -------
    list of ndarray of shape (B, k), in the order of ``regs``.

    Examples
    --------
    >>> import numpy as np
    >>> from proxlearn.neighbors import krr_weights_path
    >>> S_local = np.array([[1.0, 0.5], [0.5, 1.0]])
    >>> s = np.array([0.9, 0.2])
    >>> [W.round(3).tolist() for W in krr_weights_path(S_local[None], s[None], [0.1, 100.0])]
    [[[0.927, -0.24]], [[0.009, 0.002]]]

    See Also
    --------
    krr_weights_batch : one ``reg``.
    kri_weights_path : the same for KRI weights.
    """
    S, s = _check_batch(S_locals, s_batch)
    check_option(spectrum, "spectrum", KRR_SPECTRA)
    k = S.shape[1]
    if rcond is None:
        rcond = k * np.finfo(np.float64).eps
    rcond = check_positive(rcond, "rcond", allow_zero=True)
    regs = [
        check_positive(r, "reg", allow_zero=spectrum == "pinv") for r in regs
    ]
    if spectrum in ("pinv", "none"):
        lam, V = local_eigh(S)
        s_t = s
    else:
        lam, V, s_t = modify_local(S, s, spectrum, transform_s=transform_s)
    proj = np.einsum("bji,bj->bi", V, s_t)  # V^T s~
    out = []
    for reg in regs:
        d = lam + reg
        cut = rcond * np.abs(d).max(axis=1, keepdims=True)
        small = np.abs(d) <= cut
        if spectrum != "pinv" and small.any():
            i = int(np.flatnonzero(small.any(axis=1))[0])
            raise InvalidParameterError(
                f"S_local + reg*I is singular for neighbourhood {i} with "
                f"spectrum={spectrum!r} and reg={reg:g}. Use spectrum='pinv' or a "
                "larger reg."
            )
        with np.errstate(divide="ignore"):
            inv = np.where(small, 0.0, 1.0 / np.where(small, 1.0, d))
        out.append(np.einsum("bij,bj->bi", V, proj * inv))
    return out


def krr_weights(S_local, s, reg, spectrum="pinv", *, transform_s=True, rcond=None):
    """KRR weights for one neighbourhood (Chen et al. 2009, eq. 15).

    ``S_local`` is k x k, ``s`` has length k. See :func:`krr_weights_batch`.

    Examples
    --------
    >>> import numpy as np
    >>> from proxlearn.neighbors import krr_weights
    >>> S_local = np.array([[1.0, 0.5], [0.5, 1.0]])
    >>> s = np.array([0.9, 0.2])
    >>> krr_weights(S_local, s, 1.0).round(3).tolist()
    [0.453, -0.013]

    See Also
    --------
    krr_weights_batch : a batch of neighbourhoods.
    kri_weights : the KRI weights of eq. (12).
    """
    S, s = _check_single(S_local, s)
    return krr_weights_batch(
        S, s, reg, spectrum, transform_s=transform_s, rcond=rcond
    )[0]


def normalize_krr_weights(W):
    """Display normalisation of KRR weights (Chen et al. 2009, footnote 5).

    ``w~ = (I - 11^T/k) w + 1/k = w - mean(w) + 1/k`` along the last axis:
    the weights then sum to one. As ``reg -> inf`` they tend to ``1/k``.

    Examples
    --------
    >>> import numpy as np
    >>> from proxlearn.neighbors import normalize_krr_weights
    >>> normalize_krr_weights(np.array([0.7, -0.1])).round(3).tolist()
    [0.9, 0.1]

    See Also
    --------
    krr_weights, krr_weights_batch : the weights normalised here.
    """
    W = np.asarray(W, dtype=np.float64)
    k = W.shape[-1]
    return W - W.mean(axis=-1, keepdims=True) + 1.0 / k
