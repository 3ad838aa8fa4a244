"""Several similarity matrices over the same objects: one input convention.

Training input is an ``(n, n, m)`` array, the ``m`` matrices stacked on the
**last** axis; test input is ``(n_test, n_train, m)``. scikit-learn's
pairwise slicing ``X[np.ix_(rows, cols)]`` then slices the first two axes of
every matrix at once, so ``cross_val_score``, ``GridSearchCV`` and
``Pipeline`` work unchanged. A 2-D ``(n, n)`` matrix is the case ``m = 1``; a
list or tuple of ``m`` 2-D arrays (``[K1, K2, K3]``) is stacked on the last axis.
Each matrix is checked like a single similarity matrix; a bad one is named by
its index (``X[:, :, 2]``, or ``X[2]`` in a list).

:func:`check_multi_similarity` and :func:`check_multi_test` are the only
validators of such stacks: every multi-matrix estimator and function calls
them once, at its public entry point.
"""

from __future__ import annotations

import numbers

import numpy as np
from scipy.linalg.lapack import dpotrf as _potrf

from ._validation import (
    InvalidParameterError,
    SimilarityMatrixError,
    TestMatrixError,
    _max_safe_entry,
    check_similarity,
    check_test_similarity,
    is_exactly_symmetric,
    warn_if_dissimilarity,
)

__all__ = ["check_multi_similarity", "check_multi_test", "check_psd_stack", "psd_violation",
           "psd_violations"]


def _is_sequence_of_arrays(X) -> bool:
    """Whether ``X`` is a list or tuple of 2-D arrays (``[K1, K2, ...]``): ``m``
    matrices to stack on the last axis. Nested lists of numbers, and a list of 1-D
    arrays (the rows of one matrix), are read as one array."""
    return (isinstance(X, (list, tuple)) and len(X) > 0
            and all(isinstance(K, np.ndarray) and K.ndim == 2 for K in X))


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


def _not_a_stack(X, name, what):
    """Raise for ``None``, a scalar or an empty list given as a stack of matrices."""
    if (X is None or isinstance(X, numbers.Number) or (isinstance(X, np.ndarray) and X.ndim == 0)
            or (isinstance(X, (list, tuple)) and not X)):
        got = "an empty list" if isinstance(X, (list, tuple)) else repr(X)
        raise SimilarityMatrixError(
            f"{name} must be {what}, or a list of m such matrices; got {got}. Give at "
            "least one similarity matrix."
        )


def _stacked(mats, name, label, check, error=SimilarityMatrixError, **kwargs):
    """The matrices of a list ``[K1, K2, ...]``, each checked by ``check(K, name=label(k),
    **kwargs)``, stacked on the last axis; they must all have the same shape."""
    out = [check(K, name=label(k), **kwargs) for k, K in enumerate(mats)]
    shapes = sorted({K.shape for K in out})
    if len(shapes) > 1:
        raise error(
            f"the matrices of {name} must all be over the same n objects; got shapes "
            f"{shapes}."
        )
    return np.stack(out, axis=-1)


def check_multi_similarity(X, *, name="X", symmetric="symmetrize",
                           dissimilarity_check=True, copy=True, label=None) -> np.ndarray:
    """Validate ``m`` training similarity matrices; return ``(n, n, m)`` float64.

    Parameters
    ----------
    X : array-like of shape (n, n, m) or (n, n), or a list of m (n, n) arrays
        A list or tuple of 2-D arrays is stacked on the last axis (nested lists
        of numbers, or of 1-D arrays, are read as one array).
    name : str
        Used in error messages, with the index of a bad matrix.
    symmetric, dissimilarity_check :
        As :func:`proxlearn._validation.check_similarity`, per matrix.
    copy : bool, default=True
        ``False``: a float64 ``(n, n, m)`` array whose matrices pass unchanged
        (finite, and exactly symmetric unless ``symmetric="allow"``) is returned
        itself, not copied; a matrix that must change (symmetrised) goes into a
        copy of the stack in the input's memory layout. The caller must then
        never write into the result. The checks, errors and warnings are the
        same either way (each matrix read in place, without a per-matrix copy).
    label : callable, optional
        ``label(k)`` names matrix ``k`` in messages (default ``name[:, :, k]``,
        ``name[k]`` for a list).

    Raises
    ------
    SimilarityMatrixError
        No matrix, a bad matrix (named), matrices of different sizes, a stack
        that is not ``(n, n, m)`` (the message says how to move its axis).

    Returns
    -------
    ndarray of shape (n, n, m), float64

    Examples
    --------
    >>> import numpy as np
    >>> from proxlearn._multi_input import check_multi_similarity
    >>> check_multi_similarity([np.eye(3), np.ones((3, 3))]).shape
    (3, 3, 2)

    See Also
    --------
    check_multi_test : the test rows of such a stack.
    proxlearn._validation.check_similarity : the check of each matrix.
    """
    _not_a_stack(X, name, "an (n, n, m) array (m similarity matrices over the same n "
                 "objects, stacked on the last axis) or one (n, n) matrix")
    if _is_sequence_of_arrays(X):
        return _stacked(X, name, label or (lambda k: f"{name}[{k}]"), check_similarity,
                        symmetric=symmetric, dissimilarity_check=dissimilarity_check)
    given, label = label, label or (lambda k: f"{name}[:, :, {k}]")
    arr = _as_array(X, name)
    if arr is None:  # one matrix (m = 1), or input the single-matrix check refuses
        one = np.asarray(X) if isinstance(X, np.ndarray) else None
        if one is not None and one.ndim > 3:
            raise SimilarityMatrixError(
                f"{name} must be an (n, n, m) array (m similarity matrices over the same n "
                f"objects, stacked on the last axis) or one (n, n) matrix; got {one.ndim} "
                f"dimensions, shape {one.shape}."
            )
        return check_similarity(X, name=name if given is None else given(0),
                                symmetric=symmetric,
                                dissimilarity_check=dissimilarity_check)[:, :, None]
    n0, n1, m = arr.shape
    if m == 0:
        raise SimilarityMatrixError(
            f"{name} holds m = 0 similarity matrices (shape {arr.shape}); give at least one.")
    if n0 != n1:
        raise SimilarityMatrixError(
            f"{name} must be (n, n, m) with square n x n training matrices, got shape "
            f"{arr.shape}. A stack on the first axis (m, n, n) must be moved to the last: "
            "np.moveaxis(X, 0, -1); test-to-train rows (n_test, n_train, m) are for "
            "predict / transform."
        )
    if not copy and arr.dtype == np.float64:
        return _checked_in_place(arr, label, symmetric, dissimilarity_check)
    out = np.empty(arr.shape, dtype=np.float64)
    for k in range(m):
        out[:, :, k] = check_similarity(arr[:, :, k], name=label(k), symmetric=symmetric,
                                        dissimilarity_check=dissimilarity_check)
    return out


def _finite_and_safe(row_min, row_max, n):
    """Whether a matrix whose row minima and maxima are given is finite and within
    :func:`proxlearn._validation.check_similarity`'s magnitude limit (the same two
    row-wise reductions it makes); ``n``: its larger side."""
    lo, hi = float(row_min.min()), float(row_max.max())
    return bool(np.isfinite(lo) and np.isfinite(hi) and max(-lo, hi) <= _max_safe_entry(n))


#: Rows per block of the stack-wide symmetry test (a boolean temporary of
#: ``block n m`` bytes).
_SYMMETRY_BLOCK = 256


def _stack_stats(arr, symmetric):
    """Row minima and maxima ``(n, m)`` of every matrix of the stack, and which
    matrices equal their transpose exactly (``None`` when ``symmetric="allow"``).

    A stack whose last axis is contiguous (``np.stack(..., axis=-1)``) is reduced
    whole, so that every pass reads memory in order (its per-matrix views are strided
    by ``m``: docs/benchmarks.md, "Stacks of matrices: reading a lane-major stack
    whole"); any other
    layout (kernel-major, as :class:`proxlearn.mkl.KernelBank` returns) matrix by
    matrix through its contiguous view."""
    n, _, m = arr.shape
    if arr.strides[2] == arr.itemsize and m > 1:
        row_min, row_max = arr.min(axis=1), arr.max(axis=1)
        if symmetric == "allow":
            return row_min, row_max, None
        sym = np.ones(m, dtype=bool)
        for i0 in range(0, n, _SYMMETRY_BLOCK):
            rows = slice(i0, min(i0 + _SYMMETRY_BLOCK, n))
            sym &= (arr[rows] == arr[:, rows].transpose(1, 0, 2)).all(axis=(0, 1))
        return row_min, row_max, sym
    views = [arr[:, :, k] for k in range(m)]
    row_min = np.column_stack([v.min(axis=1) for v in views])
    row_max = np.column_stack([v.max(axis=1) for v in views])
    if symmetric == "allow":
        return row_min, row_max, None
    return row_min, row_max, np.array([is_exactly_symmetric(v) for v in views])


def _checked_in_place(arr, label, symmetric, dissimilarity_check):
    """:func:`check_multi_similarity` with ``copy=False`` on a float64 stack.

    Every matrix is read in place (:func:`_stack_stats`): row minima and maxima
    (finiteness and magnitude, as :func:`check_similarity`), the dissimilarity
    heuristic on them, and an exact symmetry test. A matrix that fails one of them
    goes through :func:`check_similarity` itself, which raises the same named error
    or returns its symmetric part; only then is the stack copied (once, in the
    input's layout) to hold it.
    """
    row_min, row_max, sym = _stack_stats(arr, symmetric)
    out = arr
    for k in range(arr.shape[2]):
        view = arr[:, :, k]
        label_k = label(k)
        if not _finite_and_safe(row_min[:, k], row_max[:, k], arr.shape[0]):
            check_similarity(view, name=label_k, symmetric=symmetric)  # raises, naming it
        if dissimilarity_check:
            warn_if_dissimilarity(view, label_k, row_min=row_min[:, k], stacklevel=5)
        if sym is None or sym[k]:
            continue
        fixed = check_similarity(view, name=label_k, symmetric=symmetric,
                                 dissimilarity_check=False)
        if out is arr:
            out = arr.copy(order="K")
        out[:, :, k] = fixed
    return out


def check_multi_test(X_test, n_train: int, m: int, *, name="X_test",
                     copy=True) -> np.ndarray:
    """Validate test-to-train rows of ``m`` matrices; return ``(n_test, n_train, m)``.

    ``(n_test, n_train)`` (or one row of length ``n_train``) is accepted when
    ``m = 1``; a list of ``m`` arrays ``(n_test, n_train)`` is stacked on the last
    axis. ``copy=False``: a valid float64 ``(n_test, n_train, m)`` array is
    returned itself (the caller must not write into it).

    Examples
    --------
    >>> import numpy as np
    >>> from proxlearn._multi_input import check_multi_test
    >>> check_multi_test([np.ones((2, 3)), np.zeros((2, 3))], 3, 2).shape
    (2, 3, 2)

    See Also
    --------
    check_multi_similarity : the training stack.
    proxlearn._validation.check_test_similarity : the check of each matrix.
    """
    if _is_sequence_of_arrays(X_test):
        if len(X_test) != m:
            raise TestMatrixError(
                f"{name} is a list of {len(X_test)} similarity matrices but the estimator was "
                f"fitted on m = {m}; pass the same matrices, in the same order.")
        return _stacked(X_test, name, lambda k: f"{name}[{k}]", check_test_similarity,
                        TestMatrixError, n_train=n_train)
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
    if not copy and arr.dtype == np.float64 and arr.shape[1] == n_train and arr.size:
        row_min, row_max, _ = _stack_stats(arr, "allow")
        for k in range(m):
            if not _finite_and_safe(row_min[:, k], row_max[:, k], max(arr.shape[:2])):
                check_test_similarity(arr[:, :, k], n_train, name=f"{name}[:, :, {k}]")  # raises
        return arr
    out = np.empty(arr.shape, dtype=np.float64)
    for k in range(m):
        out[:, :, k] = check_test_similarity(arr[:, :, k], n_train, name=f"{name}[:, :, {k}]")
    return out


#: Relative size of the most negative eigenvalue a matrix may have and still count
#: as positive semidefinite: ``lambda_min >= -PSD_TOL max(1, ||K||_2)``.
PSD_TOL = 1e-8


def check_psd_stack(Ks, *, name="X", hint=""):
    """Raise :class:`SimilarityMatrixError` naming the first matrix of the stack ``Ks``
    (``(n, n, m)``, finite and symmetric) that is not positive semidefinite, i.e.
    whose smallest eigenvalue is below ``-PSD_TOL max(1, ||K||_2)``; ``hint`` ends
    the message.

    The test is a Cholesky factorisation of ``K + delta I`` with
    ``delta = PSD_TOL max(1, max_ij |K_ij|)`` (``max_ij |K_ij| <= ||K||_2``, so a
    factorisation that succeeds proves ``lambda_min > -delta >= -PSD_TOL max(1,
    ||K||_2)`` up to its rounding, ``n^2 eps max|K_ij|``): a third of the flops of
    an eigenvalue decomposition and no tridiagonal reduction (docs/benchmarks.md,
    "Stacks of matrices: the PSD test by Cholesky"). Only a matrix whose
    factorisation fails is decomposed (``eigvalsh``), to decide exactly and to
    report its smallest eigenvalue; so the verdict is the eigenvalue test's.

    Examples
    --------
    >>> import numpy as np
    >>> from proxlearn._multi_input import check_psd_stack
    >>> K = np.array([[1.0, 2.0], [2.0, 1.0]])  # eigenvalues 3 and -1
    >>> check_psd_stack(np.stack([np.eye(2), K], axis=-1))
    Traceback (most recent call last):
    ...
    proxlearn.exceptions.SimilarityMatrixError: X[:, :, 1] is not positive semidefinite (smallest eigenvalue -1)

    See Also
    --------
    psd_violations : every matrix that fails, without raising.
    """
    n, _, m = Ks.shape
    buf = np.empty((n, n))
    for k in range(m):
        K = Ks[:, :, k]
        lam_min = psd_violation(K, buf)
        if lam_min is not None:
            raise SimilarityMatrixError(
                f"{name}[:, :, {k}] is not positive semidefinite (smallest eigenvalue "
                f"{lam_min:.3g}){hint}")


def psd_violations(Ks):
    """``[(k, lambda_min)]`` for every matrix ``Ks[:, :, k]`` of the stack that is not
    positive semidefinite (:func:`psd_violation`, one factorisation each), in order;
    ``[]`` when all are PSD.

    Examples
    --------
    >>> import numpy as np
    >>> from proxlearn._multi_input import psd_violations
    >>> K = np.array([[1.0, 2.0], [2.0, 1.0]])
    >>> [(k, float(lam)) for k, lam in psd_violations(np.stack([np.eye(2), K], axis=-1))]
    [(1, -1.0)]

    See Also
    --------
    psd_violation : the test of one matrix.
    check_psd_stack : raise on the first matrix that fails.
    """
    n, _, m = Ks.shape
    buf = np.empty((n, n))
    found = ((k, psd_violation(Ks[:, :, k], buf)) for k in range(m))
    return [(k, lam) for k, lam in found if lam is not None]


def psd_violation(K, buf=None):
    """``None`` when the symmetric matrix ``K`` is positive semidefinite to
    :data:`PSD_TOL` (see :func:`check_psd_stack`), else its smallest eigenvalue.
    ``buf``: an ``n x n`` float64 scratch array (overwritten).

    Examples
    --------
    >>> import numpy as np
    >>> from proxlearn._multi_input import psd_violation
    >>> psd_violation(np.ones((2, 2))), float(psd_violation(np.array([[1.0, 2.0], [2.0, 1.0]])))
    (None, -1.0)

    See Also
    --------
    psd_violations : the test of every matrix of a stack.
    """
    n = K.shape[0]
    buf = np.empty((n, n)) if buf is None else buf
    np.copyto(buf, K)
    top = max(-float(buf.min()), float(buf.max())) if n else 0.0
    buf.flat[:: n + 1] += PSD_TOL * max(1.0, top)
    _, info = _potrf(buf, lower=1, clean=0, overwrite_a=1)
    if info == 0:
        return None
    lam = np.linalg.eigvalsh(K)  # the factorisation failed: decide exactly
    if lam[0] < -PSD_TOL * max(1.0, float(np.abs(lam).max())):
        return float(lam[0])
    return None


def check_m(value, m, name):
    """A per-matrix parameter: a scalar or ``m`` values."""
    v = np.asarray(value, dtype=np.float64)
    if v.ndim == 0:
        v = np.full(m, float(v))
    if v.shape != (m,) or not np.all(np.isfinite(v)):
        raise InvalidParameterError(f"{name} must be a scalar or {m} finite values, got {value!r}.")
    return v
