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
  sigma^2 = 20" (digest section 8 lists the exact formula as unspecified); we
  use the usual ``exp(-(sigma^2/2) L)``.

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
    InvalidParameterError,
    SimilarityMatrixError,
    check_labels,
    check_positive,
    check_positive_or,
    check_sample_weight,
    check_similarity,
    check_test_similarity,
)
from ..base import PairwiseMixin, SampleColumnsMixin
from ..svm._probability import PlattProbabilityMixin
from ..svm._kernel_svc import MAX_ITER, TransformedSVCMixin

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
        self._check_params()
        arr = check_similarity(S, symmetric="allow")
        if isinstance(S, np.ndarray) and np.may_share_memory(arr, S):
            arr = arr.copy()
        self.train_similarity_ = arr
        self.n_features_in_ = arr.shape[0]
        return self

    def _check_params(self):  # pragma: no cover - overridden
        pass

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

    Test rows: ``K_test = S_test S^T``.

    Attributes
    ----------
    train_similarity_ : ndarray of shape (n, n)
    n_features_in_ : int
    """

    def _kernel(self, X, train):
        return X @ self.train_similarity_.T


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
    """

    def __init__(self, beta="scale"):
        self.beta = beta

    def _check_params(self):
        check_positive_or(self.beta, "beta", "scale")

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
    """Diffusion kernel on the similarity graph, normalised Laplacian (Chen 2010, sec. 5.4.3).

    ``K = expm(-(sigma2 / 2) L)``, ``L = I - D^{-1/2} S D^{-1/2}``, ``S`` the
    symmetrised training similarity used as a weighted adjacency matrix
    (non-negative entries, positive degrees ``d = S 1``). Test rows by the
    Nystroem extension described in :mod:`proxlearn.kernel_learning._base_kernels`.

    Parameters
    ----------
    sigma2 : float, default=20.0
        Diffusion parameter ``sigma^2`` (> 0); thesis value 20 on Amazon-2.
    tol : float or None, default=None
        Eigenvalues of the normalised adjacency with ``|a| <= tol`` are dropped
        from test rows; ``None`` uses ``n * eps * max|a|``.

    Attributes
    ----------
    kernel_ : ndarray of shape (n, n)
    degrees_ : ndarray of shape (n,)
    n_features_in_ : int
    """

    def __init__(self, sigma2=20.0, tol=None):
        self.sigma2 = sigma2
        self.tol = tol

    def fit(self, S, y=None):
        """Eigendecompose the normalised adjacency of the training graph."""
        sigma2 = check_positive(self.sigma2, "sigma2")
        S = check_similarity(S, symmetric="symmetrize")
        if np.any(S < 0):
            raise SimilarityMatrixError(
                "The diffusion kernel needs a non-negative similarity (a weighted "
                f"adjacency matrix); S has {int(np.sum(S < 0))} negative entries. "
                "Shift or rescale S to [0, 1] first."
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
        f = np.exp(-(sigma2 / 2.0) * (1.0 - a))
        tol = (
            A.shape[0] * np.finfo(float).eps * np.max(np.abs(a))
            if self.tol is None
            else check_positive(self.tol, "tol", allow_zero=True)
        )
        keep = np.abs(a) > tol
        self.kernel_ = (V * f) @ V.T
        # test map: k(x) = (s * isd / sqrt(d_x)) @ M
        Vk = V[:, keep]
        self._M = (Vk * (f[keep] / a[keep])) @ Vk.T
        self._isd = isd
        self.degrees_ = d
        self.tol_ = tol
        self.n_features_in_ = S.shape[0]
        return self

    def fit_transform(self, S, y=None):
        """Fit and return the ``n x n`` training diffusion kernel."""
        return self.fit(S).kernel_.copy()

    def transform(self, S_test):
        """Nystroem-extended diffusion kernel rows ``(m, n)`` for test similarities."""
        check_is_fitted(self, "n_features_in_")
        X = check_test_similarity(S_test, self.n_features_in_)
        if np.any(X < 0):
            raise SimilarityMatrixError(
                "S_test has negative entries; the diffusion kernel needs "
                "non-negative similarities."
            )
        dx = X.sum(axis=1)
        if np.any(dx <= 0):
            raise SimilarityMatrixError(
                "A test row has zero total similarity to the training samples; the "
                "diffusion kernel cannot place it on the graph."
            )
        Ax = X * self._isd[None, :] / np.sqrt(dx)[:, None]
        return Ax @ self._M


_KERNEL_NAMES = {"linear": LinearSimilarityKernel, "rbf": RBFSimilarityKernel,
                 "diffusion": DiffusionKernel}


def make_base_kernel(spec):
    """Turn a kernel specification into an unfitted base-kernel transformer.

    Parameters
    ----------
    spec : str, tuple or estimator
        * ``"linear"``;
        * ``("rbf", beta)`` or ``"rbf:0.01"``;
        * ``("diffusion", sigma2)`` or ``"diffusion:20"``;
        * a transformer with ``fit_transform(S)`` (training kernel) and
          ``transform(S_test)`` (test rows), e.g. :class:`RBFSimilarityKernel`;
          it is cloned.

    Returns
    -------
    transformer
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
        return cls()
    if arg is None:
        return cls()
    return cls(beta=arg) if name == "rbf" else cls(sigma2=arg)


def base_kernel_pair(spec, S_train, S_test=None):
    """Training kernel and (optionally) consistent test rows for one base kernel.

    Returns ``(K_train, K_test)`` with ``K_test = None`` when ``S_test`` is None.
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
        ``tr S / n`` before the base kernel is built (:mod:`proxlearn.svm._normalize`),
        so that ``C`` does not depend on the units of ``S`` (the linear kernel
        ``S S^T`` scales as ``c^2``). ``False`` is the thesis's reading
        (identical for unit-diagonal ``S``).
    probability, random_state : bool, default=False; int or None, default=None
        ``predict_proba`` by Platt scaling on an internal CV, see
        :class:`~proxlearn.svm._probability.PlattProbabilityMixin`.

    Attributes
    ----------
    transformer_, svc_, classes_, n_features_in_
    scale_ : float
        The training scale divided out (``1.0`` with ``normalize=False``).
    """

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
        C = check_positive(self.C, "C")
        self._check_normalize()
        arr = check_similarity(S, symmetric="allow", dissimilarity_check=False)
        classes, y_idx = check_labels(y, arr.shape[0])
        arr = self._fit_scale(arr)
        self.transformer_ = make_base_kernel(self.kernel)
        K = self.transformer_.fit_transform(arr)
        sample_weight = check_sample_weight(sample_weight, arr.shape[0])
        self._fit_svc(SVC(kernel="precomputed", C=C, max_iter=MAX_ITER), K, classes[y_idx],
                      sample_weight)
        self.classes_ = self.svc_.classes_
        self.n_features_in_ = arr.shape[0]
        return self._fit_probability(S, y, sample_weight)
