"""Properties every public proxlearn estimator must have.

The list is discovered from the subpackages' ``__all__``: a new estimator is
covered automatically, and must have a cheap default configuration in
``_INSTANCES`` (the test fails otherwise).
"""

import importlib
import inspect
import pickle
import warnings

import numpy as np
import pytest
from sklearn.base import BaseEstimator, ClassifierMixin, clone, is_classifier, is_regressor
from sklearn.base import is_outlier_detector

from proxlearn._validation import (
    InvalidParameterError,
    LabelError,
    SimilarityMatrixError,
    TestMatrixError,
)
from proxlearn.base import is_pairwise

from _estimators import NONNEGATIVE_ONLY, public_classes

PACKAGES = ["transforms", "svm", "discriminant", "neighbors", "kernel_learning", "ranking", "mkl",
            "kernel_approximation", "manifold", "krein"]

# --- regressors (issue 37, item 1): fit(S, y) with real-valued y; checked like the
# classifiers through predict (_predicts), plus their own target errors
PACKAGES.append("kernel_ridge")


#: Public estimators whose fit is not ``fit(S, y)`` on one similarity matrix and
#: labels, with the test module that checks the same properties for them.
NOT_FIT_S_Y = {
    # fit(K11, K_aux): a known kernel block and an auxiliary kernel, no labels
    "KernelCompleter": "tests/kernel_learning/test_completion_conic.py",
    # fit(X) on features: the kernel bank, 2LMKL-Inf and IKL (their new kernels need features)
    "KernelBank": "tests/mkl/test_bank.py",
    "TwoLayerMKLInf": "tests/mkl/test_two_layer.py",
    "IKL": "tests/mkl/test_ikl.py",
    "ArcCosineSVC": "tests/mkl/test_arccos.py",
    # fit(X, constraints): a kernel over the given points from pairwise side information
    "SimpleNPKL": "tests/cluster/test_npkl.py",
    "SimpleNPKLCV": "tests/cluster/test_npkl_cv.py",
    "NPKL": "tests/cluster/test_npkl.py",
    "GMKL": "tests/mkl/test_gmkl.py",
    # fit(X) / fit(X, y) embeddings (features, or kernel="precomputed"), no predict/transform
    "MVE": "tests/manifold/test_embeddings.py",
    "SPE": "tests/manifold/test_embeddings.py",
    "CMVU": "tests/manifold/test_embeddings.py",
}

ESTIMATORS = {name: cls for _, name, cls in public_classes(PACKAGES, BaseEstimator)
              if name not in NOT_FIT_S_Y}
_INSTANCES = {
    "n_neighbors": 3,
}


#: Cheap settings for one estimator only (the common problem has 24 samples).
_PER_CLASS = {"NystroemSpectrum": {"n_components": 5},
              # outlier detectors (issue 37): LOF's default novelty=False has no predict
              "SimilarityLocalOutlierFactor": {"novelty": True},
              "TwoLayerMKLCV": {"Cs": (0.1, 1.0), "cv": 3},
              **{f"{n}CV": {"Cs": (0.1, 1.0), "rhos": (1.0,), "cv": 3}
                 for n in ("ESKL", "EMKL", "REKL")}}


def _make(cls):
    params = inspect.signature(cls).parameters
    kwargs = {k: v for k, v in _INSTANCES.items() if k in params}
    kwargs.update(_PER_CLASS.get(cls.__name__, {}))
    return cls(**kwargs)


def _predicts(est):
    """Classifiers, regressors and outlier detectors (predict in {-1, +1}) answer test
    rows with ``predict``; the others with ``transform``."""
    return is_classifier(est) or is_regressor(est) or is_outlier_detector(est)


def _problem(n=24, seed=0):
    rng = np.random.default_rng(seed)
    X = np.vstack([rng.normal(loc=m, size=(n // 2, 2)) for m in (-2.0, 2.0)])
    y = np.repeat([0, 1], n // 2)
    Z = rng.normal(scale=0.3, size=(n, n))
    return X @ X.T + (Z + Z.T) / 2 + 3.0, y


def test_every_subpackage_exports_estimators():
    assert {"SpectrumTransformer", "SimilaritySVC", "PotentialSVM", "LPMachine",
            "IndefiniteKFD", "SimilarityKNeighborsClassifier", "SimSVM", "SimMKL",
            "FullKernelSVM", "SVMCA", "IndefiniteSVM"} <= set(ESTIMATORS)


def _problem_for(name):
    """The common problem, shifted to non-negative for graph-kernel estimators."""
    S, y = _problem()
    return (S - S.min() if name in NONNEGATIVE_ONLY else S), y


def _fit_quietly(est, S, y):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return clone(est).fit(S, y)
#: Degenerate inputs on which an estimator is undefined and must refuse with a
#: clear error instead of fitting: (name, kind) -> error class.
UNDEFINED_ON = {
    ("SVMCA", "zero"): InvalidParameterError,  # no positive eigenvalue (Gu & Guo Lemma 1)
    # a zero matrix has no positive direction for the learned kernel (nor a scale)
    ("ESKL", "zero"): SimilarityMatrixError,
    ("EMKL", "zero"): SimilarityMatrixError,
    ("REKL", "zero"): SimilarityMatrixError,
    ("ESKLCV", "zero"): SimilarityMatrixError,
    ("EMKLCV", "zero"): SimilarityMatrixError,
    ("REKLCV", "zero"): SimilarityMatrixError,
    ("SimMKL", "zero"): InvalidParameterError,  # zero base kernels have no trace
    # a zero kernel has no alignment with the labels: alignf has no weights to give
    ("KTASVC", "zero"): InvalidParameterError,
}


@pytest.mark.parametrize("name", sorted(ESTIMATORS))
def test_common_properties(name):
    est = _make(ESTIMATORS[name])
    assert is_pairwise(est), "the pairwise tag must be set"
    S, y = _problem_for(name)
    fitted = _fit_quietly(est, S, y)
    # fitted state only in attributes ending with "_"; params untouched
    assert fitted.get_params() == est.get_params()
    out = fitted.predict(S[:5]) if _predicts(est) else fitted.transform(S[:5])
    back = pickle.loads(pickle.dumps(fitted))
    out2 = back.predict(S[:5]) if _predicts(est) else back.transform(S[:5])
    np.testing.assert_array_equal(out, out2)
    with pytest.raises(TestMatrixError):
        (fitted.predict if _predicts(est) else fitted.transform)(S[:5, :-1])
    with pytest.raises(SimilarityMatrixError):
        clone(est).fit(S[:, :-1], y)
    bad = S.copy()
    bad[1, 2] = np.nan
    with pytest.raises(SimilarityMatrixError):
        clone(est).fit(bad, y)
    if is_classifier(est):
        with pytest.raises(LabelError):
            clone(est).fit(S, y[:-1])
        with pytest.raises(LabelError):
            clone(est).fit(S, np.zeros_like(y))
    if is_regressor(est):
        with pytest.raises(LabelError, match="targets but"):
            clone(est).fit(S, y[:-1])
        bad_y = y.astype(float)
        bad_y[3] = np.inf
        with pytest.raises(LabelError, match="NaN or inf"):
            clone(est).fit(S, bad_y)


@pytest.mark.parametrize("name", sorted(ESTIMATORS))
@pytest.mark.parametrize("kind", ["zero", "rank-one"])
def test_degenerate_matrices_never_give_nan(name, kind):
    est = _make(ESTIMATORS[name])
    _, y = _problem()
    n = y.size
    if kind == "zero":
        S = np.zeros((n, n))
    else:
        v = np.random.default_rng(1).normal(size=(n, 1))
        S = v @ v.T
    if (name, kind) in UNDEFINED_ON:
        with pytest.raises(UNDEFINED_ON[name, kind]) as info:
            clone(est).fit(S, y)
        assert len(str(info.value)) > 40  # says what is wrong and what to do
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fitted = clone(est).fit(S, y)
        if is_regressor(est):
            assert np.all(np.isfinite(fitted.predict(S[:6])))
        elif _predicts(est):
            pred = fitted.predict(S[:6])
            assert set(pred) <= ({-1, 1} if is_outlier_detector(est) else {0, 1})
            if hasattr(fitted, "decision_function"):
                assert np.all(np.isfinite(fitted.decision_function(S[:6])))
        else:
            assert np.all(np.isfinite(fitted.transform(S[:6])))


@pytest.mark.parametrize("name", sorted(ESTIMATORS))
def test_masked_arrays_are_refused_not_unmasked(name):
    """numpy.ma input is refused in fit and predict (issue #14: masks were dropped)."""
    est = _make(ESTIMATORS[name])
    S, y = _problem_for(name)
    masked = np.ma.masked_array(S, mask=np.zeros_like(S, dtype=bool))
    masked[1, 2] = np.ma.masked
    with pytest.raises(SimilarityMatrixError, match="masked"):
        clone(est).fit(masked, y)
    fitted = _fit_quietly(est, S, y)
    apply = fitted.predict if _predicts(est) else fitted.transform
    with pytest.raises(SimilarityMatrixError, match="masked"):
        apply(masked[:5])
    with pytest.raises(SimilarityMatrixError, match="masked"):
        apply(masked[1])  # a single row, as a 1-D vector


@pytest.mark.parametrize("name", sorted(n for n, c in ESTIMATORS.items()
                                         if issubclass(c, ClassifierMixin)))
@pytest.mark.parametrize("missing", [None, float("nan")])
def test_missing_object_labels_get_a_label_error(name, missing):
    """A string label column with a gap (pandas: NaN; Python: None) names the gap
    (issue #14: TypeError '<' not supported in every classifier)."""
    est = _make(ESTIMATORS[name])
    S, y = _problem_for(name)
    labels = np.array(["clutter", "target"], dtype=object)[y]
    labels[3] = missing
    labels[7] = missing
    with pytest.raises(LabelError, match=r"missing label\(s\).*positions 3, 7"):
        clone(est).fit(S, labels)


@pytest.mark.parametrize("name", sorted(ESTIMATORS))
def test_huge_entries_give_a_clear_error_or_finite_output(name):
    """Entries near 1e155 overflow products of similarities: never inf/NaN, never
    a silent exp(-inf) = 0 kernel (issue #14)."""
    from proxlearn.exceptions import SolverError

    est = _make(ESTIMATORS[name])
    S, y = _problem()
    S = (S - S.min() if name in NONNEGATIVE_ONLY else S) * 1e155
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            fitted = clone(est).fit(S, y)
            out = (fitted.decision_function(S[:5]) if hasattr(fitted, "decision_function")
                   else fitted.predict(S[:5]) if _predicts(est) else fitted.transform(S[:5]))
        except (SimilarityMatrixError, InvalidParameterError, SolverError) as exc:
            assert "too large" in str(exc) and "Rescale" in str(exc), exc
            return
    out = np.asarray(out)
    if out.dtype.kind == "f":
        assert np.all(np.isfinite(out))


@pytest.mark.parametrize("name", sorted(ESTIMATORS))
def test_distance_matrix_warns(name):
    """Every estimator that expects similarities warns on a distance matrix, once per
    fit (issue #14: BaseKernelSVC and the base kernels said nothing)."""
    from scipy.spatial.distance import cdist

    from proxlearn.exceptions import DissimilarityWarning

    if name in ("DissimilarityToSimilarity", "Symmetrize"):
        return  # takes dissimilarities by design / indifferent to the kind
    rng = np.random.default_rng(0)
    X = np.vstack([rng.normal(m, 1.0, (12, 2)) for m in (-2.0, 2.0)])
    D, y = cdist(X, X), np.repeat([0, 1], 12)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            clone(_make(ESTIMATORS[name])).fit(D, y)
        except (SimilarityMatrixError, InvalidParameterError):
            pass  # refusing is fine too; warning first is required
    kinds = [w for w in caught if issubclass(w.category, DissimilarityWarning)]
    assert len(kinds) == 1, [str(w.message) for w in caught]


@pytest.mark.parametrize("name", sorted(n for n, c in ESTIMATORS.items()
                                         if is_outlier_detector(c())))
def test_outlier_detectors_follow_sklearn_contract(name):
    """Issue 37, item 2: fit(S) with y ignored, predict in {-1, +1} where
    decision_function < 0 (ties as the wrapped scikit-learn estimator),
    decision_function = score_samples - offset_, fit_predict labels the training set."""
    est = _make(ESTIMATORS[name])
    S, y = _problem_for(name)
    fitted = _fit_quietly(est, S, y)
    without_y = _fit_quietly(est, S, None)
    dec = fitted.decision_function(S[:8])
    np.testing.assert_array_equal(dec, without_y.decision_function(S[:8]))
    np.testing.assert_allclose(dec, fitted.score_samples(S[:8]) - fitted.offset_)
    pred = fitted.predict(S[:8])
    assert set(pred) <= {-1, 1}
    assert np.all(pred[dec < 0] == -1) and np.all(pred[dec > 0] == 1)
    plain = clone(est).set_params(**{"novelty": False} if "novelty" in est.get_params() else {})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        labels = plain.fit_predict(S)
    assert labels.shape == (len(S),) and set(labels) <= {-1, 1}


def test_not_fit_s_y_estimators_have_their_test_module():
    """Every estimator exempted above is exported and has the test module named for it."""
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    exported = {name for pkg in [*PACKAGES, "cluster"]
                for name in getattr(importlib.import_module(f"proxlearn.{pkg}"), "__all__", [])}
    for name, path in NOT_FIT_S_Y.items():
        assert name in exported, name
        assert (root / path).is_file(), path


#: Parameters that count something (iterations, neighbours, components, ...): 0 and a
#: negative value must be refused with an InvalidParameterError when fit validates.
COUNT_PARAMS = ("max_iter", "n_neighbors", "n_components", "max_outer_iter", "max_rounds",
                "n_basis", "max_kernels", "n_import", "max_samples", "max_sdp_n")


def _count_cases():
    for name in sorted(ESTIMATORS):
        params = inspect.signature(ESTIMATORS[name]).parameters
        for p in COUNT_PARAMS:
            if p in params:
                yield name, p


@pytest.mark.parametrize("name,param", list(_count_cases()))
@pytest.mark.parametrize("value", [0, -2])
def test_count_parameters_out_of_range_get_a_clear_error(name, param, value):
    """Fuzzing found max_iter=0 raising UnboundLocalError / IndexError (issue #39)."""
    est = _make(ESTIMATORS[name]).set_params(**{param: value})
    S, y = _problem_for(name)
    with pytest.raises(InvalidParameterError, match=param):
        _fit_quietly(est, S, y)


@pytest.mark.parametrize("name", sorted(ESTIMATORS))
def test_far_out_test_rows_give_finite_output(name):
    """A test row far outside the training data (similarities 1e6 times the training
    scale) gets finite decision values and a predicted class, not NaN mapped to the
    first class (fuzzing, issue #39 item 2.10)."""
    S, y = _problem_for(name)
    fitted = _fit_quietly(_make(ESTIMATORS[name]), S, y)
    est = fitted
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rng = np.random.default_rng(3)
        far = np.abs(S).max() * 1e6 * rng.uniform(0.5, 1.0, size=(3, S.shape[1]))
        if name not in NONNEGATIVE_ONLY:
            far[1] *= -1
        if is_regressor(est):
            assert np.all(np.isfinite(fitted.predict(far)))
        elif _predicts(est):
            assert set(fitted.predict(far)) <= set(getattr(fitted, "classes_", (-1, 1)))
            for method in ("decision_function", "predict_proba"):
                if hasattr(fitted, method):
                    try:
                        out = getattr(fitted, method)(far)
                    except AttributeError:  # e.g. predict_proba without probability=True
                        continue
                    assert np.all(np.isfinite(out)), (method, out)
        else:
            assert np.all(np.isfinite(fitted.transform(far)))


def _transformers():
    from sklearn.base import TransformerMixin

    for _, name, cls in public_classes([*PACKAGES, "cluster"], TransformerMixin):
        if hasattr(cls, "transform") and name not in NOT_FIT_S_Y:
            yield name, cls


@pytest.mark.parametrize("name,cls", sorted(_transformers()))
def test_transformers_name_their_output_columns(name, cls):
    """get_feature_names_out, so that set_output and Pipeline.get_feature_names_out
    work (issue #39, section 4: set_output(transform="pandas") failed in a Pipeline)."""
    from sklearn.pipeline import make_pipeline

    S, y = _problem_for(name)
    est = _make(cls)
    if "random_state" in est.get_params():
        est.set_params(random_state=0)  # the same fit alone and in the Pipeline
    fitted = _fit_quietly(est, S, y)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        width = np.shape(fitted.transform(S[:4]))[1]
    names = fitted.get_feature_names_out()
    assert len(names) == width and len(set(names)) == width
    if width == S.shape[1]:  # columns are the training samples: the input's names
        assert list(names) == [f"x{i}" for i in range(width)]
    pipe = _fit_quietly(make_pipeline(est), S, y)
    assert list(pipe.get_feature_names_out()) == list(names)
