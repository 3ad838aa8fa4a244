"""Multiclass MKL with one weight vector shared by all pairs of classes
(``multiclass="shared"``, :func:`proxlearn.mkl._solvers.shared_mkl`): the same
problem in cvxpy (objective and weights), its certificate, and the estimators."""

import cvxpy as cp
import numpy as np
import pytest
from sklearn.base import clone
from sklearn.datasets import load_iris, load_wine

from proxlearn._svm._multiclass import ovo_problems
from proxlearn.datasets import load_dataset
from proxlearn.mkl import KernelBank, LpMKL, SimpleMKL
from proxlearn.mkl._bank import stack_combine
from proxlearn.mkl._solvers import shared_mkl, simple_mkl


def _iris_problem(n_per_class=15, seed=0):
    """Three Gaussian kernels and a linear one on iris (z-scored), 3 classes."""
    X, y = load_iris(return_X_y=True)
    rng = np.random.default_rng(seed)
    keep = np.concatenate([rng.choice(np.flatnonzero(y == c), n_per_class, replace=False)
                           for c in range(3)])
    X = (X[keep] - X[keep].mean(0)) / X[keep].std(0)
    d2 = ((X[:, None] - X[None]) ** 2).sum(-1)
    Ks = np.stack([np.exp(-d2 / s) for s in (0.5, 4.0, 32.0)] + [X[:, 2:3] @ X[:, 2:3].T], -1)
    return Ks, y[keep]


def _factor(K):
    lam, V = np.linalg.eigh(K)
    return V * np.sqrt(np.maximum(lam, 0.0))


def _cvx_shared(Ks, y_idx, n_classes, C, p=1.0):
    """The dual of ``min_d sum_pairs omega_pair(K_d)`` as one cvxpy program:
    ``max sum_pairs 1^T alpha_pair - 1/2 ||t||`` (max-norm on the simplex, the
    ``q = p/(p-1)`` norm on the Lp ball) with ``t_k >= sum_pairs a_k^pair``.
    Returns the value and the weights (the multipliers of the ``t`` constraints)."""
    problems = ovo_problems(y_idx, n_classes)
    m = Ks.shape[2]
    alphas, cons, quads = [], [], [0] * m
    for pr in problems:
        a = cp.Variable(pr.idx.size)
        u = cp.multiply(pr.y, a)
        cons += [pr.y @ a == 0, a >= 0, a <= C]
        for k in range(m):
            L = _factor(Ks[np.ix_(pr.idx, pr.idx, [k])][:, :, 0])
            quads[k] = quads[k] + cp.sum_squares(L.T @ u)
        alphas.append(a)
    t = cp.Variable(m)
    link = [t[k] >= quads[k] for k in range(m)]
    reg = cp.max(t) if p == 1.0 else cp.pnorm(t, p / (p - 1.0))
    prob = cp.Problem(cp.Maximize(sum(cp.sum(a) for a in alphas) - 0.5 * reg), cons + link)
    prob.solve(solver="CLARABEL")
    d = np.array([np.asarray(c.dual_value).ravel()[0] for c in link])
    return prob.value, 2.0 * d  # the objective's factor 1/2: d = 2 * multiplier


@pytest.mark.parametrize("solver", ["spg", "reduced-gradient"])
@pytest.mark.parametrize("C", [0.5, 10.0])
def test_shared_simple_mkl_reaches_the_cvxpy_optimum(C, solver):
    Ks, y = _iris_problem()
    res = shared_mkl(Ks, ovo_problems(y, 3), C, tol=1e-6, solver=solver)
    value, d = _cvx_shared(Ks, y, 3, C)
    assert res.objective == pytest.approx(value, rel=1e-5)
    # the certificate: a duality gap below tol, against a lower bound it computes
    assert 0.0 <= res.gap <= 1e-6 * abs(res.objective) + 1e-9
    assert res.weights.min() >= 0 and res.weights.sum() == pytest.approx(1.0)
    np.testing.assert_allclose(res.weights, d, atol=2e-3)
    # KKT of the weights: the kernels with weight carry the largest summed a_k
    a = np.zeros(Ks.shape[2])
    for pr, alpha in zip(ovo_problems(y, 3), res.alpha):
        u = alpha * pr.y
        a += np.einsum("i,ijk,j->k", u, Ks[np.ix_(pr.idx, pr.idx)], u)
    assert np.all(a[res.weights > 1e-6] >= a.max() * (1 - 1e-4))
    # each pair's alpha is the SVM of its block of K_d
    K = stack_combine(Ks, res.weights)
    for pr, alpha in zip(ovo_problems(y, 3), res.alpha):
        assert pr.y @ alpha == pytest.approx(0.0, abs=1e-8)
        assert alpha.min() >= -1e-12 and alpha.max() <= C + 1e-12


@pytest.mark.parametrize("p", [2.0, 3.0])
def test_shared_lp_mkl_reaches_the_cvxpy_optimum(p):
    Ks, y = _iris_problem(seed=1)
    res = shared_mkl(Ks, ovo_problems(y, 3), 1.0, p, tol=1e-6)
    value, d = _cvx_shared(Ks, y, 3, 1.0, p)
    assert res.objective == pytest.approx(value, rel=1e-5)
    assert 0.0 <= res.gap <= 1e-6 * abs(res.objective) + 1e-9
    assert np.linalg.norm(res.weights, p) == pytest.approx(1.0, rel=1e-9)
    np.testing.assert_allclose(res.weights, d, atol=5e-3)


def test_shared_objective_is_at_least_the_per_pair_sum():
    """Shared weights constrain the per-pair problem (every pair the same d): its
    optimum is at least the sum of the pairs' own optima, and equal only when those
    agree."""
    Ks, y = _iris_problem(seed=2)
    problems = ovo_problems(y, 3)
    shared = shared_mkl(Ks, problems, 1.0, tol=1e-7)
    own = [simple_mkl(Ks[np.ix_(pr.idx, pr.idx)], pr.y, 1.0, tol=1e-7) for pr in problems]
    assert shared.objective >= sum(r.objective for r in own) * (1 - 1e-6)


@pytest.mark.parametrize("cls", [SimpleMKL, LpMKL])
def test_estimator_with_shared_weights_is_the_solver(cls):
    """spectrum=None on PSD kernels: the estimator's weights, objective and dual
    coefficients are the solver's, and its predictions the one-vs-one votes of the
    pairs' SVMs on the one combination."""
    Ks, y = _iris_problem(seed=3)
    est = cls(spectrum=None, normalize=False, multiclass="shared", tol=1e-6).fit(Ks, y)
    p = 1.0 if cls is SimpleMKL else est.p
    res = shared_mkl(Ks, ovo_problems(y, 3), 1.0, p, tol=1e-6)
    np.testing.assert_allclose(est.weights_, res.weights)
    assert est.weights_.shape == (Ks.shape[2],)
    assert est.objective_ == pytest.approx(res.objective)
    # the decision values are those of the per-pair path's formula on the same weights
    K = stack_combine(Ks, res.weights)
    raw = np.column_stack([K[:, pr.idx] @ (a * pr.y) + b for pr, a, b in
                           zip(ovo_problems(y, 3), res.alpha, res.b)])
    np.testing.assert_allclose(est._raw(Ks), raw, rtol=1e-10, atol=1e-10)
    per_pair = clone(est).set_params(multiclass="per-pair").fit(Ks, y)
    assert per_pair.weights_.shape == (3, Ks.shape[2])


def test_two_classes_give_the_same_model_either_way():
    Ks, y = _iris_problem(seed=4)
    two = y > 0
    Ks2, y2 = Ks[np.ix_(two, two)], y[two]
    a = SimpleMKL(multiclass="shared").fit(Ks2, y2)
    b = SimpleMKL().fit(Ks2, y2)
    np.testing.assert_array_equal(a.weights_, b.weights_)
    np.testing.assert_array_equal(a.decision_function(Ks2), b.decision_function(Ks2))


def test_refit_per_pair_after_shared_forgets_the_shared_result():
    Ks, y = _iris_problem(seed=5)
    est = SimpleMKL(multiclass="shared").fit(Ks, y)
    assert hasattr(est, "result_")
    est.set_params(multiclass="per-pair").fit(Ks, y)
    assert not hasattr(est, "result_") and est.weights_.shape == (3, Ks.shape[2])


def test_shared_weights_on_a_real_stack_are_certified():
    """protein-multi (213 x 213 x 2, 4 classes; the alignment matrix is indefinite,
    clipped by default): the shared fit stops at a gap below tol and predicts as
    well as the per-pair fit on a held-out split."""
    ds = load_dataset("protein-multi")
    X, y = ds.matrix, ds.labels
    perm = np.random.default_rng(0).permutation(len(y))
    tr, te = perm[:150], perm[150:]
    shared = SimpleMKL(multiclass="shared").fit(X[np.ix_(tr, tr)], y[tr])
    assert shared.gap_ <= 1e-4 * shared.objective_
    assert shared.weights_.sum() == pytest.approx(1.0)
    acc = shared.score(X[np.ix_(te, tr)], y[te])
    per_pair = SimpleMKL().fit(X[np.ix_(tr, tr)], y[tr]).score(X[np.ix_(te, tr)], y[te])
    assert acc >= per_pair - 0.05 and acc > 0.8


@pytest.mark.parametrize("cls", [SimpleMKL, LpMKL])
def test_shared_weights_on_the_bank(cls):
    """Features with a KernelBank (wine, 3 classes): fit, the grid-path protocol, and
    one weight per bank kernel."""
    X, y = load_wine(return_X_y=True)
    perm = np.random.default_rng(0).permutation(len(y))
    tr, te = perm[:100], perm[100:]
    est = cls(bank=KernelBank(), multiclass="shared")
    fitted = clone(est).fit(X[tr], y[tr])
    assert fitted.weights_.ndim == 1 and fitted.weights_.size == fitted.n_kernels_
    assert fitted.score(X[te], y[te]) > 0.9
    grid = est.grid_predictions(X[tr], y[tr], X[te], [{"C": 1.0}, {"C": 10.0}])
    np.testing.assert_array_equal(grid[0], fitted.predict(X[te]))
    np.testing.assert_array_equal(
        grid[1], clone(est).set_params(C=10.0).fit(X[tr], y[tr]).predict(X[te]))


def test_multiclass_option_is_validated():
    Ks, y = _iris_problem()
    with pytest.raises(ValueError, match="multiclass"):
        SimpleMKL(multiclass="ovr").fit(Ks, y)


def test_cross_validated_shared_weights():
    """MKLClassifierCV keeps the base estimator's multiclass option: its best
    estimator has one weight vector, and its C is one of the grid."""
    from proxlearn.mkl import MKLClassifierCV

    Ks, y = _iris_problem(seed=6)
    cv = MKLClassifierCV(SimpleMKL(multiclass="shared"), Cs=[0.1, 10.0], cv=3).fit(Ks, y)
    assert cv.best_C_ in (0.1, 10.0)
    assert cv.best_estimator_.weights_.shape == (Ks.shape[2],)
