"""Ranking with similarity kernels (Zhuang 2011, chapter 6).

* :func:`visual_rank`: the damped VisualRank random walk on a kernel graph.
* :func:`npk_rank`: the semantics-preserving NPK of eq. 6.2 by Protocol 5
  (certified duality gap), :func:`npk_rank_sdp` its cvxpy oracle.
* :class:`NPKReranker`: the estimator: learn the kernel from a visual
  similarity and the tags, VisualRank the items, score unseen items through
  kernel warping (eq. 6.9).

The dependence measures used to learn ranking kernels, :func:`proxlearn.metrics.hsic`
and :func:`proxlearn.metrics.centered_alignment`, live in :mod:`proxlearn.metrics`.
"""

from ._npk import NPKRankResult, laplacian_basis, neighbour_pairs, npk_rank, npk_rank_sdp
from ._ranker import NPKReranker, kernel_distances, label_kernel
from ._visual_rank import visual_rank

__all__ = [
    "NPKRankResult",
    "NPKReranker",
    "kernel_distances",
    "label_kernel",
    "laplacian_basis",
    "neighbour_pairs",
    "npk_rank",
    "npk_rank_sdp",
    "visual_rank",
]
