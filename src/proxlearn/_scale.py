"""The scale of a similarity matrix: one definition for every scale-free default.

Many learners have absolute constants (an SVM's ``C``, a ridge ``rho``, an
``epsilon``, a bandwidth) whose meaning depends on the units of ``S``. With
``normalize=True`` (their default) they divide the training matrix *and* the
test rows by the training matrix's scale ``c = tr S / n`` (the mean
self-similarity; ``1`` for the unit-diagonal similarities of most benchmark
sets, so nothing changes there), which makes every prediction independent of
a positive factor on ``S``. When the trace is not positive (a similarity
with a zero or negative diagonal) the scale is the sum of the positive
eigenvalues over ``n`` instead. A matrix with no positive eigenvalue has no
scale and is refused.

* :func:`similarity_scale`: ``c`` of one square matrix.
* :func:`similarity_scales`: ``c_i`` of each matrix of an ``(n, n, m)`` stack.
"""

from __future__ import annotations

import numpy as np

from .exceptions import SimilarityMatrixError

__all__ = ["similarity_scale", "similarity_scales"]


def similarity_scale(S, *, name="S") -> float:
    """``tr S / n`` of a square matrix, or its clipped trace over ``n`` when the
    trace is not positive; refuses a matrix with no positive eigenvalue.

    Parameters
    ----------
    S : ndarray of shape (n, n)
        A training similarity (or kernel) matrix, already validated.
    name : str, default="S"
        How the error message names the matrix.

    Returns
    -------
    float
        The positive scale ``c``; divide ``S`` and the test rows by it.

    Raises
    ------
    SimilarityMatrixError
        When ``S`` has no positive eigenvalue.

    See Also
    --------
    similarity_scales : The scale of each matrix of a stack.

    Examples
    --------
    >>> import numpy as np
    >>> from proxlearn._scale import similarity_scale
    >>> similarity_scale(2.0 * np.eye(3)), similarity_scale(np.array([[0.0, 1.0], [1.0, 0.0]]))
    (2.0, 0.5)
    """
    S = np.asarray(S)
    n = S.shape[0]
    c = float(np.trace(S)) / n
    if c > 0:
        return c
    sym = 0.5 * (S + S.T)
    c = float(np.maximum(np.linalg.eigvalsh(sym), 0.0).sum()) / n
    if not c > 0:
        raise SimilarityMatrixError(
            f"{name} has no positive eigenvalue (an all-zero or negative semidefinite "
            "matrix), so it has no scale to normalise by: check that it is a similarity "
            "(larger = more alike), or pass normalize=False.")
    return c


def similarity_scales(Ss, *, name="X") -> np.ndarray:
    """``(m,)``: :func:`similarity_scale` of each matrix ``Ss[:, :, i]`` of a stack.

    Parameters
    ----------
    Ss : ndarray of shape (n, n, m)
        A stack of training similarities, already validated.
    name : str, default="X"
        How the error message names the stack.

    Returns
    -------
    ndarray of shape (m,)

    See Also
    --------
    similarity_scale : The scale of one matrix.

    Examples
    --------
    >>> import numpy as np
    >>> from proxlearn._scale import similarity_scales
    >>> similarity_scales(np.stack([np.eye(2), 3.0 * np.eye(2)], axis=2)).tolist()
    [1.0, 3.0]
    """
    Ss = np.asarray(Ss)
    return np.array([similarity_scale(Ss[:, :, i], name=f"{name}[:, :, {i}]")
                     for i in range(Ss.shape[2])])
