"""Clustering with kernels and pairwise side information (Zhuang 2011, chapter 3).

The pairwise-constraint family in one place: the constraints, the kNN graph and its
Laplacian, the kernels learned from them, and the clusterings that use them.

* :class:`PairwiseConstraints`: must-link (+1) / cannot-link (-1) pairs over
  ``n`` points, to and from the symmetric constraint matrix ``T`` (eq. 3.1);
  :func:`make_pairwise_constraints`: the thesis's generator (random pairs
  labelled from ``y`` until the constraint graph has about ``r * N``
  connected components; must-link components by default -- see its docstring).
* :func:`knn_graph`, :func:`knn_laplacian`: the mutual kNN graph of the points and
  its Laplacian ``L`` (eq. 3.2-3.3), the regulariser ``tr(L K)``.
* :class:`SimpleNPKL`, :class:`NPKL`: a kernel over the given points learned
  from the constraints and ``L``, by closed forms and dual ascent or as a cvxpy SDP
  (Zhuang 2011 sections 3.1-3.2; Hoi, Jin & Lyu 2007); :class:`SimpleNPKLCV`
  chooses ``C`` by cross-validation over the constraints
  (:func:`held_out_agreement`: how well a kernel k-means clustering keeps the
  held-out pairs, or :func:`held_out_auc`; :func:`constraint_groups`: the number
  of groups the constraints ask for).
* :class:`KernelKMeans`: k-means in the feature space of a precomputed kernel
  (``fit(K)``, ``predict(K_test)`` with ``K_test`` of shape ``(m, n_train)``):
  how the thesis evaluates learned kernels.
* :class:`ConstrainedKMeans`: COP-k-means on features, the thesis's "ck-means"
  baseline (``fit(X, constraints)``). Plain k-means is scikit-learn's
  :class:`sklearn.cluster.KMeans`.
* :func:`rand_index`: the thesis's clustering accuracy (pairwise Rand index
  x 100); :func:`clustering_report` adds the adjusted Rand index and NMI.
"""

from ._constraints import (
    COUNT_EDGES,
    PairwiseConstraints,
    check_pairwise_constraints,
    make_pairwise_constraints,
)
from ._kernel_kmeans import ConstrainedKMeans, KernelKMeans
from ._laplacian import knn_graph, knn_laplacian
from ._metrics import clustering_report, rand_index
from ._npkl import NPKL, SimpleNPKL
from ._npkl_cv import SimpleNPKLCV, constraint_groups, held_out_agreement, held_out_auc

__all__ = [
    "COUNT_EDGES",
    "ConstrainedKMeans",
    "KernelKMeans",
    "NPKL",
    "PairwiseConstraints",
    "SimpleNPKL",
    "SimpleNPKLCV",
    "check_pairwise_constraints",
    "clustering_report",
    "constraint_groups",
    "held_out_agreement",
    "held_out_auc",
    "knn_graph",
    "knn_laplacian",
    "make_pairwise_constraints",
    "rand_index",
]
