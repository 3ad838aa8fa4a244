"""Embeddings by kernel learning (Zhuang 2011 sec. 3.4): MVE, SPE and colored MVU.

* :class:`MVE`: Minimum Volume Embedding (Shaw & Jebara 2007); ``solver="npkl"``
  (the SimpleNPKL template) or ``"sdp"`` (the original, cvxpy).
* :class:`SPE`: Structure Preserving Embedding (Shaw & Jebara 2009);
  ``solver="npkl"`` (capped-simplex duals, working set of violated triplets) or
  ``"sdp"`` (the original, cvxpy with cutting planes).
* :class:`CMVU`: colored MVU (Song et al. 2007), ``fit(X, y)``; ``solver="npkl"``
  or ``"lowrank"`` (the published ``K = V P V^T`` approximation).
* :func:`kernel_embedding`: ``sqrt(lambda_i) u_i`` from the top eigenpairs of a
  kernel (the read-off of every estimator here; KPCA of a centred kernel --
  scikit-learn's ``KernelPCA(kernel="precomputed")`` is the KPCA baseline).
* :func:`mve_step_sdp`, :func:`spe_sdp`, :func:`cmvu_lowrank_sdp`,
  :func:`spe_npkl`: the cvxpy forms (originals and test oracles) and the SPE
  template solver.
* :func:`connected_knn_graph`: the union k-NN graph of the embeddings, joined into
  one component (``knn_graph`` is its deprecated name).

Input rule: ``kernel="linear"`` takes a feature matrix (k-NN graph and squared
Euclidean distances of the rows); ``kernel="precomputed"`` takes an ``n x n``
kernel ``K`` (distances ``K_ii + K_jj - 2 K_ij`` of its PSD part, neighbours by
those distances). Every estimator has ``fit``, ``fit_transform -> (n,
n_components)``, ``embedding_``, ``kernel_``, ``objective_history_``, ``n_iter_``.
There is no out-of-sample ``transform`` (the methods are transductive).
"""

from ._base import connected_knn_graph, embedding_input, kernel_embedding, knn_graph
from ._embeddings import CMVU, MVE, SPE, spe_npkl
from ._sdp import MAX_SDP_N, cmvu_lowrank_sdp, mve_step_sdp, spe_sdp

__all__ = [
    "CMVU",
    "MAX_SDP_N",
    "MVE",
    "SPE",
    "cmvu_lowrank_sdp",
    "connected_knn_graph",
    "embedding_input",
    "kernel_embedding",
    "knn_graph",
    "mve_step_sdp",
    "spe_npkl",
    "spe_sdp",
]
