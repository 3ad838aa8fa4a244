"""proxlearn._cv: grids, the snake walk, cv_results_."""

import numpy as np
import pytest

from proxlearn._cv import check_grid, cv_results, grid_walk
from proxlearn.exceptions import InvalidParameterError


def test_check_grid_sorts_and_refuses():
    np.testing.assert_array_equal(check_grid([10, 0.1, 1, 1], "Cs"), [0.1, 1, 10])
    for bad in ([], [0], [-1, 1], [np.nan], "x", None):
        with pytest.raises(InvalidParameterError, match="Cs"):
            check_grid(bad, "Cs")


def test_grid_walk_is_a_snake_over_the_whole_grid():
    pts = grid_walk(rho=np.array([0.1, 1.0, 10.0]), C=np.array([1.0, 2.0]))
    assert sorted((p["rho"], p["C"]) for p in pts) == [
        (r, c) for r in (0.1, 1.0, 10.0) for c in (1.0, 2.0)]
    for a, b in zip(pts, pts[1:]):  # neighbours differ in one coordinate
        assert sum(a[k] != b[k] for k in a) == 1
    assert [p["C"] for p in pts] == [1.0, 2.0, 2.0, 1.0, 1.0, 2.0]


def test_cv_results_sorted_ranked_and_ties_to_the_smallest():
    pts = [{"C": 2.0}, {"C": 1.0}, {"C": 3.0}]
    scores = np.array([[0.5, 0.7], [0.6, 0.6], [0.2, 0.2]])
    res, best = cv_results(pts, scores)
    np.testing.assert_array_equal(res["param_C"], [1.0, 2.0, 3.0])
    np.testing.assert_allclose(res["mean_test_score"], [0.6, 0.6, 0.2])
    np.testing.assert_array_equal(res["rank_test_score"], [1, 1, 3])
    assert best == 0 and res["params"][best] == {"C": 1.0}
    np.testing.assert_allclose(res["split1_test_score"], [0.6, 0.7, 0.2])


# --------------------------------------------------------------------------- internal CV of "auto"

def test_internal_folds_are_krein_s_former_folds():
    from sklearn.model_selection import KFold

    from proxlearn._cv import internal_folds

    for n in (3, 12, 101):
        ref = list(KFold(min(5, n), shuffle=True, random_state=0).split(np.zeros(n)))
        got = internal_folds(n)
        assert len(got) == len(ref)
        for (a, b), (c, d) in zip(got, ref):
            assert np.array_equal(a, c) and np.array_equal(b, d)


def test_internal_cv_argmin_sums_squared_errors_over_folds_per_column():
    from proxlearn._cv import internal_cv_argmin, internal_folds

    rng = np.random.default_rng(0)
    T = rng.normal(size=(20, 2))
    shifts = (-1.0, 0.0, 0.5)
    T[:, 1] += 0.5 * (np.arange(20) % 2)  # brute force over the same folds decides

    def preds(tr, val):
        return [np.tile(T[tr].mean(axis=0) + s, (len(val), 1)) for s in shifts]

    brute = np.zeros((len(shifts), 2))
    for tr, val in internal_folds(20):
        for i, p in enumerate(preds(tr, val)):
            brute[i] += ((p - T[val]) ** 2).sum(axis=0)
    assert np.array_equal(internal_cv_argmin(T, preds), brute.argmin(axis=0))
    assert int(internal_cv_argmin(T[:, 0], lambda tr, val: [p[:, 0] for p in preds(tr, val)])) \
        == brute[:, 0].argmin()
