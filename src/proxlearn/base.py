"""Shared base classes: the pairwise tag and the similarity-classifier skeleton.

Every proxlearn estimator is fitted on an n x n training similarity matrix and
applied to an m x n test-to-train matrix, like scikit-learn's
``kernel="precomputed"``. :class:`PairwiseMixin` sets scikit-learn's
``input_tags.pairwise`` tag so that ``cross_val_score``, ``GridSearchCV``,
``Pipeline`` and ``OneVsOneClassifier`` slice rows *and* columns.
"""

from __future__ import annotations

from sklearn.utils import get_tags

__all__ = ["PairwiseMixin", "is_pairwise"]


class PairwiseMixin:
    """Mark an estimator as taking precomputed pairwise (similarity) input."""

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.pairwise = True
        return tags


def is_pairwise(estimator) -> bool:
    """True when scikit-learn will slice ``estimator``'s input as a square matrix.

    Works for proxlearn estimators and for scikit-learn meta-estimators
    (``Pipeline``, ``GridSearchCV``, ``OneVsOneClassifier``) that forward the tag.
    """
    return bool(get_tags(estimator).input_tags.pairwise)
