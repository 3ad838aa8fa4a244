"""ESKLCV / EMKLCV / REKLCV: the same choice as GridSearchCV, refit, pairwise slicing,
shared decompositions, bad grids."""

import warnings

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.model_selection import GridSearchCV, StratifiedKFold, cross_val_score

from proxlearn.base import is_pairwise
from proxlearn.exceptions import InvalidParameterError
from proxlearn.kernel_learning import EMKL, EMKLCV, ESKL, ESKLCV, REKL, REKLCV

PAIRS = [(ESKL, ESKLCV), (EMKL, EMKLCV), (REKL, REKLCV)]
GRID = {"C": [0.01, 1.0, 100.0], "rho": [0.1, 10.0]}


def _problem(n=36, m=2, seed=0, classes=2):
    rng = np.random.default_rng(seed)
    y = np.arange(n) % classes
    mats = []
    for k in range(m):
        X = rng.normal(size=(n, 3))
        X[:, 0] += 1.5 * y + 0.3 * k
        E = rng.normal(scale=0.5, size=(n, n))
        mats.append(X @ X.T + (E + E.T) / 2)  # indefinite
    return np.stack(mats, axis=2) if m > 1 else mats[0], y


def _quiet(fn):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn()


@pytest.mark.parametrize("base,cvcls", PAIRS)
def test_same_choice_and_scores_as_grid_search(base, cvcls):
    S, y = _problem(m=1 if base is ESKL else 2)
    folds = StratifiedKFold(3)
    ours = _quiet(lambda: cvcls(Cs=GRID["C"], rhos=GRID["rho"], cv=folds).fit(S, y))
    grid = _quiet(lambda: GridSearchCV(base(), GRID, cv=folds).fit(S, y))
    assert ours.best_params_ == grid.best_params_
    assert [p for p in ours.cv_results_["params"]] == list(grid.cv_results_["params"])
    np.testing.assert_allclose(ours.cv_results_["mean_test_score"],
                               grid.cv_results_["mean_test_score"])
    np.testing.assert_array_equal(ours.cv_results_["rank_test_score"],
                                  grid.cv_results_["rank_test_score"])
    assert ours.best_index_ == grid.best_index_
    assert ours.best_score_ == pytest.approx(grid.best_score_)
    # refitted on all the data at the chosen point
    ref = _quiet(lambda: base(**ours.best_params_).fit(S, y))
    np.testing.assert_allclose(ours.decision_function(S[:6]), ref.decision_function(S[:6]))
    assert ours.best_C_ == ours.best_params_["C"] and ours.n_splits_ == 3


def test_the_basis_is_decomposed_once_per_fold_not_per_grid_point(monkeypatch):
    import proxlearn.kernel_learning._kundu as kundu

    calls = []
    real = kundu.positive_basis
    monkeypatch.setattr(kundu, "positive_basis",
                        lambda S, rcond: calls.append(S.shape) or real(S, rcond))
    S, y = _problem(m=1)
    _quiet(lambda: ESKLCV(Cs=GRID["C"], rhos=GRID["rho"], cv=3).fit(S, y))
    assert len(calls) == 3 + 1  # one per fold, one for the refit (6 grid points)


def test_multiclass_and_warm_start():
    S, y = _problem(n=45, m=1, classes=3)
    for warm in (False, True):
        est = _quiet(lambda: ESKLCV(Cs=[0.1, 10.0], rhos=[1.0], cv=3,
                                    warm_start=warm).fit(S, y))
        assert set(est.predict(S[:9])) <= {0, 1, 2}
        assert est.cv_results_["mean_test_score"].shape == (2,)
        assert np.all(np.isfinite(est.cv_results_["mean_test_score"]))
        # the refit is a cold fit whatever the walk did
        ref = _quiet(lambda: ESKL(**est.best_params_).fit(S, y))
        np.testing.assert_allclose(est.decision_function(S[:5]), ref.decision_function(S[:5]))


@pytest.mark.parametrize("cvcls", [ESKLCV, REKLCV])
def test_pairwise_slicing_in_cross_val_score(cvcls):
    S, y = _problem(m=1 if cvcls is ESKLCV else 2, seed=3)
    est = cvcls(Cs=[0.1, 10.0], rhos=[1.0], cv=2)
    assert is_pairwise(est)
    outer = StratifiedKFold(3)
    scores = _quiet(lambda: cross_val_score(est, S, y, cv=outer))
    for s, (tr, te) in zip(scores, outer.split(S[:, :, 0] if S.ndim == 3 else S, y)):
        fitted = _quiet(lambda: clone(est).fit(S[np.ix_(tr, tr)], y[tr]))
        assert s == pytest.approx(fitted.score(S[np.ix_(te, tr)], y[te]))


@pytest.mark.parametrize("bad", [[], [0.0, 1.0], [-1.0], ["a"], [np.inf], None])
def test_invalid_grids_are_refused_by_name(bad):
    S, y = _problem(m=1)
    with pytest.raises(InvalidParameterError, match="Cs must be a non-empty"):
        ESKLCV(Cs=bad).fit(S, y)
    with pytest.raises(InvalidParameterError, match="rhos must be a non-empty"):
        EMKLCV(rhos=bad).fit(S, y)


def test_bad_options_fail_before_any_fold():
    S, y = _problem(m=1)
    with pytest.raises(InvalidParameterError, match="warm_start"):
        ESKLCV(warm_start="yes").fit(S, y)
    with pytest.raises(InvalidParameterError, match="loss"):
        REKLCV(loss="l3").fit(S, y)
    with pytest.raises(InvalidParameterError, match="max_iter"):
        ESKLCV(max_iter=0).fit(S, y)
