"""The NPK re-ranker as a scikit-learn estimator (Zhuang 2011, ch. 6).

``NPKReranker`` chains the three steps of the chapter: learn the
semantics-preserving kernel of eq. 6.2 (:func:`npk_rank`, Protocol 5), rank the
training (candidate) items by VisualRank on it (sec. 6.2), and extend the
learned kernel to unseen items by kernel warping (eq. 6.9,
:class:`proxlearn.kernel_learning.WarpedKernel`).
"""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.utils.validation import check_is_fitted

from .._validation import (
    InvalidParameterError,
    LabelError,
    _first,
    _is_missing,
    check_int,
    check_option,
    check_positive_or,
    check_similarity,
    check_test_similarity,
)
from ..base import PairwiseMixin, SampleColumnsMixin
from ..kernel_learning import WarpedKernel
from .._normalize import ScaleNormalizeMixin
from ._npk import _check_checked, _npk_rank
from ._visual_rank import visual_rank

__all__ = ["NPKReranker", "kernel_affinity", "kernel_distances", "label_kernel"]


def kernel_distances(S) -> np.ndarray:
    """Distances induced by a similarity, ``sqrt(max(S_ii + S_jj - 2 S_ij, 0))``.

    For a PSD kernel this is the feature-space distance; for an indefinite
    similarity the clip at 0 keeps them real (it only acts on pairs whose
    induced squared distance is negative).

    Parameters
    ----------
    S : array-like of shape (n, n)

    Returns
    -------
    ndarray of shape (n, n)

    Examples
    --------
    >>> import numpy as np
    >>> from proxlearn.ranking import kernel_distances
    >>> kernel_distances(np.array([[1., 0.], [0., 1.]])).round(4).tolist()
    [[0.0, 1.4142], [1.4142, 0.0]]

    See Also
    --------
    kernel_affinity : the Gaussian affinity of these distances.
    """
    S = 0.5 * (S + S.T)
    d = np.diag(S)
    return np.sqrt(np.maximum(d[:, None] + d[None, :] - 2.0 * S, 0.0))


def kernel_affinity(K, bandwidth=None) -> np.ndarray:
    """Gaussian affinity of the distances a kernel induces, ``exp(-d_ij^2 / h)``.

    ``d`` is :func:`kernel_distances` and ``h`` the median of the squared
    distances between different items unless given. It is non-negative, has
    a unit diagonal, and is invariant to ``K -> K + c 1 1^T``; this is what
    makes it the graph on which to VisualRank a kernel learned by eq. 6.2
    (see :class:`NPKReranker`, ``affinity``).

    Parameters
    ----------
    K : array-like of shape (n, n)
    bandwidth : float > 0, optional
        ``h``; default the median squared distance.

    Returns
    -------
    ndarray of shape (n, n)

    Examples
    --------
    >>> import numpy as np
    >>> from proxlearn.ranking import kernel_affinity
    >>> K = np.array([[1., 0., 0.], [0., 1., 0.5], [0., 0.5, 1.]])
    >>> kernel_affinity(K).round(4).tolist()
    [[1.0, 0.3679, 0.3679], [0.3679, 1.0, 0.6065], [0.3679, 0.6065, 1.0]]

    See Also
    --------
    kernel_distances, visual_rank, NPKReranker
    """
    D2 = kernel_distances(K) ** 2
    n = D2.shape[0]
    if bandwidth is None:
        off = D2[~np.eye(n, dtype=bool)]
        bandwidth = float(np.median(off)) if off.size else 1.0
        if not bandwidth > 0:
            bandwidth = float(off.max()) if off.size and off.max() > 0 else 1.0
    elif not (np.isfinite(bandwidth) and bandwidth > 0):
        raise InvalidParameterError(f"bandwidth must be a positive number, got {bandwidth!r}.")
    return np.exp(-D2 / bandwidth)


def label_kernel(y) -> np.ndarray:
    """The equality kernel ``[y_i == y_j]`` of one categorical tag per item (PSD).

    A missing tag (``None`` or NaN) raises :class:`~proxlearn.exceptions.LabelError`:
    it is not equal to itself (NaN) or would make every untagged item share one tag
    (``None``). For items without a tag, pass an ``(n, n)`` text kernel whose rows of
    those items are zero.

    Parameters
    ----------
    y : array-like of shape (n,)
        One tag per item.

    Returns
    -------
    ndarray of shape (n, n)
        1.0 where the tags are equal, else 0.0.

    Examples
    --------
    >>> from proxlearn.ranking import label_kernel
    >>> label_kernel(["a", "b", "a"]).tolist()
    [[1.0, 0.0, 1.0], [0.0, 1.0, 0.0], [1.0, 0.0, 1.0]]

    See Also
    --------
    NPKReranker : takes tags or a text kernel as ``y``.
    """
    y = np.asarray(y)
    if y.ndim != 1:
        raise LabelError(f"label_kernel takes one tag per item (a 1-D array), got shape {y.shape}.")
    missing = [i for i, v in enumerate(y.tolist()) if _is_missing(v)]
    if missing:
        raise LabelError(
            f"{len(missing)} item(s) have no tag (None or NaN), first at positions "
            f"{_first(missing)}; give every item a tag, or pass an (n, n) text kernel with "
            "zero rows for the untagged items.")
    return (y[:, None] == y[None, :]).astype(np.float64)


class NPKReranker(ScaleNormalizeMixin, PairwiseMixin, SampleColumnsMixin, TransformerMixin,
                  BaseEstimator):
    """Re-rank items by VisualRank on a kernel learned to agree with their tags.

    Zhuang 2011, ch. 6: eq. 6.2 by Protocol 5 (see :func:`npk_rank` for the
    errata followed: the sign of ``A`` from Protocol 5 step 3, the
    ``max(0, .)`` of the alpha-step), VisualRank (sec. 6.2) and kernel warping
    (eq. 6.9) for unseen items.

    ``fit(S, y)`` takes the visual similarity ``S`` (n x n) of the candidate
    items and their text side ``y``: an ``(n, n)`` text kernel (for example
    the linear kernel of normalised tf-idf tag vectors, as in the thesis) or
    one categorical tag per item (``(n,)``, turned into the equality kernel
    :func:`label_kernel`). It is passed as ``y`` so that scikit-learn's tools
    pass it through; cross-validation slices a 1-D ``y`` with the items but
    only the rows of a 2-D one, so use tags there. The visual distances of the constraints are those
    induced by ``S`` (:func:`kernel_distances`).

    Parameters
    ----------
    n_neighbors : int, default=5
        Visual neighbours kept close (the pair set ``N`` of eq. 6.2).
    C : float, default=1.0
        Weight of the squared slacks of the distance constraints.
    B : float, optional
        Bound on ``tr(K K)``; ``n`` by default.
    mutual : bool, default=False
        Keep a pair only if each is among the other's neighbours.
    n_components : int, optional
        Low-rank form of sec. 6.3.4 (``K = V P V^T``, Laplacian eigenvectors).
    damping : float in [0, 1), default=0.85
        VisualRank's damping factor (the thesis gives none; 0.85 is PageRank's).
    affinity : {"distance", "clip"}, default="distance"
        The graph VisualRank walks on. The kernel of eq. 6.2 has zero row
        sums (``K 1 = 0`` exactly: ``H`` and every ``A^ij`` annihilate ``1``,
        and eq. 6.2 is blind to ``K + c 1 1^T`` except through its capacity
        bound), while VisualRank on a symmetric graph is close to degree
        centrality. ``"distance"`` walks on :func:`kernel_affinity` (Gaussian
        of the learned kernel's distances, invariant to that constant);
        ``"clip"`` on ``max(K, 0)``, the literal reading of the thesis, which
        then ranks items by the positive mass of their rows (it favoured
        extreme items on the digits demonstration, docs/demonstrations.md).
        The thesis is silent on how negative entries were handled.
    ratio : float > 0, default=1.0
        ``gamma_I / gamma_A`` of the warping; 1 is eq. 6.9.
    tol : float, default=1e-6
        Relative duality gap at which Protocol 5 stops.
    max_iter : int, default=500
    normalize : bool, default=True
        Divide ``S`` and the test rows by ``scale_ = tr S / n``
        (:mod:`proxlearn._normalize`), so that a positive factor on the
        visual similarities changes neither the learned kernel nor the order
        (eq. 6.2's ``C`` and ``B`` are absolute); 1 on a unit-diagonal ``S``,
        as the thesis's Gaussian kernels. ``False`` uses ``S`` as given.

    Attributes
    ----------
    kernel_ : ndarray of shape (n, n)
        The learned NPK kernel (PSD, ``tr(K K) <= B``).
    scores_ : ndarray of shape (n,)
        VisualRank scores of the training items on the ``affinity`` graph of
        ``kernel_`` (sum to 1).
    ranking_ : ndarray of shape (n,)
        Training items, best first (``argsort(-scores_)``, stable).
    n_iter_ : int
        Protocol 5 iterations.
    result_ : NPKRankResult
        Duals, pairs, certified gap and history of Protocol 5.
    warping_ : WarpedKernel
        The visual kernel warped by ``kernel_``'s graph, for unseen items.
    warped_scores_ : ndarray of shape (n,)
        VisualRank scores on the warped training Gram matrix, the reference
        against which :meth:`score_samples` scores new items.
    n_features_in_ : int
    scale_ : float
        The factor ``S`` was divided by (1.0 with ``normalize=False``).

    Examples
    --------
    >>> import numpy as np
    >>> from proxlearn.ranking import NPKReranker
    >>> X = np.random.RandomState(0).randn(20, 3)
    >>> reranker = NPKReranker(n_neighbors=3).fit(X @ X.T, np.repeat([0, 1], 10))
    >>> reranker.scores_.shape, round(float(reranker.scores_.sum()), 6)
    ((20,), 1.0)

    See Also
    --------
    npk_rank : the kernel it learns.
    visual_rank : the ranking of a kernel.
    proxlearn.cluster.SimpleNPKL : the same dual ascent on pairwise constraints.
    """

    def __init__(self, n_neighbors=5, *, C=1.0, B=None, mutual=False, n_components=None,
                 damping=0.85, affinity="distance", ratio=1.0, tol=1e-6, max_iter=500,
                 normalize=True):
        self.n_neighbors = n_neighbors
        self.C = C
        self.B = B
        self.mutual = mutual
        self.n_components = n_components
        self.damping = damping
        self.affinity = affinity
        self.ratio = ratio
        self.tol = tol
        self.max_iter = max_iter
        self.normalize = normalize

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.required = True
        return tags

    def _text_kernel(self, y, n):
        if y is None:
            raise LabelError(
                "NPKReranker requires y to be passed, but the target y is None: fit(S, y) "
                "needs the text side as y, an (n, n) text kernel or one tag per item."
            )
        T = np.asarray(y)
        if T.ndim == 1 or (T.ndim == 2 and T.shape[1] == 1 and n != 1):
            T = T.ravel()
            if T.shape[0] != n:
                raise LabelError(f"y has {T.shape[0]} tags but S has {n} items.")
            return label_kernel(T)
        if T.shape != (n, n):
            raise InvalidParameterError(
                f"y must be an ({n}, {n}) text kernel or {n} tags, got shape {T.shape}."
            )
        return check_similarity(T, name="y (text kernel)", symmetric="symmetrize",
                                dissimilarity_check=False)

    def fit(self, S, y=None):
        """Learn the kernel, rank the ``n`` items and prepare the warping.

        Parameters
        ----------
        S : array-like of shape (n, n)
            Visual similarities of the items.
        y : array-like of shape (n, n) or (n,)
            The text side: a text kernel, or one categorical tag per item.
        """
        check_option(self.affinity, "affinity", {"distance", "clip"})
        check_int(self.max_iter, "max_iter")
        check_positive_or(self.ratio, "ratio", "auto")
        self._check_normalize()
        S = check_similarity(S, symmetric="symmetrize")
        n = S.shape[0]
        if n < 2:
            raise InvalidParameterError(
                f"NPKReranker needs at least 2 items to rank, got n_samples = {n}."
            )
        S = self._fit_scale(S)
        Kt = self._text_kernel(y, n)
        checked = _check_checked(Kt, kernel_distances(S), self.n_neighbors, self.C, self.B)
        self.result_ = _npk_rank(*checked, self.mutual, self.n_components, self.tol,
                                 self.max_iter)
        self.kernel_ = self.result_.kernel
        graph = kernel_affinity(self.kernel_) if self.affinity == "distance" else self.kernel_
        self.scores_ = visual_rank(graph, self.damping)
        self.ranking_ = np.argsort(-self.scores_, kind="stable")
        self.n_iter_ = self.result_.n_iter
        self.warping_ = WarpedKernel(self.kernel_, ratio=self.ratio)._fit_checked(S)
        self.warped_scores_ = visual_rank(self.warping_.kernel_, self.damping)
        self._in_weights = np.maximum(self.warping_.kernel_, 0.0).sum(axis=0)
        self.n_features_in_ = n
        return self

    def transform(self, S_test):
        """Warped visual kernel between new items and the training items, ``(m, n)``.

        Training rows map to the warped Gram matrix (``fit_transform``).
        """
        check_is_fitted(self, "kernel_")
        rows = check_test_similarity(S_test, self.n_features_in_)  # once for the chain
        return self.warping_._warp(self._scale_test(rows, checked=True))

    def fit_transform(self, S, y=None):
        """Fit and return the warped training Gram matrix (``transform(S)``)."""
        return self.fit(S, y).warping_.kernel_.copy()

    def score_samples(self, S_test):
        """Relevance of new items: one step of the damped walk into them.

        ``s(x) = d * sum_j max(k~(x, j), 0) / w_j * v_j + (1 - d) / n`` with
        ``k~`` the warped kernel (:meth:`transform`), ``v = warped_scores_``
        (VisualRank on the warped training Gram matrix) and ``w_j`` the column
        sums of its non-negative part. It is the VisualRank fixed-point
        equation with a training row replaced by the new item's row, so on the
        training items it returns ``warped_scores_`` exactly, and new items
        are comparable with them. (``scores_`` ranks the candidates on the
        learned kernel itself, as in the thesis; the warped kernel is a
        different kernel, so the two orders need not agree.)
        """
        return self._in_flow(self.transform(S_test))

    def _in_flow(self, K_rows):
        # VisualRank's transition: columns of max(K, 0) normalised to one, an
        # all-zero (dangling) column spread uniformly (visual_rank's rule)
        n = self.n_features_in_
        dangling = self._in_weights <= 0
        w = np.where(dangling, 1.0, self._in_weights)
        v = self.warped_scores_
        flow = (np.maximum(K_rows, 0.0) / w) @ np.where(dangling, 0.0, v)
        flow += v[dangling].sum() / n
        return self.damping * flow + (1.0 - self.damping) / n
