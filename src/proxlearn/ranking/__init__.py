"""Ranking with similarity kernels (Zhuang 2011, chapter 6).

* :func:`visual_rank`: the damped VisualRank random walk on a kernel graph.

The dependence measures used to learn ranking kernels, :func:`proxlearn.metrics.hsic`
and :func:`proxlearn.metrics.centered_alignment`, live in :mod:`proxlearn.metrics`.
"""

from ._visual_rank import visual_rank

__all__ = ["visual_rank"]
