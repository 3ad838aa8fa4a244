"""The one solver result type: scipy's OptimizeResult with aliases for the old names."""

import copy
import pickle

import numpy as np
import pytest
from scipy.optimize import OptimizeResult

from proxlearn.kernel_learning import CompletionResult, em_complete
from proxlearn.kernel_learning._svmca import SVMCAResult
from proxlearn.manifold._saddle import SaddleResult
from proxlearn.mkl import GMKLResult, MKLResult, UMKLResult, gmkl, simple_mkl, umkl
from proxlearn.mkl._nonsparse_newton import NonsparseNewtonResult
from proxlearn.ranking import NPKRankResult
from proxlearn.solvers import BoxLassoResult, DualAscentResult, SolverResult, box_lasso

RESULTS = [MKLResult, NonsparseNewtonResult, GMKLResult, UMKLResult, SaddleResult,
           NPKRankResult, BoxLassoResult, SVMCAResult, CompletionResult, DualAscentResult]


class _Result(SolverResult):
    _aliases = {"objective": "fun", "n_iter": "nit"}


@pytest.mark.parametrize("cls", RESULTS, ids=lambda c: c.__name__)
def test_every_solver_result_is_an_optimize_result(cls):
    assert issubclass(cls, SolverResult) and issubclass(cls, OptimizeResult)
    for alias, key in cls._aliases.items():
        assert alias != key and key not in cls._aliases  # an alias names a stored field


def test_alias_reads_and_writes_the_stored_field():
    res = _Result(x=np.zeros(2), fun=1.0, nit=2)
    assert res.objective == res["objective"] == res.get("objective") == 1.0
    assert "n_iter" in res and "objective" not in res.keys()
    res.n_iter = 5
    res["objective"] = 3.0
    assert (res.nit, res.fun) == (5, 3.0)
    assert sorted(res) == ["fun", "nit", "x"]  # aliases are not stored
    del res.objective
    assert "fun" not in res
    with pytest.raises(AttributeError):
        res.objective


def test_pickle_and_copy_keep_class_and_fields():
    res = box_lasso(np.array([[1.0, 0.0], [0.0, 2.0], [1.0, 1.0]]), np.array([1.0, 2.0, 0.0]),
                    0.1, 1.0)
    for other in (pickle.loads(pickle.dumps(res)), copy.copy(res), copy.deepcopy(res)):
        assert type(other) is BoxLassoResult
        assert other.keys() == res.keys()
        np.testing.assert_array_equal(other.x, res.x)
        assert other.objective == res.fun and other.converged == res.success


def test_repr_shows_large_arrays_by_shape():
    res = _Result(x=np.zeros((50, 50)), fun=0.5, history=list(range(100)), message="done")
    text = repr(res)
    assert "(50, 50)" in text and "list of 100" in text
    assert text.index("message") < text.index("fun") < text.index("x:") < text.index("history")
    assert len(text.splitlines()) == 6


def test_old_field_names_of_the_mkl_results():
    x = np.random.default_rng(0).normal(size=(30, 2))
    y = np.where(x[:, 0] > 0, 1, -1)
    Ks = np.exp(-(x[:, None, :] - x[None, :, :]) ** 2)
    res = simple_mkl(Ks, y)
    assert res.weights is res.x and res.objective == res.fun and res.n_iter == res.nit
    g = gmkl(x, y)
    assert g.theta is g.x and g.converged == g.success and g.status == (0 if g.success else 1)
    u = umkl(Ks, x @ x.T, B=3)
    assert u.weights is u.x and u.objective == u.fun and u.converged == u.success


def test_old_field_names_of_the_other_results():
    c = em_complete(2 * np.eye(2), np.eye(3))
    assert c.n_iter == c.nit == c["n_iter"]
    s = SaddleResult(np.eye(2), np.ones(1), 2.0, 1.5, 3, True)
    assert s.alpha is s.x and s.gap == 0.5 and s.converged and s.status == 0
    r = NPKRankResult(np.eye(2), np.ones(1), np.zeros((1, 2), dtype=int), 1.0, 0.25, 4)
    assert r.alpha is r.x and r.gap == 0.75 and r.n_iter == 4 and r.history == []
    n = NonsparseNewtonResult(np.ones(2), 0.1, np.ones(2) / 2, 3.0, 2)
    assert n.value == n.fun == 3.0 and n.n_steps == n.nit == 2 and n.products is None
    v = SVMCAResult(np.eye(2), np.eye(2), np.ones((1, 2)), np.zeros(1), converged=True)
    assert v.converged and v.n_iter == 0 and v.status == 0
