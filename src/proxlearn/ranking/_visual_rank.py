"""VisualRank: a damped random walk on a similarity (kernel) graph.

=================  ===========================================================
function           what
=================  ===========================================================
``visual_rank``    stationary scores of ``VR = d K~ VR + (1 - d) p``
=================  ===========================================================

References
----------
Y. Jing and S. Baluja. VisualRank: applying PageRank to large-scale image
search. IEEE TPAMI 30(11), 2008.
J. Zhuang. Kernel learning from similarity data (PhD thesis), 2011, section
6.2 (the damped form used there; ``d`` is not given, 0.85 is PageRank's).

Choices the thesis leaves open: a learned kernel may have negative entries,
which are not transition probabilities; ``negative="clip"`` uses ``max(K, 0)``,
``"raise"`` refuses. A column that sums to zero after that (an
object similar to nothing) jumps uniformly, as PageRank treats dangling
nodes, so ``K~`` is column-stochastic.
"""

from __future__ import annotations

import numbers
import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning

from .._validation import check_option, check_positive, check_similarity
from ..exceptions import InvalidParameterError, SimilarityMatrixError

__all__ = ["visual_rank"]


def _transition(K, negative):
    if np.any(K < 0):
        if negative == "raise":
            raise SimilarityMatrixError(
                f"K has {int(np.sum(K < 0))} negative entries, which are not transition "
                "weights; pass negative='clip' to use max(K, 0), or shift K."
            )
        K = np.maximum(K, 0.0)
    col = K.sum(axis=0)
    dangling = col <= 0
    P = K / np.where(dangling, 1.0, col)
    P[:, dangling] = 1.0 / K.shape[0]
    return P


def visual_rank(K, damping=0.85, *, personalization=None, negative="clip", tol=1e-12,
                max_iter=1000):
    """Scores of the damped VisualRank iteration ``VR = d K~ VR + (1 - d) p``.

    Parameters
    ----------
    K : array-like of shape (n, n)
        Non-negative similarities (a learned kernel, say); ``K[i, j]`` is the
        weight of a step from ``j`` to ``i``. Columns are normalised to sum to
        one (``K~``).
    damping : float in [0, 1), default=0.85
        ``d``; the thesis does not give it, 0.85 is PageRank's value.
    personalization : array-like of shape (n,), optional
        The teleport distribution ``p`` (non-negative, normalised here);
        uniform ``1/n`` by default (the thesis).
    negative : {"clip", "raise"}, default="clip"
        Negative entries: ``max(K, 0)``, or an error.
    tol : float, default=1e-12
        Stop when the l1 change of the scores is below ``tol``.
    max_iter : int, default=1000

    Returns
    -------
    scores : ndarray of shape (n,)
        Non-negative, summing to one; higher is more central.

    Notes
    -----
    The power iteration contracts with rate ``d`` in l1, so it needs about
    ``log(tol) / log(d)`` steps (170 at the defaults).

    Examples
    --------
    >>> import numpy as np
    >>> from proxlearn.ranking import visual_rank
    >>> visual_rank(np.array([[1., 1., 0.], [1., 1., 1.], [0., 1., 1.]])).round(4).tolist()
    [0.292, 0.4161, 0.292]

    See Also
    --------
    NPKReranker : VisualRank on a learned kernel.
    kernel_affinity : a non-negative graph from a kernel.
    """
    check_option(negative, "negative", {"clip", "raise"})
    if isinstance(damping, bool) or not isinstance(damping, numbers.Real) or not 0 <= damping < 1:
        raise InvalidParameterError(f"damping must be in [0, 1), got {damping!r}.")
    check_positive(tol, "tol")
    K = check_similarity(K, name="K", dissimilarity_check=False)
    n = K.shape[0]
    if personalization is None:
        p = np.full(n, 1.0 / n)
    else:
        p = np.asarray(personalization, dtype=np.float64)
        if p.shape != (n,) or not np.all(np.isfinite(p)) or np.any(p < 0) or p.sum() <= 0:
            raise InvalidParameterError(
                f"personalization must be {n} finite non-negative weights, not all zero."
            )
        p = p / p.sum()
    P = _transition(K, negative)
    v = p.copy()
    for _ in range(int(max_iter)):
        nxt = damping * (P @ v) + (1.0 - damping) * p
        if np.abs(nxt - v).sum() < tol:
            return nxt / nxt.sum()
        v = nxt
    warnings.warn(f"visual_rank did not reach tol={tol:g} in {max_iter} iterations.",
                  ConvergenceWarning, stacklevel=2)
    return v / v.sum()
