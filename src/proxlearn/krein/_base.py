"""The eigendecomposition of a Kreĭn-space learner and the split ``f = f+ - f-``.

A symmetric similarity matrix ``S = U diag(lambda) U^T`` is the Gram matrix of an
indefinite kernel ``k = k+ - k-`` on the training samples, with
``K+ = U diag(max(lambda, 0)) U^T`` and ``K- = U diag(max(-lambda, 0)) U^T``
(Ong, Mary, Canu & Smola 2004, section 2: every such kernel reproduces a Kreĭn
space ``K = H+ (-) H-``). A function ``f = sum_i a_i k(x_i, .)`` splits as
``f = f+ - f-`` with ``f+- = sum_i a_i k+-(x_i, .)``. A test row ``s`` (the
similarities of a test sample to the training samples) is split the same way,
by projecting it on the positive and negative eigenspaces of ``S``:
``s+ = U P+ U^T s`` and ``s- = -U P- U^T s``, so that
``f+(x) = s^T (U P+ U^T a)`` and ``f-(x) = -s^T (U P- U^T a)``. On the training
samples these are the rows of ``K+ a`` and ``K- a`` exactly. Eigenvalues with
``|lambda| <= tol`` (the rounding level by default, as in
:func:`proxlearn.transforms.modify_spectrum`) belong to neither part.
"""

from __future__ import annotations

import numpy as np
import scipy.linalg

from .._normalize import ScaleNormalizeMixin
from .._svm._multiclass import transductive_labels
from .._validation import check_similarity, check_test_similarity, validate_params
from ..base import PairwiseMixin
from ..transforms._spectrum import default_tol, modify_spectrum

__all__ = ["KreinMixin", "check_class_labels", "kept_spectrum"]


def check_class_labels(y, n: int):
    """``(classes, y_idx)`` of class labels for an ``n x n`` training matrix; refuses a
    continuous target (``Unknown label type: continuous``) as scikit-learn's classifiers.

    Examples
    --------
    >>> from proxlearn.krein._base import check_class_labels
    >>> classes, y_idx = check_class_labels(["b", "a", "b"], 3)
    >>> classes.tolist(), y_idx.tolist()
    (['a', 'b'], [1, 0, 1])

    See Also
    --------
    proxlearn._validation.check_targets : real-valued targets, for the regressors.
    """
    return transductive_labels(y, n, False, "S")[:2]


def kept_spectrum(S, tol=None):
    """``(d, Uk)``: the eigenpairs with ``|lambda| > tol`` of a symmetric ``S`` (the
    decomposition of an internal cross-validation fold; ``S`` is not overwritten).

    Examples
    --------
    >>> import numpy as np
    >>> from proxlearn.krein._base import kept_spectrum
    >>> d, Uk = kept_spectrum(np.array([[1.0, 2.0], [2.0, 1.0]]))
    >>> d.round(6).tolist(), Uk.shape
    ([-1.0, 3.0], (2, 2))

    See Also
    --------
    KreinMixin : the decomposition of the fit itself.
    """
    lam, U = scipy.linalg.eigh(S, driver="evd", check_finite=False)
    keep = np.abs(lam) > (default_tol(lam) if tol is None else tol)
    return lam[keep], U[:, keep]


class KreinMixin(PairwiseMixin, ScaleNormalizeMixin):
    """The eigendecomposition of the training matrix and the ``f+`` / ``f-`` split.

    ``fit`` calls :meth:`_fit_input`, then :meth:`_decompose` once; predictions
    read the test rows with :meth:`_test_rows` (divided by ``scale_``) and
    multiply them with coefficient vectors over the training samples.

    Examples
    --------
    >>> import numpy as np
    >>> from proxlearn.krein import KreinSVC
    >>> S = np.array([[1.0, 0.9, 0.5], [0.9, 1.0, -0.6], [0.5, -0.6, 1.0]])
    >>> clf = KreinSVC().fit(S, [0, 0, 1])
    >>> int((clf.eigenvalues_ < 0).sum())  # one negative direction: f- is not zero
    1

    See Also
    --------
    proxlearn.krein.KreinSVC, proxlearn.krein.KreinLeastSquares : its users.
    """

    def _fit_input(self, S, y, check_y):
        """``(params, arr, checked y)``: the validated parameter table, the validated
        symmetrised ``S`` and ``check_y(y, n)``, in that order (the labels are checked
        before the eigendecomposition)."""
        params = validate_params(self)
        arr = check_similarity(S, symmetric="symmetrize")
        return params, arr, check_y(y, arr.shape[0])

    def _decompose(self, arr, S, normalize, tol):
        """From ``arr = _check(S)``: set ``scale_``, ``n_features_in_``,
        ``eigenvalues_`` and ``tol_``; return ``(U, factor)`` with ``factor``
        the sign of each eigenvalue (0 for ``|lambda| <= tol_``)."""
        scaled = self._fit_scale(arr, normalize)
        if scaled is arr and np.may_share_memory(arr, np.asarray(S)):
            scaled = arr.copy()
        lam, U = scipy.linalg.eigh(scaled, driver="evd", overwrite_a=True, check_finite=False)
        self.tol_ = default_tol(lam) if tol is None else float(tol)
        _, factor = modify_spectrum(lam, "flip", self.tol_)
        self.eigenvalues_ = lam
        self.n_features_in_ = lam.shape[0]
        return U, factor

    @staticmethod
    def _map(U, factor, V):
        """``U diag(factor) U^T V`` for ``V`` of shape ``(n,)`` or ``(n, k)``."""
        return U @ (factor.reshape(-1, *([1] * (V.ndim - 1))) * (U.T @ V))

    def _parts(self, U, factor, A):
        """``(U P+ U^T A, -U P- U^T A)``: the coefficients of ``f+`` and ``f-``."""
        return (self._map(U, (factor > 0).astype(np.float64), A),
                -self._map(U, (factor < 0).astype(np.float64), A))

    def _test_rows(self, S_test):
        """Test rows, validated, in the units of the fitted problem."""
        return check_test_similarity(S_test, self.n_features_in_) / self.scale_
