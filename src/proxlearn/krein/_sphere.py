"""A quadratic over a sphere (or a ball), solved globally: the core of Kreĭn least squares.

Minimise ``q(x) = x^T diag(h) x - 2 g^T x`` subject to ``||x|| = r`` (the
sphere) or ``||x|| <= r`` (the ball, the trust-region subproblem), for any
real ``h`` (the quadratic need not be convex). In the eigenbasis of a
symmetric ``H`` every such problem is of this diagonal form, which is how
:class:`~proxlearn.krein.KreinLeastSquares` meets it.

Global optimality (Forsythe & Golub 1965; Gander, Golub & von Matt 1989,
"A constrained eigenvalue problem", sections 2-3; Moré & Sorensen 1983 for
the ball): ``x`` is a global minimiser on the sphere iff for some ``mu``

* ``(h + mu) x = g`` (stationarity),
* ``h + mu >= 0`` (``H + mu I`` positive semidefinite),
* ``||x|| = r``;

on the ball, additionally ``mu >= 0`` and ``mu (||x|| - r) = 0``. In the
*easy case* (``g`` has a nonzero entry where ``h`` is smallest) ``mu`` is the
unique root right of ``-min h`` of the secular equation
``sum_i g_i^2 / (h_i + mu)^2 = r^2``; it is found here by Brent's method on
``1 / ||x(mu)|| - 1 / r``, which is nearly linear in ``mu`` (Reinsch 1971;
Moré & Sorensen), bracketed by ``-min h`` and ``||g|| / r - min h``. In the
*hard case* (``g`` vanishes on the eigenspace of ``min h`` and the root would
lie left of ``-min h``) ``mu = -min h`` and the missing norm goes into that
eigenspace. :func:`sphere_kkt` measures the three conditions.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import scipy.optimize

__all__ = ["SphereSolution", "solve_sphere_quadratic", "sphere_kkt"]


class SphereSolution(NamedTuple):
    """The global minimiser of :func:`solve_sphere_quadratic`.

    Attributes
    ----------
    x : ndarray of shape (k,)
    mu : float
        The multiplier: ``(h + mu) x = g``.
    hard_case : bool
        ``mu = -min h`` with the norm completed in the eigenspace of ``min h``.
    objective : float
        ``x^T diag(h) x - 2 g^T x``.

    Examples
    --------
    >>> from proxlearn.krein._sphere import solve_sphere_quadratic
    >>> solve_sphere_quadratic([1.0, 2.0], [0.0, 0.0], 1.0).hard_case
    True

    See Also
    --------
    solve_sphere_quadratic : what returns it.
    """

    x: np.ndarray
    mu: float
    hard_case: bool
    objective: float


def _objective(h, g, x):
    return float(x @ (h * x) - 2.0 * g @ x)


def solve_sphere_quadratic(h, g, r, *, ball=False) -> SphereSolution:
    """Globally minimise ``x^T diag(h) x - 2 g^T x`` over ``||x|| = r`` (or ``<= r``).

    Parameters
    ----------
    h : array-like of shape (k,)
        The diagonal of the quadratic (any sign).
    g : array-like of shape (k,)
        The linear term.
    r : float
        The radius (> 0).
    ball : bool, default=False
        Minimise over the ball ``||x|| <= r`` instead of the sphere.

    Returns
    -------
    SphereSolution

    Examples
    --------
    >>> import numpy as np
    >>> from proxlearn.krein._sphere import solve_sphere_quadratic
    >>> sol = solve_sphere_quadratic(np.array([-1.0, 2.0]), np.array([0.5, 1.0]), 2.0)
    >>> round(float(np.linalg.norm(sol.x)), 12), bool(sol.mu >= 1.0)  # mu >= -min h
    (2.0, True)
    >>> solve_sphere_quadratic(np.array([1.0, 2.0]), np.array([0.5, 1.0]), 2.0,
    ...                        ball=True).x.tolist()  # the interior minimiser h^-1 g
    [0.5, 0.5]

    See Also
    --------
    sphere_kkt : the certificate of global optimality.
    proxlearn.krein.KreinLeastSquares : its caller.
    """
    h = np.asarray(h, dtype=np.float64)
    g = np.asarray(g, dtype=np.float64)
    r = float(r)
    k = h.shape[0]
    if k == 0:
        return SphereSolution(np.zeros(0), 0.0, False, 0.0)
    h_min = float(h.min())
    scale = max(float(np.abs(h).max()), np.finfo(float).tiny)
    g_norm = float(np.linalg.norm(g))
    lowest = h - h_min <= 8 * k * np.finfo(float).eps * scale  # the eigenspace of min h
    g_small = 8 * k * np.finfo(float).eps * max(g_norm, np.finfo(float).tiny)
    easy = bool(np.any(np.abs(g[lowest]) > g_small))

    def norm_at(mu):
        with np.errstate(divide="ignore", invalid="ignore"):
            x = np.where(g == 0.0, 0.0, g / (h + mu))
        return x, float(np.linalg.norm(x))

    mu_low = -h_min
    if ball and h_min > 0.0:  # H positive definite: the interior minimiser may do
        x, nx = norm_at(0.0)
        if nx <= r:
            return SphereSolution(x, 0.0, False, _objective(h, g, x))
        mu_low = 0.0
    elif not easy:  # the root may lie left of -min h: the hard case
        with np.errstate(divide="ignore", invalid="ignore"):
            x = np.where(lowest, 0.0, g / (h - h_min))
        nx = float(np.linalg.norm(x))
        if nx <= r:
            if ball and h_min == 0.0:  # mu = 0 and ||x|| <= r: a minimiser of the ball
                return SphereSolution(x, 0.0, False, _objective(h, g, x))
            x[np.flatnonzero(lowest)[0]] = np.sqrt(max(r * r - nx * nx, 0.0))
            return SphereSolution(x, -h_min, True, _objective(h, g, x))

    def secular(mu):
        _, nx = norm_at(mu)
        return (1.0 / nx if nx > 0 else np.inf) - 1.0 / r

    mu_high = max(g_norm / r - h_min, mu_low)
    # secular(mu_low) < 0 (the norm is infinite there, or > r), secular(mu_high) >= 0
    if secular(mu_high) <= 0.0:
        mu = mu_high
    else:
        mu = scipy.optimize.brentq(secular, mu_low, mu_high, xtol=4 * np.finfo(float).eps
                                   * max(abs(mu_low), abs(mu_high), scale),
                                   rtol=4 * np.finfo(float).eps, maxiter=500)
    x, _ = norm_at(mu)
    return SphereSolution(x, float(mu), False, _objective(h, g, x))


def sphere_kkt(h, g, r, x, mu, *, ball=False) -> dict:
    """The optimality residuals of a candidate ``(x, mu)``, relative to the data.

    Returns
    -------
    dict
        ``stationarity``: ``||(h + mu) x - g|| / max(||g||, ||h|| ||x||)``;
        ``curvature``: ``max(0, -(min h + mu)) / c`` (``H + mu I`` PSD), with
        ``c = max(max|h|, |mu|, ||g|| / r)`` the scale of ``h + mu``;
        ``feasibility``: ``| ||x|| - r | / r`` on the sphere, ``max(0, ||x|| - r) / r``
        on the ball; ``multiplier`` (ball only): ``max(0, -mu) / c``;
        ``complementarity`` (ball only): ``|mu (||x|| - r)| / (c r)``. All
        near rounding at a global minimiser.

    Examples
    --------
    >>> import numpy as np
    >>> from proxlearn.krein._sphere import solve_sphere_quadratic, sphere_kkt
    >>> h, g = np.array([-1.0, 0.5, 3.0]), np.array([0.2, -1.0, 0.4])
    >>> sol = solve_sphere_quadratic(h, g, 1.5)
    >>> max(sphere_kkt(h, g, 1.5, sol.x, sol.mu).values()) < 1e-12
    True

    See Also
    --------
    solve_sphere_quadratic : the solver it certifies.
    """
    h, g, x = (np.asarray(a, dtype=np.float64) for a in (h, g, x))
    hs = max(float(np.abs(h).max()), abs(mu), float(np.linalg.norm(g)) / r,
             np.finfo(float).tiny)  # the scale of h + mu
    nx = float(np.linalg.norm(x))
    out = {
        "stationarity": float(np.linalg.norm((h + mu) * x - g))
        / max(float(np.linalg.norm(g)), hs * nx, np.finfo(float).tiny),
        "curvature": max(0.0, -(float(h.min()) + mu)) / hs,
        "feasibility": (max(0.0, nx - r) if ball else abs(nx - r)) / r,
    }
    if ball:
        out["multiplier"] = max(0.0, -mu) / hs
        out["complementarity"] = abs(mu * (nx - r)) / (hs * r)
    return out
