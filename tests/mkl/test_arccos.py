"""Arc-cosine kernels (Cho & Saul 2009) and ArcCosineSVC, the MKM baseline of Zhuang 2011."""

import pickle
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.base import clone
from sklearn.model_selection import GridSearchCV, KFold, cross_val_score
from sklearn.svm import SVC
from sklearn.utils.estimator_checks import check_estimator

from proxlearn.base import FEATURE_CHECK_EXCEPTIONS, is_pairwise
from proxlearn.exceptions import FeatureMatrixError, InvalidParameterError, LabelError
from proxlearn.mkl._arccos import ArcCosineSVC, arccos_kernel


def _vectors(seed=0, d=3):
    """Pairs at every kind of angle: nearly parallel, nearly antiparallel, orthogonal,
    random, with different norms."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(6, d))
    X[1] = -0.8 * X[0] + 0.1 * rng.normal(size=d)
    X[2] = 0.9 * X[0] + 0.05 * rng.normal(size=d)
    X[3] = np.cross(X[0], X[4]) * 0.7  # orthogonal to X[0] and X[4]
    X[5] *= 2.5
    return X


def _monte_carlo(X, degree, n_samples=600_000, seed=1):
    """Cho & Saul eq. 1, ``2 E_w[Theta(w.x) Theta(w.y) (w.x)^n (w.y)^n]`` with
    ``w ~ N(0, I)``, and the standard error of each entry."""
    rng = np.random.default_rng(seed)
    m = X.shape[0]
    s1, s2 = np.zeros((m, m)), np.zeros((m, m))
    chunk = 100_000
    for _ in range(n_samples // chunk):
        P = rng.standard_normal((chunk, X.shape[1])) @ X.T
        F = np.where(P > 0, P, 0.0) ** degree * (P > 0)  # Theta(z) z^n (never 0^0 < 0)
        s1 += 2.0 * F.T @ F
        s2 += 4.0 * (F * F).T @ (F * F)
    mean = s1 / n_samples
    se = np.sqrt(np.maximum(s2 / n_samples - mean**2, 0.0) / n_samples)
    return mean, se


def _by_formula(X, degree, J):
    nx = np.linalg.norm(X, axis=1)
    t = np.arccos(np.clip(X @ X.T / np.outer(nx, nx), -1.0, 1.0))
    return np.outer(nx, nx) ** degree * J(t) / np.pi


#: Plausible mistakes, each of which the Monte-Carlo test must reject.
WRONG_J = {
    0: lambda t: (np.pi - t) * (1.0 + 0.1 * np.cos(t)),
    1: lambda t: (np.pi - t) * np.cos(t),  # the sine term dropped
    2: lambda t: 3 * np.sin(t) * np.cos(t) + (np.pi - t) * (1 + np.cos(t) ** 2),  # 1 + cos^2
}


@pytest.mark.parametrize("degree", [0, 1, 2])
def test_closed_form_matches_the_defining_integral(degree):
    X = _vectors()
    mc, se = _monte_carlo(X, degree)
    K = arccos_kernel(X, degree=degree)
    tol = 5.0 * se + 1e-12
    assert np.all(np.abs(mc - K) <= tol), np.max(np.abs(mc - K) / se)
    # the test has the power to see a wrong formula: a 3% error or a wrong J_n fails
    for wrong in (1.03 * K, 0.97 * K, _by_formula(X, degree, WRONG_J[degree])):
        assert np.any(np.abs(mc - wrong) > tol)


def test_known_values():
    x, y = np.array([[3.0, 4.0, 0.0]]), np.array([[0.0, 0.0, 2.0]])  # orthogonal, |x| = 5
    assert arccos_kernel(x, degree=0)[0, 0] == pytest.approx(1.0)
    assert arccos_kernel(x, degree=1)[0, 0] == pytest.approx(25.0)
    assert arccos_kernel(x, degree=2)[0, 0] == pytest.approx(3 * 625.0)
    assert arccos_kernel(x, y, degree=0)[0, 0] == pytest.approx(0.5)
    assert arccos_kernel(x, y, degree=1)[0, 0] == pytest.approx(10.0 / np.pi)
    assert arccos_kernel(x, y, degree=2)[0, 0] == pytest.approx(100.0 / 2)
    assert arccos_kernel(x, -x, degree=1)[0, 0] == pytest.approx(0.0, abs=1e-12)


@pytest.mark.parametrize("degree", [0, 1, 2])
@pytest.mark.parametrize("layers", [1, 2, 3])
def test_gram_is_symmetric_psd(degree, layers):
    X = np.random.default_rng(degree + 10 * layers).normal(size=(30, 4))
    K = arccos_kernel(X, degree=degree, layers=layers)
    np.testing.assert_array_equal(K, K.T)
    lam = np.linalg.eigvalsh(K)
    assert lam[0] >= -1e-10 * lam[-1]
    # the cross kernel is the block of the joint Gram, and swapping the arguments transposes
    A, B = X[:10], X[10:]
    np.testing.assert_allclose(arccos_kernel(A, B, degree=degree, layers=layers), K[:10, 10:],
                               rtol=1e-7, atol=1e-9 * np.abs(K).max())
    np.testing.assert_allclose(arccos_kernel(B, A, degree=degree, layers=layers),
                               arccos_kernel(A, B, degree=degree, layers=layers).T, rtol=1e-12)


def _one_layer_by_hand(kxy, kxx, kyy, n):
    out = np.empty_like(kxy)
    for i in range(kxy.shape[0]):
        for j in range(kxy.shape[1]):
            t = np.arccos(np.clip(kxy[i, j] / np.sqrt(kxx[i] * kyy[j]), -1.0, 1.0))
            J = [np.pi - t,
                 np.sin(t) + (np.pi - t) * np.cos(t),
                 3 * np.sin(t) * np.cos(t) + (np.pi - t) * (1 + 2 * np.cos(t) ** 2)][n]
            out[i, j] = (kxx[i] * kyy[j]) ** (n / 2) * J / np.pi
    return out


@pytest.mark.parametrize("degree", [0, 1, 2])
def test_second_layer_applies_the_formula_to_the_first_layer(degree):
    rng = np.random.default_rng(3)
    X, Y = rng.normal(size=(5, 3)), rng.normal(size=(4, 3))
    K1 = arccos_kernel(X, degree=degree)
    expected = _one_layer_by_hand(K1, np.diag(K1), np.diag(K1), degree)
    np.testing.assert_allclose(arccos_kernel(X, degree=degree, layers=2), expected,
                               rtol=1e-7)
    kyy = np.diag(arccos_kernel(Y, degree=degree))
    expected = _one_layer_by_hand(arccos_kernel(X, Y, degree=degree), np.diag(K1), kyy, degree)
    np.testing.assert_allclose(arccos_kernel(X, Y, degree=degree, layers=2), expected,
                               rtol=1e-7)
    # layer 1 itself is the formula on the linear kernel
    np.testing.assert_allclose(K1, _one_layer_by_hand(X @ X.T, (X * X).sum(1), (X * X).sum(1),
                                                      degree), rtol=1e-7)


@pytest.mark.parametrize("layers", [1, 2, 3])
def test_zero_vectors_give_finite_values(layers):
    X = np.random.default_rng(0).normal(size=(6, 3))
    X[2] = 0.0
    for degree in (0, 1, 2):
        K = arccos_kernel(X, degree=degree, layers=layers)
        assert np.all(np.isfinite(K))
        assert np.linalg.eigvalsh(K)[0] >= -1e-10 * np.abs(K).max()
        if degree > 0:  # |x|^n = 0 at every layer
            assert np.all(K[2] == 0.0)
        assert np.all(np.isfinite(arccos_kernel(X[:3], X[3:], degree=degree, layers=layers)))
    # Theta(0) = 1/2 (Cho & Saul): k_0(0, y) = 2 * 1/2 * P(w.y > 0) = 1/2, also k_0(0, 0)
    K0 = arccos_kernel(X, degree=0)
    np.testing.assert_allclose(K0[2], 0.5)


def test_kernel_bad_input():
    X = np.random.default_rng(0).normal(size=(5, 3))
    with pytest.raises(InvalidParameterError, match="degree"):
        arccos_kernel(X, degree=3)
    with pytest.raises(InvalidParameterError, match="degree"):
        arccos_kernel(X, degree=True)
    with pytest.raises(InvalidParameterError, match="layers"):
        arccos_kernel(X, layers=0)
    with pytest.raises(FeatureMatrixError, match="expecting 3 features"):
        arccos_kernel(X, X[:, :2])
    bad = X.copy()
    bad[1, 1] = np.nan
    with pytest.raises(FeatureMatrixError, match="NaN"):
        arccos_kernel(bad)
    with pytest.raises(FeatureMatrixError, match="Rescale"):
        arccos_kernel(X * 1e30, degree=2, layers=3)  # grows like |x|^16


# --- ArcCosineSVC ---------------------------------------------------------------------


def _data(n=60, seed=0, n_classes=2):
    rng = np.random.default_rng(seed)
    y = np.arange(n) % n_classes
    centres = rng.normal(scale=2.0, size=(n_classes, 3))
    return centres[y] + rng.normal(size=(n, 3)), y


def test_is_an_svm_on_the_precomputed_kernel():
    X, y = _data()
    clf = ArcCosineSVC(degree=2, layers=2, C=0.5, standardize=False).fit(X, y)
    assert not is_pairwise(clf)
    ref = SVC(kernel="precomputed", C=0.5).fit(arccos_kernel(X, degree=2, layers=2), y)
    Xt = np.random.default_rng(5).normal(size=(7, 3))
    Kt = arccos_kernel(Xt, X, degree=2, layers=2)
    np.testing.assert_allclose(clf.decision_function(Xt), ref.decision_function(Kt))
    np.testing.assert_array_equal(clf.predict(Xt), ref.predict(Kt))
    assert clf.n_features_in_ == 3
    with pytest.raises(FeatureMatrixError, match="reshape"):  # one sample must be 2-D
        clf.predict(Xt[0])


def test_multiclass_with_string_labels():
    X, y = _data(n=90, n_classes=3, seed=2)
    labels = np.array(["a", "b", "c"])[y]
    clf = ArcCosineSVC().fit(X, labels)
    assert list(clf.classes_) == ["a", "b", "c"]
    dec = clf.decision_function(X)
    assert dec.shape == (90, 3)
    np.testing.assert_array_equal(clf.predict(X), clf.classes_[np.argmax(dec, axis=1)])
    assert clf.score(X, labels) > 0.8


def test_cross_val_score_slices_rows_only():
    X, y = _data(n=60, n_classes=3, seed=1)
    cv = KFold(3, shuffle=True, random_state=0)
    est = ArcCosineSVC(degree=1)
    auto = cross_val_score(est, X, y, cv=cv)
    manual = [clone(est).fit(X[tr], y[tr]).score(X[te], y[te]) for tr, te in cv.split(X)]
    np.testing.assert_allclose(auto, manual)
    assert auto.mean() > 0.6  # chance is 1/3


def test_grid_search_over_degree():
    X, y = _data(seed=3)
    gs = GridSearchCV(ArcCosineSVC(), {"degree": [0, 1, 2]}, cv=3).fit(X, y)
    assert gs.best_params_["degree"] in (0, 1, 2)
    assert gs.best_estimator_.degree == gs.best_params_["degree"]
    np.testing.assert_array_equal(gs.predict(X[:5]), gs.best_estimator_.predict(X[:5]))


def test_pickle_and_params_untouched_by_fit():
    X, y = _data()
    est = ArcCosineSVC(degree=0, layers=3, C=2.0)
    params = est.get_params()
    fitted = clone(est).fit(X, y)
    assert fitted.get_params() == params
    back = pickle.loads(pickle.dumps(fitted))
    np.testing.assert_array_equal(back.predict(X), fitted.predict(X))
    # equal up to BLAS rounding (the copy's arrays may be aligned differently)
    np.testing.assert_allclose(back.decision_function(X), fitted.decision_function(X),
                               rtol=1e-12, atol=1e-12)




def test_check_estimator():
    check_estimator(ArcCosineSVC(), expected_failed_checks=FEATURE_CHECK_EXCEPTIONS)


def test_sparse_features_are_densified():
    import scipy.sparse

    X, y = _data()
    X[X < 0.3] = 0.0
    dense = ArcCosineSVC().fit(X, y)
    sparse = ArcCosineSVC().fit(scipy.sparse.csr_matrix(X), y)
    np.testing.assert_allclose(sparse.decision_function(scipy.sparse.csr_matrix(X[:5])),
                               dense.decision_function(X[:5]), rtol=1e-10, atol=1e-12)


def test_bad_input_errors():
    X, y = _data()
    bad = X.copy()
    bad[3, 1] = np.nan
    with pytest.raises(FeatureMatrixError, match="NaN"):
        ArcCosineSVC().fit(bad, y)
    with pytest.raises(FeatureMatrixError, match="2-D"):
        ArcCosineSVC().fit(X[:, 0], y)
    masked = np.ma.masked_array(X, mask=np.zeros_like(X, dtype=bool))
    masked[0, 0] = np.ma.masked
    with pytest.raises(FeatureMatrixError, match="masked"):
        ArcCosineSVC().fit(masked, y)
    with pytest.raises(LabelError, match="1 class"):
        ArcCosineSVC().fit(X, np.zeros_like(y))
    with pytest.raises(LabelError, match="labels"):
        ArcCosineSVC().fit(X, y[:-1])
    labels = np.array(["u", "v"], dtype=object)[y]
    labels[4] = None
    with pytest.raises(LabelError, match="missing"):
        ArcCosineSVC().fit(X, labels)
    with pytest.raises(LabelError, match="continuous"):
        ArcCosineSVC().fit(X, y + 0.5)
    with pytest.raises(InvalidParameterError, match="degree"):
        ArcCosineSVC(degree=5).fit(X, y)
    with pytest.raises(InvalidParameterError, match="layers"):
        ArcCosineSVC(layers=0).fit(X, y)
    with pytest.raises(InvalidParameterError, match="C"):
        ArcCosineSVC(C=0.0).fit(X, y)
    with pytest.raises(FeatureMatrixError, match="too large"):
        ArcCosineSVC().fit(X * 1e155, y)
    fitted = ArcCosineSVC().fit(X, y)
    with pytest.raises(FeatureMatrixError, match="expecting 3 features"):
        fitted.predict(X[:, :2])
    with pytest.raises(FeatureMatrixError, match="masked"):
        fitted.predict(masked[1])
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a zero test vector: no NaN, no warning
        assert np.all(np.isfinite(fitted.decision_function(np.zeros((2, 3)))))


@pytest.mark.parametrize("kind", ["zero", "rank-one"])
def test_degenerate_features_never_give_nan(kind):
    y = np.repeat([0, 1], 12)
    v = np.random.default_rng(1).normal(size=24)
    X = np.zeros((24, 3)) if kind == "zero" else np.outer(v, [1.0, 2.0, 3.0])
    for degree in (0, 1, 2):
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            clf = ArcCosineSVC(degree=degree).fit(X, y)
            assert np.all(np.isfinite(clf.decision_function(X[:6])))
            assert set(clf.predict(X[:6])) <= {0, 1}


@settings(max_examples=10, deadline=None)
@given(c=st.floats(1e-3, 1e3), degree=st.integers(0, 2))
def test_scaling_the_features_changes_nothing_by_default(c, degree):
    """Issue 40 item 3: standardised first (the thesis's preprocessing), so ``c X``
    gives the same predictions; without it the kernel scales as ``c^(2n)``."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 4)) * [1.0, 10.0, 0.1, 3.0]
    y = (X[:, 0] + X[:, 1] / 10 + 0.5 * rng.normal(size=40) > 0).astype(int)
    a = ArcCosineSVC(degree=degree).fit(X, y)
    b = ArcCosineSVC(degree=degree).fit(c * X, y)
    # equal kernels up to rounding; libsvm stops at its tol = 1e-3
    np.testing.assert_allclose(b.decision_function(c * X), a.decision_function(X), atol=1e-3)
    dec = a.decision_function(X)
    sure = np.abs(dec) > 1e-2
    np.testing.assert_array_equal(b.predict(c * X)[sure], a.predict(X)[sure])
