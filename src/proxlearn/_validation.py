"""Input checks and errors shared by every proxlearn estimator.

Policy
------
* Every matrix is converted to a C-contiguous ``float64`` ndarray. Sparse
  matrices, object arrays, ragged nested lists, strings, NaN and inf are
  rejected with a :class:`SimilarityMatrixError` that says what to do.
* A training similarity matrix must be square (n x n); a test matrix must have
  shape (m, n_train): row ``i`` holds the similarities of test sample ``i`` to
  every training sample, in training order (as scikit-learn's
  ``kernel="precomputed"``).
* **Asymmetric input.** Methods that need a symmetric matrix (spectrum
  modifications, kernel SVMs, neighbour search) use the symmetric part
  ``(S + S.T) / 2``. This leaves the SVM objective unchanged (Chen et al. 2009,
  section 2.1). If the relative asymmetry ``||S - S.T||_F / (2 ||S||_F)``
  exceeds ``ASYMMETRY_TOL`` an :class:`AsymmetricSimilarityWarning` names its
  size; below that the matrix is symmetrised silently (rounding noise).
  Methods that use similarities as features (rows of ``S``) use ``S`` as given.
* **Dissimilarities.** A matrix whose diagonal is (near) zero while the
  off-diagonal entries are positive, or whose diagonal is the smallest entry of
  most rows, looks like a distance. Estimators expecting similarities warn with
  a :class:`DissimilarityWarning` and suggest
  :class:`proxlearn.transforms.DissimilarityToSimilarity`.
* **Hyperparameters.** Each estimator declares a table
  ``_parameter_constraints`` (one constraint per parameter: :func:`positive`,
  :func:`integer`, :func:`boolean`, :func:`options`, ... combined with ``|``)
  and checks it once per public call with :func:`validate_params`.
"""

from __future__ import annotations

import numbers
import warnings

import numpy as np

from .exceptions import (
    AsymmetricSimilarityWarning,
    DissimilarityWarning,
    FeatureMatrixError,
    InvalidParameterError,
    LabelError,
    ObjectListError,
    SimilarityMatrixError,
    SolverError,
    TestMatrixError,
)

__all__ = [
    "ASYMMETRY_TOL",
    "AsymmetricSimilarityWarning",
    "DissimilarityWarning",
    "FeatureMatrixError",
    "InvalidParameterError",
    "LabelError",
    "ObjectListError",
    "SimilarityMatrixError",
    "SolverError",
    "TestMatrixError",
    "asymmetry",
    "check_classification_data",
    "check_features",
    "check_labels",
    "check_targets",
    "check_partial_labels",
    "check_n_neighbors",
    "check_object_list",
    "check_sequences",
    "check_series",
    "check_sets",
    "check_strings",
    "check_sample_weight",
    "AnyOf",
    "Constraint",
    "MAX_ITER_OR_NO_LIMIT",
    "NORMALIZE",
    "boolean",
    "instance_of",
    "integer",
    "only_if",
    "options",
    "positive",
    "satisfies",
    "unchecked",
    "validate_params",
    "check_similarity",
    "check_test_similarity",
    "looks_like_dissimilarity",
    "symmetrize",
]

#: Relative asymmetry below which a matrix is symmetrised without a warning.
ASYMMETRY_TOL = 1e-10


def _as_float_matrix(S, name: str) -> np.ndarray:
    """Convert ``S`` to a 2-D finite float64 array or raise a clear error."""
    return _as_float_matrix_stats(S, name)[0]


def _as_float_matrix_stats(S, name: str):
    """:func:`_as_float_matrix` and ``(row minima, max |entry|)`` of the result."""
    if hasattr(S, "toarray") and hasattr(S, "nnz"):  # scipy.sparse
        raise SimilarityMatrixError(
            f"{name} is a sparse matrix; proxlearn needs a dense array. "
            f"Convert it with {name}.toarray() (missing entries become 0, "
            "which is a similarity value, so fill them deliberately)."
        )
    if isinstance(S, np.ma.MaskedArray):
        raise SimilarityMatrixError(
            f"{name} is a masked array ({int(np.ma.count_masked(S))} masked entries); "
            "proxlearn does not read masks, and unmasking would use whatever values "
            f"lie under them. Fill the masked similarities deliberately "
            f"({name}.filled(value)) or drop those samples, then pass a plain array."
        )
    if isinstance(S, list | tuple) and len(S) > 0:
        lengths = {len(r) if hasattr(r, "__len__") else -1 for r in S}
        if len(lengths) > 1:
            raise SimilarityMatrixError(
                f"{name} is ragged: its rows have different lengths "
                f"{sorted(lengths)}. Pass a rectangular 2-D array."
            )
    try:
        arr = np.asarray(S)
    except ValueError as exc:  # numpy refuses ragged input
        raise SimilarityMatrixError(
            f"{name} could not be read as a 2-D array ({exc}). Pass a rectangular "
            "numeric 2-D array."
        ) from None
    if arr.dtype == object or not (
        np.issubdtype(arr.dtype, np.number) or arr.dtype == np.bool_
    ):
        raise SimilarityMatrixError(
            f"{name} has dtype {arr.dtype}, not a numeric type. Pass a numeric "
            "2-D array (ragged lists and strings are not accepted)."
        )
    if np.iscomplexobj(arr):
        raise SimilarityMatrixError(
            f"Complex data not supported: {name} is complex-valued; similarities "
            "must be real numbers."
        )
    if arr.ndim != 2:
        raise SimilarityMatrixError(
            f"{name} must be a 2-D matrix, got an array with {arr.ndim} "
            f"dimension(s) and shape {arr.shape}. Reshape a single row with "
            "s.reshape(1, -1)."
        )
    if arr.size == 0:
        what = "sample(s)" if arr.shape[0] == 0 else "feature(s)"
        raise SimilarityMatrixError(
            f"{name} is empty: 0 {what} (shape={arr.shape}) while a minimum of 1 "
            "is required. Pass a non-empty matrix."
        )
    arr = np.ascontiguousarray(arr, dtype=np.float64)
    top, row_min = _checked_float_matrix(arr, name)
    return arr, (row_min, top)


def _checked_float_matrix(arr: np.ndarray, name: str):
    """Finiteness and magnitude checks of a float64 matrix; returns ``max|arr|``
    and the row minima (reused by :func:`looks_like_dissimilarity`).

    Two read-only reductions (``min``, ``max``: NaN propagates through both,
    inf shows in one) instead of ``isfinite`` and ``abs`` temporaries of the
    matrix's size; the element-wise masks are built only on the
    error path, to name the first bad entry.
    """
    lo, hi, row_min = _extremes(arr)
    if not (np.isfinite(lo) and np.isfinite(hi)):
        finite = np.isfinite(arr)
        bad = np.argwhere(~finite)
        i, j = bad[0]
        kinds = []
        if np.isnan(arr).any():
            kinds.append("NaN")
        if np.isinf(arr).any():
            kinds.append("inf")
        raise SimilarityMatrixError(
            f"{name} contains {' and '.join(kinds)} ({len(bad)} entries, first at "
            f"[{i}, {j}]). Replace missing similarities (for example with the "
            "row mean) or drop those samples before fitting."
        )
    top = max(-lo, hi)
    if top > _max_safe_entry(max(arr.shape)):
        raise SimilarityMatrixError(
            f"{name} has entries up to {top:.3g} in magnitude, too large for float64 "
            f"arithmetic: products of similarities over {max(arr.shape)} samples "
            f"(S S^T, Gram matrices, decision values) would overflow to inf/NaN. "
            f"Rescale {name} (for example divide it by np.abs({name}).max()) and pass "
            "test rows rescaled by the same factor."
        )
    return top, row_min


def _extremes(arr: np.ndarray) -> tuple[float, float, np.ndarray]:
    """``(min, max, row minima)`` of a 2-D array through row-wise reductions:
    numpy's row-wise ``min`` / ``max`` of a C-ordered matrix ran 3-4x faster
    than the flat ones (measured at n = 4000). NaN propagates."""
    row_min = arr.min(axis=1)
    return float(row_min.min()), float(arr.max(axis=1).max()), row_min


def _max_safe_entry(n: int) -> float:
    """Largest |entry| whose products summed over ``n`` terms stay finite:
    ``n * max^2 <= float64 max`` with a factor ``sqrt(n)`` to spare."""
    return float(np.sqrt(np.finfo(np.float64).max) / max(n, 1))


#: Side of the square tiles in which :func:`asymmetry` and :func:`symmetrize`
#: pair a block with its mirror block (2 MB per tile): temporaries stay at tile
#: size instead of ``n x n``.
_TILE = 512


def _mirror_tiles(n):
    """Tiles ``(rows, cols)`` of the upper triangle, diagonal tiles included."""
    for i0 in range(0, n, _TILE):
        ri = slice(i0, min(i0 + _TILE, n))
        for j0 in range(i0, n, _TILE):
            yield ri, slice(j0, min(j0 + _TILE, n))


def asymmetry(S: np.ndarray) -> float:
    """Relative size of the antisymmetric part, ``||S - S.T||_F / (2 ||S||_F)``.

    0 for a symmetric matrix, 1 for a skew-symmetric one. Computed tile by
    tile (each tile against its mirror), with no ``n x n`` temporary; an
    exactly symmetric matrix (the usual input) returns 0 after one comparison
    (:func:`is_exactly_symmetric`: 7 against 17 ms at n = 2000, the norm and the
    squared differences skipped).
    """
    S = np.asarray(S, dtype=np.float64)
    if S.ndim == 2 and S.shape[0] == S.shape[1] and is_exactly_symmetric(S):
        return 0.0
    norm2 = float(np.einsum("ij,ij->", S, S))
    if norm2 == 0.0:
        return 0.0
    if S.ndim != 2 or S.shape[0] != S.shape[1]:
        return float(np.linalg.norm(S - S.T) / (2.0 * np.sqrt(norm2)))
    num = 0.0
    for ri, cj in _mirror_tiles(S.shape[0]):
        d = S[ri, cj] - S[cj, ri].T
        num += (1.0 if ri == cj else 2.0) * float(np.einsum("ij,ij->", d, d))
    return float(np.sqrt(num) / (2.0 * np.sqrt(norm2)))


def symmetrize(S: np.ndarray, *, out=None) -> np.ndarray:
    """Symmetric part ``(S + S.T) / 2`` as a new float64 array (or in ``out``,
    which may be ``S`` itself), tile by tile."""
    S = np.asarray(S, dtype=np.float64)
    if S.ndim != 2 or S.shape[0] != S.shape[1]:
        return 0.5 * (S + S.T)
    if out is None:
        out = np.empty_like(S)
    for ri, cj in _mirror_tiles(S.shape[0]):
        t = S[ri, cj] + S[cj, ri].T
        t *= 0.5
        out[ri, cj] = t
        out[cj, ri] = t.T
    return out


def looks_like_dissimilarity(S: np.ndarray, *, row_min=None, top=None) -> tuple[bool, str]:
    """Heuristic: does this square matrix look like a dissimilarity?

    Returns ``(flag, reason)``. Flags a matrix whose diagonal is (near) zero
    while its off-diagonal entries are non-negative and mostly positive, or
    whose diagonal entry is the strict minimum of more than half of the rows.
    A similarity normally has its largest entries on the diagonal.
    ``row_min``: ``S.min(axis=1)`` and ``top``: ``max |S|`` if already computed
    (:func:`check_similarity` passes both; one pass over ``S`` less). No ``n x n``
    temporary is made.
    """
    S = np.asarray(S, dtype=np.float64)
    n = S.shape[0]
    if n < 3 or S.shape[1] != n:
        return False, ""
    # reductions without n x n temporaries: the off-diagonal
    # conditions are read from whole-matrix ones where the diagonal allows
    diag = S.diagonal()
    if row_min is None:  # (check_similarity passes the ones it computed)
        row_min = S.min(axis=1)
    lo = float(row_min.min())
    scale = max(-lo, float(S.max(axis=1).max())) if top is None else float(top)
    if scale == 0.0:
        return False, ""
    if (
        np.all(np.abs(diag) <= 1e-12 * scale)
        and lo >= -1e-12 * scale  # the diagonal is within it, so: off >= -1e-12 scale
        and (np.count_nonzero(S > 0) - np.count_nonzero(diag > 0)) / (n * (n - 1)) > 0.5
    ):
        return True, "its diagonal is zero and its off-diagonal entries are positive"
    # diagonal < every off-diagonal entry of its row <=> it is the row minimum
    # and the only entry equal to it
    cand = np.flatnonzero(diag <= row_min)
    if cand.size <= n // 2:  # frac below cannot exceed 0.5
        return False, ""
    strict = np.zeros(n, dtype=bool)
    for r0 in range(0, cand.size, _TILE):
        rows = cand[r0:r0 + _TILE]
        strict[rows] = np.count_nonzero(S[rows] == row_min[rows, None], axis=1) == 1
    frac = float(np.mean(strict))
    if frac > 0.5:
        return True, (
            f"the self-similarity is the smallest entry in {100 * frac:.0f}% of rows"
        )
    return False, ""


def check_similarity(
    S,
    *,
    name: str = "S",
    square: bool = True,
    symmetric: str = "allow",
    dissimilarity_check: bool = True,
) -> np.ndarray:
    """Validate a training similarity matrix and return it as float64.

    Parameters
    ----------
    S : array-like of shape (n, n)
        Training similarities, ``S[i, j] = psi(x_i, x_j)``.
    name : str
        Name used in error messages.
    square : bool
        Require a square matrix (training matrices are always square).
    symmetric : {"allow", "symmetrize", "require"}
        ``"allow"`` returns the matrix as given (methods that use rows as
        features). ``"symmetrize"`` returns ``(S + S.T) / 2``, warning with
        :class:`AsymmetricSimilarityWarning` when the relative asymmetry exceeds
        :data:`ASYMMETRY_TOL`. ``"require"`` raises on asymmetric input.
    dissimilarity_check : bool
        Warn with :class:`DissimilarityWarning` when ``S`` looks like a
        dissimilarity.

    Returns
    -------
    S : ndarray of shape (n, n), float64
    """
    arr, (row_min, top) = _as_float_matrix_stats(S, name)
    own = not _shares_memory(arr, S)
    if square and arr.shape[0] != arr.shape[1]:
        raise SimilarityMatrixError(
            f"{name} must be a square n x n matrix of training similarities, got "
            f"shape {arr.shape}. For a test-to-train matrix call predict / "
            "transform instead of fit; for feature vectors compute a similarity "
            "first. (scikit-learn's CalibratedClassifierCV slices only rows: use "
            "probability=True or proxlearn.svm.SimilarityCalibratedClassifier.)"
        )
    if square and dissimilarity_check:
        warn_if_dissimilarity(arr, name, row_min=row_min, top=top, stacklevel=4)
    if square and symmetric != "allow":
        a = asymmetry(arr)
        if a > 0.0:
            if symmetric == "require" and a > ASYMMETRY_TOL:
                raise SimilarityMatrixError(
                    f"{name} must be symmetric but its relative asymmetry "
                    f"||S - S^T||_F / (2||S||_F) is {a:.3g}. Symmetrise it with "
                    "proxlearn.transforms.Symmetrize or (S + S.T) / 2."
                )
            if symmetric == "symmetrize" and a > ASYMMETRY_TOL:
                warnings.warn(
                    f"{name} is asymmetric (relative asymmetry "
                    f"||S - S^T||_F / (2||S||_F) = {a:.3g}); using its symmetric "
                    "part (S + S^T) / 2 as documented.",
                    AsymmetricSimilarityWarning,
                    stacklevel=3,
                )
            # the caller's matrix is never written: in place only on our own copy
            arr = symmetrize(arr, out=arr if own else None)
    return arr


def warn_if_dissimilarity(S, name, *, row_min=None, top=None, stacklevel=3):
    """Warn with :class:`DissimilarityWarning` when :func:`looks_like_dissimilarity`
    flags the square matrix ``S`` (``stacklevel`` counted from this function)."""
    flag, reason = looks_like_dissimilarity(S, row_min=row_min, top=top)
    if flag:
        warnings.warn(
            f"{name} looks like a dissimilarity matrix ({reason}), but a "
            "similarity was expected. Convert it first, for example with "
            "proxlearn.transforms.DissimilarityToSimilarity.",
            DissimilarityWarning,
            stacklevel=stacklevel,
        )


def is_exactly_symmetric(S: np.ndarray) -> bool:
    """Whether the square array ``S`` equals its transpose entry for entry: in one
    comparison up to ``n = 768`` (a boolean ``n x n`` temporary; 0.22 against 0.27 ms
    for 512-tiles at n = 537), beyond that tile by tile against the mirror tile
    (stops at the first asymmetric tile; 1.1 against 1.5 ms at n = 1000, 6.6 against
    19.7 ms at n = 2000, where the whole transposed read leaves the cache). ``S`` may
    be a strided view."""
    if S.shape[0] <= 768:
        return bool(np.array_equal(S, S.T))
    for ri, cj in _mirror_tiles(S.shape[0]):
        if not np.array_equal(S[ri, cj], S[cj, ri].T):
            return False
    return True


def _shares_memory(arr, original) -> bool:
    """Whether ``arr`` may alias the caller's ``original`` (then it is not ours to write)."""
    if isinstance(original, np.ndarray):
        return np.may_share_memory(arr, original)
    try:
        return np.may_share_memory(arr, np.asarray(original))
    except (ValueError, TypeError):
        return False


def check_test_similarity(S_test, n_train: int, *, name: str = "S_test") -> np.ndarray:
    """Validate a test-to-train similarity matrix of shape (m, n_train).

    A single test row may be given as a 1-D vector of length ``n_train``.
    """
    if not isinstance(S_test, str):
        try:
            arr = np.asanyarray(S_test)  # keeps a mask, refused below
        except ValueError:  # ragged: reported by _as_float_matrix below
            arr = None
        if arr is not None and arr.ndim == 1 and arr.dtype != object and arr.shape[0] == n_train:
            S_test = arr.reshape(1, -1)
    arr = _as_float_matrix(S_test, name)
    if arr.shape[1] != n_train:
        raise TestMatrixError(
            f"{name} has {arr.shape[1]} columns but the estimator was fitted on "
            f"{n_train} training samples. Pass the (m, {n_train}) matrix of "
            "similarities from each test sample to every training sample, in "
            f"training order. (X has {arr.shape[1]} features, but estimator is "
            f"expecting {n_train} features as input.)"
        )
    return arr


def check_features(X, *, name: str = "X", n_features: int | None = None) -> np.ndarray:
    """Validate a feature matrix ``(n_samples, n_features)``; return float64.

    For estimators that build their kernels from features (for example with a
    :class:`proxlearn.mkl.KernelBank`). ``n_features``: the training width a
    test matrix must have.
    """
    if hasattr(X, "toarray") and hasattr(X, "nnz"):
        X = X.toarray()  # features (unlike similarities): zeros are the usual fill
    if isinstance(X, np.ma.MaskedArray):
        raise FeatureMatrixError(
            f"{name} is a masked array ({int(np.ma.count_masked(X))} masked entries); "
            "masks are not read, and unmasking would use whatever values lie under them. "
            f"Impute the masked features ({name}.filled(value)) or drop those samples, "
            "then pass a plain array.")
    try:
        arr = np.asarray(X)
    except ValueError:
        raise FeatureMatrixError(f"{name} is ragged; pass a rectangular (n_samples, "
                                 "n_features) array.") from None
    if arr.dtype == object or not (np.issubdtype(arr.dtype, np.number) or arr.dtype == np.bool_):
        raise FeatureMatrixError(f"{name} has dtype {arr.dtype}; pass numeric features "
                                 "(encode categorical ones first).")
    if np.iscomplexobj(arr):
        raise FeatureMatrixError(f"Complex data not supported: {name} is complex-valued.")
    if arr.ndim != 2:
        raise FeatureMatrixError(
            f"{name} must be a 2-D (n_samples, n_features) array, got shape {arr.shape}. "
            "Reshape your data: a single sample with x.reshape(1, -1), a single feature "
            "with x.reshape(-1, 1).")
    if arr.size == 0:
        what = "sample(s)" if arr.shape[0] == 0 else "feature(s)"
        raise FeatureMatrixError(f"{name} is empty: 0 {what} (shape={arr.shape}) while a "
                                 "minimum of 1 is required. Pass a non-empty array.")
    arr = np.ascontiguousarray(arr, dtype=np.float64)
    if not np.isfinite(arr).all():
        i, j = np.argwhere(~np.isfinite(arr))[0]
        raise FeatureMatrixError(
            f"{name} contains NaN or inf (first at [{i}, {j}]). Impute missing values "
            "(for example sklearn.impute.SimpleImputer in a Pipeline) or drop those samples.")
    top = float(np.max(np.abs(arr)))
    if top > float(np.sqrt(np.finfo(np.float64).max) / (2.0 * max(arr.shape))):
        raise FeatureMatrixError(
            f"{name} has entries up to {top:.3g} in magnitude, too large for float64: "
            "inner products and squared distances summed over the features would overflow "
            "to inf. Rescale the features (for example z-score them, or divide by "
            f"np.abs({name}).max()) and rescale test samples by the same factor.")
    if n_features is not None and arr.shape[1] != n_features:
        raise FeatureMatrixError(
            f"{name} has {arr.shape[1]} features, but proxlearn is expecting {n_features} "
            "features as input (the number seen in fit); pass the same features, in the "
            "same order, as in fit.")
    return arr


def _one_per_row(y, n, rows_of, one, many, noun):
    """``y`` as a vector with one entry per training row, or a :class:`LabelError`
    in the words of its caller (``one``: "one class label", ``many``: "class
    labels", ``noun``: "label"). An ``(n, 1)`` column is flattened with
    scikit-learn's ``DataConversionWarning`` (pointing at the estimator's caller)."""
    if y is None:
        raise LabelError(
            "This estimator requires y to be passed, but the target y is None: pass "
            f"{one} per row of the training matrix."
        )
    arr = np.asarray(y)
    if arr.ndim == 2 and arr.shape[1] == 1:
        from sklearn.exceptions import DataConversionWarning

        warnings.warn(
            "A column-vector y was passed when a 1d array was expected; it was "
            "flattened with ravel().",
            DataConversionWarning,
            stacklevel=4,
        )
        arr = arr.ravel()
    if arr.ndim != 1:
        raise LabelError(f"y must be a 1-D vector of {many}, got shape {arr.shape}.")
    if arr.shape[0] != n:
        raise LabelError(
            f"y has {arr.shape[0]} {noun}s but {rows_of} has {n} rows. "
            f"Pass exactly one {noun} per training sample, in the same order."
        )
    return arr


def check_labels(y, n: int, *, min_classes: int = 2,
                 rows_of: str = "the similarity matrix") -> tuple[np.ndarray, np.ndarray]:
    """Validate class labels for an n x n training matrix (``rows_of``: what the
    ``n`` rows belong to, for the message; ``"X"`` for feature data).

    Returns
    -------
    classes : ndarray
        Sorted unique labels.
    y_idx : ndarray of int
        ``classes[y_idx] == y``.
    """
    arr = _one_per_row(y, n, rows_of, "one class label", "class labels", "label")
    if isinstance(y, np.ma.MaskedArray) and np.ma.count_masked(y):
        missing = np.flatnonzero(np.ma.getmaskarray(y).ravel())
        raise LabelError(
            f"y has {missing.size} masked (missing) label(s), at positions "
            f"{_first(missing)}. Drop those samples (rows and columns of the matrix) "
            "or fill their labels before fitting."
        )
    if arr.dtype.kind == "f" and not np.all(np.isfinite(arr)):
        bad = np.flatnonzero(~np.isfinite(arr))
        raise LabelError(
            f"y contains NaN or inf at positions {_first(bad)}; every sample needs a "
            "class label. Drop those samples (rows and columns of the matrix) or fill "
            "their labels."
        )
    if arr.dtype == object:
        missing = np.flatnonzero([_is_missing(v) for v in arr])
        if missing.size:
            raise LabelError(
                f"y has {missing.size} missing label(s) (None or NaN) at positions "
                f"{_first(missing)}. Drop those samples (rows and columns of the "
                "matrix) or fill their labels before fitting."
            )
        kinds = {type(v).__name__ for v in arr}
        try:
            np.unique(arr)
        except TypeError:
            raise LabelError(
                f"y mixes label types that cannot be ordered ({sorted(kinds)}); use "
                "one type for every class label (all strings or all integers)."
            ) from None
    classes, y_idx = np.unique(arr, return_inverse=True)
    if classes.shape[0] < min_classes:
        raise LabelError(
            f"y has {classes.shape[0]} class(es) ({classes.tolist()!r}) but at least "
            f"{min_classes} are needed to train a classifier. Check the labels or "
            "the train/test split."
        )
    return classes, y_idx.ravel()


def check_targets(y, n: int, *, rows_of: str = "the similarity matrix") -> np.ndarray:
    """Validate real-valued regression targets for ``n`` training samples.

    One finite number per row of the training matrix (a column vector is
    flattened with a ``DataConversionWarning``, as scikit-learn does). Raises
    :class:`LabelError` saying what is wrong: no ``y``, wrong shape or length,
    masked or non-numeric entries, NaN or inf.

    Returns
    -------
    y : ndarray of shape (n,), float64

    Examples
    --------
    >>> from proxlearn._validation import check_targets
    >>> check_targets([1, 2.5, -3], 3).tolist()
    [1.0, 2.5, -3.0]

    See Also
    --------
    check_labels : class labels of a classifier.
    """
    if isinstance(y, np.ma.MaskedArray) and np.ma.count_masked(y):
        missing = np.flatnonzero(np.ma.getmaskarray(y).ravel())
        raise LabelError(
            f"y has {missing.size} masked (missing) target(s), at positions "
            f"{_first(missing)}. Drop those samples (rows and columns of the matrix) "
            "before fitting."
        )
    arr = _one_per_row(y, n, rows_of, "one real number", "real-valued targets", "target")
    if arr.dtype.kind not in "biuf":
        try:
            arr = arr.astype(np.float64)
        except (TypeError, ValueError):
            raise LabelError(
                f"y must hold real numbers (a regression target), got dtype {arr.dtype}. "
                "For class labels use a classifier."
            ) from None
    arr = np.asarray(arr, dtype=np.float64)
    if not np.all(np.isfinite(arr)):
        bad = np.flatnonzero(~np.isfinite(arr))
        raise LabelError(
            f"y contains NaN or inf at positions {_first(bad)}; every sample needs a "
            "finite target. Drop those samples (rows and columns of the matrix) or "
            "fill their targets."
        )
    return arr


def check_partial_labels(y, n: int, *, min_classes: int = 1,
                         rows_of: str = "X") -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Class labels some of which may be unknown: a :class:`numpy.ma.MaskedArray` ``y``
    whose masked entries are the unlabelled samples (a mask, not a reserved value such
    as -1, so that any label set works). A plain ``y`` is fully labelled.

    Returns
    -------
    classes : ndarray
        Sorted unique labels of the labelled samples.
    y_idx : ndarray of int
        ``classes[y_idx]`` is the label of each labelled sample (arbitrary, but valid,
        for the unlabelled ones).
    labelled : ndarray of bool
    """
    if not isinstance(y, np.ma.MaskedArray) or not np.ma.count_masked(y):
        classes, y_idx = check_labels(np.ma.getdata(y) if isinstance(y, np.ma.MaskedArray)
                                      else y, n, min_classes=min_classes, rows_of=rows_of)
        return classes, y_idx, np.ones(n, dtype=bool)
    mask = np.ma.getmaskarray(y)
    data = np.asarray(np.ma.getdata(y))
    if data.ndim != 1 or data.shape[0] != n:
        check_labels(data, n, min_classes=min_classes, rows_of=rows_of)  # raises
    if mask.all():
        raise LabelError(
            "every label of y is masked: at least one labelled sample is needed (mask "
            "only the samples whose label is unknown).")
    filled = data.copy()
    filled[mask] = data[~mask][0]
    classes, y_idx = check_labels(filled, n, min_classes=min_classes, rows_of=rows_of)
    return classes, y_idx, ~mask


def _is_missing(v) -> bool:
    """None, or a float NaN (pandas writes missing strings as float('nan'))."""
    return v is None or (isinstance(v, float | np.floating) and np.isnan(v))


def _first(idx, k: int = 5) -> str:
    """The first ``k`` positions of ``idx`` as text, with an ellipsis beyond."""
    shown = ", ".join(str(int(i)) for i in idx[:k])
    return shown + (", ..." if len(idx) > k else "")


def check_sample_weight(sample_weight, n: int) -> np.ndarray | None:
    """Validate per-sample weights for ``n`` training samples (``None`` passes through).

    Weights must be finite and non-negative, one per training sample, and not
    all zero. Returns a float64 vector.
    """
    if sample_weight is None:
        return None
    w = np.asarray(sample_weight, dtype=np.float64) if not isinstance(
        sample_weight, np.ma.MaskedArray) else None
    if w is None or w.ndim != 1 or w.shape[0] != n:
        shape = "a masked array" if w is None else f"shape {w.shape}"
        raise InvalidParameterError(
            f"sample_weight must be a 1-D vector of {n} weights (one per training "
            f"sample, in the matrix's order), got {shape}."
        )
    bad = np.flatnonzero(~np.isfinite(w) | (w < 0))
    if bad.size:
        raise InvalidParameterError(
            f"sample_weight must be finite and >= 0; positions {_first(bad)} are not "
            f"(first value {w[bad[0]]!r})."
        )
    if not np.any(w > 0):
        raise InvalidParameterError("sample_weight is zero for every sample: nothing to fit.")
    return w


def check_n_neighbors(k, n_train: int, *, name: str = "n_neighbors") -> int:
    """Check a neighbourhood size against the training set size."""
    if isinstance(k, bool) or not isinstance(k, numbers.Integral):
        raise InvalidParameterError(f"{name} must be a positive integer, got {k!r}.")
    k = int(k)
    if k < 1:
        raise InvalidParameterError(f"{name} must be at least 1, got {k}.")
    if k > n_train:
        raise InvalidParameterError(
            f"{name}={k} is larger than the training set ({n_train} samples). "
            f"Choose {name} <= {n_train}."
        )
    return k


def check_positive(value, name: str, *, allow_zero: bool = False) -> float:
    """Check that a scalar hyperparameter is a finite positive number."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise InvalidParameterError(f"{name} must be a real number, got {value!r}.")
    value = float(value)
    ok = value >= 0 if allow_zero else value > 0
    if not np.isfinite(value) or not ok:
        bound = ">= 0" if allow_zero else "> 0"
        raise InvalidParameterError(f"{name} must be finite and {bound}, got {value}.")
    return value


def check_positive_or(value, name: str, option: str):
    """A positive finite number, or the string ``option`` (e.g. ``"auto"``,
    ``"scale"``) returned as is."""
    if isinstance(value, str):
        if value != option:
            raise InvalidParameterError(
                f"{name} must be a positive number or {option!r}, got {value!r}."
            )
        return value
    return check_positive(value, name)


def check_int(value, name: str, low: int = 1) -> int:
    """Check that a count hyperparameter (``max_iter``, ``n_clusters``, ...) is an
    integer ``>= low`` (``bool`` is refused)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or int(value) < low:
        raise InvalidParameterError(f"{name} must be an integer >= {low}, got {value!r}.")
    return int(value)


def check_bool(value, name: str, hint: str = "") -> bool:
    """``value`` as a bool; anything but ``True`` / ``False`` (numpy's included) is refused
    with :class:`InvalidParameterError`, ``hint`` (what each value does) appended."""
    if not isinstance(value, bool | np.bool_):
        raise InvalidParameterError(
            f"{name} must be True or False, got {value!r}." + (f" {hint}" if hint else ""))
    return bool(value)


def check_option(value, name: str, options) -> str:
    """Check that a string option is one of ``options``."""
    if value not in options:
        raise InvalidParameterError(
            f"{name}={value!r} is not supported; choose one of {sorted(options)!r}."
        )
    return value


# --- declarative hyperparameter tables ----------------------------------------
#
# An estimator declares ``_parameter_constraints = {"C": positive(), ...}``, one
# entry per parameter of ``get_params()``, and calls ``validate_params(self)``
# once at its public boundary (``fit``; ``predict`` for the parameters read
# there). Each constraint raises :class:`InvalidParameterError` with the message
# of the ``check_*`` helper of its kind (what was wrong, what is allowed).


class Constraint:
    """One rule a hyperparameter value must satisfy (combine with ``|``)."""

    #: False for :func:`unchecked` entries (left to another check).
    checks = True

    def accepts_type(self, value) -> bool:
        """Whether ``value`` is of the kind this rule is about (then its own
        message, not the union's, explains a refusal)."""
        raise NotImplementedError

    def describe(self) -> str:
        """What is allowed, as a noun phrase (``"a positive number"``)."""
        raise NotImplementedError

    def check(self, value, name: str):
        """``value`` in the form the estimator uses, or :class:`InvalidParameterError`."""
        raise NotImplementedError

    def __or__(self, other):
        return AnyOf(self, other)

    def __repr__(self):
        return f"<{self.describe()}>"


class _Positive(Constraint):
    def __init__(self, allow_zero=False):
        self.allow_zero = allow_zero

    def accepts_type(self, value):
        return isinstance(value, numbers.Real) and not isinstance(value, bool)

    def describe(self):
        return "a number >= 0" if self.allow_zero else "a positive number"

    def check(self, value, name):
        return check_positive(value, name, allow_zero=self.allow_zero)


class _Integer(Constraint):
    def __init__(self, low=1, high=None, what=None):
        self.low, self.high, self.what = low, high, what

    def accepts_type(self, value):
        return isinstance(value, numbers.Integral) and not isinstance(value, bool)

    def describe(self):
        if self.what is not None:
            return self.what
        if self.high is None:
            return f"an integer >= {self.low}"
        return f"an integer in [{self.low}, {self.high}]"

    def check(self, value, name):
        if self.high is None and self.what is None:
            return check_int(value, name, self.low)
        high = np.inf if self.high is None else self.high
        if not self.accepts_type(value) or not self.low <= int(value) <= high:
            raise InvalidParameterError(f"{name} must be {self.describe()}, got {value!r}.")
        return int(value)


class _Boolean(Constraint):
    def __init__(self, hint=""):
        self.hint = hint

    def accepts_type(self, value):
        return isinstance(value, bool | np.bool_)

    def describe(self):
        return "True or False"

    def check(self, value, name):
        return check_bool(value, name, self.hint)


def _listed(values) -> list:
    """``values`` sorted for a message: the strings in order, then the others."""
    strings = sorted(v for v in values if isinstance(v, str))
    return strings + [v for v in values if not isinstance(v, str)]


class _Options(Constraint):
    def __init__(self, values, what=None):
        self.values, self.what = tuple(values), what

    @staticmethod
    def _same(value, v):
        if v is None or isinstance(v, bool):  # 1 == True must not pass
            return value is v or (isinstance(value, np.bool_) and bool(value) is v)
        if isinstance(value, bool | np.bool_) or isinstance(value, str) != isinstance(v, str):
            return False
        try:
            return bool(value == v)
        except (TypeError, ValueError):  # arrays and the like
            return False

    def _hit(self, value):
        return any(self._same(value, v) for v in self.values)

    def accepts_type(self, value):
        return self._hit(value)

    def describe(self):
        if self.what is not None:
            return self.what
        vals = _listed(self.values)
        return repr(vals[0]) if len(vals) == 1 else f"one of {vals!r}"

    def check(self, value, name):
        if not self._hit(value):
            raise InvalidParameterError(
                f"{name}={value!r} is not supported; choose one of {_listed(self.values)!r}."
            )
        return value


class _Instance(Constraint):
    def __init__(self, types, what):
        self.types, self.what = types, what

    def accepts_type(self, value):
        return isinstance(value, self.types)

    def describe(self):
        return self.what

    def check(self, value, name):
        if not self.accepts_type(value):
            raise InvalidParameterError(f"{name} must be {self.what}, got {value!r}.")
        return value


class _Satisfies(_Instance):
    def accepts_type(self, value):
        return bool(self.types(value))


class _OnlyIf(Constraint):
    def __init__(self, constraint, other, values):
        self.constraint, self.other, self.values = constraint, other, tuple(values)

    def applies(self, estimator) -> bool:
        """Whether the estimator's ``other`` parameter takes one of ``values``."""
        v = getattr(estimator, self.other)
        return any(_Options._same(v, w) for w in self.values)

    def accepts_type(self, value):
        return self.constraint.accepts_type(value)

    def describe(self):
        return self.constraint.describe()

    def check(self, value, name):
        return self.constraint.check(value, name)


class _Unchecked(Constraint):
    checks = False

    def __init__(self, reason):
        self.reason = reason

    def accepts_type(self, value):
        return True

    def describe(self):
        return f"anything ({self.reason})"

    def check(self, value, name):
        return value


def _kind(value) -> str:
    """``"number"``, ``"str"`` or the type's name (for :class:`AnyOf`'s message)."""
    if isinstance(value, numbers.Real) and not isinstance(value, bool | np.bool_):
        return "number"
    return "str" if isinstance(value, str) else type(value).__name__


class AnyOf(Constraint):
    """A value satisfying at least one of several constraints (``a | b``)."""

    def __init__(self, *members):
        self.members = tuple(m2 for m in members
                             for m2 in (m.members if isinstance(m, AnyOf) else (m,)))

    def accepts_type(self, value):
        return any(m.accepts_type(value) for m in self.members)

    def describe(self):
        return " or ".join(m.describe() for m in self.members)

    def check(self, value, name):
        for m in self.members:
            try:
                return m.check(value, name)
            except InvalidParameterError:
                pass
        # a value of one member's kind (a number out of range) and of no listed
        # option's kind: that member's message, which names the bound; otherwise
        # the list of everything allowed
        kind = [m for m in self.members
                if not isinstance(m, _Options) and m.accepts_type(value)]
        listed = any(_kind(v) == _kind(value) for m in self.members
                     if isinstance(m, _Options) for v in m.values)
        if len(kind) == 1 and not listed:
            kind[0].check(value, name)
        raise InvalidParameterError(f"{name} must be {self.describe()}, got {value!r}.")


def positive(*, allow_zero: bool = False) -> Constraint:
    """A finite real number ``> 0`` (``>= 0`` with ``allow_zero``), returned as float."""
    return _Positive(allow_zero)


def integer(low: int = 1, high: int | None = None, *, what: str | None = None) -> Constraint:
    """An integer ``>= low`` (and ``<= high``), ``bool`` refused; returned as int.
    ``what`` names the range in the message (``"a positive integer"``)."""
    return _Integer(low, high, what)


def boolean(hint: str = "") -> Constraint:
    """``True`` or ``False`` (numpy's too); ``hint`` (what each does) ends the message."""
    return _Boolean(hint)


def options(*values, what: str | None = None) -> Constraint:
    """One of ``values`` (compared by equality, ``None`` / ``True`` / ``False`` by
    identity); ``what`` describes them in a union's message (``"-1 (no limit)"``)."""
    return _Options(values, what)


def instance_of(types, what: str) -> Constraint:
    """An instance of ``types``; ``what`` names it in the message."""
    return _Instance(types, what)


def satisfies(predicate, what: str) -> Constraint:
    """A value for which ``predicate(value)`` is true; ``what`` names it in the message
    (``satisfies(lambda v: not isinstance(v, str), "an array of indices")``)."""
    return _Satisfies(predicate, what)


def only_if(constraint: Constraint, other: str, *values) -> Constraint:
    """``constraint``, checked only when parameter ``other`` is one of ``values``
    (``gamma`` only for ``kernel="rbf"``); otherwise the value is returned unchecked."""
    return _OnlyIf(constraint, other, values)


def unchecked(reason: str) -> Constraint:
    """A parameter the table lists but leaves to another check, named by ``reason``
    (``check_random_state``, scikit-learn's ``class_weight``, the data in ``fit``)."""
    return _Unchecked(reason)


#: The conversions of a dissimilarity to a similarity
#: (:class:`proxlearn.transforms.DissimilarityToSimilarity`, the loaders' ``convert``).
DISSIMILARITY_METHODS = ("max-minus", "negative", "exp", "double-centering")
#: ``normalize`` of the scale-free single-matrix learners (``_normalize``).
NORMALIZE = boolean("True (the default) divides S and the test rows by tr S / n, so "
                    "that a positive factor on S does not change the predictions; "
                    "False uses S as given.")


#: ``max_iter`` handed to libsvm: ``-1`` is its "no limit".
MAX_ITER_OR_NO_LIMIT = options(-1, what="-1 (no limit)") | integer(1)


def validate_params(estimator, *names) -> dict:
    """Check ``estimator``'s parameters against its class's ``_parameter_constraints``.

    Parameters
    ----------
    estimator : object
        An estimator whose class declares ``_parameter_constraints``, a dict from
        every name of ``get_params()`` to a constraint (:func:`positive`,
        :func:`integer`, :func:`boolean`, :func:`options`, :func:`instance_of`,
        :func:`unchecked`, combined with ``|``).
    *names : str
        Check only these parameters (those a ``predict`` reads); all by default,
        in the table's order.

    Returns
    -------
    dict
        The validated values (floats for :func:`positive`, ints for
        :func:`integer`, bools for :func:`boolean`).

    Raises
    ------
    InvalidParameterError
        At the first parameter that breaks its constraint, saying what is allowed.

    Examples
    --------
    >>> from proxlearn.svm import SimilaritySVC
    >>> validate_params(SimilaritySVC(C=2))["C"]
    2.0
    >>> validate_params(SimilaritySVC(C=0))
    Traceback (most recent call last):
    ...
    proxlearn.exceptions.InvalidParameterError: C must be finite and > 0, got 0.0.
    """
    table = type(estimator)._parameter_constraints
    out = {}
    for name in names or table:
        c, value = table[name], getattr(estimator, name)
        skip = isinstance(c, _OnlyIf) and not c.applies(estimator)
        out[name] = value if skip else c.check(value, name)
    return out


def check_classification_data(S, y, *, symmetric: str = "allow"):
    """Validate a training matrix and its class labels together.

    ``check_similarity(S, symmetric=symmetric)`` plus :func:`check_labels`,
    rejecting continuous (regression) targets.

    Returns
    -------
    S : ndarray of shape (n, n), float64
    classes : ndarray
    y_idx : ndarray of int
    """
    S = check_similarity(S, symmetric=symmetric)
    classes, y_idx = check_labels(y, S.shape[0])
    if classes.dtype.kind == "f" and np.any(classes != np.round(classes)):
        raise LabelError(
            "Unknown label type: continuous. y holds non-integer numbers; "
            "classifiers need class labels (use integers or strings)."
        )
    return S, classes, y_idx



# --- raw objects of the similarity builders (proxlearn.pairwise) -----------------


def _record(i: int, ids) -> str:
    """How an error names object ``i``: its id (FASTA id, line number) if given."""
    return f"object {i}" if ids is None else f"object {i} ({ids[i]})"


def check_object_list(X, name: str = "X") -> list:
    """A non-empty list of objects (any sequence; strings and arrays are not lists)."""
    if isinstance(X, (str, bytes)) or (isinstance(X, np.ndarray) and X.ndim == 0):
        raise ObjectListError(
            f"{name} must be a list of objects (strings, sequences, series or sets), "
            f"got a single {type(X).__name__}."
        )
    try:
        X = list(X)
    except TypeError:
        raise ObjectListError(
            f"{name} must be a list of objects, got {type(X).__name__}."
        ) from None
    if not X:
        raise ObjectListError(f"{name} is empty; give at least one object.")
    return X


def check_strings(X, name: str = "X", *, ids=None, allow_empty: bool = True) -> list:
    """A list of ``str`` (edit distances). Empty strings are allowed unless
    ``allow_empty=False``."""
    X = check_object_list(X, name)
    for i, x in enumerate(X):
        if not isinstance(x, str):
            raise ObjectListError(
                f"{name}: {_record(i, ids)} is a {type(x).__name__}, not a string."
            )
        if not allow_empty and not x:
            raise ObjectListError(f"{name}: {_record(i, ids)} is an empty string.")
    return X


def check_sequences(X, alphabet: str, name: str = "X", *, ids=None,
                    matrix: str = "the substitution matrix") -> list:
    """Biological sequences: non-empty strings over ``alphabet`` only.

    The error names the first offending record and its first bad letter(s);
    an aligner would otherwise score unknown letters silently.
    """
    X = check_strings(X, name, ids=ids)
    allowed = set(alphabet)
    for i, x in enumerate(X):
        if not x:
            raise ObjectListError(
                f"{name}: {_record(i, ids)} is an empty sequence; remove it or fix the input."
            )
        bad = set(x) - allowed
        if bad:
            pos = min(x.index(c) for c in bad)
            raise ObjectListError(
                f"{name}: {_record(i, ids)} has letter(s) {''.join(sorted(bad))!r} (first at "
                f"position {pos + 1}) outside the alphabet of {matrix} ({alphabet}). "
                "Remove or replace them (e.g. by X for proteins, N for DNA)."
            )
    return X


def check_series(X, name: str = "X", *, ids=None) -> list:
    """Time series: a list of finite 1-D float64 arrays of length >= 1 (lengths may differ)."""
    X = check_object_list(X, name)
    out = []
    for i, x in enumerate(X):
        try:
            a = np.ascontiguousarray(x, dtype=np.float64)
        except (TypeError, ValueError):
            raise ObjectListError(
                f"{name}: {_record(i, ids)} is not a numeric series."
            ) from None
        if a.ndim != 1 or a.size == 0:
            raise ObjectListError(
                f"{name}: {_record(i, ids)} must be a non-empty 1-D series, got shape {a.shape}."
            )
        bad = ~np.isfinite(a)
        if bad.any():
            raise ObjectListError(
                f"{name}: {_record(i, ids)} has NaN or inf (first at position "
                f"{int(np.argmax(bad)) + 1} of {a.size}). Interpolate or drop the missing "
                "values, or drop the series."
            )
        out.append(a)
    return out


def check_sets(X, name: str = "X", *, ids=None) -> list:
    """Sets: a list of iterables of hashable items (strings are refused: ``set("abc")``
    is rarely meant; pass ``set(s)`` explicitly)."""
    X = check_object_list(X, name)
    out = []
    for i, x in enumerate(X):
        if isinstance(x, (str, bytes)):
            raise ObjectListError(
                f"{name}: {_record(i, ids)} is a string; pass a set of items (set(s) for "
                "its characters, s.split() for its words)."
            )
        try:
            out.append(frozenset(x))
        except TypeError:
            raise ObjectListError(
                f"{name}: {_record(i, ids)} is not an iterable of hashable items."
            ) from None
    return out
