"""Similarities as features: kernels on similarity feature vectors."""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.metrics.pairwise import euclidean_distances
from sklearn.utils.validation import check_is_fitted

from .._validation import (
    check_similarity,
    check_test_similarity,
    only_if,
    options,
    positive,
    validate_params,
)
from ..base import PairwiseMixin, SampleColumnsMixin

__all__ = ["FEATURE_KERNELS", "SimilarityFeatures"]

#: Supported kernels on similarity feature vectors.
FEATURE_KERNELS = ("linear", "rbf")


class SimilarityFeatures(PairwiseMixin, SampleColumnsMixin, TransformerMixin, BaseEstimator):
    """Kernel between similarity feature vectors (similarities as features).

    Chen et al. (2009), section 3: a sample ``x`` is represented by its vector
    ``s`` of similarities to the ``n`` training samples; training sample ``i``
    by row ``s_i`` of ``S`` (as given, **not** symmetrised).

    * ``"linear"``: ``K(x, x_j) = s^T s_j``, i.e. ``K = S S^T`` and
      ``K_test = S_test S^T``; an SVM on it is the linear SVM on similarity
      features of Chen et al. eq. (4) (Graepel et al. 1998) and equals the
      spectrum "square" kernel (section 2.1.5).
    * ``"rbf"``: ``K(x, x_j) = exp(-gamma ||s - s_j||^2)`` (Liao & Noble 2003).
      Squared distances come from scikit-learn's ``euclidean_distances`` and are
      clipped at 0; the training kernel has an exact unit diagonal.

    Parameters
    ----------
    kernel : {"linear", "rbf"}, default="linear"
    gamma : float, default=1.0
        RBF width (> 0); ignored by ``"linear"``. No feature scaling is applied
        (the paper uses none), so choose ``gamma`` relative to
        ``||s_i - s_j||^2``.

    Attributes
    ----------
    train_similarity_ : ndarray of shape (n, n)
        Training similarity rows (a private copy).
    n_features_in_ : int
        Number of training samples ``n``.

    Examples
    --------
    >>> import numpy as np
    >>> from proxlearn.transforms import SimilarityFeatures
    >>> S = np.array([[1.0, 0.5], [0.5, 1.0]])
    >>> SimilarityFeatures().fit_transform(S).tolist()
    [[1.25, 1.0], [1.0, 1.25]]
    >>> SimilarityFeatures("rbf", gamma=0.5).fit(S).transform(S[:1]).round(3).tolist()
    [[1.0, 0.779]]

    See Also
    --------
    SpectrumTransformer : ``method="square"`` gives the same kernel as ``"linear"``.
    proxlearn.svm.SimilaritySVC : an SVM on such a kernel.
    """

    _parameter_constraints = {
        "kernel": options(*FEATURE_KERNELS),
        "gamma": only_if(positive(), "kernel", "rbf"),
    }

    def __init__(self, kernel="linear", gamma=1.0):
        self.kernel = kernel
        self.gamma = gamma

    def fit(self, S, y=None):
        """Store the training similarity rows.

        Parameters
        ----------
        S : array-like of shape (n, n)
            Training similarities ``S[i, j] = psi(x_i, x_j)``, used as given.
        y : ignored

        Returns
        -------
        self
        """
        params = validate_params(self)
        kernel = params["kernel"]
        gamma = params["gamma"] if kernel == "rbf" else None
        arr = check_similarity(S, symmetric="allow")
        if isinstance(S, np.ndarray) and np.may_share_memory(arr, S):
            arr = arr.copy()
        self.train_similarity_ = arr
        self._kernel_name, self._gamma = kernel, gamma
        self.n_features_in_ = arr.shape[0]
        return self

    def _kernel(self, X):
        S = self.train_similarity_
        if self._kernel_name == "linear":
            return X @ S.T
        d2 = euclidean_distances(X, S, squared=True)
        np.maximum(d2, 0.0, out=d2)
        d2 *= -self._gamma
        return np.exp(d2, out=d2)

    def fit_transform(self, S, y=None):
        """Fit and return the ``n x n`` training kernel between rows of ``S``."""
        self.fit(S)
        return self._kernel(self.train_similarity_)

    def transform(self, S_test):
        """Kernel between test similarity rows and training rows.

        Parameters
        ----------
        S_test : array-like of shape (m, n)
            Similarities of each test sample to the training samples.

        Returns
        -------
        K_test : ndarray of shape (m, n)
        """
        check_is_fitted(self, "n_features_in_")
        X = check_test_similarity(S_test, self.n_features_in_)
        return self._kernel(X)
