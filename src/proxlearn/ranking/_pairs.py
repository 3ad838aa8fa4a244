"""Kernels over ordered pairs of objects, for tie strength (Zhuang 2011, sec. 7.4).

==============================  ==============================================
function                        what
==============================  ==============================================
``pair_kernel``                 kernel between two lists of ordered pairs
``sample_tie_pairs``            positive / negative training pairs (sec. 7.4.2)
==============================  ==============================================

``kind="difference"`` is the thesis's pair kernel (sec. 7.4)::

    K((a, b), (c, d)) = k(a, c) + k(b, d) - k(a, d) - k(b, c)
                      = <phi(a) - phi(b), phi(c) - phi(d)>,

PSD whenever ``k`` is. A model on it, ``f(a, b) = w^T (phi(a) - phi(b))``, is
**antisymmetric** (``f(b, a) = -f(a, b)``, ``f(a, a) = 0``) and, for a fixed
``a``, orders the candidates ``b`` by ``-w^T phi(b)`` -- the same order for
every ``a``. That is the thesis's model, implemented as printed and
documented here; ``kind="tensor"`` is the symmetric pairwise kernel of
Ben-Hur & Noble (2005)::

    K((a, b), (c, d)) = k(a, c) k(b, d) + k(a, d) k(b, c),

PSD whenever ``k`` is (a sum of a Kronecker product and its permutation),
under which the strength of ``(a, b)`` depends on both users jointly, and
``kind="metric"`` the metric-learning pairwise kernel of Vert, Qiu & Noble
(2007), the square of the difference kernel::

    K((a, b), (c, d)) = (<phi(a) - phi(b), phi(c) - phi(d)>)^2,

PSD (an entrywise square of a PSD matrix), symmetric in each pair, with
models ``f(a, b) = (phi(a) - phi(b))^T W (phi(a) - phi(b))``: a learned
(pseudo-)distance, which can express "similar users are tied" (``W = -I``
gives ``2 k(a, b) - k(a, a) - k(b, b)``) where the tensor kernel's bilinear
forms ``phi(a)^T W phi(b)`` only reach users near the training pairs.
"""

from __future__ import annotations

import numpy as np
from sklearn.utils import check_random_state

from .._multi_input import check_multi_similarity
from .._validation import InvalidParameterError, check_option, check_similarity

__all__ = ["pair_kernel", "sample_tie_pairs"]


def _check_pairs(P, n, name):
    P = np.asarray(P)
    if P.ndim != 2 or P.shape[1] != 2 or P.dtype.kind not in "iu":
        raise InvalidParameterError(f"{name} must be an integer array of shape (p, 2), got "
                                    f"{P.dtype} {P.shape}.")
    if P.size and (P.min() < 0 or P.max() >= n):
        raise InvalidParameterError(f"{name} holds indices outside 0..{n - 1}.")
    return P


def pair_kernel(K, P, Q=None, *, kind="difference") -> np.ndarray:
    """Kernel between the ordered pairs ``P`` (p, 2) and ``Q`` (q, 2) of objects of ``K``.

    Parameters
    ----------
    K : array-like of shape (n, n)
        Kernel over the objects (users), symmetric.
    P, Q : int arrays of shape (p, 2), (q, 2)
        Index pairs; ``Q = P`` by default (the training Gram matrix).
    kind : {"difference", "tensor", "metric"}, default="difference"
        The thesis's difference kernel, the symmetric tensor-product kernel,
        or the metric-learning pair kernel (the square of the difference
        kernel; see the module docstring).

    Returns
    -------
    ndarray of shape (p, q)

    Examples
    --------
    >>> import numpy as np
    >>> from proxlearn.ranking import pair_kernel
    >>> K = np.array([[2., 1., 0.], [1., 2., 1.], [0., 1., 2.]])
    >>> pair_kernel(K, np.array([[0, 1], [1, 2]])).tolist()
    [[2.0, 0.0], [0.0, 2.0]]

    See Also
    --------
    sample_tie_pairs : the pairs to train on.
    KernelLogisticRegression : the classifier of chapter 7.
    """
    check_option(kind, "kind", {"difference", "tensor", "metric"})
    K = check_similarity(K, name="K", symmetric="symmetrize", dissimilarity_check=False)
    n = K.shape[0]
    P = _check_pairs(P, n, "P")
    Q = P if Q is None else _check_pairs(Q, n, "Q")
    a, b = P[:, 0], P[:, 1]
    c, d = Q[:, 0], Q[:, 1]
    if kind != "tensor":
        D = K[np.ix_(a, c)] + K[np.ix_(b, d)] - K[np.ix_(a, d)] - K[np.ix_(b, c)]
        return D if kind == "difference" else D * D
    return K[np.ix_(a, c)] * K[np.ix_(b, d)] + K[np.ix_(a, d)] * K[np.ix_(b, c)]


def sample_tie_pairs(ties, kernels=None, *, n_negative=1.0, top=None, random_state=None):
    """Training pairs for tie strength (sec. 7.4.2): ties and unlikely non-ties.

    Positives are the observed ties ``ties[i, j] > 0`` (``i != j``, each ordered
    pair as given: a directed contact list stays directed). Negatives, for
    each user ``i`` with ties, are drawn among the users outside ``i``'s
    ``top`` most similar users under *every* kernel (our reading of the
    self-contradictory printed rule: negatives should be the least similar)
    and without a tie to ``i``.

    Parameters
    ----------
    ties : array-like of shape (n, n)
        Observed ties (the contact list), non-zero = tie.
    kernels : array-like of shape (n, n, m), optional
        User kernels (:func:`proxlearn.mkl.check_multi_similarity` convention);
        ``None``: negatives are drawn among all non-ties.
    n_negative : float, default=1.0
        Negatives per positive of each user.
    top : int, optional
        The ``N`` of the rule; ``n // 10`` by default.
    random_state : int, RandomState or None

    Returns
    -------
    pairs : int ndarray of shape (p, 2)
    labels : ndarray of shape (p,)
        ``+1`` for ties, ``-1`` for negatives.

    Examples
    --------
    >>> import numpy as np
    >>> from proxlearn.ranking import sample_tie_pairs
    >>> ties = np.zeros((6, 6)); ties[0, 1] = ties[1, 0] = ties[2, 3] = 1
    >>> pairs, labels = sample_tie_pairs(ties, random_state=0)
    >>> pairs.shape, labels.tolist()
    ((6, 2), [1.0, 1.0, 1.0, -1.0, -1.0, -1.0])

    See Also
    --------
    pair_kernel, KernelLogisticRegression
    """
    T = np.asarray(ties)
    if T.ndim != 2 or T.shape[0] != T.shape[1]:
        raise InvalidParameterError(f"ties must be a square (n, n) matrix, got {T.shape}.")
    if T.dtype == object or not (np.issubdtype(T.dtype, np.number) or T.dtype == bool):
        raise InvalidParameterError(
            f"ties must hold numbers (tie counts or 0/1 indicators), got dtype {T.dtype}.")
    if not np.all(np.isfinite(T)):
        raise InvalidParameterError(
            "ties has NaN or infinite entries; mark an unknown or absent tie with 0 (absent "
            "users' rows can be left out of the training pairs instead).")
    if np.any(T < 0):
        raise InvalidParameterError(
            "ties has negative entries; ties are counts or 0/1 indicators (0 = no tie), "
            "not +1/-1 labels.")
    n = T.shape[0]
    tie = (T != 0) & ~np.eye(n, dtype=bool)
    if not tie.any():
        raise InvalidParameterError("ties has no tie between two different users.")
    rng = check_random_state(random_state)
    top = max(1, n // 10) if top is None else int(top)
    allowed = ~tie & ~np.eye(n, dtype=bool)
    if kernels is not None:
        Ks = check_multi_similarity(kernels, name="kernels", symmetric="allow",
                                    dissimilarity_check=False)
        if Ks.shape[0] != n:
            raise InvalidParameterError(f"kernels are over {Ks.shape[0]} users, ties over {n}.")
        for t in range(Ks.shape[2]):
            Kt = Ks[:, :, t] - np.diag(np.full(n, np.inf))  # never count oneself
            near = np.argsort(-Kt, axis=1, kind="stable")[:, :top]
            allowed[np.repeat(np.arange(n), top), near.ravel()] = False
    pos, neg = [], []
    for i in np.flatnonzero(tie.any(axis=1)):
        js = np.flatnonzero(tie[i])
        pos.extend((i, j) for j in js)
        cand = np.flatnonzero(allowed[i])
        k = min(len(cand), int(round(n_negative * len(js))))
        if k:
            neg.extend((i, j) for j in rng.choice(cand, k, replace=False))
    pairs = np.array(pos + neg, dtype=np.intp).reshape(-1, 2)
    labels = np.r_[np.ones(len(pos)), -np.ones(len(neg))]
    return pairs, labels
