"""The properties tests/test_all_estimators.py checks for every classifier and
transformer, for the Kreĭn regressors (listed there in ``REGRESSORS``): pairwise tag,
parameters untouched, pickle, clear errors, degenerate and huge matrices, masked
input, distance matrices, far-out test rows."""

import pickle
import warnings

import numpy as np
import pytest
from scipy.spatial.distance import cdist
from sklearn.base import clone, is_regressor

from proxlearn.base import is_pairwise
from proxlearn.exceptions import (
    DissimilarityWarning,
    InvalidParameterError,
    LabelError,
    SimilarityMatrixError,
    SolverError,
    TestMatrixError,
)
from proxlearn.krein import KreinLeastSquares, KreinSVR

REGRESSORS = {"KreinSVR": KreinSVR, "KreinLeastSquares": KreinLeastSquares}


def _problem(n=24, seed=0):
    rng = np.random.default_rng(seed)
    X = np.vstack([rng.normal(loc=m, size=(n // 2, 2)) for m in (-2.0, 2.0)])
    Z = rng.normal(scale=0.3, size=(n, n))
    return X @ X.T + (Z + Z.T) / 2 + 3.0, X[:, 0] + 0.5 * X[:, 1]


def _fit(est, S, t):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return clone(est).fit(S, t)


@pytest.mark.parametrize("name", sorted(REGRESSORS))
def test_common_properties(name):
    est = REGRESSORS[name]()
    assert is_pairwise(est) and is_regressor(est)
    S, t = _problem()
    fitted = _fit(est, S, t)
    assert fitted.get_params() == est.get_params()
    back = pickle.loads(pickle.dumps(fitted))
    np.testing.assert_array_equal(back.predict(S[:5]), fitted.predict(S[:5]))
    assert -1.0 < fitted.score(S, t) <= 1.0
    with pytest.raises(TestMatrixError):
        fitted.predict(S[:5, :-1])
    with pytest.raises(SimilarityMatrixError):
        clone(est).fit(S[:, :-1], t)
    bad = S.copy()
    bad[1, 2] = np.nan
    with pytest.raises(SimilarityMatrixError):
        clone(est).fit(bad, t)
    with pytest.raises(LabelError):
        clone(est).fit(S, t[:-1])
    with pytest.raises(LabelError):
        clone(est).fit(S, np.array(["a"] * len(t), dtype=object))


@pytest.mark.parametrize("name", sorted(REGRESSORS))
@pytest.mark.parametrize("kind", ["zero", "rank-one"])
def test_degenerate_matrices_never_give_nan(name, kind):
    _, t = _problem()
    n = t.size
    v = np.random.default_rng(1).normal(size=(n, 1))
    S = np.zeros((n, n)) if kind == "zero" else v @ v.T
    fitted = _fit(REGRESSORS[name](), S, t)
    assert np.all(np.isfinite(fitted.predict(S[:6])))


@pytest.mark.parametrize("name", sorted(REGRESSORS))
def test_masked_arrays_are_refused(name):
    S, t = _problem()
    masked = np.ma.masked_array(S, mask=np.zeros_like(S, dtype=bool))
    masked[1, 2] = np.ma.masked
    with pytest.raises(SimilarityMatrixError, match="masked"):
        REGRESSORS[name]().fit(masked, t)
    fitted = _fit(REGRESSORS[name](), S, t)
    with pytest.raises(SimilarityMatrixError, match="masked"):
        fitted.predict(masked[:5])


@pytest.mark.parametrize("name", sorted(REGRESSORS))
def test_huge_entries_give_a_clear_error_or_finite_output(name):
    S, t = _problem()
    try:
        out = _fit(REGRESSORS[name](), S * 1e155, t).predict(S[:5] * 1e155)
    except (SimilarityMatrixError, InvalidParameterError, SolverError) as exc:
        assert "too large" in str(exc) and "Rescale" in str(exc), exc
        return
    assert np.all(np.isfinite(out))


@pytest.mark.parametrize("name", sorted(REGRESSORS))
def test_distance_matrix_warns_once(name):
    rng = np.random.default_rng(0)
    X = np.vstack([rng.normal(m, 1.0, (12, 2)) for m in (-2.0, 2.0)])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        REGRESSORS[name]().fit(cdist(X, X), X[:, 0])
    assert sum(issubclass(w.category, DissimilarityWarning) for w in caught) == 1


@pytest.mark.parametrize("name", sorted(REGRESSORS))
def test_far_out_test_rows_give_finite_output(name):
    S, t = _problem()
    fitted = _fit(REGRESSORS[name](), S, t)
    far = np.abs(S).max() * 1e6 * np.random.default_rng(3).uniform(0.5, 1.0, (3, S.shape[1]))
    far[1] *= -1
    assert np.all(np.isfinite(fitted.predict(far)))


def test_max_iter_is_checked():
    S, t = _problem()
    for value in (0, -2):
        with pytest.raises(InvalidParameterError, match="max_iter"):
            KreinSVR(max_iter=value).fit(S, t)
