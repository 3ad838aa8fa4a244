"""Potential support vector machine (P-SVM) on similarities as features.

Hochreiter & Obermayer (2006); Chen et al. (JMLR 2009) eq. (6); Chen (2010,
PhD thesis) eq. (2.8):

.. math::

    \\min_\\alpha \\; \\tfrac12 \\|y - S\\alpha\\|_2^2 + \\varepsilon \\|\\alpha\\|_1
    \\quad \\text{s.t.} \\quad \\|\\alpha\\|_\\infty \\le C,

with row ``i`` of ``S`` the similarity feature vector ``s_i`` of training
sample ``i`` (``S`` used as given, not symmetrised), and decision
``f(s) = s^T alpha + b``.
"""

from __future__ import annotations

import warnings

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.exceptions import ConvergenceWarning

from .._validation import (
    NORMALIZE,
    InvalidParameterError,
    boolean,
    check_classification_data,
    integer,
    options,
    positive,
    unchecked,
    validate_params,
)
from ..base import PairwiseMixin
from .._svm._platt import PlattProbabilityMixin
from ..solvers import box_lasso
from .._normalize import ScaleNormalizeMixin
from .._svm._multiclass import _OvOLinearMixin, fit_ovo

__all__ = ["PotentialSVM"]


class PotentialSVM(PairwiseMixin, PlattProbabilityMixin, ScaleNormalizeMixin, _OvOLinearMixin,
                   ClassifierMixin, BaseEstimator):
    """P-SVM: box-constrained lasso regression of the labels on similarity features.

    Solves, for each binary problem (Chen 2010, eq. 2.8; Chen et al. 2009,
    eq. 6; Hochreiter & Obermayer 2006)::

        minimize_alpha  1/2 ||y - S_c alpha||^2 + epsilon ||alpha||_1
        subject to      |alpha_j| <= C

    with :func:`proxlearn.solvers.box_lasso` (interior point plus exact
    active-set polish; the fitted ``duality_gap_`` and ``kkt_residual_``
    certify optimality). The l1 term makes ``alpha`` sparse: training samples
    with ``alpha_j != 0`` are the support vectors.

    **Intercept.** The paper's formulation has no offset. With
    ``fit_intercept=True`` (default) an *unpenalised* offset ``b`` is fitted
    jointly: minimising ``1/2 ||y - S alpha - b 1||^2`` over ``b`` gives
    ``b = mean(y - S alpha)``, so ``alpha`` solves the problem above with
    column-centred ``S_c = S - 1 mean_rows(S)`` and centred ``y - mean(y)``,
    and ``b = mean(y) - mean_rows(S) @ alpha``. This matches the original
    P-SVM, which centres the columns of the data matrix and uses
    ``b = mean(y)`` (without the unit-variance scaling). With
    ``fit_intercept=False`` the paper's eq. (2.8) is solved as written and
    ``b = 0``.

    **Multiclass.** One-vs-one (as the other SVMs of Chen et al.): the machine
    for classes ``(i, j)`` uses the rows and columns of those two classes
    only; votes, ties broken by the summed decision values, then by the
    lowest class index. See :mod:`proxlearn._svm._multiclass`.

    Parameters
    ----------
    C : float > 0, default=1.0
        Box bound on ``|alpha_j|`` (of the normalised problem, see
        ``normalize``).
    epsilon : float >= 0, default=1.0
        Weight of the l1 penalty (``epsilon = 0`` gives a box-constrained
        least-squares fit), in the units of the normalised matrix. The paper
        gives no default (Chen et al. 2009 tune it over ``1e-4 .. 10``);
        ``1.0`` is ours, chosen on the defaults panel (docs/methods.md,
        "P-SVM defaults"; ``0.1``, the former default, loses to the clip SVM
        on 8 of 14 data sets).
    normalize : bool, default=True
        Divide ``S`` (and, through ``coef_``, the test rows) by the training
        scale ``tr S / n`` (:mod:`proxlearn._normalize`), so that
        ``C`` and ``epsilon`` do not depend on the units of ``S`` and the
        predictions are unchanged by a positive factor on ``S``. ``False``
        solves eq. (2.8) on ``S`` as given (identical for unit-diagonal ``S``).
    fit_intercept : bool, default=True
        Fit the unpenalised offset described above.
    decision_function_shape : {"ovr", "ovo"}, default="ovr"
        Shape of ``decision_function`` for more than two classes.
    tol : float > 0, default=1e-9
        Relative duality-gap tolerance of the solver.
    max_iter : int, default=200
        Maximum interior-point iterations per binary problem.
    probability, random_state : bool, default=False; int or None, default=None
        ``predict_proba`` by Platt scaling on an internal CV, see
        :class:`~proxlearn._svm._platt.PlattProbabilityMixin`.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    coef_ : ndarray of shape (n_pairs, n_train)
        ``alpha / scale_`` of each binary machine (the weights on the raw test
        similarities), zero outside its two classes (``n_pairs = 1`` for two
        classes).
    scale_ : float
        The training scale divided out (``1.0`` with ``normalize=False``).
    intercept_ : ndarray of shape (n_pairs,)
    support_ : ndarray of int
        Training samples with a non-zero coefficient in some machine.
    n_support_ : ndarray of shape (n_classes,)
        Number of support vectors per class.
    duality_gap_, kkt_residual_, objective_ : ndarray of shape (n_pairs,)
        Optimality certificate of each binary problem (see
        :func:`proxlearn.solvers.box_lasso`).
    n_iter_ : ndarray of shape (n_pairs,)
    n_features_in_ : int
        Number of training samples.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from proxlearn.svm import PotentialSVM
    >>> X, y = load_iris(return_X_y=True)
    >>> S = X @ X.T
    >>> clf = PotentialSVM().fit(S, y)
    >>> clf.predict(S[25::50]).tolist(), clf.coef_.shape
    ([0, 1, 2], (3, 150))

    See Also
    --------
    proxlearn.solvers.box_lasso : the solver of each binary problem.
    LPMachine : the l1-regularised hinge loss on the same features.

    References
    ----------
    S. Hochreiter and K. Obermayer. Support vector machines for dyadic data.
    Neural Computation 18(6), 2006.
    Y. Chen, E. K. Garcia, M. R. Gupta, A. Rahimi and L. Cazzanti.
    Similarity-based classification: concepts and algorithms. JMLR 10, 2009.
    """

    _parameter_constraints = {
        "C": positive(),
        "epsilon": positive(allow_zero=True),
        "tol": positive(),
        "max_iter": integer(1),
        "fit_intercept": boolean(),
        "normalize": NORMALIZE,
        "decision_function_shape": options("ovr", "ovo"),
        "probability": unchecked("read as a truth value, as scikit-learn's SVC"),
        "random_state": unchecked("sklearn.utils.check_random_state, in the probability CV"),
    }

    def __init__(
        self,
        C=1.0,
        epsilon=1.0,
        *,
        normalize=True,
        fit_intercept=True,
        decision_function_shape="ovr",
        tol=1e-9,
        max_iter=200,
        probability=False,
        random_state=None,
    ):
        self.C = C
        self.epsilon = epsilon
        self.normalize = normalize
        self.fit_intercept = fit_intercept
        self.decision_function_shape = decision_function_shape
        self.tol = tol
        self.max_iter = max_iter
        self.probability = probability
        self.random_state = random_state

    def fit(self, S, y):
        """Fit on an ``(n, n)`` training similarity matrix and labels.

        Parameters
        ----------
        S : array-like of shape (n, n)
            ``S[i, j] = psi(x_i, x_j)``; row ``i`` is the feature vector of
            sample ``i``. Asymmetric ``S`` is used as given.
        y : array-like of shape (n,)

        Returns
        -------
        self
        """
        S_raw = S  # as given: the probability CV refits on slices of it
        params = validate_params(self)
        C, eps, tol, max_iter = (params[k] for k in ("C", "epsilon", "tol", "max_iter"))
        S, self.classes_, y_idx = check_classification_data(S, y)
        n = S.shape[0]
        fit_intercept = params["fit_intercept"]
        S = self._fit_scale(S, params["normalize"])

        def fit_binary(S_sub, y_pm):
            if fit_intercept:
                col_mean = S_sub.mean(axis=0)
                y_mean = y_pm.mean()
                res = box_lasso(S_sub - col_mean, y_pm - y_mean, eps, C, tol=tol,
                                max_iter=max_iter)
                b = y_mean - col_mean @ res.x
            else:
                res = box_lasso(S_sub, y_pm, eps, C, tol=tol, max_iter=max_iter)
                b = 0.0
            return res.x, b, res

        self.coef_, self.intercept_, infos = fit_ovo(S, y_idx, len(self.classes_), fit_binary)
        if self.scale_ != 1.0:  # f(s) = (s / c)^T alpha + b on raw test rows
            self.coef_ = self.coef_ / self.scale_
        self.duality_gap_ = np.array([r.duality_gap for r in infos])
        self.kkt_residual_ = np.array([r.kkt_residual for r in infos])
        self.objective_ = np.array([r.objective for r in infos])
        self.n_iter_ = np.array([r.n_iter for r in infos])
        bad = self.duality_gap_ > 1e-6 * np.maximum(1.0, self.objective_)
        if bad.any():
            warnings.warn(
                f"PotentialSVM: the solver stopped with a relative duality gap of "
                f"{np.max(self.duality_gap_ / np.maximum(1.0, self.objective_)):.2g} "
                "in at least one binary problem; increase max_iter or check the "
                "scaling of S.",
                ConvergenceWarning,
                stacklevel=2,
            )
        self._set_support(y_idx, n)
        return self._fit_probability(S_raw, y)
