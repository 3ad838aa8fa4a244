"""Tests of the shared input checks (proxlearn._validation)."""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.exceptions import DataConversionWarning

from proxlearn._validation import (
    ASYMMETRY_TOL,
    AsymmetricSimilarityWarning,
    DissimilarityWarning,
    InvalidParameterError,
    LabelError,
    SimilarityMatrixError,
    TestMatrixError,
    asymmetry,
    check_labels,
    check_n_neighbors,
    check_option,
    check_partial_labels,
    check_positive,
    check_similarity,
    check_test_similarity,
    is_exactly_symmetric,
    looks_like_dissimilarity,
    symmetrize,
)


def _sim(n=6, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    return X @ X.T + 3 * np.eye(n)


def test_returns_float64_contiguous_copy_semantics():
    S = _sim().astype(np.float32)
    out = check_similarity(S)
    assert out.dtype == np.float64 and out.flags.c_contiguous
    assert np.allclose(out, S)
    ints = check_similarity(np.array([[2, 1], [1, 2]]))
    assert ints.dtype == np.float64


def test_non_square_rejected_with_advice():
    with pytest.raises(SimilarityMatrixError, match="square n x n"):
        check_similarity(np.ones((3, 4)))


def test_ragged_rejected():
    with pytest.raises(SimilarityMatrixError, match="ragged"):
        check_similarity([[1.0, 0.5], [0.5]])


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_non_finite_rejected(bad):
    S = _sim()
    S[2, 3] = bad
    with pytest.raises(SimilarityMatrixError, match=r"first at \[2, 3\]"):
        check_similarity(S)


def test_non_numeric_and_wrong_ndim_and_empty_and_sparse():
    with pytest.raises(SimilarityMatrixError, match="numeric"):
        check_similarity(np.array([["a", "b"], ["c", "d"]]))
    with pytest.raises(SimilarityMatrixError, match="2-D"):
        check_similarity(np.ones(4))
    with pytest.raises(SimilarityMatrixError, match="empty"):
        check_similarity(np.ones((0, 0)))
    with pytest.raises(SimilarityMatrixError, match="sparse"):
        check_similarity(sp.eye(3, format="csr"))
    with pytest.raises(SimilarityMatrixError, match="complex"):
        check_similarity(np.eye(3) * (1 + 1j))


def test_errors_are_value_errors():
    for cls in (SimilarityMatrixError, TestMatrixError, LabelError, InvalidParameterError):
        assert issubclass(cls, ValueError)


def test_asymmetry_measure_and_symmetrize():
    S = _sim()
    assert asymmetry(S) == 0.0
    K = np.array([[0.0, 1.0], [-1.0, 0.0]])
    assert asymmetry(K) == pytest.approx(1.0)
    A = S.copy()
    A[0, 1] += 1.0
    sym = symmetrize(A)
    assert np.allclose(sym, sym.T)
    assert sym[0, 1] == pytest.approx(S[0, 1] + 0.5)
    assert asymmetry(np.zeros((3, 3))) == 0.0


@pytest.mark.parametrize("n", [5, 1000])  # one comparison, then mirror tiles
def test_asymmetry_of_exactly_symmetric_and_nearly_symmetric_matrices(n):
    Z = np.random.default_rng(0).standard_normal((n, n))
    S = (Z + Z.T) / 2
    assert is_exactly_symmetric(S) and asymmetry(S) == 0.0
    A = S.copy()
    A[n - 1, 0] += 1e-3  # in the last tile pair, below the tolerance
    assert not is_exactly_symmetric(A) and not is_exactly_symmetric(A.T)
    expected = np.linalg.norm(A - A.T) / (2 * np.linalg.norm(A))
    assert asymmetry(A) == pytest.approx(expected, rel=1e-12)
    A[0, 0] = np.nan  # NaN is never equal to itself: the full measure runs
    assert not is_exactly_symmetric(A) and np.isnan(asymmetry(A))


def test_symmetrize_policy_warns_with_size():
    S = _sim()
    A = S.copy()
    A[0, 1] += 2.0
    a = asymmetry(A)
    with pytest.warns(AsymmetricSimilarityWarning, match=f"{a:.3g}"):
        out = check_similarity(A, symmetric="symmetrize")
    assert np.allclose(out, out.T)
    # the "allow" policy returns the matrix unchanged and silently
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert np.array_equal(check_similarity(A), A)


def test_rounding_level_asymmetry_is_symmetrized_silently():
    S = _sim()
    A = S.copy()
    A[0, 1] *= 1 + 1e-14
    assert 0 < asymmetry(A) < ASYMMETRY_TOL
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = check_similarity(A, symmetric="symmetrize")
    assert np.array_equal(out, out.T)


def test_require_symmetric_raises():
    A = _sim()
    A[0, 1] += 1.0
    with pytest.raises(SimilarityMatrixError, match="must be symmetric"):
        check_similarity(A, symmetric="require")


def test_dissimilarity_detection_zero_diagonal():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(8, 2))
    D = np.linalg.norm(X[:, None] - X[None], axis=-1)
    flag, reason = looks_like_dissimilarity(D)
    assert flag and "diagonal is zero" in reason
    with pytest.warns(DissimilarityWarning, match="DissimilarityToSimilarity"):
        check_similarity(D)
    # no warning when the check is disabled
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_similarity(D, dissimilarity_check=False)


def test_dissimilarity_detection_small_diagonal():
    rng = np.random.default_rng(2)
    X = rng.normal(size=(10, 2))
    D = np.linalg.norm(X[:, None] - X[None], axis=-1) + 0.1  # diagonal 0.1, off > 0.1
    flag, reason = looks_like_dissimilarity(D)
    assert flag and "smallest entry" in reason


def test_similarity_not_flagged():
    S = _sim()
    assert looks_like_dissimilarity(S) == (False, "")
    # an indefinite similarity with unit diagonal is not flagged either
    rng = np.random.default_rng(3)
    A = rng.uniform(0, 0.9, size=(20, 20))
    A = (A + A.T) / 2
    np.fill_diagonal(A, 1.0)
    assert np.linalg.eigvalsh(A).min() < 0
    assert not looks_like_dissimilarity(A)[0]


def test_test_matrix_width():
    assert check_test_similarity(np.ones((2, 5)), 5).shape == (2, 5)
    assert check_test_similarity(np.ones(5), 5).shape == (1, 5)
    with pytest.raises(TestMatrixError, match="fitted on 5 training samples"):
        check_test_similarity(np.ones((2, 4)), 5)
    with pytest.raises(SimilarityMatrixError, match="NaN"):
        check_test_similarity(np.full((1, 5), np.nan), 5)


def test_labels():
    classes, idx = check_labels(["b", "a", "b"], 3)
    assert classes.tolist() == ["a", "b"] and idx.tolist() == [1, 0, 1]
    classes, idx = check_labels(np.array([[1], [2]]), 2)
    assert classes.tolist() == [1, 2]
    with pytest.raises(LabelError, match="3 labels but the similarity matrix has 4"):
        check_labels([1, 2, 1], 4)
    with pytest.raises(LabelError, match="at least 2"):
        check_labels([1, 1, 1], 3)
    with pytest.raises(LabelError, match="1-D"):
        check_labels(np.ones((2, 2)), 2)
    with pytest.raises(LabelError, match="NaN"):
        check_labels([1.0, np.nan], 2)
    with pytest.raises(LabelError, match="requires y to be passed"):
        check_labels(None, 2)


def test_n_neighbors_and_parameters():
    assert check_n_neighbors(3, 5) == 3
    with pytest.raises(InvalidParameterError, match="larger than the training set"):
        check_n_neighbors(6, 5)
    with pytest.raises(InvalidParameterError):
        check_n_neighbors(0, 5)
    with pytest.raises(InvalidParameterError):
        check_n_neighbors(2.5, 5)
    assert check_positive(2, "C") == 2.0
    with pytest.raises(InvalidParameterError, match="C must be finite and > 0"):
        check_positive(0, "C")
    assert check_positive(0, "eps", allow_zero=True) == 0.0
    with pytest.raises(InvalidParameterError):
        check_positive(np.inf, "C")
    with pytest.raises(InvalidParameterError):
        check_positive("1", "C")
    assert check_option("clip", "method", {"clip", "flip"}) == "clip"
    with pytest.raises(InvalidParameterError, match="choose one of"):
        check_option("clop", "method", {"clip", "flip"})


def test_label_gaps_and_mixed_types_are_named():
    from proxlearn._validation import check_labels

    with pytest.raises(LabelError, match=r"NaN or inf at positions 1, 4"):
        check_labels(np.array([0.0, np.nan, 1.0, 1.0, np.inf]), 5)
    y = np.ma.masked_array([1, 2, 1, 2], mask=[0, 0, 1, 0])
    with pytest.raises(LabelError, match=r"masked.*positions 2"):
        check_labels(y, 4)
    with pytest.raises(LabelError, match="cannot be ordered"):
        check_labels(np.array(["a", 1, "b", 2], dtype=object), 4)
    gaps = np.array(["a"] * 9, dtype=object)
    gaps[[0, 1, 2, 3, 4, 5]] = None
    with pytest.raises(LabelError, match=r"6 missing label\(s\).*positions 0, 1, 2, 3, 4, \.\.\."):
        check_labels(gaps, 9)


def test_entries_too_large_for_float64_products_are_refused():
    """Issue #14: entries near 1e155 gave inf/NaN (or exp(-inf) = 0 kernels) downstream."""
    S = np.eye(10)
    check_similarity(S * 1e100)  # large but safe
    with pytest.raises(SimilarityMatrixError, match=r"too large.*Rescale S"):
        check_similarity(S * 1e155)
    with pytest.raises(SimilarityMatrixError, match="too large"):
        check_test_similarity(np.full((2, 10), -1e155), 10)


# ------------------------------------------ one-pass validation (issue #19)
def _naive_dissimilarity(S):
    n = S.shape[0]
    diag = np.diag(S)
    off = S[~np.eye(n, dtype=bool)]
    scale = np.max(np.abs(S))
    if scale == 0.0:
        return False
    if (np.all(np.abs(diag) <= 1e-12 * scale) and np.all(off >= -1e-12 * scale)
            and np.mean(off > 0) > 0.5):
        return True
    row_min_off = np.where(np.eye(n, dtype=bool), np.inf, S).min(axis=1)
    return bool(np.mean(diag < row_min_off) > 0.5)


@pytest.mark.parametrize("tile", [3, 7, 512])
@pytest.mark.parametrize("seed", range(6))
def test_tiled_checks_equal_the_direct_formulas(monkeypatch, tile, seed):
    import proxlearn._validation as v

    monkeypatch.setattr(v, "_TILE", tile)
    rng = np.random.default_rng(seed)
    n = int(rng.integers(3, 40))
    X = rng.random((n, 3))
    D = np.sqrt(((X[:, None] - X[None]) ** 2).sum(-1))
    A = rng.standard_normal((n, n))
    kinds = [A, A + A.T, D, D + 0.01 * A, -D, np.where(rng.random((n, n)) < 0.5, D, 0.0),
             np.round(A)]
    for S in kinds:
        S = np.ascontiguousarray(S)
        assert v.asymmetry(S) == pytest.approx(
            np.linalg.norm(S - S.T) / (2 * np.linalg.norm(S)), rel=1e-12, abs=1e-15)
        np.testing.assert_array_equal(v.symmetrize(S), 0.5 * (S + S.T))
        assert v.looks_like_dissimilarity(S)[0] == _naive_dissimilarity(S)


def test_check_similarity_never_writes_the_callers_matrix_but_reuses_its_own():
    rng = np.random.default_rng(0)
    S = rng.standard_normal((20, 20))
    before = S.copy()
    with pytest.warns(AsymmetricSimilarityWarning):
        out = check_similarity(S, symmetric="symmetrize")
    np.testing.assert_array_equal(S, before)
    np.testing.assert_array_equal(out, 0.5 * (before + before.T))
    # a float32 input is converted: the converted copy is symmetrised in place
    with pytest.warns(AsymmetricSimilarityWarning):
        out32 = check_similarity(S.astype(np.float32), symmetric="symmetrize")
    np.testing.assert_allclose(out32, 0.5 * (before + before.T), rtol=1e-6)
    # symmetric input comes back as the same array (no copy)
    Ssym = 0.5 * (before + before.T)
    assert check_similarity(Ssym, symmetric="symmetrize") is Ssym


def test_check_partial_labels_masked_entries_are_unlabelled():
    y = np.array([-1, 1, 1, -1, 5])  # -1 is a class here, not "unlabelled"
    classes, idx, lab = check_partial_labels(y, 5)
    assert lab.all() and classes.tolist() == [-1, 1, 5]
    ym = np.ma.masked_array(y, mask=[False, False, True, False, True])
    classes, idx, lab = check_partial_labels(ym, 5)
    assert lab.tolist() == [True, True, False, True, False]
    assert classes.tolist() == [-1, 1]  # the masked 5 is not a class
    np.testing.assert_array_equal(classes[idx[lab]], y[lab])
    with pytest.raises(LabelError, match="every label"):
        check_partial_labels(np.ma.masked_array(y, mask=True), 5)
    with pytest.raises(LabelError, match="4 rows"):
        check_partial_labels(ym, 4)


def test_check_bool_accepts_only_true_and_false():
    from proxlearn._validation import check_bool

    assert check_bool(True, "flag") is True and check_bool(np.False_, "flag") is False
    for bad in (1, 0, "yes", None, 1.0):
        with pytest.raises(InvalidParameterError,
                           match=r"flag must be True or False.*what it does"):
            check_bool(bad, "flag", "what it does")


@pytest.mark.parametrize("make, params, message", [
    ("SimpleMKL", {"max_iter": True}, "max_iter must be an integer >= 1, got True."),
    ("SimpleMKL", {"normalize": "yes"},
     "normalize must be True or False, got 'yes'. True divides each matrix of the stack"),
    ("GMKL", {"max_iter": 2.5}, "max_iter must be an integer >= 1, got 2.5."),
    ("IKL", {"max_kernels": -1}, "max_kernels must be an integer >= 0, got -1."),
    ("EMKL", {"max_iter": 0}, "max_iter must be an integer >= 1, got 0."),
    ("EMKL", {"transductive": 1}, "transductive must be True or False, got 1."),
    ("FullKernelSVM", {"max_samples": 1}, "max_samples must be an integer >= 2, got 1."),
])
def test_estimators_check_counts_and_flags_by_the_shared_helpers(make, params, message):
    """check_int / check_bool give the messages these estimators wrote inline before."""
    import re

    from proxlearn import kernel_learning, mkl

    cls = getattr(mkl, make, None) or getattr(kernel_learning, make)
    rng = np.random.default_rng(0)
    Z = rng.normal(size=(12, 3))
    y = np.arange(12) % 2
    X = {"GMKL": Z, "IKL": Z, "FullKernelSVM": Z @ Z.T}.get(make, np.stack([Z @ Z.T, np.eye(12)], -1))
    with pytest.raises(InvalidParameterError, match=re.escape(message)):
        cls(**params).fit(X, y)


# --- regression targets (issue 37, item 1) -------------------------------------------


def test_check_targets():
    import warnings as _w

    import numpy as _np
    from sklearn.exceptions import DataConversionWarning

    from proxlearn._validation import check_targets
    from proxlearn.exceptions import LabelError as _LabelError

    assert check_targets([1, 2], 2).dtype == _np.float64
    assert check_targets(_np.array(["1.5", "2"]), 2).tolist() == [1.5, 2.0]
    with _w.catch_warnings(record=True) as caught:
        _w.simplefilter("always")
        assert check_targets([[1.0], [2.0]], 2).shape == (2,)
    assert any(issubclass(w.category, DataConversionWarning) for w in caught)
    for y, n, match in [(None, 2, "is None"), ([1.0], 2, "1 targets but"),
                        (_np.ones((2, 2)), 2, "1-D"), (["a", "b"], 2, "real numbers"),
                        ([1.0, _np.nan], 2, "NaN or inf at positions 1"),
                        (_np.ma.masked_array([1.0, 2.0], mask=[0, 1]), 2, "masked")]:
        with pytest.raises(_LabelError, match=match):
            check_targets(y, n)
