"""Kernel logistic regression on a precomputed kernel (Zhuang 2011, eq. 7.3).

=============================  ================================================
estimator                      problem
=============================  ================================================
``KernelLogisticRegression``   ``min (1/N) sum log(1 + exp(-y_i f_i)) + (C/2) a^T K a``
=============================  ================================================

with ``f = K a + b``. In chapter 7 ``K`` is the pair kernel of
:func:`pair_kernel` over ordered user pairs and ``P(tie) = sigmoid(f)``.
Errata followed: labels are ``+-1`` (the printed ``{0, 1}``
makes the loss constant for ``y = 0``) and ``a`` has one entry per training
pair (``R^{N_p}``, not ``R^{N_u}``). Eq. 7.3 has no intercept
(``fit_intercept=False``); the default adds one, as a general classifier needs.

Solver: the thesis uses an import vector machine (Zhu & Hastie 2001), whose
point is that the logistic solution is not sparse; Newton or L-BFGS on a
subset of import points serves the same purpose. Here: damped Newton (Armijo backtracking) on
the exact objective, gradient ``grad_a = K_NI^T r + C K_II a``, ``r_i = -y_i
sigmoid(-y_i f_i) / N``, with the expansion restricted to ``n_import``
"import points" drawn at random (``random_state``) when given -- the loss
still runs over all ``N`` training samples. With all points, the Newton
system is solved in function space, ``(W K + C I) d = -(r + C a)`` (``K`` is
a common factor of gradient and Hessian), which avoids squaring ``K``'s
condition number; L-BFGS on the ``a``-space objective stalled at gradient
norms of 1e-6 on 60 samples for that reason. No general-purpose library
solves this kernelised form with a precomputed kernel; scikit-learn's
``LogisticRegression`` is primal.

Several classes: one binary model per class against the rest, probabilities
normalised over the classes (as scikit-learn's one-vs-rest).
"""

from __future__ import annotations

import warnings

import numpy as np
import scipy.linalg
from scipy.special import expit, log_expit
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted

from .._validation import (
    InvalidParameterError,
    check_classification_data,
    check_int,
    check_option,
    check_positive,
    check_test_similarity,
)
from ..base import PairwiseMixin
from .._normalize import ScaleNormalizeMixin
from ..transforms._spectrum import SPECTRUM_METHODS, SpectrumTransformer

__all__ = ["KernelLogisticRegression", "kernel_logistic_objective"]


def kernel_logistic_objective(a, b, K_NI, K_II, y, C):
    """Objective of eq. 7.3 and its gradient ``(grad_a, grad_b)``.

    ``K_NI`` is the kernel between all ``N`` training samples and the import
    points (all of them: ``K_NI = K_II = K``), ``y`` in ``{-1, +1}``.

    Parameters
    ----------
    a : ndarray of shape (m,)
        Expansion coefficients over the import points.
    b : float
        Intercept.
    K_NI : ndarray of shape (N, m)
    K_II : ndarray of shape (m, m)
    y : ndarray of shape (N,)
        Labels in ``{-1, +1}``.
    C : float
        Weight of the regulariser ``(C/2) a^T K_II a``.

    Returns
    -------
    value : float
    grad_a : ndarray of shape (m,)
    grad_b : float

    Examples
    --------
    >>> import numpy as np
    >>> from proxlearn.ranking import kernel_logistic_objective
    >>> K = np.eye(2)
    >>> value, grad_a, grad_b = kernel_logistic_objective(np.zeros(2), 0.0, K, K, np.array([1., -1.]), 1.0)
    >>> round(float(value), 4), grad_a.tolist(), grad_b
    (0.6931, [-0.25, 0.25], 0.0)

    See Also
    --------
    KernelLogisticRegression : the estimator that minimises it.
    """
    f = K_NI @ a + b
    N = len(y)
    Ka = K_II @ a
    value = -np.sum(log_expit(y * f)) / N + 0.5 * C * (a @ Ka)
    r = -y * expit(-y * f) / N
    return value, K_NI.T @ r + C * Ka, float(r.sum())


class KernelLogisticRegression(ScaleNormalizeMixin, PairwiseMixin, ClassifierMixin, BaseEstimator):
    """Kernel logistic regression on a precomputed kernel (Zhuang 2011, eq. 7.3).

    On a similarity matrix (indefinite in general) the defaults clip its
    spectrum and remove its units first, as :class:`~proxlearn.svm.SimilaritySVC`
    does, and regularise as scikit-learn's ``LogisticRegression(C=1)``; the
    thesis's reading on a kernel is ``spectrum="none", normalize=False`` with its
    ``C`` (docs/methods.md, "Kernel logistic regression at its defaults").

    Parameters
    ----------
    C : float or None, default=None
        Weight of the RKHS norm ``a^T K a`` against the *mean* logistic loss
        (larger: smoother); the thesis's ``C``, not scikit-learn's inverse.
        ``None`` uses ``1 / n``, the strength of scikit-learn's
        ``LogisticRegression(C=1)`` and ``SVC(C=1)`` (whose losses are sums).
    spectrum : {"clip", "flip", "shift", "square", "none"}, default="clip"
        Spectrum modification of the training matrix (and consistent map of test
        rows), see :class:`~proxlearn.transforms.SpectrumTransformer`. On an
        indefinite matrix the objective is not convex and need not be bounded;
        ``"none"`` uses ``K`` as given (a kernel, as in the thesis).
    normalize : bool, default=True
        Divide ``K`` and the test rows by ``scale_ = tr K / n``
        (:mod:`proxlearn._normalize`): a positive factor on ``K`` then does
        not change the predictions. ``False`` uses ``K`` as given.
    fit_intercept : bool, default=True
        Add ``b``; eq. 7.3 has none (``False`` reproduces it).
    n_import : int, optional
        Expand ``f`` on this many randomly drawn training samples only
        (import points); ``None`` uses all of them.
    tol : float, default=1e-8
        Newton stops when the gradient norm is below ``tol * max(1, max|K|)``.
    max_iter : int, default=100
    random_state : int, RandomState or None
        Draws the import points.

    Attributes
    ----------
    classes_ : ndarray
    dual_coef_ : ndarray of shape (n_models, n_import)
        ``a`` of each binary model (one model for two classes).
    intercept_ : ndarray of shape (n_models,)
    import_indices_ : ndarray
        Training samples the expansion runs over.
    gradient_norm_ : ndarray of shape (n_models,)
        Norm of the objective's gradient at the returned point (the
        optimality certificate; the objective is convex).
    n_iter_ : ndarray of shape (n_models,)
    n_features_in_ : int
    C_ : float
        The ``C`` used (``1 / n`` for ``C=None``).
    scale_ : float
        The factor ``K`` was divided by (1.0 with ``normalize=False``).
    transformer_ : SpectrumTransformer or None
        Fitted on ``K / scale_`` (``None`` for ``spectrum="none"``).

    Examples
    --------
    >>> import numpy as np
    >>> from proxlearn.ranking import KernelLogisticRegression
    >>> X = np.random.RandomState(0).randn(30, 2)
    >>> y = np.where(X[:, 0] > 0, 1, -1)
    >>> clf = KernelLogisticRegression().fit(X @ X.T, y)
    >>> clf.classes_.tolist(), clf.predict_proba(X[:4] @ X.T).shape, clf.score(X @ X.T, y) > 0.9
    ([-1, 1], (4, 2), True)

    See Also
    --------
    pair_kernel, sample_tie_pairs : the tie-strength data it is used on (ch. 7).
    sklearn.linear_model.LogisticRegression : the linear counterpart.
    """

    def __init__(self, C=None, *, spectrum="clip", normalize=True, fit_intercept=True,
                 n_import=None, tol=1e-8, max_iter=100, random_state=None):
        self.C = C
        self.spectrum = spectrum
        self.normalize = normalize
        self.fit_intercept = fit_intercept
        self.n_import = n_import
        self.tol = tol
        self.max_iter = max_iter
        self.random_state = random_state

    def fit(self, K, y):
        """Fit on the ``(n, n)`` training kernel and ``n`` labels."""
        spectrum = check_option(self.spectrum, "spectrum", SPECTRUM_METHODS)
        self._check_normalize()
        C = None if self.C is None else check_positive(self.C, "C")
        tol = check_positive(self.tol, "tol")
        check_int(self.max_iter, "max_iter")
        transformer = SpectrumTransformer(method=spectrum)
        K, self.classes_, y_idx = check_classification_data(
            K, y, symmetric=transformer._symmetric_mode(spectrum))
        n = K.shape[0]
        self.C_ = C = 1.0 / n if C is None else C
        scaled = self._fit_scale(K)
        if spectrum == "none":
            self.transformer_ = None
            K = scaled
        else:
            self.transformer_ = transformer._fit_checked(scaled, scaled)
            K = self.transformer_._training_kernel()
        if self.n_import is None:
            idx = np.arange(n)
        else:
            if (isinstance(self.n_import, bool) or not isinstance(self.n_import, (int, np.integer))
                    or not 1 <= self.n_import):
                raise InvalidParameterError(
                    f"n_import must be a positive integer or None, got {self.n_import!r}."
                )
            rng = check_random_state(self.random_state)
            idx = np.sort(rng.choice(n, min(int(self.n_import), n), replace=False))
        K_NI, K_II = K[:, idx], K[np.ix_(idx, idx)]
        K_II = 0.5 * (K_II + K_II.T)
        n_models = 1 if len(self.classes_) == 2 else len(self.classes_)
        coefs, bs, gnorms, iters = [], [], [], []
        for c in range(n_models):
            target = 1 if n_models == 1 else c
            y_pm = np.where(y_idx == target, 1.0, -1.0)
            a, b, g, it = self._solve(K_NI, K_II, y_pm, C, tol)
            coefs.append(a)
            bs.append(b)
            gnorms.append(g)
            iters.append(it)
        self.dual_coef_ = np.array(coefs)
        self.intercept_ = np.array(bs)
        self.gradient_norm_ = np.array(gnorms)
        self.n_iter_ = np.array(iters)
        self.import_indices_ = idx
        self.n_features_in_ = n
        return self

    def _solve(self, K_NI, K_II, y, C, tol):
        N, p = K_NI.shape
        fit_b = bool(self.fit_intercept)
        full = K_NI is K_II or (N == p and np.shares_memory(K_NI, K_II)) or (
            N == p and np.array_equal(K_NI, K_II))
        a, b = np.zeros(p), 0.0
        value, ga, gb = kernel_logistic_objective(a, b, K_NI, K_II, y, C)
        scale = max(1.0, float(np.abs(K_NI).max()))
        for it in range(1, int(self.max_iter) + 1):
            gnorm = float(np.sqrt(ga @ ga + (gb * gb if fit_b else 0.0)))
            if gnorm <= tol * scale:
                return a, b, gnorm, it - 1
            f = K_NI @ a + b
            sig = expit(y * f)
            w = sig * (1.0 - sig) / N  # Hessian weights of the mean logistic loss
            r = -y * (1.0 - sig) / N
            if full:
                # Newton in function space: K is a common left factor of the
                # gradient K (r + C a) and the Hessian K (W K + C I), so solve
                # the well-conditioned (W K + C I) d = -(r + C a) instead of
                # the squared-condition K W K + C K system
                A = w[:, None] * K_NI + C * np.eye(N)
                rhs = -(r + C * a)
                if fit_b:
                    A = np.block([[A, w[:, None]], [(w @ K_NI)[None, :], np.array([[w.sum()]])]])
                    rhs = np.r_[rhs, -r.sum()]
                step = scipy.linalg.solve(A, rhs)
            else:
                H = K_NI.T @ (w[:, None] * K_NI) + C * K_II
                g = ga
                if fit_b:
                    col = K_NI.T @ w
                    H = np.block([[H, col[:, None]], [col[None, :], np.array([[w.sum()]])]])
                    g = np.r_[ga, gb]
                # K_II may be singular: minimum-norm Newton step, explicit cutoff
                step = scipy.linalg.lstsq(H, -g, cond=1e-12 * max(1.0, np.abs(H).max()))[0]
            da, db = step[:p], (float(step[p]) if fit_b else 0.0)
            slope = ga @ da + gb * db
            t = 1.0
            while True:  # backtracking (Armijo) on the convex objective
                new = kernel_logistic_objective(a + t * da, b + t * db, K_NI, K_II, y, C)
                if new[0] <= value + 1e-4 * t * slope or t < 1e-10:
                    break
                # near the optimum the decrease is below the objective's rounding:
                # accept a step that does not increase it and shrinks the gradient
                new_gnorm = np.sqrt(new[1] @ new[1] + (new[2] ** 2 if fit_b else 0.0))
                if new[0] <= value + 1e-13 * abs(value) and new_gnorm < gnorm:
                    break
                t *= 0.5
            if t < 1e-10:  # no decrease along the Newton direction: at numerical optimum
                break
            a, b = a + t * da, b + t * db
            value, ga, gb = new
        gnorm = float(np.sqrt(ga @ ga + (gb * gb if fit_b else 0.0)))
        if gnorm > tol * scale:
            warnings.warn(
                f"KernelLogisticRegression: Newton stopped with gradient norm {gnorm:.3g} "
                f"after {it} iterations (tol {tol:g}); increase max_iter or tol.",
                ConvergenceWarning, stacklevel=3,
            )
        return a, b, gnorm, it

    def decision_function(self, K_test):
        """``f = K_test[:, import] a + b``: shape (m,) for two classes, else (m, n_classes)."""
        check_is_fitted(self, "dual_coef_")
        K_test = check_test_similarity(K_test, self.n_features_in_, name="K_test")
        K_test = self._scale_test(K_test)
        if self.transformer_ is not None:
            K_test = self.transformer_.transform(K_test)
        f = K_test[:, self.import_indices_] @ self.dual_coef_.T + self.intercept_
        return f[:, 0] if f.shape[1] == 1 else f

    def predict_proba(self, K_test):
        """``sigmoid(f)`` per class (two classes: ``[1 - p, p]``; else normalised)."""
        f = self.decision_function(K_test)
        if f.ndim == 1:
            p = expit(f)
            return np.column_stack([1.0 - p, p])
        P = expit(f)
        return P / P.sum(axis=1, keepdims=True)

    def predict_log_proba(self, K_test):
        return np.log(self.predict_proba(K_test))

    def predict(self, K_test):
        f = self.decision_function(K_test)
        if f.ndim == 1:
            return self.classes_[(f > 0).astype(int)]
        return self.classes_[np.argmax(f, axis=1)]
