"""Study method ``svm-ca``: SVM-CA of Gu & Guo (AAAI 2012) with its grids.

Grids (Gu & Guo 2012, section 4; digest ``notes/gu-guo2012-aaai.md`` 2.9):
``C, rho in {0.01, 0.1, 1, 10, 100}`` (``GU_GRID``) and ``n_components = d in
{2, 3, 5, 8, 13, 21, 34, 55}`` (Fibonacci), 200 points, under both ``gu2012``
and ``chen2009``. A ``d`` above the number ``d0`` of positive eigenvalues of a
training block is clamped to ``d0`` (``excess_components="clamp"``), so every
grid point stays valid on every fold and the refit behaves the same way.

Fold evaluator (:func:`svmca_fold_evaluator`) shares work across the grid and
returns exactly what one :class:`~proxlearn.kernel_learning._svmca.SVMCA` fit
per grid point would predict:

* one eigendecomposition of ``K0`` per fold: ``d0``, and the rank-``d`` clip
  start of every ``d`` (prefixes of the same eigenvectors);
* grid points whose clamped ``d`` coincide are computed once;
* the first alpha-step (libsvm on the rank-``d`` clip) does not depend on
  ``rho``: computed once per ``(d, C)`` and shared by the five ``rho``;
* along ``C`` (ascending): when no ``alpha`` reached the bound ``C`` in any
  iteration, the whole trajectory is also the one for every larger ``C`` (the
  box is inactive, so every alpha-step returns the same solution), and it is
  reused; the same holds for the shared first alpha-step. (As in
  ``_svc_over_C``; exact up to libsvm's stopping tolerance.)

No warm start across ``rho`` or ``d`` is used: the alternation can cycle, so
its result depends on the starting point, and a warm start would make the
selected model differ from the refitted one.
"""

from __future__ import annotations

import warnings

import numpy as np

from ..._methods import GU_GRID, Method, register_method

__all__ = ["D_GRID", "SVMCA_FIXED", "svmca_fold_evaluator"]

#: Gu & Guo (2012) grid of the reduced dimension d.
D_GRID = [2, 3, 5, 8, 13, 21, 34, 55]
#: Settings of every SVMCA the study builds (``normalize=False``: the paper's
#: reading, ``K0`` as given; issue 40 made ``normalize=True`` the default).
SVMCA_FIXED = {"excess_components": "clamp", "normalize": False}


def _svmca(**params):
    from ....kernel_learning._svmca import SVMCA

    return SVMCA(**SVMCA_FIXED, **params)


def svmca_fold_evaluator(S_train, y_train, S_test, params_list, *, stats=None):
    """Predictions of SVM-CA for every grid point, sharing work (module docstring).

    ``stats``, if a dict, receives counters: ``paths`` (alternations run),
    ``iterations`` (their total), ``first_steps`` (shared first alpha-steps),
    ``reused`` (grid points answered by C-saturation reuse or clamping).
    """
    from ...._svm._multiclass import ovo_labels, ovo_problems
    from ....kernel_learning._svmca import (
        ComponentsClampedWarning,
        _alpha_step,
        svmca_path,
    )

    est = _svmca()
    K0, classes, y_idx, lam, U = est._prepare(S_train, y_train)
    pairs = ovo_problems(y_idx, len(classes))
    S_test = np.asarray(S_test, dtype=np.float64)
    if est.preprocess_scale_ != 1.0 or est.preprocess_shift_ != 0.0:
        S_test = est.preprocess_shift_ + est.preprocess_scale_ * S_test
    counters = {"paths": 0, "iterations": 0, "first_steps": 0, "reused": 0}

    def d_eff(p):
        est.set_params(n_components=p.get("n_components", est.n_components))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ComponentsClampedWarning)
            return est._resolve_d(lam)

    # (d, rho) -> [(C, i), ...]
    groups: dict[tuple, list] = {}
    for i, p in enumerate(params_list):
        key = (d_eff(p), float(p.get("rho", 1.0)))
        groups.setdefault(key, []).append((float(p.get("C", 1.0)), i))
    out: list = [None] * len(params_list)
    starts: dict[int, tuple] = {}
    firsts: dict[tuple, object] = {}  # (d, C) -> _AlphaStep
    first_free: dict[int, tuple] = {}  # d -> (C, step) of an unsaturated first step
    done: dict[tuple, np.ndarray] = {}  # (d, rho, C) -> predictions
    for (d, rho), items in sorted(groups.items()):
        if d not in starts:
            P0, V0 = est._clip_start(lam, U, d)
            starts[d] = (P0, V0, P0 @ P0.T)
        P0, V0, Kv0 = starts[d]
        free = None  # predictions of an all-unsaturated trajectory
        for C, i in sorted(items):
            if (d, rho, C) in done:
                out[i] = done[(d, rho, C)]
                counters["reused"] += 1
                continue
            if free is not None:
                out[i] = done[(d, rho, C)] = free
                counters["reused"] += 1
                continue
            if (d, C) not in firsts:
                prev = first_free.get(d)
                if prev is not None and prev[0] <= C:
                    firsts[(d, C)] = prev[1]
                else:
                    step = _alpha_step(Kv0, pairs, C, est.svm_tol, factor=P0)
                    counters["first_steps"] += 1
                    firsts[(d, C)] = step
                    if not step.saturated and d not in first_free:
                        first_free[d] = (C, step)
            res = svmca_path(
                K0, pairs, C, rho, P0, V0, max_iter=est.max_iter, tol=est.tol,
                svm_tol=est.svm_tol, first=firsts[(d, C)],
            )
            counters["paths"] += 1
            counters["iterations"] += res.n_iter
            raw = S_test @ res.coef().T + res.intercept
            pred = ovo_labels(raw, classes)
            out[i] = done[(d, rho, C)] = pred
            if not res.saturated:
                free = pred
    if isinstance(stats, dict):
        for key, val in counters.items():
            stats[key] = stats.get(key, 0) + val
    return out


register_method(
    Method(
        "svm-ca",
        _svmca,
        {
            "gu2012": {"C": GU_GRID, "rho": GU_GRID, "n_components": D_GRID},
            "chen2009": {"C": GU_GRID, "rho": GU_GRID, "n_components": D_GRID},
        },
        "SVM-CA: joint one-vs-one SVMs and kernel component analysis (Gu & Guo 2012)",
        evaluate=svmca_fold_evaluator,
    ),
    replace=True,
)
