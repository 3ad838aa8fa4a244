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
    """Mark an estimator as taking precomputed pairwise (similarity) input.

    Sets scikit-learn's ``input_tags.pairwise`` tag, so that model selection
    slices the rows and the columns of ``S``.

    See Also
    --------
    is_pairwise : Reads the tag.
    FeatureMixin : The tag of estimators on feature vectors.

    Examples
    --------
    >>> from sklearn.base import BaseEstimator
    >>> from proxlearn.base import PairwiseMixin, is_pairwise
    >>> class OnSimilarities(PairwiseMixin, BaseEstimator):
    ...     pass
    >>> is_pairwise(OnSimilarities())
    True
    """

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.pairwise = True
        return tags


class SampleColumnsMixin(OneToOneFeatureMixin):
    """``get_feature_names_out`` of a transformer whose output columns are the training
    samples, like its input's (a kernel or similarity row per test sample): the input's
    column names (a DataFrame's, else ``x0, x1, ...``), so that ``set_output`` and
    ``Pipeline.get_feature_names_out`` work.

    See Also
    --------
    proxlearn.transforms.SpectrumTransformer : A transformer that uses it.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.base import BaseEstimator, TransformerMixin
    >>> from proxlearn.base import SampleColumnsMixin
    >>> class Identity(SampleColumnsMixin, TransformerMixin, BaseEstimator):
    ...     def fit(self, S, y=None):
    ...         self.n_features_in_ = len(S)
    ...         return self
    ...     def transform(self, S):
    ...         return S
    >>> Identity().fit(np.eye(3)).get_feature_names_out().tolist()
    ['x0', 'x1', 'x2']
    """


class FeatureMixin:
    """Mark an estimator as taking feature vectors ``(n_samples, n_features)``:
    not pairwise, and sparse input accepted (densified by
    :func:`proxlearn._validation.check_features`).

    See Also
    --------
    PairwiseMixin : The tag of estimators on similarity matrices.

    Examples
    --------
    >>> from sklearn.base import BaseEstimator
    >>> from proxlearn.base import FeatureMixin, is_pairwise
    >>> class OnFeatures(FeatureMixin, BaseEstimator):
    ...     pass
    >>> is_pairwise(OnFeatures())
    False
    """

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.pairwise = False
        tags.input_tags.sparse = True
        return tags


def is_pairwise(estimator) -> bool:
    """True when scikit-learn will slice ``estimator``'s input as a square matrix.

    Works for proxlearn estimators and for scikit-learn meta-estimators
    (``Pipeline``, ``GridSearchCV``, ``OneVsOneClassifier``) that forward the tag.

    Parameters
    ----------
    estimator : estimator instance

    Returns
    -------
    bool

    See Also
    --------
    PairwiseMixin : Sets the tag.

    Examples
    --------
    >>> from sklearn.svm import SVC
    >>> from proxlearn.base import is_pairwise
    >>> from proxlearn.svm import SimilaritySVC
    >>> is_pairwise(SimilaritySVC()), is_pairwise(SVC())
    (True, False)
    """
    return bool(get_tags(estimator).input_tags.pairwise)


def row_chunks(m: int, bytes_per_row: int, budget: int | None = None):
    """Slices of ``range(m)`` whose working memory stays under ``budget`` bytes
    (default :data:`CHUNK_BYTES`, read at call time).

    Parameters
    ----------
    m : int
        Number of rows.
    bytes_per_row : int
        Working memory of one row.
    budget : int, optional
        Bytes per chunk (at least one row per chunk).

    Yields
    ------
    slice

    See Also
    --------
    proxlearn.neighbors : The local methods that predict test rows by chunks.

    Examples
    --------
    >>> from proxlearn.base import row_chunks
    >>> list(row_chunks(10, bytes_per_row=8, budget=32))
    [slice(0, 4, None), slice(4, 8, None), slice(8, 10, None)]
    """
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
