"""Similarity builders from raw objects.

* User-similarity kernels from tables (Zhuang 2011, sec. 7.2.2): shared
  items, comments, tf-idf tags, image-histogram centroids, and the thesis's
  preprocessing (:func:`preprocess_user_kernel`).
"""

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
    "SOCIAL_KERNEL_NAMES",
    "centroid_rbf_kernel",
    "comment_kernel",
    "cooccurrence_kernel",
    "preprocess_user_kernel",
    "social_user_kernels",
    "tfidf_cosine_kernel",
]
