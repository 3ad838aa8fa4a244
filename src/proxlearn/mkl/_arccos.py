"""Arc-cosine kernels and the multilayer kernel machine (MKM) on feature vectors.

==================  =========================================================
name                kernel / method
==================  =========================================================
``arccos_kernel``   ``k_n(x, y) = (1/pi) ||x||^n ||y||^n J_n(theta)``,
                    ``theta = arccos(x.y / (||x|| ||y||))``, with
                    ``J_0 = pi - theta``,
                    ``J_1 = sin theta + (pi - theta) cos theta``,
                    ``J_2 = 3 sin theta cos theta + (pi - theta)(1 + 2 cos^2 theta)``;
                    ``layers = l`` applies the formula ``l`` times, each
                    layer reading its norms and angle from the previous
                    layer's kernel values
``ArcCosineSVC``    an SVM on the ``layers``-layer arc-cosine kernel (the MKM
                    baseline of Zhuang 2011, Table 4.2)
==================  =========================================================

References
----------
Y. Cho and L. K. Saul. Kernel methods for deep learning. NIPS 2009: the
definition ``k_n(x, y) = 2 int dw N(w; 0, I) Theta(w.x) Theta(w.y) (w.x)^n
(w.y)^n``, its closed form through ``J_n`` (as above) and the multilayer
recursion ``k^(l+1)(x, y) = (1/pi) [k^(l)(x, x) k^(l)(y, y)]^(n/2)
J_n(theta^(l))``, ``cos theta^(l) = k^(l)(x, y) / sqrt(k^(l)(x, x)
k^(l)(y, y))``. J. Zhuang, PhD thesis 2011, section 4.5.1 and Table 4.2:
"MKM" is an SVM with a two-layer arc-cosine kernel whose degree
``n in {0, 1, 2}`` is chosen by cross-validation.

Conventions (the papers leave them open): ``Theta(0) = 1/2`` and, for a zero
vector, ``cos theta = 0``, which reproduce the defining integral exactly
(``k_0(0, y) = 1/2``, ``k_n(0, y) = 0`` for ``n >= 1``; no NaN, the Gram
matrix stays PSD); ``cos theta`` is clipped into ``[-1, 1]``, a Gram matrix
has its exact diagonal and is exactly symmetric; only degrees 0, 1 and 2 (the
thesis's MKM grid) are implemented. Sources and reasons: docs/methods.md,
section "Arc-cosine kernels: sources and conventions".

Input: feature vectors, checked by :func:`proxlearn._validation.check_features`
(:class:`~proxlearn.exceptions.FeatureMatrixError`), which also refuses masked
arrays and overflowing magnitudes.
"""

from __future__ import annotations

import numbers

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.svm import SVC
from sklearn.utils.validation import check_is_fitted

from .._validation import (
    FeatureMatrixError,
    InvalidParameterError,
    LabelError,
    check_features,
    check_labels,
    integer,
    positive,
    satisfies,
    unchecked,
    validate_params,
)
from ..base import FeatureMixin
from ._bank import zscore_params

__all__ = ["ArcCosineSVC", "arccos_kernel"]

#: Degrees with a closed form written out (module docstring).
DEGREES = (0, 1, 2)


# --- feature-matrix checks ----------------------------------------------------------


def _check_features(X, *, name: str = "X", n_features: int | None = None) -> np.ndarray:
    return check_features(X, name=name, n_features=n_features)


def _check_class_labels(y, n):
    """:func:`proxlearn._validation.check_labels`, refusing continuous targets."""
    classes, y_idx = check_labels(y, n, rows_of="X")
    if classes.dtype.kind == "f" and np.any(classes != np.round(classes)):
        raise LabelError(
            "Unknown label type: continuous. y holds non-integer numbers; classifiers "
            "need class labels (use integers or strings)."
        )
    return classes, y_idx


# --- the kernel ---------------------------------------------------------------------


def _J(n, theta, cos):
    """Cho & Saul's angular dependence ``J_n(theta)``, elementwise."""
    rest = np.pi - theta
    if n == 0:
        return rest
    sin = np.sin(theta)
    if n == 1:
        return sin + rest * cos
    return 3.0 * sin * cos + rest * (1.0 + 2.0 * cos * cos)


def _layer(n, kxy, kxx, kyy):
    """One arc-cosine layer on the previous layer's values.

    ``kxy`` (p, q) cross values, ``kxx`` (p,) and ``kyy`` (q,) self values.
    Returns ``(kxy', kxx', kyy')``.
    """
    denom = np.sqrt(np.outer(kxx, kyy))  # ||x|| ||y|| of this layer's feature map
    pos = denom > 0.0
    cos = np.divide(kxy, denom, out=np.zeros_like(kxy), where=pos)  # 0 for a zero vector
    np.clip(cos, -1.0, 1.0, out=cos)
    theta = np.arccos(cos)
    # denom ** 0 = 1 also for zero vectors (Theta(0) = 1/2, module docstring)
    new_xy = denom**n * _J(n, theta, cos) / np.pi
    return new_xy, _diag(n, kxx), _diag(n, kyy)


def _diag(n, kxx):
    """``k(x, x)`` of the next layer: ``theta = 0``, or ``pi/2`` for a zero vector."""
    zero = kxx <= 0.0
    cos = np.where(zero, 0.0, 1.0)
    theta = np.where(zero, np.pi / 2, 0.0)
    return kxx**n * _J(n, theta, cos) / np.pi


def _check_degree_layers(degree, layers):
    integral = isinstance(degree, numbers.Integral) and not isinstance(degree, bool)
    if not integral or degree not in DEGREES:
        raise InvalidParameterError(
            f"degree must be 0, 1 or 2 (the arc-cosine degrees implemented, those the "
            f"thesis tunes the MKM over), got {degree!r}."
        )
    if isinstance(layers, bool) or not isinstance(layers, numbers.Integral) or layers < 1:
        raise InvalidParameterError(f"layers must be an integer >= 1, got {layers!r}.")
    return int(degree), int(layers)


def arccos_kernel(X, Y=None, *, degree=1, layers=1):
    """The (multilayer) arc-cosine kernel of Cho & Saul (2009) between feature vectors.

    Parameters
    ----------
    X : array-like of shape (n_X, d)
    Y : array-like of shape (n_Y, d), default=None
        ``None`` computes the Gram matrix of ``X`` (exactly symmetric, exact
        diagonal).
    degree : {0, 1, 2}, default=1
        ``n`` of ``k_n`` (0: step, 1: ramp, 2: quarter-pies activation).
    layers : int >= 1, default=1
        Number of times the arc-cosine map is composed.

    Returns
    -------
    K : ndarray of shape (n_X, n_Y)

    Notes
    -----
    Zero vectors have ``cos theta = 0`` (see the module docstring): every value
    is finite. Values grow like ``||x||^(2 n^l)``; an overflow raises
    :class:`~proxlearn.exceptions.FeatureMatrixError` asking to rescale.

    Examples
    --------
    >>> import numpy as np
    >>> from proxlearn.mkl import arccos_kernel
    >>> x = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    >>> np.round(arccos_kernel(x, degree=0), 6).tolist()
    [[1.0, 0.5, 0.75], [0.5, 1.0, 0.75], [0.75, 0.75, 1.0]]
    >>> np.round(arccos_kernel(x)[0], 6).tolist()  # degree 1: 1/pi between orthogonal x
    [1.0, 0.31831, 1.06831]

    See Also
    --------
    ArcCosineSVC : an SVM on this kernel.
    """
    degree, layers = _check_degree_layers(degree, layers)
    X = _check_features(X, name="X")
    sym = Y is None
    if sym:
        Y = X
    else:
        Y = _check_features(Y, name="Y", n_features=X.shape[1])
    kxx = np.einsum("ij,ij->i", X, X)
    kyy = kxx if sym else np.einsum("ij,ij->i", Y, Y)
    kxy = X @ Y.T
    with np.errstate(over="ignore", invalid="ignore"):
        for _ in range(layers):
            kxy, kxx, kyy = _layer(degree, kxy, kxx, kyy)
    if sym:
        kxy = 0.5 * (kxy + kxy.T)
        np.fill_diagonal(kxy, kxx)
    if not (np.all(np.isfinite(kxy)) and np.all(np.isfinite(kxx)) and np.all(np.isfinite(kyy))):
        raise FeatureMatrixError(
            f"The arc-cosine kernel (degree={degree}, layers={layers}) overflowed: it "
            f"grows like ||x||^{2 * degree**layers}, and the largest feature norm here is "
            f"{float(np.sqrt(np.max(np.einsum('ij,ij->i', X, X)))):.3g}. Rescale the "
            "features (for example z-score them) and rescale test samples the same way."
        )
    return kxy


# --- the classifier -----------------------------------------------------------------


class ArcCosineSVC(FeatureMixin, ClassifierMixin, BaseEstimator):
    """SVM with a multilayer arc-cosine kernel on feature vectors (the MKM baseline).

    Zhuang (2011) section 4.5.1: "MKM", an SVM with the two-layer arc-cosine
    kernel of Cho & Saul (2009), degree ``n in {0, 1, 2}`` chosen by
    cross-validation (tune ``degree`` with ``GridSearchCV``). Fitted on
    features ``(n, d)``, not on a similarity matrix: the kernel is computed
    here by :func:`arccos_kernel`, then ``sklearn.svm.SVC(kernel="precomputed")``
    is trained on it (one-vs-one for several classes).

    Parameters
    ----------
    degree : {0, 1, 2}, default=1
        Arc-cosine degree ``n``. Default ours: the thesis cross-validates it.
    layers : int >= 1, default=2
        Number of layers ``l`` (the thesis: ``l = 2``).
    C : float > 0, default=1.0
        SVM regularisation. Default ours: the thesis states no grid for MKM
        (its MKL grid is ``{1e-2, ..., 1e2}``).
    standardize : bool, default=True
        z-score the features with the training mean and deviation first (the
        thesis's preprocessing, section 4.5.1). The arc-cosine kernel of degree
        ``n`` scales as ``c^(2n)`` with the features, so without it multiplying
        the features by ``c`` acts as multiplying ``C`` by ``c^(2n)``.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    X_fit_ : ndarray of shape (n_train, d)
        Training features, standardised (the kernel's second argument at prediction).
    mean_, scale_ : ndarray of shape (d,)
        The standardisation (zeros and ones without ``standardize``).
    svc_ : sklearn.svm.SVC
        The SVM on the precomputed training kernel, fitted on class indices.
    n_features_in_ : int
        ``d``.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from proxlearn.mkl import ArcCosineSVC
    >>> X, y = load_iris(return_X_y=True)
    >>> clf = ArcCosineSVC().fit(X, y)
    >>> clf.predict(X[::50]).tolist(), round(clf.score(X, y), 3)
    ([0, 1, 2], 0.987)

    See Also
    --------
    arccos_kernel : the kernel.
    TwoLayerMKL : the two-layer MKL the thesis compares it with.
    """

    _parameter_constraints = {
        "degree": satisfies(
            lambda d: isinstance(d, numbers.Integral) and not isinstance(d, bool) and d in DEGREES,
            "0, 1 or 2 (the arc-cosine degrees implemented, those the thesis tunes the MKM over)"),
        "layers": integer(1),
        "C": positive(),
        "standardize": unchecked("read as a truth value"),
    }

    def __init__(self, degree=1, layers=2, C=1.0, standardize=True):
        self.degree = degree
        self.layers = layers
        self.C = C
        self.standardize = standardize

    def fit(self, X, y):
        """Fit the SVM on the arc-cosine kernel of the training features.

        Parameters
        ----------
        X : array-like of shape (n, d)
            Feature vectors (not a similarity matrix).
        y : array-like of shape (n,)
            Class labels.

        Returns
        -------
        self
        """
        C = validate_params(self)["C"]
        X = _check_features(X)
        classes, y_idx = _check_class_labels(y, X.shape[0])
        self.mean_, self.scale_ = zscore_params(X, self.standardize)
        X = (X - self.mean_) / self.scale_
        K = arccos_kernel(X, degree=self.degree, layers=self.layers)
        self.svc_ = SVC(kernel="precomputed", C=C).fit(K, y_idx)
        self.classes_ = classes
        self.X_fit_ = X
        self.n_features_in_ = X.shape[1]
        return self

    def _kernel(self, X):
        check_is_fitted(self, "svc_")
        X = (_check_features(X, n_features=self.n_features_in_) - self.mean_) / self.scale_
        return arccos_kernel(X, self.X_fit_, degree=self.degree, layers=self.layers)

    def decision_function(self, X):
        """Decision values for test features ``(m, d)``.

        Returns
        -------
        ndarray of shape (m,) or (m, n_classes)
            Binary: positive means ``classes_[1]``. Several classes: the
            one-vs-one votes of ``SVC`` with its tie-breaking confidences
            (``decision_function_shape="ovr"``).
        """
        K = self._kernel(X)  # checks the fit first
        return self.svc_.decision_function(K)

    def predict(self, X):
        """Class labels for test features ``(m, d)``."""
        K = self._kernel(X)  # checks the fit first
        return self.classes_[self.svc_.predict(K)]
