"""SimilarityLocalOutlierFactor: LOF on the distances a similarity induces."""

import pickle
import warnings

import numpy as np
import pytest
from sklearn.base import clone, is_outlier_detector
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import KFold, cross_val_score
from sklearn.neighbors import LocalOutlierFactor

from proxlearn.exceptions import (
    InvalidParameterError,
    SimilarityMatrixError,
    TestMatrixError,
)
from proxlearn.neighbors import SimilarityLocalOutlierFactor, similarity_distances

from _outliers import run_check, sklearn_outlier_checks


def _points(n=40, m=10, seed=0):
    rng = np.random.default_rng(seed)
    X = np.vstack([rng.normal(size=(n, 3)), rng.normal(size=(m // 2, 3)),
                   rng.normal(loc=5.0, size=(m - m // 2, 3))])
    X[3] *= 4.0  # one training outlier
    return X, n


def test_linear_kernel_gives_sklearn_lof_on_the_points():
    """With S = X X^T the induced distance is the Euclidean one: the scores are
    scikit-learn's LOF on the points themselves (an independent check of d)."""
    X, n = _points()
    S = X @ X.T
    ours = SimilarityLocalOutlierFactor(n_neighbors=8).fit(S[:n, :n])
    ref = LocalOutlierFactor(n_neighbors=8).fit(X[:n])
    np.testing.assert_allclose(ours.negative_outlier_factor_, ref.negative_outlier_factor_,
                               rtol=1e-8)
    assert ours.negative_outlier_factor_[3] == ours.negative_outlier_factor_.min()
    nov = SimilarityLocalOutlierFactor(n_neighbors=8, novelty=True).fit(S[:n, :n])
    refn = LocalOutlierFactor(n_neighbors=8, novelty=True).fit(X[:n])
    psi = np.sum(X[n:] ** 2, axis=1)  # the test rows' own self-similarities
    np.testing.assert_allclose(nov.score_samples(S[n:, :n], self_similarity=psi),
                               refn.score_samples(X[n:]), rtol=1e-8)
    np.testing.assert_array_equal(nov.predict(S[n:, :n], self_similarity=psi),
                                  refn.predict(X[n:]))


@pytest.mark.parametrize("contamination", ["auto", 0.1])
def test_equals_sklearn_lof_on_the_derived_distances(contamination):
    X, n = _points()
    S = np.exp(-((X[:, None] - X[None]) ** 2).sum(-1) / 6)  # unit diagonal
    d = np.ones(len(S))
    D = similarity_distances(S, d, d)
    ours = SimilarityLocalOutlierFactor(contamination=contamination).fit(S[:n, :n])
    ref = LocalOutlierFactor(metric="precomputed", contamination=contamination)
    labels = ref.fit_predict(D[:n, :n])
    np.testing.assert_allclose(ours.negative_outlier_factor_, ref.negative_outlier_factor_)
    assert ours.offset_ == pytest.approx(ref.offset_)
    np.testing.assert_array_equal(clone(ours).fit_predict(S[:n, :n]), labels)
    nov = SimilarityLocalOutlierFactor(contamination=contamination, novelty=True).fit(S[:n, :n])
    refn = LocalOutlierFactor(metric="precomputed", contamination=contamination,
                              novelty=True).fit(D[:n, :n])
    # the default test self-similarity is the mean training one: exact here
    np.testing.assert_allclose(nov.decision_function(S[n:, :n]),
                               refn.decision_function(D[n:, :n]))
    np.testing.assert_array_equal(nov.predict(S[n:, :n]), refn.predict(D[n:, :n]))


def test_novelty_switches_the_methods_as_sklearn():
    X, n = _points()
    S = X @ X.T
    det = SimilarityLocalOutlierFactor(n_neighbors=5).fit(S[:n, :n])
    assert is_outlier_detector(det)
    for method in ("predict", "decision_function", "score_samples"):
        assert not hasattr(det, method)
        with pytest.raises(AttributeError, match="has no attribute") as info:
            getattr(det, method)(S[n:, :n])
        assert "novelty=True" in str(info.value.__cause__)
    nov = SimilarityLocalOutlierFactor(n_neighbors=5, novelty=True).fit(S[:n, :n])
    assert not hasattr(nov, "fit_predict")
    assert set(nov.predict(S[n:, :n])) <= {-1, 1}
    np.testing.assert_allclose(nov.decision_function(S[n:, :n]),
                               nov.score_samples(S[n:, :n]) - nov.offset_)


def test_training_rows_with_novelty_see_themselves():
    """What holds for training rows: negative_outlier_factor_ is each sample's LOF
    among the others (either novelty); score_samples of a training row (novelty=True)
    counts the row itself at distance 0, as scikit-learn's LOF does on its own data."""
    X, n = _points()
    S = X @ X.T
    nov = SimilarityLocalOutlierFactor(n_neighbors=6, novelty=True).fit(S[:n, :n])
    plain = SimilarityLocalOutlierFactor(n_neighbors=6).fit(S[:n, :n])
    np.testing.assert_allclose(nov.negative_outlier_factor_, plain.negative_outlier_factor_)
    own = nov.score_samples(S[:n, :n], self_similarity=np.diag(S)[:n])
    ref = LocalOutlierFactor(n_neighbors=6, novelty=True).fit(X[:n])
    np.testing.assert_allclose(own, ref.score_samples(X[:n]), rtol=1e-8)
    assert not np.allclose(own, nov.negative_outlier_factor_)


def test_scale_free():
    X, n = _points()
    S = X @ X.T
    a = SimilarityLocalOutlierFactor(n_neighbors=6, novelty=True).fit(S[:n, :n])
    b = SimilarityLocalOutlierFactor(n_neighbors=6, novelty=True).fit(1e3 * S[:n, :n])
    np.testing.assert_allclose(b.negative_outlier_factor_, a.negative_outlier_factor_, rtol=1e-7)
    np.testing.assert_allclose(b.decision_function(1e3 * S[n:, :n]),
                               a.decision_function(S[n:, :n]), rtol=1e-7)


def test_neighbours_are_the_most_similar_samples_on_a_unit_diagonal():
    X, n = _points()
    S = np.exp(-((X[:, None] - X[None]) ** 2).sum(-1) / 6)
    det = SimilarityLocalOutlierFactor(n_neighbors=5, novelty=True).fit(S[:n, :n])
    _, idx = det.lof_.kneighbors()
    top = np.argsort(-(S[:n, :n] - 2 * np.eye(n)), axis=1)[:, :5]
    np.testing.assert_array_equal(np.sort(idx, axis=1), np.sort(top, axis=1))


def test_pickle_and_model_selection():
    X, n = _points(n=40, m=20)
    S = X @ X.T
    det = SimilarityLocalOutlierFactor(n_neighbors=5, novelty=True).fit(S[:n, :n])
    back = pickle.loads(pickle.dumps(det))
    np.testing.assert_array_equal(back.score_samples(S[n:, :n]), det.score_samples(S[n:, :n]))
    y = np.r_[np.ones(n + 10), np.zeros(10)]
    y[3] = 0
    cv = KFold(3, shuffle=True, random_state=0)
    scores = cross_val_score(det, S, y, cv=cv, scoring="roc_auc")
    for score, (tr, te) in zip(scores, cv.split(S)):
        dec = clone(det).fit(S[np.ix_(tr, tr)]).decision_function(S[np.ix_(te, tr)])
        assert score == pytest.approx(roc_auc_score(y[te], dec))


def test_clear_errors_and_sklearn_clamp():
    X, n = _points()
    S = X @ X.T
    with pytest.raises(SimilarityMatrixError, match="square"):
        SimilarityLocalOutlierFactor().fit(S[:n, :n - 1])
    for value in (np.nan, np.inf):
        bad = S[:n, :n].copy()
        bad[1, 2] = value
        with pytest.raises(SimilarityMatrixError):
            SimilarityLocalOutlierFactor().fit(bad)
    with pytest.raises(SimilarityMatrixError, match="at least 2"):
        SimilarityLocalOutlierFactor().fit(np.ones((1, 1)))
    for params in ({"n_neighbors": 0}, {"contamination": 0.7}, {"contamination": "x"},
                   {"novelty": "yes"}):
        with pytest.raises(InvalidParameterError, match=next(iter(params))):
            SimilarityLocalOutlierFactor(**params).fit(S[:n, :n])
    det = SimilarityLocalOutlierFactor(novelty=True).fit(S[:n, :n])
    with pytest.raises(TestMatrixError, match="columns"):
        det.score_samples(S[n:, :n - 1])
    with pytest.raises(TestMatrixError, match="self_similarity"):
        det.score_samples(S[n:, :n], self_similarity=np.ones(3))
    with pytest.raises(TestMatrixError, match="self_similarity"):
        det.score_samples(S[n:, :n], self_similarity=np.full(len(S) - n, np.nan))
    bad = S[n:, :n].copy()
    bad[0, 1] = np.nan
    with pytest.raises(SimilarityMatrixError):
        det.score_samples(bad, self_similarity=np.diag(S)[n:])
    # X X^T has no constant diagonal: leaving the test self-similarities out is said
    with pytest.warns(UserWarning, match="self_similarity="):
        det.score_samples(S[n:, :n])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        det.score_samples(S[n:, :n], self_similarity=np.diag(S)[n:])
    with pytest.warns(UserWarning, match="n_neighbors"):  # scikit-learn's clamp, kept
        small = SimilarityLocalOutlierFactor(n_neighbors=50).fit(S[:10, :10])
    assert small.n_neighbors_ == 9


def test_real_data_auc():
    """Protein: one class as inliers, the others outliers; held-out AUC well above chance."""
    from proxlearn.datasets import load_dataset
    from proxlearn.exceptions import DatasetNotFoundError

    try:
        data = load_dataset("protein")
    except (DatasetNotFoundError, OSError) as exc:
        pytest.skip(f"protein not available: {exc}")
    S, y = np.asarray(data.matrix, dtype=float), np.asarray(data.labels)
    rng = np.random.default_rng(0)
    inl = rng.permutation(np.flatnonzero(y == y[0]))
    tr, te = inl[:50], np.r_[inl[50:], np.flatnonzero(y != y[0])]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        det = SimilarityLocalOutlierFactor(novelty=True).fit(S[np.ix_(tr, tr)])
    auc = roc_auc_score(y[te] == y[0], det.decision_function(S[np.ix_(te, tr)]))
    assert auc > 0.8


def test_unfitted_gives_not_fitted_error():
    """Found by scikit-learn's check_estimators_unfitted: score_samples read lof_ before
    checking the fit (AttributeError instead of NotFittedError)."""
    from sklearn.exceptions import NotFittedError

    det = SimilarityLocalOutlierFactor(novelty=True)
    for method in ("score_samples", "decision_function", "predict"):
        with pytest.raises(NotFittedError):
            getattr(det, method)(np.ones((2, 3)))


@sklearn_outlier_checks([SimilarityLocalOutlierFactor(),
                         SimilarityLocalOutlierFactor(novelty=True)])
def test_sklearn_estimator_checks(estimator, check):
    run_check(estimator, check)
