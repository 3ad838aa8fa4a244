"""Class probabilities: probability=True (Platt by internal CV) on every SVM-type
classifier, and SimilarityCalibratedClassifier (issue #14, section 5)."""

import pickle
import warnings

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.calibration import CalibratedClassifierCV
from sklearn.metrics import log_loss
from sklearn.model_selection import GridSearchCV, cross_val_score

from proxlearn.datasets import make_noisy_blobs
from proxlearn.exceptions import InvalidParameterError, SimilarityMatrixError
from proxlearn.kernel_learning import SVMCA, BaseKernelSVC, IndefiniteSVM, SimMKL, SimSVM
from proxlearn.neighbors import SimilarityKNeighborsClassifier
from proxlearn.svm import (
    LPMachine,
    PotentialSVM,
    SimilarityCalibratedClassifier,
    SimilarityFeatureSVC,
    SimilaritySVC,
)

ESTIMATORS = [
    SimilaritySVC(spectrum="flip"), SimilarityFeatureSVC(), LPMachine(), PotentialSVM(),
    BaseKernelSVC(), IndefiniteSVM(max_iter=200), SimMKL(), SimSVM(), SVMCA(n_components=3),
]


def _split(n_classes=3, per_class=16, seed=0, noise=4.0):
    S, y = make_noisy_blobs(n_classes, per_class, seed, noise=noise)
    idx = np.random.default_rng(seed).permutation(len(y))
    tr, te = np.sort(idx[: 2 * len(y) // 3]), np.sort(idx[2 * len(y) // 3:])
    return S[np.ix_(tr, tr)], y[tr], S[np.ix_(te, tr)], y[te]


@pytest.mark.parametrize("est", ESTIMATORS, ids=lambda e: type(e).__name__)
@pytest.mark.parametrize("n_classes", [2, 3])
def test_probability_true(est, n_classes):
    S, y, S_te, y_te = _split(n_classes)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        clf = clone(est).set_params(probability=True, random_state=0).fit(S, y)
        P = clf.predict_proba(S_te)
        pred = clf.predict(S_te)
        again = clone(est).set_params(probability=True, random_state=0).fit(S, y)
    assert P.shape == (len(y_te), n_classes)
    assert np.all((P >= 0) & (P <= 1)) and np.allclose(P.sum(axis=1), 1.0)
    assert np.mean(clf.classes_[P.argmax(axis=1)] == pred) >= 0.8
    np.testing.assert_array_equal(P, again.predict_proba(S_te))  # random_state
    np.testing.assert_allclose(np.exp(clf.predict_log_proba(S_te)), P)
    np.testing.assert_array_equal(pickle.loads(pickle.dumps(clf)).predict_proba(S_te), P)
    # better than the class prior on held-out rows (the probabilities carry information)
    prior = np.bincount(np.searchsorted(clf.classes_, y)) / len(y)
    assert log_loss(y_te, P, labels=clf.classes_) < log_loss(
        y_te, np.tile(prior, (len(y_te), 1)), labels=clf.classes_)


@pytest.mark.parametrize("est", ESTIMATORS[:4], ids=lambda e: type(e).__name__)
def test_probability_false_has_no_predict_proba(est):
    S, y, S_te, _ = _split(2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        clf = clone(est).fit(S, y)
    assert not hasattr(clf, "predict_proba")
    with pytest.raises(AttributeError) as info:
        clf.predict_proba(S_te)
    assert "probability=True" in str(info.value) + str(info.value.__cause__)


def test_probability_needs_two_samples_per_class():
    S, y, _, _ = _split(2)
    y = y.copy()
    y[0] = 7  # a class with one sample
    with pytest.raises(InvalidParameterError, match="smallest class has 1"):
        SimilaritySVC(probability=True).fit(S, y)


def test_grid_search_on_log_loss_slices_pairwise():
    S, y, S_te, y_te = _split(2, per_class=20)
    gs = GridSearchCV(SimilaritySVC(probability=True, random_state=0), {"C": [0.1, 1.0]},
                      scoring="neg_log_loss", cv=3).fit(S, y)
    assert np.isfinite(gs.best_score_)
    assert gs.predict_proba(S_te).shape == (len(y_te), 2)


@pytest.mark.parametrize("method", ["sigmoid", "isotonic"])
@pytest.mark.parametrize("base", [SimilaritySVC(spectrum="clip"),
                                  SimilarityKNeighborsClassifier(n_neighbors=5)],
                         ids=["svm", "knn-no-decision-function"])
def test_calibrated_classifier(method, base):
    S, y, S_te, y_te = _split(3, per_class=20)
    cal = SimilarityCalibratedClassifier(base, method=method, cv=3, random_state=0).fit(S, y)
    P = cal.predict_proba(S_te)
    assert P.shape == (len(y_te), 3) and np.allclose(P.sum(axis=1), 1.0)
    assert np.all(P >= 0)
    assert cal.score(S_te, y_te) > 0.8
    assert len(cal.calibrated_) == 3
    scores = cross_val_score(SimilarityCalibratedClassifier(base, cv=3, random_state=0),
                             S, y, cv=3, scoring="neg_log_loss")
    assert np.all(np.isfinite(scores))


def test_sklearns_calibrator_explains_itself():
    S, y, _, _ = _split(2)
    with pytest.raises(SimilarityMatrixError, match="SimilarityCalibratedClassifier"):
        CalibratedClassifierCV(SimilaritySVC(), cv=3).fit(S, y)


@pytest.mark.parametrize("make", [lambda: SimilaritySVC(probability=True),
                                  lambda: SimilarityCalibratedClassifier(cv=3)])
def test_input_warnings_once_not_per_fold(make):
    from scipy.spatial.distance import cdist

    from proxlearn.exceptions import DissimilarityWarning

    rng = np.random.default_rng(0)
    X = np.vstack([rng.normal(m, 1.0, (15, 2)) for m in (-2.0, 2.0)])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        make().fit(cdist(X, X), np.repeat([0, 1], 15))
    assert sum(issubclass(w.category, DissimilarityWarning) for w in caught) == 1
