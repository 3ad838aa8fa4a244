"""Projected gradient ascent on a dual whose inner maximisation has a closed form.

====================  ===============================================================
function              problem
====================  ===============================================================
``dual_ascent``       ``max_{alpha in F} g(alpha)``, ``g(alpha) = min_K L(K, alpha)``
                      with the inner optimum ``K(alpha)`` in closed form
====================  ===============================================================

This is the alpha-step of the SimpleNPKL template (Zhuang 2011, Protocol 1 for
:class:`~proxlearn.cluster.SimpleNPKL`, its sec. 3.4 form for the
embeddings of :mod:`proxlearn.manifold`, Protocol 5 for
:func:`~proxlearn.ranking.npk_rank`). The caller supplies the closed-form step
``alpha -> (g(alpha), state)`` (an eigendecomposition; ``state`` holds ``K(alpha)``)
and, at an accepted ``alpha``, the primal objective of the feasible ``K(alpha)``
and the Danskin gradient of ``g``. The engine supplies

* the step length: Barzilai-Borwein ``s.s / (-s.y)`` (``step_rule="bb"``, clipped
  to ``bb_bounds``), or the accepted step times ``expand`` (``"expand"``);
* the backtracking test, halving the step until it holds: ``"nonmonotone"``
  (Grippo-Lampariello-Lucidi: sufficient increase over the lowest of the last
  ``memory`` duals) or ``"quadratic"`` (monotone: ``g`` above its quadratic model
  of curvature ``1/step``, up to ``1e-12`` relative rounding);
* the stopping rule: ``K(alpha)`` is primal feasible, so ``primal - dual >= 0``
  certifies both; stop when it is at most ``tol * max(1, |primal|)``
  (``certificate="last"``: the current point; ``"best"``: the lowest primal and
  the highest dual seen, and the point of the lowest primal is returned).

The gradient ascent and the variants are those each caller used before they shared
this loop; the choice per caller and its reasons are documented with the caller.
"""

from __future__ import annotations

import itertools

import numpy as np

from ._result import SolverResult

__all__ = ["DualAscentResult", "dual_ascent"]

STEP_RULES = ("bb", "expand")
ACCEPTANCE = ("nonmonotone", "quadratic")
CERTIFICATES = ("last", "best")


class DualAscentResult(SolverResult):
    """Result of :func:`dual_ascent` (a :class:`SolverResult`).

    Attributes
    ----------
    x : ndarray
        The multipliers ``alpha`` returned (the last, or with ``certificate="best"``
        those of the lowest primal).
    state : object
        What the closed-form step returned with ``x`` (``K(alpha)`` and the like).
    primal, dual : float
        The certificate's primal and dual values; ``gap = primal - dual``.
    success : bool
        The gap is within the tolerance.
    status : int
        0 converged, 1 ``max_iter`` reached, 2 stalled (a step did not move ``alpha``;
        only with ``stop_when_stalled``).
    message : str
    nit : int
        Ascent steps taken.
    nfev : int
        Closed-form steps evaluated (line-search trials included).
    trace : dict of lists
        ``"primal"``, ``"dual"``, ``"step"`` at each certified point (the start
        point first when ``certify_start``), ``"step"`` being the step that led to it.

    Examples
    --------
    >>> import numpy as np
    >>> from proxlearn.solvers import dual_ascent
    >>> res = dual_ascent(lambda a: (float(a[0] - a[0] ** 2 / 2), a[0]),
    ...                   lambda a, K: (K ** 2 / 2 - min(K - 1.0, 0.0), 1.0 - a),
    ...                   np.zeros(1), project=lambda a: np.maximum(a, 0.0), tol=1e-10)
    >>> res.status, bool(abs(res.primal - res.dual) <= 1e-10)
    (0, True)

    See Also
    --------
    dual_ascent : the engine that returns it.
    SolverResult : the base class.
    """


def dual_ascent(k_step, measure, alpha0, *, project=None, step=1.0, step_rule="bb",
                bb_bounds=(1e-12, 1e12), expand=1.5, acceptance="nonmonotone", memory=10,
                sufficient=1e-4, max_backtracks=None, min_step=0.0, tol=1e-4, max_iter=200,
                certify_start=True, certificate="last", stop_when_stalled=False,
                callback=None) -> DualAscentResult:
    """Maximise a concave dual by projected gradient ascent (see the module docstring).

    Parameters
    ----------
    k_step : callable ``alpha -> (dual, state)``
        The closed-form inner step: ``g(alpha)`` and the caller's ``K(alpha)``.
    measure : callable ``(alpha, state) -> (primal, gradient)``
        The primal objective at the feasible point of ``state`` and ``grad g(alpha)``.
    alpha0 : ndarray
        Start (projected first).
    project : callable or None
        Projection onto the dual's feasible set (``None``: unconstrained).
    step : float or callable ``state -> float``
        First step length (a callable receives the start point's state).
    step_rule : {"bb", "expand"}
    bb_bounds : (float, float)
        Clip of the Barzilai-Borwein step.
    expand : float
        Factor of the ``"expand"`` rule.
    acceptance : {"nonmonotone", "quadratic"}
    memory : int
        Duals remembered by the non-monotone test.
    sufficient : float
        Sufficient-increase constant of the non-monotone test.
    max_backtracks : int or None
        Trials per step before the last one is taken anyway (the step is halved once
        more); ``None``: no limit.
    min_step : float
        A trial with a step below this is taken without the test.
    tol : float
        Relative duality gap at which to stop.
    max_iter : int
        Ascent steps.
    certify_start : bool
        Test (and trace) the start point too.
    certificate : {"last", "best"}
    stop_when_stalled : bool
        Stop (``status=2``) when a step leaves ``alpha`` unchanged.
    callback : callable ``(nit, primal, dual, gap)``, optional
        Called after each step.

    Returns
    -------
    DualAscentResult

    Examples
    --------
    ``max_{alpha >= 0} min_K (K^2 / 2 - alpha K) + alpha`` (``K(alpha) = alpha``,
    ``g = alpha - alpha^2 / 2``, primal ``K^2 / 2 - min(K - 1, 0)``): the optimum is 1.

    >>> import numpy as np
    >>> from proxlearn.solvers import dual_ascent
    >>> res = dual_ascent(lambda a: (float(a[0] - a[0] ** 2 / 2), a[0]),
    ...                   lambda a, K: (K ** 2 / 2 - min(K - 1.0, 0.0), 1.0 - a),
    ...                   np.zeros(1), project=lambda a: np.maximum(a, 0.0), tol=1e-10)
    >>> bool(res.success), round(float(res.x[0]), 6)
    (True, 1.0)

    See Also
    --------
    max_trace_psd_ball : the closed-form K-step of the callers.
    proxlearn.cluster.SimpleNPKL, proxlearn.manifold.MVE, proxlearn.ranking.npk_rank :
        the callers (their module docstrings give the variant each uses and why).
    """
    if step_rule not in STEP_RULES:
        raise ValueError(f"step_rule must be one of {STEP_RULES}, got {step_rule!r}.")
    if acceptance not in ACCEPTANCE:
        raise ValueError(f"acceptance must be one of {ACCEPTANCE}, got {acceptance!r}.")
    if certificate not in CERTIFICATES:
        raise ValueError(f"certificate must be one of {CERTIFICATES}, got {certificate!r}.")
    proj = (lambda a: a) if project is None else project
    best = certificate == "best"

    alpha = proj(alpha0)
    dual, state = k_step(alpha)
    nfev = 1
    primal, grad = measure(alpha, state)
    eta = step(state) if callable(step) else step
    trace = {"primal": [], "dual": [], "step": []}
    top = None  # (primal, alpha, state) of the lowest primal (certificate="best")
    high = -np.inf  # highest dual traced (certificate="best")

    def certify():
        """Record the current point; return ``(primal, dual, gap, converged)``."""
        nonlocal top, high
        trace["primal"].append(primal)
        trace["dual"].append(dual)
        trace["step"].append(eta)
        if not best:
            return primal, dual, primal - dual, primal - dual <= tol * max(1.0, abs(primal))
        if top is None or primal < top[0]:
            top = (primal, alpha, state)
        high = max(high, dual)
        gap = top[0] - high
        return top[0], high, gap, gap <= tol * max(1.0, abs(top[0]))

    def result(nit, status, cert):
        x, st = (top[1], top[2]) if best and top is not None else (alpha, state)
        P, D, gap, ok = cert if cert is not None else (primal, dual, primal - dual, False)
        messages = {0: "duality gap within tol", 1: "max_iter reached",
                    2: "a step left alpha unchanged"}
        return DualAscentResult(x=x, state=st, primal=P, dual=D, gap=gap, success=ok,
                                status=status, message=messages[status], nit=nit, nfev=nfev,
                                trace=trace)

    cert = None
    if certify_start:
        cert = certify()
        if cert[3]:
            return result(0, 0, cert)
    recent = [dual]
    prev = None  # (alpha, grad) of the previous point, for the Barzilai-Borwein step
    for it in range(1, int(max_iter) + 1):
        if step_rule == "bb":
            if prev is not None:  # s.s / (-s.y): g is concave, so -s.y > 0
                s = alpha - prev[0]
                curv = -float(s @ (grad - prev[1]))
                if curv > 0:
                    eta = float(np.clip(s @ s / curv, bb_bounds[0], bb_bounds[1]))
            prev = (alpha, grad)
        elif it > 1:
            eta *= expand
        reference = min(recent)
        for tries in itertools.count(1):  # backtracking: halve until the test holds
            trial = proj(alpha + eta * grad)
            d = trial - alpha
            dual_new, state_new = k_step(trial)
            nfev += 1
            if acceptance == "nonmonotone":
                ok = dual_new >= reference + sufficient * float(grad @ d)
            else:
                ok = dual_new >= (dual + grad @ d - (0.5 / eta) * (d @ d)
                                  - 1e-12 * max(1.0, abs(dual)))
            if ok or eta < min_step:
                break
            eta *= 0.5
            if tries == max_backtracks:
                break
        alpha, dual, state = trial, dual_new, state_new
        recent = (recent + [dual])[-memory:]
        primal, grad = measure(alpha, state)
        cert = certify()
        if callback is not None:
            callback(it, primal, dual, cert[2])
        if cert[3]:
            return result(it, 0, cert)
        if stop_when_stalled and float(np.abs(d).max()) == 0.0:
            return result(it, 2, cert)
    return result(int(max_iter), 1, cert)
