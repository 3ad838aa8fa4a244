"""The binary SVM dual on a precomputed kernel, as every MKL solver needs it.

``omega(K) = max_{alpha in A} 1^T alpha - 1/2 (y o alpha)^T K (y o alpha)``,
``A = {alpha : y^T alpha = 0, 0 <= alpha <= C}`` (Kundu et al. 2010 eq. 1;
the inner problem of SimpleMKL and Lp-MKL). Solved by libsvm through
scikit-learn (the field's standard SMO solver: no reason to hand-write one),
at a tight tolerance because the MKL certificates are built on its ``alpha``.
MKL and the Kundu methods call it hundreds of times per fit, so it goes through
:func:`proxlearn.svm._small_svc.libsvm_fit` (the binding ``SVC.fit`` calls,
without the ~1 ms of argument validation per call that dominated at n = 200;
falls back to ``SVC`` with the same answers).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from sklearn.svm import SVC

from ..svm._small_svc import libsvm_fit

__all__ = ["SVMDual", "svm_dual", "box_knapsack_max"]


@dataclass
class SVMDual:
    alpha: np.ndarray  # (n,), in [0, C]
    b: float
    value: float  # omega(K) at alpha


#: SMO iterations after which libsvm is stopped and re-run at its default
#: tolerance 1e-3: on a nearly constant kernel (entries 1 +- 6e-6, a 2LMKL line
#: search trial with tiny weights) it never reaches 1e-7 and ran for minutes;
#: 10^6 iterations take about 0.1 s at n = 138.
MAX_SMO_ITER = 1_000_000


def svm_dual(K, y, C, *, tol=1e-7) -> SVMDual:
    """Solve the SVM dual on ``K`` (n x n PSD) with labels ``y`` in ``{-1, +1}``
    (at ``tol``; at libsvm's default 1e-3 when ``tol`` is out of reach, see
    :data:`MAX_SMO_ITER`)."""
    y = np.asarray(y, dtype=np.float64)
    alpha = np.zeros(K.shape[0])
    fit = libsvm_fit(K, (y > 0).astype(np.float64), C, tol=tol, max_iter=MAX_SMO_ITER)
    if fit is not None and int(np.max(fit["n_iter"])) >= MAX_SMO_ITER:
        fit = libsvm_fit(K, (y > 0).astype(np.float64), C, tol=max(tol, 1e-3),
                         max_iter=MAX_SMO_ITER)
    if fit is not None:
        # libsvm's sign convention is the negative of SVC's for two classes
        support = fit["support"]
        alpha[support] = -fit["dual_coef"][0] * y[support]
        b = -float(fit["intercept"][0])
    else:  # the private binding is unavailable or changed (tested by monkeypatching)
        import warnings

        from sklearn.exceptions import ConvergenceWarning

        clf = SVC(kernel="precomputed", C=float(C), tol=tol, shrinking=True,
                  max_iter=MAX_SMO_ITER)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", ConvergenceWarning)
            clf.fit(K, y)
        if any(issubclass(w.category, ConvergenceWarning) for w in caught):
            clf.set_params(tol=max(tol, 1e-3)).fit(K, y)
        # dual_coef_ = alpha_i y_i of the support vectors (classes_ = [-1, 1])
        alpha[clf.support_] = clf.dual_coef_[0] * y[clf.support_]
        b = float(clf.intercept_[0])
    alpha = np.clip(alpha, 0.0, float(C))
    u = alpha * y
    value = float(alpha.sum() - 0.5 * u @ K @ u)
    return SVMDual(alpha=alpha, b=b, value=value)


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
