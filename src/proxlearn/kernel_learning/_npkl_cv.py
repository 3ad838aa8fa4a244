"""SimpleNPKL with ``C`` chosen by cross-validation over the constraints (issue 40, item 4).

SimpleNPKL learns a kernel over the points it is given from must-link / cannot-link
pairs; there are no labels to predict. What can be held out honestly are the
constraints: the folds split the *pairs* (stratified by must / cannot), the kernel
is learned over all the points from the training pairs, and the score asks whether
the held-out pairs are where the kernel puts them. The default score is the ROC AUC
of the held-out pairs ranked by their kernel cosine ``K_ij / sqrt(K_ii K_jj)``
(must-links should be more similar than cannot-links): threshold-free and
independent of the number of clusters (which SimpleNPKL does not know). Of the
three criteria tried (this one, the AUC of the kernel distance
``K_ii + K_jj - 2 K_ij``, and the fraction of held-out pairs a kernel k-means
clustering satisfies), it agreed best with the Rand index of the clustering
(docs/methods.md, "Cross-validated variants"); none beat ``C = 1`` there. A callable
``scoring(kernel, pairs, labels) -> float`` replaces it.

Shared along the walk (exactly, answers unchanged): the kNN graph Laplacian, built
once for every fold and ``C`` (the points do not change between folds); and the
dual multipliers of the previous ``C`` as the start of the next (``C`` walked
upwards): the dual ascent stops on the same certified duality gap from any start.
"""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator

from .._constraints import PairwiseConstraints
from .._cv import INPUT_WARNINGS, GridCVMixin, check_grid, cv_folds, grid_walk
from ..exceptions import InvalidParameterError
from ._npkl import SimpleNPKL

__all__ = ["SimpleNPKLCV", "NPKL_CS", "held_out_auc"]

#: Default grid (the thesis's ``C = 1`` in the middle).
NPKL_CS = (0.1, 0.3, 1.0, 3.0)


def held_out_auc(kernel, pairs, labels):
    """ROC AUC of must-links (``+1``) against cannot-links (``-1``) ranked by the
    kernel cosine ``K_ij / sqrt(K_ii K_jj)`` (0 where a diagonal entry is 0); 0.5 is
    chance, 1 every pair right."""
    from sklearn.metrics import roc_auc_score

    i, j = pairs[:, 0], pairs[:, 1]
    d = np.sqrt(np.maximum(np.diag(kernel), 0.0))
    den = d[i] * d[j]
    cos = np.divide(kernel[i, j], den, out=np.zeros(len(i)), where=den > 0)
    return float(roc_auc_score(labels > 0, cos))


class SimpleNPKLCV(GridCVMixin, BaseEstimator):
    """:class:`SimpleNPKL` with ``C`` chosen by cross-validation over the constraints.

    The folds split the constraint pairs (stratified by must / cannot-link); each
    ``C`` learns the kernel over all the points from the training pairs and is scored
    on the held-out pairs (module docstring); the best mean score (the smallest
    ``C`` among ties) is refitted with every constraint.

    Parameters
    ----------
    Cs : sequence of float, default=(0.1, 0.3, 1, 3)
        Around the default ``C = 1`` (beyond it the panel's Rand indices collapse).
    cv : int or cross-validation splitter, default=5
        Splits the constraints (an int: stratified folds by constraint label).
    scoring : "auc" or callable, default="auc"
        ``"auc"``: :func:`held_out_auc`; a callable ``(kernel, pairs, labels) ->
        float`` (higher is better) over the held-out pairs.
    n_jobs : int or None, default=None
        Folds in parallel (joblib).
    loss, B, n_neighbors, metric, laplacian, max_iter, tol : as :class:`SimpleNPKL`.

    Attributes
    ----------
    best_params_ : dict
        ``{"C": best_C_}``; also ``best_C_``.
    best_score_, best_index_, cv_results_, n_splits_ : as ``GridSearchCV``'s.
    best_estimator_ : SimpleNPKL
        Refitted with all the constraints at ``best_C_``.
    kernel_, eigenvalues_, eigenvectors_, constraints_, n_features_in_ : those of
        ``best_estimator_``.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from proxlearn.cluster import make_pairwise_constraints
    >>> from proxlearn.kernel_learning import SimpleNPKLCV
    >>> X, y = load_iris(return_X_y=True)
    >>> pc = make_pairwise_constraints(y, r=0.7, random_state=0)
    >>> est = SimpleNPKLCV(Cs=[0.1, 1.0], cv=3).fit(X, pc)
    >>> est.kernel_.shape, est.best_C_ in (0.1, 1.0)
    ((150, 150), True)

    See Also
    --------
    SimpleNPKL, proxlearn.cluster.KernelKMeans
    """

    def __init__(self, Cs=NPKL_CS, *, cv=5, scoring="auc", n_jobs=None, loss="square-hinge",
                 B=1.0, n_neighbors=5, metric="euclidean", laplacian="unnormalized",
                 max_iter=200, tol=1e-4):
        self.Cs = Cs
        self.cv = cv
        self.scoring = scoring
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
        Cs = check_grid(self.Cs, "Cs")
        if not (self.scoring == "auc" or callable(self.scoring)):
            raise InvalidParameterError(
                f"scoring must be 'auc' or a callable (kernel, pairs, labels) -> float, "
                f"got {self.scoring!r}.")
        # SimpleNPKL's checks of X, the constraints and the graph options; the graph
        # is built here once for every fold and C
        L, pc = self._base(Cs[0])._prepare(X, constraints)
        counts = [pc.n_must_link, pc.n_cannot_link]
        folds = cv_folds(self.cv, pc.labels)
        if self.scoring == "auc" and any(
                len(np.unique(pc.labels[te])) < 2 for _, te in folds):
            raise InvalidParameterError(
                f"scoring='auc' needs must-links and cannot-links in every held-out fold; "
                f"there are {counts[0]} must-links and {counts[1]} cannot-links for "
                f"{len(folds)} folds. Give more constraints of the rarer kind, or fewer "
                "folds (cv).")
        self._search((X, L), pc, grid_walk(C=Cs), folds, refit_args=(X, pc),
                     input_warnings=INPUT_WARNINGS)
        self.best_C_ = self.best_params_["C"]
        for name in ("kernel_", "eigenvalues_", "eigenvectors_", "constraints_",
                     "n_features_in_"):
            setattr(self, name, getattr(self.best_estimator_, name))
        return self

    def _walk(self, data, pc, tr, te, points):
        X, L = data
        train = PairwiseConstraints(pc.pairs[tr], pc.labels[tr], pc.n)
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
