"""Probability calibration of any similarity classifier (pairwise-aware).

scikit-learn's :class:`~sklearn.calibration.CalibratedClassifierCV` slices
only the *rows* of its input in its internal cross-validation, so with a
precomputed similarity matrix the inner classifier receives a non-square
``(n_fold, n)`` block and refuses it. This meta-estimator does
the same job on similarity input (as its ``ensemble=True`` mode): per
stratified fold it fits a clone of the classifier on ``S[train][:, train]``,
fits Platt's sigmoid (or an isotonic regression) per class to its decision
values on the held-out rows ``S[test][:, train]``, and averages the
calibrated probabilities of the folds at prediction time, each fold reading
the columns of its own training samples.
"""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, MetaEstimatorMixin, clone
from sklearn.model_selection import StratifiedKFold
from sklearn.utils.validation import check_is_fitted

from .._validation import (
    InvalidParameterError,
    check_classification_data,
    integer,
    options,
    unchecked,
    validate_params,
    check_test_similarity,
)
from ..base import PairwiseMixin
from .._svm._platt import calibrated_proba, fit_calibrators, input_warnings_said

__all__ = ["SimilarityCalibratedClassifier"]


def _scores(model, S_test):
    """Decision values, or for a classifier without them its class probabilities
    (the positive column for two classes)."""
    if hasattr(model, "decision_function"):
        return model.decision_function(S_test)
    P = model.predict_proba(S_test)
    return P[:, 1] if P.shape[1] == 2 else P


class SimilarityCalibratedClassifier(PairwiseMixin, MetaEstimatorMixin, ClassifierMixin,
                                     BaseEstimator):
    """Calibrated class probabilities for a classifier on similarities.

    Parameters
    ----------
    estimator : classifier, default=None
        A proxlearn classifier (``fit(S, y)`` on an ``n x n`` matrix). ``None``
        uses :class:`~proxlearn.svm.SimilaritySVC`.
    method : {"sigmoid", "isotonic"}, default="sigmoid"
        Platt's sigmoid (:func:`~proxlearn._svm._platt.fit_platt_sigmoid`) or
        :class:`sklearn.isotonic.IsotonicRegression`, one per class (one-vs-rest,
        normalised).
    cv : int, default=5
        Stratified folds; each fold's classifier is calibrated on its held-out rows.
    random_state : int, RandomState instance or None, default=None
        ``None``: the folds are not shuffled (stratified folds in sample order, as
        :class:`sklearn.calibration.CalibratedClassifierCV` with an integer ``cv``),
        so two fits on the same data give the same model. An int or a
        ``RandomState`` shuffles the samples before the split, seeded by it.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    calibrated_ : list of (ndarray, classifier, list)
        Per fold, the training indices (columns read at prediction time), the
        classifier fitted on them and its calibrators (one per class column).
    n_features_in_ : int

    Examples
    --------
    >>> from proxlearn.datasets import load_dataset
    >>> from proxlearn.svm import SimilarityCalibratedClassifier, SimilaritySVC
    >>> d = load_dataset("synthetic-2")
    >>> clf = SimilarityCalibratedClassifier(SimilaritySVC(spectrum="flip"), cv=3,
    ...                                      random_state=0).fit(d.matrix, d.labels)
    >>> clf.predict_proba(d.matrix[:2]).shape
    (2, 3)

    See Also
    --------
    proxlearn._svm._platt.PlattProbabilityMixin : ``probability=True`` of the SVMs.
    sklearn.calibration.CalibratedClassifierCV : the same on feature vectors.
    """

    _parameter_constraints = {
        "method": options("sigmoid", "isotonic"),
        "cv": integer(2),
        "estimator": unchecked("a classifier; SimilaritySVC() when None"),
        "random_state": unchecked("sklearn.utils.check_random_state, in the folds"),
    }

    def __init__(self, estimator=None, *, method="sigmoid", cv=5, random_state=None):
        self.estimator = estimator
        self.method = method
        self.cv = cv
        self.random_state = random_state

    def fit(self, S, y):
        """Fit one calibrated classifier per fold of ``S`` (n x n) and ``y``."""
        from ._kernel_svc import SimilaritySVC

        validate_params(self)
        S, classes, y_idx = check_classification_data(S, y)  # warns once for the folds
        counts = np.bincount(y_idx)
        if counts.min() < self.cv:
            raise InvalidParameterError(
                f"cv={self.cv} stratified folds need at least {self.cv} samples of every "
                f"class; the smallest class has {counts.min()}. Lower cv."
            )
        base = SimilaritySVC() if self.estimator is None else self.estimator
        y = classes[y_idx]
        shuffle = self.random_state is not None
        folds = StratifiedKFold(self.cv, shuffle=shuffle,
                                random_state=self.random_state if shuffle else None)
        self.calibrated_ = []
        with input_warnings_said():
            for tr, te in folds.split(np.zeros(len(y)), y_idx):
                model = clone(base).fit(S[np.ix_(tr, tr)], y[tr])
                scores = _scores(model, S[np.ix_(te, tr)])
                self.calibrated_.append((tr, model,
                                         fit_calibrators(scores, y_idx[te], self.method)))
        self.classes_ = classes
        self.n_features_in_ = S.shape[0]
        return self

    def predict_proba(self, S_test):
        """Mean calibrated probabilities of the folds, ``(m, n_classes)``."""
        check_is_fitted(self, "calibrated_")
        S_test = check_test_similarity(S_test, self.n_features_in_)
        P = np.zeros((S_test.shape[0], len(self.classes_)))
        for tr, model, calibrators in self.calibrated_:
            P += calibrated_proba(_scores(model, S_test[:, tr]), calibrators)
        return P / len(self.calibrated_)

    def predict(self, S_test):
        """The class of largest mean calibrated probability."""
        P = self.predict_proba(S_test)
        return self.classes_[np.argmax(P, axis=1)]
