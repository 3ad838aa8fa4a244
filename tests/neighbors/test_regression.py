"""SimilarityKNeighborsRegressor: the k-NN weights of Chen et al. (2009) for a
real-valued target (issue 37, item 1)."""

import pickle
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose
from sklearn.model_selection import KFold, cross_val_score
from sklearn.neighbors import KNeighborsRegressor

from proxlearn.exceptions import InvalidParameterError, LabelError
from proxlearn.neighbors import (
    SimilarityKNeighborsClassifier,
    SimilarityKNeighborsRegressor,
    kri_weights_batch,
    krr_weights_batch,
)


def problem(n=40, m=10, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n + m, 3))
    E = rng.normal(scale=0.05, size=(n + m, n + m))
    S = np.exp(-((X[:, None] - X[None]) ** 2).sum(-1) / 2) + (E + E.T)  # indefinite
    y = np.sin(X[:, 0]) + X[:, 1] ** 2 + 3.0
    return S[:n, :n], S[n:, :n], y[:n], y[n:]


def test_uniform_equals_sklearn_knn_regression_on_distances():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(50, 2))
    D = np.sqrt(((X[:, None] - X[None]) ** 2).sum(-1))
    y = X[:, 0] ** 2 + X[:, 1]
    tr, te = np.arange(40), np.arange(40, 50)
    ours = SimilarityKNeighborsRegressor(n_neighbors=4).fit(-D[np.ix_(tr, tr)], y[tr])
    ref = KNeighborsRegressor(n_neighbors=4, metric="precomputed").fit(D[np.ix_(tr, tr)], y[tr])
    assert_allclose(ours.predict(-D[np.ix_(te, tr)]), ref.predict(D[np.ix_(te, tr)]))


@pytest.mark.parametrize("weights", ["affinity", "kri", "krr"])
def test_prediction_is_the_weighted_mean_of_the_neighbours(weights):
    """The weights are the classifier's, applied to the centred targets."""
    S, S_te, y, _ = problem()
    reg = SimilarityKNeighborsRegressor(n_neighbors=6, weights=weights, reg=0.5).fit(S, y)
    sims, nbrs = reg.kneighbors(S_te)
    if weights == "affinity":
        W = np.maximum(sims, 0) / np.maximum(sims, 0).sum(1, keepdims=True)
    else:
        S_loc = S[nbrs[:, :, None], nbrs[:, None, :]]
        W = (kri_weights_batch(S_loc, sims, 0.5) if weights == "kri"
             else krr_weights_batch(S_loc, sims, 0.5, "clip"))  # the regressor's default
    expected = y.mean() + np.einsum("ck,ck->c", W, y[nbrs] - y.mean())
    assert_allclose(reg.predict(S_te), expected, rtol=1e-10)
    clf = SimilarityKNeighborsClassifier(n_neighbors=6, weights=weights, reg=0.5).fit(S, y > 3)
    assert_allclose(clf.kneighbors(S_te)[1], nbrs)


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(2, 20), shift=st.floats(-1e3, 1e3),
       weights=st.sampled_from(["uniform", "affinity", "kri", "krr"]))
def test_adding_a_constant_to_y_adds_it_to_every_prediction(seed, n, shift, weights):
    """Centring: KRR weights shrink towards the mean target, not towards 0."""
    rng = np.random.default_rng(seed)
    E = rng.normal(size=(n, n))
    S = E + E.T + 2 * n * np.eye(n)
    y = rng.normal(size=n)
    k = min(3, n)
    a = SimilarityKNeighborsRegressor(n_neighbors=k, weights=weights).fit(S, y).predict(S)
    b = SimilarityKNeighborsRegressor(n_neighbors=k, weights=weights).fit(S, y + shift).predict(S)
    assert_allclose(b, a + shift, atol=1e-9 * (1 + abs(shift)))


def test_one_neighbour_on_training_rows_reproduces_the_targets():
    S, _, y, _ = problem()
    S = S + 2 * np.eye(len(S))  # each sample is its own nearest neighbour
    assert_allclose(SimilarityKNeighborsRegressor(n_neighbors=1).fit(S, y).predict(S), y)


def test_score_pickle_errors_and_model_selection():
    S, S_te, y, y_te = problem(n=48)
    reg = SimilarityKNeighborsRegressor(weights="kri").fit(S, y)
    assert reg.score(S_te, y_te) > 0.0
    assert_allclose(pickle.loads(pickle.dumps(reg)).predict(S_te), reg.predict(S_te))
    with pytest.raises(LabelError, match="targets but"):
        SimilarityKNeighborsRegressor().fit(S, y[:-1])
    with pytest.raises(InvalidParameterError, match="n_neighbors"):
        SimilarityKNeighborsRegressor(n_neighbors=100).fit(S, y)
    with pytest.raises(InvalidParameterError, match="pinv"):
        SimilarityKNeighborsRegressor(weights="kri", spectrum="pinv").fit(S, y)
    cv = KFold(3, shuffle=True, random_state=0)
    scores = cross_val_score(SimilarityKNeighborsRegressor(), S, y, cv=cv)
    manual = [SimilarityKNeighborsRegressor().fit(S[np.ix_(tr, tr)], y[tr])
              .score(S[np.ix_(te, tr)], y[te]) for tr, te in cv.split(S)]
    assert_allclose(scores, manual)


def test_krr_weights_default_to_the_local_clip():
    """pinv weights (the classifier's default) blow up where a local eigenvalue nears
    -reg; the regressor's default clip keeps them bounded by |s| / reg."""
    S = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, -0.0], [0.0, 0.0, -0.999]])
    y = np.array([1.0, 2.0, 3.0])
    s = np.array([[0.5, 0.2, 0.3]])
    ours = SimilarityKNeighborsRegressor(n_neighbors=3, weights="krr").fit(S, y)
    pinv = SimilarityKNeighborsRegressor(n_neighbors=3, weights="krr", spectrum="pinv").fit(S, y)
    assert abs(ours.predict(s)[0] - y.mean()) < 1.0
    assert abs(pinv.predict(s)[0] - y.mean()) > 100.0
    with pytest.raises(InvalidParameterError, match="reg must be > 0"):
        SimilarityKNeighborsRegressor(weights="krr", reg=0.0).fit(S, y)


def test_scikit_learn_estimator_checks():
    """scikit-learn's common checks for a regressor (the two expected failures are the
    project's, explained in proxlearn.base.SKLEARN_CHECK_EXCEPTIONS)."""
    from sklearn.utils.estimator_checks import check_estimator

    from proxlearn.base import SKLEARN_CHECK_EXCEPTIONS

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_estimator(SimilarityKNeighborsRegressor(), expected_failed_checks=SKLEARN_CHECK_EXCEPTIONS)


@pytest.mark.parametrize("weights", ["uniform", "kri", "krr"])
def test_predictions_from_neighbour_lists_and_the_reg_path(weights):
    """predict = predict_from_neighbors(top_k_similar(...)); predict_path over reg equals
    one prediction per reg, and a k_max search serves smaller k (prefixes)."""
    from proxlearn._graph import top_k_similar

    S, S_te, y, _ = problem()
    reg = SimilarityKNeighborsRegressor(n_neighbors=6, weights=weights).fit(S, y)
    nbrs, sims = top_k_similar(S_te, 6)
    assert_allclose(reg.predict_from_neighbors(nbrs, sims), reg.predict(S_te))
    regs = [0.1, 1.0, 10.0]
    for r, pred in zip(regs, reg.predict_path(nbrs, sims, reg=regs)):
        ref = SimilarityKNeighborsRegressor(n_neighbors=6, weights=weights, reg=r).fit(S, y)
        assert_allclose(pred, ref.predict(S_te), rtol=1e-7, atol=1e-9)
    nb8, si8 = top_k_similar(S_te, 8)
    assert_allclose(reg.predict_from_neighbors(nb8[:, :6], si8[:, :6]), reg.predict(S_te))
