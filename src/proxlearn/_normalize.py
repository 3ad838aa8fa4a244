"""``normalize=True``: the scale-free default of the single-matrix classifiers.

The SVM-type classifiers on one similarity matrix have absolute constants
(``C``, ``eta``, ``rho``, ...) whose meaning depends on the units of ``S``: the
SVM on ``c S`` is the SVM on ``S`` with ``C c``. With ``normalize=True`` (their
default) ``fit`` divides the training matrix by its scale
``scale_ = tr S / n`` (:func:`proxlearn._scale.similarity_scale`; ``1`` on a
unit-diagonal similarity, where nothing changes) and every prediction divides
the test rows by the same ``scale_``, so that ``fit(c S).predict(c S_test)``
equals ``fit(S).predict(S_test)`` for every ``c > 0``. ``normalize=False`` is
the literal reading (``scale_ = 1``). An all-zero ``S`` has no units to remove
(``scale_ = 1``); a nonzero matrix with no positive eigenvalue has no scale and
is refused (:class:`~proxlearn.exceptions.SimilarityMatrixError`, naming
``normalize=False`` as the way out).

Used by :class:`~proxlearn.svm.SimilaritySVC`,
:class:`~proxlearn.svm.SimilarityFeatureSVC`, :class:`~proxlearn.svm.LPMachine`
and the kernel learners :class:`~proxlearn.kernel_learning.SimSVM`,
:class:`~proxlearn.kernel_learning.SimMKL`,
:class:`~proxlearn.kernel_learning.FullKernelSVM`,
:class:`~proxlearn.kernel_learning.IndefiniteSVM`.
"""

from __future__ import annotations

import numpy as np

from ._scale import similarity_scale
from ._validation import NORMALIZE, check_test_similarity

__all__ = ["ScaleNormalizeMixin"]


class ScaleNormalizeMixin:
    """``normalize`` parameter and ``scale_`` attribute (see the module docstring).

    ``fit`` calls :meth:`_check_normalize` with the other parameters, then
    :meth:`_fit_scale` on the validated training matrix and uses what it
    returns; predictions pass the test rows through :meth:`_scale_test` (or
    fold ``1 / scale_`` into coefficients that are linear in the test rows).

    Attributes
    ----------
    scale_ : float
        Set by ``fit``: ``tr S / n`` of the training matrix with ``normalize=True``
        (``1.0`` with ``normalize=False`` or an all-zero ``S``).

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from proxlearn.svm import SimilaritySVC
    >>> X, y = load_iris(return_X_y=True)
    >>> S = X @ X.T
    >>> a, b = SimilaritySVC().fit(S, y), SimilaritySVC().fit(10 * S, y)
    >>> round(b.scale_ / a.scale_, 6), bool((a.predict(S) == b.predict(10 * S)).all())
    (10.0, True)

    See Also
    --------
    proxlearn._scale.similarity_scale : the scale ``tr S / n``.
    proxlearn.svm.SimilaritySVC : a classifier that uses this mixin.
    """

    def _check_normalize(self):
        return NORMALIZE.check(self.normalize, "normalize")

    def _fit_scale(self, S, normalize=None):
        """Set ``scale_`` from the validated training matrix ``S`` and return ``S / scale_``
        (``S`` itself when the scale is 1); ``normalize``: the value the caller already
        validated (checked here when not given)."""
        if normalize is None:
            normalize = self._check_normalize()
        # an all-zero S is the same matrix at every scale: nothing to divide (a
        # nonzero trace shows S is not all zero without a pass over S)
        self.scale_ = (similarity_scale(S) if normalize and (np.trace(S) != 0 or S.any())
                       else 1.0)
        return S if self.scale_ == 1.0 else S / self.scale_

    def _scale_test(self, S_test, checked=False):
        """Test rows in the units of the fitted problem (validated when divided, unless
        ``checked``: the caller validated them)."""
        scale = getattr(self, "scale_", 1.0)
        if scale == 1.0:
            return S_test
        return (S_test if checked else check_test_similarity(S_test, self.n_features_in_)) / scale
