"""Similarity-based nearest-neighbour classifiers (Chen et al. 2009, sections 5 and 7).

* :class:`SimilarityKNeighborsClassifier` -- k-NN with uniform, affinity, KRI or
  KRR weights, neighbours found from a precomputed test-to-train similarity
  matrix, local spectrum modification of each k x k neighbour matrix.
* :class:`SimilarityKNeighborsRegressor` -- the same weights for a real-valued
  target: the weighted mean of the neighbours' targets.
* :func:`kri_weights` / :func:`kri_weights_batch` -- kernel ridge interpolation
  weights (eq. 12), an exact simplex-constrained QP.
* :func:`krr_weights` / :func:`krr_weights_batch` / :func:`krr_weights_path` --
  kernel ridge regression weights (eq. 15), with ``pinv`` or a local spectrum
  modification; the path shares one eigendecomposition over a ``reg`` grid.
* :func:`normalize_krr_weights` -- the display normalisation of footnote 5.
* :class:`SimilarityLocalOutlierFactor` -- local outlier factor (Breunig et al.
  2000) on the distances the similarity induces; :func:`similarity_distances`.
* :class:`SVMKNN` -- local SVM on each test point's k neighbours (Zhang et al.
  2006; Chen et al. 2009 sec. 7) with a local clip/flip/shift.
"""

from ._knn import SimilarityKNeighborsClassifier
from ._regression import SimilarityKNeighborsRegressor
from ._outlier import SimilarityLocalOutlierFactor, similarity_distances
from ._svm_knn import SVMKNN
from ._weights import (
    KRI_SPECTRA,
    KRR_SPECTRA,
    kri_weights,
    kri_weights_batch,
    kri_weights_path,
    krr_weights,
    krr_weights_batch,
    krr_weights_path,
    normalize_krr_weights,
)

__all__ = [
    "KRI_SPECTRA",
    "KRR_SPECTRA",
    "SVMKNN",
    "SimilarityKNeighborsClassifier",
    "SimilarityKNeighborsRegressor",
    "SimilarityLocalOutlierFactor",
    "kri_weights",
    "kri_weights_batch",
    "kri_weights_path",
    "krr_weights",
    "krr_weights_batch",
    "krr_weights_path",
    "normalize_krr_weights",
    "similarity_distances",
]
