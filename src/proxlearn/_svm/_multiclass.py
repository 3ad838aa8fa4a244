"""The one-vs-one driver: every multiclass SVM-type classifier of the library.

Chen et al. (JMLR 2009, section 2.8) and Chen (2010, section 2.2) train every
multiclass SVM one-vs-one. For the pair of classes ``(i, j)``, ``i < j``, the
binary machine sees only the training samples of classes ``i`` and ``j``: the
rows *and* columns of the training matrix that belong to them (as libsvm does
with a precomputed kernel). An estimator states its binary problem as a function
of one :class:`BinaryProblem`; :func:`ovo_fit` builds the problems and calls it
once per pair, :func:`scatter_pairs` assembles per-pair coefficients into dense
``(n_pairs, n_train, ...)`` arrays, :func:`ovo_decision` / :func:`ovo_labels`
turn pairwise decision values into the estimator's outputs, and
:func:`transductive_outputs` does the same for the unlabelled samples of a
transductive fit. A linear decision function of the test similarities,
``f_ij(s) = s[idx_ij] @ coef + b``, is stored as a row of a dense
``(n_pairs, n_train)`` matrix that is zero outside ``idx_ij``
(:func:`fit_ovo`, :class:`_OvOLinearMixin`), so all pairwise decisions are one
matrix product.

Conventions
-----------
* Binary labels for the pair ``(i, j)`` are ``-1`` for class ``i`` and ``+1``
  for class ``j``; a positive decision votes for ``j`` (the higher index), so
  the binary case matches scikit-learn (``decision > 0`` means ``classes_[1]``).
* Votes: ``f_ij > 0`` votes for ``j``, otherwise for ``i``.
* ``decision_function`` of shape ``(m, n_classes)`` ("ovr" shape) is
  ``votes + conf / (3 (|conf| + 1))`` where ``conf[:, k]`` is the sum of the
  pairwise decision values in favour of class ``k``. The added term lies in
  ``(-1/3, 1/3)``, so it only breaks ties between classes with equal votes (by
  the summed decision values); remaining exact ties go to the lowest class
  index (``argmax``).
* Transductive fits: the ``N - n`` unlabelled samples follow the ``n`` labelled
  ones; the problem of a pair covers its labelled samples, then all unlabelled
  ones (:attr:`BinaryProblem.rows`).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from sklearn.utils.validation import check_is_fitted

from .._validation import LabelError, check_labels, check_test_similarity

__all__ = [
    "BinaryProblem",
    "fit_ovo",
    "fit_pairs",
    "libsvm_vote",
    "ovo_decision",
    "ovo_decision_ovr",
    "ovo_fit",
    "ovo_labels",
    "ovo_pairs",
    "ovo_predict_index",
    "ovo_problems",
    "scatter_pairs",
    "transductive_labels",
    "transductive_outputs",
    "unlabelled_decisions",
]


def ovo_pairs(n_classes: int) -> list[tuple[int, int]]:
    """All pairs ``(i, j)`` with ``i < j``, in libsvm/scikit-learn order.

    Examples
    --------
    >>> from proxlearn._svm._multiclass import ovo_pairs
    >>> ovo_pairs(3)
    [(0, 1), (0, 2), (1, 2)]

    See Also
    --------
    ovo_problems : the binary problem of each pair.
    """
    return [(i, j) for i in range(n_classes) for j in range(i + 1, n_classes)]


class BinaryProblem(NamedTuple):
    """The binary problem of one pair of classes.

    Attributes
    ----------
    k : int
        Position of the pair in :func:`ovo_pairs` (the column of the pairwise
        decision values).
    pair : tuple of int
        The class indices ``(i, j)``, ``i < j``.
    idx : ndarray of int
        The training samples of classes ``i`` and ``j``, in training order.
    y : ndarray of float
        Their labels: ``+1`` for class ``j``, ``-1`` for class ``i``.
    rows : ndarray of int
        ``idx`` followed by the unlabelled samples ``n .. N - 1`` of a
        transductive fit (``idx`` itself otherwise).

    Examples
    --------
    >>> import numpy as np
    >>> from proxlearn._svm._multiclass import ovo_problems
    >>> y_idx = np.array([0, 1, 2, 1])
    >>> problem = ovo_problems(y_idx, 3)[0]
    >>> problem.pair, problem.idx.tolist(), problem.y.tolist()
    ((0, 1), [0, 1, 3], [-1.0, 1.0, 1.0])

    See Also
    --------
    ovo_problems : the problems of all pairs.
    """

    k: int
    pair: tuple[int, int]
    idx: np.ndarray
    y: np.ndarray
    rows: np.ndarray


def ovo_problems(y_idx, n_classes, n_total=None) -> list[BinaryProblem]:
    """The :class:`BinaryProblem` of every pair, in :func:`ovo_pairs` order.

    Parameters
    ----------
    y_idx : ndarray of int of shape (n,)
        Class indices in ``0 .. n_classes - 1`` of the labelled samples.
    n_classes : int
    n_total : int, optional
        ``N >= n`` for a transductive fit: samples ``n .. N - 1`` are unlabelled
        and end every problem's ``rows``.

    Returns
    -------
    list of BinaryProblem

    Examples
    --------
    >>> import numpy as np
    >>> from proxlearn._svm._multiclass import ovo_problems
    >>> y_idx = np.array([0, 1, 2, 1])
    >>> [p.idx.tolist() for p in ovo_problems(y_idx, 3)]
    [[0, 1, 3], [0, 2], [1, 2, 3]]
    >>> ovo_problems(y_idx, 3, n_total=6)[0].rows.tolist()  # two unlabelled samples
    [0, 1, 3, 4, 5]

    See Also
    --------
    ovo_fit : build them and fit each.
    BinaryProblem : one pair's problem.
    """
    y_idx = np.asarray(y_idx)
    n = y_idx.shape[0]
    unlabelled = np.arange(n, n if n_total is None else n_total)
    problems = []
    for k, (i, j) in enumerate(ovo_pairs(n_classes)):
        idx = np.flatnonzero((y_idx == i) | (y_idx == j))
        rows = np.concatenate([idx, unlabelled]) if unlabelled.size else idx
        problems.append(BinaryProblem(k, (i, j), idx, np.where(y_idx[idx] == j, 1.0, -1.0),
                                      rows))
    return problems


def ovo_fit(y_idx, n_classes, fit_binary, n_total=None):
    """Fit one binary machine per pair of classes.

    Parameters
    ----------
    y_idx, n_classes, n_total
        As for :func:`ovo_problems`.
    fit_binary : callable
        ``fit_binary(problem) -> result`` for one :class:`BinaryProblem`: the
        estimator's binary problem (it slices its training data with
        ``problem.idx`` or ``problem.rows``).

    Returns
    -------
    problems : list of BinaryProblem
    results : list
        What ``fit_binary`` returned, one per pair, in the same order.

    Examples
    --------
    >>> import numpy as np
    >>> from proxlearn._svm._multiclass import ovo_fit
    >>> y_idx = np.array([0, 1, 2, 1])
    >>> problems, results = ovo_fit(y_idx, 3, lambda problem: len(problem.idx))
    >>> results
    [3, 2, 3]

    See Also
    --------
    fit_ovo : the same for linear machines on similarity features.
    scatter_pairs : assemble the per-pair coefficients.
    ovo_decision : the outputs from the pairwise decision values.
    """
    problems = ovo_problems(y_idx, n_classes, n_total)
    return problems, fit_pairs(problems, fit_binary)


def fit_pairs(problems, fit_binary) -> list:
    """``fit_binary(problem)`` for every problem of :func:`ovo_problems`, in order:
    the fits of an algorithm that alternates one-vs-one SVMs with another step
    on the same problems (:func:`ovo_fit` builds them and fits once).

    Examples
    --------
    >>> import numpy as np
    >>> from proxlearn._svm._multiclass import fit_pairs, ovo_problems
    >>> y_idx = np.array([0, 1, 2, 1])
    >>> fit_pairs(ovo_problems(y_idx, 3), lambda problem: problem.pair)
    [(0, 1), (0, 2), (1, 2)]

    See Also
    --------
    ovo_fit : build the problems and fit once.
    """
    return [fit_binary(p) for p in problems]


def scatter_pairs(problems, values, n):
    """Per-pair values on each pair's training samples as one dense array.

    Row ``k`` of the result of shape ``(n_pairs, n, ...)`` holds ``values[k]``
    (shape ``(len(problems[k].idx), ...)``) at ``problems[k].idx`` and zeros
    elsewhere (the samples outside the pair).

    Examples
    --------
    >>> import numpy as np
    >>> from proxlearn._svm._multiclass import scatter_pairs, ovo_problems
    >>> y_idx = np.array([0, 1, 2, 1])
    >>> problems = ovo_problems(y_idx, 3)
    >>> scatter_pairs(problems, [np.ones(len(p.idx)) for p in problems], 4).tolist()
    [[1.0, 1.0, 0.0, 1.0], [1.0, 0.0, 1.0, 0.0], [0.0, 1.0, 1.0, 1.0]]

    See Also
    --------
    ovo_fit : the per-pair results it assembles.
    """
    values = [np.asarray(v) for v in values]
    out = np.zeros((len(problems), n) + values[0].shape[1:])
    for p, v in zip(problems, values, strict=True):
        out[p.k, p.idx] = v
    return out


def fit_ovo(S, y_idx, n_classes, fit_binary):
    """Fit one binary linear machine (on the similarities as features) per pair.

    Parameters
    ----------
    S : ndarray of shape (n, n)
        Training similarities (used as given).
    y_idx : ndarray of int of shape (n,)
        Class indices in ``0 .. n_classes - 1``.
    n_classes : int
    fit_binary : callable
        ``fit_binary(S_sub, y_pm) -> (coef, intercept, info)`` where ``S_sub``
        is the ``(n_sub, n_sub)`` block of the two classes, ``y_pm`` in
        ``{-1, +1}``, ``coef`` has shape ``(n_sub,)``.

    Returns
    -------
    coef : ndarray of shape (n_pairs, n)
    intercept : ndarray of shape (n_pairs,)
    infos : list
        The ``info`` objects returned by ``fit_binary``, one per pair.

    Examples
    --------
    >>> import numpy as np
    >>> from proxlearn._svm._multiclass import fit_ovo
    >>> y_idx = np.array([0, 1, 2, 1])
    >>> coef, intercept, infos = fit_ovo(np.eye(4), y_idx, 3, lambda S, y: (y, 0.0, None))
    >>> coef.shape, intercept.tolist()
    ((3, 4), [0.0, 0.0, 0.0])

    See Also
    --------
    ovo_fit : the general driver.
    proxlearn.svm.PotentialSVM, proxlearn.svm.LPMachine : machines fitted this way.
    """
    problems, fits = ovo_fit(y_idx, n_classes,
                             lambda p: fit_binary(S[np.ix_(p.idx, p.idx)], p.y))
    coef = scatter_pairs(problems, [w for w, _, _ in fits], S.shape[0])
    intercept = np.array([b for _, b, _ in fits], dtype=np.float64)
    return coef, intercept, [info for _, _, info in fits]


def ovo_decision_ovr(raw, n_classes):
    """Turn pairwise decisions ``(m, n_pairs)`` into ``(m, n_classes)`` scores.

    See the module docstring for the vote / tie-breaking rule.

    Examples
    --------
    >>> import numpy as np
    >>> from proxlearn._svm._multiclass import ovo_decision_ovr
    >>> raw = np.array([[1.0, -0.5, 2.0], [-1.0, -2.0, 0.5]])  # pairs (0, 1), (0, 2), (1, 2)
    >>> ovo_decision_ovr(raw, 3).round(3).tolist()  # one vote each in row 0
    [[0.889, 0.833, 1.2], [2.25, -0.2, 0.8]]

    See Also
    --------
    ovo_decision : the binary and ``"ovo"`` shapes too.
    ovo_predict_index : the class of the largest score.
    """
    raw = np.asarray(raw, dtype=np.float64)
    m = raw.shape[0]
    votes = np.zeros((m, n_classes))
    conf = np.zeros((m, n_classes))
    for k, (i, j) in enumerate(ovo_pairs(n_classes)):
        pos = raw[:, k] > 0
        votes[:, j] += pos
        votes[:, i] += ~pos
        conf[:, j] += raw[:, k]
        conf[:, i] -= raw[:, k]
    return votes + conf / (3.0 * (np.abs(conf) + 1.0))


def ovo_predict_index(raw, n_classes):
    """Predicted class indices from pairwise decisions (votes, then tie-breaks).

    Examples
    --------
    >>> import numpy as np
    >>> from proxlearn._svm._multiclass import ovo_predict_index
    >>> raw = np.array([[1.0, -0.5, 2.0], [-1.0, -2.0, 0.5]])  # pairs (0, 1), (0, 2), (1, 2)
    >>> ovo_predict_index(raw, 3).tolist()  # row 0: a three-way tie, broken by the values
    [2, 0]

    See Also
    --------
    libsvm_vote : libsvm's rule (ties to the lowest index).
    ovo_labels : the labels instead of indices.
    """
    raw = np.asarray(raw, dtype=np.float64)
    if n_classes == 2:
        return (raw[:, 0] > 0).astype(np.intp)
    return np.argmax(ovo_decision_ovr(raw, n_classes), axis=1)


def libsvm_vote(raw, n_classes):
    """Class indices by libsvm's vote (what ``SVC.predict`` returns): a pairwise
    value ``>= 0`` votes for the pair's second class, and ties between classes go
    to the lowest index (no tie-breaking by the decision values).

    Examples
    --------
    >>> import numpy as np
    >>> from proxlearn._svm._multiclass import libsvm_vote
    >>> raw = np.array([[1.0, -0.5, 2.0], [-1.0, -2.0, 0.5]])  # pairs (0, 1), (0, 2), (1, 2)
    >>> libsvm_vote(raw, 3).tolist()  # row 0: a three-way tie, to class 0
    [0, 0]

    See Also
    --------
    ovo_predict_index : ties broken by the decision values.
    """
    votes = np.zeros((raw.shape[0], n_classes))
    for p, (i, j) in enumerate(ovo_pairs(n_classes)):
        second = raw[:, p] >= 0
        votes[:, j] += second
        votes[:, i] += ~second
    return np.argmax(votes, axis=1)


def ovo_decision(raw, n_classes, shape="ovr"):
    """``decision_function`` from pairwise decisions ``raw`` of shape ``(m, n_pairs)``.

    Two classes: ``raw[:, 0]`` (positive means class 1). More: the votes with
    their tie-breaking term, ``(m, n_classes)`` (``shape="ovr"``), or ``raw``
    itself (``shape="ovo"``).

    Examples
    --------
    >>> import numpy as np
    >>> from proxlearn._svm._multiclass import ovo_decision
    >>> raw = np.array([[1.0, -0.5, 2.0], [-1.0, -2.0, 0.5]])  # pairs (0, 1), (0, 2), (1, 2)
    >>> ovo_decision(raw, 3).shape, ovo_decision(raw, 3, shape="ovo").shape
    ((2, 3), (2, 3))
    >>> ovo_decision(raw[:, :1], 2).tolist()  # two classes: the one pairwise value
    [1.0, -1.0]

    See Also
    --------
    ovo_decision_ovr : the vote scores.
    ovo_labels : the predicted labels.
    """
    if n_classes == 2:
        return raw[:, 0]
    if shape == "ovo":
        return raw
    return ovo_decision_ovr(raw, n_classes)


def ovo_labels(raw, classes):
    """Class labels (from ``classes``) of pairwise decisions ``(m, n_pairs)``.

    Examples
    --------
    >>> import numpy as np
    >>> from proxlearn._svm._multiclass import ovo_labels
    >>> raw = np.array([[1.0, -0.5, 2.0], [-1.0, -2.0, 0.5]])  # pairs (0, 1), (0, 2), (1, 2)
    >>> ovo_labels(raw, np.array(["a", "b", "c"])).tolist()
    ['c', 'a']

    See Also
    --------
    ovo_predict_index : the class indices.
    """
    return classes[ovo_predict_index(raw, len(classes))]


def unlabelled_decisions(problems, kernels, dual_coefs, intercepts):
    """Pairwise decision values ``(N - n, n_pairs)`` of the unlabelled samples of a
    transductive fit that learned, per pair, a kernel over ``problem.rows``
    (labelled samples first): ``K[n_k:, :n_k] @ c_k + b_k`` with ``n_k`` the
    pair's labelled samples and ``c_k`` their dual coefficients.

    Examples
    --------
    >>> import numpy as np
    >>> from proxlearn._svm._multiclass import unlabelled_decisions, ovo_problems
    >>> y_idx = np.array([0, 1, 2, 1])
    >>> problems = ovo_problems(y_idx, 3, n_total=6)
    >>> kernels = [np.eye(len(p.rows)) for p in problems]
    >>> dual_coefs = [np.ones(len(p.idx)) for p in problems]
    >>> unlabelled_decisions(problems, kernels, dual_coefs, [0.5, 0.5, 0.5]).tolist()
    [[0.5, 0.5, 0.5], [0.5, 0.5, 0.5]]

    See Also
    --------
    transductive_outputs : the outputs from these values.
    """
    return np.column_stack([K[p.idx.size:, : p.idx.size] @ c + b for p, K, c, b in
                            zip(problems, kernels, dual_coefs, intercepts, strict=True)])


def transductive_labels(y, N, transductive, name):
    """Classes, label indices and ``n`` labelled samples of ``N`` (labelled first).

    With ``transductive``, ``y`` labels the first ``len(y) <= N`` samples;
    otherwise all ``N``.

    Examples
    --------
    >>> import numpy as np
    >>> from proxlearn._svm._multiclass import transductive_labels
    >>> classes, y_idx, n = transductive_labels(np.array(["a", "b", "a"]), 5, True, "y")
    >>> classes.tolist(), y_idx.tolist(), n
    (['a', 'b'], [0, 1, 0], 3)

    See Also
    --------
    ovo_problems : the problems with the unlabelled samples (``n_total``).
    """
    if transductive:
        y_arr = np.asarray(y) if y is not None else None
        if y_arr is None or y_arr.ndim != 1 or not 0 < y_arr.shape[0] <= N:
            raise LabelError(
                "transductive=True: y must be a 1-D vector with one label for each "
                f"of the first len(y) <= {N} samples of {name} (labelled samples first)."
            )
        n = y_arr.shape[0]
    else:
        n = N
    classes, y_idx = check_labels(y, n)
    if classes.dtype.kind == "f" and np.any(classes != np.round(classes)):
        raise LabelError("Unknown label type: continuous. Pass class labels.")
    return classes, y_idx, n


def transductive_outputs(raw, classes):
    """``(transductive_decision_, transduction_)`` of the unlabelled samples from
    their pairwise decisions ``(N - n, n_pairs)``: :func:`ovo_decision` and
    :func:`ovo_labels`.

    Examples
    --------
    >>> import numpy as np
    >>> from proxlearn._svm._multiclass import transductive_outputs
    >>> raw = np.array([[1.0, -0.5, 2.0], [-1.0, -2.0, 0.5]])  # pairs (0, 1), (0, 2), (1, 2)
    >>> decision, labels = transductive_outputs(raw, np.array(["a", "b", "c"]))
    >>> decision.shape, labels.tolist()
    ((2, 3), ['c', 'a'])

    See Also
    --------
    unlabelled_decisions : the pairwise values of the unlabelled samples.
    ovo_decision, ovo_labels : what it applies.
    """
    return ovo_decision(raw, len(classes)), ovo_labels(raw, classes)


class _OvOLinearMixin:
    """Prediction methods for classifiers with fitted ``coef_`` / ``intercept_``.

    Requires ``coef_`` of shape ``(n_pairs, n_train)``, ``intercept_`` of shape
    ``(n_pairs,)``, ``classes_`` and ``n_features_in_``; ``fit`` ends with
    :meth:`_set_support`.
    """

    def _set_support(self, y_idx, n):
        """Support vectors: training samples with a non-zero weight in any pair."""
        nz = np.any(self.coef_ != 0.0, axis=0)
        self.support_ = np.flatnonzero(nz)
        self.n_support_ = np.bincount(y_idx[nz], minlength=len(self.classes_)).astype(np.int32)
        self.n_features_in_ = n

    def _check_test(self, S_test):
        check_is_fitted(self, "coef_")
        return check_test_similarity(S_test, self.n_features_in_)

    def _raw_decision(self, S_test):
        S_test = self._check_test(S_test)
        return S_test @ self.coef_.T + self.intercept_

    def decision_function(self, S_test):
        """Decision values for a test-to-train similarity matrix.

        Parameters
        ----------
        S_test : array-like of shape (m, n_train)
            Similarities of each test sample to every training sample, in
            training order (rows used as similarity feature vectors).

        Returns
        -------
        ndarray of shape (m,) or (m, n_classes) or (m, n_pairs)
            Binary: ``f(s) = s^T w + b`` (positive means ``classes_[1]``).
            Multiclass with ``decision_function_shape="ovr"``: votes plus a
            tie-breaking term in ``(-1/3, 1/3)`` (see
            :mod:`proxlearn._svm._multiclass`); with ``"ovo"``: the raw pairwise values
            in the order ``(0,1), (0,2), ..., (k-2,k-1)``, positive favouring the
            second class of the pair.
        """
        return ovo_decision(self._raw_decision(S_test), len(self.classes_),
                            getattr(self, "decision_function_shape", "ovr"))

    def predict(self, S_test):
        """Predict class labels for a ``(m, n_train)`` test similarity matrix."""
        return ovo_labels(self._raw_decision(S_test), self.classes_)
