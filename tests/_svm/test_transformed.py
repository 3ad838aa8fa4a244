"""Tests of the SVM on a fitted kernel transform (proxlearn._svm._transformed)."""

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.base import BaseEstimator
from sklearn.svm import SVC

from proxlearn._validation import InvalidParameterError
from proxlearn._svm._transformed import TransformedSVCMixin


class _LinearMap:
    """A fitted transform ``S_test -> S_test @ M`` with its coefficient fold."""

    def __init__(self, M):
        self.M = M

    def transform(self, S_test):
        return S_test @ self.M

    def transform_coef(self, V):
        return self.M @ V


class _Host(TransformedSVCMixin, BaseEstimator):
    """The smallest estimator the mixin serves: a training kernel ``M^T S M / scale``
    whose test rows are ``S_test M / scale``."""

    def __init__(self, M, scale, fold=True):
        self.M, self.scale, self.fold = M, scale, fold

    def fit(self, S, y, sample_weight=None):
        self.scale_ = self.scale
        self.transformer_ = _LinearMap(self.M)
        K = self.M.T @ (S / self.scale_) @ self.M
        self._fit_svc(SVC(kernel="precomputed", C=0.5), K, np.asarray(y), sample_weight)
        self.classes_ = self.svc_.classes_
        self.n_features_in_ = S.shape[0]
        if self.fold:
            self._fold_svc(self.n_features_in_)
        return self


def _problem(n=45, m=30, n_classes=3, seed=0):
    rng = np.random.default_rng(seed)
    y = np.arange(n + m) % n_classes
    X = 2.0 * rng.standard_normal((n_classes, 4))[y] + rng.standard_normal((n + m, 4))
    S = 7.0 * X @ X.T
    M = np.eye(n) + 0.1 * rng.standard_normal((n, n))
    return S[:n, :n], y[:n], S[n:, :n], M


@pytest.mark.parametrize("n_classes", [2, 3])
@pytest.mark.parametrize("zero_weights", [False, True])
def test_folded_equals_transformed_kernel(n_classes, zero_weights):
    S, y, S_test, M = _problem(n_classes=n_classes, seed=n_classes)
    w = None
    if zero_weights:
        w = np.ones(len(y))
        w[::5] = 0.0
    folded = _Host(M, 7.0).fit(S, y, sample_weight=w)
    plain = _Host(M, 7.0, fold=False).fit(S, y, sample_weight=w)
    assert (plain._svc_columns is None) == (not zero_weights)
    dec = plain.decision_function(S_test)  # libsvm on the transformed test kernel
    assert_allclose(folded.decision_function(S_test), dec, rtol=1e-10,
                    atol=1e-10 * np.abs(dec).max())
    assert_array_equal(folded.predict(S_test), plain.predict(S_test))


def test_zero_weight_leaving_one_class_is_refused():
    S, y, _, M = _problem(n_classes=2)
    w = (y == 0).astype(float)
    with pytest.raises(InvalidParameterError, match="at least two classes"):
        _Host(M, 1.0).fit(S, y, sample_weight=w)
