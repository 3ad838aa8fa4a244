"""The optimal intercept of a hinge loss for fixed margins.

Shared by the LP machine (Chen 2010 section 2.3) and the SimSVM dual
interior-point solver, which both fix the decision values ``f`` and need the
``b`` minimising ``sum_i max(0, 1 - y_i (f_i + b))``.
"""

from __future__ import annotations

import numpy as np

__all__ = ["central_hinge_intercept"]


def central_hinge_intercept(f, y):
    """Centre of the interval of optimal intercepts for fixed margins ``f``.

    For fixed decision values ``f`` the hinge loss
    ``L(b) = sum_i max(0, 1 - y_i (f_i + b))`` is a convex piecewise-linear
    function of ``b`` with breakpoints ``t_i = y_i - f_i`` and integer slopes.
    Its minimisers form an interval ``[b_lo, b_hi]`` (one point unless the slope
    is zero between two breakpoints). A simplex solver returns an endpoint,
    and which endpoint depends on the path it took (warm or cold start, HiGHS
    version). When the interval is wide -- typically ``f = 0`` on balanced
    classes, where every ``b`` in ``[-1, 1]`` is optimal -- the two endpoints
    predict opposite classes. Returning the centre keeps the objective optimal
    and makes the answer independent of the solver path. The slopes are
    counts, so the interval is found exactly (no tolerance).

    Parameters
    ----------
    f : ndarray of shape (n,)
        Decision values without the intercept.
    y : ndarray of shape (n,)
        Labels in ``{-1, +1}``.
    """
    t = y - f
    pos, neg = np.sort(t[y > 0]), np.sort(t[y < 0])
    ts = np.sort(t)
    # right derivative at t_k: -#{pos: t > t_k} + #{neg: t <= t_k}  (nondecreasing)
    right = -(len(pos) - np.searchsorted(pos, ts, side="right")) + np.searchsorted(
        neg, ts, side="right"
    )
    # left derivative at t_k: -#{pos: t >= t_k} + #{neg: t < t_k}
    left = -(len(pos) - np.searchsorted(pos, ts, side="left")) + np.searchsorted(
        neg, ts, side="left"
    )
    b_lo = ts[np.argmax(right >= 0)]
    b_hi = ts[len(ts) - 1 - np.argmax((left <= 0)[::-1])]
    return 0.5 * (b_lo + b_hi)
