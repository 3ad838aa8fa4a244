"""KernelKMeans: k-means in the feature space of a precomputed kernel (Zhuang 2011 ch. 3)."""

import pickle
import warnings

import numpy as np
import pytest
from sklearn.cluster import KMeans
from sklearn.datasets import make_blobs
from sklearn.exceptions import NotFittedError
from sklearn.metrics import adjusted_rand_score
from sklearn.preprocessing import StandardScaler
from sklearn.utils.estimator_checks import check_estimator

from proxlearn.base import SKLEARN_CHECK_EXCEPTIONS, is_pairwise
from proxlearn.cluster import KernelKMeans, rand_index
from proxlearn.cluster._kernel_kmeans import _relocate_empty
from proxlearn.exceptions import (
    AsymmetricSimilarityWarning,
    ConvergenceWarning,
    InvalidParameterError,
    SimilarityMatrixError,
    TestMatrixError,
)


def _block_kernel(sizes, seed=0):
    rng = np.random.default_rng(seed)
    y = np.repeat(np.arange(len(sizes)), sizes)
    y = y[rng.permutation(y.size)]
    return (y[:, None] == y[None, :]).astype(float), y


def _blobs(n=60, centers=4, seed=0, std=0.4):
    X, y = make_blobs(n_samples=n, centers=centers, cluster_std=std, random_state=seed)
    return X, y


def test_block_indicator_kernel_recovers_the_blocks():
    K, y = _block_kernel([5, 7, 9, 4])
    for n_init in (1, 5):
        km = KernelKMeans(4, n_init=n_init, random_state=0).fit(K)
        assert rand_index(y, km.labels_) == 100.0
        assert km.inertia_ == pytest.approx(0.0, abs=1e-12)  # phi(x) = e_block: points coincide
        assert km.n_iter_ >= 1


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_agrees_with_sklearn_kmeans_on_a_linear_kernel(seed):
    X, _ = _blobs(seed=seed)
    ours = KernelKMeans(4, random_state=seed).fit(X @ X.T)
    ref = KMeans(4, n_init=10, random_state=seed).fit(X)
    assert rand_index(ref.labels_, ours.labels_) == 100.0
    assert ours.inertia_ == pytest.approx(ref.inertia_, rel=1e-8)


def test_inertia_is_the_feature_space_within_cluster_sum_of_squares():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(30, 3))
    km = KernelKMeans(3, random_state=0).fit(X @ X.T)
    expect = sum(((X[km.labels_ == c] - X[km.labels_ == c].mean(0)) ** 2).sum()
                 for c in np.unique(km.labels_))
    assert km.inertia_ == pytest.approx(expect, rel=1e-10)


@pytest.mark.parametrize("max_iter", [1, 300])
def test_predict_on_the_training_rows_reproduces_labels(max_iter):
    rng = np.random.default_rng(5)
    X = rng.normal(size=(40, 2))  # no cluster structure: many iterations
    K = np.exp(-((X[:, None] - X[None]) ** 2).sum(-1))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)  # max_iter=1 stops early
        km = KernelKMeans(4, n_init=3, max_iter=max_iter, random_state=0).fit(K)
        np.testing.assert_array_equal(km.fit_predict(K), km.labels_)
    np.testing.assert_array_equal(km.predict(K), km.labels_)
    assert km.labels_.dtype == np.intp


def test_max_iter_reached_warns():
    rng = np.random.default_rng(5)
    X = rng.normal(size=(40, 2))
    with pytest.warns(ConvergenceWarning, match="max_iter=1"):
        KernelKMeans(5, n_init=1, max_iter=1, tol=0.0, random_state=1).fit(X @ X.T)


def test_predict_new_points_goes_to_the_nearest_centre():
    X, _ = _blobs(seed=4)
    Xt = np.random.default_rng(0).normal(scale=4.0, size=(10, 2))
    km = KernelKMeans(4, random_state=0).fit(X @ X.T)
    centres = np.array([X[km.labels_ == c].mean(0) for c in range(4)])
    expect = np.argmin(((Xt[:, None] - centres[None]) ** 2).sum(-1), axis=1)
    np.testing.assert_array_equal(km.predict(Xt @ X.T), expect)
    np.testing.assert_array_equal(km.predict((Xt @ X.T)[0]), expect[:1])  # one row as 1-D


def test_seeded_runs_are_deterministic():
    rng = np.random.default_rng(7)
    X = rng.normal(size=(50, 3))
    K = X @ X.T
    a = KernelKMeans(5, n_init=2, random_state=42).fit(K)
    b = KernelKMeans(5, n_init=2, random_state=42).fit(K)
    np.testing.assert_array_equal(a.labels_, b.labels_)
    assert a.inertia_ == b.inertia_ and a.n_iter_ == b.n_iter_
    c = KernelKMeans(5, n_init=2, random_state=np.random.RandomState(42)).fit(K)
    np.testing.assert_array_equal(a.labels_, c.labels_)
    back = pickle.loads(pickle.dumps(a))
    np.testing.assert_array_equal(back.predict(K[:7]), a.predict(K[:7]))


def test_empty_clusters_are_filled_with_the_farthest_points():
    labels = np.array([0, 0, 0, 1, 1])
    dist = np.array([0.1, 5.0, 0.2, 3.0, 0.3])
    out = _relocate_empty(labels, dist, 4)
    assert set(out) == {0, 1, 2, 3}
    assert out[1] == 2 and out[3] == 3  # the two farthest points, their clusters keep members
    # a singleton is never moved out
    out = _relocate_empty(np.array([0, 1, 1]), np.array([9.0, 1.0, 0.5]), 3)
    assert out[0] == 0 and set(out) == {0, 1, 2}


def test_duplicate_points_and_as_many_clusters_as_samples():
    X = np.array([[0.0, 0], [0, 0], [0, 0], [1, 1], [1, 1]])
    km = KernelKMeans(2, random_state=0).fit(X @ X.T)
    assert rand_index([0, 0, 0, 1, 1], km.labels_) == 100.0
    K = np.eye(4) + 0.1
    km = KernelKMeans(4, random_state=0).fit(K)
    assert sorted(km.labels_) == [0, 1, 2, 3]


@pytest.mark.parametrize(
    "K, params, error, match",
    [
        (np.ones((3, 4)), {}, SimilarityMatrixError, "square"),
        (np.array([[1.0, np.nan], [np.nan, 1.0]]), {}, SimilarityMatrixError, "NaN"),
        (np.eye(3), {"n_clusters": 4}, InvalidParameterError, "n_clusters=4 is larger"),
        (np.eye(3), {"n_clusters": 0}, InvalidParameterError, "n_clusters"),
        (np.eye(3), {"n_clusters": 1.5}, InvalidParameterError, "n_clusters"),
        (np.eye(3), {"n_init": 0}, InvalidParameterError, "n_init"),
        (np.eye(3), {"max_iter": 0}, InvalidParameterError, "max_iter"),
        (np.eye(3), {"tol": -1.0}, InvalidParameterError, "tol"),
    ],
)
def test_bad_input_raises_clear_errors(K, params, error, match):
    with pytest.raises(error, match=match):
        KernelKMeans(**params).fit(K)


def test_predict_checks():
    K, _ = _block_kernel([3, 3])
    with pytest.raises(NotFittedError):
        KernelKMeans().predict(K)
    km = KernelKMeans(2, random_state=0).fit(K)
    with pytest.raises(TestMatrixError, match="6 training samples"):
        km.predict(K[:, :-1])


def test_asymmetric_kernel_uses_its_symmetric_part():
    rng = np.random.default_rng(0)
    X, _ = _blobs(n=30, centers=3, seed=1)
    K = X @ X.T
    A = rng.normal(scale=0.5, size=K.shape)
    with pytest.warns(AsymmetricSimilarityWarning):
        a = KernelKMeans(3, random_state=0).fit(K + A - A.T)
    b = KernelKMeans(3, random_state=0).fit(K)
    np.testing.assert_array_equal(a.labels_, b.labels_)


def test_pairwise_tag():
    assert is_pairwise(KernelKMeans())


def test_sklearn_check_clustering_on_a_kernel():
    """scikit-learn's check_clustering, run on the linear kernel of its data
    (it fits the raw features even for pairwise estimators)."""
    X, y = make_blobs(n_samples=50, random_state=1)
    X = StandardScaler().fit_transform(X)
    km = KernelKMeans(3, random_state=0).fit(X @ X.T)
    assert adjusted_rand_score(km.labels_, y) > 0.4
    np.testing.assert_array_equal(KernelKMeans(3, random_state=0).fit_predict(X @ X.T), km.labels_)
    assert km.labels_.dtype in (np.dtype("int32"), np.dtype("int64"))
    assert sorted(np.unique(km.labels_)) == [0, 1, 2]


def test_check_estimator():
    expected = dict(SKLEARN_CHECK_EXCEPTIONS)
    expected["check_clustering"] = (
        "fits the raw (n, 2) features even though the estimator is pairwise; the same "
        "assertions run on the linear kernel in test_sklearn_check_clustering_on_a_kernel"
    )
    check_estimator(KernelKMeans(n_init=2), expected_failed_checks=expected)


# --- scale (issue 40 item 3) ----------------------------------------------------------


from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10_000), k=st.integers(-20, 20), u=st.floats(0.0, 1.0))
def test_scaling_the_kernel_leaves_the_clustering_and_predictions_unchanged(seed, k, u):
    X, _ = make_blobs(40, centers=3, cluster_std=2.0, random_state=seed)
    K = X @ X.T
    c = 2.0 ** k * (1.0 + u)
    a = KernelKMeans(3, n_init=3, random_state=seed).fit(K)
    b = KernelKMeans(3, n_init=3, random_state=seed).fit(c * K)
    np.testing.assert_array_equal(a.labels_, b.labels_)
    assert b.inertia_ == pytest.approx(c * a.inertia_, rel=1e-9)
    np.testing.assert_array_equal(a.predict(K[:7]), b.predict(c * K[:7]))
