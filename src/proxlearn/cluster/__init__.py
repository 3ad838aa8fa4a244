"""Clustering with kernels and pairwise side information (Zhuang 2011, chapter 3).

* :class:`PairwiseConstraints`: must-link (+1) / cannot-link (-1) pairs over
  ``n`` points, to and from the symmetric constraint matrix ``T`` (eq. 3.1);
  :func:`make_pairwise_constraints`: the thesis's generator (random pairs
  labelled from ``y`` until the constraint graph has about ``r * N``
  connected components; must-link components by default -- see its docstring).
* :class:`KernelKMeans`: k-means in the feature space of a precomputed kernel
  (``fit(K)``, ``predict(K_test)`` with ``K_test`` of shape ``(m, n_train)``):
  how the thesis evaluates learned kernels.
* :class:`ConstrainedKMeans`: COP-k-means on features, the thesis's "ck-means"
  baseline (``fit(X, constraints)``). Plain k-means is scikit-learn's
  :class:`sklearn.cluster.KMeans`.
* :func:`rand_index`: the thesis's clustering accuracy (pairwise Rand index
  x 100); :func:`clustering_report` adds the adjusted Rand index and NMI.
"""

from .._constraints import (
    COUNT_EDGES,
    PairwiseConstraints,
    check_pairwise_constraints,
    make_pairwise_constraints,
)
from ._kernel_kmeans import ConstrainedKMeans, KernelKMeans
from ._metrics import clustering_report, rand_index

__all__ = [
    "COUNT_EDGES",
    "ConstrainedKMeans",
    "KernelKMeans",
    "PairwiseConstraints",
    "check_pairwise_constraints",
    "clustering_report",
    "make_pairwise_constraints",
    "rand_index",
]
