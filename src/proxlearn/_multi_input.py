"""Several similarity matrices over the same objects: one input convention.

Training input is an ``(n, n, m)`` array, the ``m`` matrices stacked on the
**last** axis; test input is ``(n_test, n_train, m)``. scikit-learn's
pairwise slicing ``X[np.ix_(rows, cols)]`` then slices the first two axes of
every matrix at once, so ``cross_val_score``, ``GridSearchCV`` and
``Pipeline`` work unchanged. A 2-D ``(n, n)`` matrix is the case ``m = 1``.
Each matrix is checked like a single similarity matrix; a bad one is named by
its index (``X[:, :, 2]``).
"""

from __future__ import annotations

import numpy as np

from ._validation import (
    InvalidParameterError,
    SimilarityMatrixError,
    TestMatrixError,
    check_similarity,
    check_test_similarity,
)

__all__ = ["check_multi_similarity", "check_multi_test"]


def _as_array(X, name):
    """``X`` as an ndarray if it is a 3-D stack, else ``None`` (checked as one matrix)."""
    if isinstance(X, np.ndarray) and not isinstance(X, np.ma.MaskedArray):
        return X if X.ndim == 3 else None
    if isinstance(X, (list, tuple)):
        try:
            arr = np.asarray(X)
        except ValueError:
            return None  # ragged: reported by the single-matrix check
        return arr if arr.ndim == 3 and arr.dtype != object else None
    return None  # sparse, masked, strings, array-likes: the single-matrix check decides


def check_multi_similarity(X, *, name="X", symmetric="symmetrize",
                           dissimilarity_check=True) -> np.ndarray:
    """Validate ``m`` training similarity matrices; return ``(n, n, m)`` float64.

    Parameters
    ----------
    X : array-like of shape (n, n, m) or (n, n)
    name : str
        Used in error messages, with the index of a bad matrix.
    symmetric, dissimilarity_check :
        As :func:`proxlearn._validation.check_similarity`, per matrix.
    """
    arr = _as_array(X, name)
    if arr is None:  # one matrix (m = 1), or input the single-matrix check refuses
        one = np.asarray(X) if isinstance(X, np.ndarray) else None
        if one is not None and one.ndim > 3:
            raise SimilarityMatrixError(
                f"{name} must be an (n, n, m) array (m similarity matrices over the same n "
                f"objects, stacked on the last axis) or one (n, n) matrix; got {one.ndim} "
                f"dimensions, shape {one.shape}."
            )
        return check_similarity(X, name=name, symmetric=symmetric,
                                dissimilarity_check=dissimilarity_check)[:, :, None]
    n0, n1, m = arr.shape
    if m == 0:
        raise SimilarityMatrixError(f"{name} has m = 0 similarity matrices; give at least one.")
    if n0 != n1:
        raise SimilarityMatrixError(
            f"{name} must be (n, n, m) with square n x n training matrices, got shape "
            f"{arr.shape}. For test rows call predict; a stack on the first axis "
            "(m, n, n) must be moved to the last: np.moveaxis(X, 0, -1)."
        )
    out = np.empty(arr.shape, dtype=np.float64)
    for k in range(m):
        out[:, :, k] = check_similarity(arr[:, :, k], name=f"{name}[:, :, {k}]",
                                        symmetric=symmetric,
                                        dissimilarity_check=dissimilarity_check)
    return out


def check_multi_test(X_test, n_train: int, m: int, *, name="X_test") -> np.ndarray:
    """Validate test-to-train rows of ``m`` matrices; return ``(n_test, n_train, m)``.

    ``(n_test, n_train)`` (or one row of length ``n_train``) is accepted when
    ``m = 1``.
    """
    arr = _as_array(X_test, name)
    if arr is None:  # one matrix of test rows (or input the single-matrix check refuses)
        shape = getattr(X_test, "shape", None)
        if isinstance(X_test, np.ndarray) and X_test.ndim > 3:
            raise TestMatrixError(f"{name} must be (n_test, {n_train}, {m}), got shape {shape}.")
        if m != 1:
            raise TestMatrixError(
                f"{name} is one matrix (shape {shape}) but the estimator was fitted on m = {m} "
                f"similarity matrices; pass (n_test, {n_train}, {m}) test rows, the m "
                "matrices stacked on the last axis in the training order."
            )
        return check_test_similarity(X_test, n_train, name=name)[:, :, None]
    if arr.shape[2] != m:
        raise TestMatrixError(
            f"{name} holds {arr.shape[2]} similarity matrices but the estimator was fitted "
            f"on m = {m}; pass the same matrices, in the same order, on the last axis."
        )
    out = np.empty(arr.shape, dtype=np.float64)
    for k in range(m):
        out[:, :, k] = check_test_similarity(arr[:, :, k], n_train, name=f"{name}[:, :, {k}]")
    return out


def check_m(value, m, name):
    """A per-matrix parameter: a scalar or ``m`` values."""
    v = np.asarray(value, dtype=np.float64)
    if v.ndim == 0:
        v = np.full(m, float(v))
    if v.shape != (m,) or not np.all(np.isfinite(v)):
        raise InvalidParameterError(f"{name} must be a scalar or {m} finite values, got {value!r}.")
    return v
