"""Base kernels built from similarities, for SimMKL and its single-kernel baselines.

Chen (2010, thesis), section 5.4.3, fuses an indefinite similarity ``S`` with
``m`` PSD *base kernels* derived from it:

* **linear on similarity features** ``K(x_i, x_j) = s_i^T s_j``;
* **Gaussian RBF on similarity features** ``K(x_i, x_j) = exp(-beta ||s_i - s_j||^2)``
  (the thesis's parameterisation: ``beta`` multiplies the squared distance, no
  feature scaling);
* **diffusion kernel** on the weighted graph with adjacency ``S``, using the
  normalised graph Laplacian ``L = I - D^{-1/2} S D^{-1/2}`` (Kondor & Lafferty
  2002; Smola & Kondor 2003) with parameter ``sigma2``:
  ``K = expm(-(sigma2 / 2) L)``. The thesis gives only "normalised Laplacian,
  sigma^2 = 20" (the exact formula is unspecified); we use the usual
  ``exp(-(sigma^2/2) L)``.

Defaults of the transformers and the specs of :func:`make_base_kernel`
----------------------------------------------------------------------
The thesis builds its kernels on Amazon-2, whose co-purchase graph is sparse;
on the dense similarity graphs of the UW and UCI sets the literal diffusion
kernel is nearly rank one, and the trace of ``S S^T`` is dominated by the row
all samples share. :class:`DiffusionKernel` therefore defaults to a
k-nearest-neighbour (shared-neighbour) graph and a centred kernel, and
:class:`LinearSimilarityKernel` to centred feature rows; the literal kernels are
``DiffusionKernel(graph="dense", center=False)`` and
``LinearSimilarityKernel(center=False)``. The string / tuple specs of
:func:`make_base_kernel` (``"linear"``, ``("diffusion", sigma2)``) name the
thesis's kernels as written, which SimMKL, :class:`BaseKernelSVC` and the
reproduction study use (docs/methods.md, "Base kernel defaults").

Inductive convention (deviation from the thesis, documented)
-------------------------------------------------------------
The thesis builds the features ``s_j`` from the columns of ``S`` over **all**
samples of the data set (training and test, i.e. transductively). A
test-to-train matrix only holds similarities to the training samples, so here a
sample's feature vector is its row of similarities **to the training samples**:
training sample ``i`` is row ``i`` of the training ``S`` (used as given, not
symmetrised, as in :class:`proxlearn.transforms.SimilarityFeatures`) and a test
sample is its row of ``S_test``. Hence ``transform(S_train)`` equals the
training kernel row by row (train/test consistency).

Test rows of the diffusion kernel use the Nystroem extension of the eigenvectors
of the normalised adjacency ``A = D^{-1/2} S D^{-1/2} = V diag(a) V^T``:
``K = V diag(exp(-(sigma2/2)(1 - a))) V^T`` and a test point with similarity
row ``s`` and degree ``d_x = sum(s)`` gets ``v_k(x) = (s / sqrt(d_x d)) v_k / a_k``,
so ``k(x) = A_x V diag(exp(-(sigma2/2)(1 - a_k)) / a_k) V^T`` with
``A_x = s^T D^{-1/2} / sqrt(d_x)``. For a training row this reproduces the
training kernel exactly when ``A`` is nonsingular; directions with
``|a_k| <= tol`` are dropped from test rows (they cannot be extended).
"""

from __future__ import annotations

import numbers

import numpy as np
import scipy.linalg
from sklearn.base import BaseEstimator, ClassifierMixin, TransformerMixin, clone
from sklearn.metrics.pairwise import euclidean_distances
from sklearn.svm import SVC
from sklearn.utils.validation import check_is_fitted

from .._validation import (
    NORMALIZE,
    InvalidParameterError,
    SimilarityMatrixError,
    boolean,
    check_labels,
    check_sample_weight,
    check_similarity,
    check_test_similarity,
    integer,
    only_if,
    options,
    positive,
    satisfies,
    unchecked,
    validate_params,
)
from ..base import PairwiseMixin, SampleColumnsMixin
from .._graph import top_k_similar
from .._svm._platt import PlattProbabilityMixin
from .._svm._libsvm import MAX_ITER
from .._svm._transformed import TransformedSVCMixin

__all__ = [
    "BaseKernelSVC",
    "DiffusionKernel",
    "LinearSimilarityKernel",
    "RBFSimilarityKernel",
    "base_kernel_pair",
    "make_base_kernel",
]


class _SimilarityFeatureKernel(PairwiseMixin, SampleColumnsMixin, TransformerMixin, BaseEstimator):
    """Shared fit / transform for kernels between similarity feature rows."""

    def fit(self, S, y=None):
        """Store the training similarity rows (used as given).

        Parameters
        ----------
        S : array-like of shape (n, n)
            Training similarities; row ``i`` is the feature vector of sample ``i``.
        y : ignored

        Returns
        -------
        self
        """
        validate_params(self)
        arr = check_similarity(S, symmetric="allow")
        if isinstance(S, np.ndarray) and np.may_share_memory(arr, S):
            arr = arr.copy()
        self.train_similarity_ = arr
        self.n_features_in_ = arr.shape[0]
        return self

    def fit_transform(self, S, y=None):
        """Fit and return the ``n x n`` training kernel."""
        self.fit(S)
        return self._kernel(self.train_similarity_, train=True)

    def transform(self, S_test):
        """Kernel between test rows ``(m, n)`` and the training rows.

        Returns
        -------
        K_test : ndarray of shape (m, n)
            Row ``i`` holds the kernel values of test sample ``i`` with every
            training sample; a training row maps to the training kernel's row.
        """
        check_is_fitted(self, "n_features_in_")
        X = check_test_similarity(S_test, self.n_features_in_)
        return self._kernel(X, train=False)


class LinearSimilarityKernel(_SimilarityFeatureKernel):
    """Linear kernel on similarity features, ``K = S S^T`` (Chen 2010, sec. 5.4.3).

    Test rows: ``K_test = S_test S^T``; with ``center=True`` both sides use the
    centred rows ``s - m``, ``m`` the mean training row.

    Parameters
    ----------
    center : bool, default=True
        Subtract the mean training row ``m`` from every feature row (training
        and test) before the inner products: ``K = (S - 1 m^T)(S - 1 m^T)^T``.
        An SVM with a bias finds the same decision function on either kernel
        up to its regularisation, but the trace of the uncentred ``S S^T`` is
        dominated by the component all rows share, so a trace-normalised SVM
        (``SimilaritySVC()`` after this transform) works at a much smaller
        effective ``C``; centred, ``C = 1`` is in units of the spread the SVM
        separates (docs/methods.md, "Base kernel defaults"). ``False`` is the
        thesis's ``s_i^T s_j``, which the spec ``"linear"`` of
        :func:`make_base_kernel` (SimMKL, :class:`BaseKernelSVC`) keeps.

    Attributes
    ----------
    mean_ : ndarray of shape (n,)
        The mean training row subtracted (zeros with ``center=False``).
    train_similarity_ : ndarray of shape (n, n)
    n_features_in_ : int

    Examples
    --------
    >>> import numpy as np
    >>> from proxlearn.kernel_learning import LinearSimilarityKernel
    >>> S = np.array([[1.0, 0.2, 0.1], [0.2, 1.0, 0.3], [0.1, 0.3, 1.0]])
    >>> K = LinearSimilarityKernel().fit_transform(S)
    >>> bool(np.allclose(K.sum(axis=0), 0.0))
    True

    See Also
    --------
    RBFSimilarityKernel, DiffusionKernel : the other base kernels.
    make_base_kernel : base kernels from specs such as ``"linear"``.
    proxlearn.transforms.SimilarityFeatures : similarity rows as features.
    """

    def __init__(self, center=True):
        self.center = center

    _parameter_constraints = {"center": boolean()}

    def fit(self, S, y=None):
        super().fit(S, y)
        S = self.train_similarity_
        self.mean_ = S.mean(axis=0) if self.center else np.zeros(S.shape[1])
        return self

    def _kernel(self, X, train):
        if not self.center:
            return X @ self.train_similarity_.T
        return (X - self.mean_) @ (self.train_similarity_ - self.mean_).T


class RBFSimilarityKernel(_SimilarityFeatureKernel):
    """Gaussian RBF on similarity features, ``exp(-beta ||s_i - s_j||^2)``.

    Chen (2010), section 5.4.3 (``beta`` = 0.01, 0.1 on Aural Sonar; 0.1, 0.05
    on Protein-2). Squared distances are clipped at 0 and the training kernel
    has an exact unit diagonal.

    Parameters
    ----------
    beta : float or "scale", default="scale"
        Width (> 0), multiplying the squared Euclidean distance between rows.
        ``"scale"`` (ours; the thesis tunes ``beta`` per data set) is one over
        the mean squared distance between distinct training rows, like
        scikit-learn's ``gamma="scale"``: the kernel is then unchanged by a
        positive factor on ``S``. An absolute ``beta`` depends on the units of
        ``S`` (``0.1``, the former default, gives a near-diagonal kernel on
        matrices with entries in the hundreds; docs/methods.md, "Base kernel
        defaults").

    Attributes
    ----------
    beta_ : float
        The width used.
    train_similarity_ : ndarray of shape (n, n)
    n_features_in_ : int

    Examples
    --------
    >>> import numpy as np
    >>> from proxlearn.kernel_learning import RBFSimilarityKernel
    >>> S = np.array([[1.0, 0.2, 0.1], [0.2, 1.0, 0.3], [0.1, 0.3, 1.0]])
    >>> K = RBFSimilarityKernel().fit_transform(S)
    >>> np.diag(K).tolist(), round(float(K[0, 1]), 3)
    ([1.0, 1.0, 1.0], 0.366)

    See Also
    --------
    LinearSimilarityKernel, DiffusionKernel : the other base kernels.
    make_base_kernel : base kernels from specs such as ``("rbf", 0.1)``.
    """

    def __init__(self, beta="scale"):
        self.beta = beta

    _parameter_constraints = {"beta": positive() | options("scale")}

    def fit(self, S, y=None):
        super().fit(S, y)
        if self.beta == "scale":
            S = self.train_similarity_
            n = S.shape[0]
            d2 = np.maximum(euclidean_distances(S, S, squared=True), 0.0)
            mean = d2.sum() / max(n * (n - 1), 1)  # the diagonal is 0
            self.beta_ = 1.0 / mean if mean > 0 else 1.0
        else:
            self.beta_ = float(self.beta)
        return self

    def _kernel(self, X, train):
        S = self.train_similarity_
        d2 = euclidean_distances(X, S, squared=True)
        np.maximum(d2, 0.0, out=d2)
        if train:
            np.fill_diagonal(d2, 0.0)
        d2 *= -self.beta_
        return np.exp(d2, out=d2)


class DiffusionKernel(PairwiseMixin, SampleColumnsMixin, TransformerMixin, BaseEstimator):
    """Diffusion kernel on a similarity graph, normalised Laplacian (Chen 2010, sec. 5.4.3).

    ``K = expm(-(sigma2 / 2) L)``, ``L = I - D^{-1/2} A D^{-1/2}``, ``A`` the
    weighted adjacency of a graph on the training samples and ``D`` its degrees.
    Test rows by the Nystroem extension described in
    :mod:`proxlearn.kernel_learning._base_kernels`.

    The graph (``graph``):

    * ``"knn"`` (default, ours): each sample is linked to its ``n_neighbors``
      most similar training samples (itself included when it is its own most
      similar; ties: lower index), a 0/1 matrix ``W`` (rows: samples); the
      adjacency is the shared-neighbour count ``A = W W^T``. It uses only the
      order of each row of ``S``, so it accepts negative similarities and is
      unchanged by a positive factor (or a shift) of ``S``; a test sample's
      row is ``w_x W^T``. The kernel is ``expm(-(sigma2/2) L) - e^{-sigma2/2} I``:
      the constant ridge (``4.5e-5`` at ``sigma2 = 20``) is the one part a new
      sample cannot have, and without it ``A`` needs no pseudo-inverse in the
      test map, so a training row maps exactly to its row of the training kernel.
    * ``"dense"`` (the thesis's literal reading, Amazon-2 with ``sigma2 = 20``):
      ``A`` is the symmetrised ``S`` itself; it needs non-negative similarities
      and positive degrees. On the dense similarity graphs of the UW and UCI
      sets the normalised adjacency has only a handful of eigenvalues away
      from 0, so ``K`` is nearly rank one at ``sigma2 = 20`` and an SVM on it
      lost on every such set (docs/methods.md, "Base kernel defaults").

    Parameters
    ----------
    sigma2 : float, default=20.0
        Diffusion parameter ``sigma^2`` (> 0); thesis value 20 on Amazon-2.
    graph : {"knn", "dense"}, default="knn"
        The adjacency, see above.
    n_neighbors : int, default=10
        Neighbours per sample of the ``"knn"`` graph (capped at the training
        size; ignored by ``"dense"``).
    center : bool, default=True
        Centre the kernel in its feature space (training rows and test rows
        alike, ``H K H`` on the training block). The top eigenvector of the
        normalised adjacency (eigenvalue 1, ``~ D^{1/2} 1``) carries most of the
        trace of ``K``; an SVM's bias absorbs it, so without centring a
        trace-normalised SVM works at a far smaller effective ``C``.
        ``False`` is the thesis's kernel.
    tol : float or None, default=None
        Eigenvalues of the normalised adjacency with ``|a| <= tol`` are dropped
        from test rows; ``None`` uses ``n * eps * max|a|``.

    Attributes
    ----------
    kernel_ : ndarray of shape (n, n)
        The training kernel (centred with ``center=True``).
    degrees_ : ndarray of shape (n,)
    n_neighbors_ : int or None
        Neighbours used (``None`` for the dense graph).
    n_features_in_ : int

    Examples
    --------
    >>> import numpy as np
    >>> from proxlearn.kernel_learning import DiffusionKernel
    >>> rng = np.random.default_rng(0)
    >>> S = rng.normal(size=(20, 20)); S = S + S.T
    >>> tf = DiffusionKernel(n_neighbors=5).fit(S)
    >>> bool(np.allclose(tf.transform(S), tf.kernel_))
    True

    See Also
    --------
    LinearSimilarityKernel, RBFSimilarityKernel : the other base kernels.
    make_base_kernel : base kernels from specs such as ``("diffusion", 20)``.
    proxlearn.kernel_learning.graph_laplacian : a graph Laplacian of a similarity.
    """

    def __init__(self, sigma2=20.0, *, graph="knn", n_neighbors=10, center=True, tol=None):
        self.sigma2 = sigma2
        self.graph = graph
        self.n_neighbors = n_neighbors
        self.center = center
        self.tol = tol

    _parameter_constraints = {
        "sigma2": positive(),
        "graph": satisfies(lambda g: isinstance(g, str) and g in ("knn", "dense"),
                           "'knn' or 'dense'"),
        "center": boolean(),
        "n_neighbors": only_if(integer(1, what="a positive integer"), "graph", "knn"),
        "tol": options(None) | positive(allow_zero=True),
    }

    def _knn_rows(self, X):
        """0/1 rows marking each row's ``n_neighbors_`` largest entries."""
        idx, _ = top_k_similar(X, self.n_neighbors_)
        W = np.zeros(X.shape)
        np.put_along_axis(W, idx, 1.0, axis=1)
        return W

    def fit(self, S, y=None):
        """Build the graph and eigendecompose its normalised adjacency."""
        params = validate_params(self)
        sigma2 = params["sigma2"]
        S = check_similarity(S, symmetric="symmetrize")
        n = S.shape[0]
        if self.graph == "knn":
            self.n_neighbors_ = min(int(self.n_neighbors), n)
            self._W = self._knn_rows(S)
            S = self._W @ self._W.T
        else:
            self.n_neighbors_ = None
            if np.any(S < 0):
                raise SimilarityMatrixError(
                    "The dense diffusion kernel needs a non-negative similarity (a "
                    f"weighted adjacency matrix); S has {int(np.sum(S < 0))} negative "
                    "entries. Use graph='knn' (the default), or shift or rescale S to "
                    "[0, 1] first."
                )
        d = S.sum(axis=1)
        if np.any(d <= 0):
            raise SimilarityMatrixError(
                "The diffusion kernel needs every training sample to have a positive "
                f"degree (row sum of S); {int(np.sum(d <= 0))} rows sum to 0."
            )
        isd = 1.0 / np.sqrt(d)
        A = S * isd[:, None] * isd[None, :]
        a, V = scipy.linalg.eigh(A, check_finite=False)
        t = sigma2 / 2.0
        tol = (
            A.shape[0] * np.finfo(float).eps * np.max(np.abs(a))
            if self.tol is None
            else params["tol"]
        )
        # test map: k(x) = (s * isd / sqrt(d_x)) @ M
        if self.graph == "knn":
            # e^{-t} expm(t A) = e^{-t} I + A M with M = e^{-t} (expm(t A) - I) A^+,
            # analytic at a = 0 (expm1(t a) / a -> t): the kernel without the ridge
            # e^{-t} I, which a new sample cannot have; exact for training rows.
            a = np.clip(a, 0.0, None)  # A = N W W^T N is PSD; clip rounding
            small = a <= tol
            g = np.where(small, t, np.expm1(t * a) / np.where(small, 1.0, a))
            self._M = (V * (np.exp(-t) * g)) @ V.T
            K = (V * (np.exp(-t) * np.expm1(t * a))) @ V.T
        else:
            f = np.exp(-t * (1.0 - a))
            keep = np.abs(a) > tol
            K = (V * f) @ V.T
            Vk = V[:, keep]
            self._M = (Vk * (f[keep] / a[keep])) @ Vk.T
        self._isd = isd
        if self.center:
            self._col_mean = K.mean(axis=0)
            K = K - self._col_mean[None, :] - self._col_mean[:, None] + self._col_mean.mean()
        self.kernel_ = K
        self.degrees_ = d
        self.tol_ = tol
        self.n_features_in_ = n
        return self

    def fit_transform(self, S, y=None):
        """Fit and return the ``n x n`` training diffusion kernel."""
        return self.fit(S).kernel_.copy()

    def transform(self, S_test):
        """Nystroem-extended diffusion kernel rows ``(m, n)`` for test similarities."""
        check_is_fitted(self, "n_features_in_")
        X = check_test_similarity(S_test, self.n_features_in_)
        if self.graph == "knn":
            X = self._knn_rows(X) @ self._W.T
        elif np.any(X < 0):
            raise SimilarityMatrixError(
                "S_test has negative entries; the dense diffusion kernel needs "
                "non-negative similarities (graph='knn' does not)."
            )
        dx = X.sum(axis=1)
        if self.graph == "knn":
            # a sample whose neighbours are nobody's neighbours is not connected to
            # the graph: its (ridge-free) diffusion kernel row is 0
            dx = np.where(dx > 0, dx, np.inf)
        elif np.any(dx <= 0):
            raise SimilarityMatrixError(
                "A test row has zero total similarity to the training samples; the "
                "diffusion kernel cannot place it on the graph."
            )
        Ax = X * self._isd[None, :] / np.sqrt(dx)[:, None]
        Kx = Ax @ self._M
        if self.center:
            mu = self._col_mean
            Kx = Kx - mu[None, :] - Kx.mean(axis=1, keepdims=True) + mu.mean()
        return Kx


_KERNEL_NAMES = {"linear": LinearSimilarityKernel, "rbf": RBFSimilarityKernel,
                 "diffusion": DiffusionKernel}


def make_base_kernel(spec):
    """Turn a kernel specification into an unfitted base-kernel transformer.

    Parameters
    ----------
    spec : str, tuple or estimator
        * ``"linear"``: the thesis's ``s_i^T s_j``
          (``LinearSimilarityKernel(center=False)``);
        * ``("rbf", beta)`` or ``"rbf:0.01"``;
        * ``("diffusion", sigma2)`` or ``"diffusion:20"``: the thesis's kernel,
          ``DiffusionKernel(sigma2, graph="dense", center=False)``;
        * a transformer with ``fit_transform(S)`` (training kernel) and
          ``transform(S_test)`` (test rows), e.g. :class:`RBFSimilarityKernel`;
          it is cloned.

    Returns
    -------
    transformer

    Examples
    --------
    >>> from proxlearn.kernel_learning import make_base_kernel
    >>> make_base_kernel(("rbf", 0.1))
    RBFSimilarityKernel(beta=0.1)
    >>> make_base_kernel("diffusion:20")
    DiffusionKernel(center=False, graph='dense')

    See Also
    --------
    base_kernel_pair : fit one and build training and test kernels.
    SimMKL, BaseKernelSVC : the estimators that take these specs.
    """
    if hasattr(spec, "fit_transform") and hasattr(spec, "transform"):
        return clone(spec)
    name, arg = None, None
    if isinstance(spec, str):
        name, _, rest = spec.partition(":")
        if rest:
            try:
                arg = float(rest)
            except ValueError:
                raise InvalidParameterError(
                    f"cannot read the parameter of kernel spec {spec!r}; use e.g. 'rbf:0.1'."
                ) from None
    elif isinstance(spec, tuple | list) and len(spec) == 2 and isinstance(spec[0], str):
        name, arg = spec
        if isinstance(arg, bool) or not isinstance(arg, numbers.Real):
            raise InvalidParameterError(
                f"kernel spec {spec!r}: the parameter must be a number."
            )
    if name not in _KERNEL_NAMES:
        raise InvalidParameterError(
            f"unknown base kernel {spec!r}; use 'linear', ('rbf', beta), "
            "('diffusion', sigma2) or a transformer with fit_transform/transform."
        )
    cls = _KERNEL_NAMES[name]
    if name == "linear":
        if arg is not None:
            raise InvalidParameterError("the linear kernel takes no parameter.")
        return cls(center=False)  # the thesis's s_i^T s_j
    if arg is None:
        return cls(graph="dense", center=False) if name == "diffusion" else cls()
    if name == "rbf":
        return cls(beta=arg)
    # the thesis's kernel on the similarity graph itself
    return cls(sigma2=arg, graph="dense", center=False)


def base_kernel_pair(spec, S_train, S_test=None):
    """Training kernel and (optionally) consistent test rows for one base kernel.

    Parameters
    ----------
    spec : str, tuple or estimator
        See :func:`make_base_kernel`.
    S_train : array-like of shape (n, n)
        Training similarities.
    S_test : array-like of shape (m, n) or None, default=None
        Test-to-train similarities.

    Returns
    -------
    K_train : ndarray of shape (n, n)
    K_test : ndarray of shape (m, n) or None
        ``None`` when ``S_test`` is None.

    Examples
    --------
    >>> import numpy as np
    >>> from proxlearn.kernel_learning import base_kernel_pair
    >>> S = np.array([[1.0, 0.2, 0.1], [0.2, 1.0, 0.3], [0.1, 0.3, 1.0]])
    >>> K, K_test = base_kernel_pair("linear", S, S[:2])
    >>> K.shape, bool(np.allclose(K_test, K[:2]))
    ((3, 3), True)

    See Also
    --------
    make_base_kernel : the transformer built from ``spec``.
    """
    tf = make_base_kernel(spec)
    K = tf.fit_transform(S_train)
    return K, (None if S_test is None else tf.transform(S_test))


class BaseKernelSVC(PairwiseMixin, PlattProbabilityMixin, TransformedSVCMixin, ClassifierMixin, BaseEstimator):
    """C-SVM on one base kernel ("SVM w/ kernel k", Chen 2010, Table 5.5).

    Parameters
    ----------
    kernel : spec, default="linear"
        See :func:`make_base_kernel`.
    C : float, default=1.0
    normalize : bool, default=True
        Divide the training matrix and the test rows by the training scale
        ``tr S / n`` before the base kernel is built (:mod:`proxlearn._normalize`),
        so that ``C`` does not depend on the units of ``S`` (the linear kernel
        ``S S^T`` scales as ``c^2``). ``False`` is the thesis's reading
        (identical for unit-diagonal ``S``).
    probability, random_state : bool, default=False; int or None, default=None
        ``predict_proba`` by Platt scaling on an internal CV, see
        :class:`~proxlearn._svm._platt.PlattProbabilityMixin`.

    Attributes
    ----------
    transformer_, svc_, classes_, n_features_in_
    scale_ : float
        The training scale divided out (``1.0`` with ``normalize=False``).

    Examples
    --------
    >>> from proxlearn.datasets import make_noisy_blobs
    >>> from proxlearn.kernel_learning import BaseKernelSVC
    >>> S, y = make_noisy_blobs(2, 15, random_state=0)[:2]
    >>> clf = BaseKernelSVC(kernel=("rbf", 0.1)).fit(S, y)
    >>> clf.predict(S[::10]).tolist()
    [0, 0, 1]

    See Also
    --------
    make_base_kernel : the kernel specs.
    SimMKL : the base kernels combined with a modified ``S``.
    proxlearn.svm.SimilaritySVC : an SVM on ``S`` itself after a spectrum modification.
    """

    _parameter_constraints = {
        "kernel": unchecked("a base kernel spec, checked by make_base_kernel"),
        "C": positive(),
        "normalize": NORMALIZE,
        "probability": unchecked("read as a truth value, as scikit-learn's SVC"),
        "random_state": unchecked("sklearn.utils.check_random_state, in the probability CV"),
    }

    def __init__(self, kernel="linear", C=1.0, *, normalize=True, probability=False,
                 random_state=None):
        self.kernel = kernel
        self.C = C
        self.normalize = normalize
        self.probability = probability
        self.random_state = random_state

    def fit(self, S, y, sample_weight=None):
        """Build the base kernel on the training similarities and fit libsvm.

        ``sample_weight`` (n,), optional, weights each sample's hinge loss
        (libsvm rescales its ``C``).
        """
        params = validate_params(self)
        C = params["C"]
        arr = check_similarity(S, symmetric="allow", dissimilarity_check=False)
        classes, y_idx = check_labels(y, arr.shape[0])
        arr = self._fit_scale(arr, params["normalize"])
        self.transformer_ = make_base_kernel(self.kernel)
        K = self.transformer_.fit_transform(arr)
        sample_weight = check_sample_weight(sample_weight, arr.shape[0])
        self._fit_svc(SVC(kernel="precomputed", C=C, max_iter=MAX_ITER), K, classes[y_idx],
                      sample_weight)
        self.classes_ = self.svc_.classes_
        self.n_features_in_ = arr.shape[0]
        return self._fit_probability(S, y, sample_weight)
