"""Shared base classes: the pairwise tag and the similarity-classifier skeleton.

Every proxlearn estimator is fitted on an n x n training similarity matrix and
applied to an m x n test-to-train matrix, like scikit-learn's
``kernel="precomputed"``. :class:`PairwiseMixin` sets scikit-learn's
``input_tags.pairwise`` tag so that ``cross_val_score``, ``GridSearchCV``,
``Pipeline`` and ``OneVsOneClassifier`` slice rows *and* columns.
"""

from __future__ import annotations

from sklearn.base import OneToOneFeatureMixin
from sklearn.utils import get_tags

__all__ = ["FEATURE_CHECK_EXCEPTIONS", "SKLEARN_CHECK_EXCEPTIONS", "FeatureMixin", "PairwiseMixin",
           "SampleColumnsMixin", "is_pairwise", "row_chunks"]

#: Working-memory budget of one chunk of test rows in the local methods.
CHUNK_BYTES = 64 * 2**20


class PairwiseMixin:
    """Mark an estimator as taking precomputed pairwise (similarity) input."""

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.pairwise = True
        return tags


class SampleColumnsMixin(OneToOneFeatureMixin):
    """``get_feature_names_out`` of a transformer whose output columns are the training
    samples, like its input's (a kernel or similarity row per test sample): the input's
    column names (a DataFrame's, else ``x0, x1, ...``), so that ``set_output`` and
    ``Pipeline.get_feature_names_out`` work."""


class FeatureMixin:
    """Mark an estimator as taking feature vectors ``(n_samples, n_features)``:
    not pairwise, and sparse input accepted (densified by
    :func:`proxlearn._validation.check_features`)."""

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.pairwise = False
        tags.input_tags.sparse = True
        return tags


def is_pairwise(estimator) -> bool:
    """True when scikit-learn will slice ``estimator``'s input as a square matrix.

    Works for proxlearn estimators and for scikit-learn meta-estimators
    (``Pipeline``, ``GridSearchCV``, ``OneVsOneClassifier``) that forward the tag.
    """
    return bool(get_tags(estimator).input_tags.pairwise)


def row_chunks(m: int, bytes_per_row: int, budget: int | None = None):
    """Slices of ``range(m)`` whose working memory stays under ``budget`` bytes
    (default :data:`CHUNK_BYTES`, read at call time)."""
    budget = CHUNK_BYTES if budget is None else budget
    rows = max(1, min(m, budget // max(1, int(bytes_per_row))))
    for start in range(0, m, rows):
        yield slice(start, min(start + rows, m))


#: scikit-learn estimator checks that proxlearn fails on purpose, with the
#: reason (the policy of :mod:`proxlearn._validation`). Every estimator's
#: ``check_estimator`` test passes exactly this as ``expected_failed_checks``.
SKLEARN_CHECK_EXCEPTIONS = {
    "check_dtype_object": (
        "object arrays are rejected instead of being cast to float: a similarity "
        "matrix of Python objects is almost always a loading mistake"
    ),
    "check_fit2d_predict1d": (
        "a 1-D vector of length n_train is accepted as a single test row "
        "(its similarities to every training sample)"
    ),
}


#: The same for estimators on feature data (a ``KernelBank`` inside): 1-D input is
#: refused there, with scikit-learn's "Reshape your data" advice.
FEATURE_CHECK_EXCEPTIONS = {"check_dtype_object": SKLEARN_CHECK_EXCEPTIONS["check_dtype_object"]}
