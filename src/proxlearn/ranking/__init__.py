"""Ranking with similarity kernels (Zhuang 2011, chapter 6).

* :func:`visual_rank`: the damped VisualRank random walk on a kernel graph.
* :func:`npk_rank`: the semantics-preserving NPK of eq. 6.2 by Protocol 5
  (certified duality gap), :func:`npk_rank_sdp` its cvxpy oracle,
  :func:`npk_rank_lowrank` the low-rank form from features without any
  ``n x n`` matrix (large candidate sets).
* :class:`NPKReranker`: the estimator: learn the kernel from a visual
  similarity and the tags, VisualRank the items, score unseen items through
  kernel warping (eq. 6.9).

Tie strength (chapter 7): :func:`pair_kernel` over ordered pairs of users
(the thesis's difference kernel, or the symmetric tensor kernel),
:func:`sample_tie_pairs` (sec. 7.4.2) and :class:`KernelLogisticRegression`
(eq. 7.3); the user kernels come from :mod:`proxlearn.pairwise` and are
combined by :func:`proxlearn.mkl.alignf`.

The dependence measures used to learn ranking kernels, :func:`proxlearn.metrics.hsic`
and :func:`proxlearn.metrics.centered_alignment`, live in :mod:`proxlearn.metrics`.
"""

from ._npk import (
    NPKRankResult,
    laplacian_basis,
    neighbour_pairs,
    npk_rank,
    npk_rank_lowrank,
    npk_rank_sdp,
)
from ._logistic import KernelLogisticRegression, kernel_logistic_objective
from ._pairs import pair_kernel, sample_tie_pairs
from ._ranker import NPKReranker, kernel_affinity, kernel_distances, label_kernel
from ._visual_rank import visual_rank

__all__ = [
    "KernelLogisticRegression",
    "NPKRankResult",
    "NPKReranker",
    "kernel_affinity",
    "kernel_distances",
    "label_kernel",
    "laplacian_basis",
    "kernel_logistic_objective",
    "neighbour_pairs",
    "npk_rank",
    "npk_rank_lowrank",
    "npk_rank_sdp",
    "pair_kernel",
    "sample_tie_pairs",
    "visual_rank",
]
