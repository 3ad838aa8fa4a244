"""SVM on similarity feature vectors (similarities as features)."""

from __future__ import annotations

from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.svm import SVC

from .._validation import (
    check_labels,
    MAX_ITER_OR_NO_LIMIT,
    NORMALIZE,
    options,
    positive,
    unchecked,
    validate_params,
    check_sample_weight,
    check_similarity,
)
from ..base import PairwiseMixin
from .._svm._platt import PlattProbabilityMixin
from ..transforms._features import FEATURE_KERNELS, SimilarityFeatures
from .._svm._libsvm import MAX_ITER
from .._svm._transformed import TransformedSVCMixin

__all__ = ["SimilarityFeatureSVC"]


class SimilarityFeatureSVC(PairwiseMixin, PlattProbabilityMixin, TransformedSVCMixin, ClassifierMixin, BaseEstimator):
    """SVM on similarity feature vectors.

    Chen et al. (2009), section 3: each sample is represented by its vector of
    similarities to the training samples (rows of ``S``, as given, no
    symmetrisation). ``kernel="linear"`` is the linear SVM of eq. (4)
    (Graepel et al. 1998), solved in the dual with ``K = S S^T``;
    ``kernel="rbf"`` is the RBF SVM of Liao & Noble (2003),
    ``K_ij = exp(-gamma ||s_i - s_j||^2)``. Implemented as
    :class:`~proxlearn.transforms.SimilarityFeatures` followed by
    ``sklearn.svm.SVC(kernel="precomputed")`` (one-vs-one multiclass).

    Parameters
    ----------
    kernel : {"linear", "rbf"}, default="linear"
    C : float, default=1.0
        SVM regularisation (> 0).
    gamma : float, default=1.0
        RBF width (> 0), ignored by ``"linear"``.
    max_iter : int, default=10_000_000
        Iteration cap of libsvm's SMO (``-1``: none), see
        :data:`proxlearn._svm._libsvm.MAX_ITER`.
    probability, random_state : bool, default=False; int or None, default=None
        ``predict_proba`` by Platt scaling on an internal CV, see
        :class:`~proxlearn._svm._platt.PlattProbabilityMixin`.
    normalize : bool, default=True
        Divide ``S`` and the test rows by ``scale_ = tr S / n`` (1 for a
        unit-diagonal similarity) before forming the kernel, so that the
        linear kernel (quadratic in ``S``) and the RBF width are in fixed units
        and a positive factor on ``S`` leaves every prediction unchanged;
        ``False`` uses ``S`` as given (Chen et al. 2009). See
        :mod:`proxlearn._normalize`.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    scale_ : float
        The factor ``S`` was divided by (1.0 with ``normalize=False``).
    transformer_ : SimilarityFeatures
        Fitted on ``S / scale_``.
    svc_ : sklearn.svm.SVC
    n_iter_ : ndarray of shape (n_classes * (n_classes - 1) / 2,)
        libsvm's SMO iterations per one-vs-one problem.
    n_features_in_ : int

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from proxlearn.svm import SimilarityFeatureSVC
    >>> X, y = load_iris(return_X_y=True)
    >>> S = X @ X.T
    >>> clf = SimilarityFeatureSVC(kernel="rbf").fit(S, y)
    >>> clf.predict(S[25::50]).tolist(), round(clf.score(S, y), 2)
    ([0, 1, 2], 0.92)

    See Also
    --------
    proxlearn.transforms.SimilarityFeatures : the feature map used here.
    SimilaritySVC : similarities used as a kernel instead.
    LPMachine, PotentialSVM : sparse machines on the same features.
    """

    _parameter_constraints = {
        "kernel": options(*FEATURE_KERNELS),
        "C": positive(),
        "normalize": NORMALIZE,
        "max_iter": MAX_ITER_OR_NO_LIMIT,
        "gamma": unchecked("checked by SimilarityFeatures when kernel='rbf'"),
        "probability": unchecked("read as a truth value, as scikit-learn's SVC"),
        "random_state": unchecked("sklearn.utils.check_random_state, in the probability CV"),
    }

    def __init__(self, kernel="linear", C=1.0, gamma=1.0, max_iter=MAX_ITER, *, probability=False,
                 random_state=None, normalize=True):
        self.kernel = kernel
        self.C = C
        self.gamma = gamma
        self.max_iter = max_iter
        self.probability = probability
        self.random_state = random_state
        self.normalize = normalize

    def fit(self, S, y, sample_weight=None):
        """Fit on the ``n x n`` training similarity matrix and labels ``y``.

        ``sample_weight`` (n,), optional, weights each sample's hinge loss
        (libsvm rescales its ``C``): an integer weight equals repeating the
        sample in the SVM, a zero weight drops it from the SVM (its row still
        is a feature direction).
        """
        params = validate_params(self)
        arr = check_similarity(S, symmetric="allow", dissimilarity_check=False)
        classes, y_idx = check_labels(y, arr.shape[0])
        sample_weight = check_sample_weight(sample_weight, arr.shape[0])
        self.transformer_ = SimilarityFeatures(kernel=self.kernel, gamma=self.gamma)
        K = self.transformer_.fit_transform(self._fit_scale(arr, params["normalize"]))
        self._fit_svc(SVC(kernel="precomputed", C=params["C"], max_iter=params["max_iter"]), K,
                      classes[y_idx], sample_weight, checked=True)
        self.classes_ = self.svc_.classes_
        self.n_iter_ = self.svc_.n_iter_  # SMO iterations per one-vs-one problem
        self.n_features_in_ = arr.shape[0]
        return self._fit_probability(S, y, sample_weight)
