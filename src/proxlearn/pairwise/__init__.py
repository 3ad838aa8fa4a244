"""Similarity builders from raw objects.

* :func:`pairwise_similarity`: edit distances (rapidfuzz), alignment scores
  (parasail), DTW (dtaidistance), Jaccard / Tanimoto and any callable, by
  blocks, in parallel or on a Dask cluster, in memory or resumably on disk
  (:data:`METRICS` lists the measures and whether each is a similarity or a
  dissimilarity).
* :func:`read_objects`: FASTA, one-string-per-line text and CSV time series,
  with their labels (the input of ``proxlearn similarity``).
* User-similarity kernels from tables (Zhuang 2011, sec. 7.2.2): shared
  items, comments, tf-idf tags, image-histogram centroids, and the thesis's
  preprocessing (:func:`preprocess_user_kernel`).
"""

from ._builders import metric_kind, pairwise_similarity
from ._metrics import METRICS, Metric, get_metric
from ._readers import ObjectFile, read_objects
from ._social import (
    SOCIAL_KERNEL_NAMES,
    centroid_rbf_kernel,
    comment_kernel,
    cooccurrence_kernel,
    preprocess_user_kernel,
    social_user_kernels,
    tfidf_cosine_kernel,
)

__all__ = [
    "METRICS",
    "Metric",
    "ObjectFile",
    "get_metric",
    "metric_kind",
    "pairwise_similarity",
    "read_objects",
    "SOCIAL_KERNEL_NAMES",
    "centroid_rbf_kernel",
    "comment_kernel",
    "cooccurrence_kernel",
    "preprocess_user_kernel",
    "social_user_kernels",
    "tfidf_cosine_kernel",
]
