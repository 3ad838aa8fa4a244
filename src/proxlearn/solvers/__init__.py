"""Optimisation solvers used by proxlearn estimators.

* :func:`box_lasso` -- box-constrained lasso
  ``min 1/2 ||b - A x||^2 + eps ||x||_1  s.t. |x_j| <= C`` (the P-SVM problem,
  Chen 2010 eq. 2.8), with a duality-gap / KKT optimality certificate.
* :func:`solve_simplex_qp` -- batched exact solver of
  ``min 1/2 x^T Q x - c^T x  s.t. x >= 0, 1^T x = 1`` (the KRI weights of
  Chen et al. 2009 eq. 12), with KKT residuals.
* :func:`max_trace_psd_ball` -- closed-form ``max tr(A K) s.t. K PSD,
  tr(K^p) <= B`` (the K-step of SimpleNPKL / Zhuang 2011 Protocol 5).
* :func:`dual_ascent` -- projected gradient ascent on a dual whose inner step has
  a closed form, to a certified duality gap (the alpha-step of SimpleNPKL, the
  embeddings and NPK ranking).
* :func:`armijo_backtrack` -- Armijo backtracking along a projected-gradient path
  or a feasible direction (the line searches of the MKL solvers).
* :class:`SolverResult` -- the result type of every solver (a
  :class:`scipy.optimize.OptimizeResult` with aliases and a readable repr).
"""

from ._box_lasso import (
    BoxLassoResult,
    box_lasso,
    box_lasso_duality_gap,
    box_lasso_kkt_residual,
    box_lasso_objective,
)
from ._dual_ascent import DualAscentResult, dual_ascent
from ._result import SolverResult
from ._line_search import LineSearchResult, armijo_backtrack
from ._psd_ball import max_trace_psd_ball
from ._simplex_qp import (
    SimplexQPConvergenceWarning,
    project_capped_simplex,
    project_simplex,
    simplex_qp_kkt_residual,
    simplex_qp_objective,
    solve_simplex_qp,
)

__all__ = [
    "BoxLassoResult",
    "DualAscentResult",
    "LineSearchResult",
    "armijo_backtrack",
    "box_lasso",
    "box_lasso_duality_gap",
    "box_lasso_kkt_residual",
    "box_lasso_objective",
    "dual_ascent",
    "max_trace_psd_ball",
    "project_capped_simplex",
    "project_simplex",
    "simplex_qp_kkt_residual",
    "simplex_qp_objective",
    "solve_simplex_qp",
    "SimplexQPConvergenceWarning",
    "SolverResult",
]
