"""Oglic & Gärtner's regularised least squares in a reproducing kernel Kreĭn space.

=============================  ==========================================================
estimator                      problem
=============================  ==========================================================
KreinLeastSquares              real targets ``y``
KreinLeastSquaresClassifier    targets ``+-1``: one problem for two classes, one per class
                               (one-vs-rest) for more, sharing one eigendecomposition
=============================  ==========================================================

The problem (Oglic & Gärtner 2018, section 3): over functions
``f = f+ - f-`` of the Kreĭn space of the similarity,

    minimise  (1/n) sum_i (f(x_i) - y_i)^2 + lambda+ ||f+||^2 - lambda- ||f-||^2
    subject to ||f+||^2 + ||f-||^2 = r^2   (a hypersphere of the associated Hilbert space)

The strong representer theorem gives ``f = sum_i a_i k(x_i, .)``; with
``S = U diag(d) U^T`` and ``beta = |d|^(1/2) * (U^T a)`` (the eigen-directions
with ``|d| <= tol`` carry nothing) the problem is a quadratic over the sphere
``||beta|| = r`` with a *diagonal* matrix,

    minimise beta^T diag(h) beta - 2 g^T beta,
    h = |d| / n + lambda+ [d > 0] - lambda- [d < 0],  g = sign(d) |d|^(1/2) (U^T y) / n,

non-convex as soon as ``lambda- > |d_i| / n`` for a negative ``d_i``, and solved
globally by the secular equation in ``O(n)`` after the ``O(n^3)``
decomposition (:mod:`proxlearn.krein._sphere`; Gander, Golub & von Matt 1989).
Then ``a = U (beta / |d|^(1/2))`` and ``f(x) = s(x)^T a`` with the original test
similarities. Derivation and the choices below: docs/methods.md, "Learning in
Kreĭn spaces (`proxlearn.krein`)".

Choices that are ours (the paper tunes ``r`` and ``lambda+-`` on validation data
by the gradient of the solution and states no default): ``radius="auto"``, per
problem the radius of the multiplier with the least 5-fold cross-validated error of
the fixed-multiplier problem (a closed form per multiplier); ``lambda+ = lambda- = 0``;
the targets are centred (``fit_intercept``) and, for the regressor with
``normalize=True``, divided by their standard deviation, so that ``radius`` is a
norm per unit of target. ``constraint="ball"`` (``||f|| <= r``, the
trust-region subproblem) is offered beside the paper's sphere: with a fixed
radius larger than the least-squares solution's norm the sphere *forces* a
larger function; with ``radius="auto"`` the two coincide (the radius is the
norm of the chosen solution).
"""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin
from sklearn.utils.validation import check_is_fitted

from .._cv import internal_cv_argmin
from .._validation import (
    NORMALIZE,
    boolean,
    check_test_similarity,
    options,
    positive,
)
from ..transforms._spectrum import SPECTRUM_TOL
from .._validation import check_targets
from ._base import KreinMixin, check_class_labels, kept_spectrum
from ._sphere import solve_sphere_quadratic

__all__ = ["KreinLeastSquares", "KreinLeastSquaresClassifier"]


#: ``radius="auto"``: the relative multipliers tried, ``mu = mu0 + max(|d| / n) * 10 ** e``.
AUTO_EXPONENTS = np.linspace(-6.0, 1.0, 29)


def _spectral_problem(S, lambda_pos, lambda_neg, tol):
    """``(Uk, sign(d), h, mu0, top)`` of the scaled training matrix ``S`` (the kept
    eigen-directions, the diagonal of the sphere problem, its least feasible
    multiplier ``mu0 = max(0, -min h)`` and the scale ``max(|d| / n)``)."""
    d, Uk = kept_spectrum(S, tol)
    n = S.shape[0]
    h = np.abs(d) / n + np.where(d > 0, lambda_pos, -lambda_neg)
    top = float(np.abs(d).max()) / n if d.size else 1.0
    return Uk, np.sign(d), h, max(0.0, -float(h.min(initial=0.0))), top


def _cv_exponents(S, T, params, random_state=0):
    """``radius="auto"``: per target column, the exponent ``e`` of ``AUTO_EXPONENTS``
    whose multiplier ``mu0 + top * 10 ** e`` has the least validation squared error
    over the internal folds (:func:`proxlearn._cv.internal_cv_argmin`).

    For a fixed multiplier the problem is a penalised least squares with the
    closed form ``a(mu) = Uk diag(sign(d) / (n (h + mu))) Uk^T t``; each fold
    decomposes its own training block and predicts its held-out samples with
    their *raw* similarities, ``S[val, tr] @ a(mu)``, as the estimator does. The
    exponent is relative (``mu0``, ``top`` of each fold's spectrum), so it
    transfers to the fit on all samples.
    """
    q = T.shape[1]

    def fold_predictions(tr, val):
        Uk, sgn, h, mu0, top = _spectral_problem(
            S[np.ix_(tr, tr)], params["lambda_pos"], params["lambda_neg"], params["tol"])
        mean = T[tr].mean(axis=0) if params["fit_intercept"] else np.zeros(q)
        C = Uk.T @ (T[tr] - mean)
        R = S[np.ix_(val, tr)] @ Uk
        for e in AUTO_EXPONENTS:
            w = sgn / (len(tr) * (h + mu0 + top * 10.0 ** e))
            yield R @ (w[:, None] * C) + mean

    return AUTO_EXPONENTS[internal_cv_argmin(T, fold_predictions, random_state)]


class _KreinLeastSquaresMixin(KreinMixin):
    """The shared fit: one decomposition, one sphere problem per target column."""

    def __init__(self, radius="auto", lambda_pos=0.0, lambda_neg=0.0, constraint="sphere",
                 fit_intercept=True, tol=None, *, normalize=True):
        self.radius = radius
        self.lambda_pos = lambda_pos
        self.lambda_neg = lambda_neg
        self.constraint = constraint
        self.fit_intercept = fit_intercept
        self.tol = tol
        self.normalize = normalize

    _parameter_constraints = {
        "radius": positive() | options("auto"),
        "lambda_pos": positive(allow_zero=True),
        "lambda_neg": positive(allow_zero=True),
        "constraint": options("ball", "sphere"),
        "fit_intercept": boolean(),
        "tol": SPECTRUM_TOL,
        "normalize": NORMALIZE,
    }

    def _fit_targets(self, arr, S, T, params):
        """Solve for the columns of ``T`` (n, q), already centred and scaled; set
        the Kreĭn coefficients (in the units of ``S / scale_``) and the multipliers."""
        auto = params["radius"] == "auto"
        work = arr.copy() if auto and arr.shape[0] > 2 else None  # the decomposition overwrites arr
        U, factor = self._decompose(arr, S, params["normalize"], params["tol"])
        keep = factor != 0
        d, Uk = self.eigenvalues_[keep], U[:, keep]
        n = T.shape[0]
        root = np.sqrt(np.abs(d))
        h = np.abs(d) / n + np.where(d > 0, params["lambda_pos"], -params["lambda_neg"])
        G = (np.sign(d) * root)[:, None] * (Uk.T @ T) / n
        ball = params["constraint"] == "ball"
        if auto:
            exps = (np.zeros(T.shape[1]) if work is None
                    else _cv_exponents(work / self.scale_, T, params))
            mu0 = max(0.0, -float(h.min(initial=0.0)))
            top = float(np.abs(d).max()) / n if d.size else 1.0
            mus = mu0 + top * 10.0 ** exps
            # the radius of the solution at that multiplier (sphere and ball agree)
            radii = np.maximum(np.linalg.norm(G / (h[:, None] + mus[None, :]), axis=0),
                               np.finfo(float).tiny)
        else:
            radii = np.full(T.shape[1], params["radius"])
        sols = [solve_sphere_quadratic(h, G[:, j], radii[j], ball=ball)
                for j in range(T.shape[1])]
        self.radius_ = radii
        A = Uk @ (np.column_stack([s.x for s in sols]) / root[:, None])
        self.multiplier_ = np.array([s.mu for s in sols])
        self.hard_case_ = np.array([s.hard_case for s in sols])
        self.objective_ = np.array([s.objective for s in sols])
        return U, factor, A

    def _set_coef(self, U, factor, A, y_scale):
        """``coef_`` and its parts in the units of ``S`` as given (``(q, n)``)."""
        c = y_scale / self.scale_
        pos, neg = self._parts(U, factor, A)
        self.coef_ = c * A.T
        self.coef_positive_, self.coef_negative_ = c * pos.T, c * neg.T

    def _raw(self, S_test):
        check_is_fitted(self, "coef_")
        rows = check_test_similarity(S_test, self.n_features_in_)
        return rows @ self.coef_.T + self.intercept_

    def _components(self, S_test):
        check_is_fitted(self, "coef_")
        rows = check_test_similarity(S_test, self.n_features_in_)
        return rows @ self.coef_positive_.T, rows @ self.coef_negative_.T


_PARAMS_DOC = """
    Parameters
    ----------
    radius : float or "auto", default="auto"
        ``r``, the radius of the sphere (ball) ``||f+||^2 + ||f-||^2 <= r^2`` in
        the Hilbert space associated with the Kreĭn space, in the units of
        ``S / scale_`` and of the standardised targets. ``"auto"`` (ours; the
        paper tunes ``r`` on validation data by the gradient of the solution):
        per problem the radius of the multiplier with the least 5-fold
        cross-validated squared error of the fixed-multiplier problem, over 29
        multipliers (``_cv_exponents``; no fixed radius suits every data set,
        measured in docs/benchmarks.md). The radius used is ``radius_``.
    lambda_pos, lambda_neg : float, default=0.0
        ``lambda+`` and ``lambda-`` (>= 0): the regulariser
        ``lambda+ ||f+||^2 - lambda- ||f-||^2`` (the paper's eq. in section 3;
        ``lambda- > 0`` rewards the negative part and makes the problem
        non-convex, still solved globally).
    constraint : {"sphere", "ball"}, default="sphere"
        ``"sphere"``: ``||f|| = r`` (Oglic & Gärtner's hypersphere);
        ``"ball"``: ``||f|| <= r`` (the trust-region subproblem). The same
        solution with ``radius="auto"``.
    fit_intercept : bool, default=True
        Centre the targets and add their mean back (ours: the paper has no bias).
    tol : float or None, default=None
        Eigenvalues with ``|lambda| <= tol`` are dropped; ``None``:
        ``n * eps * max|lambda|``.
    normalize : bool, default=True
        Divide ``S`` by ``scale_ = tr S / n``{targets}, so that the predictions
        do not depend on the units of ``S``{units}; ``False``: ``S`` as given.
"""


class KreinLeastSquares(_KreinLeastSquaresMixin, RegressorMixin, BaseEstimator):
    __doc__ = """Regularised least squares in the Kreĭn space of an indefinite similarity.

    Oglic & Gärtner (2018), "Learning in reproducing kernel Kreĭn spaces",
    ICML, section 3: the squared loss plus ``lambda+ ||f+||^2 - lambda- ||f-||^2``
    over a hypersphere of the associated Hilbert space, reduced by the
    representer theorem to a quadratic over a sphere and solved globally
    (the secular equation on the eigendecomposition of ``S``). Predictions use
    the original test similarities, ``f(x) = s(x)^T coef_ + intercept_``.
""" + _PARAMS_DOC.replace(
        "{targets}", " and the centred targets by their standard deviation").replace(
        "{units}", " or ``y``") + """
    Attributes
    ----------
    coef_ : ndarray of shape (n,)
        ``a`` in the units of ``S`` and ``y``: ``predict(S_test) = S_test @ coef_ + intercept_``.
    coef_positive_, coef_negative_ : ndarray of shape (n,)
        ``f+(x) = s^T coef_positive_``, ``f-(x) = s^T coef_negative_``.
    intercept_ : float
    radius_ : float
        The radius used.
    multiplier_ : float
        ``mu`` of the optimality conditions ``(H + mu I) beta = g``.
    hard_case_ : bool
    objective_ : float
        The minimum of the sphere problem (standardised units, without the
        constant ``||y||^2 / n``).
    scale_, eigenvalues_, tol_, n_features_in_
        As :class:`KreinSVC`.

    Examples
    --------
    >>> import numpy as np
    >>> from proxlearn.krein import KreinLeastSquares
    >>> x = np.linspace(-2, 2, 30)
    >>> S = np.tanh(np.outer(x, x) - 0.5)  # an indefinite sigmoid similarity
    >>> reg = KreinLeastSquares().fit(S, x ** 3)
    >>> bool(reg.score(S, x ** 3) > 0.9)
    True

    See Also
    --------
    KreinLeastSquaresClassifier : the same problem with +-1 targets.
    KreinSVR : the epsilon-insensitive loss, trained on ``|S|``.
    """

    def fit(self, S, y):
        """Fit on the ``n x n`` training similarity matrix and real targets ``y``.

        Returns
        -------
        self
        """
        params, arr, y = self._fit_input(S, y, check_targets)
        mean = float(y.mean()) if params["fit_intercept"] else 0.0
        std = float(np.std(y - mean)) if params["normalize"] else 0.0
        y_scale = std if std > 0 else 1.0
        U, factor, A = self._fit_targets(arr, S, ((y - mean) / y_scale)[:, None], params)
        self._set_coef(U, factor, A, y_scale)
        self.coef_, self.coef_positive_, self.coef_negative_ = (
            self.coef_[0], self.coef_positive_[0], self.coef_negative_[0])
        self.multiplier_, self.hard_case_, self.objective_, self.radius_ = (
            float(self.multiplier_[0]), bool(self.hard_case_[0]), float(self.objective_[0]),
            float(self.radius_[0]))
        self.intercept_ = mean
        return self

    def decision_components(self, S_test):
        """``(f+, f-)`` of the predictions, each ``(m,)``: ``predict = f+ - f- + intercept_``."""
        return self._components(S_test)

    def predict(self, S_test):
        """Predictions ``S_test @ coef_ + intercept_`` for test-to-train similarities."""
        return self._raw(S_test)


class KreinLeastSquaresClassifier(_KreinLeastSquaresMixin, ClassifierMixin, BaseEstimator):
    __doc__ = """Oglic & Gärtner's Kreĭn least squares as a classifier (+-1 targets).

    The problem of :class:`KreinLeastSquares` with targets ``+1`` / ``-1``
    (Oglic & Gärtner 2018 evaluate it on classification this way): one problem
    for two classes (``+1`` for ``classes_[1]``), one per class against the rest
    for more (one eigendecomposition, one secular equation per class); the
    predicted class has the largest ``f``.
""" + _PARAMS_DOC.replace("{targets}", "").replace("{units}", "") + """
    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    coef_ : ndarray of shape (1, n) or (n_classes, n)
        ``decision_function(S_test) = S_test @ coef_.T + intercept_``.
    coef_positive_, coef_negative_ : ndarray of the shape of ``coef_``
        The parts of ``f+`` and ``f-``.
    intercept_ : ndarray of shape (1,) or (n_classes,)
    radius_, multiplier_, hard_case_, objective_ : ndarray of shape (1,) or (n_classes,)
        Per problem, as :class:`KreinLeastSquares`.
    scale_, eigenvalues_, tol_, n_features_in_
        As :class:`KreinSVC`.

    Examples
    --------
    >>> import numpy as np
    >>> from proxlearn.krein import KreinLeastSquaresClassifier
    >>> x = np.linspace(-2, 2, 20)
    >>> S = np.tanh(np.outer(x, x) - 0.5)
    >>> y = (x > 0).astype(int)
    >>> clf = KreinLeastSquaresClassifier().fit(S, y)
    >>> bool((clf.predict(S) == y).mean() >= 0.9)
    True

    See Also
    --------
    KreinLeastSquares : the regressor.
    KreinSVC : the hinge loss (KSVM).
    """

    def fit(self, S, y):
        """Fit on the ``n x n`` training similarity matrix and class labels ``y``.

        Returns
        -------
        self
        """
        params, arr, (self.classes_, y_idx) = self._fit_input(S, y, check_class_labels)
        k = len(self.classes_)
        T = np.where(y_idx[:, None] == (np.arange(k) if k > 2 else np.array([1])), 1.0, -1.0)
        mean = T.mean(axis=0) if params["fit_intercept"] else np.zeros(T.shape[1])
        U, factor, A = self._fit_targets(arr, S, T - mean, params)
        self._set_coef(U, factor, A, 1.0)
        self.intercept_ = mean
        return self

    def decision_components(self, S_test):
        """``(f+, f-)`` per problem, shape ``(m,)`` for two classes, else
        ``(m, n_classes)``: ``decision_function = f+ - f- + intercept_``."""
        f_pos, f_neg = self._components(S_test)
        return (f_pos[:, 0], f_neg[:, 0]) if f_pos.shape[1] == 1 else (f_pos, f_neg)

    def decision_function(self, S_test):
        """``S_test @ coef_.T + intercept_``: ``(m,)`` for two classes (positive means
        ``classes_[1]``), else ``(m, n_classes)``."""
        raw = self._raw(S_test)
        return raw[:, 0] if raw.shape[1] == 1 else raw

    def predict(self, S_test):
        """Class labels of test-to-train similarities ``(m, n)``."""
        raw = self._raw(S_test)
        idx = (raw[:, 0] > 0).astype(np.intp) if raw.shape[1] == 1 else np.argmax(raw, axis=1)
        return self.classes_[idx]
