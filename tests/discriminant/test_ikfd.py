"""Tests for IndefiniteKFD (Pekalska & Haasdonk 2009; Gu & Guo 2012 baseline)."""

import pickle

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.model_selection import train_test_split
from sklearn.utils.estimator_checks import check_estimator

from proxlearn.datasets import make_noisy_blobs
from proxlearn.base import SKLEARN_CHECK_EXCEPTIONS
from proxlearn._validation import (
    AsymmetricSimilarityWarning,
    InvalidParameterError,
    LabelError,
    SimilarityMatrixError,
    TestMatrixError,
)
from proxlearn.base import is_pairwise
from proxlearn.discriminant import IndefiniteKFD



blobs = make_noisy_blobs  # (n_classes, n_per_class, seed, noise=4.0)


@pytest.mark.parametrize("regularization", ["absolute", "relative"])
def test_binary_formula(regularization):
    S, y = blobs(2, 12, 0)
    assert np.linalg.eigvalsh(S).min() < 0  # indefinite
    rho = 10.0
    clf = IndefiniteKFD(rho=rho, regularization=regularization).fit(S, y)
    n = len(y)
    m0 = S[:, y == 0].mean(axis=1)
    m1 = S[:, y == 1].mean(axis=1)
    L = np.zeros((n, n))
    for c in (0, 1):
        idx = np.flatnonzero(y == c)
        L[np.ix_(idx, idx)] = 1.0 / len(idx)
    Nw = S @ (np.eye(n) - L) @ S
    ridge = rho if regularization == "absolute" else rho * np.trace(Nw) / n
    a = np.linalg.solve(Nw + ridge * np.eye(n), m1 - m0)
    np.testing.assert_allclose(clf.coef_[:, 0], a, rtol=1e-8, atol=1e-12)
    thr = 0.5 * (a @ m0 + a @ m1)
    np.testing.assert_allclose(clf.decision_function(S), S @ a - thr, rtol=1e-8, atol=1e-8)
    np.testing.assert_allclose(clf.transform(S)[:, 0], S @ a, rtol=1e-8, atol=1e-8)


def test_asymmetric_input_is_symmetrised_with_warning():
    S, y = blobs(2, 10, 1)
    A = S + np.triu(np.ones_like(S))
    with pytest.warns(AsymmetricSimilarityWarning):
        clf = IndefiniteKFD(rho=5.0).fit(A, y)
    ref = IndefiniteKFD(rho=5.0).fit(0.5 * (A + A.T), y)
    np.testing.assert_allclose(clf.coef_, ref.coef_)


def test_multiclass_eig_reduces_to_binary_direction():
    # the generalised-eigen solution for 2 classes is parallel to the closed form
    import scipy.linalg

    S, y = blobs(2, 10, 2)
    rho = 3.0
    clf = IndefiniteKFD(rho=rho, regularization="absolute").fit(S, y)
    n = len(y)
    m = S.mean(axis=1)
    M = np.zeros((n, n))
    Nw = np.zeros((n, n))
    for c in (0, 1):
        idx = y == c
        mc = S[:, idx].mean(axis=1)
        M += idx.sum() * np.outer(mc - m, mc - m)
        R = S[:, idx] - mc[:, None]
        Nw += R @ R.T
    _, v = scipy.linalg.eigh(M, Nw + rho * np.eye(n), subset_by_index=[n - 1, n - 1])
    cos = abs(v[:, 0] @ clf.coef_[:, 0]) / np.linalg.norm(v) / np.linalg.norm(clf.coef_)
    assert cos == pytest.approx(1.0, abs=1e-8)


@pytest.mark.parametrize("multiclass", ["eig", "ovo"])
@pytest.mark.parametrize("k", [2, 3])
def test_sanity_accuracy_far_above_chance(k, multiclass):
    S, y = blobs(k, 40, 0)
    idx = np.arange(len(y))
    tr, te = train_test_split(idx, test_size=0.25, stratify=y, random_state=0)
    clf = IndefiniteKFD(rho=1e4, multiclass=multiclass).fit(S[np.ix_(tr, tr)], y[tr])
    assert clf.score(S[np.ix_(te, tr)], y[te]) >= 0.9
    Z = clf.transform(S[np.ix_(te, tr)])
    assert Z.shape[0] == len(te)
    if k == 3:
        assert Z.shape[1] == (2 if multiclass == "eig" else 3)
        dec = clf.decision_function(S[np.ix_(te, tr)])
        assert dec.shape == (len(te), 3)
        np.testing.assert_array_equal(
            clf.predict(S[np.ix_(te, tr)]), clf.classes_[np.argmax(dec, axis=1)]
        )


def test_pickle_and_clone():
    S, y = blobs(3, 8, 4)
    clf = IndefiniteKFD(rho=100.0).fit(S, y)
    clf2 = pickle.loads(pickle.dumps(clf))
    np.testing.assert_array_equal(clf.decision_function(S), clf2.decision_function(S))
    assert clone(clf).get_params() == {"rho": 100.0, "multiclass": "eig",
                                       "regularization": "relative"}
    assert is_pairwise(clf)


@pytest.mark.parametrize("params", [{"rho": 0.0}, {"rho": -1.0}, {"multiclass": "ovr"},
                                    {"regularization": "trace"}])
def test_invalid_parameters(params):
    S, y = blobs(2, 5, 0)
    with pytest.raises(InvalidParameterError):
        IndefiniteKFD(**params).fit(S, y)


def test_bad_input():
    S, y = blobs(2, 5, 0)
    with pytest.raises(SimilarityMatrixError):
        IndefiniteKFD().fit(S[:, :3], y)
    bad = S.copy()
    bad[1, 0] = np.inf
    with pytest.raises(SimilarityMatrixError):
        IndefiniteKFD().fit(bad, y)
    with pytest.raises(LabelError):
        IndefiniteKFD().fit(S, y[:4])
    with pytest.raises(LabelError):
        IndefiniteKFD().fit(S, np.full(10, "a"))
    with pytest.raises(TestMatrixError):
        IndefiniteKFD().fit(S, y).transform(np.ones((3, 11)))


def test_grid_search_slices_rows_and_columns(assert_grid_search_slices):
    S, y = blobs(3, 10, 5)
    assert_grid_search_slices(IndefiniteKFD(), {"rho": [1.0, 1e4]}, S, y)


def test_check_estimator():
    check_estimator(IndefiniteKFD(), expected_failed_checks=SKLEARN_CHECK_EXCEPTIONS)


@pytest.mark.parametrize("name,chance", [("aural_sonar", 0.5), ("protein", 1 - 72 / 213)])
def test_uw_sanity(name, chance, uw_holdout_error):
    assert uw_holdout_error(IndefiniteKFD(), {"rho": [0.01, 1.0, 100.0]}, name) < 0.5 * chance


@pytest.mark.parametrize("multiclass", ["eig", "ovo"])
def test_relative_ridge_is_scale_invariant(multiclass):
    from proxlearn.datasets import make_gu_guo_synthetic

    d = make_gu_guo_synthetic(2, 20, n_per_class=30, random_state=0)
    S, y = d.matrix, d.labels
    tr, te = np.arange(0, 90, 2), np.arange(1, 90, 2)
    preds = []
    for scale in (1.0, 1e-3):
        m = IndefiniteKFD(rho=0.1, multiclass=multiclass).fit(scale * S[np.ix_(tr, tr)], y[tr])
        preds.append(m.predict(scale * S[np.ix_(te, tr)]))
    assert np.array_equal(preds[0], preds[1])
    # the absolute ridge is not: rho = 0.1 is negligible at scale 1, dominant at 1e-3
    a = IndefiniteKFD(rho=0.1, multiclass=multiclass, regularization="absolute")
    acc_big = (a.fit(S[np.ix_(tr, tr)], y[tr]).predict(S[np.ix_(te, tr)]) == y[te]).mean()
    acc_rel = (preds[0] == y[te]).mean()
    assert acc_rel > acc_big  # the unregularised fit overfits the noisy kernel
