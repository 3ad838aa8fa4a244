"""The base-kernel bank (Zhuang 2011 section 4.5.1) and lazy kernel stacks."""

import pickle
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.base import clone
from sklearn.model_selection import GridSearchCV, KFold, cross_val_score

from proxlearn.base import is_pairwise
from proxlearn.exceptions import FeatureMatrixError, InvalidParameterError
from proxlearn.mkl import KTASVC, AverageKernelSVC, KernelBank, LazyKernelStack, LpMKL, SimpleMKL
from proxlearn.mkl._bank import (
    stack_combine,
    stack_entries,
    stack_inner,
    stack_quad,
    stack_take,
)


def _data(n=40, d=3, seed=0):
    rng = np.random.default_rng(seed)
    y = np.arange(n) % 2
    X = rng.normal(size=(n, d)) * [1.0, 3.0, 0.5][:d] + 5.0
    X[:, 0] += 1.5 * y  # feature 0 informative
    return X, y


def test_bank_size_traces_and_formulas():
    X, _ = _data()
    bank = KernelBank().fit(X)
    assert bank.n_kernels_ == 13 * (3 + 1)
    Ks = bank.stack()
    n = len(X)
    np.testing.assert_allclose(np.einsum("iit->t", Ks), n)  # mean training diagonal 1
    Z = (X - X.mean(0)) / X.std(0)
    d2 = ((Z[:, None] - Z[None]) ** 2).sum(-1)
    np.testing.assert_allclose(Ks[:, :, 0], np.exp(-d2 / (2 * 0.125**2)), atol=1e-300)
    G = (Z[:, 1:2] @ Z[:, 1:2].T + 1.0) ** 3  # poly(3) on feature 1
    t = [i for i, k in enumerate(bank.kernels_) if k == (1, "poly", 3)][0]
    np.testing.assert_allclose(Ks[:, :, t], n * G / np.trace(G))
    # the thesis's unit trace: the same kernels, n times smaller; None: as computed
    Kt = KernelBank(normalize="trace").fit(X).stack()
    np.testing.assert_allclose(np.einsum("iit->t", Kt), 1.0)
    np.testing.assert_allclose(Kt * n, Ks, rtol=1e-12, atol=1e-300)
    Kr = KernelBank(normalize=None).fit(X).stack()
    np.testing.assert_allclose(Kr[:, :, t], G, rtol=1e-12)
    assert bank.kernel_name(t) == "poly(degree=3) on feature 1"
    assert KernelBank(per_feature=False).fit(X).n_kernels_ == 13


def test_test_rows_use_training_statistics_and_trace():
    X, _ = _data()
    bank = KernelBank().fit(X)
    np.testing.assert_allclose(bank.stack(X[:7]), bank.stack()[:7], atol=1e-15)
    np.testing.assert_allclose(bank.stack(X), bank.stack(), atol=1e-15)
    # a feature constant in training contributes 0 whatever the test value
    Xc = X.copy()
    Xc[:, 2] = 1.0
    bc = KernelBank().fit(Xc)
    assert bc.n_kernels_ == 13 * 3  # no kernels on the constant feature
    Xt = Xc[:3].copy()
    Xt[:, 2] = 99.0
    np.testing.assert_allclose(bc.stack(Xt), bc.stack()[:3], atol=1e-15)


@settings(max_examples=20, deadline=None)
@given(st.integers(0, 10_000), st.integers(5, 25), st.integers(1, 4))
def test_training_row_maps_to_its_row_dense_and_lazy(seed, n, d):
    """Consistency: the test map of training sample i is row i of the training stack."""
    X = np.random.default_rng(seed).normal(size=(n, d))
    for mem in (2**30, 1):
        bank = KernelBank(max_memory=mem).fit(X)
        train = bank.stack()
        train = train if isinstance(train, np.ndarray) else train.toarray()
        i = seed % n
        row = bank.stack(X[i:i + 1])
        row = row if isinstance(row, np.ndarray) else row.toarray()
        np.testing.assert_allclose(row[0], train[i], rtol=1e-12, atol=1e-15)


def test_lazy_stack_equals_dense_for_every_operation():
    X, _ = _data(n=30)
    dense = KernelBank().fit(X).stack()
    lazy = KernelBank(max_memory=1).fit(X).stack()
    assert isinstance(lazy, LazyKernelStack) and lazy.shape == dense.shape
    rng = np.random.default_rng(1)
    w = rng.random(dense.shape[2])
    w[::3] = 0.0
    u = rng.normal(size=30)
    u[::4] = 0.0
    idx = np.array([0, 3, 5, 9])
    W = rng.normal(size=(4, 4))
    np.testing.assert_allclose(stack_combine(lazy, w), stack_combine(dense, w), atol=1e-14)
    np.testing.assert_allclose(stack_quad(lazy, u), np.einsum("i,ijt,j->t", u, dense, u),
                               atol=1e-14)
    np.testing.assert_allclose(stack_quad(dense, u), np.einsum("i,ijt,j->t", u, dense, u),
                               atol=1e-14)
    np.testing.assert_allclose(stack_inner(lazy, W, idx), stack_inner(dense, W, idx), atol=1e-14)
    np.testing.assert_allclose(stack_take(lazy, idx, idx[::-1]).toarray(),
                               stack_take(dense, idx, idx[::-1]), atol=1e-15)
    np.testing.assert_allclose(stack_entries(lazy, idx, idx[::-1]),
                               dense[idx, idx[::-1], :], atol=1e-15)


def test_categorical_features_take_the_one_hot_path_with_the_same_numbers():
    rng = np.random.default_rng(4)
    X = np.hstack([rng.normal(size=(50, 2)), rng.integers(0, 2, size=(50, 3)),
                   rng.integers(0, 4, size=(50, 1))])
    dense = KernelBank().fit(X).stack()
    lazy = KernelBank(max_memory=1).fit(X).stack()
    assert sorted(lazy.cat) == [2, 3, 4, 5] and lazy.n_codes == 2 * 3 + 4
    w = rng.random(dense.shape[2])
    w[::4] = 0.0
    u = rng.normal(size=50)
    u[::3] = 0.0
    np.testing.assert_allclose(stack_combine(lazy, w), dense @ w, atol=1e-14)
    np.testing.assert_allclose(stack_quad(lazy, u), np.einsum("i,ijt,j->t", u, dense, u),
                               atol=1e-14)
    idx = np.array([2, 8, 9, 30, 41])
    W = rng.normal(size=(5, 5))
    np.testing.assert_allclose(stack_inner(lazy, W, idx), stack_inner(dense, W, idx),
                               atol=1e-14)
    test = KernelBank(max_memory=1).fit(X).stack(X[:7])  # test rows: codes of both sides
    np.testing.assert_allclose(stack_combine(test, w), (dense @ w)[:7], atol=1e-14)


@pytest.mark.parametrize("room", [0, 5, 10_000])
def test_lazy_stack_cache_gives_the_same_numbers_within_its_budget(room):
    """Kernels kept from a first full pass are served (sliced) to later passes with
    the numbers a fresh computation gives; the cache never exceeds its budget."""
    rng = np.random.default_rng(7)
    X = np.hstack([rng.normal(size=(30, 2)), rng.integers(0, 2, size=(30, 2))])
    dense = KernelBank().fit(X).stack()
    lazy = KernelBank(max_memory=1).fit(X).stack()
    lazy.cache_bytes = room * 8 * 30 * 30  # room for `room` kernels
    w = rng.random(dense.shape[2])
    u = rng.normal(size=30)
    u[::4] = 0.0
    idx = np.array([1, 4, 6, 20, 29])
    W = rng.normal(size=(5, 5))
    for _ in range(2):  # the first pass fills the cache, the second reads it
        np.testing.assert_allclose(stack_combine(lazy, w), dense @ w, atol=1e-14)
        np.testing.assert_allclose(stack_quad(lazy, u), np.einsum("i,ijt,j->t", u, dense, u),
                                   atol=1e-14)
        np.testing.assert_allclose(stack_inner(lazy, W, idx), stack_inner(dense, W, idx),
                                   atol=1e-14)
        np.testing.assert_allclose(stack_entries(lazy, idx, idx[::-1]),
                                   dense[idx, idx[::-1], :], atol=1e-15)
        np.testing.assert_allclose(lazy.toarray(), dense, atol=1e-15)
        kept = len(lazy._dense)
        assert kept <= room and kept * 8 * 30 * 30 <= lazy.cache_bytes
    # 39 non-categorical kernels (all features and the 2 continuous ones), kept while
    # there is room
    assert kept == min(room, 39)
    assert all(t in lazy._tables for t in range(dense.shape[2]) if lazy.kernels[t][0] in lazy.cat)


def test_memory_rule():
    X, _ = _data(n=50)
    bank = KernelBank(max_memory=8 * 52 * 50 * 50).fit(X)  # exactly fits
    assert isinstance(bank.stack(), np.ndarray)
    assert isinstance(KernelBank(max_memory=8 * 52 * 50 * 50 - 1).fit(X).stack(),
                      LazyKernelStack)


@pytest.mark.parametrize("bad,match", [
    ({"widths": [0.5, -1.0]}, "widths"), ({"degrees": [0]}, "degrees"),
    ({"degrees": [1.5]}, "degrees"), ({"widths": [], "degrees": []}, "empty"),
    ({"poly_offset": -1.0}, "poly_offset")])
def test_bad_parameters(bad, match):
    with pytest.raises(InvalidParameterError, match=match):
        KernelBank(**bad).fit(_data()[0])


def test_bad_features():
    X, _ = _data()
    bank = KernelBank().fit(X)
    with pytest.raises(FeatureMatrixError, match="expecting 3 features"):
        bank.stack(X[:, :2])
    Xn = X.copy()
    Xn[2, 1] = np.nan
    with pytest.raises(FeatureMatrixError, match="NaN"):
        KernelBank().fit(Xn)
    with pytest.raises(FeatureMatrixError, match="2-D"):
        KernelBank().fit(X[:, 0])


ESTIMATORS = [SimpleMKL(C=10.0), LpMKL(C=10.0), AverageKernelSVC(C=10.0), KTASVC(C=10.0)]


@pytest.mark.parametrize("est", ESTIMATORS, ids=lambda e: type(e).__name__)
def test_bank_estimators_equal_precomputed_bank_kernels(est):
    """With a bank, an estimator is the same as on the bank's stack given as kernels
    (iterative solvers run to a tight tolerance: the two stacks differ in memory
    layout, hence in rounding, and an unconverged path would differ by its gap)."""
    X, y = _data()
    bank = KernelBank(widths=[0.5, 2.0, 8.0], degrees=[1, 2])
    if "tol" in est.get_params():
        est = clone(est).set_params(tol=1e-7, max_iter=5000)
    with_bank = clone(est).set_params(bank=bank).fit(X[:30], y[:30])
    fitted_bank = clone(bank).fit(X[:30])
    pre = clone(est).set_params(spectrum=None).fit(fitted_bank.stack(), y[:30])
    np.testing.assert_allclose(with_bank.decision_function(X[30:]),
                               pre.decision_function(fitted_bank.stack(X[30:])), atol=1e-5)
    np.testing.assert_allclose(with_bank.weights_, pre.weights_, atol=1e-4)


@pytest.mark.parametrize("est", ESTIMATORS, ids=lambda e: type(e).__name__)
def test_bank_estimators_in_model_selection(est):
    X, y = _data(n=48)
    est = clone(est).set_params(bank=KernelBank(widths=[1.0, 4.0], degrees=[1]))
    assert not is_pairwise(est) and is_pairwise(clone(est).set_params(bank=None))
    cv = KFold(3, shuffle=True, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        auto = cross_val_score(est, X, y, cv=cv)
        manual = [clone(est).fit(X[tr], y[tr]).score(X[te], y[te]) for tr, te in cv.split(X)]
        np.testing.assert_allclose(auto, manual)
        assert auto.mean() > 0.6
        gs = GridSearchCV(est, {"C": [1.0, 100.0]}, cv=3).fit(X, y)
    fitted = gs.best_estimator_
    back = pickle.loads(pickle.dumps(fitted))
    np.testing.assert_array_equal(back.predict(X[:5]), fitted.predict(X[:5]))
    with pytest.raises(FeatureMatrixError):
        fitted.predict(X[:5, :2])


def test_lazy_and_dense_fits_agree():
    X, y = _data(n=40)
    a = SimpleMKL(C=10.0, bank=KernelBank()).fit(X, y)
    b = SimpleMKL(C=10.0, bank=KernelBank(max_memory=1)).fit(X, y)
    np.testing.assert_allclose(a.decision_function(X[:9]), b.decision_function(X[:9]),
                               atol=1e-7)


def test_kta_weights_are_alignf_and_find_the_target():
    from proxlearn.mkl import alignf

    rng = np.random.default_rng(0)
    y = np.repeat([0, 1], 15)
    ypm = 2.0 * y - 1
    noise = [rng.normal(size=(30, 5)) for _ in range(3)]
    Ks = np.stack([np.outer(ypm, ypm) + np.eye(30)] + [N @ N.T for N in noise], axis=-1)
    est = KTASVC(spectrum=None).fit(Ks, y)
    np.testing.assert_allclose(est.weights_, alignf(Ks, np.outer(ypm, ypm), normalize="l1"))
    assert est.weights_[0] > 0.9


def test_stack_operations_agree_across_memory_layouts_without_copying_the_stack():
    """C-ordered, kernel-major and Fortran-ordered-kernel stacks (np.stack of BLAS
    outputs) give the same combinations, inner products and quadratic forms, and the
    F-ordered stack is read through a view, not copied."""
    from proxlearn.mkl._bank import _flat, stack_combine, stack_inner, stack_quad

    rng = np.random.default_rng(0)
    mats = [rng.normal(size=(6, 6)) for _ in range(4)]
    mats = [M + M.T for M in mats]
    w, u, W = rng.normal(size=4), rng.normal(size=6), rng.normal(size=(6, 6))
    ref_c = sum(w[t] * mats[t] for t in range(4))
    ref_i = [np.sum(W * M) for M in mats]
    ref_q = [u @ M @ u for M in mats]
    layouts = {"C": np.stack(mats, -1),
               "kernel-major": np.moveaxis(np.stack(mats, 0), 0, -1),
               "F kernels": np.stack([np.asfortranarray(M) for M in mats], -1)}
    for name, S in layouts.items():
        np.testing.assert_allclose(stack_combine(S, w), ref_c, err_msg=name)
        np.testing.assert_allclose(stack_inner(S, W), ref_i, err_msg=name)
        np.testing.assert_allclose(stack_quad(S, u), ref_q, err_msg=name)
        flat, _ = _flat(S)
        assert np.shares_memory(flat, S), name
