"""SimilaritySVCCV: C by cross-validation with one spectrum per fold."""

import numpy as np
import pytest
from sklearn.model_selection import GridSearchCV, StratifiedKFold, cross_val_score

from proxlearn._validation import InvalidParameterError
from proxlearn.svm import SimilaritySVC, SimilaritySVCCV
from proxlearn.transforms import _spectrum


def _problem(n=60, seed=0):
    rng = np.random.default_rng(seed)
    X = np.r_[rng.normal(0, 1, (n // 2, 3)), rng.normal(1.2, 1, (n // 2, 3))]
    y = np.repeat([0, 1], n // 2)
    noise = rng.normal(0, 0.8, (n, n))
    S = X @ X.T + 0.5 * (noise + noise.T)  # indefinite, not unit-diagonal
    return 3.0 * S, y


def test_same_choice_and_scores_as_grid_search_with_one_spectrum_per_fold(monkeypatch):
    S, y = _problem()
    Cs = [0.01, 0.1, 1.0, 10.0, 100.0]
    cv = StratifiedKFold(4)
    calls = []
    orig = _spectrum.SpectrumTransformer._fit_checked
    monkeypatch.setattr(_spectrum.SpectrumTransformer, "_fit_checked",
                        lambda self, *a, **k: calls.append(1) or orig(self, *a, **k))
    ours = SimilaritySVCCV(Cs=Cs, cv=cv).fit(S, y)
    n_ours = len(calls)
    calls.clear()
    ref = GridSearchCV(SimilaritySVC(), {"C": Cs}, cv=cv).fit(S, y)
    assert ours.best_params_ == ref.best_params_ and ours.best_C_ == ref.best_params_["C"]
    np.testing.assert_allclose(ours.cv_results_["mean_test_score"],
                               ref.cv_results_["mean_test_score"])
    np.testing.assert_array_equal(ours.cv_results_["rank_test_score"],
                                  ref.cv_results_["rank_test_score"])
    # 4 folds + the refit, against one per (C, fold) + the refit
    assert n_ours == 4 + 1 and len(calls) == 5 * 4 + 1
    np.testing.assert_array_equal(ours.predict(S[:10]), ref.best_estimator_.predict(S[:10]))


def test_the_template_keeps_its_parameters_and_the_refit_is_on_all_rows():
    S, y = _problem(seed=1)
    clf = SimilaritySVCCV(SimilaritySVC(spectrum="flip", normalize=False), Cs=[0.1, 1.0],
                          cv=3).fit(S, y)
    best = clf.best_estimator_
    assert best.spectrum == "flip" and best.normalize is False and best.C == clf.best_C_
    assert best.n_features_in_ == clf.n_features_in_ == len(y)
    np.testing.assert_array_equal(clf.classes_, [0, 1])


def test_pairwise_slicing_in_cross_val_score():
    S, y = _problem(seed=2)
    cv = StratifiedKFold(3)
    auto = cross_val_score(SimilaritySVCCV(Cs=[0.1, 10.0], cv=3), S, y, cv=cv)
    manual = []
    for tr, te in cv.split(S, y):
        m = SimilaritySVCCV(Cs=[0.1, 10.0], cv=3).fit(S[np.ix_(tr, tr)], y[tr])
        manual.append(np.mean(m.predict(S[np.ix_(te, tr)]) == y[te]))
    np.testing.assert_allclose(auto, manual)


@pytest.mark.parametrize("kw,match", [
    ({"Cs": []}, "Cs must be a non-empty sequence"),
    ({"Cs": [1.0, -1.0]}, "Cs must be a non-empty sequence"),
    ({"estimator": "svm"}, "estimator must be a proxlearn.svm.SimilaritySVC"),
    ({"estimator": SimilaritySVC(spectrum="nope")}, "spectrum"),
])
def test_bad_parameters_are_refused_before_any_work(kw, match):
    S, y = _problem(20)
    with pytest.raises(InvalidParameterError, match=match):
        SimilaritySVCCV(**kw).fit(S, y)


def test_scale_free_at_its_defaults():
    S, y = _problem(seed=3)
    a = SimilaritySVCCV(cv=3).fit(S, y)
    b = SimilaritySVCCV(cv=3).fit(1e3 * S, y)
    assert a.best_C_ == b.best_C_
    np.testing.assert_array_equal(a.predict(S[:15]), b.predict(1e3 * S[:15]))
