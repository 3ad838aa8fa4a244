"""MKLClassifierCV: the grid search it replaces, the kernels it shares, bad input."""

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.model_selection import GridSearchCV, StratifiedKFold

from proxlearn.exceptions import InvalidParameterError
from proxlearn.mkl import (
    KTASVC,
    AverageKernelSVC,
    KernelBank,
    MKLClassifierCV,
    NonSparseMKL,
    SimpleMKL,
)
from proxlearn.svm import SimilaritySVC


def _features(n=60, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 4))
    y = (X[:, 0] + 0.5 * X[:, 1] ** 2 + 0.7 * rng.normal(size=n) > 0.4).astype(int)
    return X, y


def _stack(n=48, seed=1):
    X, y = _features(n, seed)
    d2 = ((X[:, None] - X[None]) ** 2).sum(-1)
    return np.stack([np.exp(-d2 / 4), 3.0 * (X @ X.T)], axis=-1), y


BANK = KernelBank(widths=(0.5, 2.0), degrees=(2,))


@pytest.mark.parametrize("est", [AverageKernelSVC(bank=BANK), SimpleMKL(bank=BANK),
                                 NonSparseMKL(bank=BANK), KTASVC(bank=BANK)],
                         ids=lambda e: type(e).__name__)
def test_scores_and_choice_are_grid_search_cvs(est):
    """The same folds' scores, the same C and the same refitted predictions as
    GridSearchCV over C (which rebuilds the bank for every C and fold)."""
    X, y = _features()
    Cs = [0.01, 1.0, 100.0]
    cv = StratifiedKFold(3, shuffle=True, random_state=0)
    ours = MKLClassifierCV(est, Cs=Cs, cv=cv).fit(X, y)
    gs = GridSearchCV(clone(est), {"C": Cs}, cv=cv).fit(X, y)
    scores = np.array([gs.cv_results_[f"split{j}_test_score"] for j in range(3)]).T
    np.testing.assert_allclose(ours.cv_scores_, scores, atol=1e-12)
    assert ours.best_params_ == {"C": gs.best_params_["C"]}
    np.testing.assert_array_equal(ours.predict(X), gs.predict(X))
    assert ours.best_score_ == pytest.approx(gs.best_score_)


def test_stack_input_shares_the_spectra_and_scales():
    X, y = _stack()
    cv = StratifiedKFold(3, shuffle=True, random_state=0)
    ours = MKLClassifierCV(AverageKernelSVC(), Cs=[0.1, 10.0], cv=cv).fit(X, y)
    gs = GridSearchCV(AverageKernelSVC(), {"C": [0.1, 10.0]}, cv=cv).fit(X, y)
    scores = np.array([gs.cv_results_[f"split{j}_test_score"] for j in range(3)]).T
    np.testing.assert_allclose(ours.cv_scores_, scores, atol=1e-12)
    assert ours.__sklearn_tags__().input_tags.pairwise
    np.testing.assert_array_equal(ours.predict(X[:7]), gs.predict(X[:7]))
    np.testing.assert_array_equal(ours.classes_, [0, 1])


def test_kernels_are_built_once_per_fold(monkeypatch):
    X, y = _features()
    calls = []
    fit = KernelBank.fit

    def counted(self, *args, **kwargs):
        calls.append(1)
        return fit(self, *args, **kwargs)

    monkeypatch.setattr(KernelBank, "fit", counted)
    MKLClassifierCV(AverageKernelSVC(bank=BANK), Cs=[0.1, 1.0, 10.0, 100.0], cv=3).fit(X, y)
    assert len(calls) == 3 + 1  # one per fold and the refit, not one per (C, fold)


@pytest.mark.parametrize("Cs", [[], [0.0, 1.0], [-1.0], ["a"], [np.inf]])
def test_bad_grid_is_refused(Cs):
    X, y = _stack()
    with pytest.raises(InvalidParameterError, match="Cs must be a non-empty sequence of positive"):
        MKLClassifierCV(Cs=Cs).fit(X, y)


def test_other_estimators_are_refused_with_the_alternative():
    X, y = _stack()
    with pytest.raises(InvalidParameterError, match="GridSearchCV"):
        MKLClassifierCV(SimilaritySVC()).fit(X[:, :, 0], y)


def test_inner_parameters_are_validated():
    X, y = _stack()
    with pytest.raises(InvalidParameterError, match="normalize must be True or False"):
        MKLClassifierCV(AverageKernelSVC(normalize="yes"), Cs=[1.0], cv=3).fit(X, y)


def test_default_grid_is_the_thesiss_and_wider_for_nonsparse_mkl():
    """NonSparseMKL's C acts on sum_k K_k / gamma_k (m^2 times the average at uniform
    gamma): its default grid reaches 1e-5."""
    X, y = _stack()
    cv = StratifiedKFold(3, shuffle=True, random_state=0)
    simple = MKLClassifierCV(AverageKernelSVC(), cv=cv).fit(X, y)
    np.testing.assert_allclose(simple.Cs_, [0.01, 0.1, 1.0, 10.0, 100.0])
    nonsparse = MKLClassifierCV(NonSparseMKL(), cv=cv).fit(X, y)
    np.testing.assert_allclose(nonsparse.Cs_, 10.0 ** np.arange(-5, 3))
    assert nonsparse.cv_scores_.shape == (8, 3)


def test_mkl_cv_reports_the_same_cv_results_as_the_other_cv_estimators():
    """One grid machinery (proxlearn._cv): MKLClassifierCV's cv_results_ has
    GridSearchCV's keys and its best row is best_C_."""
    from sklearn.datasets import make_classification

    from proxlearn.mkl import AverageKernelSVC, KernelBank, MKLClassifierCV

    X, y = make_classification(60, 4, random_state=0)
    clf = MKLClassifierCV(AverageKernelSVC(bank=KernelBank(per_feature=False)),
                          Cs=[10.0, 0.1, 1.0], cv=3).fit(X, y)
    res = clf.cv_results_
    assert [p["C"] for p in res["params"]] == [0.1, 1.0, 10.0]
    np.testing.assert_allclose(res["mean_test_score"], clf.cv_scores_.mean(axis=1))
    assert res["params"][clf.best_index_] == {"C": clf.best_C_}
    assert res["rank_test_score"][clf.best_index_] == 1 and clf.n_splits_ == 3


def test_a_stack_is_validated_once_and_its_folds_not_again():
    """The stack is validated before the folds (and by the refit's fit); the folds'
    blocks of it are not validated again (issue 36)."""
    from _validations import recorded_validations

    X, y = _stack()
    with recorded_validations() as calls:
        MKLClassifierCV(AverageKernelSVC(), Cs=[0.1, 10.0], cv=3).fit(X, y)
    assert [(c[0], c[2].shape) for c in calls] == [("check_multi_similarity", X.shape)] * 2
