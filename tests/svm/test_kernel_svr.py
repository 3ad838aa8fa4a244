"""SimilaritySVR: epsilon-SVR on the spectrum-modified similarity (issue 37, item 1)."""

import pickle
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose
from sklearn.model_selection import GridSearchCV, KFold, cross_val_score
from sklearn.svm import SVR

from proxlearn.exceptions import LabelError, SimilarityMatrixError
from proxlearn.svm import SimilaritySVR
from proxlearn.transforms import SpectrumTransformer


def problem(n=40, m=10, seed=0):
    """An indefinite sigmoid similarity of 3-D points and a smooth target."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n + m, 3))
    S = np.tanh(0.8 * X @ X.T - 0.3)
    y = np.sin(X[:, 0]) + X[:, 1] ** 2
    return S[:n, :n], S[n:, :n], y[:n], y[n:]


def test_problem_is_indefinite():
    S, _, _, _ = problem()
    assert np.linalg.eigvalsh(S).min() < -1e-3


@pytest.mark.parametrize("spectrum", ["clip", "flip", "shift", "square", "none"])
def test_equals_sklearn_svr_on_the_corrected_matrix(spectrum):
    S, S_te, y, _ = problem()
    est = SimilaritySVR(spectrum=spectrum, C=3.0, epsilon=0.05, normalize=False,
                        normalize_y=False).fit(S, y)
    st = SpectrumTransformer(spectrum).fit(S)
    ref = SVR(kernel="precomputed", C=3.0, epsilon=0.05).fit(st.transform(S) if spectrum != "shift"
                                                           else st.kernel_, y)
    assert_allclose(est.predict(S_te), ref.predict(st.transform(S_te)), atol=1e-10)


def test_normalize_y_is_svr_on_standardised_targets_and_scale():
    S, S_te, y, _ = problem()
    est = SimilaritySVR().fit(S, y)
    c = np.trace(S) / len(S)
    K = SpectrumTransformer("clip").fit(S / c)
    z = (y - y.mean()) / y.std()
    ref = SVR(kernel="precomputed", C=est.C_).fit(K.kernel_, z)
    expected = y.mean() + y.std() * ref.predict(K.transform(S_te / c))
    assert_allclose(est.predict(S_te), expected, atol=1e-10)
    assert est.scale_ == pytest.approx(c) and est.y_mean_ == pytest.approx(y.mean())


def test_normalize_y_makes_predictions_equivariant_in_y():
    S, S_te, y, _ = problem()
    a = SimilaritySVR().fit(S, y).predict(S_te)
    b = SimilaritySVR().fit(S, 1000 * y - 7).predict(S_te)
    assert_allclose(b, 1000 * a - 7, rtol=1e-8, atol=1e-6)
    # the literal reading (sklearn's SVR) is not: C and epsilon are in y's units
    lit = SimilaritySVR(normalize_y=False).fit(S, 1000 * y - 7).predict(S_te)
    assert np.max(np.abs(lit - (1000 * a - 7))) > 1.0


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(3, 25),
       spectrum=st.sampled_from(["clip", "flip", "square", "none"]))
def test_training_rows_predict_the_fitted_values(seed, n, spectrum):
    """Train/test consistency: the training rows given as test rows reproduce the SVR's
    fitted values on the corrected matrix (shift's consistent map changes only the
    unknown self-similarity, so it is excluded)."""
    rng = np.random.default_rng(seed)
    E = rng.normal(size=(n, n))
    S = E + E.T
    S = (S + (np.abs(np.diag(S)).max() + 1.0) * np.eye(n)) * 10.0 ** rng.uniform(-3, 3)  # tr S > 0
    y = rng.normal(size=n)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = SimilaritySVR(spectrum=spectrum).fit(S, y)
    K = est.transformer_.kernel_
    fitted = est.y_mean_ + est.y_scale_ * est.svr_.predict(K)
    scale = max(1.0, float(np.abs(fitted).max()))
    assert_allclose(est.predict(S), fitted, atol=1e-8 * scale * n)


def test_r2_score_pickle_and_errors():
    S, S_te, y, y_te = problem()
    est = SimilaritySVR().fit(S, y)
    assert est.score(S_te, y_te) > 0.5
    back = pickle.loads(pickle.dumps(est))
    assert_allclose(back.predict(S_te), est.predict(S_te))
    with pytest.raises(LabelError, match="targets but"):
        SimilaritySVR().fit(S, y[:-1])
    with pytest.raises(LabelError, match="real numbers"):
        SimilaritySVR().fit(S, np.array(["a", "b"] * 20))
    bad = y.copy()
    bad[0] = np.nan
    with pytest.raises(LabelError, match="NaN or inf"):
        SimilaritySVR().fit(S, bad)
    with pytest.raises(SimilarityMatrixError):
        SimilaritySVR().fit(S[:, :-1], y)


def test_pairwise_model_selection_slices_rows_and_columns():
    S, _, y, _ = problem(n=48)
    cv = KFold(3, shuffle=True, random_state=0)
    scores = cross_val_score(SimilaritySVR(), S, y, cv=cv)
    manual = [SimilaritySVR().fit(S[np.ix_(tr, tr)], y[tr]).score(S[np.ix_(te, tr)], y[te])
              for tr, te in cv.split(S)]
    assert_allclose(scores, manual)
    search = GridSearchCV(SimilaritySVR(), {"C": [0.1, 10.0]}, cv=cv).fit(S, y)
    assert search.best_params_["C"] in (0.1, 10.0)


def test_scikit_learn_estimator_checks():
    """scikit-learn's common checks for a regressor (the two expected failures are the
    project's, explained in proxlearn.base.SKLEARN_CHECK_EXCEPTIONS)."""
    from sklearn.utils.estimator_checks import check_estimator

    from proxlearn.base import SKLEARN_CHECK_EXCEPTIONS

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_estimator(SimilaritySVR(), expected_failed_checks=SKLEARN_CHECK_EXCEPTIONS)


# --------------------------------------------------------------------------- C="auto"

@pytest.mark.parametrize("spectrum", ["clip", "flip", "square"])
def test_auto_C_is_the_cross_validated_argmin_of_single_fits_on_the_folds(spectrum):
    from proxlearn._cv import internal_folds
    from proxlearn.svm._kernel_svr import AUTO_C

    S, S_te, y, _ = problem()
    est = SimilaritySVR(spectrum=spectrum).fit(S, y)
    A, t = S / est.scale_, (y - y.mean()) / y.std()  # the fitted units
    err = np.zeros(len(AUTO_C))
    for tr, val in internal_folds(len(y)):
        for i, C in enumerate(AUTO_C):
            one = SimilaritySVR(spectrum=spectrum, C=C, normalize=False, normalize_y=False)
            err[i] += np.sum((one.fit(A[np.ix_(tr, tr)], t[tr]).predict(A[np.ix_(val, tr)])
                              - t[val]) ** 2)
    assert est.C_ == AUTO_C[np.argmin(err)]
    assert err.max() > 1.1 * err.min()  # the choice matters on this problem
    fixed = SimilaritySVR(spectrum=spectrum, C=est.C_).fit(S, y)
    assert_allclose(est.predict(S_te), fixed.predict(S_te), rtol=1e-10, atol=1e-12)


def test_auto_C_is_scale_free_at_the_defaults_and_numeric_C_is_kept():
    S, S_te, y, _ = problem()
    a, b = SimilaritySVR().fit(S, y), SimilaritySVR().fit(100.0 * S, y)
    assert a.C_ == b.C_
    assert_allclose(a.predict(S_te), b.predict(100.0 * S_te), rtol=1e-9, atol=1e-12)
    assert SimilaritySVR(C=3.0).fit(S, y).C_ == 3.0
    assert SimilaritySVR().fit(S[:3, :3], y[:3]).C_ == 1.0  # too few samples for folds
