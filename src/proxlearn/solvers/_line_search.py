"""Armijo backtracking along a projected-gradient path or a feasible direction.

==========================  ==========================================================
function                    problem
==========================  ==========================================================
``armijo_backtrack``        the first step ``s`` of ``step, shrink(step), ...`` with
                            ``f(x(s)) <= reference + sufficient * decrease(s)``
==========================  ==========================================================

The caller gives the path ``s -> x(s)`` (a projection of ``x - s grad``, or
``x + s d`` made feasible) and the objective; the helper runs the test and the
backtracking. The Armijo term is ``grad . (x(s) - x)`` on a projected path
(``slope=None``) or ``s * slope`` along a direction of directional derivative
``slope``. What differs between the MKL solvers is a named option:

* ``reference``: the current value (monotone) or the largest of the last few
  (non-monotone, Grippo-Lampariello-Lucidi; the caller keeps the window);
* ``shrink``: the factor of each backtrack (``0.5``), or ``"quadratic"``: the
  minimiser of the quadratic through ``f(x)``, the slope and the failed trial,
  safeguarded to ``[0.1 s, 0.5 s]`` (needs ``value`` and ``slope``);
* ``min_step`` (no trial below it, the first excepted) and ``max_trials``;
* ``restart_step``: once, when the path no longer moves ``x`` at a step below
  it, try again from it (a remembered step that shrank below the rounding of ``x``).

A trial at which the path does not move ``x`` (``path`` returns ``None``) ends
the search without success (or restarts it, above).
"""

from __future__ import annotations

import itertools

from ._result import SolverResult

__all__ = ["LineSearchResult", "armijo_backtrack"]


class LineSearchResult(SolverResult):
    """Result of :func:`armijo_backtrack` (a :class:`SolverResult`).

    Attributes
    ----------
    x : object
        The last trial point (the accepted one when ``success``; ``None`` when the
        path stopped moving before any trial was evaluated).
    fun : float
        The objective at ``x`` (``None`` when no trial was evaluated).
    state : object
        What ``evaluate`` returned with ``fun`` at ``x``.
    step : float
        The step of ``x``.
    success : bool
        The sufficient-decrease test holds at ``x``.
    nfev : int
        Trials evaluated.

    Examples
    --------
    >>> import numpy as np
    >>> from proxlearn.solvers import armijo_backtrack
    >>> x, g = np.array([1.0]), np.array([2.0])  # f(x) = x^2 at 1
    >>> res = armijo_backtrack(lambda p: (float(p @ p), None), lambda s: x - s * g,
    ...                        reference=1.0, gradient=g, x=x, step=4.0)
    >>> res.success, res.step, res.x.tolist()
    (True, 0.5, [0.0])

    See Also
    --------
    armijo_backtrack : the search that returns it.
    """


def armijo_backtrack(evaluate, path, *, reference, step, x=None, gradient=None, slope=None,
                     sufficient=1e-4, shrink=0.5, value=None, min_step=0.0, max_trials=None,
                     restart_step=None) -> LineSearchResult:
    """Backtrack from ``step`` until the Armijo test holds (see the module docstring).

    Parameters
    ----------
    evaluate : callable ``x -> (f(x), state)``
    path : callable ``s -> x(s)`` or ``None``
        The trial point at step ``s`` (``None``: it equals ``x``; the search stops).
    reference : float
        The value to decrease from (``f(x)``, or the non-monotone maximum).
    step : float
        The first trial step.
    x, gradient : ndarray
        The current point and the gradient there: the Armijo term is
        ``gradient . (x(s) - x)`` (projected path; used when ``slope`` is None).
    slope : float or None
        The directional derivative along a direction: the Armijo term is ``s * slope``.
    sufficient : float
        The Armijo constant.
    shrink : float or "quadratic"
        Backtracking factor, or the safeguarded quadratic interpolation.
    value : float
        ``f(x)`` (only for ``shrink="quadratic"``).
    min_step : float
        No trial at a step below it (the first trial always runs).
    max_trials : int or None
        Trials at most (a restart counts as one).
    restart_step : float or None
        The step to restart from once, when the path stops moving ``x`` below it.

    Returns
    -------
    LineSearchResult

    Examples
    --------
    >>> import numpy as np
    >>> from proxlearn.solvers import armijo_backtrack
    >>> x, d = np.array([1.0]), np.array([-1.0])  # along d, slope f'(x) d = -2
    >>> res = armijo_backtrack(lambda p: (float(p @ p), None), lambda s: x + s * d,
    ...                        reference=1.0, step=4.0, slope=-2.0, shrink="quadratic",
    ...                        value=1.0)
    >>> res.success, res.step
    (True, 1.0)

    See Also
    --------
    dual_ascent : projected gradient ascent with its own non-monotone search.
    """
    s = step
    trial, f, state, nfev = None, None, None, 0
    trials = itertools.count() if max_trials is None else range(int(max_trials))
    for i in trials:
        if i > 0 and not s >= min_step:
            break
        trial = path(s)
        if trial is None:
            if restart_step is not None and s < restart_step:
                s, restart_step = restart_step, None
                continue
            return LineSearchResult(x=None, fun=None, state=None, step=s, success=False,
                                    nfev=nfev)
        f, state = evaluate(trial)
        nfev += 1
        armijo = (sufficient * (gradient @ (trial - x)) if slope is None
                  else sufficient * s * slope)
        if f <= reference + armijo:
            return LineSearchResult(x=trial, fun=f, state=state, step=s, success=True,
                                    nfev=nfev)
        if shrink == "quadratic":
            curv = 2.0 * (f - value - s * slope)
            s_q = -slope * s * s / curv if curv > 0 else 0.5 * s
            s = min(max(s_q, 0.1 * s), 0.5 * s)
        else:
            s *= shrink
    return LineSearchResult(x=trial, fun=f, state=state, step=s, success=False, nfev=nfev)
