"""k-means on a precomputed kernel, and constrained k-means (Zhuang 2011, ch. 3 baselines).

=====================  =========================================  ==============================
estimator              problem                                    input
=====================  =========================================  ==============================
``KernelKMeans``       ``min_z sum_i ||phi(x_i) - mu_{z_i}||^2``  kernel ``K`` (n, n);
                       (Lloyd's algorithm in feature space)       ``predict``: ``K_test`` (m, n)
``ConstrainedKMeans``  the same in Euclidean feature space,       features ``X`` (n, d) and
                       every must-link pair in one cluster,       :class:`PairwiseConstraints`
                       no cannot-link pair in one cluster
                       (COP-k-means, greedy)
=====================  =========================================  ==============================

Both need only kernel values (the distance of a point to a cluster mean, and
the cosine with the mean's direction); the formulas, and why ``predict`` needs
only the ``(m, n_train)`` test-to-train kernel, are in docs/methods.md, section
"Clustering with side information", subsection "KernelKMeans: distances and
cosines from kernel values". ``normalize="cosine"`` (the default) is spherical
kernel k-means, ``normalize=None`` Lloyd's algorithm on ``K`` as given.

References
----------
Zhuang (2011), PhD thesis, section 3.5.1: learned kernels are evaluated by
kernel k-means; the baselines are "k-means clustering using Euclidean metric"
and "ck-means: the constrained k-means clustering algorithm using Euclidean
metric and side information" (Tables 3.2 and 3.7). The thesis cites no
algorithm for ck-means; it takes the protocol of Hoi, Jin & Lyu (ICML 2007),
whose constrained k-means is Wagstaff, Cardie, Rogers & Schroedl (ICML 2001),
"Constrained k-means clustering with background knowledge" (COP-KMEANS): each
point goes to the nearest centre that violates no constraint with the points
already assigned in this pass; centres are the cluster means.
Dhillon, Guan & Kulis (KDD 2004), "Kernel k-means, spectral clustering and
normalized cuts": kernel k-means and the distance formula above.
Dhillon & Modha (Machine Learning 42, 2001), "Concept decompositions for large
sparse text data using clustering": spherical k-means (unit vectors, the
normalised cluster means as "concept vectors", assignment by largest cosine);
here in kernel form.
Arthur & Vassilvitskii (SODA 2007): k-means++ seeding (here with squared
feature-space distances, and the greedy variant of scikit-learn with
``2 + log(k)`` candidates per centre).

Choices where the sources are silent (ours)
-------------------------------------------
* ``normalize="cosine"`` is the default; the thesis's text says only "kernel
  k-means" (``normalize=None``). The kernels SimpleNPKL learns from few
  constraints have diagonals from 0 to about 0.2 (points far from every
  constraint sit near the origin), and Lloyd's algorithm then splits the points
  by norm. The reading and its measurements: docs/methods.md, section
  "Clustering with side information", "SimpleNPKL's kernel is clustered by
  direction".
* Points without a direction: a training point with ``K_ii <= n eps max_j K_jj``
  (zero, or negative on an indefinite input) is put at the origin of the
  normalised space (its row and column of the normalised kernel are zero). It
  does not move any centre's direction, its cosine with every centre is 0, and
  it goes to the cluster whose mean is nearest the origin (the smallest
  ``||mu_c||``). ``predict`` applies the same rule to a test row whose values
  ``|k(x, x_j)| / sqrt(K_jj)`` (lower bounds of ``||phi(x)||``) are all below
  the training threshold's square root, so ``predict(K)`` reproduces ``labels_``.
  ``inertia_`` counts it at distance 1 from its centre.
* ``tol``: the iterations stop when the assignment no longer changes, or when
  the squared movement of the centres ``sum_c ||mu_c^new - mu_c^old||^2`` is at
  most ``tol`` times the total variance of the data, ``tr(K)/n - 1'K1/n^2``
  (scikit-learn uses the mean per-feature variance). After a stop on ``tol`` a
  last assignment step makes ``labels_`` the nearest centres, so
  ``predict(K_train)`` reproduces ``labels_`` (as in scikit-learn).
* Empty clusters (kernel k-means): the points farthest from their centres are
  moved into them (scikit-learn's rule).
* COP-k-means: must-linked points are merged into "chunklets" (connected
  components of the must-link graph) that are assigned as a whole, so every
  must-link holds. Chunklets with cannot-links are assigned one at a time in
  decreasing order of their number of cannot-link neighbours (random order among
  ties; Wagstaff et al. use the data order) -- the most constrained first fails
  least often. When no cluster is free of conflicts the original algorithm
  stops with failure: ``strict=True`` does the same (a run fails; all runs
  failing raises :class:`~proxlearn.exceptions.SolverError`); the default takes
  the cluster with the fewest violated cannot-links (then the nearest), counts
  them in ``n_violations_`` and warns. Among the ``n_init`` runs the one with the
  fewest violations, then the lowest inertia, is kept.
"""

from __future__ import annotations

import warnings

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClusterMixin
from sklearn.cluster import kmeans_plusplus
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted

from .._validation import (
    InvalidParameterError,
    boolean,
    check_features,
    check_similarity,
    check_test_similarity,
    integer,
    options,
    positive,
    unchecked,
    validate_params,
)
from ..base import FeatureMixin, PairwiseMixin
from ..exceptions import SolverError
from ._constraints import PairwiseConstraints, as_pairwise_constraints

__all__ = ["ConstrainedKMeans", "KernelKMeans"]


def _check_n_clusters(c: int, n: int, what: str = "samples") -> int:
    """The validated ``n_clusters`` against the number of samples."""
    if c > n:
        raise InvalidParameterError(
            f"n_clusters={c} is larger than the number of {what} ({n}); choose "
            f"n_clusters <= {n}."
        )
    return c


# --- kernel k-means -------------------------------------------------------------------


#: The parameters both k-means share, in the order they are checked.
_KMEANS_PARAMETERS = {
    "n_clusters": integer(1),
    "n_init": integer(1),
    "max_iter": integer(1),
    "tol": positive(allow_zero=True),
}
_RANDOM_STATE = unchecked("sklearn.utils.check_random_state")


def _centres(K, labels, c):
    """Centre weights ``W`` (n, c) with ``W[i, z_i] = 1/|z_i|``, ``KW = K W`` and
    ``||mu_c||^2 = diag(W' K W)``. Empty clusters get zero weights."""
    n = K.shape[0]
    counts = np.bincount(labels, minlength=c).astype(np.float64)
    W = np.zeros((n, c))
    W[np.arange(n), labels] = 1.0 / counts[labels]
    KW = K @ W
    sqn = np.einsum("ic,ic->c", W, KW)
    return W, KW, sqn


def _relocate_empty(labels, dist_own, c):
    """Move the points farthest from their centres into empty clusters."""
    counts = np.bincount(labels, minlength=c)
    empty = np.flatnonzero(counts == 0)
    if empty.size == 0:
        return labels
    labels = labels.copy()
    order = np.argsort(-dist_own, kind="stable")
    pos = 0
    for e in empty:  # a loop over empty clusters; the pointer skips few points
        while counts[labels[order[pos]]] <= 1:
            pos += 1
        i = order[pos]
        counts[labels[i]] -= 1
        labels[i] = e
        counts[e] = 1
        pos += 1
    return labels


def _kmeanspp(K, diag, c, rng):
    """Greedy k-means++ seeding with squared feature-space distances; returns
    the indices of ``c`` seed points."""
    n = K.shape[0]
    n_trials = 2 + int(np.log(c))
    seeds = np.empty(c, dtype=np.intp)
    seeds[0] = rng.randint(n)
    closest = np.maximum(diag + diag[seeds[0]] - 2.0 * K[:, seeds[0]], 0.0)
    for k in range(1, c):
        pot = closest.sum()
        if pot <= 0.0:  # every point coincides with a seed: draw among the others
            rest = np.setdiff1d(np.arange(n), seeds[:k])
            seeds[k] = rest[rng.randint(rest.size)]
        else:
            cand = np.searchsorted(np.cumsum(closest), rng.uniform(size=n_trials) * pot)
            cand = np.minimum(cand, n - 1)
            d = np.maximum(diag[None, :] + diag[cand][:, None] - 2.0 * K[cand], 0.0)
            d = np.minimum(closest[None, :], d)
            best = int(np.argmin(d.sum(axis=1)))
            seeds[k] = cand[best]
        closest = np.minimum(closest, np.maximum(diag + diag[seeds[k]] - 2.0 * K[:, seeds[k]], 0.0))
    return seeds


def _kernel_kmeans_single(K, diag, c, max_iter, tol_abs, rng):
    """One run of Lloyd's algorithm in feature space. Returns
    ``(labels, W, sqn, inertia, n_iter, converged)``; ``W``, ``sqn`` define the
    centres, and ``labels`` are the nearest centres."""
    seeds = _kmeanspp(K, diag, c, rng)
    D = diag[seeds][None, :] - 2.0 * K[:, seeds]
    labels = np.argmin(D, axis=1)
    labels = _relocate_empty(labels, D[np.arange(len(labels)), labels] + diag, c)
    W, KW, sqn = _centres(K, labels, c)
    converged = False
    n_iter = 0
    for n_iter in range(1, max_iter + 1):
        D = sqn[None, :] - 2.0 * KW
        new = np.argmin(D, axis=1)
        if np.array_equal(new, labels):
            converged = True
            break
        new = _relocate_empty(new, D[np.arange(len(new)), new] + diag, c)
        W2, KW2, sqn2 = _centres(K, new, c)
        shift = float(np.sum(sqn2 + sqn - 2.0 * np.einsum("ic,ic->c", W, KW2)))
        labels, W, KW, sqn = new, W2, KW2, sqn2
        if shift <= tol_abs:
            converged = True
            break
    D = sqn[None, :] - 2.0 * KW  # final assignment to the returned centres
    labels = np.argmin(D, axis=1)
    inertia = float(np.sum(diag + D[np.arange(len(labels)), labels]))
    return labels, W, sqn, inertia, n_iter, converged


def _cosine_scores(KW, sqn):
    """Cosines (up to each row's positive factor) ``<x, mu_c> / ||mu_c||``; a
    centre of zero norm has no direction and scores 0."""
    norms = np.sqrt(np.maximum(sqn, 0.0))
    return KW / np.where(norms > 0.0, norms, np.inf)[None, :]


def _spherical_assign(KW, sqn, directionless):
    """Largest cosine; rows in ``directionless`` go to the mean nearest the origin."""
    labels = np.argmax(_cosine_scores(KW, sqn), axis=1)
    labels[directionless] = np.argmin(sqn)
    return labels


def _spherical_kmeans_single(Kn, diag, zero, c, max_iter, tol_abs, rng):
    """One run of spherical k-means on the normalised kernel ``Kn`` (unit diagonal,
    zero rows at ``zero``). Returns what :func:`_kernel_kmeans_single` returns;
    ``inertia = sum_i ||x_i - u_{z_i}||^2`` with the unit centres ``u_c``."""
    n = Kn.shape[0]
    seeds = _kmeanspp(Kn, diag, c, rng)
    labels = np.argmax(Kn[:, seeds], axis=1)
    labels = _relocate_empty(labels, 1.0 - Kn[np.arange(n), seeds[labels]], c)
    W, KW, sqn = _centres(Kn, labels, c)
    converged = False
    n_iter = 0
    for n_iter in range(1, max_iter + 1):
        new = _spherical_assign(KW, sqn, zero)
        if np.array_equal(new, labels):
            converged = True
            break
        own = _cosine_scores(KW, sqn)[np.arange(n), new]
        new = _relocate_empty(new, 1.0 - own, c)
        W2, KW2, sqn2 = _centres(Kn, new, c)
        # squared movement of the unit centres: sum_c 2 - 2 cos(u_c, u_c')
        cross = np.einsum("ic,ic->c", W, KW2)
        denom = np.sqrt(np.maximum(sqn * sqn2, 0.0))
        cos = np.where(denom > 0.0, cross / np.where(denom > 0.0, denom, 1.0), 1.0)
        shift = float(np.sum(2.0 - 2.0 * cos))
        labels, W, KW, sqn = new, W2, KW2, sqn2
        if shift <= tol_abs:
            converged = True
            break
    labels = _spherical_assign(KW, sqn, zero)  # final assignment to the returned centres
    own = _cosine_scores(KW, sqn)[np.arange(n), labels]
    inertia = float(np.sum(diag + 1.0 - 2.0 * own))
    return labels, W, sqn, inertia, n_iter, converged


#: ``normalize`` of KernelKMeans (``False`` reads as ``None``).
_NORMALIZE_OPTION = (
    options("cosine", what="'cosine' (cluster by direction: spherical kernel k-means)")
    | options(None, False, what="None (Lloyd's kernel k-means on K as given)"))


def _cosine_normalize(K):
    """``K_ij / sqrt(K_ii K_jj)`` with directionless points (``K_ii <= n eps
    max K_jj``) at the origin. Returns the normalised kernel, ``1 / sqrt(K_ii)``
    (0 for the directionless points), their mask and the threshold's square root."""
    d = np.diag(K)
    floor = max(float(d.max()), 0.0) * K.shape[0] * np.finfo(np.float64).eps
    zero = d <= floor
    inv = np.zeros_like(d)
    inv[~zero] = 1.0 / np.sqrt(d[~zero])
    Kn = K * inv[:, None] * inv[None, :]
    Kn[np.diag_indices_from(Kn)] = np.where(zero, 0.0, 1.0)
    return Kn, inv, zero, np.sqrt(floor)


class KernelKMeans(PairwiseMixin, ClusterMixin, BaseEstimator):
    """k-means in the feature space of a precomputed kernel: spherical (by direction,
    the default) or Lloyd's algorithm.

    Parameters
    ----------
    n_clusters : int, default=2
    normalize : {"cosine", None}, default="cosine"
        ``"cosine"``: spherical kernel k-means (Dhillon & Modha 2001) on the
        cosine-normalised kernel ``K_ij / sqrt(K_ii K_jj)``: points are clustered
        by direction, their norms in the feature space are ignored; the identity
        on a kernel with unit diagonal apart from the centres' normalisation.
        ``None``: Lloyd's algorithm on ``K`` as given (the thesis's "kernel
        k-means"; the norms count). Ours: the default because kernels learned
        from few constraints (:class:`SimpleNPKL`)
        have norms that say how near a point is to a constraint, not to which
        cluster it belongs; see the module docstring. ``False`` is read as ``None``.
    n_init : int, default=10
        Runs from different k-means++ seeds; the one with the lowest inertia is kept.
    max_iter : int, default=300
        Lloyd iterations per run.
    tol : float, default=1e-6
        Stop when the squared centre movement is at most ``tol`` times the
        total variance ``tr(K)/n - 1'K1/n^2`` (or when no label changes). Ours:
        the thesis gives no stopping rule.
    random_state : int, RandomState or None
        Seeds the k-means++ initialisations.

    Attributes
    ----------
    labels_ : ndarray of shape (n,), int
    inertia_ : float
        ``sum_i ||phi(x_i) - mu_{labels_i}||^2``; with ``normalize="cosine"`` the
        same for the unit vectors ``phi(x_i) / ||phi(x_i)||`` and unit centres.
    n_iter_ : int
        Iterations of the kept run.
    n_features_in_ : int
        Number of training samples (columns a test kernel must have).

    Notes
    -----
    ``K`` must be a kernel (positive semidefinite) for the distances to be
    squared Euclidean distances; an asymmetric ``K`` is replaced by its symmetric
    part. On an indefinite similarity the iteration still runs but need not
    converge; make it PSD first (for example with
    :class:`proxlearn.transforms.SpectrumTransformer`). A non-converged kept run
    warns with ``ConvergenceWarning``.

    Cost per iteration ``O(n^2 k)`` (one product ``K W``); memory ``O(n k)``
    besides ``K`` (and one normalised copy of ``K`` with ``normalize="cosine"``).
    Multiplying ``K`` by a positive constant changes no label.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from sklearn.metrics.pairwise import rbf_kernel
    >>> from proxlearn.cluster import KernelKMeans, rand_index
    >>> X, y = load_iris(return_X_y=True)
    >>> km = KernelKMeans(3, random_state=0).fit(rbf_kernel(X, gamma=0.5))
    >>> km.labels_.shape, rand_index(y, km.labels_) > 80
    ((150,), True)

    See Also
    --------
    ConstrainedKMeans : k-means on features under pairwise constraints.
    SimpleNPKL : learns the kernel this clusters.
    sklearn.cluster.KMeans : k-means on features.
    """

    _parameter_constraints = {
        **_KMEANS_PARAMETERS,
        "normalize": _NORMALIZE_OPTION,
        "random_state": _RANDOM_STATE,
    }

    def __init__(self, n_clusters=2, *, normalize="cosine", n_init=10, max_iter=300, tol=1e-6,
                 random_state=None):
        self.n_clusters = n_clusters
        self.normalize = normalize
        self.n_init = n_init
        self.max_iter = max_iter
        self.tol = tol
        self.random_state = random_state

    def fit(self, K, y=None):
        """Cluster the ``n`` training samples of the ``(n, n)`` kernel ``K``. ``y`` is ignored."""
        K = check_similarity(K, name="K", symmetric="symmetrize")
        n = K.shape[0]
        params = validate_params(self)
        c = _check_n_clusters(params["n_clusters"], n)
        n_init, max_iter, tol = params["n_init"], params["max_iter"], params["tol"]
        normalize = params["normalize"] or None  # False: None
        rng = check_random_state(self.random_state)
        if normalize == "cosine":
            K, inv_norms, zero, zero_norm = _cosine_normalize(K)

            def single(K, diag, c, max_iter, tol_abs, rng):
                return _spherical_kmeans_single(K, diag, zero, c, max_iter, tol_abs, rng)
        else:
            inv_norms = zero_norm = None
            single = _kernel_kmeans_single
        diag = np.diag(K).copy()
        total_var = max(float(diag.mean() - K.mean()), 0.0)
        best = None
        for seed in rng.randint(np.iinfo(np.int32).max, size=n_init):
            run = single(K, diag, c, max_iter, tol * total_var, np.random.RandomState(seed))
            if best is None or run[3] < best[3]:
                best = run
        labels, W, sqn, inertia, n_iter, converged = best
        if not converged:
            warnings.warn(
                f"KernelKMeans did not converge in max_iter={max_iter} iterations; increase "
                "max_iter, or check that K is positive semidefinite (Lloyd's algorithm "
                "need not converge on an indefinite similarity).",
                ConvergenceWarning, stacklevel=2)
        self.labels_ = labels.astype(np.intp)
        self.inertia_ = inertia
        self.n_iter_ = int(n_iter)
        self._weights = W
        self._centre_sq_norms = sqn
        self._inv_norms = inv_norms
        self._zero_norm = zero_norm
        self.n_features_in_ = n
        return self

    def _distances(self, K_test):
        """``||phi(x) - mu_c||^2 - k(x, x)`` for each test row and centre."""
        return self._centre_sq_norms[None, :] - 2.0 * (K_test @ self._weights)

    def predict(self, K_test):
        """Nearest cluster centre for each row of the ``(m, n_train)`` test kernel
        (with ``normalize="cosine"``: the centre of largest cosine)."""
        check_is_fitted(self, "labels_")
        K_test = check_test_similarity(K_test, self.n_features_in_, name="K_test")
        if self._inv_norms is None:
            return np.argmin(self._distances(K_test), axis=1).astype(np.intp)
        Kn = K_test * self._inv_norms[None, :]  # <phi(x), phi(x_j) / ||phi(x_j)||>
        # |Kn_xj| <= ||phi(x)||: rows below the training threshold have no direction
        directionless = np.max(np.abs(Kn), axis=1, initial=0.0) <= self._zero_norm
        KW = Kn @ self._weights
        return _spherical_assign(KW, self._centre_sq_norms, directionless).astype(np.intp)


# --- constrained k-means (COP-k-means) ---------------------------------------------------


class ConstrainedKMeans(FeatureMixin, ClusterMixin, BaseEstimator):
    """Constrained k-means (COP-k-means, Wagstaff et al. 2001): the thesis's ck-means.

    Euclidean k-means on feature vectors in which every must-link pair shares a
    cluster and, as far as the greedy assignment can, no cannot-link pair does.
    The baseline "ck-means" of Zhuang (2011), Tables 3.2 and 3.7 ("constrained
    k-means using Euclidean metric and side information").

    Parameters
    ----------
    n_clusters : int, default=2
    n_init : int, default=10
        Runs from different k-means++ seeds (and tie orders); the run with the
        fewest violated cannot-links, then the lowest inertia, is kept.
    max_iter : int, default=300
    tol : float, default=1e-6
        Stop when the squared centre movement is at most ``tol`` times the total
        variance of ``X`` (or when no label changes). Ours.
    strict : bool, default=False
        ``True``: Wagstaff et al.'s rule, a pass in which some point has no
        conflict-free cluster fails the run (all runs failing raises
        :class:`~proxlearn.exceptions.SolverError`). ``False``: such a point goes
        to the cluster with the fewest violated cannot-links (then the nearest),
        and a ``UserWarning`` reports the violations.
    random_state : int, RandomState or None

    Attributes
    ----------
    labels_ : ndarray of shape (n,), int
    cluster_centers_ : ndarray of shape (n_clusters, n_features)
        Means of the clusters of ``labels_``.
    inertia_ : float
        Sum of squared distances of the samples to their cluster centres.
    n_iter_ : int
    n_violations_ : int
        Cannot-link pairs inside one cluster in ``labels_`` (must-links always hold).
    n_features_in_ : int

    Notes
    -----
    Works on features (the thesis's Euclidean baseline), not on a kernel. Must-link
    pairs are merged into chunklets (connected components of the must-link graph)
    assigned as a whole; a cannot-link inside a chunklet makes the constraints
    unsatisfiable and is refused. ``fit(X)`` without constraints is plain k-means.
    ``predict`` assigns new points to the nearest centre (they carry no constraints).

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from proxlearn.cluster import ConstrainedKMeans, make_pairwise_constraints
    >>> X, y = load_iris(return_X_y=True)
    >>> pc = make_pairwise_constraints(y, r=0.7, random_state=0)
    >>> ck = ConstrainedKMeans(3, random_state=0).fit(X, pc)
    >>> ck.cluster_centers_.shape, len(set(ck.labels_))
    ((3, 4), 3)

    See Also
    --------
    KernelKMeans : k-means on a precomputed kernel.
    make_pairwise_constraints : the thesis's constraint generator.
    rand_index : the thesis's clustering accuracy.
    """

    _parameter_constraints = {
        **_KMEANS_PARAMETERS,
        "strict": boolean(),
        "random_state": _RANDOM_STATE,
    }

    def __init__(self, n_clusters=2, *, n_init=10, max_iter=300, tol=1e-6, strict=False,
                 random_state=None):
        self.n_clusters = n_clusters
        self.n_init = n_init
        self.max_iter = max_iter
        self.tol = tol
        self.strict = strict
        self.random_state = random_state

    def fit(self, X, constraints=None):
        """Cluster the rows of ``X`` under ``constraints``.

        ``constraints``: a :class:`~proxlearn.cluster.PairwiseConstraints` over the
        ``n`` rows, a ``(pairs, labels)`` tuple, a symmetric ``n x n`` matrix ``T``
        (``+1`` must-link, ``-1`` cannot-link), or ``None`` (plain k-means).
        """
        X = check_features(X)
        n = X.shape[0]
        params = validate_params(self)
        c = _check_n_clusters(params["n_clusters"], n)
        n_init, max_iter, tol = params["n_init"], params["max_iter"], params["tol"]
        pc = as_pairwise_constraints(constraints, n)
        if pc is None:
            pc = PairwiseConstraints(np.empty((0, 2), dtype=np.intp), np.empty(0), n)
        conflicts = pc.transitive_conflicts()
        if conflicts.size:
            i, j = pc.pairs[conflicts[0]]
            raise InvalidParameterError(
                f"{conflicts.size} cannot-link constraint(s) join points that a chain of "
                f"must-links puts in one cluster (first: ({int(i)}, {int(j)})); no partition "
                "satisfies them. Remove the contradicting constraints (see "
                "PairwiseConstraints.transitive_conflicts()) or use a method that tolerates "
                "noisy side information."
            )
        g, comp = pc.connected_components("must-link")
        if g < c:
            raise InvalidParameterError(
                f"the must-link constraints join the {n} samples into {g} group(s), fewer "
                f"than n_clusters={c}; some clusters would have to stay empty. Lower "
                "n_clusters or use fewer must-links."
            )
        # chunklets: sizes and means
        A = sp.csr_matrix((np.ones(n), (comp, np.arange(n))), shape=(g, n))
        size = np.asarray(A.sum(axis=1)).ravel()
        M = (A @ X) / size[:, None]
        cl = pc.cannot_link
        ga, gb = comp[cl[:, 0]], comp[cl[:, 1]]
        G = sp.csr_matrix((np.ones(2 * ga.size), (np.r_[ga, gb], np.r_[gb, ga])), shape=(g, g))
        G.sum_duplicates()
        deg = np.diff(G.indptr)
        constrained = np.flatnonzero(deg > 0)
        total_var = float(((X - X.mean(axis=0)) ** 2).sum() / n)
        rng = check_random_state(self.random_state)
        best, best_key = None, None
        for seed in rng.randint(np.iinfo(np.int32).max, size=n_init):
            run_rng = np.random.RandomState(seed)
            centres = kmeans_plusplus(X, c, random_state=run_rng)[0]
            tie = run_rng.permutation(constrained.size)
            order = constrained[np.lexsort((tie, -deg[constrained]))]
            run = _cop_kmeans_single(M, size, G, order, centres, max_iter, tol * total_var,
                                     self.strict)
            if run is None:  # strict and infeasible
                continue
            labels_g, centres, n_iter, converged = run
            labels = labels_g[comp]
            inertia = float(((X - centres[labels]) ** 2).sum())
            n_viol = int(np.count_nonzero(labels[cl[:, 0]] == labels[cl[:, 1]]))
            key = (n_viol, inertia)
            if best is None or key < best_key:
                best, best_key = (labels, centres, n_iter, converged), key
        if best is None:
            raise SolverError(
                f"COP-k-means found no assignment that keeps every cannot-link apart in any "
                f"of the n_init={n_init} runs (strict=True, n_clusters={c}). Use more runs, "
                "strict=False (fewest violations) or fewer constraints."
            )
        labels, centres, n_iter, converged = best
        if best_key[0]:
            warnings.warn(
                f"ConstrainedKMeans could not keep {best_key[0]} of {cl.shape[0]} cannot-link "
                f"pair(s) apart with n_clusters={c} (greedy assignment; the best of "
                f"{n_init} runs). They are counted in n_violations_.",
                UserWarning, stacklevel=2)
        if not converged:
            warnings.warn(f"ConstrainedKMeans did not converge in max_iter={max_iter} "
                          "iterations; increase max_iter.", ConvergenceWarning, stacklevel=2)
        self.labels_ = labels.astype(np.intp)
        self.cluster_centers_ = centres
        self.inertia_ = best_key[1]
        self.n_iter_ = int(n_iter)
        self.n_violations_ = best_key[0]
        self.n_features_in_ = X.shape[1]
        return self

    def fit_predict(self, X, constraints=None):
        """``fit(X, constraints).labels_``."""
        return self.fit(X, constraints).labels_

    def predict(self, X):
        """Nearest cluster centre (Euclidean) for each row of ``X``."""
        check_is_fitted(self, "cluster_centers_")
        X = check_features(X, n_features=self.n_features_in_)
        C = self.cluster_centers_
        d = (C ** 2).sum(axis=1)[None, :] - 2.0 * X @ C.T
        return np.argmin(d, axis=1).astype(np.intp)


def _cop_kmeans_single(M, size, G, order, centres, max_iter, tol_abs, strict):
    """Lloyd iterations over chunklets (means ``M``, sizes ``size``) with the
    cannot-link chunklet graph ``G`` and the assignment ``order`` of the
    constrained chunklets. Returns ``(labels, centres, n_iter, converged)`` or
    ``None`` when ``strict`` and a pass fails."""
    c = centres.shape[0]
    indptr, indices = G.indptr, G.indices
    msq = (M ** 2).sum(axis=1)
    labels = None
    converged = False
    n_iter = 0
    for n_iter in range(1, max_iter + 1):
        cost = size[:, None] * np.maximum(
            msq[:, None] + (centres ** 2).sum(axis=1)[None, :] - 2.0 * M @ centres.T, 0.0)
        new = np.argmin(cost, axis=1)  # chunklets without cannot-links: free choice
        new[order] = -1
        for k in order:  # sequential: each choice depends on the earlier ones
            nb = new[indices[indptr[k]:indptr[k + 1]]]
            nb = nb[nb >= 0]
            if nb.size == 0:
                new[k] = np.argmin(cost[k])
                continue
            viol = np.bincount(nb, minlength=c)
            least = viol.min()
            if least and strict:
                return None
            new[k] = np.argmin(np.where(viol == least, cost[k], np.inf))
        sums = np.zeros_like(centres)
        np.add.at(sums, new, size[:, None] * M)
        counts = np.bincount(new, weights=size, minlength=c)
        new_centres = centres.copy()  # an empty cluster keeps its centre
        filled = counts > 0
        new_centres[filled] = sums[filled] / counts[filled, None]
        same = labels is not None and np.array_equal(new, labels)
        shift = float(((new_centres - centres) ** 2).sum())
        labels, centres = new, new_centres
        if same or shift <= tol_abs:
            converged = True
            break
    return labels, centres, n_iter, converged
