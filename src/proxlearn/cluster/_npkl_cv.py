"""SimpleNPKL with ``C`` chosen by cross-validation over the constraints.

SimpleNPKL learns a kernel over the points it is given from must-link / cannot-link
pairs; there are no labels to predict. What can be held out honestly are the
constraints: the folds split the *pairs* (stratified by must / cannot), the kernel
is learned over all the points from the training pairs, and the score asks whether
the held-out pairs are where the kernel puts them.

The default score follows from what the kernel is for, a kernel k-means clustering:
:func:`held_out_agreement` is the fraction of held-out pairs that
``KernelKMeans(n_clusters)`` on the fold's kernel satisfies (must-links in one
cluster, cannot-links apart). The pairs are drawn at random, so this estimates the
Rand index of that clustering on the pairs the constraints cover. ``n_clusters``
is the number the user will ask ``KernelKMeans`` for; ``None`` infers it from the
constraints (:func:`constraint_groups`, a lower estimate when the constraints
are few). ``random_state`` seeds the k-means: one seed for every fold and ``C``,
so two ``C`` differ by their kernels only. ``scoring="auc"`` (the earlier default:
the ROC AUC of the held-out pairs ranked by the kernel cosine, :func:`held_out_auc`)
and a callable ``scoring(kernel, pairs, labels) -> float`` remain.

The choice: a fold holds about a fifth of a few hundred pairs, so the mean scores
of neighbouring ``C`` differ by less than their noise. The ``C`` nearest
SimpleNPKL's default ``C = 1`` is kept unless the best mean beats it by more than
``n_std_errors`` (default 2) standard errors of the mean per-fold difference
(Nadeau and Bengio's corrected standard error, for the overlapping training sets of
the folds: a corrected resampled t-test; as ``GridSearchCV``'s callable ``refit``);
``n_std_errors=0`` takes the best mean. Evidence in docs/methods.md ("SimpleNPKLCV
scores the clustering").

Reference for the choice: C. Nadeau and Y. Bengio, "Inference for the generalization
error", Machine Learning 52 (2003) 239-281, the corrected resampled t-test (its
variance correction ``1/k + n_test/n_train``).

Shared along the walk (exactly, answers unchanged): the kNN graph Laplacian, built
once for every fold and ``C`` (the points do not change between folds); and the
dual multipliers of the previous ``C`` as the start of the next (``C`` walked
upwards): the dual ascent stops on the same certified duality gap from any start.
"""

from __future__ import annotations

import numpy as np
from scipy.sparse import coo_matrix
from sklearn.base import BaseEstimator
from sklearn.utils import check_random_state

from .._cv import INPUT_WARNINGS, GridCVMixin, check_grid, cv_folds, grid_walk
from .._validation import integer, options, positive, satisfies, unchecked, validate_params
from ..exceptions import InvalidParameterError
from ._constraints import PairwiseConstraints
from ._kernel_kmeans import KernelKMeans
from ._npkl import SimpleNPKL

__all__ = ["SimpleNPKLCV", "NPKL_CS", "held_out_auc", "held_out_agreement",
           "constraint_groups"]

SCORINGS = ("agreement", "auc")

#: Default grid (the thesis's ``C = 1`` in the middle).
NPKL_CS = (0.1, 0.3, 1.0, 3.0)


def held_out_auc(kernel, pairs, labels):
    """ROC AUC of must-links (``+1``) against cannot-links (``-1``) ranked by the
    kernel cosine ``K_ij / sqrt(K_ii K_jj)`` (0 where a diagonal entry is 0); 0.5 is
    chance, 1 every pair right.

    Parameters
    ----------
    kernel : ndarray of shape (n, n)
        A learned kernel over the points.
    pairs : ndarray of shape (m, 2)
        Point indices of the held-out pairs.
    labels : ndarray of shape (m,)
        ``+1`` (must-link) or ``-1`` (cannot-link) per pair.

    Returns
    -------
    float

    Examples
    --------
    >>> import numpy as np
    >>> from proxlearn.cluster import held_out_agreement, held_out_auc
    >>> y = np.array([0, 0, 0, 1, 1, 1])
    >>> K = (y[:, None] == y[None, :]) + 0.1
    >>> pairs, labels = np.array([[0, 1], [3, 4], [0, 3], [2, 5]]), np.array([1, 1, -1, -1])
    >>> held_out_auc(K, pairs, labels), held_out_agreement(K, pairs, labels, 2, random_state=0)
    (1.0, 1.0)

    See Also
    --------
    held_out_agreement : the default score of :class:`SimpleNPKLCV`.
    sklearn.metrics.roc_auc_score : the AUC computed.
    """
    from sklearn.metrics import roc_auc_score

    i, j = pairs[:, 0], pairs[:, 1]
    d = np.sqrt(np.maximum(np.diag(kernel), 0.0))
    den = d[i] * d[j]
    cos = np.divide(kernel[i, j], den, out=np.zeros(len(i)), where=den > 0)
    return float(roc_auc_score(labels > 0, cos))


def held_out_agreement(kernel, pairs, labels, n_clusters, random_state=None):
    """Fraction of the pairs a :class:`~proxlearn.cluster.KernelKMeans` clustering of
    ``kernel`` into ``n_clusters`` (at its defaults: by direction, ``normalize="cosine"``,
    as the user's ``KernelKMeans`` clusters) satisfies: must-links (``+1``) in one
    cluster, cannot-links (``-1``) in two; 1 every pair satisfied.

    Parameters
    ----------
    kernel, pairs, labels
        As :func:`held_out_auc`.
    n_clusters : int
        Number of clusters of the k-means.
    random_state : int, RandomState or None, default=None
        Seeds the k-means.

    Returns
    -------
    float

    Examples
    --------
    >>> import numpy as np
    >>> from proxlearn.cluster import held_out_agreement
    >>> K = np.kron(np.eye(2), np.ones((3, 3))) + 0.1
    >>> held_out_agreement(K, np.array([[0, 2], [0, 5]]), np.array([1, -1]), 2, random_state=0)
    1.0

    See Also
    --------
    held_out_auc : a score without a clustering.
    constraint_groups : ``n_clusters`` inferred from the constraints.
    proxlearn.cluster.KernelKMeans : the clustering scored.
    """
    z = KernelKMeans(n_clusters, random_state=random_state).fit(kernel).labels_
    same = z[pairs[:, 0]] == z[pairs[:, 1]]
    return float(np.mean(same == (labels > 0)))


def constraint_groups(constraints):
    """The number of groups the constraints ask for, at least 2.

    The points joined by must-links (chunklets) are coloured so that no cannot-link
    joins two chunklets of one colour, by the greedy DSatur rule (most distinct
    neighbour colours first, then most cannot-links): an upper bound on the fewest
    such groups. The true classes are one such colouring, so with few constraints
    the fewest groups can be below the number of classes. A cannot-link inside a
    chunklet (contradictory constraints) is ignored.

    Parameters
    ----------
    constraints : PairwiseConstraints
        Must-link and cannot-link pairs (:mod:`proxlearn.cluster`).

    Returns
    -------
    int

    Examples
    --------
    >>> import numpy as np
    >>> from proxlearn.cluster import constraint_groups, make_pairwise_constraints
    >>> pc = make_pairwise_constraints(np.repeat([0, 1, 2], 10), r=0.5, random_state=0)
    >>> constraint_groups(pc)
    3

    See Also
    --------
    SimpleNPKLCV : uses it when ``n_clusters=None``.
    proxlearn.cluster.make_pairwise_constraints : constraints from labels.
    """
    _, chunk = constraints.connected_components("must-link")
    cl = constraints.pairs[constraints.labels < 0]
    a, b = chunk[cl[:, 0]], chunk[cl[:, 1]]
    keep = a != b
    if not keep.any():
        return 2
    # only chunklets with a cannot-link matter (the others take any colour)
    nodes, idx = np.unique(np.r_[a[keep], b[keep]], return_inverse=True)
    m, e = len(nodes), keep.sum()
    G = coo_matrix((np.ones(2 * e), (idx, np.r_[idx[e:], idx[:e]])), shape=(m, m)).tocsr()
    degree = np.diff(G.indptr)
    colour = np.full(m, -1)
    seen = [set() for _ in range(m)]  # colours among each chunklet's neighbours
    for _ in range(m):
        free = np.flatnonzero(colour < 0)
        sat = np.array([len(seen[v]) for v in free])
        v = free[np.lexsort((-degree[free], -sat))[0]]
        c = 0
        while c in seen[v]:
            c += 1
        colour[v] = c
        for u in G.indices[G.indptr[v]:G.indptr[v + 1]]:
            seen[u].add(c)
    return max(2, int(colour.max()) + 1)


def _choose(res, n_std_errors, test_train_ratio, default_C=1.0):
    """Index of the chosen ``C``: the grid point nearest (in log ``C``) SimpleNPKL's
    default ``default_C`` is kept unless the best mean score (ties: nearest the
    default) exceeds it by more than ``n_std_errors`` standard errors of the mean
    per-fold difference of the two. The standard error is Nadeau and Bengio's
    (2003) corrected one, ``sqrt((1/k + n_test/n_train) var(d))`` over ``k`` folds
    (``test_train_ratio``: the mean ``n_test/n_train``): the folds' training sets
    overlap, so ``var(d)/k`` understates it."""
    Cs = np.asarray(res["param_C"], dtype=float)
    folds = np.array([res[k] for k in res if k.startswith("split")]).T  # (n_C, n_folds)
    mean = np.where(np.isnan(res["mean_test_score"]), -np.inf, res["mean_test_score"])
    dist = np.abs(np.log(Cs / default_C))
    ref = int(np.argmin(dist))
    top = np.flatnonzero(mean >= mean.max())
    best = int(top[np.argmin(dist[top])])
    if best == ref or not np.isfinite(mean[ref]):
        return best
    diff = folds[best] - folds[ref]
    k = len(diff)
    se = np.sqrt((1.0 / k + test_train_ratio) * diff.var(ddof=1)) if k > 1 else 0.0
    return best if mean[best] - mean[ref] > n_std_errors * se else ref


class SimpleNPKLCV(GridCVMixin, BaseEstimator):
    """:class:`SimpleNPKL` with ``C`` chosen by cross-validation over the constraints.

    The folds split the constraint pairs (stratified by must / cannot-link); each
    ``C`` learns the kernel over all the points from the training pairs and is scored
    on the held-out pairs by how well a kernel k-means clustering keeps them (module
    docstring). The ``C`` nearest the default ``C = 1`` is kept unless another's mean
    score is better by more than ``n_std_errors`` standard errors; the chosen ``C``
    is refitted with every constraint.

    Parameters
    ----------
    Cs : sequence of float, default=(0.1, 0.3, 1, 3)
        Around the default ``C = 1`` (beyond it the panel's Rand indices collapse).
    cv : int or cross-validation splitter, default=5
        Splits the constraints (an int: stratified folds by constraint label).
    scoring : "agreement", "auc" or callable, default="agreement"
        ``"agreement"``: :func:`held_out_agreement` with ``n_clusters_`` clusters;
        ``"auc"``: :func:`held_out_auc` (needs both kinds of pair in every held-out
        fold); a callable ``(kernel, pairs, labels) -> float`` (higher is better)
        over the held-out pairs.
    n_clusters : int >= 2 or None, default=None
        The number of clusters the learned kernel will be clustered into (give the
        ``n_clusters`` of your ``KernelKMeans``); ``None``: inferred from the
        constraints by :func:`constraint_groups` (ours; it can be below the true
        number when the constraints meet few points of some class). Used by
        ``scoring="agreement"`` only.
    n_std_errors : float >= 0, default=2.0
        How far (in corrected standard errors of the mean per-fold score
        difference, Nadeau & Bengio 2003) the best ``C`` must beat the grid point
        nearest ``C = 1`` to replace it; ``0``: the best mean (ties to the point
        nearest ``C = 1``). Ours: the paper gives no selection rule.
    random_state : int, RandomState or None, default=None
        Seeds the k-means of ``scoring="agreement"`` (one seed drawn per ``fit``,
        shared by every fold and ``C``); an int makes ``fit`` deterministic.
    n_jobs : int or None, default=None
        Folds in parallel (joblib).
    loss, B, n_neighbors, metric, laplacian, max_iter, tol : as :class:`SimpleNPKL`.

    Attributes
    ----------
    best_params_ : dict
        ``{"C": best_C_}``; also ``best_C_``.
    best_index_, cv_results_, n_splits_ : as ``GridSearchCV``'s (ranks by mean).
    best_score_ : float
        The mean score at ``best_index_`` (not always the largest mean).
    n_clusters_ : int
        The number of clusters of the agreement score (given or inferred).
    best_estimator_ : SimpleNPKL
        Refitted with all the constraints at ``best_C_``.
    kernel_, eigenvalues_, eigenvectors_, constraints_, n_features_in_ : those of
        ``best_estimator_``.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from proxlearn.cluster import SimpleNPKLCV, make_pairwise_constraints
    >>> X, y = load_iris(return_X_y=True)
    >>> pc = make_pairwise_constraints(y, r=0.7, random_state=0)
    >>> est = SimpleNPKLCV(Cs=[0.1, 1.0], cv=3, n_clusters=3, random_state=0).fit(X, pc)
    >>> est.kernel_.shape, est.best_C_ in (0.1, 1.0)
    ((150, 150), True)

    See Also
    --------
    SimpleNPKL, proxlearn.cluster.KernelKMeans, held_out_agreement, held_out_auc
    """

    _parameter_constraints = {
        "Cs": unchecked("a grid, checked by check_grid"),
        "cv": unchecked("folds, checked by cv_folds"),
        "scoring": options(*SCORINGS, what="'agreement', 'auc'")
        | satisfies(callable, "a callable (kernel, pairs, labels) -> float"),
        "n_clusters": integer(2) | options(None),  # and <= the number of points: fit
        "n_std_errors": positive(allow_zero=True),
        "random_state": unchecked("sklearn.utils.check_random_state, in fit"),
        "n_jobs": unchecked("joblib's"),
        # SimpleNPKL's entries (B without form: SimpleNPKLCV has the bound form only)
        "B": positive(),
        **{k: SimpleNPKL._parameter_constraints[k]
           for k in ("loss", "n_neighbors", "metric", "laplacian", "max_iter", "tol")},
    }

    def __init__(self, Cs=NPKL_CS, *, cv=5, scoring="agreement", n_clusters=None,
                 n_std_errors=2.0, random_state=None, n_jobs=None, loss="square-hinge",
                 B=1.0, n_neighbors=5, metric="euclidean", laplacian="unnormalized",
                 max_iter=200, tol=1e-4):
        self.Cs = Cs
        self.cv = cv
        self.scoring = scoring
        self.n_clusters = n_clusters
        self.n_std_errors = n_std_errors
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.loss = loss
        self.B = B
        self.n_neighbors = n_neighbors
        self.metric = metric
        self.laplacian = laplacian
        self.max_iter = max_iter
        self.tol = tol

    def _base(self, C):
        return SimpleNPKL(self.loss, C=C, B=self.B, n_neighbors=self.n_neighbors,
                          metric=self.metric, laplacian=self.laplacian,
                          max_iter=self.max_iter, tol=self.tol)

    def fit(self, X, constraints=None):
        """Cross-validate ``Cs`` over the constraints, then refit with all of them.

        Parameters
        ----------
        X : array-like
            Features ``(n, d)`` or, with ``metric="precomputed"``, a similarity ``(n, n)``.
        constraints : PairwiseConstraints, (pairs, labels) tuple, or matrix T
        """
        params = validate_params(self)
        Cs = check_grid(self.Cs, "Cs")
        # SimpleNPKL's checks of X and the constraints; the graph is built here once
        # for every fold and C
        L, pc = self._base(Cs[0])._prepare(X, constraints)
        if params["n_clusters"] is None:
            self.n_clusters_ = constraint_groups(pc)
        else:
            k = params["n_clusters"]
            if k > pc.n:
                raise InvalidParameterError(
                    f"n_clusters={k} is larger than the number of points ({pc.n}); give "
                    f"the number of clusters KernelKMeans will be asked for (2 <= "
                    f"n_clusters <= {pc.n}), or None to infer it from the constraints.")
            self.n_clusters_ = k
        # one k-means seed for every fold and C: the scores differ by the kernel only
        self._kmeans_seed = int(check_random_state(self.random_state).randint(2 ** 31 - 1))
        counts = [pc.n_must_link, pc.n_cannot_link]
        folds = cv_folds(self.cv, pc.labels)
        if self.scoring == "auc" and any(
                len(np.unique(pc.labels[te])) < 2 for _, te in folds):
            raise InvalidParameterError(
                f"scoring='auc' needs must-links and cannot-links in every held-out fold; "
                f"there are {counts[0]} must-links and {counts[1]} cannot-links for "
                f"{len(folds)} folds. Give more constraints of the rarer kind, or fewer "
                "folds (cv).")
        z = params["n_std_errors"]
        ratio = float(np.mean([len(te) / max(len(tr), 1) for tr, te in folds]))
        self._search((X, L), pc, grid_walk(C=Cs), folds, refit_args=(X, pc),
                     input_warnings=INPUT_WARNINGS,
                     choose=lambda res: _choose(res, z, ratio))
        self.best_C_ = self.best_params_["C"]
        for name in ("kernel_", "eigenvalues_", "eigenvectors_", "constraints_",
                     "n_features_in_"):
            setattr(self, name, getattr(self.best_estimator_, name))
        return self

    def _walk(self, data, pc, tr, te, points):
        X, L = data
        train = PairwiseConstraints(pc.pairs[tr], pc.labels[tr], pc.n)
        if self.scoring == "agreement":
            def score(kernel, pairs, labels):
                return held_out_agreement(kernel, pairs, labels, self.n_clusters_,
                                          self._kmeans_seed)
        else:
            score = held_out_auc if self.scoring == "auc" else self.scoring
        shared = {"laplacian": L}
        out = []
        for p in points:  # C upwards, each from the previous C's multipliers
            est = self._base(**p)
            est._cv_state = shared
            est.fit(X, train)
            del est._cv_state
            out.append(float(score(est.kernel_, pc.pairs[te], pc.labels[te])))
        return out

    def fit_transform(self, X, constraints=None):
        """Fit and return the learned kernel ``kernel_``."""
        return self.fit(X, constraints).kernel_
