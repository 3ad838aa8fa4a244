"""ConstrainedKMeans: COP-k-means, the thesis's ck-means baseline (Zhuang 2011, Tables 3.2, 3.7)."""

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.cluster import KMeans
from sklearn.datasets import load_iris, make_blobs
from sklearn.utils.estimator_checks import check_estimator

from proxlearn.base import FEATURE_CHECK_EXCEPTIONS, is_pairwise
from proxlearn.cluster import (
    ConstrainedKMeans,
    PairwiseConstraints,
    make_pairwise_constraints,
    rand_index,
)
from proxlearn.exceptions import FeatureMatrixError, InvalidParameterError, SolverError


def _corners(m=5, seed=0):
    """Four tight groups: A (0, 0), B (0, 1), C (10, 0), D (10, 1). Euclidean
    k-means with k = 2 splits left | right; the constraints ask for bottom | top."""
    rng = np.random.default_rng(seed)
    centres = np.array([[0.0, 0.0], [0.0, 1.0], [10.0, 0.0], [10.0, 1.0]])
    X = np.vstack([c + rng.normal(scale=0.05, size=(m, 2)) for c in centres])
    return X, np.repeat(np.arange(4), m)


def _respects(labels, pc):
    ml, cl = pc.must_link, pc.cannot_link
    return (np.all(labels[ml[:, 0]] == labels[ml[:, 1]])
            and np.all(labels[cl[:, 0]] != labels[cl[:, 1]]))


def test_respects_must_link_and_cannot_link_on_a_toy_problem():
    X, g = _corners()
    plain = KMeans(2, n_init=10, random_state=0).fit(X).labels_
    assert rand_index(g >= 2, plain) == 100.0  # left | right without constraints
    # bottom (A, C) | top (B, D): must-link every A point with every C point, B with D,
    # and one cannot-link between the two halves
    A, B, C, D = (np.flatnonzero(g == k) for k in range(4))
    ml = [(a, c) for a in A for c in C] + [(b, d) for b in B for d in D]
    pc = PairwiseConstraints(ml + [(A[0], B[0])], [1] * len(ml) + [-1], X.shape[0])
    ck = ConstrainedKMeans(2, random_state=0).fit(X, pc)
    assert _respects(ck.labels_, pc) and ck.n_violations_ == 0
    assert rand_index(np.isin(g, [1, 3]), ck.labels_) == 100.0
    centres = np.array([X[ck.labels_ == k].mean(0) for k in range(2)])
    np.testing.assert_allclose(ck.cluster_centers_, centres)
    assert ck.inertia_ == pytest.approx(((X - centres[ck.labels_]) ** 2).sum())


def test_cannot_links_alone_split_close_points():
    X, g = _corners()
    A, B = np.flatnonzero(g == 0), np.flatnonzero(g == 1)
    pairs = [(a, b) for a in A for b in B]
    pc = PairwiseConstraints(pairs, [-1] * len(pairs), X.shape[0])
    ck = ConstrainedKMeans(3, random_state=0).fit(X, pc)
    assert _respects(ck.labels_, pc) and ck.n_violations_ == 0


def test_generated_constraints_on_iris_hold():
    X, y = load_iris(return_X_y=True)
    pc = make_pairwise_constraints(y, 0.7, random_state=0)
    ck = ConstrainedKMeans(3, n_init=5, random_state=0).fit(X, pc)
    assert _respects(ck.labels_, pc) and ck.n_violations_ == 0
    assert rand_index(y, ck.labels_) > 80.0


def test_without_constraints_it_is_kmeans():
    X, _ = make_blobs(n_samples=60, centers=3, cluster_std=0.5, random_state=2)
    ck = ConstrainedKMeans(3, random_state=0).fit(X)
    km = KMeans(3, n_init=10, random_state=0).fit(X)
    assert rand_index(km.labels_, ck.labels_) == 100.0
    assert ck.inertia_ == pytest.approx(km.inertia_, rel=1e-8)
    np.testing.assert_array_equal(ck.predict(X), ck.labels_)
    assert ck.n_violations_ == 0


def test_unsatisfiable_cannot_links():
    X = np.array([[0.0], [1.0], [2.0]])
    pc = PairwiseConstraints([[0, 1], [1, 2], [0, 2]], [-1, -1, -1], 3)  # a triangle, k = 2
    with pytest.warns(UserWarning, match="could not keep 1 of 3"):
        ck = ConstrainedKMeans(2, random_state=0).fit(X, pc)
    assert ck.n_violations_ == 1
    with pytest.raises(SolverError, match="strict=True"):
        ConstrainedKMeans(2, strict=True, random_state=0).fit(X, pc)


def test_contradicting_and_too_strong_constraints_are_refused():
    X = np.arange(8.0).reshape(4, 2)
    chain = PairwiseConstraints([[0, 1], [1, 2], [0, 2]], [1, 1, -1], 4)
    with pytest.raises(InvalidParameterError, match=r"chain of must-links.*\(0, 2\)"):
        ConstrainedKMeans(2).fit(X, chain)
    all_ml = PairwiseConstraints([[0, 1], [1, 2], [2, 3]], [1, 1, 1], 4)
    with pytest.raises(InvalidParameterError, match="into 1 group"):
        ConstrainedKMeans(2).fit(X, all_ml)


def test_constraint_formats():
    X, g = _corners(m=3)
    n = X.shape[0]
    pc = PairwiseConstraints([[0, 6], [3, 9], [0, 3]], [1, 1, -1], n)
    ref = ConstrainedKMeans(2, random_state=0).fit(X, pc).labels_
    for form in (pc.to_matrix(), pc.to_matrix(sparse=False), sp.coo_matrix(pc.to_matrix()),
                 (pc.pairs, pc.labels)):
        np.testing.assert_array_equal(ConstrainedKMeans(2, random_state=0).fit(X, form).labels_,
                                      ref)
    np.testing.assert_array_equal(ConstrainedKMeans(2, random_state=0).fit_predict(X, pc), ref)
    with pytest.raises(InvalidParameterError, match="make_pairwise_constraints"):
        ConstrainedKMeans(2).fit(X, g)  # class labels are not constraints
    with pytest.raises(InvalidParameterError, match="refer to 5 points"):
        ConstrainedKMeans(2).fit(X, PairwiseConstraints([[0, 1]], [1], 5))


def test_parameters_and_inputs_are_checked():
    X, _ = _corners(m=2)
    for params, match in [({"n_clusters": 9}, "n_clusters=9 is larger"), ({"n_init": 0}, "n_init"),
                          ({"tol": -1}, "tol"), ({"strict": "yes"}, "strict")]:
        with pytest.raises(InvalidParameterError, match=match):
            ConstrainedKMeans(**params).fit(X)
    bad = X.copy()
    bad[0, 0] = np.nan
    with pytest.raises(FeatureMatrixError, match="NaN"):
        ConstrainedKMeans().fit(bad)
    ck = ConstrainedKMeans(2, random_state=0).fit(X)
    with pytest.raises(FeatureMatrixError, match="2 features"):
        ck.predict(X[:, :1])
    assert not is_pairwise(ck)


def test_seeded_runs_are_deterministic():
    X, y = load_iris(return_X_y=True)
    pc = make_pairwise_constraints(y, 0.7, random_state=1)
    a = ConstrainedKMeans(3, n_init=3, random_state=7).fit(X, pc)
    b = ConstrainedKMeans(3, n_init=3, random_state=7).fit(X, pc)
    np.testing.assert_array_equal(a.labels_, b.labels_)
    assert a.inertia_ == b.inertia_


class _FitXY(ConstrainedKMeans):
    """scikit-learn's checks pass class labels as ``y``; the constraint-free path."""

    def fit(self, X, y=None):
        return super().fit(X)

    def fit_predict(self, X, y=None):
        return super().fit_predict(X)


def test_check_estimator_without_constraints():
    check_estimator(_FitXY(n_init=2), expected_failed_checks=FEATURE_CHECK_EXCEPTIONS)


# --- scale (issue 40 item 3) ----------------------------------------------------------


from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402


@pytest.mark.filterwarnings("ignore:ConstrainedKMeans could not keep")
@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10_000), k=st.integers(-20, 20), u=st.floats(0.0, 1.0))
def test_scaling_the_features_leaves_the_clustering_unchanged(seed, k, u):
    X, y = make_blobs(40, centers=3, cluster_std=2.5, random_state=seed)
    pc = make_pairwise_constraints(y, r=0.8, random_state=seed)
    c = 2.0 ** k * (1.0 + u)
    a = ConstrainedKMeans(3, n_init=3, random_state=seed).fit(X, pc)
    b = ConstrainedKMeans(3, n_init=3, random_state=seed).fit(c * X, pc)
    np.testing.assert_array_equal(a.labels_, b.labels_)
    np.testing.assert_allclose(b.cluster_centers_, c * a.cluster_centers_, rtol=1e-9)
    np.testing.assert_array_equal(a.predict(X[:7]), b.predict(c * X[:7]))
