"""SimilarityKernelRidge: kernel ridge regression on the spectrum-modified similarity
(issue 37, item 1)."""

import pickle
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose
from sklearn.kernel_ridge import KernelRidge
from sklearn.linear_model import Ridge
from sklearn.model_selection import GridSearchCV, KFold, cross_val_score

from proxlearn.exceptions import (
    AsymmetricSimilarityWarning,
    InvalidParameterError,
    LabelError,
)
from proxlearn.kernel_ridge import SimilarityKernelRidge
from proxlearn.transforms import SpectrumTransformer


def problem(n=40, m=10, seed=0):
    """An indefinite sigmoid similarity of 3-D points and a smooth target."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n + m, 3))
    S = np.tanh(0.8 * X @ X.T - 0.3)
    y = np.sin(X[:, 0]) + X[:, 1] ** 2 + 3.0
    return S[:n, :n], S[n:, :n], y[:n], y[n:]


@pytest.mark.parametrize("spectrum", ["clip", "flip", "shift", "square", "none"])
@pytest.mark.parametrize("test_transform", ["consistent", "linear", "raw"])
def test_equals_sklearn_kernel_ridge_on_the_corrected_matrix(spectrum, test_transform):
    S, S_te, y, _ = problem()
    est = SimilarityKernelRidge(alpha=0.3, spectrum=spectrum, test_transform=test_transform,
                                normalize=False, normalize_y=False).fit(S, y)
    st = SpectrumTransformer(spectrum, test_transform=test_transform).fit(S)
    ref = KernelRidge(alpha=0.3, kernel="precomputed").fit(st.kernel_, y)
    assert_allclose(est.predict(S_te), ref.predict(st.transform(S_te)), rtol=1e-9, atol=1e-9)
    assert_allclose(est.dual_coef_, ref.dual_coef_, rtol=1e-8, atol=1e-8)


def test_defaults_centre_the_targets_and_divide_by_the_scale():
    S, S_te, y, _ = problem()
    est = SimilarityKernelRidge().fit(S, y)
    c = np.trace(S) / len(S)
    st = SpectrumTransformer("clip").fit(S / c)
    ref = KernelRidge(alpha=est.alpha_, kernel="precomputed").fit(st.kernel_, y - y.mean())
    assert_allclose(est.predict(S_te), y.mean() + ref.predict(st.transform(S_te / c)),
                    rtol=1e-10, atol=1e-10)
    # without centring the intercept-free model shrinks towards 0, far from y's mean of 4
    lit = SimilarityKernelRidge(normalize_y=False, alpha=10.0).fit(S, y).predict(S_te)
    cen = SimilarityKernelRidge(alpha=10.0).fit(S, y).predict(S_te)
    assert abs(lit.mean() - y.mean()) > 2 * abs(cen.mean() - y.mean())


def test_square_is_ridge_regression_on_the_rows_of_s():
    S, S_te, y, _ = problem()
    est = SimilarityKernelRidge(spectrum="square", alpha=0.5).fit(S, y)
    c = est.scale_
    ridge = Ridge(alpha=0.5, fit_intercept=False).fit(S / c, y - y.mean())
    assert_allclose(est.predict(S_te), y.mean() + ridge.predict(S_te / c), rtol=1e-9)


def test_eigenbasis_solve_equals_a_direct_solve():
    """The clip / flip route (two products in the eigenbasis) equals solving the
    corrected system directly, on an ill-conditioned matrix too."""
    rng = np.random.default_rng(4)
    A = rng.normal(size=(60, 5))
    S = A @ A.T - 0.5 * np.outer(A[:, 0], A[:, 0]) + 1e-9 * np.eye(60)
    y = rng.normal(size=60)
    for spectrum in ("clip", "flip"):
        est = SimilarityKernelRidge(alpha=1e-3, spectrum=spectrum).fit(S, y)
        K = est.transformer_.kernel_ + 1e-3 * np.eye(60)
        direct = np.linalg.solve(K, (y - y.mean()) / y.std())
        assert_allclose(est.dual_coef_, direct, rtol=1e-6, atol=1e-6 * np.abs(direct).max())


def test_none_refuses_a_singular_system():
    S = np.diag([2.0, -1.0, 3.0])
    with pytest.raises(InvalidParameterError, match="singular"):
        SimilarityKernelRidge(spectrum="none", alpha=1.0, normalize=False).fit(S, [1.0, 2.0, 3.0])


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(2, 25),
       spectrum=st.sampled_from(["clip", "flip", "square"]))
def test_training_rows_predict_the_fitted_values(seed, n, spectrum):
    """Train/test consistency: predict(S) equals the fitted values K c (+ the mean)."""
    rng = np.random.default_rng(seed)
    E = rng.normal(size=(n, n))
    S = E + E.T
    S = (S + (np.abs(np.diag(S)).max() + 1.0) * np.eye(n)) * 10.0 ** rng.uniform(-3, 3)  # tr S > 0
    y = rng.normal(size=n)
    est = SimilarityKernelRidge(spectrum=spectrum).fit(S, y)
    fitted = est.y_mean_ + est.y_scale_ * est.transformer_.kernel_ @ est.dual_coef_
    assert_allclose(est.predict(S), fitted, atol=1e-9 * n * max(1.0, np.abs(fitted).max()))


def test_r2_score_pickle_errors_and_asymmetry():
    S, S_te, y, y_te = problem()
    est = SimilarityKernelRidge(alpha=0.1).fit(S, y)
    assert est.score(S_te, y_te) > 0.5
    assert_allclose(pickle.loads(pickle.dumps(est)).predict(S_te), est.predict(S_te))
    with pytest.raises(LabelError, match="targets but"):
        SimilarityKernelRidge().fit(S, y[:-1])
    with pytest.raises(LabelError, match="1-D"):
        SimilarityKernelRidge().fit(S, np.ones((len(y), 2)))
    A = S.copy()
    A[0, 1] += 0.5
    with pytest.warns(AsymmetricSimilarityWarning):
        SimilarityKernelRidge().fit(A, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        SimilarityKernelRidge(spectrum="square").fit(A, y)  # rows as features: no symmetrising


def test_pairwise_model_selection_slices_rows_and_columns():
    S, _, y, _ = problem(n=48)
    cv = KFold(3, shuffle=True, random_state=0)
    scores = cross_val_score(SimilarityKernelRidge(), S, y, cv=cv)
    manual = [SimilarityKernelRidge().fit(S[np.ix_(tr, tr)], y[tr]).score(S[np.ix_(te, tr)], y[te])
              for tr, te in cv.split(S)]
    assert_allclose(scores, manual)
    search = GridSearchCV(SimilarityKernelRidge(), {"alpha": [0.01, 1.0]}, cv=cv).fit(S, y)
    assert search.best_params_["alpha"] in (0.01, 1.0)


def test_grid_predictions_equal_one_fit_per_setting():
    """The grid-path protocol: one eigendecomposition serves every alpha."""
    S, S_te, y, _ = problem()
    grid = [{"alpha": 0.01}, {"alpha": 1.0}, {"alpha": 1.0, "spectrum": "flip"},
            {"alpha": 3.0, "spectrum": "flip"}, {"alpha": 0.5, "spectrum": "shift"},
            {"alpha": 2.0, "spectrum": "shift"}]
    est = SimilarityKernelRidge()
    paths = est.grid_predictions(S, y, S_te, grid)
    for p, pred in zip(grid, paths):
        ref = SimilarityKernelRidge(**p).fit(S, y).predict(S_te)
        assert_allclose(pred, ref, rtol=1e-12, atol=1e-12)
    assert not hasattr(est, "dual_coef_")  # the estimator itself is not fitted


def test_scikit_learn_estimator_checks():
    """scikit-learn's common checks for a regressor (the two expected failures are the
    project's, explained in proxlearn.base.SKLEARN_CHECK_EXCEPTIONS)."""
    from sklearn.utils.estimator_checks import check_estimator

    from proxlearn.base import SKLEARN_CHECK_EXCEPTIONS

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_estimator(SimilarityKernelRidge(), expected_failed_checks=SKLEARN_CHECK_EXCEPTIONS)


# --------------------------------------------------------------------------- alpha="auto"

from proxlearn.kernel_ridge._kernel_ridge import AUTO_ALPHAS, loo_squared_errors  # noqa: E402


@pytest.mark.parametrize("spectrum", ["clip", "flip", "shift", "square", "none"])
def test_closed_form_leave_one_out_equals_refits_without_each_sample(spectrum):
    S, _, y, _ = problem(n=15)
    K = SpectrumTransformer(spectrum).fit(S).kernel_
    t = y - y.mean()
    g, U = np.linalg.eigh(K)
    alphas = np.array([1e-3, 0.1, 2.0, 50.0])
    brute = np.zeros(len(alphas))
    for j, a in enumerate(alphas):
        for i in range(len(t)):
            keep = np.arange(len(t)) != i
            c = np.linalg.solve(K[np.ix_(keep, keep)] + a * np.eye(keep.sum()), t[keep])
            brute[j] += (t[i] - K[i, keep] @ c) ** 2
    assert_allclose(loo_squared_errors(U, g, t, alphas), brute, rtol=1e-7)


@pytest.mark.parametrize("spectrum", ["clip", "flip", "shift", "square"])
def test_auto_alpha_is_the_leave_one_out_argmin_and_is_what_is_fitted(spectrum):
    S, S_te, y, _ = problem()
    est = SimilarityKernelRidge(spectrum=spectrum).fit(S, y)
    K = SpectrumTransformer(spectrum).fit(S / est.scale_).kernel_
    g, U = np.linalg.eigh(K)
    err = loo_squared_errors(U, g, (y - y.mean()) / y.std(), AUTO_ALPHAS)
    assert est.alpha_ == AUTO_ALPHAS[np.argmin(err)]
    assert err.max() > 1.5 * err.min()  # the choice matters on this problem
    fixed = SimilarityKernelRidge(spectrum=spectrum, alpha=est.alpha_).fit(S, y)
    assert_allclose(est.predict(S_te), fixed.predict(S_te), rtol=1e-8, atol=1e-10)


def test_auto_alpha_is_scale_free_at_the_defaults():
    S, S_te, y, _ = problem()
    a, b = SimilarityKernelRidge().fit(S, y), SimilarityKernelRidge().fit(100.0 * S, y)
    assert a.alpha_ == b.alpha_  # in the units of S / scale_ ...
    assert_allclose(b.alpha_ * b.scale_, 100.0 * a.alpha_ * a.scale_)  # ... so x100 in S's
    assert_allclose(a.predict(S_te), b.predict(100.0 * S_te), rtol=1e-9)


def test_grid_predictions_with_auto_and_numeric_alpha_equal_single_fits():
    S, S_te, y, _ = problem()
    grid = [{"alpha": "auto"}, {"alpha": 0.5}, {"alpha": "auto", "spectrum": "shift"}]
    paths = SimilarityKernelRidge().grid_predictions(S, y, S_te, grid)
    for p, pred in zip(grid, paths):
        assert_allclose(pred, SimilarityKernelRidge(**p).fit(S, y).predict(S_te), rtol=1e-10)
