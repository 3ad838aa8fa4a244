"""The pairwise tag helper and its forwarding through scikit-learn meta-estimators."""

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.model_selection import GridSearchCV, KFold, cross_val_score
from sklearn.multiclass import OneVsRestClassifier
from sklearn.pipeline import Pipeline
from sklearn.svm import SVC

from proxlearn.base import PairwiseMixin, is_pairwise


class _ShapeRecorder(PairwiseMixin, ClassifierMixin, BaseEstimator):
    """Records the shapes it is fitted and scored on; predicts the majority class."""

    def fit(self, S, y):
        self.fit_shape_ = np.shape(S)
        self.classes_, counts = np.unique(y, return_counts=True)
        self.majority_ = self.classes_[np.argmax(counts)]
        return self

    def predict(self, S):
        assert np.shape(S)[1] == self.fit_shape_[0], "test matrix must be (m, n_train)"
        return np.full(np.shape(S)[0], self.majority_)


def test_tag_set_and_forwarded():
    est = _ShapeRecorder()
    assert is_pairwise(est)
    assert not is_pairwise(SVC())
    assert is_pairwise(Pipeline([("clf", _ShapeRecorder())]))
    assert is_pairwise(GridSearchCV(_ShapeRecorder(), {}))
    assert is_pairwise(OneVsRestClassifier(_ShapeRecorder()))


def test_cross_validation_slices_rows_and_columns():
    n = 20
    S = np.eye(n) + 0.1
    y = np.arange(n) % 2
    scores = cross_val_score(_ShapeRecorder(), S, y, cv=KFold(4))
    assert scores.shape == (4,)
    # each fold trained on a 15 x 15 block; predict asserted the (5, 15) width
    search = GridSearchCV(_ShapeRecorder(), {}, cv=KFold(4)).fit(S, y)
    assert search.best_estimator_.fit_shape_ == (n, n)
