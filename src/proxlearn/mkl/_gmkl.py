"""Generalized MKL (GMKL) with a product of per-dimension Gaussians, on feature vectors.

============  ==============================================================
name          problem
============  ==============================================================
``gmkl``      ``min_{theta >= 0} T(theta) = omega(K_theta) + reg * sum_k theta_k``,
              ``K_theta(x, x') = prod_k exp(-theta_k (x_k - x'_k)^2)
              = exp(-sum_k theta_k (x_k - x'_k)^2)``,
              ``omega(K) = max_{alpha in A} 1^T alpha - 1/2 u^T K u``,
              ``u = alpha o y``, ``A = {y^T alpha = 0, 0 <= alpha <= C}``
``GMKL``      the classifier: one ``theta`` and one SVM per pair of classes
============  ==============================================================

References
----------
M. Varma and B. R. Babu. More generality in efficient multiple kernel
learning. ICML 2009: the GMKL problem ``min_d T(d) = omega(K_d) + r(d)``
through the SVM dual, its gradient through the optimal ``alpha``, projected
gradient descent with an Armijo line search (an SVM re-solved at every trial
step), and the product of per-dimension RBF kernels with the l1 regulariser
``r(d) = sigma^T d`` for feature selection. (Equation numbers not given: no
copy of the paper was at hand to check them.)
J. Zhuang, PhD thesis 2011, eq. 2.34 (GMKL's general form) and section 4.5.1 /
Table 4.2, where GMKL is a baseline (digest section 1.6). The thesis gives no
regulariser weight: ``reg=1.0`` is ours (the same fixed weight 1 the thesis
puts on ``sum mu`` in 2LMKL, eq. 4.3).

Gradient (Danskin; ``alpha`` is unique because ``K_theta`` is PD for distinct
samples): with ``D^k_ij = (x_ik - x_jk)^2``, ``dK_ij/dtheta_k = -D^k_ij K_ij`` and

    dT/dtheta_k = reg + 1/2 sum_ij u_i u_j K_ij D^k_ij
                = reg + sum_i u_i (K u)_i x_ik^2 - sum_i (u_i x_ik) (K (u o x_k))_i,

expanding ``D^k_ij = x_ik^2 - 2 x_ik x_jk + x_jk^2`` and using the symmetry of
``K``: one ``(n, n) x (n, d)`` product for all ``d`` components. ``K_theta``
is translation invariant, so the features are centred first (less
cancellation in the expanded form).

Algorithm (Varma & Babu's projected gradient descent): ``theta(s) =
max(theta - s g, 0)``; the step ``s`` is backtracked (halved) until the
projected Armijo condition ``T(theta(s)) <= T(theta) + 1e-4 g^T (theta(s) -
theta)`` holds, each trial re-solving the SVM, so ``objective_history_``
never increases. The first trial step is ``max(max theta, 1/d) / max |g|``,
later ones the Barzilai-Borwein step ``|dtheta|^2 / dtheta^T dg`` of the last
accepted move (twice the last step when the curvature is not positive;
Birgin, Martinez & Raydan 2000 use it for projected gradients). Stops when the
relative decrease of ``T`` over the last ``WINDOW = 5`` accepted steps, or the
projected gradient ``||theta - max(theta - g, 0)||`` relative to its value at
``theta0``, is at most ``tol``, or when no step of at least ``1e-12`` times
the first decreases ``T`` (the precision of the inner SVM is reached);
``ConvergenceWarning`` at ``max_iter``. A window rather than one step: a
single short step after backtracking had, in our runs, stopped the search
with the projected gradient still at 40% of its start. At the default ``tol=1e-4`` the
objective is within about ``1e-4`` (relative) of the stationary value while
``theta`` may still move (tests: projected gradient up to a third of its
start); pass a smaller ``tol`` for a stationary ``theta``. The problem is not
convex in ``theta``: the result is a stationary point reached from
``theta0``. Errata: none known. The step rule and the stopping test are
ours, not taken from Varma & Babu.
"""

from __future__ import annotations

import warnings

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.validation import check_is_fitted

from .._validation import (
    InvalidParameterError,
    integer,
    positive,
    unchecked,
    validate_params,
)
from ..base import FeatureMixin
from .._svm._multiclass import ovo_decision, ovo_fit, ovo_labels, scatter_pairs
from ._arccos import _check_class_labels, _check_features
from ._bank import zscore_params
from .._svm._dual import svm_dual
from ..solvers import SolverResult, armijo_backtrack

__all__ = ["GMKL", "GMKLResult", "gmkl", "gmkl_gradient", "product_gaussian_kernel"]

#: Armijo sufficient-decrease constant.
ARMIJO = 1e-4
#: The relative decrease is measured over this many accepted steps.
WINDOW = 5
#: Smallest trial step, relative to the first one, before the search gives up.
MIN_STEP = 1e-12


class GMKLResult(SolverResult):
    """Output of the binary GMKL solver :func:`gmkl` (a :class:`~proxlearn.solvers.SolverResult`).

    ``x`` (alias ``theta``) the per-dimension widths, ``alpha`` and ``b`` the SVM
    at ``theta``, ``fun`` (alias ``objective``) ``T(theta)``,
    ``projected_gradient`` the norm of the projected gradient there, ``success``
    (alias ``converged``) whether it is below ``tol`` (``status`` 0, else 1:
    ``max_iter`` reached), ``nit`` (alias ``n_iter``) the steps, ``history``
    ``T`` after each accepted step (``T(theta0)`` first).

    Examples
    --------
    >>> import numpy as np
    >>> x = np.random.default_rng(0).normal(size=(40, 2))
    >>> y = np.where(x[:, 0] > 0, 1, -1)
    >>> from proxlearn.mkl import gmkl
    >>> res = gmkl(x, y)
    >>> res.converged, res.history[0] >= res.objective, res.alpha.shape
    (True, True, (40,))

    See Also
    --------
    gmkl : the solver that returns it.
    proxlearn.solvers.SolverResult : the base class.
    """

    _aliases = {"theta": "x", "objective": "fun", "n_iter": "nit", "converged": "success"}

    def __init__(self, theta, alpha, b, objective, projected_gradient, n_iter, converged,
                 history=None):
        super().__init__(x=theta, alpha=alpha, b=b, fun=objective,
                         projected_gradient=projected_gradient, nit=n_iter,
                         history=[] if history is None else history,
                         **self.stopping(converged))


def _sq_dists(A, B, theta):
    """``sum_k theta_k (a_k - b_k)^2`` for every pair of rows, ``(n_A, n_B)``."""
    w = np.sqrt(theta)
    Za, Zb = A * w, B * w
    sq = (np.einsum("ij,ij->i", Za, Za)[:, None] + np.einsum("ij,ij->i", Zb, Zb)[None, :]
          - 2.0 * (Za @ Zb.T))
    return np.maximum(sq, 0.0, out=sq)


def product_gaussian_kernel(X, Y=None, theta=None):
    """``K(x, y) = prod_k exp(-theta_k (x_k - y_k)^2)`` between rows of ``X`` and ``Y``.

    Parameters
    ----------
    X : ndarray of shape (n_X, d)
    Y : ndarray of shape (n_Y, d), default=None
        ``None``: the Gram matrix of ``X`` (exactly symmetric, unit diagonal).
    theta : array-like of shape (d,)
        Non-negative per-dimension widths.

    Returns
    -------
    K : ndarray of shape (n_X, n_Y)

    Examples
    --------
    >>> import numpy as np
    >>> from proxlearn.mkl import product_gaussian_kernel
    >>> X = np.array([[0.0, 0.0], [1.0, 2.0]])
    >>> np.round(product_gaussian_kernel(X, theta=[1.0, 0.0]), 6).tolist()  # exp(-1)
    [[1.0, 0.367879], [0.367879, 1.0]]

    See Also
    --------
    GMKL : learns ``theta`` with an SVM on this kernel.
    """
    X = np.asarray(X, dtype=np.float64)
    theta = np.asarray(theta, dtype=np.float64)
    if Y is None:
        c = X.mean(axis=0)
        K = np.exp(-_sq_dists(X - c, X - c, theta))
        K = 0.5 * (K + K.T)
        np.fill_diagonal(K, 1.0)
        return K
    Y = np.asarray(Y, dtype=np.float64)
    c = Y.mean(axis=0)
    return np.exp(-_sq_dists(X - c, Y - c, theta))


def gmkl_gradient(X, K, u, reg):
    """``dT/dtheta`` at the SVM solution, vectorised (module docstring).

    Parameters
    ----------
    X : ndarray of shape (n, d)
        Training features (centred inside; the kernel is translation invariant).
    K : ndarray of shape (n, n)
        ``K_theta`` on ``X``.
    u : ndarray of shape (n,)
        ``alpha o y`` of the SVM on ``K``.
    reg : float
        Weight of ``r(theta) = reg * sum(theta)``.

    Returns
    -------
    g : ndarray of shape (d,)

    Examples
    --------
    >>> import numpy as np
    >>> x = np.random.default_rng(0).normal(size=(40, 2))
    >>> y = np.where(x[:, 0] > 0, 1, -1)
    >>> from proxlearn.mkl import gmkl, gmkl_gradient, product_gaussian_kernel
    >>> res = gmkl(x, y)  # theta = [1.22, 0]: the second width held at 0 ...
    >>> g = gmkl_gradient(x, product_gaussian_kernel(x, theta=res.theta), res.alpha * y, 1.0)
    >>> round(float(g[1]), 2)  # ... by a positive gradient
    3.49

    See Also
    --------
    gmkl : the descent that uses it.
    """
    Xc = X - X.mean(axis=0)
    V = u[:, None] * Xc  # u_i x_ik
    first = (u * (K @ u)) @ (Xc * Xc)  # sum_i u_i (K u)_i x_ik^2
    second = np.einsum("ik,ik->k", V, K @ V)  # (u o x_k)^T K (u o x_k)
    return reg + first - second


def _projected_gradient(theta, g):
    return float(np.linalg.norm(theta - np.maximum(theta - g, 0.0)))


def gmkl(X, y, C=1.0, *, reg=1.0, theta0=None, tol=1e-4, max_iter=100, svm_tol=1e-7,
         warn=True) -> GMKLResult:
    """Binary GMKL by projected gradient descent with an Armijo search.

    Parameters
    ----------
    X : ndarray of shape (n, d)
        Training features (validated by the caller).
    y : ndarray of shape (n,)
        Labels in ``{-1, +1}``.
    C : float
        SVM regularisation.
    reg : float
        Weight of the l1 regulariser ``reg * sum(theta)``.
    theta0 : ndarray of shape (d,) or None
        Starting point; ``None``: ``1/d`` in every dimension.
    tol, max_iter :
        Stopping rule (module docstring).
    svm_tol : float
        Tolerance of the inner libsvm solves.
    warn : bool
        Emit ``ConvergenceWarning`` when ``max_iter`` is reached.

    Returns
    -------
    GMKLResult

    Examples
    --------
    >>> import numpy as np
    >>> x = np.random.default_rng(0).normal(size=(40, 2))
    >>> y = np.where(x[:, 0] > 0, 1, -1)
    >>> from proxlearn.mkl import gmkl
    >>> res = gmkl(x, y)  # only the first feature separates the classes
    >>> np.round(res.theta, 2).tolist(), round(res.objective, 2)
    ([1.22, 0.0], 8.77)

    See Also
    --------
    GMKL : the estimator (standardisation, several classes, predictions).
    GMKLResult : the result's fields.
    """
    X = np.asarray(X, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    d = X.shape[1]
    theta = np.full(d, 1.0 / d) if theta0 is None else np.array(theta0, dtype=np.float64)

    def solve(th):
        K = product_gaussian_kernel(X, theta=th)
        sol = svm_dual(K, y, C, tol=svm_tol)
        return K, sol, sol.value + reg * float(th.sum())

    def value(th):  # the line search's (objective, state)
        K, sol, T = solve(th)
        return T, (K, sol)

    K, sol, T = solve(theta)
    history = [T]
    g = gmkl_gradient(X, K, sol.alpha * y, reg)
    pg0 = pg = _projected_gradient(theta, g)
    gmax = float(np.max(np.abs(g)))
    step = (max(float(theta.max()), 1.0 / d) / gmax) if gmax > 0 else 1.0
    first_step = step
    converged = pg <= tol * max(pg0, np.finfo(float).tiny)
    t = 0
    while not converged and t < max_iter:
        t += 1
        search = armijo_backtrack(
            value, lambda s, theta=theta, g=g: np.maximum(theta - s * g, 0.0), reference=T,
            step=step, x=theta, gradient=g, sufficient=ARMIJO, min_step=MIN_STEP * first_step)
        if not search.success:
            converged = True  # no decrease at the SVM's precision: stationary
            break
        s, trial, T_new, (K_new, sol_new) = search.step, search.x, search.fun, search.state
        g_new = gmkl_gradient(X, K_new, sol_new.alpha * y, reg)
        dtheta, dg = trial - theta, g_new - g
        curv = float(dtheta @ dg)
        # Barzilai-Borwein first trial (Birgin, Martinez & Raydan 2000), else doubling
        step = float(dtheta @ dtheta) / curv if curv > 0 else 2.0 * s
        theta, K, sol, T, g = trial, K_new, sol_new, T_new, g_new
        history.append(T)
        pg = _projected_gradient(theta, g)
        past = history[max(0, len(history) - 1 - WINDOW)]
        rel = (past - T) / max(abs(T), np.finfo(float).tiny)
        converged = rel <= tol or pg <= tol * pg0
    if not converged and warn:
        warnings.warn(
            f"GMKL stopped at max_iter={max_iter} with relative decrease above tol={tol} "
            f"(projected gradient {pg:.3g}, {pg / max(pg0, np.finfo(float).tiny):.3g} of "
            "its start); increase max_iter or tol.",
            ConvergenceWarning, stacklevel=3,
        )
    return GMKLResult(theta=theta, alpha=sol.alpha, b=sol.b, objective=T,
                      projected_gradient=pg, n_iter=t, converged=converged, history=history)


class GMKL(FeatureMixin, ClassifierMixin, BaseEstimator):
    """Generalized MKL with a product of per-dimension Gaussians (Varma & Babu 2009).

    Learns one non-negative width per feature, ``K_theta(x, x') = exp(-sum_k
    theta_k (x_k - x'_k)^2)``, jointly with the SVM by minimising
    ``omega(K_theta) + reg * sum(theta)`` (:func:`gmkl`; see the module
    docstring for the gradient and the line search). The GMKL baseline of
    Zhuang (2011), Table 4.2. Fitted on features ``(n, d)``, not on a
    similarity matrix. Several classes: one versus one, each pair of classes
    with its own ``theta`` (as libsvm trains pairs).

    Parameters
    ----------
    C : float > 0, default=1.0
        SVM regularisation. Default ours (the thesis cross-validates C).
    reg : float >= 0, default=1.0
        Weight of the l1 regulariser ``r(theta) = reg * sum(theta)`` (Varma &
        Babu's ``sigma``, one value for every dimension). Default ours: the
        thesis gives none.
    max_iter : int >= 1, default=100
        Projected-gradient iterations per pair of classes.
    tol : float > 0, default=1e-4
        Stop when the relative decrease of the objective over the last 5
        accepted steps, or the projected gradient relative to its value at
        ``theta0``, is at most ``tol`` (module docstring).
    theta0 : float or array-like of shape (d,), default=None
        Starting widths (non-negative); ``None``: ``1/d`` for every
        dimension (ours; Varma & Babu do not state theirs).
    standardize : bool, default=True
        z-score the features with the training mean and deviation first (the
        thesis's preprocessing, section 4.5.1). Without it, multiplying feature
        ``k`` by ``c`` divides its optimal ``theta_k`` by ``c^2`` but not its
        penalty ``reg theta_k``, so the answer changes.

    Attributes
    ----------
    theta_ : ndarray of shape (d,) or (n_pairs, d)
        Learned widths (per pair of classes for several classes).
    dual_coef_ : ndarray of shape (n_pairs, n_train)
        ``alpha_i y_i`` of each pair's SVM, zero outside the pair's samples.
    intercept_ : ndarray of shape (n_pairs,)
    objective_ : float or ndarray of shape (n_pairs,)
        ``T(theta_)``.
    objective_history_ : list of float, or list of such lists per pair
        ``T`` at ``theta0`` and after every accepted step (non-increasing).
    n_iter_ : int or ndarray of shape (n_pairs,)
    X_fit_ : ndarray of shape (n_train, d)
        The training features, standardised.
    mean_, scale_ : ndarray of shape (d,)
        The standardisation (zeros and ones without ``standardize``).
    classes_ : ndarray of shape (n_classes,)
    n_features_in_ : int
        ``d``.
    results_ : list of GMKLResult
        One per pair of classes.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from proxlearn.mkl import GMKL
    >>> X, y = load_iris(return_X_y=True)
    >>> clf = GMKL().fit(X, y)
    >>> clf.predict(X[::50]).tolist(), round(clf.score(X, y), 3)
    ([0, 1, 2], 0.973)

    See Also
    --------
    gmkl : the binary solver.
    product_gaussian_kernel : the kernel.
    IKL : Gaussian kernels of learned widths, combined convexly.
    """

    def __init__(self, C=1.0, reg=1.0, max_iter=100, tol=1e-4, theta0=None, standardize=True):
        self.C = C
        self.reg = reg
        self.max_iter = max_iter
        self.tol = tol
        self.theta0 = theta0
        self.standardize = standardize

    _parameter_constraints = {
        "C": positive(),
        "reg": positive(allow_zero=True),
        "tol": positive(),
        "max_iter": integer(1),
        "theta0": unchecked("compared with the number of features in fit (_theta0)"),
        "standardize": unchecked("read as a truth value"),
    }

    def _theta0(self, d):
        """The starting widths: ``theta0`` checked against ``d`` features."""
        if self.theta0 is None:
            return np.full(d, 1.0 / d)
        try:
            theta0 = np.asarray(self.theta0, dtype=np.float64)
        except (TypeError, ValueError):
            theta0 = np.array([np.nan])
        if theta0.ndim == 0:
            theta0 = np.full(d, float(theta0))
        if theta0.shape != (d,) or not np.all(np.isfinite(theta0)) or np.any(theta0 < 0):
            raise InvalidParameterError(
                f"theta0 must be a non-negative finite scalar or {d} values (one width "
                f"per feature), got {self.theta0!r}. Leave it None for 1/d per feature."
            )
        return theta0

    def fit(self, X, y):
        """Learn the per-feature widths and the SVM.

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
        X = _check_features(X)
        self.mean_, self.scale_ = zscore_params(X, self.standardize)
        X = (X - self.mean_) / self.scale_
        n, d = X.shape
        params = validate_params(self)
        C, reg, tol, max_iter = (params[k] for k in ("C", "reg", "tol", "max_iter"))
        theta0 = self._theta0(d)
        classes, y_idx = _check_class_labels(y, n)
        problems, results = ovo_fit(y_idx, len(classes), lambda p: gmkl(
            X[p.idx], p.y, C, reg=reg, theta0=theta0, tol=tol, max_iter=max_iter))
        self.dual_coef_ = scatter_pairs(problems, [r.alpha * p.y for p, r in
                                                   zip(problems, results)], n)
        self.intercept_ = np.array([r.b for r in results], dtype=np.float64)
        binary = len(problems) == 1
        self.theta_ = results[0].theta if binary else np.array([r.theta for r in results])
        self.objective_ = (results[0].objective if binary
                           else np.array([r.objective for r in results]))
        self.objective_history_ = (results[0].history if binary
                                   else [r.history for r in results])
        self.n_iter_ = results[0].n_iter if binary else np.array([r.n_iter for r in results])
        self.results_ = results
        self.X_fit_ = X
        self.classes_ = classes
        self.n_features_in_ = d
        return self

    def _raw(self, X):
        check_is_fitted(self, "dual_coef_")
        X = (_check_features(X, n_features=self.n_features_in_) - self.mean_) / self.scale_
        thetas = np.atleast_2d(self.theta_)
        raw = np.empty((X.shape[0], len(self.intercept_)))
        for k in range(len(self.intercept_)):
            sv = np.flatnonzero(self.dual_coef_[k])
            raw[:, k] = self.intercept_[k]
            if sv.size:
                K = product_gaussian_kernel(X, self.X_fit_[sv], thetas[k])
                raw[:, k] += K @ self.dual_coef_[k, sv]
        return raw

    def decision_function(self, X):
        """Decision values for test features ``(m, d)``.

        Returns
        -------
        ndarray of shape (m,) or (m, n_classes)
            Binary: ``f(x) = sum_i alpha_i y_i K_theta(x_i, x) + b``, positive
            for ``classes_[1]``. Several classes: one-vs-one votes with the
            tie-breaking term of :func:`proxlearn._svm._multiclass.ovo_decision_ovr`.
        """
        return ovo_decision(self._raw(X), len(self.classes_))

    def predict(self, X):
        """Class labels for test features ``(m, d)``."""
        return ovo_labels(self._raw(X), self.classes_)  # _raw checks the fit first
