"""Ranking with similarity kernels (Zhuang 2011, chapter 6).

* :func:`visual_rank`: the damped VisualRank random walk on a kernel graph.
* :func:`npk_rank`: the semantics-preserving NPK of eq. 6.2 by Protocol 5
  (certified duality gap), :func:`npk_rank_sdp` its cvxpy oracle.

The dependence measures used to learn ranking kernels, :func:`proxlearn.metrics.hsic`
and :func:`proxlearn.metrics.centered_alignment`, live in :mod:`proxlearn.metrics`.
"""

from ._npk import NPKRankResult, laplacian_basis, neighbour_pairs, npk_rank, npk_rank_sdp
from ._visual_rank import visual_rank

__all__ = [
    "NPKRankResult",
    "laplacian_basis",
    "neighbour_pairs",
    "npk_rank",
    "npk_rank_sdp",
    "visual_rank",
]
