"""Clustering accuracy of Zhuang (2011, section 3.5.2): the pairwise Rand index x 100.

=========================  ==============================================================
function                   value
=========================  ==============================================================
:func:`rand_index`         ``100 * #{i < j : [c_i = c_j] == [c^_i = c^_j]} / (n(n-1)/2)``
:func:`clustering_report`  the above, scikit-learn's adjusted Rand index and NMI
=========================  ==============================================================

References
----------
Zhuang (2011), PhD thesis, section 3.5.2, "Cluster Accuracy" (taken from Hoi,
Jin & Lyu 2007): the fraction of point pairs whose same-cluster /
different-cluster relation in the prediction matches the ground truth -- the
Rand index (Rand 1971). The printed formula is garbled; it is
read as the plain, unweighted pair count. (Xing et al. 2002 reweight the
pairs so that same-class and different-class pairs weigh one half each when
there are many clusters; the thesis's formula has no weights.) Chapter 3
reports no NMI; :func:`clustering_report` adds scikit-learn's adjusted Rand
index and normalised mutual information for comparison.

Computed from the contingency table ``n_kl`` (rows: true classes, columns:
predicted clusters) in ``O(n + #classes * #clusters)``: with ``a_k``, ``b_l``
its row and column sums and ``P(m) = m(m-1)/2``,

    agreements = P(n) + 2 sum_kl P(n_kl) - sum_k P(a_k) - sum_l P(b_l).

Exact integer arithmetic. One sample (no pairs) scores 100.
"""

from __future__ import annotations

import numpy as np
from sklearn.metrics import adjusted_rand_score, normalized_mutual_info_score
from sklearn.metrics.cluster import contingency_matrix

from .._validation import _first, _is_missing
from ..exceptions import LabelError

__all__ = ["clustering_report", "rand_index"]


def _check_partitions(labels_true, labels_pred):
    out = []
    for name, lab in (("labels_true", labels_true), ("labels_pred", labels_pred)):
        a = np.asarray(lab)
        if a.ndim != 1:
            raise LabelError(f"{name} must be a 1-D vector of cluster labels, got shape {a.shape}.")
        if a.shape[0] == 0:
            raise LabelError(f"{name} is empty; pass one label per sample.")
        if a.dtype.kind == "f" and not np.all(np.isfinite(a)):
            bad = _first(np.flatnonzero(~np.isfinite(a)))
            raise LabelError(f"{name} contains NaN or inf at positions {bad}; every "
                             "sample needs a label.")
        if a.dtype == object:
            miss = np.flatnonzero([_is_missing(v) for v in a])
            if miss.size:
                raise LabelError(f"{name} has missing labels (None or NaN) at positions "
                                 f"{_first(miss)}.")
        out.append(a)
    if out[0].shape[0] != out[1].shape[0]:
        raise LabelError(
            f"labels_true has {out[0].shape[0]} labels but labels_pred has "
            f"{out[1].shape[0]}; pass one label per sample for the same samples."
        )
    return out


def _pairs(m):
    m = np.asarray(m, dtype=np.int64)
    return int(np.sum(m * (m - 1) // 2))


def rand_index(labels_true, labels_pred) -> float:
    """Pairwise clustering accuracy (Rand index) x 100 (Zhuang 2011, section 3.5.2).

    The percentage of the ``n(n-1)/2`` sample pairs on which the two partitions
    agree (both together, or both apart). 100 for identical partitions up to a
    renaming of the labels; symmetric in its arguments.

    Parameters
    ----------
    labels_true, labels_pred : array-like of shape (n,)
        Any hashable labels; only the partitions they induce matter.

    Returns
    -------
    float in [0, 100]

    Examples
    --------
    >>> from proxlearn.cluster import rand_index
    >>> rand_index([0, 0, 1, 1], [1, 1, 0, 0])
    100.0
    >>> round(rand_index([0, 0, 1, 1], [0, 1, 0, 1]), 2)
    33.33

    See Also
    --------
    clustering_report : adds the adjusted Rand index and NMI.
    sklearn.metrics.rand_score : the same on the [0, 1] scale.
    """
    a, b = _check_partitions(labels_true, labels_pred)
    n = a.shape[0]
    if n < 2:
        return 100.0
    C = contingency_matrix(a, b, sparse=True)
    total = n * (n - 1) // 2
    both = _pairs(C.data)
    same_true = _pairs(np.asarray(C.sum(axis=1)).ravel())
    same_pred = _pairs(np.asarray(C.sum(axis=0)).ravel())
    agree = total + 2 * both - same_true - same_pred
    return 100.0 * agree / total


def clustering_report(y, labels) -> dict[str, float]:
    """The thesis's clustering accuracy and two chance-corrected scores.

    Parameters
    ----------
    y, labels : array-like of shape (n,)
        True classes and predicted clusters (any hashable labels).

    Returns
    -------
    dict
        ``"rand_index"``: :func:`rand_index` (x 100, the thesis's "clustering
        accuracy"); ``"adjusted_rand_index"``: scikit-learn's
        ``adjusted_rand_score`` (1 for identical partitions, about 0 by chance);
        ``"normalized_mutual_info"``: ``normalized_mutual_info_score``
        (arithmetic normalisation, in [0, 1]). The last two are on scikit-learn's
        scale, not x 100.

    Examples
    --------
    >>> from proxlearn.cluster import clustering_report
    >>> r = clustering_report([0, 0, 1, 1], [1, 1, 0, 0])
    >>> sorted(r), r["rand_index"]
    (['adjusted_rand_index', 'normalized_mutual_info', 'rand_index'], 100.0)

    See Also
    --------
    rand_index : the first of the three scores.
    """
    a, b = _check_partitions(y, labels)
    return {
        "rand_index": rand_index(a, b),
        "adjusted_rand_index": float(adjusted_rand_score(a, b)),
        "normalized_mutual_info": float(normalized_mutual_info_score(a, b)),
    }
