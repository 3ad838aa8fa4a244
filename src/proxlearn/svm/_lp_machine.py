"""Linear programming machine on similarities as features.

Graepel, Herbrich, Schoelkopf, Smola, Bartlett, Mueller, Obermayer and
Williamson (1999); Chen et al. (JMLR 2009) eq. (5); Chen (2010, PhD thesis)
eq. (2.7):

.. math::

    \\min_{w, b} \\; \\|w\\|_1 + C \\sum_i \\max(0, 1 - y_i (w^T s_i + b)),

with ``s_i`` the ``i``-th row of ``S`` (used as given).
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from scipy.optimize import linprog
from sklearn.base import BaseEstimator, ClassifierMixin

from .._validation import (
    SolverError,
    check_classification_data,
    NORMALIZE,
    check_positive,
    options,
    positive,
    unchecked,
    validate_params,
)
from ..base import PairwiseMixin
from .._normalize import ScaleNormalizeMixin
from .._svm._platt import PlattProbabilityMixin
from ..solvers._hinge import central_hinge_intercept as _central_intercept
from .._svm._multiclass import _OvOLinearMixin, fit_ovo

__all__ = ["LPMachine", "lp_machine_binary", "lp_machine_path"]


def _margin_rows(S, y, fmt):
    """Constraint matrix of the margin rows in the variables ``(w+, w-, b, xi)``:
    ``-y_i s_i^T w+ + y_i s_i^T w- - y_i b - xi_i <= -1``."""
    n = S.shape[0]
    YS = sp.csr_array(y[:, None] * S)
    return sp.hstack(
        [-YS, YS, sp.csr_array(-y[:, None]), -sp.eye_array(n, format="csr")], format=fmt
    )


def _silent_highs(highspy):
    """A ``highspy.Highs`` with logging off.

    HiGHS >= 1.16 prints its banner from the C++ constructor, before any option
    can be set, once per process; in a reproduction run that is one copyright
    notice per worker in the middle of the progress display. The process's
    file descriptor 1 is pointed at ``os.devnull`` for the construction only.
    """
    import os
    import sys

    sys.stdout.flush()
    try:
        fd = sys.stdout.fileno()
    except (AttributeError, OSError, ValueError):  # no real descriptor (e.g. a notebook)
        fd = 1
    try:
        saved = os.dup(fd)
    except OSError:  # descriptor closed: nothing to protect
        saved = None
    try:
        if saved is not None:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, fd)
            os.close(devnull)
        h = highspy.Highs()
    finally:
        if saved is not None:
            os.dup2(saved, fd)
            os.close(saved)
    h.setOptionValue("output_flag", False)
    return h


def _unit_scale(S) -> float:
    """Factor ``sigma = 1 / max|S|`` that brings the LP's data to unit size.

    The LP machine is scale-equivariant: with ``S~ = sigma S`` and
    ``C~ = C / sigma``, the objective of ``(w~, b, xi)`` on ``(S~, C~)`` is
    ``1 / sigma`` times that of ``(w, b, xi) = (sigma w~, b, xi)`` on ``(S, C)``,
    so both problems have the same optimal decision function
    ``w^T s + b = w~^T s~ + b``, and the optimal value and the duals of the
    margin constraints are ``sigma`` times those of the scaled LP. HiGHS treats
    matrix entries below 1e-9 as zero and above 1e15 as infinite, so an
    unscaled ``S * 1e-12`` silently gave ``w = 0`` and ``S * 1e15`` a model
    error; at unit scale neither happens.
    """
    top = float(np.max(np.abs(S))) if S.size else 0.0
    return 1.0 / top if top > 0.0 else 1.0


def lp_machine_binary(S, y, C):
    """Solve the binary LP machine (Chen 2010, eq. 2.7) with HiGHS.

    LP in the variables ``(w+, w-, b, xi)`` (``w = w+ - w-``, ``b`` free)::

        minimize   1^T w+ + 1^T w- + C 1^T xi
        subject to -y_i s_i^T w+ + y_i s_i^T w- - y_i b - xi_i <= -1
                   w+, w-, xi >= 0

    Parameters
    ----------
    S : ndarray of shape (n, n_features)
        Rows are the similarity feature vectors.
    y : ndarray of shape (n,), values in {-1, +1}
    C : float > 0

    Returns
    -------
    w : ndarray of shape (n_features,)
    b : float
        The centre of the interval of intercepts optimal for ``w`` (the LP
        vertex gives one of its endpoints; see :func:`_central_intercept`).
    res : scipy.optimize.OptimizeResult
        HiGHS result; ``-res.ineqlin.marginals`` are the dual variables
        ``lambda_i in [0, C]`` of the margin constraints.

    Examples
    --------
    >>> import numpy as np
    >>> from proxlearn.svm._lp_machine import lp_machine_binary
    >>> S = np.array([[1.0, 0.2, -0.5], [0.2, 1.0, -0.4], [-0.5, -0.4, 1.0]])
    >>> w, b, res = lp_machine_binary(S, np.array([1, 1, -1]), 10.0)
    >>> w.round(3).tolist(), round(b, 3)  # sparse: one non-zero weight
    ([0.0, 0.0, -1.429], 0.429)

    See Also
    --------
    lp_machine_path : a grid of ``C`` with warm-started simplex solves.
    LPMachine : the classifier.
    """
    n, d = S.shape
    sigma = _unit_scale(S)  # solved at unit scale, mapped back exactly
    A_ub = _margin_rows(sigma * S, y, "csr")
    cost = np.concatenate([np.ones(2 * d), [0.0], np.full(n, C / sigma)])
    bounds = [(0.0, None)] * (2 * d) + [(None, None)] + [(0.0, None)] * n
    res = linprog(cost, A_ub=A_ub, b_ub=-np.ones(n), bounds=bounds, method="highs")
    if res.status != 0:
        raise SolverError(
            f"LPMachine: HiGHS did not solve the LP for C={C:g} ({res.message})."
        )
    z = res.x
    w = sigma * (z[:d] - z[d : 2 * d])
    res.fun = sigma * res.fun
    res.ineqlin.marginals = sigma * res.ineqlin.marginals
    return w, float(_central_intercept(S @ w, y)), res


def lp_machine_path(S, y, Cs):
    """The binary LP machine for several ``C`` with warm-started simplex solves.

    Only the cost of the slack variables changes with ``C`` (eq. 2.7), so the
    optimal basis for one ``C`` stays primal feasible for the next and the
    primal simplex restarts from it. The LP is built once and handed to
    HiGHS through its own Python interface (:mod:`highspy`), because
    :func:`scipy.optimize.linprog` has no warm start; on a voting fold this
    is several times faster than one cold ``linprog`` per ``C`` (see
    ``benchmarks/bench_study_folds.py``). Each solve is optimal for its ``C``; when
    the LP has several optimal vertices (duplicated samples) the vertex can
    differ from the cold solve of :func:`lp_machine_binary`, with the same
    objective. The intercept is not left to the vertex: both functions return
    the centre of the interval of intercepts that are optimal for the ``w``
    found (see :func:`_central_intercept`), so a degenerate ``b`` (e.g.
    ``w = 0`` at a small ``C``) cannot make the two disagree.

    Parameters
    ----------
    S : ndarray of shape (n, n_features)
    y : ndarray of shape (n,), values in {-1, +1}
    Cs : sequence of float > 0

    Returns
    -------
    list of (w, b, objective), in the order of ``Cs``.

    Examples
    --------
    >>> import numpy as np
    >>> from proxlearn.svm import lp_machine_path
    >>> S = np.array([[1.0, 0.2, -0.5], [0.2, 1.0, -0.4], [-0.5, -0.4, 1.0]])
    >>> y = np.array([1, 1, -1])
    >>> [len(w) for w, b, objective in lp_machine_path(S, y, [0.1, 10.0])]
    [3, 3]

    See Also
    --------
    LPMachine : the classifier built on this LP.
    lp_machine_binary : one cold solve with :func:`scipy.optimize.linprog`.
    """
    import highspy

    n, d = S.shape
    sigma = _unit_scale(S)  # as lp_machine_binary: solved at unit scale
    A_ub = _margin_rows(sigma * S, y, "csc")
    inf = highspy.kHighsInf
    n_var = 2 * d + 1 + n
    lp = highspy.HighsLp()
    lp.num_col_ = n_var
    lp.num_row_ = n
    lp.col_cost_ = np.concatenate([np.ones(2 * d), [0.0], np.zeros(n)])
    lp.col_lower_ = np.concatenate([np.zeros(2 * d), [-inf], np.zeros(n)])
    lp.col_upper_ = np.full(n_var, inf)
    lp.row_lower_ = np.full(n, -inf)
    lp.row_upper_ = np.full(n, -1.0)
    lp.a_matrix_.format_ = highspy.MatrixFormat.kColwise
    lp.a_matrix_.start_ = A_ub.indptr
    lp.a_matrix_.index_ = A_ub.indices
    lp.a_matrix_.value_ = A_ub.data
    h = _silent_highs(highspy)
    h.passModel(lp)
    slack = np.arange(2 * d + 1, n_var, dtype=np.int32)
    out: dict[float, tuple] = {}
    for C in sorted({check_positive(C, "C") for C in Cs}):
        h.changeColsCost(n, slack, np.full(n, C / sigma))
        h.run()
        status = h.getModelStatus()
        if status != highspy.HighsModelStatus.kOptimal:
            raise SolverError(
                f"LPMachine: HiGHS did not solve the LP for C={C:g} "
                f"(status {h.modelStatusToString(status)})."
            )
        z = np.asarray(h.getSolution().col_value)
        w = sigma * (z[:d] - z[d : 2 * d])
        out[C] = (w, float(_central_intercept(S @ w, y)),
                  sigma * float(h.getInfo().objective_function_value))
    return [out[float(C)] for C in Cs]


class LPMachine(PairwiseMixin, PlattProbabilityMixin, ScaleNormalizeMixin, _OvOLinearMixin,
                ClassifierMixin, BaseEstimator):
    """l1-regularised hinge-loss classifier on similarities as features (LP machine).

    Solves, for each binary problem (Chen 2010, eq. 2.7; Chen et al. 2009,
    eq. 5; Graepel et al. 1999)::

        minimize_{w, b}  ||w||_1 + C sum_i max(0, 1 - y_i (w^T s_i + b))

    as a linear program with ``scipy.optimize.linprog(method="highs")``,
    solved on ``S / max|S|`` with ``C max|S|`` and mapped back exactly (the
    LP is scale-equivariant), so that the result does not depend on the units
    of ``S``: ``LPMachine(C=c / s).fit(s * S)`` has the decision function of
    ``LPMachine(C=c).fit(S)`` for every ``s > 0``. The
    l1 norm makes ``w`` sparse. Multiclass problems are solved one-vs-one:
    the machine for classes ``(i, j)`` uses the rows and columns of those two
    classes only (see :mod:`proxlearn._svm._multiclass`).

    Parameters
    ----------
    C : float > 0, default=1.0
        Weight of the hinge loss.
    decision_function_shape : {"ovr", "ovo"}, default="ovr"
        Shape of ``decision_function`` for more than two classes.
    probability, random_state : bool, default=False; int or None, default=None
        ``predict_proba`` by Platt scaling on an internal CV, see
        :class:`~proxlearn._svm._platt.PlattProbabilityMixin`.
    normalize : bool, default=True
        Solve the LP on ``S / scale_`` with ``scale_ = tr S / n`` (1 for a
        unit-diagonal similarity), so that ``C`` does not depend on the units of
        ``S`` and a positive factor on ``S`` leaves every prediction unchanged;
        ``False`` uses ``S`` as given (Chen et al. 2009). See
        :mod:`proxlearn._normalize`.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    scale_ : float
        The factor ``S`` was divided by (1.0 with ``normalize=False``).
    coef_ : ndarray of shape (n_pairs, n_train)
        ``w`` of each binary machine on the raw test rows (``w / scale_`` of the
        LP on ``S / scale_``), zero outside its two classes.
    intercept_ : ndarray of shape (n_pairs,)
    support_ : ndarray of int
        Training samples with a non-zero weight in some machine.
    n_support_ : ndarray of shape (n_classes,)
        Number of non-zero weights per class.
    objective_ : ndarray of shape (n_pairs,)
        Optimal LP objective of each binary machine (on ``S / scale_``).
    dual_coef_ : list of ndarray
        Per pair, the LP duals ``lambda_i in [0, C]`` of the margin constraints
        (in the order of the pair's training samples; on ``S / scale_``).
    n_features_in_ : int

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from proxlearn.svm import LPMachine
    >>> X, y = load_iris(return_X_y=True)
    >>> S = X @ X.T
    >>> LPMachine(C=10.0).fit(S, y).predict(S[::50]).tolist()
    [0, 1, 2]

    See Also
    --------
    lp_machine_path : the binary LP for a grid of ``C`` with warm starts.
    PotentialSVM : the P-SVM, a box-constrained lasso on the same features.
    SimilarityFeatureSVC : the l2-regularised SVM on the same features.

    References
    ----------
    T. Graepel, R. Herbrich, B. Schoelkopf, A. Smola, P. Bartlett,
    K.-R. Mueller, K. Obermayer and R. Williamson. Classification on
    proximity data with LP-machines. ICANN 1999.
    """

    _parameter_constraints = {
        "C": positive(),
        "decision_function_shape": options("ovr", "ovo"),
        "normalize": NORMALIZE,
        "probability": unchecked("read as a truth value, as scikit-learn's SVC"),
        "random_state": unchecked("sklearn.utils.check_random_state, in the probability CV"),
    }

    def __init__(self, C=1.0, *, decision_function_shape="ovr", probability=False, random_state=None,
                 normalize=True):
        self.C = C
        self.decision_function_shape = decision_function_shape
        self.probability = probability
        self.random_state = random_state
        self.normalize = normalize

    def fit(self, S, y):
        """Fit on an ``(n, n)`` training similarity matrix and labels.

        Parameters
        ----------
        S : array-like of shape (n, n)
            Row ``i`` is the similarity feature vector of sample ``i``
            (asymmetric ``S`` is used as given).
        y : array-like of shape (n,)

        Returns
        -------
        self
        """
        S_raw = S  # as given: the probability CV refits on slices of it
        params = validate_params(self)
        C = params["C"]
        S, self.classes_, y_idx = check_classification_data(S, y)
        S = self._fit_scale(S, params["normalize"])
        n = S.shape[0]

        def fit_binary(S_sub, y_pm):
            w, b, res = lp_machine_binary(S_sub, y_pm, C)
            return w, b, res

        self.coef_, self.intercept_, infos = fit_ovo(S, y_idx, len(self.classes_), fit_binary)
        self.coef_ /= self.scale_  # the decision is linear in the raw test rows
        self.objective_ = np.array([r.fun for r in infos])
        self.dual_coef_ = [-r.ineqlin.marginals for r in infos]
        self._set_support(y_idx, n)
        return self._fit_probability(S_raw, y)
