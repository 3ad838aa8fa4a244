"""Local outlier factor on the distances a similarity induces.

==========================  ==================================================
step                        what is computed
==========================  ==================================================
distances (training)        ``d_ij = sqrt(max(s_ii + s_jj - 2 s_ij, 0))``, the
                            distance of the feature space of a PSD ``S``
distances (test rows)       ``d_tj = sqrt(max(psi_t + s_jj - 2 s_tj, 0))`` with
                            the test self-similarity ``psi_t`` given, or the
                            mean training self-similarity (exact for the
                            unit-diagonal similarities of the UW sets)
local outlier factor        Breunig et al. (2000): k-distance, reachability
                            distance, local reachability density and LOF,
                            by :class:`sklearn.neighbors.LocalOutlierFactor`
                            with ``metric="precomputed"`` on ``d``
==========================  ==================================================

References
----------
Breunig, Kriegel, Ng, Sander (2000), "LOF: identifying density-based local
outliers", SIGMOD: definitions 3-7 (k-distance, reachability distance, local
reachability density, LOF). The distance ``s_ii + s_jj - 2 s_ij`` is the
squared distance in the feature space of a kernel (for an indefinite
similarity it can be negative, clipped at 0 as in
:func:`proxlearn.ranking.kernel_distances` and the k-means++ landmarks of
:class:`proxlearn.kernel_approximation.NystroemSpectrum`). With a constant
diagonal ``d`` is decreasing in ``s``, so the ``k`` nearest neighbours are the
``k`` most similar training samples, those of
:class:`~proxlearn.neighbors.SimilarityKNeighborsClassifier`.

Nothing of LOF is hand-written: the estimator computes ``d`` and hands it to
scikit-learn, so its scores equal scikit-learn's on the same distances
(tested); docs/methods.md, "Novelty and outlier detection on similarities".
"""

from __future__ import annotations

import numbers
import warnings

import numpy as np
from sklearn.base import BaseEstimator, OutlierMixin
from sklearn.neighbors import LocalOutlierFactor
from sklearn.utils.metaestimators import available_if
from sklearn.utils.validation import check_is_fitted

from .._validation import (
    SimilarityMatrixError,
    TestMatrixError,
    boolean,
    check_similarity,
    check_test_similarity,
    integer,
    options,
    satisfies,
    validate_params,
)
from ..base import PairwiseMixin

__all__ = ["SimilarityLocalOutlierFactor", "similarity_distances"]


def similarity_distances(S, diag_rows, diag_cols):
    """Distances ``sqrt(max(a_i + b_j - 2 S_ij, 0))`` induced by similarities.

    Parameters
    ----------
    S : ndarray of shape (m, n)
        Similarities of ``m`` row objects to ``n`` column objects.
    diag_rows : ndarray of shape (m,)
        Self-similarities ``a_i`` of the row objects.
    diag_cols : ndarray of shape (n,)
        Self-similarities ``b_j`` of the column objects.

    Returns
    -------
    ndarray of shape (m, n)

    Examples
    --------
    >>> import numpy as np
    >>> from proxlearn.neighbors import similarity_distances
    >>> S = np.array([[1.0, 0.5], [0.5, 1.0]])
    >>> similarity_distances(S, np.diag(S), np.diag(S)).tolist()
    [[0.0, 1.0], [1.0, 0.0]]

    See Also
    --------
    SimilarityLocalOutlierFactor : LOF on these distances.
    proxlearn.ranking.kernel_distances : the same on one symmetric matrix.
    """
    D = np.multiply(S, -2.0)
    D += diag_rows[:, None]
    D += diag_cols[None, :]
    np.maximum(D, 0.0, out=D)
    return np.sqrt(D, out=D)


def _is_contamination(value):
    return (isinstance(value, numbers.Real) and not isinstance(value, bool)
            and 0.0 < float(value) <= 0.5)


def _novelty(flag):
    def check(self):
        if bool(self.novelty) != flag:
            what = ("predict, decision_function and score_samples are available only with "
                    "novelty=True (new data against the fitted training set); use "
                    "fit_predict or negative_outlier_factor_ for the training samples"
                    if flag else
                    "fit_predict is not available with novelty=True; use novelty=False "
                    "to label the training samples")
            raise AttributeError(what)
        return True
    return check


class SimilarityLocalOutlierFactor(PairwiseMixin, OutlierMixin, BaseEstimator):
    """Local outlier factor (Breunig et al. 2000) on a precomputed similarity matrix.

    The similarity induces distances ``d_ij = sqrt(max(s_ii + s_jj - 2 s_ij, 0))``
    (the feature-space distance when ``S`` is PSD); LOF compares the local
    reachability density of each sample with that of its ``n_neighbors``
    nearest neighbours (:class:`sklearn.neighbors.LocalOutlierFactor` with
    ``metric="precomputed"`` on ``d``, whose contract this follows:
    ``novelty=False`` labels the training samples, ``fit_predict`` and
    ``negative_outlier_factor_``; ``novelty=True`` scores new test rows,
    ``predict``, ``decision_function``, ``score_samples``).

    Parameters
    ----------
    n_neighbors : int, default=20
        Neighbourhood size (scikit-learn's default). More than ``n - 1`` is
        reduced to ``n - 1`` with a warning (``n_neighbors_``), as scikit-learn.
    contamination : "auto" or float in (0, 0.5], default="auto"
        Expected fraction of outliers, which sets ``offset_``: ``"auto"`` is
        Breunig et al.'s threshold (``offset_ = -1.5``); a float puts ``offset_``
        at that percentile of the training scores.
    novelty : bool, default=False
        ``False``: outlier detection on the training samples. ``True``: novelty
        detection of test rows (``predict`` etc.); do not pass training rows
        then: a training sample given as a test row is its own nearest
        neighbour at distance 0 (scikit-learn's documented behaviour).

    Attributes
    ----------
    negative_outlier_factor_ : ndarray of shape (n,)
        ``-LOF`` of the training samples (each without itself as a neighbour).
    offset_ : float
        ``decision_function = score_samples - offset_``.
    n_neighbors_ : int
        The neighbourhood size used.
    self_similarity_ : float
        Mean training self-similarity ``tr S / n``, the ``psi`` of test rows
        given without their own.
    lof_ : sklearn.neighbors.LocalOutlierFactor
        Fitted on the training distances.
    n_features_in_ : int
        Number of training samples.

    Notes
    -----
    LOF is scale-free: a factor ``c > 0`` on ``S`` multiplies every distance
    by ``sqrt(c)`` and leaves every outlier factor unchanged. Training rows:
    with ``novelty=False``, ``negative_outlier_factor_`` is the LOF of each
    training sample among the others (Breunig et al.'s definition); with
    ``novelty=True`` the same holds and ``score_samples`` of a training row
    differs from it, since that row finds itself at distance 0.

    Examples
    --------
    >>> import numpy as np
    >>> from proxlearn.neighbors import SimilarityLocalOutlierFactor
    >>> X = np.vstack([np.random.default_rng(0).normal(size=(30, 2)), [[8.0, 8.0]]])
    >>> S = np.exp(-((X[:, None] - X[None]) ** 2).sum(-1) / 4)
    >>> SimilarityLocalOutlierFactor(n_neighbors=10).fit_predict(S)[-3:].tolist()
    [1, 1, -1]
    >>> det = SimilarityLocalOutlierFactor(n_neighbors=10, novelty=True).fit(S[:30, :30])
    >>> det.predict(S[30:, :30]).tolist()
    [-1]

    See Also
    --------
    similarity_distances : the distances.
    SimilarityKNeighborsClassifier : the k-NN classifier on the same neighbours.
    proxlearn.svm.SimilarityOneClassSVM : a one-class SVM on the similarity.
    sklearn.neighbors.LocalOutlierFactor : the same on feature vectors.
    """

    _parameter_constraints = {
        "n_neighbors": integer(1),
        "contamination": options("auto") | satisfies(_is_contamination,
                                                     "a number in (0, 0.5]"),
        "novelty": boolean("True scores new test rows; False labels the training samples."),
    }

    def __init__(self, n_neighbors=20, *, contamination="auto", novelty=False):
        self.n_neighbors = n_neighbors
        self.contamination = contamination
        self.novelty = novelty

    def fit(self, S, y=None):
        """Fit on the ``n x n`` training similarity matrix.

        Parameters
        ----------
        S : array-like of shape (n, n)
            Training similarities (asymmetric input is replaced by
            ``(S + S^T) / 2`` with a warning).
        y : ignored

        Returns
        -------
        self
        """
        params = validate_params(self)
        arr = check_similarity(S, symmetric="symmetrize")
        n = arr.shape[0]
        if n < 2:
            raise SimilarityMatrixError(
                f"S has {n} sample; a local outlier factor needs at least 2 training "
                "samples (each is compared with its neighbours).")
        self._diag = np.diag(arr).copy()
        self.self_similarity_ = float(self._diag.mean())
        contamination = params["contamination"]
        self.lof_ = LocalOutlierFactor(
            n_neighbors=params["n_neighbors"], metric="precomputed",
            contamination=contamination if contamination == "auto" else float(contamination),
            novelty=params["novelty"])
        self.lof_.fit(similarity_distances(arr, self._diag, self._diag))
        self.negative_outlier_factor_ = self.lof_.negative_outlier_factor_
        self.offset_ = float(self.lof_.offset_)
        self.n_neighbors_ = int(self.lof_.n_neighbors_)
        self.n_features_in_ = n
        return self

    def _test_distances(self, S_test, self_similarity):
        check_is_fitted(self, "lof_")
        arr = check_test_similarity(S_test, self.n_features_in_)
        if self_similarity is None:
            if np.ptp(self._diag) > 1e-8 * max(np.max(np.abs(self._diag)), 1e-300):
                warnings.warn(
                    "the training self-similarities are not constant (from "
                    f"{self._diag.min():.3g} to {self._diag.max():.3g}) and the test rows' "
                    "own were not given: their distances use the mean training one, "
                    f"{self.self_similarity_:.3g}. Pass self_similarity=[s(x, x) of each "
                    "test sample] for exact distances.", UserWarning, stacklevel=3)
            psi = np.full(arr.shape[0], self.self_similarity_)
        else:
            psi = np.asarray(self_similarity, dtype=np.float64)
            if psi.ndim > 1 or psi.size not in (1, arr.shape[0]) or not np.all(np.isfinite(psi)):
                raise TestMatrixError(
                    "self_similarity must be a finite scalar or one value psi(x, x) per "
                    f"test row ({arr.shape[0]}), got shape {psi.shape}.")
            psi = np.broadcast_to(psi.reshape(-1), (arr.shape[0],))
        return similarity_distances(arr, psi, self._diag)

    @available_if(_novelty(True))
    def score_samples(self, S_test, self_similarity=None):
        """``-LOF`` of test rows against the training samples (higher is more normal).

        Parameters
        ----------
        S_test : array-like of shape (m, n)
            Similarities of new samples to the training samples.
        self_similarity : float or array-like of shape (m,), optional
            ``psi(x, x)`` of each test sample; default ``self_similarity_``, the
            mean training self-similarity (exact for a constant diagonal; a
            ``UserWarning`` says so when the training diagonal is not constant).

        Returns
        -------
        ndarray of shape (m,)
        """
        D = self._test_distances(S_test, self_similarity)  # checks the fit first
        return self.lof_.score_samples(D)

    @available_if(_novelty(True))
    def decision_function(self, S_test, self_similarity=None):
        """``score_samples(S_test) - offset_``: negative for outliers.

        Returns
        -------
        ndarray of shape (m,)
        """
        return self.score_samples(S_test, self_similarity) - self.offset_

    @available_if(_novelty(True))
    def predict(self, S_test, self_similarity=None):
        """``+1`` for inliers, ``-1`` for outliers (``decision_function < 0``).

        Returns
        -------
        ndarray of shape (m,)
        """
        return np.where(self.decision_function(S_test, self_similarity) < 0, -1, 1)

    @available_if(_novelty(False))
    def fit_predict(self, S, y=None):
        """Fit and label the training samples: ``-1`` where
        ``negative_outlier_factor_ < offset_``, else ``+1``.

        Returns
        -------
        ndarray of shape (n,)
        """
        self.fit(S)
        return np.where(self.negative_outlier_factor_ < self.offset_, -1, 1)
