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
    ours = KernelKMeans(4, normalize=None, random_state=seed).fit(X @ X.T)
    ref = KMeans(4, n_init=10, random_state=seed).fit(X)
    assert rand_index(ref.labels_, ours.labels_) == 100.0
    assert ours.inertia_ == pytest.approx(ref.inertia_, rel=1e-8)


def test_inertia_is_the_feature_space_within_cluster_sum_of_squares():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(30, 3))
    km = KernelKMeans(3, normalize=None, random_state=0).fit(X @ X.T)
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
    km = KernelKMeans(4, normalize=None, random_state=0).fit(X @ X.T)
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
        (np.eye(3), {"normalize": "l2"}, InvalidParameterError, "normalize must be 'cosine'"),
        (np.eye(3), {"normalize": True}, InvalidParameterError, "or None"),
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


@pytest.mark.parametrize("normalize", ["cosine", None])
@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10_000), k=st.integers(-20, 20), u=st.floats(0.0, 1.0))
def test_scaling_the_kernel_leaves_the_clustering_and_predictions_unchanged(normalize, seed, k,
                                                                          u):
    X, _ = make_blobs(40, centers=3, cluster_std=2.0, random_state=seed)
    K = X @ X.T
    c = 2.0 ** k * (1.0 + u)
    a = KernelKMeans(3, normalize=normalize, n_init=3, random_state=seed).fit(K)
    b = KernelKMeans(3, normalize=normalize, n_init=3, random_state=seed).fit(c * K)
    np.testing.assert_array_equal(a.labels_, b.labels_)
    factor = c if normalize is None else 1.0  # the normalised kernel does not scale
    assert b.inertia_ == pytest.approx(factor * a.inertia_, rel=1e-9)
    np.testing.assert_array_equal(a.predict(K[:7]), b.predict(c * K[:7]))


# --- normalize="cosine": spherical kernel k-means ---------------------------------------


def _norm_split_kernel(seed=0):
    """Two clusters of directions (angles near 0 and near pi/2) in 2-D; in each cluster
    half the points have norm 1 and half norm 0.05, as SimpleNPKL's kernel gives to the
    points far from every constraint. Lloyd's algorithm splits by norm."""
    rng = np.random.default_rng(seed)
    n = 40
    y = np.repeat([0, 1], n // 2)
    angle = np.where(y == 0, 0.0, np.pi / 2) + rng.normal(scale=0.15, size=n)
    norm = np.tile(np.repeat([1.0, 0.05], n // 4), 2)
    X = norm[:, None] * np.c_[np.cos(angle), np.sin(angle)]
    return X @ X.T, y, X


def test_cosine_clusters_by_direction_where_lloyd_splits_by_norm():
    K, y, _ = _norm_split_kernel()
    cos = KernelKMeans(2, random_state=0).fit(K)  # the default
    assert rand_index(y, cos.labels_) == 100.0
    lloyd = KernelKMeans(2, normalize=None, random_state=0).fit(K)
    assert rand_index(y, lloyd.labels_) < 75.0
    # the default is the normalised clustering of the kernel K_ij / sqrt(K_ii K_jj)
    d = np.sqrt(np.diag(K))
    again = KernelKMeans(2, normalize=None, random_state=0).fit(K / d[:, None] / d[None, :])
    assert rand_index(cos.labels_, again.labels_) == 100.0


def test_cosine_is_blind_to_each_points_norm():
    K, _, _ = _norm_split_kernel(seed=1)
    s = np.random.default_rng(0).uniform(0.01, 100.0, size=K.shape[0])
    a = KernelKMeans(2, n_init=3, random_state=0).fit(K)
    b = KernelKMeans(2, n_init=3, random_state=0).fit(s[:, None] * K * s[None, :])
    np.testing.assert_array_equal(a.labels_, b.labels_)
    assert b.inertia_ == pytest.approx(a.inertia_, rel=1e-9)
    np.testing.assert_array_equal(a.predict(K[:9] * 7.0), a.labels_[:9])


def test_cosine_points_with_zero_diagonal_get_a_defined_label():
    K, y, X = _norm_split_kernel(seed=2)
    Z = np.r_[X, np.zeros((3, 2))]  # three points at the origin: no direction
    K0 = Z @ Z.T
    K0[-1, -1] = -1e-18  # and a rounding error below zero
    km = KernelKMeans(2, random_state=0).fit(K0)
    assert np.all(np.isfinite(km.inertia_)) and km.labels_.shape == (43,)
    assert rand_index(y, km.labels_[:40]) == 100.0  # the others are not disturbed
    # they join the cluster whose mean is nearest the origin, all the same one
    assert np.unique(km.labels_[40:]).size == 1
    means = [Z[:40][km.labels_[:40] == c] / np.linalg.norm(
        Z[:40][km.labels_[:40] == c], axis=1, keepdims=True) for c in range(2)]
    nearest = np.argmin([np.linalg.norm(m.sum(0)) / (len(m) + (km.labels_[40:] == c).sum())
                         for c, m in enumerate(means)])
    assert km.labels_[40] == nearest
    np.testing.assert_array_equal(km.predict(K0), km.labels_)  # test rows: the same rule
    np.testing.assert_array_equal(km.predict(np.zeros((2, 43))), [nearest, nearest])
    # a kernel of zeros: every point directionless, still labels and no NaN
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        z = KernelKMeans(2, random_state=0).fit(np.zeros((5, 5)))
    assert set(z.labels_) <= {0, 1} and np.isfinite(z.inertia_)


def test_cosine_predict_is_the_largest_cosine_with_the_unit_centres():
    K, _, X = _norm_split_kernel(seed=3)
    km = KernelKMeans(2, random_state=0).fit(K)
    U = X / np.linalg.norm(X, axis=1, keepdims=True)
    centres = np.array([U[km.labels_ == c].mean(0) for c in range(2)])
    centres /= np.linalg.norm(centres, axis=1, keepdims=True)
    Xt = np.random.default_rng(0).normal(size=(15, 2)) * 3.0
    np.testing.assert_array_equal(km.predict(Xt @ X.T), np.argmax(Xt @ centres.T, axis=1))
    expect = sum(((U[km.labels_ == c] - centres[c]) ** 2).sum() for c in range(2))
    assert km.inertia_ == pytest.approx(expect, rel=1e-10)
