"""One similarity from several: a weighted combination of an ``(n, n, m)`` stack."""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.utils.validation import check_is_fitted

from .._multi_input import check_multi_similarity, check_multi_test
from .._validation import InvalidParameterError, unchecked
from ..base import PairwiseMixin, SampleColumnsMixin

__all__ = ["CombineSimilarities"]


class CombineSimilarities(PairwiseMixin, SampleColumnsMixin, TransformerMixin, BaseEstimator):
    """``sum_i w_i S_i`` of ``m`` similarity matrices over the same objects.

    The input convention of every multi-similarity method (matrices stacked on
    the last axis: ``(n, n, m)`` training, ``(n_test, n_train, m)`` test rows).
    ``weights=None`` is the uniform average (the "average kernel" baseline of
    Kundu et al. 2010 and of the MKL literature); a one-hot vector selects one
    matrix, so any single-matrix method can run on one matrix of a
    multi-similarity data set inside a ``Pipeline``. Training and test rows get
    the same weights, so the i-th training row maps to the i-th row of the
    combined training matrix exactly.

    Parameters
    ----------
    weights : array-like of shape (m,), or None
        Finite, non-negative, not all zero (a negative weight would silently
        turn a similarity into a dissimilarity). Not normalised.
    index : int or None
        Select matrix ``index`` (the weights one-hot; ``weights`` must be None).

    Attributes
    ----------
    weights_ : ndarray of shape (m,)
    n_features_in_ : int
        Number of training samples.
    n_kernels_ : int
        Number of matrices ``m``.

    Examples
    --------
    >>> import numpy as np
    >>> from proxlearn.transforms import CombineSimilarities
    >>> stack = np.stack([np.eye(3), np.ones((3, 3))], axis=-1)
    >>> CombineSimilarities().fit_transform(stack)[0].tolist()
    [1.0, 0.5, 0.5]
    >>> CombineSimilarities(index=1).fit(stack).weights_.tolist()
    [0.0, 1.0]

    See Also
    --------
    proxlearn.mkl : classifiers that learn the weights.
    proxlearn.datasets.MultiSimilarityDataset : data sets given as such stacks.
    """

    _parameter_constraints = {
        "weights": unchecked("None or m non-negative weights, checked with the stack in fit"),
        "index": unchecked("None or an integer in [0, m), checked with the stack in fit"),
    }

    def __init__(self, weights=None, index=None):
        self.weights = weights
        self.index = index

    def fit(self, X, y=None):
        Ss = check_multi_similarity(X, symmetric="allow")  # warns on a distance matrix
        m = Ss.shape[2]
        if self.index is not None:
            if self.weights is not None:
                raise InvalidParameterError("give weights or index, not both.")
            if isinstance(self.index, bool) or not isinstance(self.index, (int, np.integer)) \
                    or not 0 <= self.index < m:
                raise InvalidParameterError(
                    f"index must be an integer in [0, {m}) (X holds m = {m} matrices), "
                    f"got {self.index!r}.")
            w = np.eye(m)[int(self.index)]
        elif self.weights is None:
            w = np.full(m, 1.0 / m)
        else:
            w = np.asarray(self.weights, dtype=np.float64).ravel()
            if w.shape != (m,):
                raise InvalidParameterError(
                    f"weights has {w.size} entries but X holds m = {m} similarity matrices; "
                    "give one weight per matrix (last axis).")
            if not np.all(np.isfinite(w)) or np.any(w < 0) or not np.any(w > 0):
                raise InvalidParameterError(
                    f"weights must be finite, non-negative and not all zero, got {w.tolist()}.")
        self.weights_ = w
        self.n_features_in_ = Ss.shape[0]
        self.n_kernels_ = m
        self._train = Ss @ w
        return self

    def fit_transform(self, X, y=None):
        return self.fit(X, y)._train

    def transform(self, X):
        """Combine test-to-train rows ``(n_test, n_train, m)`` with the fitted weights."""
        check_is_fitted(self, "weights_")
        return check_multi_test(X, self.n_features_in_, self.n_kernels_) @ self.weights_
