"""Tests of SimilaritySVC (similarities as a spectrum-modified kernel)."""

import warnings

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.svm import SVC

from proxlearn._validation import (
    AsymmetricSimilarityWarning,
    InvalidParameterError,
    LabelError,
    SimilarityMatrixError,
    TestMatrixError,
)
from proxlearn._scale import similarity_scale
from proxlearn._svm import _libsvm
from proxlearn.svm import SimilaritySVC
from proxlearn.transforms import SpectrumTransformer


SPECTRA = ["clip", "flip", "shift", "square", "none"]

def blobs(n_train=80, n_test=60, noise=0.6, seed=0, n_classes=2):
    """Linear kernel of Gaussian blobs plus symmetric noise (indefinite)."""
    rng = np.random.default_rng(seed)
    n = n_train + n_test
    y = np.arange(n) % n_classes
    centers = 2.0 * rng.standard_normal((n_classes, 5))
    X = centers[y] + rng.standard_normal((n, 5))
    E = rng.standard_normal((n, n))
    S = X @ X.T + noise * (E + E.T)
    perm = rng.permutation(n)
    S, y = S[np.ix_(perm, perm)], y[perm]
    tr, te = slice(0, n_train), slice(n_train, n)
    return S[tr, tr], y[tr], S[te, tr], y[te]


def test_synthetic_problem_is_indefinite():
    S, *_ = blobs()
    assert np.linalg.eigvalsh(S).min() < -1.0


@pytest.mark.parametrize("spectrum", SPECTRA)
def test_accuracy_far_above_chance(spectrum):
    S, y, S_test, y_test = blobs()
    clf = SimilaritySVC(spectrum=spectrum, C=0.1).fit(S, y)
    assert clf.score(S_test, y_test) >= 0.85


@pytest.mark.parametrize("spectrum", ["clip", "flip", "square", "none"])
def test_linear_equals_consistent_except_for_shift(spectrum):
    S, y, S_test, _ = blobs(seed=7)
    a = SimilaritySVC(spectrum, test_transform="consistent").fit(S, y)
    b = SimilaritySVC(spectrum, test_transform="linear").fit(S, y)
    assert_allclose(a.decision_function(S_test), b.decision_function(S_test))


def test_shift_linear_map_runs_but_is_fragile():
    # Gu & Guo's exact map (lambda + delta) / lambda amplifies directions with
    # small |lambda|; it is finite but generalises worse than s~ = s here.
    S, y, S_test, y_test = blobs()
    lin = SimilaritySVC("shift", C=0.1, test_transform="linear", normalize=False).fit(S, y)
    d = lin.decision_function(S_test)
    assert np.all(np.isfinite(d))
    assert_allclose(
        lin.transformer_.transform(S),
        lin.transformer_.kernel_,
        atol=1e-8 * np.abs(S).max(),
    )


def test_multiclass_and_string_labels():
    S, y, S_test, y_test = blobs(n_train=90, n_test=60, n_classes=3, seed=1)
    names = np.array(["ant", "bee", "cat"])
    clf = SimilaritySVC(C=0.1).fit(S, names[y])
    assert_array_equal(clf.classes_, names)
    assert clf.decision_function(S_test).shape == (60, 3)
    pred = clf.predict(S_test)
    assert set(pred) <= set(names)
    assert np.mean(pred == names[y_test]) >= 0.8


def test_matches_manual_pipeline():
    S, y, S_test, _ = blobs(seed=2)
    clf = SimilaritySVC("flip", C=0.5, normalize=False).fit(S, y)
    t = SpectrumTransformer("flip")
    svc = SVC(kernel="precomputed", C=0.5).fit(t.fit_transform(S), y)
    assert_allclose(
        clf.decision_function(S_test), svc.decision_function(t.transform(S_test))
    )
    assert isinstance(clf.transformer_, SpectrumTransformer)
    assert clf.svc_.kernel == "precomputed"
    assert clf.n_features_in_ == S.shape[0]
    assert clf.decision_function(S_test).shape == (S_test.shape[0],)


def test_class_weight_is_forwarded():
    S, y, _, _ = blobs(seed=3)
    clf = SimilaritySVC(class_weight={0: 1.0, 1: 5.0}).fit(S, y)
    assert_allclose(clf.svc_.class_weight_, [1.0, 5.0])


def test_all_zero_matrix_gives_finite_predictions():
    y = np.array([0, 1] * 5)
    for spectrum in SPECTRA:
        clf = SimilaritySVC(spectrum).fit(np.zeros((10, 10)), y)
        d = clf.decision_function(np.zeros((3, 10)))
        assert np.all(np.isfinite(d))
        assert set(clf.predict(np.zeros((3, 10)))) <= {0, 1}


@pytest.mark.parametrize("spectrum", ["clip", "flip", "shift", "none"])
def test_asymmetric_warns(spectrum):
    S, y, _, _ = blobs(seed=4)
    S = S + 0.5 * np.random.default_rng(0).standard_normal(S.shape)
    with pytest.warns(AsymmetricSimilarityWarning):
        SimilaritySVC(spectrum).fit(S, y)


def test_square_does_not_symmetrise():
    S, y, _, _ = blobs(seed=4)
    S = S + 0.5 * np.random.default_rng(0).standard_normal(S.shape)
    with warnings.catch_warnings():
        warnings.simplefilter("error", AsymmetricSimilarityWarning)
        SimilaritySVC("square").fit(S, y)


@pytest.mark.parametrize(
    "S_bad",
    [
        np.ones((5, 6)),
        [[1.0, 0.0], [0.0]],
        np.where(np.eye(6) > 0, np.nan, 1.0),
        np.where(np.eye(6) > 0, np.inf, 1.0),
    ],
)
def test_bad_training_matrix(S_bad):
    y = np.arange(len(S_bad)) % 2
    with pytest.raises(SimilarityMatrixError):
        SimilaritySVC().fit(S_bad, y)


def test_bad_labels_and_test_width():
    S, y, S_test, _ = blobs(seed=5)
    with pytest.raises(LabelError):
        SimilaritySVC().fit(S, y[:-1])
    with pytest.raises(LabelError):
        SimilaritySVC().fit(S, np.zeros(len(y)))
    with pytest.raises(LabelError):
        SimilaritySVC().fit(S, None)
    clf = SimilaritySVC().fit(S, y)
    with pytest.raises(TestMatrixError):
        clf.predict(S_test[:, :-1])
    with pytest.raises(TestMatrixError):
        clf.decision_function(np.ones((2, len(y) + 1)))


@pytest.mark.parametrize(
    "params",
    [
        {"spectrum": "cut"},
        {"test_transform": "never"},
        {"C": 0.0},
        {"C": -1.0},
        {"tol": -0.1},
    ],
)
def test_invalid_options(params):
    S, y, _, _ = blobs(n_train=20, n_test=2, seed=6)
    with pytest.raises(InvalidParameterError):
        SimilaritySVC(**params).fit(S, y)


def uw_split_error(load_uw, name, estimator, grid):
    """Stratified 80/20 split (seed 0), C by 5-fold CV on the training part."""
    from sklearn.model_selection import GridSearchCV, StratifiedKFold, train_test_split

    A, c = load_uw(name)
    idx = np.arange(len(c))
    tr, te = train_test_split(idx, test_size=0.2, stratify=c, random_state=0)
    cv = StratifiedKFold(5, shuffle=True, random_state=0)
    gs = GridSearchCV(estimator, grid, cv=cv)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        gs.fit(A[np.ix_(tr, tr)], c[tr])
        err = 1.0 - gs.score(A[np.ix_(te, tr)], c[te])
    majority = np.max(np.unique(c, return_counts=True)[1]) / len(c)
    return err, 1.0 - majority


@pytest.mark.parametrize("name", ["aural_sonar", "protein"])
@pytest.mark.parametrize("spectrum", ["clip", "flip", "shift"])
def test_uw_one_split_sanity(name, spectrum, load_uw):
    err, chance = uw_split_error(
        load_uw,
        name, SimilaritySVC(spectrum=spectrum), {"C": [0.01, 0.1, 1.0, 10.0, 100.0]}
    )
    print(f"{name} SimilaritySVC({spectrum}) error {err:.4f} (chance {chance:.3f})")
    assert err <= 0.5 * chance


@pytest.mark.parametrize("est_cls", ["SimilaritySVC", "SimilarityFeatureSVC"])
def test_smo_iteration_cap_is_passed_and_warns(est_cls):
    import proxlearn.svm as psvm
    from sklearn.exceptions import ConvergenceWarning

    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 2))
    y = (X[:, 0] + 0.5 * rng.normal(size=40) > 0).astype(int)  # overlapping classes
    S = X @ X.T
    cls = getattr(psvm, est_cls)
    assert cls().get_params()["max_iter"] == _libsvm.MAX_ITER > 0
    with pytest.warns(ConvergenceWarning):
        clf = cls(C=1e3, max_iter=3).fit(S, y)
    assert clf.svc_.max_iter == 3
    assert np.all(np.isfinite(clf.decision_function(S[:5])))


# ------------------------------------------- folded prediction (issue #19)
def _unfolded(clf, S_test):
    """Decision values and labels the way SimilaritySVC computed them before
    the fold: the transformed test kernel through libsvm."""
    K = clf._svc_input(S_test)
    return clf.svc_.decision_function(K), clf.svc_.predict(K)


@pytest.mark.parametrize("spectrum", SPECTRA)
@pytest.mark.parametrize("test_transform", ["consistent", "linear", "raw"])
@pytest.mark.parametrize("n_classes", [2, 3, 4])
def test_folded_prediction_equals_transformed_kernel(spectrum, test_transform, n_classes):
    S, y, S_test, _ = blobs(n_train=60, n_test=40, seed=n_classes, n_classes=n_classes)
    clf = SimilaritySVC(spectrum=spectrum, test_transform=test_transform, C=0.3).fit(S, y)
    dec, pred = _unfolded(clf, S_test)
    got = clf.decision_function(S_test)
    scale = np.abs(dec).max()
    assert_allclose(got, dec, rtol=1e-10, atol=1e-10 * scale)
    assert_array_equal(clf.predict(S_test), pred)
    # and on the training rows (many support vectors at the margin, |f| = 1)
    assert_array_equal(clf.predict(S), _unfolded(clf, S)[1])


def test_folded_prediction_with_zero_weights_and_vote_ties():
    S, y, S_test, _ = blobs(n_train=60, n_test=200, seed=5, noise=2.0, n_classes=3)
    w = np.ones(60)
    w[::4] = 0.0
    # C = 0.05 in the units of S (normalize divides S by its scale): vote ties happen there
    clf = SimilaritySVC(C=0.05 * similarity_scale(S)).fit(S, y, sample_weight=w)
    assert clf.scale_ > 10  # the fold carries the scale
    dec, pred = _unfolded(clf, S_test)
    assert_allclose(clf.decision_function(S_test), dec, rtol=1e-10,
                    atol=1e-10 * np.abs(dec).max())
    assert_array_equal(clf.predict(S_test), pred)
    # one vote per class happens here: libsvm gives it to the lowest class index,
    # not to the largest tie-breaking score of decision_function
    votes = np.floor(dec + 0.5)
    tied = np.all(votes == 1.0, axis=1)
    assert tied.any()
    assert_array_equal(clf.predict(S_test[tied]), clf.classes_[np.zeros(tied.sum(), int)])


def test_fit_validates_once(monkeypatch):
    import proxlearn.svm._kernel_svc as mod
    import proxlearn.transforms._spectrum as spec

    calls = []
    orig = mod.check_similarity

    def counting(*a, **k):
        calls.append(1)
        return orig(*a, **k)

    monkeypatch.setattr(mod, "check_similarity", counting)
    monkeypatch.setattr(spec, "check_similarity", counting)
    S, y, _, _ = blobs()
    SimilaritySVC().fit(S, y)
    assert len(calls) == 1
