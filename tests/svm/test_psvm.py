"""Tests for PotentialSVM (P-SVM, Chen 2010 eq. 2.8; Chen et al. 2009 eq. 6)."""

import pickle

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.model_selection import train_test_split
from sklearn.utils.estimator_checks import check_estimator

from proxlearn.datasets import make_noisy_blobs
from proxlearn.base import SKLEARN_CHECK_EXCEPTIONS
from proxlearn._validation import (
    InvalidParameterError,
    LabelError,
    SimilarityMatrixError,
    TestMatrixError,
)
from proxlearn.base import is_pairwise
from proxlearn.solvers import box_lasso_kkt_residual
from proxlearn.svm._psvm import PotentialSVM



blobs = make_noisy_blobs  # (n_classes, n_per_class, seed, noise=4.0)


def test_binary_solution_is_certified_optimal():
    S, y = blobs(2, 20, 0)
    S = S + 0.5 * np.random.default_rng(1).normal(size=S.shape)  # asymmetric
    clf = PotentialSVM(C=0.05, epsilon=1.0, normalize=False).fit(S, y)
    ypm = np.where(y == 1, 1.0, -1.0)
    A = S - S.mean(axis=0)
    alpha = clf.coef_[0]
    assert np.all(np.abs(alpha) <= 0.05)
    assert box_lasso_kkt_residual(A, ypm - ypm.mean(), alpha, 1.0, 0.05) < 1e-6
    assert clf.intercept_[0] == pytest.approx(ypm.mean() - S.mean(axis=0) @ alpha)
    # decision is s^T alpha + b with rows used as given (no symmetrisation)
    np.testing.assert_allclose(clf.decision_function(S), S @ alpha + clf.intercept_[0])
    assert clf.kkt_residual_[0] < 1e-6 and clf.duality_gap_[0] < 1e-6
    assert 0 < len(clf.support_) < len(y)
    assert clf.n_support_.sum() == len(clf.support_)


def test_no_intercept_solves_paper_problem():
    S, y = blobs(2, 15, 2)
    clf = PotentialSVM(C=0.1, epsilon=0.5, fit_intercept=False, normalize=False).fit(S, y)
    ypm = np.where(y == 1, 1.0, -1.0)
    assert clf.intercept_[0] == 0.0
    assert box_lasso_kkt_residual(S, ypm, clf.coef_[0], 0.5, 0.1) < 1e-6


@pytest.mark.parametrize("k", [2, 3])
def test_sanity_accuracy_far_above_chance(k):
    S, y = blobs(k, 40, 0)
    idx = np.arange(len(y))
    tr, te = train_test_split(idx, test_size=0.25, stratify=y, random_state=0)
    clf = PotentialSVM(C=0.01, epsilon=1.0).fit(S[np.ix_(tr, tr)], y[tr])
    assert clf.score(S[np.ix_(te, tr)], y[te]) >= 0.9


def test_multiclass_ovo_structure_and_ties():
    S, y = blobs(3, 10, 3)
    labels = np.array(["a", "b", "c"])[y]
    clf = PotentialSVM(C=0.01, epsilon=1.0).fit(S, labels)
    assert list(clf.classes_) == ["a", "b", "c"]
    assert clf.coef_.shape == (3, 30)
    # pair (0, 1) uses only the rows/columns of classes 0 and 1
    assert np.all(clf.coef_[0, y == 2] == 0.0)
    dec = clf.decision_function(S)
    assert dec.shape == (30, 3)
    np.testing.assert_array_equal(clf.predict(S), clf.classes_[np.argmax(dec, axis=1)])
    raw = PotentialSVM(C=0.01, epsilon=1.0, decision_function_shape="ovo").fit(S, y)
    assert raw.decision_function(S).shape == (30, 3)
    # a test row of zeros gives decision = intercepts; check vote consistency
    votes = np.floor(dec + 0.5)
    assert np.all(votes.sum(axis=1) == 3)


def test_pickle_and_clone():
    S, y = blobs(3, 8, 4)
    clf = PotentialSVM(C=0.02, epsilon=0.5).fit(S, y)
    clf2 = pickle.loads(pickle.dumps(clf))
    np.testing.assert_array_equal(clf.decision_function(S), clf2.decision_function(S))
    c = clone(clf)
    assert c.get_params() == clf.get_params() and not hasattr(c, "coef_")
    assert is_pairwise(clf)


@pytest.mark.parametrize(
    "params", [{"C": 0.0}, {"C": -1.0}, {"epsilon": -0.1}, {"max_iter": 0},
               {"decision_function_shape": "x"}, {"fit_intercept": "yes"},
               {"normalize": "yes"}]
)
def test_invalid_parameters(params):
    S, y = blobs(2, 5, 0)
    with pytest.raises(InvalidParameterError):
        PotentialSVM(**params).fit(S, y)


def test_bad_input():
    S, y = blobs(2, 5, 0)
    with pytest.raises(SimilarityMatrixError):
        PotentialSVM().fit(S[:, :-1], y)
    bad = S.copy()
    bad[0, 1] = np.nan
    with pytest.raises(SimilarityMatrixError):
        PotentialSVM().fit(bad, y)
    with pytest.raises(LabelError):
        PotentialSVM().fit(S, y[:-1])
    with pytest.raises(LabelError):
        PotentialSVM().fit(S, np.zeros(10))
    clf = PotentialSVM().fit(S, y)
    with pytest.raises(TestMatrixError):
        clf.predict(S[:, :-1])


def test_grid_search_slices_rows_and_columns(assert_grid_search_slices):
    S, y = blobs(2, 15, 5)
    assert_grid_search_slices(PotentialSVM(), {"C": [0.01, 0.1], "epsilon": [0.1, 1.0]}, S, y)


def test_check_estimator():
    check_estimator(PotentialSVM(), expected_failed_checks=SKLEARN_CHECK_EXCEPTIONS)


@pytest.mark.parametrize("name,chance", [("aural_sonar", 0.5), ("protein", 1 - 72 / 213)])
def test_uw_sanity(name, chance, uw_holdout_error):
    assert uw_holdout_error(PotentialSVM(), {"C": [0.1, 1.0, 10.0], "epsilon": [0.01, 0.1]}, name) < 0.5 * chance


# ------------------------------------------------------------- scale-free defaults (issue 40)

def test_normalize_divides_by_the_training_scale():
    """normalize=True solves the problem on S / (tr S / n) and folds the scale into
    coef_, so a positive factor on S changes neither coef_ * c nor a prediction."""
    S, y = blobs(3, 12, 4)
    S = 50.0 * S  # not unit scale: normalize matters
    c = np.trace(S) / len(y)
    clf = PotentialSVM().fit(S, y)
    assert clf.scale_ == pytest.approx(c)
    ref = PotentialSVM(normalize=False).fit(S / c, y)
    np.testing.assert_allclose(clf.coef_, ref.coef_ / c, atol=1e-10)
    np.testing.assert_allclose(clf.decision_function(S), ref.decision_function(S / c), atol=1e-8)
    for factor in (1e-3, 1e3):
        scaled = PotentialSVM().fit(factor * S, y)
        np.testing.assert_array_equal(scaled.predict(factor * S), clf.predict(S))
    # the literal reading is not scale-free: a factor changes its solution
    raw = PotentialSVM(normalize=False).fit(S, y)
    assert not np.allclose(raw.coef_, clf.coef_)


def test_default_epsilon_holds_on_a_large_scale_matrix():
    """At the former default (epsilon=0.1, no normalisation) a matrix in large units
    is fitted with almost no l1 penalty; the default is far above chance there."""
    S, y = blobs(3, 30, 1)
    S = 100.0 * S
    tr, te = train_test_split(np.arange(len(y)), test_size=0.3, stratify=y, random_state=0)
    clf = PotentialSVM().fit(S[np.ix_(tr, tr)], y[tr])
    assert clf.score(S[np.ix_(te, tr)], y[te]) >= 0.8
