"""Similarity-based weighted k-nearest-neighbour regression.

Chen et al. (2009), section 5: the weights of a test sample's ``k`` nearest
neighbours (uniform, affinity, KRI eq. 12, KRR eq. 15) are defined from the
similarities alone, for any target; the classifier sums them per class (eq. 9),
the regressor takes the weighted mean of the neighbours' targets. The
neighbour search, the local spectrum modification and the weights are the
classifier's (:class:`~proxlearn.neighbors.SimilarityKNeighborsClassifier`,
:mod:`proxlearn.neighbors._weights`), shared, not copied.
"""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, RegressorMixin

from proxlearn._validation import (
    InvalidParameterError,
    check_n_neighbors,
    check_similarity,
    check_targets,
)
from proxlearn.base import PairwiseMixin

from ._knn import SimilarityKNeighborsClassifier

__all__ = ["SimilarityKNeighborsRegressor"]

_SHARED = SimilarityKNeighborsClassifier


class SimilarityKNeighborsRegressor(PairwiseMixin, RegressorMixin, BaseEstimator):
    """Weighted k-NN regression on a precomputed (possibly indefinite) similarity.

    For a test sample with neighbours ``x_1..x_k`` (the ``k`` largest entries of
    its test row) the prediction is ``y_bar + sum_i w_i (y_i - y_bar)``, with
    ``y_bar`` the mean training target and the weights of Chen et al. (2009),
    section 5:

    * ``"uniform"``: ``w_i = 1/k`` (the mean of the neighbours' targets);
    * ``"affinity"``: ``w_i`` proportional to ``max(psi(x, x_i), 0)``;
    * ``"kri"``: kernel ridge interpolation weights (eq. 12, non-negative, sum 1);
    * ``"krr"``: kernel ridge regression weights ``(S + reg I)^{-1} s`` (eq. 15),
      i.e. local kernel ridge regression of the centred targets.

    For weights summing to one the prediction is ``sum_i w_i y_i``; centring
    matters only for KRR, whose weights shrink towards the mean rather than
    towards 0. Parameters and their defaults are the classifier's.

    Parameters
    ----------
    n_neighbors : int, default=5
        Neighbourhood size k (at most the number of training samples).
    weights : {"uniform", "affinity", "kri", "krr"}, default="uniform"
    reg : float, default=1.0
        Ridge parameter of KRI and KRR (ignored by uniform / affinity).
    spectrum : {"clip", "flip", "shift", "none", "pinv"} or None, default=None
        Local spectrum modification; ``None``: ``"clip"`` for KRI and KRR. (The
        classifier's ``None`` is ``"pinv"`` for KRR, Chen et al.'s choice for
        classification, section 7.4; for regression the size of the weights
        matters and ``pinv`` weights are unstable: docs/methods.md.)
    transform_s : bool, default=True
        Consistent transform of the test similarities for clip and flip.

    Attributes
    ----------
    S_fit_ : ndarray of shape (n_train, n_train)
        The symmetrised training similarities.
    y_fit_ : ndarray of shape (n_train,)
        The training targets.
    y_mean_ : float
        Their mean.
    n_features_in_ : int
        Number of training samples.

    Examples
    --------
    >>> import numpy as np
    >>> from proxlearn.neighbors import SimilarityKNeighborsRegressor
    >>> x = np.linspace(0, 3, 30)
    >>> S = np.exp(-(x[:, None] - x[None, :]) ** 2)
    >>> reg = SimilarityKNeighborsRegressor(n_neighbors=3).fit(S, 2 * x)
    >>> reg.predict(S[[0, 15, 29]]).round(2).tolist()
    [0.21, 3.1, 5.79]

    See Also
    --------
    SimilarityKNeighborsClassifier : the classifier with the same weights.
    kri_weights_batch, krr_weights_batch : the KRI and KRR weights.
    proxlearn.kernel_ridge.SimilarityKernelRidge : global kernel ridge regression.
    sklearn.neighbors.KNeighborsRegressor : k-NN regression on distances.
    """

    _parameter_constraints = dict(_SHARED._parameter_constraints)

    def __init__(self, n_neighbors=5, weights="uniform", reg=1.0, spectrum=None,
                 transform_s=True):
        self.n_neighbors = n_neighbors
        self.weights = weights
        self.reg = reg
        self.spectrum = spectrum
        self.transform_s = transform_s

    def _resolved_params(self):
        """The classifier's validated parameters, except that ``spectrum=None`` means
        the local clip for KRR weights too (not ``"pinv"``, the classifier's default):
        a regressor uses the weights' size, and ``pinv`` weights blow up where a local
        eigenvalue nears ``-reg`` (docs/methods.md, "Regression on similarities")."""
        params = _SHARED._resolved_params(self)
        if self.spectrum is None and params["weights"] == "krr":
            if params["reg"] == 0.0:
                raise InvalidParameterError(
                    "reg must be > 0 for KRR weights with the regressor's default local "
                    "clip (the clipped local matrix can be singular); use "
                    "spectrum='pinv' for reg=0.")
            params["spectrum"] = "clip"
        return params

    # the neighbour search and the weights of the classifier (one implementation)
    _chunks = _SHARED._chunks
    _weights = _SHARED._weights
    _local_weights = _SHARED._local_weights
    _validate_test = _SHARED._validate_test
    _check_neighbors = _SHARED._check_neighbors
    _weights_path = _SHARED._weights_path
    _path_weights = _SHARED._path_weights
    kneighbors = _SHARED.kneighbors

    def fit(self, S, y):
        """Store the symmetrised training similarities and the targets.

        Parameters
        ----------
        S : array-like of shape (n_train, n_train)
            Training similarities (asymmetric input is symmetrised with a warning).
        y : array-like of shape (n_train,)
            Finite real-valued targets.

        Returns
        -------
        self
        """
        self._resolved_params()
        S = check_similarity(S, symmetric="symmetrize")
        y = check_targets(y, S.shape[0])
        check_n_neighbors(self.n_neighbors, S.shape[0])
        self.S_fit_ = S
        self.y_fit_ = y
        self.y_mean_ = float(y.mean())
        self.n_features_in_ = S.shape[0]
        return self

    def predict(self, S_test, S_train_test=None):
        """Predict targets: the weighted mean of the neighbours' targets.

        Parameters
        ----------
        S_test : array-like of shape (m, n_train)
            Similarities from each test sample to every training sample.
        S_train_test : array-like of shape (n_train, m), optional
            Train-to-test similarities; when given, the symmetrised test
            similarities are used (see ``SimilarityKNeighborsClassifier``).

        Returns
        -------
        y_pred : ndarray of shape (m,)
        """
        S_test, k = self._validate_test(S_test, S_train_test)
        out = np.empty(S_test.shape[0])
        for sl, nbrs, W in self._local_weights(S_test, k):
            out[sl] = self._combine(nbrs, W)
        return out

    def _combine(self, nbrs, W):
        """``y_bar + sum_i w_i (y_i - y_bar)`` per row of neighbours and weights."""
        return self.y_mean_ + np.einsum("ck,ck->c", W, self.y_fit_[nbrs] - self.y_mean_)

    def predict_from_neighbors(self, neighbors, similarities):
        """Predict from precomputed neighbour lists (most similar first).

        ``predict(S_test)`` equals ``predict_from_neighbors(*top_k_similar(S_test, k))``
        (:func:`proxlearn._graph.top_k_similar`); a search for ``k_max``
        serves every ``k <= k_max`` (``neighbors[:, :k]``), as for the classifier.

        Parameters
        ----------
        neighbors : ndarray of shape (m, k), int
        similarities : ndarray of shape (m, k)

        Returns
        -------
        y_pred : ndarray of shape (m,)
        """
        nbrs, sims = self._check_neighbors(neighbors, similarities)
        return self._combine(nbrs, self._weights(nbrs, sims, self._resolved_params()))

    def predict_path(self, neighbors, similarities, *, reg):
        """:meth:`predict_from_neighbors` for each value of ``reg``, sharing the local
        eigendecompositions of KRI / KRR (the grid-path protocol, docs/architecture.md):
        entry ``i`` equals ``set_params(reg=reg[i]).predict_from_neighbors(...)``.

        Returns
        -------
        list of ndarray of shape (m,)
        """
        nbrs, sims = self._check_neighbors(neighbors, similarities)
        return [self._combine(nbrs, W) for W in self._path_weights(nbrs, sims, reg)]
