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

from ..._methods import GU_GRID, Method, register_method

__all__ = ["D_GRID", "SVMCA_FIXED", "svmca_fold_evaluator"]

#: Gu & Guo (2012) grid of the reduced dimension d.
D_GRID = [2, 3, 5, 8, 13, 21, 34, 55]
#: Settings of every SVMCA the study builds (``normalize=False``: the paper's
#: reading, ``K0`` as given; the default is ``normalize=True``).
SVMCA_FIXED = {"excess_components": "clamp", "normalize": False}


def _svmca(**params):
    from ....kernel_learning._svmca import SVMCA

    return SVMCA(**SVMCA_FIXED, **params)


def svmca_fold_evaluator(S_train, y_train, S_test, params_list, *, stats=None):
    """Predictions of SVM-CA for every grid point, sharing work: the estimator's grid
    path (:meth:`~proxlearn.kernel_learning.SVMCA.grid_predictions`, whose ``stats``
    this passes on)."""
    return _svmca(**params_list[0]).grid_predictions(S_train, y_train, S_test, params_list,
                                                     stats=stats)


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
