"""The K-step of non-parametric kernel learning: a linear objective over a PSD ball.

==========================  ====================================================
function                    problem
==========================  ====================================================
``max_trace_psd_ball``      ``max_K tr(A K)  s.t.  K PSD, ||K||_p-Schatten^p <= B``
==========================  ====================================================

References
----------
J. Zhuang, I. W. Tsang, S. C. H. Hoi. SimpleNPKL: simple non-parametric kernel
learning. ICML 2009 (Proposition 1); J. Zhuang, PhD thesis 2011, Proposition
3.25 and Theorem 6.34, eqs. 6.6-6.8 (the K-step of Protocol 5).

Closed form: with ``A_+ = V max(Lambda, 0) V^T`` the projection of the
symmetric part of ``A`` onto the PSD cone,
``K* = (B / tr A_+^{p/(p-1)})^{1/p} A_+^{1/(p-1)}`` (``p = 2``:
``K* = A_+ sqrt(B / tr(A_+^2))``, the Frobenius ball of Protocol 5). If
``A`` has no positive eigenvalue the optimum is ``K = 0``. Erratum followed:
the text before eq. 6.6 prints ``A`` with the opposite sign; Protocol 5 step 3
has ``A = H K_t H - sum alpha_ij A^ij``, the sign for a maximum.
"""

from __future__ import annotations

import numpy as np
import scipy.linalg

from .._validation import InvalidParameterError, check_positive, check_similarity

__all__ = ["max_trace_psd_ball"]


def max_trace_psd_ball(A, B, p=2.0, *, eigh=None):
    """Maximiser ``K*`` of ``tr(A K)`` over PSD ``K`` with ``tr(K^p) <= B``.

    Parameters
    ----------
    A : array-like of shape (n, n)
        Objective matrix; its symmetric part is used (``tr(A K)`` only sees it).
    B : float > 0
        Capacity bound on ``tr(K^p)`` (``p = 2``: ``||K||_F^2``).
    p : float > 1, default=2
    eigh : tuple (lam, V), optional
        A precomputed eigendecomposition of the symmetric part of ``A``.

    Returns
    -------
    K : ndarray of shape (n, n), PSD, ``tr(K^p) = B`` unless ``K = 0``.
    value : float
        ``tr(A K*) = B^{1/p} (tr A_+^{p/(p-1)})^{(p-1)/p}``.

    Examples
    --------
    >>> import numpy as np
    >>> from proxlearn.solvers import max_trace_psd_ball
    >>> K, value = max_trace_psd_ball(np.diag([3., 4., -2.]), B=1.0)
    >>> np.diag(K).round(4).tolist(), round(value, 4)
    ([0.6, 0.8, 0.0], 5.0)

    See Also
    --------
    dual_ascent : the engine whose K-step this is.
    proxlearn.cluster.SimpleNPKL : the caller (Zhuang et al. 2011).
    """
    B = check_positive(B, "B")
    p = check_positive(p, "p")
    if p <= 1:
        raise InvalidParameterError(f"p must be > 1 (a strictly convex ball), got {p}.")
    if eigh is None:
        A = check_similarity(A, name="A", dissimilarity_check=False)
        lam, V = scipy.linalg.eigh(0.5 * (A + A.T), driver="evd")
    else:
        lam, V = eigh
    pos = lam > 0
    if not np.any(pos):
        n = V.shape[0]
        return np.zeros((n, n)), 0.0
    lp = lam[pos]
    q = p / (p - 1.0)
    norm_q = float(np.sum(lp**q))  # tr(A_+^{p/(p-1)})
    scale = (B / norm_q) ** (1.0 / p)
    w = scale * lp ** (1.0 / (p - 1.0))
    Vp = V[:, pos]
    K = (Vp * w) @ Vp.T
    K = 0.5 * (K + K.T)
    return K, float(B ** (1.0 / p) * norm_q ** ((p - 1.0) / p))
