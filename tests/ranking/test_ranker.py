"""NPKReranker: the chapter-6 pipeline as a scikit-learn estimator."""

import pickle

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.base import clone
from sklearn.pipeline import Pipeline

from proxlearn.base import is_pairwise
from proxlearn.exceptions import InvalidParameterError, LabelError, TestMatrixError
from proxlearn.ranking import (
    NPKReranker,
    kernel_affinity,
    kernel_distances,
    label_kernel,
    npk_rank,
    visual_rank,
)


def _items(n=30, seed=0, noise=0.3):
    """Two visual clusters; tags say which cluster, with a fraction flipped."""
    rng = np.random.default_rng(seed)
    y = np.repeat([0, 1], n // 2)
    X = rng.normal(size=(n, 3)) + 2.5 * y[:, None]
    tags = np.where(rng.random(n) < noise, 1 - y, y)
    S = np.exp(-0.5 * ((X[:, None] - X[None]) ** 2).sum(-1))
    return S, tags, y, X


def test_fit_matches_the_functions_it_chains():
    S, tags, _, _ = _items()
    est = NPKReranker(n_neighbors=4, tol=1e-8, max_iter=3000).fit(S, tags)
    res = npk_rank(label_kernel(tags), kernel_distances(S), n_neighbors=4, tol=1e-8,
                   max_iter=3000)
    np.testing.assert_allclose(est.kernel_, res.kernel, atol=1e-10)
    np.testing.assert_allclose(est.scores_, visual_rank(kernel_affinity(res.kernel), 0.85),
                               atol=1e-12)
    assert est.ranking_[0] == np.argmax(est.scores_)
    assert np.all(np.diff(est.scores_[est.ranking_]) <= 0)
    clip = NPKReranker(n_neighbors=4, tol=1e-8, max_iter=3000, affinity="clip").fit(S, tags)
    np.testing.assert_allclose(clip.scores_, visual_rank(res.kernel, 0.85), atol=1e-12)


@pytest.mark.parametrize("n_components", [None, 6])
def test_the_learned_kernel_has_zero_row_sums(n_components):
    # why affinity="distance" is the default: eq. 6.2 gives K 1 = 0 exactly
    S, tags, _, _ = _items(seed=4)
    K = NPKReranker(n_neighbors=4, n_components=n_components).fit(S, tags).kernel_
    assert np.abs(K).max() > 0.1
    np.testing.assert_allclose(K.sum(axis=1), 0.0, atol=1e-8 * np.abs(K).max() * len(K))


def test_kernel_affinity_ignores_a_constant_and_is_a_gaussian_of_distances():
    X = np.random.default_rng(5).normal(size=(9, 3))
    K = X @ X.T
    W = kernel_affinity(K)
    np.testing.assert_allclose(W, kernel_affinity(K + 7.0), atol=1e-12)
    np.testing.assert_allclose(np.diag(W), 1.0)
    D2 = ((X[:, None] - X[None]) ** 2).sum(-1)
    np.testing.assert_allclose(kernel_affinity(K, bandwidth=2.0), np.exp(-D2 / 2.0), atol=1e-9)
    with pytest.raises(InvalidParameterError, match="bandwidth"):
        kernel_affinity(K, bandwidth=-1.0)


def test_text_kernel_and_tags_agree():
    S, tags, _, _ = _items(seed=1)
    a = NPKReranker(n_neighbors=3).fit(S, tags)
    b = NPKReranker(n_neighbors=3).fit(S, label_kernel(tags))
    np.testing.assert_allclose(a.kernel_, b.kernel_)


def test_kernel_distances_are_the_feature_space_distances():
    X = np.random.default_rng(3).normal(size=(7, 4))
    D = np.sqrt(((X[:, None] - X[None]) ** 2).sum(-1))
    np.testing.assert_allclose(kernel_distances(X @ X.T), D, atol=1e-7)


def test_scores_of_training_rows_are_the_warped_visual_rank():
    S, tags, _, _ = _items(seed=2)
    est = NPKReranker(n_neighbors=4).fit(S, tags)
    np.testing.assert_allclose(est.warped_scores_,
                               visual_rank(est.warping_.kernel_, 0.85), atol=1e-12)
    np.testing.assert_allclose(est.score_samples(S), est.warped_scores_, atol=1e-10)


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(8, 20), k=st.integers(1, 4))
def test_training_rows_map_to_the_training_transform(seed, n, k):
    S, tags, _, _ = _items(n=2 * (n // 2), seed=seed)
    est = NPKReranker(n_neighbors=k, max_iter=200)
    Kt = est.fit_transform(S, tags)
    np.testing.assert_allclose(est.transform(S), Kt, atol=1e-8 * max(1, np.abs(Kt).max()))
    np.testing.assert_allclose(est.transform(S[3:5]), Kt[3:5], atol=1e-8 * max(1, np.abs(Kt).max()))


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_near_duplicates_of_training_items_score_like_them(seed):
    from scipy.stats import spearmanr

    S, tags, _, X = _items(n=40, seed=seed, noise=0.1)
    est = NPKReranker(n_neighbors=5).fit(S, tags)
    rng = np.random.default_rng(seed + 100)
    idx = rng.choice(40, 15, replace=False)
    new = X[idx] + 0.1 * rng.normal(size=(15, 3))
    s = est.score_samples(np.exp(-0.5 * ((new[:, None] - X[None]) ** 2).sum(-1)))
    assert s.shape == (15,) and np.all(s > 0)
    assert spearmanr(s, est.warped_scores_[idx])[0] > 0.5


def test_sklearn_conventions():
    S, tags, _, _ = _items()
    est = NPKReranker(n_neighbors=3)
    assert is_pairwise(est) and is_pairwise(Pipeline([("r", est)]))
    fitted = clone(est).fit(S, tags)
    again = pickle.loads(pickle.dumps(fitted))
    np.testing.assert_array_equal(again.transform(S[:4]), fitted.transform(S[:4]))
    assert est.get_params()["n_neighbors"] == 3


def test_bad_input():
    S, tags, _, _ = _items()
    with pytest.raises(InvalidParameterError, match="affinity"):
        NPKReranker(affinity="pagerank").fit(S, tags)
    with pytest.raises(LabelError, match="y is None"):
        NPKReranker().fit(S)
    with pytest.raises(LabelError, match="30 items"):
        NPKReranker().fit(S, tags[:-1])
    with pytest.raises(InvalidParameterError, match=r"\(30, 30\) text kernel"):
        NPKReranker().fit(S, np.ones((30, 4)))
    with pytest.raises(InvalidParameterError):
        NPKReranker(n_neighbors=30).fit(S, tags)
    est = NPKReranker(n_neighbors=3).fit(S, tags)
    with pytest.raises(TestMatrixError):
        est.transform(S[:, :-1])


@pytest.mark.parametrize("tags", [[0, 1, None, 1], [0.0, 1.0, np.nan, 1.0], [None, 1, None, 0]])
def test_label_kernel_refuses_missing_tags(tags):
    """A NaN tag gave K_ii = 0 and None tags shared one tag (issue #39, item 2.8)."""
    with pytest.raises(LabelError, match="no tag"):
        label_kernel(np.array(tags, dtype=object if None in tags else float))
    with pytest.raises(LabelError, match="no tag"):
        NPKReranker().fit(np.eye(4) + 0.5, np.array(tags, dtype=object))


def test_each_input_is_validated_once_on_the_way_through():
    """fit validates S and the text kernel once: not again as npk_rank's K_text and D
    nor as the warping's base kernel; transform validates the test rows once (issue 36)."""
    from _validations import recorded_validations

    S, tags, _, _ = _items()
    T = label_kernel(tags) + 0.1 * np.eye(len(tags))
    with recorded_validations() as calls:
        est = NPKReranker(n_neighbors=4).fit(S, T)
    names = [name for _, name, _ in calls]
    assert names.count("S") == 1 and names.count("y (text kernel)") == 1
    assert "D" not in names and "K_text" not in names
    # the base kernel of the warping is S (its training scale is 1): checked by fit only
    assert [name for _, name, arg in calls if arg is S or arg is est.warping_._K] == ["S"]
    with recorded_validations() as calls:
        est.transform(S[:5])
    assert len(calls) == 1
