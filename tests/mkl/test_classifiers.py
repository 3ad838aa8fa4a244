"""MKL classifiers on (n, n, m) similarity stacks: slicing, consistency, bad input."""

import pickle
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.base import clone
from sklearn.model_selection import GridSearchCV, KFold, cross_val_score
from sklearn.svm import SVC

from proxlearn.base import is_pairwise
from proxlearn.exceptions import (
    InvalidParameterError,
    LabelError,
    SimilarityMatrixError,
    TestMatrixError,
)
from proxlearn.mkl import (
    KTASVC,
    AverageKernelSVC,
    KernelBank,
    LpMKL,
    NonSparseMKL,
    SimpleMKL,
    alignf,
    check_multi_similarity,
    check_multi_test,
    lp_mkl,
    simple_mkl,
)
from proxlearn.transforms import SpectrumTransformer

ESTIMATORS = [SimpleMKL(), LpMKL(p=2.0), NonSparseMKL(), AverageKernelSVC()]


def _stack(n=45, seed=0, n_classes=3):
    """Three views of the same objects: two informative (one indefinite), one noise."""
    rng = np.random.default_rng(seed)
    y = np.arange(n) % n_classes
    centres = rng.normal(scale=2.0, size=(n_classes, 4))
    X = centres[y] + rng.normal(size=(n, 4))
    d2 = ((X[:, None] - X[None]) ** 2).sum(-1)
    E = rng.normal(size=(n, n))
    noisy = X @ X.T / 4 + 0.5 * (E + E.T)  # indefinite
    Z = rng.normal(size=(n, 3))
    return np.stack([np.exp(-d2 / 8.0), noisy, Z @ Z.T], axis=-1), y


@pytest.mark.parametrize("est", ESTIMATORS, ids=lambda e: type(e).__name__)
def test_cross_val_score_slices_every_matrix(est):
    X, y = _stack()
    assert is_pairwise(est)
    cv = KFold(3, shuffle=True, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        auto = cross_val_score(est, X, y, cv=cv)
        manual = [clone(est).fit(X[np.ix_(tr, tr)], y[tr]).score(X[np.ix_(te, tr)], y[te])
                  for tr, te in cv.split(X)]
    np.testing.assert_allclose(auto, manual)
    assert auto.mean() > 0.6  # three classes: chance is 1/3


def test_grid_search_over_c():
    X, y = _stack(seed=1, n_classes=2)
    gs = GridSearchCV(SimpleMKL(), {"C": [0.1, 10.0]}, cv=3).fit(X, y)
    assert gs.best_params_["C"] in (0.1, 10.0)
    np.testing.assert_array_equal(gs.predict(X[:4]), gs.best_estimator_.predict(X[:4]))


@pytest.mark.parametrize("est", ESTIMATORS, ids=lambda e: type(e).__name__)
def test_training_rows_as_test_rows_give_the_training_decision(est):
    # train/test consistency: test rows equal to training rows map to the
    # training kernels, so the decision equals the SVM's on the learned kernel
    X, y = _stack(seed=2, n_classes=2)
    clf = clone(est).fit(X, y)
    Ks = np.stack([SpectrumTransformer("clip").fit_transform(X[:, :, k]) for k in range(3)], -1)
    Ks = Ks / clf.scales_  # normalize=True: each kernel over its training scale
    res = clf.results_[0]
    f_train = (Ks @ res.kernel_weights) @ (res.alpha * np.where(y == 1, 1.0, -1.0)) + res.b
    np.testing.assert_allclose(clf.decision_function(X), f_train, atol=1e-8)
    again = pickle.loads(pickle.dumps(clf))
    np.testing.assert_array_equal(again.decision_function(X[:5]), clf.decision_function(X[:5]))


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 10_000), m=st.integers(1, 3))
def test_consistency_property(seed, m):
    X, y = _stack(n=24, seed=seed, n_classes=2)
    X = X[:, :, :m]
    clf = SimpleMKL(tol=1e-3).fit(X, y)
    rows = np.random.default_rng(seed).choice(24, 5, replace=False)
    full = clf.decision_function(X)
    np.testing.assert_allclose(clf.decision_function(X[rows]), full[rows], atol=1e-10)


def test_one_matrix_as_2d_is_m_equal_1():
    X, y = _stack(seed=3, n_classes=2)
    a = SimpleMKL().fit(X[:, :, 0], y)
    b = SimpleMKL().fit(X[:, :, :1], y)
    np.testing.assert_allclose(a.decision_function(X[:, :, 0]), b.decision_function(X[:, :, :1]))
    svc = SVC(kernel="precomputed", C=1.0, tol=1e-7).fit(X[:, :, 0], y)
    np.testing.assert_allclose(a.decision_function(X[:, :, 0]), svc.decision_function(X[:, :, 0]),
                               atol=1e-4)


def test_weights_prefer_the_informative_matrix():
    X, y = _stack(n=60, seed=4, n_classes=2)
    clf = SimpleMKL(C=10.0).fit(X, y)
    assert clf.weights_[2] < 0.1 < clf.weights_[0] + clf.weights_[1]


def test_bad_input_names_the_matrix():
    X, y = _stack(seed=5)
    bad = X.copy()
    bad[0, 1, 2] = np.nan
    with pytest.raises(SimilarityMatrixError, match=r"X\[:, :, 2\]"):
        SimpleMKL().fit(bad, y)
    with pytest.raises(SimilarityMatrixError, match="m = 0"):
        check_multi_similarity(np.zeros((4, 4, 0)))
    with pytest.raises(SimilarityMatrixError, match=r"np.moveaxis"):
        check_multi_similarity(np.zeros((3, 5, 5)))
    with pytest.raises(SimilarityMatrixError, match="dimensions"):
        check_multi_similarity(np.zeros((3, 3, 2, 2)))
    with pytest.raises(LabelError, match=f"{len(y) - 1} labels but the similarity stack has"):
        SimpleMKL().fit(X, y[:-1])
    with pytest.raises(LabelError, match=f"{len(y) - 1} labels but X has"):
        SimpleMKL(bank=KernelBank()).fit(X[:, 0, :], y[:-1])
    clf = SimpleMKL().fit(X, y)
    with pytest.raises(TestMatrixError, match="m = 3"):
        clf.predict(X[:, :, :2])
    with pytest.raises(TestMatrixError, match="m = 3"):
        clf.predict(X[:, :, 0])
    with pytest.raises(TestMatrixError, match="columns"):
        clf.predict(X[:, :-1, :])
    with pytest.raises(SimilarityMatrixError, match=r"X_test\[:, :, 1\] contains inf"):
        T = X.copy()
        T[2, 3, 1] = np.inf
        check_multi_test(T, 45, 3)
    with pytest.raises(SimilarityMatrixError, match="not positive semidefinite"):
        SimpleMKL(spectrum=None).fit(X, y)


def test_simple_mkl_solvers_reach_the_same_classifier():
    """The spectral projected gradient and SimpleMKL's reduced gradient solve the same
    convex problem: at a tight tolerance their objectives and decisions agree."""
    X, y = _stack(n=40, seed=7, n_classes=2)
    a = SimpleMKL(C=10.0, tol=1e-7, max_iter=5000).fit(X, y)
    b = SimpleMKL(C=10.0, tol=1e-7, max_iter=5000, solver="reduced-gradient").fit(X, y)
    assert a.objective_ == pytest.approx(b.objective_, rel=1e-5)
    np.testing.assert_allclose(a.decision_function(X), b.decision_function(X), atol=1e-2)
    assert np.array_equal(a.predict(X), b.predict(X))
    with pytest.raises(InvalidParameterError, match="solver='level' is not supported"):
        SimpleMKL(solver="level").fit(X, y)


@pytest.mark.parametrize("spectrum", [None, "clip"])
@pytest.mark.parametrize("layout", ["C", "kernel-major"])
def test_fit_reads_the_stack_in_place_and_never_writes_it(spectrum, layout):
    X, y = _stack(n=40, seed=8, n_classes=2)
    X = X[:, :, [0, 2]]  # the PSD matrices
    if layout == "kernel-major":
        X = np.moveaxis(np.ascontiguousarray(np.moveaxis(X, -1, 0)), 0, -1)
    before = X.copy()
    for est in (*ESTIMATORS, KTASVC()):
        clf = clone(est).set_params(spectrum=spectrum).fit(X, y)
        np.testing.assert_array_equal(X, before)
        ref = clone(est).set_params(spectrum=spectrum).fit(np.array(before, order="C"), y)
        # the same problem; rounding (BLAS on other addresses) may move an iterative
        # solver along another path to the same optimum within its tol = 1e-4
        np.testing.assert_allclose(clf.decision_function(X), ref.decision_function(before),
                                   atol=1e-3)


def test_spectrum_none_refuses_an_indefinite_matrix_by_its_eigenvalue():
    """NonSparseMKL refuses any indefinite member; SimpleMKL and LpMKL refuse when
    their learned combination K_d* is indefinite (then the SVM value at d* is not
    J(d*) and the gap certifies nothing), naming the indefinite member."""
    X, y = _stack(seed=9, n_classes=2)
    lam = np.linalg.eigvalsh(X[:, :, 1])[0]
    with pytest.raises(SimilarityMatrixError,
                       match=rf"X\[:, :, 1\] is not positive semidefinite \(smallest "
                             rf"eigenvalue {lam:.3g}\) but spectrum=None"):
        NonSparseMKL(spectrum=None).fit(X, y)  # its certificate needs every kernel PSD
    y_pm = np.where(y == 1, 1.0, -1.0)
    Ks = X / (np.trace(X) / len(y))  # normalize=True
    for est, solve in ((SimpleMKL(), lambda: simple_mkl(Ks, y_pm)),
                       (LpMKL(), lambda: lp_mkl(Ks, y_pm, p=2.0))):
        d = solve().kernel_weights
        lam_d = np.linalg.eigvalsh(Ks @ d)[0]
        assert lam_d < -0.1  # the learned combination is indefinite: no certificate
        with pytest.raises(SimilarityMatrixError) as err:
            clone(est).set_params(spectrum=None).fit(X, y)
        msg = str(err.value)
        assert msg.startswith("X: the learned combination sum_k d_k X[:, :, k] / scales_[k]")
        assert f"is not positive semidefinite (smallest eigenvalue {lam_d:.3g})" in msg
        named = msg.split("not positive semidefinite:")[1]
        assert f"X[:, :, 1] (smallest eigenvalue {lam:.3g})" in named
        assert "X[:, :, 0]" not in named and "X[:, :, 2]" not in named
        assert "but spectrum=None uses the matrices as kernels. Use spectrum='clip'" in msg
    lam = np.linalg.eigvalsh(X.mean(axis=2))[0]
    assert lam < 0
    with pytest.raises(SimilarityMatrixError,
                       match=rf"the average of the matrices is not positive semidefinite "
                             rf"\(smallest eigenvalue {lam:.3g}\) but spectrum=None"):
        AverageKernelSVC(spectrum=None, normalize=False).fit(X, y)
    with pytest.raises(SimilarityMatrixError, match="aligned combination .* not positive"):
        KTASVC(spectrum=None).fit(X[:, :, [1]], y)
    clone(ESTIMATORS[0]).set_params(spectrum=None).fit(X[:, :, [0, 2]], y)  # PSD: fits


def test_average_kernel_svc_needs_only_the_average_psd():
    """spectrum=None: AverageKernelSVC's one kernel is the average, which may be PSD
    with an indefinite member; it is then the SVM on the average (SimpleMKL certifies
    its own learned combination, also PSD here)."""
    X, y = _stack(n=40, seed=11, n_classes=2)
    X = X[:, :, [0, 2]].copy()
    lam, V = np.linalg.eigh(X[:, :, 1])
    X[:, :, 1] -= 1e-3 * np.outer(V[:, 0], V[:, 0]) + (lam[0] * np.outer(V[:, 0], V[:, 0]))
    X[:, :, 1] = 0.5 * (X[:, :, 1] + X[:, :, 1].T)
    assert np.linalg.eigvalsh(X[:, :, 1])[0] < -1e-4
    assert np.linalg.eigvalsh(X.mean(axis=2))[0] > 0
    clf = AverageKernelSVC(spectrum=None, C=10.0, normalize=False).fit(X, y)
    svc = SVC(kernel="precomputed", C=10.0, tol=1e-7).fit(X.mean(axis=2), y)
    np.testing.assert_allclose(clf.decision_function(X), svc.decision_function(X.mean(axis=2)),
                               atol=1e-4)
    # SimpleMKL certifies its learned kernel, also PSD here, though a member is not
    mkl = SimpleMKL(spectrum=None, normalize=False).fit(X, y)
    assert np.linalg.eigvalsh(X @ mkl.weights_)[0] > -1e-8 * np.abs(X).max()
    assert mkl.gap_ <= mkl.tol * abs(mkl.objective_)
    assert mkl.weights_[1] > 0  # the indefinite member is used


def test_ktasvc_weights_are_alignf_of_the_stack():
    X, y = _stack(n=40, seed=10, n_classes=2)
    X = X[:, :, [0, 2]]
    clf = KTASVC(spectrum=None).fit(X, y)
    y_pm = np.where(y == clf.classes_[1], 1.0, -1.0)
    np.testing.assert_allclose(clf.weights_, alignf(X, np.outer(y_pm, y_pm), normalize="l1"),
                               rtol=1e-10)


# --------------------------------------------------------------------------- issue 40

ALL = [SimpleMKL(), LpMKL(p=2.0), NonSparseMKL(), AverageKernelSVC(), KTASVC()]


@pytest.mark.parametrize("est", ALL, ids=lambda e: type(e).__name__)
@pytest.mark.parametrize("spectrum", ["clip", None])
def test_normalize_divides_each_kernel_by_its_training_scale(est, spectrum):
    """scales_ is tr K_k / n of the kernels the solver sees; scaling one matrix by
    1e3 and another by 1e-3 scales only scales_, never the predictions."""
    X, y = _stack(seed=3, n_classes=2)
    if spectrum is None:  # PSD members only: the Gaussian and Z Z^T, plus a linear kernel
        X = np.stack([X[:, :, 0], X[:, :, 2], X[:, :, 2] @ X[:, :, 2] / 10], axis=-1)
    tr, te = np.arange(30), np.arange(30, 45)
    fit = lambda S: clone(est).set_params(spectrum=spectrum).fit(S[np.ix_(tr, tr)], y[tr])
    ref = fit(X)
    kernels = X[np.ix_(tr, tr)] if spectrum is None else np.stack(
        [SpectrumTransformer("clip").fit_transform(X[np.ix_(tr, tr)][:, :, k])
         for k in range(3)], -1)
    np.testing.assert_allclose(ref.scales_, np.trace(kernels) / len(tr), rtol=1e-10)
    c = np.array([1e3, 1.0, 1e-3])
    scaled = fit(X * c)
    np.testing.assert_allclose(scaled.scales_, ref.scales_ * c, rtol=1e-8)
    np.testing.assert_array_equal(scaled.predict((X * c)[np.ix_(te, tr)]),
                                  ref.predict(X[np.ix_(te, tr)]))


def test_normalize_false_is_the_stack_as_given():
    X, y = _stack(seed=3, n_classes=2)
    X = X * np.array([1e3, 1.0, 1.0])
    raw = AverageKernelSVC(normalize=False).fit(X, y)
    np.testing.assert_array_equal(raw.scales_, np.ones(3))
    Ks = np.stack([SpectrumTransformer("clip").fit_transform(X[:, :, k]) for k in range(3)], -1)
    res = raw.results_[0]
    f = (Ks @ res.kernel_weights) @ (res.alpha * np.where(y == 1, 1.0, -1.0)) + res.b
    np.testing.assert_allclose(raw.decision_function(X), f, atol=1e-6 * np.abs(f).max())


def test_normalize_never_writes_the_input_stack():
    X, y = _stack(seed=4, n_classes=2)
    X = np.stack([X[:, :, 0], 5.0 * X[:, :, 2]], axis=-1)  # PSD, scale 5 tr(ZZ^T)/n
    before = X.copy()
    clf = SimpleMKL(spectrum=None).fit(X, y)
    clf.predict(X[:5])
    np.testing.assert_array_equal(X, before)
    assert clf.scales_[1] > 1.0


def test_with_a_bank_the_bank_scales_and_normalize_does_no_work():
    rng = np.random.default_rng(0)
    F = rng.normal(size=(40, 3)) * np.array([1.0, 100.0, 0.01])
    y = (F[:, 0] + F[:, 1] / 100 > 0).astype(int)
    bank = KernelBank(widths=(1.0, 4.0), degrees=(1,))
    a = AverageKernelSVC(bank=bank).fit(F, y)
    b = AverageKernelSVC(bank=bank, normalize=False).fit(F, y)
    np.testing.assert_array_equal(a.scales_, np.ones(a.n_kernels_))
    np.testing.assert_allclose(a.decision_function(F), b.decision_function(F))


@pytest.mark.parametrize("bad", ["yes", 1, None])
@pytest.mark.parametrize("cls", [SimpleMKL, LpMKL, NonSparseMKL, AverageKernelSVC, KTASVC])
def test_normalize_must_be_a_bool(cls, bad):
    X, y = _stack(n_classes=2)
    with pytest.raises(InvalidParameterError, match="normalize must be True or False"):
        cls(normalize=bad).fit(X, y)


def test_ktasvc_weight_norm_is_alignfs_normalize():
    X, y = _stack(seed=5, n_classes=2)
    y_pm = np.where(y == y.max(), 1.0, -1.0)
    clf = KTASVC(weight_norm="l2", spectrum=None).fit(X[:, :, [0, 2]], y)
    np.testing.assert_allclose(
        clf.weights_, alignf(X[:, :, [0, 2]], np.outer(y_pm, y_pm), normalize="l2"),
        atol=1e-8)
    with pytest.raises(InvalidParameterError, match="weight_norm"):
        KTASVC(weight_norm="l3").fit(X, y)


def test_test_rows_are_validated_once_per_predict():
    """The stack of test rows is checked once, not again matrix by matrix by the
    spectrum transformers (issue 36)."""
    from _validations import recorded_validations

    rng = np.random.default_rng(0)
    Z = rng.normal(size=(40, 3))
    y = (Z[:, 0] > 0).astype(int)
    S = np.stack([Z @ Z.T, np.exp(-((Z[:, None] - Z[None]) ** 2).sum(-1))], axis=-1)
    est = SimpleMKL(spectrum="clip").fit(S[:30, :30], y[:30])
    with recorded_validations() as calls:
        est.predict(S[30:, :30])
    assert [c[0] for c in calls] == ["check_multi_test"]


@pytest.mark.parametrize("cls", [SimpleMKL, LpMKL, AverageKernelSVC])
def test_grid_predictions_equal_one_fit_per_point(cls):
    """The grid-path protocol, with a bank (built once) and on a stack."""
    rng = np.random.default_rng(2)
    F = rng.normal(size=(45, 3))
    y = np.digitize(F[:, 0] + 0.3 * rng.normal(size=45), [-0.5, 0.5])
    tr, te = np.arange(33), np.arange(33, 45)
    grid = [{"C": 0.1}, {"C": 1.0}, {"C": 10.0}]
    model = cls(bank=KernelBank(widths=(1.0, 4.0), degrees=(1,)))
    for p, pred in zip(grid, model.grid_predictions(F[tr], y[tr], F[te], grid), strict=True):
        np.testing.assert_array_equal(pred, clone(model).set_params(**p).fit(F[tr], y[tr])
                                      .predict(F[te]))
    X, ys = _stack(seed=3)
    stacked = cls()
    path = stacked.grid_predictions(X[:30, :30], ys[:30], X[30:, :30], grid)
    for p, pred in zip(grid, path, strict=True):
        np.testing.assert_array_equal(pred, clone(stacked).set_params(**p)
                                      .fit(X[:30, :30], ys[:30]).predict(X[30:, :30]))
    with pytest.raises(InvalidParameterError, match="must not change the bank"):
        model.grid_predictions(F[tr], y[tr], F[te], [{"bank__widths": (2.0,)}])
