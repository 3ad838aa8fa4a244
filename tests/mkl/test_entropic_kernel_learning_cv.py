"""ESKLCV / EMKLCV / REKLCV: the same choice as GridSearchCV, refit, pairwise slicing,
shared decompositions, bad grids."""

import warnings

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.model_selection import GridSearchCV, StratifiedKFold, cross_val_score

from proxlearn.base import is_pairwise
from proxlearn.exceptions import InvalidParameterError
from proxlearn.mkl import EMKL, EMKLCV, ESKL, ESKLCV, REKL, REKLCV

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
    ours = _quiet(lambda: cvcls(Cs=GRID["C"], rhos=GRID["rho"], cv=folds,
                                warm_start=False).fit(S, y))
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
    import proxlearn.mkl._entropic_kernel_learning as ekl

    calls = []
    real = ekl.positive_basis
    monkeypatch.setattr(ekl, "positive_basis",
                        lambda S, rcond: calls.append(S.shape) or real(S, rcond))
    S, y = _problem(m=1)
    _quiet(lambda: ESKLCV(Cs=GRID["C"], rhos=GRID["rho"], cv=3).fit(S, y))
    assert len(calls) == 3 + 1  # one per fold, one for the refit (6 grid points)


@pytest.mark.parametrize("base,cvcls", PAIRS)
def test_a_fit_no_alpha_bounds_is_not_repeated_at_larger_C(monkeypatch, base, cvcls):
    """Where no SVM / MKL solve of a cold fit has an alpha at its bound C, the cold fit
    at a larger C takes the same steps: the walk reuses it and solves nothing at
    C = 100 (issue 40 item 4: EMKLCV on 10-class stacks), with GridSearchCV's scores."""
    import proxlearn.mkl._entropic_kernel_learning as ekl

    name = "svm_dual" if base is ESKL else "nonsparse_mkl"
    real = getattr(ekl, name)
    calls = []
    monkeypatch.setattr(ekl, name, lambda *a, **k: calls.append(a[2]) or real(*a, **k))
    S, y = _problem(m=1 if base is ESKL else 2)
    s = 2.0 * y - 1.0  # separable: the SVMs' alphas stay far below C = 10
    S = S + 10.0 * (np.outer(s, s) if S.ndim == 2 else np.outer(s, s)[:, :, None])
    folds = StratifiedKFold(3)
    Cs = [1.0, 10.0, 100.0]
    cold = _quiet(lambda: [base(C=10.0).fit(S[np.ix_(tr, tr)], y[tr])
                           for tr, _ in folds.split(S, y)])
    assert all(np.max(np.abs(e.fits_[0]["dual_coef"])) < 10.0 for e in cold)
    del calls[:]
    ours = _quiet(lambda: cvcls(Cs=Cs, rhos=[1.0], cv=folds, warm_start=False).fit(S, y))
    assert calls and 100.0 not in calls
    grid = _quiet(lambda: GridSearchCV(base(), {"C": Cs, "rho": [1.0]}, cv=folds).fit(S, y))
    np.testing.assert_allclose(ours.cv_results_["mean_test_score"],
                               grid.cv_results_["mean_test_score"])
    assert ours.best_params_ == grid.best_params_


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
    with pytest.raises(InvalidParameterError, match="warm_start must be True, False or .auto."):
        ESKLCV(warm_start="yes").fit(S, y)
    with pytest.raises(InvalidParameterError, match="loss"):
        REKLCV(loss="l3").fit(S, y)
    with pytest.raises(InvalidParameterError, match="max_iter"):
        ESKLCV(max_iter=0).fit(S, y)


def _fold_walk(cvcls, S, y, warm, train, **grid):
    """The fitted estimators of one fold's walk of ``cvcls`` (its ``_walk``, kept)."""
    from proxlearn._cv import check_grid, grid_walk

    cv = cvcls(Cs=grid.get("Cs", GRID["C"]), rhos=grid.get("rhos", GRID["rho"]),
               warm_start=warm)
    points = grid_walk(rho=check_grid(cv.rhos, "rhos"), C=check_grid(cv.Cs, "Cs"))
    X = S[np.ix_(train, train)] if S.ndim == 2 else S[train][:, train]
    shared, fits = {}, []
    for p in points:
        est = cv._base(**p)
        est._cv_state = shared
        _quiet(lambda: est.fit(X, y[train]))
        del est._cv_state
        if not warm:
            for state in shared.values():
                state.pop("warm", None)
        fits.append(est)
    return points, fits


def test_eskl_warm_fits_carry_the_cold_fits_certificate():
    """Where a cold ESKL-L3 fit certifies its gap (dual bound), the warm fit at the same
    point does too, and both objectives are then within tol of the same optimum."""
    S, y = _problem(n=40, m=1, seed=5)
    train = np.arange(30)
    grid = dict(Cs=[0.1, 0.3, 1.0], rhos=[0.3, 1.0, 3.0])
    _, cold = _fold_walk(ESKLCV, S, y, False, train, **grid)
    points, warm = _fold_walk(ESKLCV, S, y, True, train, **grid)
    certified = [c.gap_ <= c.tol for c in cold]
    assert sum(certified) >= len(points) // 2  # the dual bound closes the gap
    for p, w, c, ok in zip(points, warm, cold, certified):
        if ok:
            assert w.gap_ <= w.tol, p
            assert abs(w.objective_ - c.objective_) <= 2 * w.tol * abs(c.objective_), p


def test_a_warm_start_at_the_optimum_stops_at_its_first_iterate():
    """The certificate depends on the iterate only: started from a converged kernel,
    a fit stops at once (before: at least one 10-iteration stagnation window)."""
    S, y = _problem(n=40, m=1, seed=5)
    shared = {}
    first = ESKL(C=0.3, rho=1.0, tol=1e-3, max_iter=1000)
    first._cv_state = shared
    _quiet(lambda: first.fit(S, y))
    assert first.gap_ <= 5e-3  # certified well inside the default tol=1e-2
    again = ESKL(C=0.3, rho=1.0)
    again._cv_state = shared
    _quiet(lambda: again.fit(S, y))
    assert again.n_iter_ == 1 and again.gap_ <= again.tol
    assert again.objective_ == pytest.approx(first.objective_, rel=1e-2)



def test_a_rekl_warm_start_at_the_optimum_stops_at_its_first_iterate():
    """REKL's Lagrangian bound certifies a converged fit (the Frank-Wolfe bound: 0.08
    after 130 iterations), so a warm start from it stops at its first iterate (before:
    the 21 iterations of the stagnation fallback)."""
    S, y = _problem(n=40, m=2, seed=5)
    shared = {}
    first = REKL(C=0.3, rho=1.0, tol=1e-3, max_iter=1000)
    first._cv_state = shared
    _quiet(lambda: first.fit(S, y))
    assert first.gap_ <= 5e-3
    again = REKL(C=0.3, rho=1.0)
    again._cv_state = shared
    _quiet(lambda: again.fit(S, y))
    assert again.n_iter_ == 1 and again.gap_ <= again.tol
    assert again.objective_ == pytest.approx(first.objective_, rel=1e-2)

@pytest.mark.parametrize("base,cvcls", PAIRS)
def test_the_warm_walk_chooses_as_well_as_grid_search(base, cvcls):
    """The warm walk may choose another point than GridSearchCV; judged by the exact
    (cold) scores, its choice is within one validation sample of the best."""
    S, y = _problem(n=45, m=1 if base is ESKL else 2, seed=4)
    folds = StratifiedKFold(3)
    warm = _quiet(lambda: cvcls(Cs=GRID["C"], rhos=GRID["rho"], cv=folds,
                                warm_start=True).fit(S, y))
    cold = _quiet(lambda: cvcls(Cs=GRID["C"], rhos=GRID["rho"], cv=folds,
                                warm_start=False).fit(S, y))
    exact = cold.cv_results_["mean_test_score"]
    assert exact[warm.best_index_] >= exact.max() - 1.0 / 15 - 1e-12
    np.testing.assert_allclose(warm.cv_results_["mean_test_score"], exact, atol=0.2)


def test_warm_start_auto_is_on_where_a_certificate_closes_the_gap(monkeypatch):
    """``"auto"`` (the default): warm walks for REKL only, whose warm walks kept every
    verdict of the defaults panel; cold for ESKL (its warm walks scored lower there)
    and EMKL (its L1 bound leaves every fit to the stagnation fallback)."""
    seen = []
    real = ESKLCV._walk

    def spy(self, *args):
        seen.append((type(self).__name__, self.loss, self._warm))
        return real(self, *args)
    for cls in (ESKLCV, EMKLCV, REKLCV):
        monkeypatch.setattr(cls, "_walk", spy)
    S, y = _problem(m=1)
    for est in (ESKLCV(warm_start="auto"), ESKLCV(loss="l1", warm_start="auto"),
                EMKLCV(warm_start="auto"), REKLCV(warm_start="auto"), ESKLCV(),
                EMKLCV(warm_start=True), REKLCV(), ESKLCV(warm_start=True)):
        _quiet(lambda: est.set_params(Cs=[1.0], rhos=[1.0], cv=2, max_iter=5).fit(S, y))
    assert [w for *_, w in seen[::2]] == [False, False, False, True, False, True, True, True]
