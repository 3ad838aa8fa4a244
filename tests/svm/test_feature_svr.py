"""SimilarityFeatureSVR: epsilon-SVR on similarity feature vectors (issue 37, item 1)."""

import pickle
import warnings

import numpy as np
import pytest
from numpy.testing import assert_allclose
from sklearn.svm import SVR

from proxlearn.exceptions import LabelError
from proxlearn.svm import SimilarityFeatureSVR, SimilaritySVR
from proxlearn.transforms import SimilarityFeatures


def problem(n=40, m=10, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n + m, 3))
    S = np.tanh(0.8 * X @ X.T - 0.3)
    S[:, :5] += 0.2  # asymmetric: rows as given
    y = np.sin(X[:, 0]) + X[:, 1] ** 2 + 5.0
    return S[:n, :n], S[n:, :n], y[:n], y[n:]


@pytest.mark.parametrize("kernel", ["linear", "rbf"])
def test_equals_sklearn_svr_on_the_feature_kernel(kernel):
    S, S_te, y, _ = problem()
    est = SimilarityFeatureSVR(kernel=kernel, gamma=0.1, normalize=False,
                               normalize_y=False).fit(S, y)
    feats = SimilarityFeatures(kernel=kernel, gamma=0.1).fit(S)
    ref = SVR(kernel="precomputed").fit(feats.transform(S), y)
    assert_allclose(est.predict(S_te), ref.predict(feats.transform(S_te)), atol=1e-10)


def test_linear_equals_the_square_spectrum_svr():
    S, S_te, y, _ = problem()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no symmetrising warning: rows as given
        a = SimilarityFeatureSVR().fit(S, y).predict(S_te)
        b = SimilaritySVR(spectrum="square", C=SimilarityFeatureSVR().C).fit(S, y).predict(S_te)
    assert_allclose(a, b, rtol=1e-8, atol=1e-8)


def test_scale_and_target_units_and_errors():
    S, S_te, y, y_te = problem()
    a = SimilarityFeatureSVR(kernel="rbf").fit(S, y).predict(S_te)
    b = SimilarityFeatureSVR(kernel="rbf").fit(7 * S, 100 * y + 3).predict(7 * S_te)
    # the same problem up to rounding: libsvm stops within its tol (1e-3) of the optimum
    assert_allclose(b, 100 * a + 3, rtol=0, atol=1e-3 * 100 * y.std())
    rbf = SimilarityFeatureSVR(kernel="rbf").fit(S, y)
    assert rbf.gamma_ == pytest.approx(1 / ((S / rbf.scale_).var() * S.shape[1]))
    est = SimilarityFeatureSVR().fit(S, y)
    assert_allclose(pickle.loads(pickle.dumps(est)).predict(S_te), est.predict(S_te))
    with pytest.raises(LabelError, match="targets but"):
        SimilarityFeatureSVR().fit(S, y[:-1])


def test_scikit_learn_estimator_checks():
    """scikit-learn's common checks for a regressor (the two expected failures are the
    project's, explained in proxlearn.base.SKLEARN_CHECK_EXCEPTIONS)."""
    from sklearn.utils.estimator_checks import check_estimator

    from proxlearn.base import SKLEARN_CHECK_EXCEPTIONS

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_estimator(SimilarityFeatureSVR(kernel="rbf"), expected_failed_checks=SKLEARN_CHECK_EXCEPTIONS)
