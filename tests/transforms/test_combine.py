"""CombineSimilarities: the weighted combination of an (n, n, m) stack."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.model_selection import KFold, cross_val_score
from sklearn.pipeline import make_pipeline

from proxlearn.exceptions import InvalidParameterError, TestMatrixError
from proxlearn.svm import SimilaritySVC
from proxlearn.transforms import CombineSimilarities


def _stack(n=30, m=3, seed=0):
    rng = np.random.default_rng(seed)
    y = np.arange(n) % 2
    X = rng.normal(size=(n, 3)) + 1.5 * y[:, None]
    mats = [np.exp(-((X[:, None] - X[None]) ** 2).sum(-1) / s) for s in (1.0, 4.0, 16.0)][:m]
    return np.stack(mats, -1), y


@pytest.mark.filterwarnings("ignore::proxlearn.exceptions.DissimilarityWarning")
@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(2, 12), m=st.integers(1, 4),
       one_hot=st.booleans())
def test_training_rows_map_to_the_combined_training_matrix(seed, n, m, one_hot):
    rng = np.random.default_rng(seed)
    A = rng.normal(size=(n, n, m))
    w = None if not one_hot else np.eye(m)[rng.integers(m)]
    tf = CombineSimilarities(w)
    if one_hot:  # the same through index
        np.testing.assert_array_equal(
            CombineSimilarities(index=int(np.argmax(w))).fit_transform(A), tf.fit_transform(A))
    K = tf.fit_transform(A)
    rows = rng.permutation(n)[: max(1, n // 2)]
    np.testing.assert_array_equal(tf.transform(A[rows]), K[rows])
    expected = A.mean(axis=2) if w is None else A[:, :, int(np.argmax(w))]
    np.testing.assert_allclose(K, expected, atol=1e-12)


def test_in_a_pipeline_with_cross_validation():
    X, y = _stack()
    cv = KFold(5, shuffle=True, random_state=0)
    avg = cross_val_score(make_pipeline(CombineSimilarities(), SimilaritySVC()), X, y, cv=cv)
    manual = []
    for tr, te in cv.split(X):
        S = X.mean(axis=2)
        clf = SimilaritySVC().fit(S[np.ix_(tr, tr)], y[tr])
        manual.append(clf.score(S[np.ix_(te, tr)], y[te]))
    np.testing.assert_allclose(avg, manual)


def test_bad_weights_and_test_rows():
    X, y = _stack(m=3)
    with pytest.raises(InvalidParameterError, match="one weight per matrix"):
        CombineSimilarities([1.0, 0.0]).fit(X)
    with pytest.raises(InvalidParameterError, match="non-negative"):
        CombineSimilarities([1.0, -1.0, 0.0]).fit(X)
    with pytest.raises(InvalidParameterError, match="not all zero"):
        CombineSimilarities([0.0, 0.0, 0.0]).fit(X)
    with pytest.raises(InvalidParameterError, match=r"index must be an integer in \[0, 3\)"):
        CombineSimilarities(index=3).fit(X)
    with pytest.raises(InvalidParameterError, match="not both"):
        CombineSimilarities([1.0, 0.0, 0.0], index=0).fit(X)
    tf = CombineSimilarities().fit(X)
    with pytest.raises(TestMatrixError, match="fitted on m = 3"):
        tf.transform(X[:4, :, :2])
    with pytest.raises(TestMatrixError):
        tf.transform(X[:4, :5])
