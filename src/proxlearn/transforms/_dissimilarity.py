"""Conversion of dissimilarities (distances) into similarities."""

from __future__ import annotations

import warnings

import numpy as np
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.utils.validation import check_is_fitted

from .._validation import (
    DISSIMILARITY_METHODS,
    SimilarityMatrixError,
    check_similarity,
    check_test_similarity,
    only_if,
    options,
    positive,
    validate_params,
)
from ..base import PairwiseMixin, SampleColumnsMixin

__all__ = ["DissimilarityToSimilarity"]

#: Supported conversions.


class DissimilarityToSimilarity(PairwiseMixin, SampleColumnsMixin, TransformerMixin, BaseEstimator):
    """Turn a dissimilarity matrix ``D`` into a similarity matrix ``S``.

    Chen et al. (2009) assume an affine relation between similarities and
    dissimilarities (section 2.1.4) but never state a conversion (their
    Voting data is a VDM dissimilarity, section 7.1). This transformer offers
    the usual choices. Every conversion is *consistent*: transforming the rows
    of the training ``D`` as test rows reproduces ``fit_transform(D)`` exactly.

    Parameters
    ----------
    method : {"max-minus", "negative", "exp", "double-centering"}, default="max-minus"
        * ``"max-minus"``: ``s = m - d`` with ``m`` the maximum of the training
          ``D`` (fitted, reused for test rows), so similarities are >= 0 on the
          training set.
        * ``"negative"``: ``s = -d``.
        * ``"exp"``: ``s = exp(-d / scale)``.
        * ``"double-centering"``: ``S = -1/2 J D^(2) J`` with
          ``J = I - 11^T / n`` and ``D^(2)`` the entrywise square (classical
          multidimensional scaling / Torgerson; ``S`` is the Gram matrix of the
          centred points when ``D`` is Euclidean). Test rows use the
          out-of-sample formula (Gower 1968)
          ``s_j = -1/2 (d_j^2 - mean_k d_k^2 - c_j + g)`` with ``c_j`` the
          column means of ``D^(2)`` and ``g`` its grand mean.
    scale : float or None, default=None
        Scale of the ``"exp"`` conversion. ``None`` fits the median
        off-diagonal training dissimilarity; if that median is 0 (many
        duplicates) the mean of the positive off-diagonal entries is used, and
        1.0 if there are none. Ignored by the other methods.

    Attributes
    ----------
    max_ : float
        Maximum training dissimilarity (``"max-minus"``).
    scale_ : float
        Scale used by ``"exp"``.
    col_mean_sq_ : ndarray of shape (n,)
        Column means of ``D^(2)`` (``"double-centering"``).
    grand_mean_sq_ : float
        Grand mean of ``D^(2)`` (``"double-centering"``).
    n_features_in_ : int
        Number of training samples ``n``.

    Notes
    -----
    Negative dissimilarities are meaningless for ``"double-centering"``
    (squaring loses their sign) and raise :class:`SimilarityMatrixError`;
    ``"max-minus"`` and ``"exp"`` warn with ``UserWarning`` (similarities above
    the maximum, resp. above 1); ``"negative"`` accepts any sign.
    ``D`` is used as given (not symmetrised); all formulas also apply to
    asymmetric ``D``.

    Examples
    --------
    >>> import numpy as np
    >>> from proxlearn.transforms import DissimilarityToSimilarity
    >>> D = np.array([[0.0, 1.0, 2.0], [1.0, 0.0, 1.0], [2.0, 1.0, 0.0]])
    >>> DissimilarityToSimilarity().fit_transform(D).tolist()
    [[2.0, 1.0, 0.0], [1.0, 2.0, 1.0], [0.0, 1.0, 2.0]]
    >>> DissimilarityToSimilarity("double-centering").fit_transform(D)[0].round(3).tolist()
    [1.0, 0.0, -1.0]

    See Also
    --------
    SpectrumTransformer : makes the result positive semidefinite.
    proxlearn.pairwise.pairwise_similarity : builds ``D`` from raw objects.
    """

    _parameter_constraints = {
        "method": options(*DISSIMILARITY_METHODS),
        "scale": only_if(options(None) | positive(), "method", "exp"),
    }

    def __init__(self, method="max-minus", scale=None):
        self.method = method
        self.scale = scale

    def _check_negative(self, D, name, method):
        if method == "negative" or not np.any(D < 0):
            return
        msg = (
            f"{name} has negative entries (min {D.min():.3g}); a dissimilarity "
            "should be non-negative."
        )
        if method == "double-centering":
            raise SimilarityMatrixError(
                msg + " Double centering squares the dissimilarities, so negative "
                "values would be treated as positive distances. Use "
                "method='negative' or 'max-minus', or fix the input."
            )
        warnings.warn(
            msg + f" method={method!r} is applied anyway.",
            UserWarning,
            stacklevel=3,
        )

    def fit(self, D, y=None):
        """Fit the conversion on the ``n x n`` training dissimilarities.

        Parameters
        ----------
        D : array-like of shape (n, n)
        y : ignored

        Returns
        -------
        self
        """
        self._fit(D)
        return self

    def _fit(self, D):
        params = validate_params(self)
        method = params["method"]
        D = check_similarity(D, name="D", symmetric="allow", dissimilarity_check=False)
        self._check_negative(D, "D", method)
        self._method = method  # the conversion this fit used
        n = D.shape[0]
        self.n_features_in_ = n
        if method == "max-minus":
            self.max_ = float(D.max())
        elif method == "exp":
            if params["scale"] is not None:
                self.scale_ = params["scale"]
            else:
                off = D[~np.eye(n, dtype=bool)]
                med = float(np.median(off)) if off.size else 0.0
                if med <= 0.0:
                    pos = off[off > 0]
                    med = float(pos.mean()) if pos.size else 1.0
                self.scale_ = med
        elif method == "double-centering":
            D2 = D * D
            self.col_mean_sq_ = D2.mean(axis=0)
            self.grand_mean_sq_ = float(self.col_mean_sq_.mean())
            return D, D2
        return D, None

    def _convert(self, D, D2=None):
        method = self._method
        if method == "max-minus":
            return self.max_ - D
        if method == "negative":
            return -D
        if method == "exp":
            return np.exp(-D / self.scale_)
        if D2 is None:
            D2 = D * D
        row_mean = D2.mean(axis=1, keepdims=True)
        S = D2 - row_mean
        S -= self.col_mean_sq_
        S += self.grand_mean_sq_
        S *= -0.5
        return S

    def fit_transform(self, D, y=None):
        """Fit and return the ``n x n`` training similarities."""
        D, D2 = self._fit(D)
        return self._convert(D, D2)

    def transform(self, D_test):
        """Convert test-to-train dissimilarities.

        Parameters
        ----------
        D_test : array-like of shape (m, n)
            ``D_test[i, j]`` is the dissimilarity of test sample ``i`` to
            training sample ``j``.

        Returns
        -------
        S_test : ndarray of shape (m, n)
        """
        check_is_fitted(self, "n_features_in_")
        D = check_test_similarity(D_test, self.n_features_in_, name="D_test")
        self._check_negative(D, "D_test", self._method)
        return self._convert(D)
