"""Kernel warping: a transductively learned kernel extended to unseen points.

==================  ==============================================================
estimator           kernel
==================  ==============================================================
``WarpedKernel``    ``k~(x, y) = k(x, y) - kappa_y^T (I + r L K)^{-1} r L kappa_x``
==================  ==============================================================

References
----------
V. Sindhwani, P. Niyogi and M. Belkin. Beyond the point cloud: from
transductive to semi-supervised learning. ICML 2005 (the deformed RKHS
``<f, g>~ = <f, g> + f^T G g`` and its kernel). J. Zhuang, PhD thesis 2011,
section 6.3.3, eq. 6.9: the learned transductive kernel ``K^`` enters through
the graph Laplacian ``L = diag(K^ 1) - K^``, and ``k`` is a parametric base
kernel (an RBF on visual features in the thesis).

Choices: eq. 6.9 has no coefficient on ``L``; Sindhwani et al.'s
``r = gamma_I / gamma_A`` is exposed as ``ratio`` (1 reproduces eq. 6.9). The
default ``ratio="auto"`` is ours: ``r = 0.01 / (c_K c_L)`` with ``c_K = tr K / n``
and ``c_L = tr L / n`` (the mean degree), so that ``r L K`` has no units and
the warped kernel scales with ``K`` (eq. 6.9's ``r = 1`` on a dense similarity
graph makes ``r L K`` of order ``n``: the warp then keeps only the graph's
smoothest direction; docs/methods.md, "Kernel warping defaults"). A
learned kernel may have negative entries, for which ``L`` is not a graph
Laplacian; they are clipped to 0 (``max(K^, 0)``), so ``L`` is
PSD and the warped kernel ``(K^{-1} + r L)^{-1}`` is PSD whenever ``K`` is.
The inverse is never formed: ``M = (I + r L K)^{-1} r L`` is one LU solve.
"""

from __future__ import annotations

import numpy as np
import scipy.linalg
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.utils.validation import check_is_fitted

from .._graph import laplacian
from .._scale import similarity_scale
from .._validation import (
    SimilarityMatrixError,
    check_similarity,
    check_test_similarity,
    options,
    positive,
    unchecked,
    validate_params,
)
from ..base import PairwiseMixin, SampleColumnsMixin

__all__ = ["WarpedKernel", "graph_laplacian"]

#: ``r L K`` in units of ``c_K c_L`` with ``ratio="auto"`` (docs/methods.md).
AUTO_RATIO = 0.01


def graph_laplacian(W) -> np.ndarray:
    """``diag(W 1) - W`` for ``W = max((W + W^T) / 2, 0)`` (negative weights clipped).

    Parameters
    ----------
    W : ndarray of shape (n, n)
        Edge weights (a learned kernel, say); symmetrised, negatives set to 0.

    Returns
    -------
    L : ndarray of shape (n, n)
        The (unnormalised) graph Laplacian, symmetric PSD.

    Examples
    --------
    >>> import numpy as np
    >>> from proxlearn.kernel_learning import graph_laplacian
    >>> graph_laplacian(np.array([[0.0, 2.0], [2.0, 0.0]])).tolist()
    [[2.0, -2.0], [-2.0, 2.0]]

    See Also
    --------
    WarpedKernel : warps a base kernel by this Laplacian.
    proxlearn.cluster.knn_laplacian : the sparse kNN graph Laplacian of NPKL.
    """
    return laplacian(np.maximum(0.5 * (W + W.T), 0.0))


class WarpedKernel(PairwiseMixin, SampleColumnsMixin, TransformerMixin, BaseEstimator):
    """Warp a base kernel by the graph of a learned kernel (Zhuang 2011, eq. 6.9).

    ``fit(K)`` takes the base kernel's Gram matrix ``K`` on the ``n``
    training (transductive) points; ``transform(K_test)`` takes the ``(m, n)``
    base kernel values of new points to the training points and returns the
    warped test-to-train kernel ``K~_test = K_test - K_test M^T K`` with
    ``M = (I + r L K)^{-1} r L``. The training rows map to the warped Gram
    matrix ``K~ = K - K M K`` (train/test consistent).

    Parameters
    ----------
    graph_kernel : array-like of shape (n, n), optional
        The learned transductive kernel ``K^`` whose Laplacian deforms the
        base kernel. ``None`` uses the base kernel itself (manifold
        regularisation on the data's own similarity graph).
    ratio : float > 0 or "auto", default="auto"
        ``gamma_I / gamma_A`` of Sindhwani et al.; eq. 6.9 is ``ratio=1``. A
        number is used as given (in the units of ``1 / (L K)``). ``"auto"`` is
        ``AUTO_RATIO / (c_K c_L)`` with ``AUTO_RATIO = 0.01``, ``c_K = tr K /
        n`` (:func:`proxlearn._scale.similarity_scale`) and ``c_L = tr L / n``:
        unit-free, so a positive factor on ``K`` (and on the graph kernel)
        scales the warped kernel by the same factor.

    Attributes
    ----------
    ratio_ : float
        The ratio ``r`` used.
    laplacian_ : ndarray of shape (n, n)
    kernel_ : ndarray of shape (n, n)
        The warped training Gram matrix.
    n_features_in_ : int

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.datasets import make_moons
    >>> from proxlearn.kernel_learning import WarpedKernel
    >>> X, _ = make_moons(20, noise=0.05, random_state=0)
    >>> K = np.exp(-((X[:, None] - X[None]) ** 2).sum(-1))
    >>> tf = WarpedKernel().fit(K)
    >>> tf.kernel_.shape, bool(np.allclose(tf.transform(K), tf.kernel_))
    ((20, 20), True)

    See Also
    --------
    proxlearn.cluster.SimpleNPKL : learns the transductive kernel used as ``graph_kernel``.
    graph_laplacian : the Laplacian of the graph kernel.
    """

    _parameter_constraints = {
        "graph_kernel": unchecked("a matrix compared with K, checked in fit"),
        "ratio": positive() | options("auto"),
    }

    def __init__(self, graph_kernel=None, *, ratio="auto"):
        self.graph_kernel = graph_kernel
        self.ratio = ratio

    def fit(self, K, y=None):
        """Build ``M`` from the base Gram matrix ``K`` (n x n) and the graph kernel."""
        validate_params(self)
        return self._fit_checked(check_similarity(K, name="K", symmetric="symmetrize"))

    def _fit_checked(self, K):
        """:meth:`fit` on ``K``, the output of ``check_similarity(K, symmetric=
        "symmetrize")``, with ``ratio`` checked: for estimators that validated their
        training matrix themselves (:class:`proxlearn.ranking.NPKReranker`)."""
        n = K.shape[0]
        if self.graph_kernel is None:
            G = K
        else:
            G = check_similarity(self.graph_kernel, name="graph_kernel",
                                 symmetric="symmetrize", dissimilarity_check=False)
            if G.shape != K.shape:
                raise SimilarityMatrixError(
                    f"graph_kernel has shape {G.shape} but K is {K.shape}: both must be "
                    "kernels on the same n training points, in the same order."
                )
        L = graph_laplacian(G)
        if self.ratio == "auto":
            c_L = float(np.trace(L)) / n
            # an edgeless graph (L = 0) warps nothing: any r gives K~ = K
            r = AUTO_RATIO / (similarity_scale(K, name="K") * c_L) if c_L > 0 else 1.0
        else:
            r = float(self.ratio)
        self.ratio_ = r
        self._M = scipy.linalg.solve(np.eye(n) + r * L @ K, r * L)
        self._K = K
        self.laplacian_ = L
        self.kernel_ = self._warp(K)
        self.n_features_in_ = n
        return self

    def _warp(self, K_rows):
        return K_rows - (K_rows @ self._M.T) @ self._K

    def fit_transform(self, K, y=None):
        """Fit and return the warped training Gram matrix ``K - K M K``."""
        return self.fit(K).kernel_.copy()

    def transform(self, K_test):
        """Warped kernel between new points and the training points, ``(m, n)``."""
        check_is_fitted(self, "kernel_")
        return self._warp(check_test_similarity(K_test, self.n_features_in_, name="K_test"))
