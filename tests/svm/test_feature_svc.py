"""Tests of SimilarityFeatureSVC (similarities as features)."""

import warnings

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.svm import SVC

from proxlearn._validation import (
    AsymmetricSimilarityWarning,
    InvalidParameterError,
    LabelError,
    SimilarityMatrixError,
    TestMatrixError,
)
from proxlearn.svm import SimilarityFeatureSVC, SimilaritySVC
from proxlearn.transforms import SimilarityFeatures



def blobs(n_train=80, n_test=60, noise=0.6, seed=0, n_classes=2):
    """Linear kernel of Gaussian blobs plus symmetric noise (indefinite)."""
    rng = np.random.default_rng(seed)
    n = n_train + n_test
    y = np.arange(n) % n_classes
    centers = 2.0 * rng.standard_normal((n_classes, 5))
    X = centers[y] + rng.standard_normal((n, 5))
    E = rng.standard_normal((n, n))
    S = X @ X.T + noise * (E + E.T)
    perm = rng.permutation(n)
    S, y = S[np.ix_(perm, perm)], y[perm]
    tr, te = slice(0, n_train), slice(n_train, n)
    return S[tr, tr], y[tr], S[te, tr], y[te]


@pytest.mark.parametrize("kernel,gamma", [("linear", 1.0), ("rbf", 1e-4)])
def test_accuracy_far_above_chance(kernel, gamma):
    S, y, S_test, y_test = blobs()
    clf = SimilarityFeatureSVC(kernel=kernel, C=1.0, gamma=gamma, normalize=False).fit(S, y)
    assert clf.score(S_test, y_test) >= 0.85


def test_linear_equals_svm_on_rows_and_square_kernel():
    """Chen et al. (2009) eq. (4), section 2.1.5: linear SVM on rows == SVM on S S^T."""
    S, y, S_test, _ = blobs(seed=1)
    S = S + 0.3 * np.random.default_rng(0).standard_normal(S.shape)  # asymmetric
    clf = SimilarityFeatureSVC("linear", C=0.01, normalize=False).fit(S, y)
    ref = SVC(kernel="linear", C=0.01).fit(S, y)
    d = clf.decision_function(S_test)
    assert_allclose(d, ref.decision_function(S_test), rtol=1e-6, atol=1e-6)
    sq = SimilaritySVC("square", C=0.01, normalize=False).fit(S, y)
    assert_allclose(d, sq.decision_function(S_test), rtol=1e-8, atol=1e-8)


def test_rbf_equals_svm_on_rows():
    S, y, S_test, _ = blobs(seed=2, n_classes=3, n_train=60)
    clf = SimilarityFeatureSVC("rbf", C=3.0, gamma=2e-4, normalize=False).fit(S, y)
    ref = SVC(kernel="rbf", C=3.0, gamma=2e-4).fit(S, y)
    d = clf.decision_function(S_test)
    assert_allclose(d, ref.decision_function(S_test), rtol=1e-6, atol=1e-6)
    assert_array_equal(clf.predict(S_test), ref.predict(S_test))
    assert isinstance(clf.transformer_, SimilarityFeatures)
    assert_array_equal(clf.classes_, [0, 1, 2])


def test_no_symmetrisation_warning():
    S, y, _, _ = blobs(seed=3)
    S = S + np.random.default_rng(0).standard_normal(S.shape)
    with warnings.catch_warnings():
        warnings.simplefilter("error", AsymmetricSimilarityWarning)
        SimilarityFeatureSVC().fit(S, y)


def test_all_zero_matrix():
    y = np.array([0, 1] * 4)
    for kernel in ("linear", "rbf"):
        clf = SimilarityFeatureSVC(kernel).fit(np.zeros((8, 8)), y)
        assert np.all(np.isfinite(clf.decision_function(np.zeros((2, 8)))))


def test_bad_input():
    S, y, S_test, _ = blobs(seed=4, n_train=20, n_test=4)
    with pytest.raises(SimilarityMatrixError):
        SimilarityFeatureSVC().fit(np.ones((4, 5)), [0, 1, 0, 1])
    with pytest.raises(SimilarityMatrixError):
        SimilarityFeatureSVC().fit(np.where(np.eye(4) > 0, np.nan, 0.0), [0, 1, 0, 1])
    with pytest.raises(LabelError):
        SimilarityFeatureSVC().fit(S, y[:5])
    with pytest.raises(LabelError):
        SimilarityFeatureSVC().fit(S, np.ones(len(y)))
    for params in ({"kernel": "poly"}, {"C": 0}, {"kernel": "rbf", "gamma": -1.0}):
        with pytest.raises(InvalidParameterError):
            SimilarityFeatureSVC(**params).fit(S, y)
    clf = SimilarityFeatureSVC().fit(S, y)
    with pytest.raises(TestMatrixError):
        clf.predict(S_test[:, 1:])


@pytest.mark.parametrize("name", ["aural_sonar", "protein"])
@pytest.mark.parametrize("kernel", ["linear", "rbf"])
def test_uw_one_split_sanity(name, kernel, load_uw):
    from sklearn.model_selection import GridSearchCV, StratifiedKFold, train_test_split

    A, c = load_uw(name)
    idx = np.arange(len(c))
    tr, te = train_test_split(idx, test_size=0.2, stratify=c, random_state=0)
    grid = {"C": [0.01, 0.1, 1.0, 10.0, 100.0]}
    if kernel == "rbf":
        # gamma relative to the typical squared distance between rows
        Str = A[np.ix_(tr, tr)]
        d2 = np.median(((Str[:, None, :] - Str[None, :, :]) ** 2).sum(-1))
        grid["gamma"] = [g / d2 for g in (0.1, 1.0, 10.0)]
    gs = GridSearchCV(
        SimilarityFeatureSVC(kernel),
        grid,
        cv=StratifiedKFold(5, shuffle=True, random_state=0),
    )
    gs.fit(A[np.ix_(tr, tr)], c[tr])
    err = 1.0 - gs.score(A[np.ix_(te, tr)], c[te])
    chance = 1.0 - np.max(np.unique(c, return_counts=True)[1]) / len(c)
    print(f"{name} SimilarityFeatureSVC({kernel}) error {err:.4f} (chance {chance:.3f})")
    assert err <= 0.5 * chance
