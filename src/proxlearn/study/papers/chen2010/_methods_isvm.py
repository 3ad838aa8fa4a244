"""Study method ``indefinite-svm`` (Luss & d'Aspremont 2007; Chen thesis eq. 5.8).

Grids: ``chen2009`` is the thesis's section 5.3.2 grid, C and rho in
{1e-3, ..., 1e3} (49 points); ``gu2012`` is Gu & Guo's {0.01, ..., 100} for
both (25 points).

The fold evaluator shares across the grid: one eigendecomposition of each
one-vs-one block of ``S`` per fold (all rank-one updates start from it), and
warm starts of ``alpha`` along the path (for each rho, C increasing: the
previous solution projected onto the new box; the first C of each rho starts
from the previous rho's solution at the same C).
"""

from __future__ import annotations


from ..._methods import GU_GRID, Method, _powers, register_method

__all__ = ["ISVM_GRID"]

#: Chen thesis section 5.3.2: C and rho in {1e-3, ..., 1e3}.
ISVM_GRID = _powers(-3, 3)


def _build(**params):
    from ....kernel_learning._indefinite_svm import PAPER_READING, IndefiniteSVM

    # the papers' reading (S as given, the reference code's test heuristic)
    return IndefiniteSVM(**{**PAPER_READING, **params})


def _evaluate(S_train, y_train, S_test, params_list):
    """Predictions for every (C, rho) of the grid: the estimator's grid path
    (:meth:`~proxlearn.kernel_learning.IndefiniteSVM.grid_predictions`: shared
    eigendecompositions and warm starts, see the module docstring)."""
    return _build(**params_list[0]).grid_predictions(S_train, y_train, S_test, params_list)


register_method(
    Method(
        "indefinite-svm",
        _build,
        {"chen2009": {"C": ISVM_GRID, "rho": ISVM_GRID}, "gu2012": {"C": GU_GRID, "rho": GU_GRID}},
        "Indefinite SVM, learned PSD kernel near S (Luss & d'Aspremont 2007; Chen thesis eq. 5.8)",
        evaluate=_evaluate,
    ),
    replace=True,
)
