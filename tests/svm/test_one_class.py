"""SimilarityOneClassSVM: scikit-learn's one-class SVM on the spectrum-modified similarity."""

import pickle
import warnings

import numpy as np
import pytest
from sklearn.base import clone, is_outlier_detector
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import GridSearchCV, KFold, cross_val_score
from sklearn.svm import OneClassSVM

from proxlearn.exceptions import (
    DissimilarityWarning,
    InvalidParameterError,
    SimilarityMatrixError,
    TestMatrixError,
)
from proxlearn.svm import SimilarityOneClassSVM
from proxlearn.transforms import SpectrumTransformer

from _outliers import run_check, sklearn_outlier_checks


def _problem(n=40, m=15, seed=0):
    """Inliers around the origin, an indefinite similarity (linear kernel + symmetric
    noise + offset); test rows: m inliers then m far points."""
    rng = np.random.default_rng(seed)
    X = np.vstack([rng.normal(size=(n + m, 3)), rng.normal(loc=4.0, size=(m, 3))])
    Z = rng.normal(scale=0.3, size=(len(X), len(X)))
    S = -((X[:, None] - X[None]) ** 2).sum(-1) / 4 + (Z + Z.T) / 2 + 3.0
    return S[:n, :n], S[n:, :n], np.r_[np.ones(m), np.zeros(m)]


@pytest.mark.parametrize("spectrum", ["clip", "flip", "shift", "square", "none"])
def test_equals_sklearn_one_class_svm_on_the_corrected_matrix(spectrum):
    S, S_test, _ = _problem()
    det = SimilarityOneClassSVM(spectrum=spectrum, normalize=False).fit(S)
    tr = SpectrumTransformer(spectrum).fit(S)
    ref = OneClassSVM(kernel="precomputed").fit(tr.fit_transform(S))
    K_test = tr.transform(S_test)
    np.testing.assert_allclose(det.decision_function(S_test), ref.decision_function(K_test),
                               rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(det.score_samples(S_test), ref.score_samples(K_test),
                               rtol=1e-9, atol=1e-9)
    np.testing.assert_array_equal(det.predict(S_test), ref.predict(K_test))
    assert det.offset_ == pytest.approx(float(ref.offset_[0]))


@pytest.mark.parametrize("spectrum", ["clip", "flip", "square", "none"])
def test_training_rows_as_test_rows_give_the_training_scores(spectrum):
    S, _, _ = _problem()
    det = SimilarityOneClassSVM(spectrum=spectrum).fit(S)
    K = det.transformer_._training_kernel()
    np.testing.assert_allclose(det.decision_function(S), det.ocsvm_.decision_function(K),
                               rtol=1e-8, atol=1e-8)


def test_shift_training_rows_score_shift_times_alpha_lower():
    """Shift's consistent test rows are the rows as given: only the diagonal differs."""
    S, _, _ = _problem()
    det = SimilarityOneClassSVM().fit(S)
    assert det.spectrum == "shift" and det.transformer_.shift_ > 0
    alpha = np.zeros(len(S))
    alpha[det.ocsvm_.support_] = det.ocsvm_.dual_coef_[0]
    K = det.transformer_._training_kernel()
    expected = det.ocsvm_.score_samples(K) - det.transformer_.shift_ * alpha
    np.testing.assert_allclose(det.score_samples(S), expected, rtol=1e-8, atol=1e-8)


def test_zero_sample_weight_equals_removing_the_sample():
    """libsvm drops zero-weight samples and scikit-learn's support_ then indexes the
    reduced problem (decision values off by 11 on 30 samples): the estimator maps the
    indices back. On a PSD unit-diagonal matrix (clip changes nothing, scale 1) a zero
    weight is the fit without the sample."""
    rng = np.random.default_rng(2)
    X = rng.normal(size=(45, 2))
    S = np.exp(-((X[:, None] - X[None]) ** 2).sum(-1) / 2)
    S_tr, S_te = S[:30, :30], S[30:, :30]
    w = np.ones(30)
    w[[0, 4, 7, 11, 20]] = 0.0
    keep = np.flatnonzero(w > 0)
    det = SimilarityOneClassSVM(spectrum="clip").fit(S_tr, sample_weight=w)
    ref = SimilarityOneClassSVM(spectrum="clip").fit(S_tr[np.ix_(keep, keep)])
    np.testing.assert_allclose(det.decision_function(S_te),
                               ref.decision_function(S_te[:, keep]), rtol=1e-6, atol=1e-8)
    labels = clone(det).fit_predict(S_tr, sample_weight=w)
    np.testing.assert_array_equal(labels[keep], ref.predict(S_tr[np.ix_(keep, keep)]))
    # positive weights are passed on: scikit-learn's one-class SVM on the same kernel
    w2 = rng.uniform(0.5, 2.0, size=30)
    det2 = SimilarityOneClassSVM(spectrum="clip", normalize=False).fit(S_tr, sample_weight=w2)
    sk = OneClassSVM(kernel="precomputed").fit(det2.transformer_.kernel_, sample_weight=w2)
    np.testing.assert_allclose(det2.decision_function(S_te),
                               sk.decision_function(det2.transformer_.transform(S_te)),
                               rtol=1e-8, atol=1e-10)
    with pytest.raises(InvalidParameterError, match="sample_weight"):
        SimilarityOneClassSVM().fit(S_tr, sample_weight=np.ones(5))


def test_outlier_detector_contract():
    S, S_test, truth = _problem()
    det = SimilarityOneClassSVM(nu=0.2).fit(S)
    assert is_outlier_detector(det)
    pred = det.predict(S_test)
    assert set(pred) <= {-1, 1}
    np.testing.assert_array_equal(pred, np.where(det.decision_function(S_test) > 0, 1, -1))
    np.testing.assert_allclose(det.decision_function(S_test),
                               det.score_samples(S_test) - det.offset_)
    # nu bounds the fraction of training outliers (Schoelkopf et al. 2001, Prop. 4),
    # which fit_predict labels by their training scores
    labels = clone(det).fit_predict(S)
    assert set(labels) <= {-1, 1}
    assert 0 < np.mean(labels == -1) <= 0.2 + 1.0 / len(S)
    np.testing.assert_array_equal(labels, det.ocsvm_.predict(det.transformer_.kernel_))
    assert roc_auc_score(truth, det.decision_function(S_test)) > 0.9
    # with a consistent test map the training rows as test rows give the same labels
    clip = SimilarityOneClassSVM(spectrum="clip", nu=0.2).fit(S)
    np.testing.assert_array_equal(clone(clip).fit_predict(S), clip.predict(S))


def test_scaling_the_input_changes_nothing_at_the_defaults():
    S, S_test, _ = _problem()
    a, b = SimilarityOneClassSVM().fit(S), SimilarityOneClassSVM().fit(250.0 * S)
    assert b.scale_ == pytest.approx(250.0 * a.scale_)
    np.testing.assert_allclose(b.decision_function(250.0 * S_test), a.decision_function(S_test),
                               rtol=1e-6, atol=1e-8)
    assert b.offset_ == pytest.approx(a.offset_, rel=1e-6)


def test_pickle_round_trip():
    S, S_test, _ = _problem()
    det = SimilarityOneClassSVM().fit(S)
    back = pickle.loads(pickle.dumps(det))
    np.testing.assert_array_equal(back.decision_function(S_test), det.decision_function(S_test))


def test_model_selection_slices_rows_and_columns():
    """The pairwise tag: cross_val_score fits on S[train][:, train] and scores
    S[test][:, train]."""
    S, S_test, truth = _problem(n=30, m=15)
    n = 30
    full = np.zeros((n + 30, n + 30))
    rng = np.random.default_rng(1)
    # one joint matrix: the training block, and test rows mirrored into columns
    full[:n, :n] = S
    full[n:, :n], full[:n, n:] = S_test, S_test.T
    Z = rng.normal(size=(30, 30))
    full[n:, n:] = (Z + Z.T) / 2 + 3.0
    y = np.r_[np.ones(n), truth]
    cv = KFold(3, shuffle=True, random_state=0)
    det = SimilarityOneClassSVM()
    scores = cross_val_score(det, full, y, cv=cv, scoring="roc_auc")
    for score, (tr, te) in zip(scores, cv.split(full)):
        fitted = clone(det).fit(full[np.ix_(tr, tr)])
        dec = fitted.decision_function(full[np.ix_(te, tr)])
        assert score == pytest.approx(roc_auc_score(y[te], dec))
    gs = GridSearchCV(det, {"nu": [0.2, 0.5]}, cv=cv, scoring="roc_auc").fit(full, y)
    assert gs.best_estimator_.n_features_in_ == len(y)


def test_clear_errors():
    S, S_test, _ = _problem()
    with pytest.raises(SimilarityMatrixError, match="square"):
        SimilarityOneClassSVM().fit(S[:, :-1])
    for bad_value in (np.nan, np.inf):
        bad = S.copy()
        bad[2, 3] = bad_value
        with pytest.raises(SimilarityMatrixError):
            SimilarityOneClassSVM().fit(bad)
    det = SimilarityOneClassSVM().fit(S)
    with pytest.raises(TestMatrixError, match="columns"):
        det.decision_function(S_test[:, :-1])
    bad = S_test.copy()
    bad[0, 1] = np.inf
    with pytest.raises(SimilarityMatrixError):
        det.predict(bad)
    for nu in (0, 1.5, -0.1, "half", True):
        with pytest.raises(InvalidParameterError, match="nu"):
            SimilarityOneClassSVM(nu=nu).fit(S)
    D = np.sqrt(np.maximum(np.diag(S)[:, None] + np.diag(S)[None] - 2 * S, 0))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        SimilarityOneClassSVM().fit(D)
    assert any(issubclass(w.category, DissimilarityWarning) for w in caught)


def test_real_data_auc(tmp_path):
    """Aural Sonar: targets as inliers, clutter as outliers, held-out AUC well above chance."""
    from proxlearn.datasets import load_dataset
    from proxlearn.exceptions import DatasetNotFoundError

    try:
        data = load_dataset("aural_sonar")
    except (DatasetNotFoundError, OSError) as exc:
        pytest.skip(f"aural_sonar not available: {exc}")
    S, y = np.asarray(data.matrix, dtype=float), np.asarray(data.labels)
    rng = np.random.default_rng(0)
    inl = rng.permutation(np.flatnonzero(y == y[0]))
    tr, te = inl[:35], np.r_[inl[35:], np.flatnonzero(y != y[0])]
    det = SimilarityOneClassSVM().fit(S[np.ix_(tr, tr)])
    auc = roc_auc_score(y[te] == y[0], det.decision_function(S[np.ix_(te, tr)]))
    assert auc > 0.75


@sklearn_outlier_checks([SimilarityOneClassSVM(), SimilarityOneClassSVM(spectrum="clip")])
def test_sklearn_estimator_checks(estimator, check):
    run_check(estimator, check)
