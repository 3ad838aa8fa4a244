"""KreinSVC / KreinSVR (KSVM, Loosli, Canu & Ong 2016): the map back to the Kreĭn
space, its equality with the flip SVM and Chen et al.'s consistent test map, the
split f = f+ - f-, and train/test consistency."""

import pickle

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.svm import SVR

from proxlearn.exceptions import InvalidParameterError, LabelError, TestMatrixError
from proxlearn.krein import KreinSVC, KreinSVR
from proxlearn.svm import SimilaritySVC


def indefinite_problem(n=60, n_classes=2, seed=0, noise=0.8):
    """A sigmoid similarity of Gaussian blobs plus symmetric noise: clearly indefinite
    (training samples first, then test samples)."""
    rng = np.random.default_rng(seed)
    y = np.arange(n) % n_classes
    X = 1.5 * rng.standard_normal((n_classes, 4))[y] + rng.standard_normal((n, 4))
    E = rng.standard_normal((n, n))
    S = np.tanh(0.3 * X @ X.T - 0.5) + noise * (E + E.T) / 2
    return S, y, X


def wine_regression(name="wine"):
    """``(S, t)``: a sigmoid similarity of a UCI set's z-scored features but the first,
    and the first feature (wine: alcohol; heart: age) as the target (skips without
    the data)."""
    from proxlearn.datasets import load_feature_dataset

    try:
        X = np.asarray(load_feature_dataset(name).X, dtype=float)
    except Exception as exc:  # the data set is not installed
        pytest.skip(f"UCI {name} not available: {exc}")
    X = (X - X.mean(axis=0)) / X.std(axis=0)
    Z = X[:, 1:]
    return np.tanh(2.0 * Z @ Z.T / Z.shape[1] - 0.5), X[:, 0]


def _split(S, y, n_train):
    return S[:n_train, :n_train], y[:n_train], S[n_train:, :n_train], y[n_train:]


@pytest.mark.parametrize("n_classes", [2, 3])
@pytest.mark.parametrize("normalize", [True, False])
def test_decision_values_equal_flip_svm_with_consistent_test_map(n_classes, normalize):
    """The lead's conjecture, proved in docs/methods.md: KSVM's s^T a~ + b equals the
    flip SVM's (P_flip s)^T v + b to rounding, on an indefinite matrix."""
    S, y, _ = indefinite_problem(n=90, n_classes=n_classes)
    S_tr, y_tr, S_te, _ = _split(S, y, 60)
    assert np.linalg.eigvalsh(S_tr).min() < -0.5  # really indefinite
    krein = KreinSVC(C=2.0, normalize=normalize).fit(S_tr, y_tr)
    flip = SimilaritySVC(spectrum="flip", test_transform="consistent", C=2.0,
                         normalize=normalize).fit(S_tr, y_tr)
    assert_allclose(krein.decision_function(S_te), flip.decision_function(S_te),
                    rtol=0, atol=1e-8)
    assert_array_equal(krein.predict(S_te), flip.predict(S_te))


def test_equality_on_real_data(load_uw):
    S, y = load_uw("aural_sonar")
    rng = np.random.default_rng(0)
    perm = rng.permutation(len(y))
    tr, te = perm[:70], perm[70:]
    krein = KreinSVC().fit(S[np.ix_(tr, tr)], y[tr])
    flip = SimilaritySVC(spectrum="flip").fit(S[np.ix_(tr, tr)], y[tr])
    assert_allclose(krein.decision_function(S[np.ix_(te, tr)]),
                    flip.decision_function(S[np.ix_(te, tr)]), rtol=0, atol=1e-8)


def test_a_raw_test_map_is_not_the_same_model():
    """The equality needs the consistent map: the flip SVM with raw test rows differs,
    so the test above can fail."""
    S, y, _ = indefinite_problem(n=90)
    S_tr, y_tr, S_te, _ = _split(S, y, 60)
    krein = KreinSVC().fit(S_tr, y_tr)
    raw = SimilaritySVC(spectrum="flip", test_transform="raw").fit(S_tr, y_tr)
    assert np.abs(krein.decision_function(S_te) - raw.decision_function(S_te)).max() > 1e-2


def test_krein_coefficients_are_the_mapped_svm_solution():
    """a~ = U sign(Lambda) U^T (alpha y), with the SVM solved on U |Lambda| U^T."""
    S, y, _ = indefinite_problem(n=50)
    clf = KreinSVC(normalize=False).fit(S, y)
    lam, U = np.linalg.eigh((S + S.T) / 2)
    assert_allclose(clf.eigenvalues_, lam, atol=1e-10)
    v = clf.dual_coef_[0]
    assert_allclose(clf.krein_coef_[0], U @ (np.sign(lam) * (U.T @ v)), atol=1e-10)
    # the SVM saw the flipped matrix: its support-vector dual values are in [-C, C]
    assert np.all(np.abs(v) <= clf.C + 1e-12) and clf.support_.size > 0
    assert_allclose(clf.svc_.decision_function(U @ np.diag(np.abs(lam)) @ U.T),
                    (U * np.abs(lam)) @ U.T @ v + clf.intercept_[0], atol=1e-8)


@settings(max_examples=15, deadline=None, derandomize=True)
@given(seed=st.integers(0, 10_000), n_classes=st.integers(2, 3), scale=st.floats(0.01, 100.0))
def test_training_rows_as_test_rows_give_the_svm_decision_on_abs_s(seed, n_classes, scale):
    """Train/test consistency: a training sample's own row, given as a test row, gets
    the decision value of the SVM on |S| (S a~ = |S| (alpha y)): the map back loses nothing."""
    S, y, _ = indefinite_problem(n=30, n_classes=n_classes, seed=seed)
    S = scale * S
    clf = KreinSVC().fit(S, y)
    raw = S @ clf.krein_coef_.T / clf.scale_ + clf.intercept_
    flipped = np.abs(clf.eigenvalues_) * (np.abs(clf.eigenvalues_) > clf.tol_)
    lam, U = np.linalg.eigh((S + S.T) / 2 / clf.scale_)
    K_abs = (U * flipped) @ U.T
    assert_allclose(raw, K_abs @ clf.dual_coef_.T + clf.intercept_, atol=1e-7 * (1 + np.abs(raw).max()))


@pytest.mark.parametrize("n_classes", [2, 3])
def test_decision_splits_into_positive_and_negative_parts(n_classes):
    S, y, _ = indefinite_problem(n=70, n_classes=n_classes)
    S_tr, y_tr, S_te, _ = _split(S, y, 50)
    clf = KreinSVC().fit(S_tr, y_tr)
    f_pos, f_neg = clf.decision_components(S_te)
    pairwise = S_te @ clf.krein_coef_.T / clf.scale_ + clf.intercept_
    assert_allclose(f_pos - f_neg + clf.intercept_, pairwise[:, 0] if n_classes == 2 else pairwise,
                    atol=1e-10)
    # both parts matter on an indefinite matrix
    assert np.abs(f_neg).max() > 1e-3 and np.abs(f_pos).max() > 1e-3
    # f+ lives in the positive eigenspace: on the training rows it is K+ a~
    lam, U = np.linalg.eigh((S_tr + S_tr.T) / 2 / clf.scale_)
    K_pos = (U * np.maximum(lam, 0)) @ U.T
    f_pos_train, f_neg_train = clf.decision_components(S_tr)
    a = clf.krein_coef_.T
    assert_allclose(np.reshape(f_pos_train, (len(y_tr), -1)), K_pos @ a, atol=1e-8)
    K_neg = (U * np.maximum(-lam, 0)) @ U.T
    assert_allclose(np.reshape(f_neg_train, (len(y_tr), -1)), K_neg @ a, atol=1e-8)


def test_string_labels_and_class_weight_keyed_by_label():
    """class_weight is keyed by the user's labels, as SimilaritySVC's (fails when the
    SVM sees label indices)."""
    S, y, _ = indefinite_problem(n=40)
    labels = np.array(["clutter", "target"])[y]
    weights = {"clutter": 1.0, "target": 5.0}
    krein = KreinSVC(class_weight=weights).fit(S, labels)
    flip = SimilaritySVC(spectrum="flip", class_weight=weights).fit(S, labels)
    assert_array_equal(krein.predict(S[:10]), flip.predict(S[:10]))
    assert_allclose(krein.decision_function(S[:10]), flip.decision_function(S[:10]), atol=1e-8)


def test_scale_free_with_normalize():
    S, y, _ = indefinite_problem(n=60)
    S_tr, y_tr, S_te, _ = _split(S, y, 40)
    a = KreinSVC().fit(S_tr, y_tr)
    b = KreinSVC().fit(250.0 * S_tr, y_tr)
    assert_allclose(a.decision_function(S_te), b.decision_function(250.0 * S_te), atol=1e-7)


def test_svr_equals_flip_svr_with_consistent_map():
    """KreinSVR: SVR on |S| then a~ = U sign U^T v; equal to the SVR on the flipped
    matrix with the consistent test rows P_flip s."""
    S, _, X = indefinite_problem(n=80)
    target = X[:, 0] - 0.5 * X[:, 1]
    S_tr, S_te = S[:60, :60], S[60:, :60]
    reg = KreinSVR(C=3.0, epsilon=0.05, normalize=False, normalize_y=False).fit(S_tr, target[:60])
    lam, U = np.linalg.eigh(S_tr)
    ref = SVR(kernel="precomputed", C=3.0, epsilon=0.05).fit((U * np.abs(lam)) @ U.T, target[:60])
    P = (U * np.sign(lam)) @ U.T
    assert_allclose(reg.predict(S_te), ref.predict(S_te @ P), atol=1e-8)
    f_pos, f_neg = reg.decision_components(S_te)
    assert_allclose(f_pos - f_neg + reg.intercept_, reg.predict(S_te), atol=1e-10)


def test_svr_normalize_y_is_the_flip_svr_on_standardised_targets():
    """normalize_y=True: the SVR on |S| fitted on (y - mean) / std, predictions mapped
    back; affine in y (fit on a y + b predicts a f + b)."""
    S, _, X = indefinite_problem(n=80)
    target = 3.0 + 0.002 * (X[:, 0] - 0.5 * X[:, 1])
    S_tr, S_te = S[:60, :60], S[60:, :60]
    reg = KreinSVR(C=3.0, epsilon=0.05, normalize=False).fit(S_tr, target[:60])
    mu, sd = target[:60].mean(), target[:60].std()
    assert (reg.y_mean_, reg.y_scale_) == pytest.approx((mu, sd))
    lam, U = np.linalg.eigh(S_tr)
    ref = SVR(kernel="precomputed", C=3.0, epsilon=0.05).fit((U * np.abs(lam)) @ U.T,
                                                            (target[:60] - mu) / sd)
    P = (U * np.sign(lam)) @ U.T
    assert_allclose(reg.predict(S_te), mu + sd * ref.predict(S_te @ P), atol=1e-10)
    f_pos, f_neg = reg.decision_components(S_te)
    assert_allclose(f_pos - f_neg + reg.intercept_, reg.predict(S_te), atol=1e-10)
    moved = KreinSVR(C=3.0, epsilon=0.05, normalize=False).fit(S_tr, -40.0 * target[:60] + 7.0)
    # the same standardised problem (mirrored): equal within libsvm's stopping tolerance
    # (1e-3 on the dual gradient; a few times that on a prediction), in standard
    # deviations of y
    back = (moved.predict(S_te) - 7.0) / -40.0
    assert_allclose((back - reg.predict(S_te)) / sd, 0.0, atol=1e-2)


def test_svr_learns_a_target_with_a_small_spread():
    """A target whose spread is far below epsilon = 0.1 in its own units (as glass's
    refractive index, standard deviation 0.003): without normalize_y the tube covers
    every sample and the SVR learns nothing; the default standardises y."""
    S, _, X = indefinite_problem(n=120)
    target = 1.52 + 0.003 * np.tanh(X[:, 0] - 0.5 * X[:, 1])
    tr, te = np.arange(90), np.arange(90, 120)
    literal = KreinSVR(normalize_y=False).fit(S[np.ix_(tr, tr)], target[tr])
    default = KreinSVR().fit(S[np.ix_(tr, tr)], target[tr])
    assert literal.score(S[np.ix_(te, tr)], target[te]) < 0.1
    assert default.score(S[np.ix_(te, tr)], target[te]) > 0.5


def test_svr_learns_a_real_target():
    """A real regression target: the first feature of UCI wine predicted from a sigmoid
    similarity (indefinite) of the other twelve, held out: the default C="auto" (internal
    CV) explains over 30 % of the variance (scikit-learn's C = 1: 0.21 +- 0.11 over five
    70/30 splits, docs/benchmarks.md)."""
    wine_S, target = wine_regression()
    te = np.arange(0, len(target), 3)  # a third held out
    tr = np.setdiff1d(np.arange(len(target)), te)
    reg = KreinSVR().fit(wine_S[np.ix_(tr, tr)], target[tr])
    assert reg.score(wine_S[np.ix_(te, tr)], target[te]) > 0.3
    assert reg.C_ in (0.01, 0.1, 1.0)


def test_default_C_does_not_overfit_a_real_target():
    """UCI heart's age from a sigmoid similarity of the other twelve z-scored features,
    a seeded 70/30 split: C="auto" explains variance held out; scikit-learn's C = 1
    (the default before) does not (R^2 -0.04 +- 0.04 over five splits), so this test
    fails with it."""
    S, t = wine_regression("heart")
    perm = np.random.default_rng(0).permutation(len(t))
    tr, te = perm[: int(0.7 * len(t))], perm[int(0.7 * len(t)):]
    reg = KreinSVR().fit(S[np.ix_(tr, tr)], t[tr])
    assert reg.score(S[np.ix_(te, tr)], t[te]) > 0.1


def test_pickle_and_errors():
    S, y, X = indefinite_problem(n=30)
    for est, target in ((KreinSVC(), y), (KreinSVR(), X[:, 0])):
        fitted = est.fit(S, target)
        back = pickle.loads(pickle.dumps(fitted))
        assert_array_equal(back.predict(S[:4]), fitted.predict(S[:4]))
        with pytest.raises(TestMatrixError):
            fitted.predict(S[:4, :-1])
        with pytest.raises(LabelError):
            type(est)().fit(S, target[:-1])
    with pytest.raises(InvalidParameterError, match="^C"):
        KreinSVC(C=0).fit(S, y)
    with pytest.raises(InvalidParameterError, match="^epsilon"):
        KreinSVR(epsilon=-1.0).fit(S, X[:, 0])
    with pytest.raises(LabelError, match="NaN"):
        KreinSVR().fit(S, np.where(np.arange(30) == 3, np.nan, 1.0))


@pytest.mark.parametrize("normalize", [True, False])
def test_the_training_matrix_is_never_overwritten(normalize):
    """The decomposition runs in place on the estimator's own copy only (a unit
    diagonal makes scale_ = 1, the path where no division copies the matrix)."""
    from proxlearn.krein import KreinLeastSquares, KreinLeastSquaresClassifier

    S, y, X = indefinite_problem(n=20)
    S = (S + S.T) / 2
    S[np.diag_indices(20)] = 1.0
    for est, target in ((KreinSVC, y), (KreinSVR, X[:, 0]), (KreinLeastSquares, X[:, 0]),
                        (KreinLeastSquaresClassifier, y)):
        before = S.copy()
        est(normalize=normalize).fit(S, target)
        assert_array_equal(S, before)
