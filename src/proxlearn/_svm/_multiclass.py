"""One-vs-one machinery shared by the similarities-as-features linear classifiers.

Chen et al. (JMLR 2009, section 2.8) and Chen (2010, section 2.2) train every
multiclass SVM one-vs-one. For the pair of classes ``(i, j)``, ``i < j``, the
binary machine sees only the training samples of classes ``i`` and ``j``: the
rows *and* columns of the training matrix that belong to them (as libsvm does
with a precomputed kernel). Its decision function is therefore a linear
function of the test similarities to those samples only:
``f_ij(s) = s[idx_ij] @ coef + b``. We store it as a row of a dense
``(n_pairs, n_train)`` matrix that is zero outside ``idx_ij``, so all pairwise
decisions are one matrix product.

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
"""

from __future__ import annotations

import numpy as np
from sklearn.utils.validation import check_is_fitted

from .._validation import check_test_similarity

__all__ = [
    "fit_ovo",
    "ovo_decision_ovr",
    "ovo_pairs",
    "ovo_predict_index",
    "ovo_subproblems",
]


def ovo_pairs(n_classes: int) -> list[tuple[int, int]]:
    """All pairs ``(i, j)`` with ``i < j``, in libsvm/scikit-learn order."""
    return [(i, j) for i in range(n_classes) for j in range(i + 1, n_classes)]


def fit_ovo(S, y_idx, n_classes, fit_binary):
    """Fit one binary machine per pair of classes.

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
    """
    n = S.shape[0]
    pairs = ovo_pairs(n_classes)
    coef = np.zeros((len(pairs), n))
    intercept = np.zeros(len(pairs))
    infos = []
    for k, idx, y_pm in ovo_subproblems(y_idx, n_classes):
        w, b, info = fit_binary(S[np.ix_(idx, idx)], y_pm)
        coef[k, idx] = w
        intercept[k] = b
        infos.append(info)
    return coef, intercept, infos


def ovo_subproblems(y_idx, n_classes):
    """Yield ``(k, idx, y_pm)`` per pair: its position in :func:`ovo_pairs`, the
    training samples of its two classes and their labels in ``{-1, +1}``
    (``+1`` for the higher class index)."""
    for k, (i, j) in enumerate(ovo_pairs(n_classes)):
        idx = np.flatnonzero((y_idx == i) | (y_idx == j))
        yield k, idx, np.where(y_idx[idx] == j, 1.0, -1.0)


def ovo_decision_ovr(raw, n_classes):
    """Turn pairwise decisions ``(m, n_pairs)`` into ``(m, n_classes)`` scores.

    See the module docstring for the vote / tie-breaking rule.
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
    """Predicted class indices from pairwise decisions (votes, then tie-breaks)."""
    raw = np.asarray(raw, dtype=np.float64)
    if n_classes == 2:
        return (raw[:, 0] > 0).astype(np.intp)
    return np.argmax(ovo_decision_ovr(raw, n_classes), axis=1)


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
        raw = self._raw_decision(S_test)
        n_classes = len(self.classes_)
        if n_classes == 2:
            return raw[:, 0]
        if getattr(self, "decision_function_shape", "ovr") == "ovo":
            return raw
        return ovo_decision_ovr(raw, n_classes)

    def predict(self, S_test):
        """Predict class labels for a ``(m, n_train)`` test similarity matrix."""
        raw = self._raw_decision(S_test)
        return self.classes_[ovo_predict_index(raw, len(self.classes_))]
