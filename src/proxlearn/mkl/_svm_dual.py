"""The binary SVM dual on a precomputed kernel, as every MKL solver needs it.

``omega(K) = max_{alpha in A} 1^T alpha - 1/2 (y o alpha)^T K (y o alpha)``,
``A = {alpha : y^T alpha = 0, 0 <= alpha <= C}`` (Kundu et al. 2010 eq. 1;
the inner problem of SimpleMKL and Lp-MKL). Solved by libsvm through
scikit-learn (the field's standard SMO solver: no reason to hand-write one),
at a tight tolerance because the MKL certificates are built on its ``alpha``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from sklearn.svm import SVC

__all__ = ["SVMDual", "svm_dual", "box_knapsack_max"]


@dataclass
class SVMDual:
    alpha: np.ndarray  # (n,), in [0, C]
    b: float
    value: float  # omega(K) at alpha


def svm_dual(K, y, C, *, tol=1e-7) -> SVMDual:
    """Solve the SVM dual on ``K`` (n x n PSD) with labels ``y`` in ``{-1, +1}``."""
    clf = SVC(kernel="precomputed", C=float(C), tol=tol, shrinking=True, max_iter=-1)
    clf.fit(K, y)
    alpha = np.zeros(K.shape[0])
    # dual_coef_ = alpha_i y_i of the support vectors (classes_ = [-1, 1])
    alpha[clf.support_] = clf.dual_coef_[0] * y[clf.support_]
    alpha = np.clip(alpha, 0.0, float(C))
    u = alpha * y
    value = float(alpha.sum() - 0.5 * u @ K @ u)
    return SVMDual(alpha=alpha, b=float(clf.intercept_[0]), value=value)


def box_knapsack_max(g, y, C) -> float:
    """``max g^T a`` over ``{a : y^T a = 0, 0 <= a <= C}`` (``y`` in ``{-1, +1}``).

    The LP's dual is ``min_nu C sum_i max(g_i - nu y_i, 0)``, a convex
    piecewise-linear function of ``nu`` minimised at one of its breakpoints
    ``nu = g_i y_i``; all of them are evaluated (``O(n log n)`` by sorting).
    Used for Frank-Wolfe upper bounds on concave MKL duals.
    """
    g = np.asarray(g, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    t = g * y  # g_i - nu y_i = y_i (t_i - nu)
    pos, neg = t[y > 0], t[y < 0]
    # h(nu) = C [sum_{pos} max(t - nu, 0) + sum_{neg} max(nu - t, 0)]
    ps, ns = np.sort(pos), np.sort(neg)
    pcum = np.concatenate([[0.0], np.cumsum(ps[::-1])])  # sums of the largest k
    ncum = np.concatenate([[0.0], np.cumsum(ns)])  # sums of the smallest k
    nus = np.concatenate([ps, ns])
    # number of pos above nu, and of neg below nu
    kp = ps.size - np.searchsorted(ps, nus, side="right")
    kn = np.searchsorted(ns, nus, side="left")
    h = (pcum[kp] - kp * nus) + (kn * nus - ncum[kn])
    return float(float(C) * h.min()) if h.size else 0.0
