"""MKL regression and one-class (mkl/_regression.py): the solvers against cvxpy's
solution of the same primal problems (objective, weights, certificate), and the
estimators' contracts (regressor / outlier detector, stacks and the bank)."""

import pickle
import warnings

import cvxpy as cp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.base import clone, is_regressor
from sklearn.kernel_ridge import KernelRidge
from sklearn.svm import SVR

from proxlearn._validation import (
    InvalidParameterError,
    LabelError,
    SimilarityMatrixError,
    TestMatrixError,
)
from proxlearn.base import is_pairwise
from proxlearn.mkl import (
    KernelBank,
    LpMKLKernelRidge,
    SimpleMKLOneClass,
    SimpleMKLRegressor,
    lp_mkl_krr,
    simple_mkl_one_class,
    simple_mkl_svr,
)

ESTIMATORS = [SimpleMKLRegressor, LpMKLKernelRidge, SimpleMKLOneClass]


def _problem(n=30, seed=0):
    """Three kernels of unit mean diagonal over ``n`` points in 3-D (a Gaussian on
    each of the first two features, a linear kernel on all), and a real target that
    depends on the first feature mostly."""
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, 3))
    Ks = [np.exp(-(x[:, None, j] - x[None, :, j]) ** 2) for j in (0, 1)]
    lin = x @ x.T
    Ks.append(lin / np.trace(lin) * n)
    y = np.sin(2 * x[:, 0]) + 0.3 * x[:, 1] + 0.1 * rng.normal(size=n)
    return np.stack(Ks, axis=2), y, x


def _factors(Ks):
    """``L_k`` with ``K_k = L_k L_k^T`` (eigenvalues below 1e-10 dropped)."""
    out = []
    for k in range(Ks.shape[2]):
        lam, V = np.linalg.eigh(Ks[:, :, k])
        keep = lam > 1e-10 * lam.max()
        out.append(V[:, keep] * np.sqrt(lam[keep]))
    return out


def _cvx_mkl(Ks, loss, weight_set):
    """``min_{d in weight_set, w, b} 1/2 sum_k ||w_k||^2 / d_k + loss(f, b)`` with
    ``f = sum_k L_k w_k`` (the primal of each MKL problem); returns ``(value, d)``."""
    L = _factors(Ks)
    m = len(L)
    d = cp.Variable(m, nonneg=True)
    w = [cp.Variable(Lk.shape[1]) for Lk in L]
    f = sum(Lk @ wk for Lk, wk in zip(L, w))
    reg = 0.5 * sum(cp.quad_over_lin(wk, d[k]) for k, wk in enumerate(w))
    loss_expr, extra = loss(f)
    cons = [weight_set(d)] + extra
    prob = cp.Problem(cp.Minimize(reg + loss_expr), cons)
    prob.solve(solver=cp.CLARABEL)
    assert prob.status == cp.OPTIMAL
    return prob.value, d.value


def _svr_loss(y, C, eps):
    b = cp.Variable()
    return lambda f: (C * cp.sum(cp.pos(cp.abs(y - f - b) - eps)), [])


def _ridge_loss(y, alpha, intercept=True):
    # 1/2 ||y - f||^2 + alpha/2 sum ||w_k||^2/d_k, divided by alpha (same minimiser)
    b = cp.Variable() if intercept else 0.0
    return lambda f: (cp.sum_squares(y - f - b) / (2 * alpha), [])


def _one_class_loss(n, nu):
    rho = cp.Variable()
    xi = cp.Variable(n, nonneg=True)
    return lambda f: (-rho + cp.sum(xi) / (nu * n), [xi >= rho - f])


SIMPLEX = lambda d: cp.sum(d) == 1  # noqa: E731


# --------------------------------------------------------------------------- the solvers
@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("C", [0.5, 10.0])
@pytest.mark.parametrize("solver", ["spg", "reduced-gradient"])
def test_simple_mkl_svr_reaches_the_cvxpy_optimum(seed, C, solver):
    Ks, y, _ = _problem(seed=seed)
    eps = 0.1
    opt, d_cvx = _cvx_mkl(Ks, _svr_loss(y, C, eps), SIMPLEX)
    # the reduced gradient certifies its own iterate, whose gap libsvm's accuracy
    # limits near 1e-6 relative (seed 1, C = 10: 1.6e-6 after 500 iterations at the
    # optimum to 2e-8); the spectral solver keeps the best dual bound of its path
    tol = 1e-6 if solver == "spg" else 1e-5
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no ConvergenceWarning: it certifies
        res = simple_mkl_svr(Ks, y, C, eps, tol=tol, max_iter=500, solver=solver)
    assert res.gap <= tol * abs(res.objective)
    # the certificate brackets cvxpy's optimum (up to libsvm's and Clarabel's accuracy)
    assert res.objective - res.gap <= opt + 1e-6 * abs(opt)
    assert res.objective == pytest.approx(opt, rel=1e-5)
    np.testing.assert_allclose(res.weights.sum(), 1.0)
    assert np.all(res.weights >= 0)
    np.testing.assert_allclose(res.weights, d_cvx, atol=1e-2)


@pytest.mark.parametrize("p", [1.0, 1.5, 2.0, 4.0])
@pytest.mark.parametrize("alpha", [0.1, 1.0])
def test_lp_mkl_krr_reaches_the_cvxpy_optimum(p, alpha):
    Ks, y, _ = _problem(seed=2)
    ball = SIMPLEX if p == 1 else (lambda d: cp.pnorm(d, p) <= 1)
    opt, d_cvx = _cvx_mkl(Ks, _ridge_loss(y, alpha), ball)
    res = lp_mkl_krr(Ks, y, alpha, p, tol=1e-7, max_iter=1000)
    # J(d) of the solver is alpha times cvxpy's objective (which was divided by alpha)
    value = res.objective / alpha
    assert res.gap <= 1e-7 * abs(res.objective)
    assert (res.objective - res.gap) / alpha <= opt + 1e-6 * abs(opt)
    assert value == pytest.approx(opt, rel=1e-5)
    assert np.all(res.weights >= 0)
    assert np.linalg.norm(res.weights, p) == pytest.approx(1.0)
    np.testing.assert_allclose(res.weights, d_cvx, atol=2e-3)


def test_lp_mkl_krr_without_intercept_reaches_the_cvxpy_optimum():
    Ks, y, _ = _problem(seed=3)
    opt, d_cvx = _cvx_mkl(Ks, _ridge_loss(y, 0.5, intercept=False),
                          lambda d: cp.pnorm(d, 2) <= 1)
    res = lp_mkl_krr(Ks, y, 0.5, 2.0, tol=1e-7, max_iter=1000, fit_intercept=False)
    assert res.b == 0.0
    assert res.objective / 0.5 == pytest.approx(opt, rel=1e-5)
    np.testing.assert_allclose(res.weights, d_cvx, atol=2e-3)


@pytest.mark.parametrize("nu", [0.2, 0.5])
def test_simple_mkl_one_class_reaches_the_cvxpy_optimum(nu):
    Ks, _, _ = _problem(seed=4)
    n = Ks.shape[0]
    opt, d_cvx = _cvx_mkl(Ks, _one_class_loss(n, nu), SIMPLEX)
    res = simple_mkl_one_class(Ks, nu, tol=1e-6, max_iter=500)
    assert res.gap <= 1e-6 * abs(res.objective)
    assert res.objective == pytest.approx(opt, rel=1e-5)
    assert res.objective - res.gap <= opt + 1e-6 * abs(opt)
    assert np.all(res.alpha >= 0) and res.alpha.sum() == pytest.approx(1.0)
    assert res.alpha.max() <= 1 / (nu * n) * (1 + 1e-9)
    np.testing.assert_allclose(res.weights, d_cvx, atol=1e-2)


def test_one_kernel_is_scikit_learns_svr_and_kernel_ridge():
    """m = 1: the weight is 1 and the models are SVR / KernelRidge on that kernel."""
    Ks, y, _ = _problem(seed=5)
    K = Ks[:, :, 0]
    tr, te = np.arange(20), np.arange(20, 30)
    svr = SVR(kernel="precomputed", C=2.0, epsilon=0.05, tol=1e-7).fit(K[np.ix_(tr, tr)], y[tr])
    ours = SimpleMKLRegressor(C=2.0, epsilon=0.05, normalize=False, normalize_y=False).fit(
        K[np.ix_(tr, tr)], y[tr])
    np.testing.assert_allclose(ours.predict(K[np.ix_(te, tr)]),
                               svr.predict(K[np.ix_(te, tr)]), atol=1e-5)
    krr = KernelRidge(alpha=0.3, kernel="precomputed").fit(K[np.ix_(tr, tr)], y[tr])
    ours = LpMKLKernelRidge(alpha=0.3, normalize=False, fit_intercept=False).fit(
        K[np.ix_(tr, tr)], y[tr])
    np.testing.assert_allclose(ours.predict(K[np.ix_(te, tr)]),
                               krr.predict(K[np.ix_(te, tr)]), rtol=1e-8, atol=1e-10)


# --------------------------------------------------------------------------- estimators
def _split(seed=0, n=40):
    Ks, y, x = _problem(n=n, seed=seed)
    tr, te = np.arange(n - 10), np.arange(n - 10, n)
    return Ks[np.ix_(tr, tr)], Ks[np.ix_(te, tr)], y[tr], y[te], x[tr], x[te]


@pytest.mark.parametrize("cls", ESTIMATORS)
def test_contract_pickle_tags_and_errors(cls):
    S, T, y, _, _, _ = _split()
    est = cls()
    assert is_pairwise(est)
    assert is_regressor(est) == (cls is not SimpleMKLOneClass)
    fitted = clone(est).fit(S, y)
    assert fitted.get_params() == est.get_params()
    out = fitted.predict(T)
    np.testing.assert_array_equal(pickle.loads(pickle.dumps(fitted)).predict(T), out)
    with pytest.raises(TestMatrixError):
        fitted.predict(T[:, :-1])
    with pytest.raises(SimilarityMatrixError):
        clone(est).fit(S[:, :-1], y)
    bad = S.copy()
    bad[1, 2, 0] = np.nan
    with pytest.raises(SimilarityMatrixError):
        clone(est).fit(bad, y)
    masked = np.ma.masked_array(S[:, :, 0], mask=np.zeros(S.shape[:2], dtype=bool))
    masked[1, 2] = np.ma.masked
    with pytest.raises(SimilarityMatrixError, match="masked"):
        clone(est).fit(masked, y)


@pytest.mark.parametrize("cls", [SimpleMKLRegressor, LpMKLKernelRidge])
def test_regressors_refuse_bad_targets(cls):
    S, _, y, _, _, _ = _split()
    with pytest.raises(LabelError, match="one target per"):
        cls().fit(S, y[:-1])
    bad = y.copy()
    bad[3] = np.nan
    with pytest.raises(LabelError, match="NaN or inf at positions 3"):
        cls().fit(S, bad)
    with pytest.raises(LabelError, match="real numbers"):
        cls().fit(S, np.array(["a", "b"] * (len(y) // 2)))


@pytest.mark.parametrize("p", [1.0, 1.5, 3.0])
def test_radius_average_is_the_unit_ball_with_a_scaled_alpha(p):
    """``radius="average"`` (r = m^(1/p - 1)) with ``alpha`` is ``radius="unit"`` with
    ``alpha / r``: the same predictions and objective, weights r times (on the sphere of
    radius r)."""
    S, T, y, _, _, _ = _split(seed=4)
    r = S.shape[2] ** (1 / p - 1)
    avg = LpMKLKernelRidge(alpha=0.5, p=p, tol=1e-8, max_iter=2000).fit(S, y)
    unit = LpMKLKernelRidge(alpha=0.5 / r, p=p, radius="unit", tol=1e-8, max_iter=2000).fit(S, y)
    np.testing.assert_allclose(avg.predict(T), unit.predict(T), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(avg.weights_, r * unit.weights_, rtol=1e-6, atol=1e-10)
    assert np.linalg.norm(avg.weights_, p) == pytest.approx(r)
    assert avg.objective_ == pytest.approx(unit.objective_, rel=1e-12)


@pytest.mark.parametrize("params", [{"p": 0.5}, {"alpha": 0.0}, {"p": np.inf},
                                    {"radius": "sphere"}])
def test_kernel_ridge_refuses_bad_parameters(params):
    S, _, y, _, _, _ = _split()
    with pytest.raises(InvalidParameterError):
        LpMKLKernelRidge(**params).fit(S, y)


@pytest.mark.parametrize("cls", ESTIMATORS)
def test_weights_on_the_simplex_or_lp_sphere(cls):
    S, _, y, _, _, _ = _split(seed=1)
    est = cls().fit(S, y)
    assert np.all(est.weights_ >= 0)
    m = S.shape[2]
    if cls is LpMKLKernelRidge:  # radius="average": the sphere through 1/m
        assert np.linalg.norm(est.weights_, 2) == pytest.approx(m ** -0.5)
    else:
        assert est.weights_.sum() == pytest.approx(1.0)
    assert est.gap_ <= est.tol * abs(est.objective_)  # the certificate at the defaults


@settings(max_examples=6, deadline=None, derandomize=True)
@given(seed=st.integers(0, 1000), c=st.floats(1e-2, 1e2))
def test_training_rows_as_test_rows_give_the_fitted_model(seed, c):
    """Train/test consistency: the training stack given as test rows (through the
    spectrum's test map and the scales) gives the fitted values, which for the ridge
    satisfy ``y - f = alpha * dual_coef_`` (the normal equations) and for the SVR
    lie within ``epsilon`` of ``y`` where ``|beta_i| < C`` (free support vectors)."""
    Ks, y, _ = _problem(n=25, seed=seed)
    Ks = Ks.copy()
    Ks[:, :, 1] *= c
    rng = np.random.default_rng(seed)
    noise = rng.normal(scale=0.2, size=Ks.shape[:2])
    Ks[:, :, 2] += (noise + noise.T) / 2  # an indefinite member: the test map matters
    krr = LpMKLKernelRidge(alpha=0.5).fit(Ks, y)
    np.testing.assert_allclose(y - krr.predict(Ks), 0.5 * krr.dual_coef_, atol=1e-8)
    svr = SimpleMKLRegressor(normalize_y=False, epsilon=0.1, C=1.0).fit(Ks, y)
    beta = svr.dual_coef_
    free = (np.abs(beta) > 1e-6) & (np.abs(beta) < 1.0 - 1e-6)
    resid = np.abs(y - svr.predict(Ks))
    np.testing.assert_allclose(resid[free], 0.1, atol=1e-4)
    assert np.all(resid[beta == 0] <= 0.1 + 1e-4)


@pytest.mark.parametrize("cls", ESTIMATORS)
def test_scaling_one_matrix_changes_no_prediction(cls):
    S, T, y, _, _, _ = _split(seed=2)
    ref = cls().fit(S, y).predict(T)
    S2, T2 = S.copy(), T.copy()
    S2[:, :, 0] *= 1e3
    T2[:, :, 0] *= 1e3
    out = cls().fit(S2, y).predict(T2)
    np.testing.assert_allclose(out, ref, atol=1e-6)


def test_regressor_target_scale_is_relative_with_normalize_y():
    """normalize_y: scaling and shifting y scales and shifts the predictions."""
    S, T, y, _, _, _ = _split(seed=3)
    ref = SimpleMKLRegressor().fit(S, y).predict(T)
    out = SimpleMKLRegressor().fit(S, 1e-3 * y + 7.0).predict(T)
    np.testing.assert_allclose(out, 1e-3 * ref + 7.0, rtol=1e-6, atol=1e-9)


@pytest.mark.parametrize("cls", [SimpleMKLRegressor, LpMKLKernelRidge])
def test_regressors_on_the_bank_learn_a_smooth_target(cls):
    rng = np.random.default_rng(0)
    x = rng.normal(size=(80, 3))
    y = np.sin(2 * x[:, 0]) + 0.05 * rng.normal(size=80)
    bank = KernelBank(widths=(0.5, 1.0, 4.0), degrees=(1,))
    est = cls(bank=bank).fit(x[:60], y[:60])
    assert not is_pairwise(est)
    assert est.n_kernels_ == 4 * 4 and est.n_features_in_ == 3
    assert est.score(x[60:], y[60:]) > 0.8
    # the weight goes to the kernels on the feature that matters
    on_first = [k for k, (feat, _, _) in enumerate(est.bank_.kernels_) if feat == 0]
    assert est.weights_[on_first].sum() > 0.5 * est.weights_.sum()


def test_one_class_contract():
    rng = np.random.default_rng(1)
    x = np.vstack([rng.normal(size=(40, 2)), rng.normal(size=(4, 2)) * 0.5 + 6.0])
    Ks = np.stack([np.exp(-(x[:, None, j] - x[None, :, j]) ** 2 / 2) for j in (0, 1)], axis=2)
    tr = np.arange(40)
    det = SimpleMKLOneClass(nu=0.1).fit(Ks[np.ix_(tr, tr)])
    T = Ks[:, tr]
    pred = det.predict(T)
    assert set(np.unique(pred)) <= {-1, 1}
    np.testing.assert_allclose(det.decision_function(T), det.score_samples(T) - det.offset_)
    assert np.all(pred[40:] == -1)  # the far points are outliers
    assert np.mean(pred[:40] == -1) <= 0.1 + 1 / 40  # nu bounds the training outliers
    assert det.fit_predict(Ks[np.ix_(tr, tr)]).shape == (40,)


class _Bad:
    """A value no checked constraint accepts."""


@pytest.mark.parametrize("cls", ESTIMATORS)
def test_table_checks_every_listed_parameter(cls):
    """As tests/test_parameter_constraints.py (which skips the stack-reg and
    stack-outlier kinds): the table lists every parameter, and each checked one
    refuses a bad value at ``fit``, naming it."""
    from proxlearn._validation import validate_params

    assert set(cls._parameter_constraints) == set(cls().get_params(deep=False))
    validate_params(cls())
    S, _, y, _, _, _ = _split()
    for param, c in cls._parameter_constraints.items():
        if not c.checks:
            continue
        with pytest.raises(InvalidParameterError, match=f"^{param}"):
            cls().set_params(**{param: _Bad()}).fit(S, y)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_svr_on_a_bank_certifies_within_60_iterations(seed):
    """The Newton step on the face of ``d`` (the SVM's, with ``u = beta``): on a
    52-kernel bank the spectral projected gradient alone needed 98-200 iterations
    (seed 2: not certified at 200); with it 16-26."""
    from sklearn.exceptions import ConvergenceWarning

    rng = np.random.default_rng(seed)
    x = rng.normal(size=(120, 4))
    y = np.sin(2 * x[:, 0]) + x[:, 1] * x[:, 2] + 0.3 * rng.normal(size=120)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        est = SimpleMKLRegressor(bank=KernelBank(), max_iter=60).fit(x, y)
    assert est.gap_ <= est.tol * est.objective_


def test_lazy_bank_stack_gives_the_dense_predictions():
    """Above ``max_memory`` the bank's stacks are lazy (:class:`LazyKernelStack`):
    the solvers and the decision read them through the stack functions alike."""
    rng = np.random.default_rng(3)
    x = rng.normal(size=(50, 2))
    y = np.sin(2 * x[:, 0]) + 0.1 * rng.normal(size=50)
    bank = KernelBank(widths=(0.5, 2.0), degrees=(1,))
    for cls in ESTIMATORS:
        dense = cls(bank=bank).fit(x[:40], y[:40])
        lazy = cls(bank=clone(bank).set_params(max_memory=1000)).fit(x[:40], y[:40])
        assert not isinstance(lazy.bank_.stack(), np.ndarray)
        np.testing.assert_allclose(lazy.predict(x[40:]), dense.predict(x[40:]),
                                   rtol=1e-6, atol=1e-8)


def test_spectrum_none_certifies_a_psd_combination_or_says_why():
    S, T, y, _, _, _ = _split(seed=5)
    est = LpMKLKernelRidge(spectrum=None).fit(S, y)  # PSD members: certified
    assert est.gap_ <= est.tol * est.objective_
    # every member minus 2 v v^T with one unit vector v: v^T K_k v - 2 < 0 for each k
    # (Gaussians and a unit-diagonal-scaled linear kernel), so no combination is PSD
    v = np.random.default_rng(0).normal(size=S.shape[0])
    v /= np.linalg.norm(v)
    assert all(v @ S[:, :, k] @ v < 2 for k in range(S.shape[2]))
    bad = S - 2.0 * np.outer(v, v)[:, :, None]
    for cls in ESTIMATORS:
        with pytest.raises(SimilarityMatrixError, match="not positive semidefinite"):
            cls(spectrum=None).fit(bad, y)
        cls().fit(bad, y)  # the default clip makes kernels of them


def _uci(name):
    from pathlib import Path

    for d in (Path(__file__).resolve().parents[2].parent / "shared" / "data" / "uci",
              Path("/work/shared/data/uci")):
        if (d / name).is_file():
            return d / name
    pytest.skip(f"{name} not found (../shared/data/uci): real-data test skipped")


@pytest.mark.parametrize("cls", [SimpleMKLRegressor, LpMKLKernelRidge])
def test_glass_refractive_index_on_the_bank_at_the_defaults(cls):
    """Real data: glass's refractive index from the eight oxides (117 kernels), one
    70/30 split; certified at the defaults, and better than the ridge on the average
    kernel (docs/benchmarks.md, "MKL regression": +0.04-0.05 R^2 over 5 splits)."""
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.metrics import r2_score

    A = np.loadtxt(_uci("glass.data"), delimiter=",")
    X, y = A[:, 2:10], A[:, 1]
    perm = np.random.default_rng(0).permutation(len(y))
    tr, te = perm[:150], perm[150:]
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        est = cls(bank=KernelBank()).fit(X[tr], y[tr])
    assert est.gap_ <= est.tol * est.objective_
    bank = est.bank_
    avg = KernelRidge(kernel="precomputed").fit(bank.stack().mean(axis=2), y[tr] - y[tr].mean())
    base = r2_score(y[te], y[tr].mean() + avg.predict(bank.stack(X[te]).mean(axis=2)))
    assert est.score(X[te], y[te]) > max(base, 0.7)


@pytest.mark.parametrize("cls", ESTIMATORS)
def test_degenerate_huge_far_and_distance_inputs(cls):
    """The other checks of tests/test_all_estimators.py, on stacks: zero and rank-one
    matrices give finite outputs, entries near 1e155 a clear error or finite output,
    test rows 1e6 times the training scale finite output, a distance matrix one
    DissimilarityWarning per fit."""
    from scipy.spatial.distance import cdist

    from proxlearn.exceptions import DissimilarityWarning, SolverError

    S, T, y, _, x_tr, _ = _split(seed=6)
    n = S.shape[0]
    v = np.random.default_rng(1).normal(size=(n, 1))
    for bad in (np.zeros_like(S), np.repeat((v @ v.T)[:, :, None], 3, axis=2)):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            assert np.all(np.isfinite(cls().fit(bad, y).predict(bad[:6])))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            out = cls().fit(S * 1e155, y).predict(T * 1e155)
            assert np.all(np.isfinite(out))
        except (SimilarityMatrixError, InvalidParameterError, SolverError) as exc:
            assert "too large" in str(exc) and "Rescale" in str(exc), exc
        far = np.abs(S).max() * 1e6 * np.random.default_rng(3).uniform(0.5, 1.0, (3, n, 3))
        far[1] *= -1
        assert np.all(np.isfinite(cls().fit(S, y).predict(far)))
    D = cdist(x_tr, x_tr)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            cls().fit(D, y)
        except (SimilarityMatrixError, InvalidParameterError):
            pass
    assert sum(issubclass(w.category, DissimilarityWarning) for w in caught) == 1


def test_model_selection_slices_the_stacks():
    """The pairwise tag: cross_val_score and GridSearchCV slice rows and columns of
    every matrix of the stack (a fold's test rows are its rows against the fold's
    training columns, as ``predict`` expects)."""
    from sklearn.model_selection import GridSearchCV, cross_val_score

    Ks, y, _ = _problem(n=45, seed=7)
    scores = cross_val_score(SimpleMKLRegressor(), Ks, y, cv=3)
    assert scores.shape == (3,) and np.all(scores > 0.5)
    grid = GridSearchCV(LpMKLKernelRidge(), {"alpha": [0.1, 10.0]}, cv=3).fit(Ks, y)
    assert grid.best_params_["alpha"] in (0.1, 10.0) and grid.best_score_ > 0.5


def test_svr_warm_start_changes_the_path_not_the_answer(monkeypatch):
    """The SVR's active-set warm start (``_svr_active_set``): on a 52-kernel bank most
    SVRs of the descent come from it, each passing libsvm's test (a returned ``beta``
    is feasible and at most ``tol`` from libsvm's KKT conditions); the certified answer
    equals the one without warm starts."""
    import proxlearn.mkl._regression as reg

    rng = np.random.default_rng(0)
    x = rng.normal(size=(120, 4))
    y = np.sin(2 * x[:, 0]) + x[:, 1] * x[:, 2] + 0.3 * rng.normal(size=120)
    Ks = KernelBank().fit(x).stack()
    y = (y - y.mean()) / y.std()
    calls = {"tried": 0, "kept": 0}
    inner = reg._svr_active_set

    def counted(K, y_, C, eps, tol, beta0, *args):
        calls["tried"] += 1
        got = inner(K, y_, C, eps, tol, beta0, *args)
        if got is not None:
            calls["kept"] += 1
            beta, b = got
            assert abs(beta.sum()) <= 1e-9 and np.all(np.abs(beta) <= C)
            ref, _, _ = reg._svr_dual(K, y_, C, eps, tol)  # libsvm, cold

            def value(bt):
                return y_ @ bt - eps * np.abs(bt).sum() - 0.5 * bt @ K @ bt

            assert value(beta) >= value(ref) - 1e-6 * abs(value(ref))
        return got

    monkeypatch.setattr(reg, "_svr_active_set", counted)
    warm = simple_mkl_svr(Ks, y, 1.0, 0.1)
    assert calls["kept"] >= calls["tried"] // 2 > 0
    monkeypatch.setattr(reg, "_warm_start_rounds", lambda *a: 0)
    cold = simple_mkl_svr(Ks, y, 1.0, 0.1)
    for res in (warm, cold):
        assert res.gap <= 1e-4 * res.objective
    assert warm.objective == pytest.approx(cold.objective, rel=2e-4)
    np.testing.assert_allclose(warm.weights, cold.weights, atol=2e-2)


@pytest.mark.parametrize("cls,grid", [
    (SimpleMKLRegressor, [{"C": 0.5}, {"C": 5.0, "epsilon": 0.2}]),
    (LpMKLKernelRidge, [{"alpha": 0.1}, {"alpha": 3.0, "p": 1.5}, {"p": 1.0}]),
    (SimpleMKLOneClass, [{"nu": 0.2}, {"nu": 0.6}])])
def test_grid_predictions_equal_one_fit_per_point(cls, grid):
    """The grid-path protocol: one bank for the whole grid, each entry equal to its
    own fit and predict; a grid that changes the bank is refused."""
    rng = np.random.default_rng(2)
    x = rng.normal(size=(50, 2))
    y = np.sin(2 * x[:, 0]) + 0.1 * rng.normal(size=50)
    est = cls(bank=KernelBank(widths=(0.5, 2.0), degrees=(1,)))
    got = est.grid_predictions(x[:40], y[:40], x[40:], grid)
    for p, pred in zip(grid, got):
        ref = clone(est).set_params(**p).fit(x[:40], y[:40]).predict(x[40:])
        np.testing.assert_allclose(pred, ref, rtol=1e-10, atol=1e-12)
    with pytest.raises(InvalidParameterError, match="bank"):
        est.grid_predictions(x[:40], y[:40], x[40:], [{"bank__widths": (1.0,)}])
    S, T, ys, _, _, _ = _split()  # stacks: one fit per point
    out = cls().grid_predictions(S, ys, T, grid[:1])
    np.testing.assert_allclose(out[0], cls().set_params(**grid[0]).fit(S, ys).predict(T))


# --------------------------------------------------------------------------- sample weights
def _weights(n, seed):
    w = np.random.default_rng(seed).uniform(0.2, 3.0, size=n)
    return w


@pytest.mark.parametrize("solver", ["spg", "reduced-gradient"])
def test_weighted_simple_mkl_svr_reaches_the_cvxpy_optimum(solver):
    """sample_weight: the loss C sum_i w_i (|r_i| - eps)_+ (the box C w_i in the
    dual, also in the warm start and the Newton step): objective, weights and the
    certificate against cvxpy's primal."""
    Ks, y, _ = _problem(seed=4)
    w, C, eps = _weights(len(y), 4), 2.0, 0.1
    b = cp.Variable()
    loss = lambda f: (C * cp.sum(cp.multiply(w, cp.pos(cp.abs(y - f - b) - eps))), [])  # noqa: E731
    opt, d_cvx = _cvx_mkl(Ks, loss, SIMPLEX)
    tol = 1e-6 if solver == "spg" else 1e-5
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        res = simple_mkl_svr(Ks, y, C, eps, tol=tol, max_iter=500, solver=solver,
                             sample_weight=w)
    assert res.gap <= tol * abs(res.objective)
    assert res.objective - res.gap <= opt + 1e-6 * abs(opt)
    assert res.objective == pytest.approx(opt, rel=1e-5)
    assert np.all(np.abs(res.alpha) <= C * w * (1 + 1e-9))  # the weighted box
    np.testing.assert_allclose(res.weights, d_cvx, atol=1e-2)


@pytest.mark.parametrize("p", [1.0, 2.0])
def test_weighted_lp_mkl_krr_reaches_the_cvxpy_optimum(p):
    """sample_weight: the loss 1/2 sum_i w_i r_i^2 (alpha W^-1 in the system, c^T W^-1 c
    in the dual value): objective, weights and the certificate against cvxpy."""
    Ks, y, _ = _problem(seed=5)
    w, alpha = _weights(len(y), 5), 0.5
    b = cp.Variable()
    loss = lambda f: (cp.sum(cp.multiply(w, cp.square(y - f - b))) / (2 * alpha), [])  # noqa: E731
    ball = SIMPLEX if p == 1 else (lambda d: cp.pnorm(d, p) <= 1)
    opt, d_cvx = _cvx_mkl(Ks, loss, ball)
    res = lp_mkl_krr(Ks, y, alpha, p, tol=1e-7, max_iter=1000, sample_weight=w)
    assert res.gap <= 1e-7 * abs(res.objective)
    assert (res.objective - res.gap) / alpha <= opt + 1e-6 * abs(opt)
    assert res.objective / alpha == pytest.approx(opt, rel=1e-5)
    np.testing.assert_allclose(res.weights, d_cvx, atol=2e-3)
