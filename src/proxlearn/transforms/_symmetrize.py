"""Symmetrisation of similarity matrices, including test rows."""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.utils.validation import check_is_fitted

from .._validation import (
    TestMatrixError,
    check_similarity,
    check_test_similarity,
    symmetrize,
)
from ..base import PairwiseMixin, SampleColumnsMixin

__all__ = ["Symmetrize"]


class Symmetrize(PairwiseMixin, SampleColumnsMixin, TransformerMixin, BaseEstimator):
    """Replace a similarity by its symmetric part ``(psi(a, b) + psi(b, a)) / 2``.

    Chen et al. (2009), section 2.1: kernel methods use ``(S + S^T) / 2``; this
    leaves the SVM dual objective unchanged because
    ``a^T (S + S^T) / 2 a = a^T S a``. Section 7.2: neighbour search uses the
    symmetrised test similarity ``(psi(x, x_i) + psi(x_i, x)) / 2``, which needs
    the similarities in *both* directions.

    ``fit_transform(S)`` returns ``(S + S^T) / 2``. ``transform(S_test,
    S_test_T)`` averages the test-to-train rows with the train-to-test
    similarities; without ``S_test_T`` the test rows are returned unchanged
    (a test row alone does not determine its symmetrised version, so this is
    only exact for symmetric similarity functions). No warning is issued:
    symmetrising is what this transformer is for.

    Attributes
    ----------
    n_features_in_ : int
        Number of training samples ``n``.

    Examples
    --------
    >>> import numpy as np
    >>> from proxlearn.transforms import Symmetrize
    >>> S = np.array([[1.0, 0.2], [0.6, 1.0]])
    >>> Symmetrize().fit_transform(S).tolist()
    [[1.0, 0.4], [0.4, 1.0]]

    See Also
    --------
    SpectrumTransformer : symmetrises before modifying the spectrum.
    """

    def fit(self, S, y=None):
        """Record the number of training samples.

        Parameters
        ----------
        S : array-like of shape (n, n)
            Training similarities (or dissimilarities).
        y : ignored

        Returns
        -------
        self
        """
        arr = check_similarity(S, symmetric="allow", dissimilarity_check=False)
        self.n_features_in_ = arr.shape[0]
        return self

    def fit_transform(self, S, y=None):
        """Fit and return the symmetric part ``(S + S^T) / 2`` of ``S``."""
        arr = check_similarity(S, symmetric="allow", dissimilarity_check=False)
        self.n_features_in_ = arr.shape[0]
        return symmetrize(arr)

    def transform(self, S_test, S_test_T=None):
        """Symmetrise test-to-train similarities.

        Parameters
        ----------
        S_test : array-like of shape (m, n)
            ``S_test[i, j] = psi(x_i^test, x_j)``.
        S_test_T : array-like of shape (n, m), optional
            Train-to-test similarities ``S_test_T[j, i] = psi(x_j, x_i^test)``.
            When given, the result is ``(S_test + S_test_T.T) / 2``; when omitted
            ``S_test`` is returned unchanged (as a copy).

        Returns
        -------
        S_sym : ndarray of shape (m, n)
        """
        check_is_fitted(self, "n_features_in_")
        n = self.n_features_in_
        arr = check_test_similarity(S_test, n)
        if S_test_T is None:
            return np.array(arr, dtype=np.float64, copy=True)
        other = check_similarity(
            S_test_T, name="S_test_T", square=False, dissimilarity_check=False
        )
        if other.shape != (n, arr.shape[0]):
            raise TestMatrixError(
                f"S_test_T has shape {other.shape} but must be ({n}, "
                f"{arr.shape[0]}): the similarities from each of the {n} training "
                f"samples to each of the {arr.shape[0]} test samples (the "
                "transpose layout of S_test)."
            )
        return 0.5 * (arr + other.T)
