"""Infinite kernel learning (Gehler & Nowozin 2008) by column generation."""

import pickle
import warnings

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.model_selection import cross_val_score
from sklearn.utils.estimator_checks import check_estimator

from proxlearn.base import FEATURE_CHECK_EXCEPTIONS, is_pairwise
from proxlearn.exceptions import FeatureMatrixError, InvalidParameterError, LabelError
from proxlearn.mkl import IKL, KernelBank, SimpleMKL


def _sine(n=160, seed=0):
    """The class is the sign of sin(4 x_0): a narrow Gaussian on feature 0 is needed,
    the wide all-feature starting kernels cannot separate it."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 4))
    return X, (np.sin(4.0 * X[:, 0]) > 0).astype(int)


WIDE = KernelBank(widths=(8.0,), degrees=(1,), per_feature=False)


def _training_stack(est):
    """The final training kernels: the bank's and the added Gaussians (the test's
    own computation, from the fitted attributes)."""
    Z = est.bank_.Z_
    Ks = [est.bank_.stack()[:, :, t] for t in range(est.bank_.n_kernels_)]
    for f, s in zip(est.added_features_, est.added_widths_, strict=True):
        d2 = ((Z[:, None] - Z[None]) ** 2).sum(-1) if f is None else \
            (Z[:, f, None] - Z[None, :, f]) ** 2
        Ks.append(np.exp(-d2 / (2 * s**2)) * est.bank_.gaussian_scale_)
    return np.stack(Ks, -1)


def test_without_additions_ikl_is_simple_mkl_on_the_bank():
    X, y = _sine(n=60)
    a = IKL(C=10.0, bank=WIDE, max_kernels=0).fit(X, y)
    b = SimpleMKL(C=10.0, bank=WIDE).fit(X, y)
    np.testing.assert_allclose(a.decision_function(X), b.decision_function(X), atol=1e-6)
    assert a.added_widths_ == [] and a.added_features_ == []


def test_ikl_finds_the_informative_feature_and_its_scale():
    X, y = _sine()
    tr, te = np.arange(100), np.arange(100, 160)
    ikl = IKL(C=10.0, bank=WIDE).fit(X[tr], y[tr])
    base = SimpleMKL(C=10.0, bank=WIDE).fit(X[tr], y[tr])
    assert ikl.added_features_[0] == 0
    assert 0.05 < ikl.added_widths_[0] < 1.0  # sin(4 x) changes sign every 0.79
    assert ikl.score(X[te], y[te]) >= base.score(X[te], y[te]) + 0.3
    hist = ikl.objective_history_
    assert len(hist) == len(ikl.added_widths_) + 1
    assert np.all(np.diff(hist) <= 1e-3 * np.abs(hist).max())  # more kernels: never worse


def test_at_the_end_no_kernel_of_the_searched_family_violates_the_dual_constraint():
    """Stopped by its criterion (not by max_kernels): for every feature set and every
    sigma on a fine grid, u^T K_theta u <= (1 + tol) max_t u^T K_t u at the final
    alpha (the column-generation optimality condition), and the training rows through
    the test map reproduce the training decision values."""
    X, y = _sine(n=80, seed=1)
    est = IKL(C=10.0, bank=WIDE, tol=1e-3).fit(X, y)
    assert len(est.added_widths_) < est.max_kernels
    u = est.coef_[0]
    Ks = _training_stack(est)
    a_max = max(u @ Ks[:, :, t] @ u for t in range(Ks.shape[2]))
    Z = est.bank_.Z_
    g = est.bank_.gaussian_scale_
    for f in [None, 0, 1, 2, 3]:
        d2 = ((Z[:, None] - Z[None]) ** 2).sum(-1) if f is None else \
            (Z[:, f, None] - Z[None, :, f]) ** 2
        for s in 2.0 ** np.linspace(-5, 8, 131):
            assert u @ (np.exp(-d2 / (2 * s**2)) * g) @ u <= (1 + 2e-3) * a_max
    np.testing.assert_allclose(est.decision_function(X),
                               (Ks @ est.weights_) @ u + est.intercept_[0], atol=1e-8)
    assert est.weights_.sum() == pytest.approx(1.0) and est.weights_.min() >= 0


def test_per_feature_false_adds_only_all_feature_kernels():
    X, y = _sine(n=80)
    est = IKL(C=10.0, bank=WIDE, per_feature=False, max_kernels=3).fit(X, y)
    assert all(f is None for f in est.added_features_)


def test_multiclass_pickle_and_cross_validation():
    rng = np.random.default_rng(3)
    y = np.arange(60) % 3
    X = rng.normal(size=(60, 3)) + 2.5 * np.eye(3)[y]
    est = IKL(C=10.0, bank=WIDE, max_kernels=2)
    scores = cross_val_score(est, X, y, cv=3)
    assert scores.mean() > 0.8
    est.fit(X, y)
    assert len(est.added_widths_) == 3 and len(est.weights_) == 3  # one per pair
    back = pickle.loads(pickle.dumps(est))
    np.testing.assert_array_equal(back.predict(X), est.predict(X))


@pytest.mark.parametrize("params, match", [({"max_kernels": -1}, "max_kernels"),
                                           ({"max_kernels": 2.5}, "max_kernels"),
                                           ({"mkl_tol": 0.0}, "mkl_tol"),
                                           ({"C": -1.0}, "C")])
def test_bad_parameters_are_named(params, match):
    X, y = _sine(n=40)
    with pytest.raises(InvalidParameterError, match=match):
        IKL(**params).fit(X, y)


def test_bad_labels_and_wrong_test_width_are_refused():
    X, y = _sine(n=40)
    est = IKL(max_kernels=1)
    assert not is_pairwise(est)
    with pytest.raises(LabelError):
        clone(est).fit(X, np.zeros(40))
    with pytest.raises(LabelError, match="39 labels but X has 40 rows"):  # features, not a matrix
        clone(est).fit(X, y[:-1])
    fitted = clone(est).fit(X, y)
    with pytest.raises(FeatureMatrixError):
        fitted.predict(X[:, :2])


def test_common_estimator_checks():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_estimator(IKL(max_kernels=1, max_iter=20),
                        expected_failed_checks=FEATURE_CHECK_EXCEPTIONS)


@pytest.mark.parametrize("c", [1e-3, 1e3])
def test_scaling_the_features_changes_nothing(c):
    """Issue 40 item 3: the bank z-scores the features and the added Gaussians are
    on the same standardised features, so ``c X`` predicts as ``X``."""
    X, y = _sine(n=40, seed=2)
    a = IKL(bank=WIDE, max_kernels=2).fit(X, y)
    b = IKL(bank=WIDE, max_kernels=2).fit(c * X, y)
    np.testing.assert_allclose(b.decision_function(c * X[:8]), a.decision_function(X[:8]),
                               rtol=1e-6, atol=1e-8)
