"""Similarity discriminant analysis (SDA) and local SDA.

Chen et al. (2009), section 6 (SDA of Cazzanti et al. 2008, eqs. 17-20) and
section 6.1 (local SDA of Cazzanti & Gupta 2007). [IMPL] marks a choice of
ours where the paper is silent; the list is in docs/methods.md, section
"Classifiers", subsection "SDA and local SDA: implementation choices".

Model
-----
* Descriptive statistics (eq. 17): ``T(x) = (psi(x, mu_1), ..., psi(x, mu_G))``,
  the similarities to the G class centroids. The centroid ``mu_g`` is the
  class-g training sample with the largest sum of similarities to the *other*
  class-g samples (self-similarity excluded, [IMPL]); similarities among
  training samples are taken from the symmetrised matrix ``(S + S^T) / 2``
  ([IMPL]: the paper does not fix the direction for asymmetric psi); ties go
  to the lowest training index.
* Class-conditional model (eq. 20): independent maximum-entropy factors
  ``p(T_m | h) = gamma_hm exp(lambda_hm T_m)`` on the similarity support
  ``[a, b]`` with the mean constraint (19),
  ``E[T_m | h] = mean of T_m over the class-h training samples``.
  On the interval ``gamma = lambda / (e^{lambda b} - e^{lambda a})``
  (``1 / (b - a)`` at ``lambda = 0``) and ``lambda`` is the root of the
  monotone 1-D equation ``mean(lambda) = target`` (:func:`solve_exponential_eta`).
* Decision (eq. 18 with 0-1 cost, [IMPL]): maximum posterior with priors equal
  to the class frequencies (local frequencies for local SDA), computed in
  log-space.
"""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.validation import check_is_fitted

from .._validation import (
    InvalidParameterError,
    check_classification_data,
    check_n_neighbors,
    check_sample_weight,
    check_test_similarity,
    integer,
    options,
    unchecked,
    validate_params,
)
from ..base import PairwiseMixin, row_chunks
from .._cv import choose_k_by_cv
from .._graph import top_k_similar

__all__ = [
    "LocalSDA",
    "SimilarityDiscriminantAnalysis",
    "exponential_log_normalizer",
    "exponential_mean",
    "fit_exponential_maxent",
    "solve_exponential_eta",
]

#: Clip for the natural parameter on the unit interval. A target mean on (or
#: beyond) an end of the support has no finite solution (lambda -> +-inf, the
#: density tends to a point mass at that end); it is replaced by +-_ETA_MAX,
#: whose mean is within ``1e-12`` of the end (means closer than that to an
#: end are reproduced only to ``1e-12``).
_ETA_MAX = 1e12
#: Below this |eta| the series expansions are used (cancellation in closed form).
_ETA_SMALL = 0.1
#: Relative width under which the similarity support counts as a single value.
_RANGE_RTOL = 1e-12
#: Memory budget (bytes) of the per-chunk work arrays of LocalSDA.predict.


# ---------------------------------------------------------------------- #
# 1-D maximum-entropy exponential family on [0, 1]
# ---------------------------------------------------------------------- #
def exponential_mean(eta):
    """Mean of the density ``p(t) = eta e^{eta t} / (e^eta - 1)`` on ``[0, 1]``.

    ``m(eta) = 1 / (1 - e^{-eta}) - 1 / eta = 1/2 + L(eta / 2) / 2`` with the
    Langevin function ``L(x) = coth(x) - 1/x``; ``m(0) = 1/2``; strictly
    increasing, ``m(-eta) = 1 - m(eta)``. A series is used for small ``|eta|``.
    On ``[a, b]`` the mean is ``a + (b - a) m(lambda (b - a))``.

    Examples
    --------
    >>> from proxlearn.discriminant._sda import exponential_mean
    >>> exponential_mean([0.0, 2.0, -2.0]).round(4).tolist()
    [0.5, 0.6565, 0.3435]

    See Also
    --------
    solve_exponential_eta : its inverse.
    """
    eta = np.asarray(eta, dtype=np.float64)
    x = 0.5 * eta
    small = np.abs(x) < _ETA_SMALL
    xs = np.where(small, x, 0.0)
    x2 = xs * xs
    series = xs * (1 / 3 - x2 * (1 / 45 - x2 * (2 / 945 - x2 / 4725)))
    xl = np.where(small, 1.0, x)
    with np.errstate(over="ignore"):
        closed = 1.0 / np.tanh(xl) - 1.0 / xl
    return 0.5 + 0.5 * np.where(small, series, closed)


def _exponential_mean_deriv(eta):
    """``dm/deta = L'(eta / 2) / 4`` with ``L'(x) = 1/x^2 - 1/sinh(x)^2``."""
    x = 0.5 * np.asarray(eta, dtype=np.float64)
    small = np.abs(x) < _ETA_SMALL
    xs = np.where(small, x, 0.0)
    x2 = xs * xs
    series = 1 / 3 - x2 * (1 / 15 - x2 * (2 / 189 - x2 / 675))
    xl = np.where(small, 1.0, x)
    with np.errstate(over="ignore"):
        sh = np.sinh(np.minimum(np.abs(xl), 700.0))
        closed = 1.0 / (xl * xl) - 1.0 / (sh * sh)
    return 0.25 * np.where(small, series, closed)


def exponential_log_normalizer(eta):
    """``log Z(eta) = log((e^eta - 1) / eta)``, so ``p(t) = exp(eta t - log Z)``.

    Stable for all ``eta``: the series ``eta/2 + log(sinh(eta/2) / (eta/2))``
    (through ``eta^8``) near 0 and ``eta + log(1 - e^{-eta})``
    for large positive ``eta``.
    """
    eta = np.asarray(eta, dtype=np.float64)
    small = np.abs(eta) < _ETA_SMALL
    es = np.where(small, eta, 0.0)
    e2 = es * es
    series = es / 2 + e2 * (1 / 24 - e2 * (1 / 2880 - e2 * (1 / 181440 - e2 / 9676800)))
    el = np.where(small, 1.0, eta)
    pos = el > 0
    ea = np.abs(el)
    # (e^eta - 1)/eta = e^{max(eta,0)} (1 - e^{-|eta|}) / |eta|
    closed = np.where(pos, el, 0.0) + np.log(-np.expm1(-ea)) - np.log(ea)
    return np.where(small, series, closed)


def solve_exponential_eta(u, *, tol=1e-15, max_iter=200):
    """Natural parameter ``eta`` with ``exponential_mean(eta) == u`` (vectorised).

    Safeguarded Newton on the bracket ``[0, 1 / (1 - v)]`` for
    ``v = max(u, 1 - u) >= 1/2`` (``m(1/(1-v)) >= v`` because
    ``m(eta) >= 1 - 1/eta``), then ``eta(u) = -eta(1 - u)`` for ``u < 1/2``.
    ``m`` is concave on ``eta > 0``, so Newton steps converge monotonically;
    a step leaving the bracket is replaced by bisection.

    Parameters
    ----------
    u : array-like
        Target means on the unit interval. Values ``<= 0`` or ``>= 1`` (mean
        at an end of the support: the maximum-entropy solution does not exist,
        its limit is a point mass at that end) give ``-+_ETA_MAX``; the result
        is also clipped to ``[-_ETA_MAX, _ETA_MAX]`` (notes 2.11: "clip
        lambda").
    tol : float
        Absolute tolerance on the mean.

    Returns
    -------
    eta : ndarray, same shape as ``u``

    Examples
    --------
    >>> from proxlearn.discriminant._sda import exponential_mean, solve_exponential_eta
    >>> eta = solve_exponential_eta([0.5, 0.6565, 0.3])
    >>> exponential_mean(eta).round(6).tolist()
    [0.5, 0.6565, 0.3]

    See Also
    --------
    exponential_mean : the map it inverts.
    fit_exponential_maxent : the same on an interval ``[low, high]``.
    """
    u = np.asarray(u, dtype=np.float64)
    shape = u.shape
    u = u.ravel()
    sign = np.where(u < 0.5, -1.0, 1.0)
    v = np.where(u < 0.5, 1.0 - u, u)
    inner = v < 1.0
    vi = np.where(inner, v, 0.75)
    lo = np.zeros_like(vi)
    hi = np.minimum(1.0 / (1.0 - vi), _ETA_MAX)
    eta = np.minimum(12.0 * (vi - 0.5), hi)  # slope of m at 0 is 1/12
    active = inner & (vi > 0.5)
    eta = np.where(vi > 0.5, eta, 0.0)
    for _ in range(max_iter):
        if not active.any():
            break
        e = eta[active]
        f = exponential_mean(e) - vi[active]
        lo_a = np.where(f < 0, e, lo[active])
        hi_a = np.where(f > 0, e, hi[active])
        d = _exponential_mean_deriv(e)
        step = np.where(d > 0, e - f / np.where(d > 0, d, 1.0), np.nan)
        bad = ~((step > lo_a) & (step < hi_a))
        new = np.where(bad, 0.5 * (lo_a + hi_a), step)
        done = (np.abs(f) <= tol) | (hi_a - lo_a <= 4 * np.spacing(hi_a))
        new = np.where(done, e, new)
        lo[active], hi[active], eta[active] = lo_a, hi_a, new
        idx = np.flatnonzero(active)
        active[idx[done]] = False
    eta = np.where(inner, eta, _ETA_MAX)
    return (sign * np.minimum(eta, _ETA_MAX)).reshape(shape)


def fit_exponential_maxent(mean, low, high):
    """Maximum-entropy density on ``[low, high]`` with a given mean (eq. 20).

    Returns ``(lambda, log_gamma)`` with ``p(x) = gamma exp(lambda x)`` for
    ``low <= x <= high``, i.e. ``gamma = lambda / (e^{lambda b} - e^{lambda a})``
    (``1/(b - a)`` at ``lambda = 0``). ``lambda`` is found by the 1-D root
    finding of :func:`solve_exponential_eta` on the rescaled mean
    ``(mean - low) / (high - low)``; a mean at an end of the support is
    clipped as described there. If ``high - low`` is (numerically) zero the
    uniform limit ``lambda = 0, gamma = 1`` is returned.
    """
    mean = np.asarray(mean, dtype=np.float64)
    low, high = float(low), float(high)
    width = high - low
    if not width > _RANGE_RTOL * max(1.0, abs(low), abs(high)):
        return np.zeros_like(mean), np.zeros_like(mean)
    eta = solve_exponential_eta((mean - low) / width)
    lam = eta / width
    log_gamma = -exponential_log_normalizer(eta) - lam * low - np.log(width)
    return lam, log_gamma


# ---------------------------------------------------------------------- #
# batched SDA core (shared by the global and the local estimator)
# ---------------------------------------------------------------------- #
def _centroids(S_blk, lab, idx, G, w=None):
    """Class centroids of each block (notes 2.11, eq. 17 definition).

    Parameters
    ----------
    S_blk : (c, k, k) symmetric similarities among the block's samples
    lab : (c, k) class index of each sample
    idx : (c, k) training index of each sample (tie-break: lowest)
    G : number of classes
    w : (c, k) sample weights, optional. The score of sample ``j`` is then
        ``sum_i w_i S_ji - S_jj`` over its class (what sample ``j`` sees
        when every sample ``i`` is repeated ``w_i`` times: its other copies
        included), and weight-0 samples are never centroids.

    Returns
    -------
    cent : (c, G) position (0..k-1) in the block of each class centroid
        (0 for classes absent from the block)
    counts : (c, G) class counts in the block
    """
    onehot = lab[:, :, None] == np.arange(G)  # (c, k, G)
    same = lab[:, :, None] == lab[:, None, :]  # (c, k, k)
    k = lab.shape[1]
    if w is None:
        same &= ~np.eye(k, dtype=bool)
        score = np.where(same, S_blk, 0.0).sum(axis=2)  # (c, k)
        eligible = onehot
    else:
        score = (np.where(same, S_blk, 0.0) * w[:, None, :]).sum(axis=2)
        score -= np.diagonal(S_blk, axis1=1, axis2=2)
        eligible = onehot & (w[:, :, None] > 0)
    sc = np.where(eligible, score[:, :, None], -np.inf)  # (c, k, G)
    best = sc.max(axis=1, keepdims=True)
    cand = eligible & (sc == best)
    big = np.iinfo(np.intp).max
    key = np.where(cand, idx[:, :, None], big)
    cent = np.argmin(key, axis=1)  # lowest training index among ties
    counts = onehot.sum(axis=1)
    return cent, counts, onehot


def _unit(T, low, width):
    """Rescale similarities to ``[0, 1]`` (values outside the support clipped)."""
    return np.clip((T - low) / width, 0.0, 1.0)


def _sda_log_joint(T_train, onehot, counts, T_test, low, width):
    """``log P(Y=h) + log P(T(x) | h)`` per block (unit-interval densities).

    T_train : (c, k, G) statistics of the block's samples (unit scale)
    onehot : (c, k, G); counts : (c, G)
    T_test : (c, G) statistics of the test point (unit scale)

    Classes absent from a block get ``-inf``; statistics of absent centroids
    are ignored. The ``-G log(width)`` Jacobian is common to all classes and
    omitted (it cancels in the posterior).
    """
    present = counts > 0  # (c, G) -- both classes h and statistics m
    safe = np.where(present, counts, 1)
    # U[c, h, m] = mean over class-h samples of T_m
    U = np.einsum("ckh,ckm->chm", onehot.astype(np.float64), T_train) / safe[:, :, None]
    pair = present[:, :, None] & present[:, None, :]
    U = np.where(pair, U, 0.5)
    eta = solve_exponential_eta(U)
    ll = eta * T_test[:, None, :] - exponential_log_normalizer(eta)
    ll = np.where(pair, ll, 0.0).sum(axis=2)
    prior = np.log(safe / counts.sum(axis=1, keepdims=True))
    return np.where(present, ll + prior, -np.inf), eta


def _log_softmax(Z):
    mx = Z.max(axis=1, keepdims=True)
    out = Z - mx
    out -= np.log(np.exp(out).sum(axis=1, keepdims=True))
    return out


def _check_range(similarity_range, S):
    """Support ``(a, b)`` of the similarities: given, or the training min/max."""
    if similarity_range is None:
        return float(S.min()), float(S.max())
    try:
        a, b = (float(v) for v in similarity_range)
    except (TypeError, ValueError):
        raise InvalidParameterError(
            "similarity_range must be None or a pair (low, high) of finite numbers, "
            f"got {similarity_range!r}."
        ) from None
    if not (np.isfinite(a) and np.isfinite(b) and a < b):
        raise InvalidParameterError(
            f"similarity_range must satisfy low < high (finite), got {(a, b)!r}."
        )
    if S.min() < a or S.max() > b:
        raise InvalidParameterError(
            f"similarity_range={(a, b)!r} does not contain the training similarities "
            f"(observed range [{S.min():.6g}, {S.max():.6g}])."
        )
    return a, b


#: ``similarity_range`` is checked with the training matrix (:func:`_check_range`).
_RANGE = unchecked("None or (low, high) containing the training similarities, checked in fit")

#: A neighbourhood size or count, in LocalSDA's words.
_POSITIVE_INT = integer(1, what="a positive integer")


def _validate_fit(est, S, y):
    S, classes, y_idx = check_classification_data(S, y, symmetric="symmetrize")
    low, high = _check_range(est.similarity_range, S)
    return S, classes, y_idx, low, high


_SUPPORT_DOC = """
    **Support.** Each factor is a density on the interval ``[a, b]`` =
    ``similarity_range`` (default: the minimum and maximum of the symmetrised
    training matrix, diagonal included), i.e. the continuous reading of the
    support ([IMPL]), not the discrete set of observed values. Test similarities outside
    ``[a, b]`` are clipped to it (the density would be 0 there).

    **Degenerate cases.** Only the mean enters the maximum-entropy model, so a
    statistic with zero variance inside a class is fitted like any other
    (exponential with that mean). A class mean at an end of the support
    (e.g. all class members at the maximum similarity to a centroid) has no
    finite solution; the limit of the exponential family is a point mass at
    that end, approximated by clipping ``|lambda (b - a)|`` at ``1e12``. If all
    training similarities are equal (``a == b``) every factor is the uniform
    limit (``lambda = 0``) and the prediction follows the priors.
"""


class SimilarityDiscriminantAnalysis(PairwiseMixin, ClassifierMixin, BaseEstimator):
    __doc__ = (
        """Similarity discriminant analysis (SDA; Chen et al. 2009, section 6).

    Generative classifier of Cazzanti et al. (2008): the statistics
    ``T(x) = (psi(x, mu_1), ..., psi(x, mu_G))`` (eq. 17) are modelled per class
    by the maximum-entropy product of exponentials (eq. 20)
    ``P(T(x) | h) = prod_m gamma_hm exp(lambda_hm T_m(x))`` whose means match
    the class averages (eq. 19); each ``lambda_hm`` is a 1-D root
    (:func:`solve_exponential_eta`) and ``gamma_hm`` its normaliser. The rule is
    eq. (18) with 0-1 cost (maximum posterior, [IMPL]), priors = class
    frequencies, computed in log-space.

    Parameters
    ----------
    similarity_range : tuple (low, high) or None, default=None
        Support of the similarity values; ``None`` uses the training min/max.
        A given range must contain every training similarity (e.g. ``(2, 10)``
        for Aural Sonar).

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    centroids_ : ndarray of shape (n_classes,)
        Training index of each class centroid ``mu_g``: the class member with
        the largest summed (symmetrised) similarity to the other members of its
        class (ties: lowest index).
    lambda_ : ndarray of shape (n_classes, n_classes)
        ``lambda_[h, m]``: exponent of class h's factor for ``psi(x, mu_m)``.
    log_gamma_ : ndarray of shape (n_classes, n_classes)
        Log normalisers, ``p(s) = exp(log_gamma_[h, m] + lambda_[h, m] s)``.
    class_prior_ : ndarray of shape (n_classes,)
    similarity_range_ : tuple (low, high)
    n_features_in_ : int

    Notes
    -----
    Training similarities (centroids and training statistics) come from
    ``(S + S^T) / 2``; test rows ``S_test[i, j] = psi(x_i, x_j)`` are used as
    given (pass symmetrised test similarities for asymmetric data).
"""
        + _SUPPORT_DOC
        + """
    Examples
    --------
    >>> import numpy as np
    >>> from proxlearn.discriminant import SimilarityDiscriminantAnalysis
    >>> rng = np.random.default_rng(0)
    >>> X = np.r_[rng.normal(0, 1, (20, 2)), rng.normal(3, 1, (20, 2))]
    >>> y = np.repeat([0, 1], 20)
    >>> S = -((X[:, None] - X[None]) ** 2).sum(-1)
    >>> sda = SimilarityDiscriminantAnalysis().fit(S, y)
    >>> sda.centroids_.shape, float((sda.predict(S) == y).mean()) > 0.9
    ((2,), True)

    See Also
    --------
    LocalSDA : the same model fitted on the neighbours of each test point.
    proxlearn.neighbors : k-NN classifiers on the same similarities.

    References
    ----------
    L. Cazzanti, M. R. Gupta, A. J. Koppal. Generative models for similarity-
    based classification. Pattern Recognition 41(7), 2008.
    Y. Chen, E. K. Garcia, M. R. Gupta, A. Rahimi, L. Cazzanti.
    Similarity-based classification: concepts and algorithms. JMLR 10, 2009.
    """
    )

    _parameter_constraints = {
        "similarity_range": _RANGE,
    }

    def __init__(self, similarity_range=None):
        self.similarity_range = similarity_range

    def fit(self, S, y, sample_weight=None):
        """Fit centroids, exponential models and priors.

        Parameters
        ----------
        S : array-like of shape (n_train, n_train)
        y : array-like of shape (n_train,)
        sample_weight : array-like of shape (n_train,), optional
            Weighted class priors and class means (eq. 19), and weighted
            centroid scores (see :func:`_centroids`): an integer weight equals
            repeating the sample; weight-0 samples are ignored except through
            the default ``similarity_range`` (fix it to make them fully absent).

        Returns
        -------
        self
        """
        S, classes, y_idx, low, high = _validate_fit(self, S, y)
        n, G = S.shape[0], classes.shape[0]
        w = check_sample_weight(sample_weight, n)
        idx = np.arange(n)[None]
        cent, counts, onehot = _centroids(S[None], y_idx[None], idx, G,
                                          None if w is None else w[None])
        cent = cent[0]
        counts = counts[0] if w is None else onehot[0].T.astype(np.float64) @ w
        if np.any(counts <= 0):
            raise InvalidParameterError(
                f"sample_weight is zero for every sample of class(es) "
                f"{classes[counts <= 0].tolist()!r}; every class needs a positive weight."
            )
        width = high - low
        self.classes_ = classes
        self.centroids_ = cent
        self.class_prior_ = counts / counts.sum()
        self.similarity_range_ = (low, high)
        self.n_features_in_ = n
        if not width > _RANGE_RTOL * max(1.0, abs(low), abs(high)):
            self.lambda_ = np.zeros((G, G))
            self.log_gamma_ = np.zeros((G, G))
            return self
        T = _unit(S[:, cent], low, width)  # (n, G)
        mass = onehot[0].T.astype(np.float64) * (1.0 if w is None else w)  # (G, n)
        U = (mass @ T) / counts[:, None]  # (G, G)
        self.lambda_, self.log_gamma_ = fit_exponential_maxent(
            low + width * U, low, high
        )
        return self

    def _log_joint(self, S_test):
        check_is_fitted(self, "centroids_")
        S_test = check_test_similarity(S_test, self.n_features_in_)
        low, high = self.similarity_range_
        T = np.clip(S_test[:, self.centroids_], low, high)  # (m, G)
        ll = T @ self.lambda_.T + self.log_gamma_.sum(axis=1)
        return ll + np.log(self.class_prior_)

    def predict_log_proba(self, S_test):
        """Log posterior ``log P(Y = h | T(x))``; columns in ``classes_`` order."""
        return _log_softmax(self._log_joint(S_test))

    def predict_proba(self, S_test):
        """Posterior ``P(Y = h | T(x))`` of shape (m, n_classes)."""
        return np.exp(self.predict_log_proba(S_test))

    def predict(self, S_test):
        """Maximum-posterior class (eq. 18, 0-1 cost); ties: first class."""
        best = np.argmax(self._log_joint(S_test), axis=1)
        return self.classes_[best]


class LocalSDA(PairwiseMixin, ClassifierMixin, BaseEstimator):
    __doc__ = (
        """Local similarity discriminant analysis (Chen et al. 2009, section 6.1).

    Cazzanti & Gupta (2007): for each test point, SDA
    (:class:`SimilarityDiscriminantAnalysis`) is fitted on its ``k`` most
    similar training samples only: the local centroids (from the neighbours'
    symmetrised k x k similarities), the exponential parameters (from the
    neighbours' similarities to the local centroids) and the priors (local
    class frequencies). Only classes present among the neighbours are
    candidates ([IMPL]); their probability of absent classes is 0.

    **Fallback** (section 6.1): "If any class in the neighborhood has fewer
    than three samples ... every lambda is assumed to be zero, and the local
    SDA model is reduced to a simple local centroid classifier". Taken
    literally lambda = 0 makes the likelihoods constant; [IMPL] this is
    implemented as the *nearest local centroid*,
    ``argmax_g psi(x, mu_g)`` over the present classes (ties: first class in
    ``classes_``), with ``predict_proba`` one-hot on that class (split equally
    between exactly tied classes). A neighbourhood with a single class
    predicts that class with probability 1. ``min_class_size`` (default 3)
    sets the threshold.

    With ``n_neighbors = n_train`` and every class of size ``>= min_class_size``
    the model is exactly the global SDA (same centroids, parameters and
    priors, up to floating-point summation order).

    Parameters
    ----------
    n_neighbors : int or "auto", default="auto"
        Neighbourhood size k; an integer larger than the training set makes
        ``fit`` raise :class:`~proxlearn._validation.InvalidParameterError` (no
        clamping). ``"auto"`` (ours; Chen et al. choose k by cross-validation,
        the paper gives no default) picks k by a stratified 3-fold
        cross-validation on the training set over 1, 2, 4, ..., 128 and "all
        the training samples" (= the global SDA), see
        :func:`proxlearn._cv.choose_k_by_cv`; the chosen k is
        ``n_neighbors_`` (docs/methods.md, "SDA and local SDA defaults").
    similarity_range : tuple (low, high) or None, default=None
        Support of the similarity values, shared by all neighbourhoods;
        ``None`` uses the min/max of the whole training matrix.
    min_class_size : int, default=3
        Below this many samples of any present class the neighbourhood uses
        the nearest-local-centroid fallback.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    S_fit_ : ndarray of shape (n_train, n_train)
        Symmetrised training similarities.
    similarity_range_ : tuple (low, high)
    n_features_in_ : int
    n_neighbors_ : int
        The neighbourhood size used (``n_neighbors`` or the ``"auto"`` choice).
    cv_scores_ : dict or None
        With ``"auto"``: the mean inner-CV accuracy per k tried; else ``None``.

    Notes
    -----
    **Neighbours** are the ``k`` largest entries of each test row of
    ``S_test`` (ties: lower training index; :func:`proxlearn._graph.top_k_similar`).
    Chen et al. use the symmetrised similarity for the search; for asymmetric
    data pass the symmetrised test matrix. Test rows are processed in chunks
    (about 64 MB of work arrays), each chunk fully vectorised.
"""
        + _SUPPORT_DOC
        + """
    Examples
    --------
    >>> import numpy as np
    >>> from proxlearn.discriminant import LocalSDA
    >>> rng = np.random.default_rng(0)
    >>> X = np.r_[rng.normal(0, 1, (20, 2)), rng.normal(3, 1, (20, 2))]
    >>> y = np.repeat([0, 1], 20)
    >>> S = -((X[:, None] - X[None]) ** 2).sum(-1)
    >>> clf = LocalSDA(n_neighbors=10).fit(S, y)
    >>> clf.predict_proba(S[:3]).shape, float((clf.predict(S) == y).mean()) > 0.9
    ((3, 2), True)

    See Also
    --------
    SimilarityDiscriminantAnalysis : the global model (``n_neighbors = n``).
    proxlearn.neighbors : the k-NN classifiers it generalises.

    References
    ----------
    L. Cazzanti and M. R. Gupta. Local similarity discriminant analysis.
    ICML 2007.
    Y. Chen et al. Similarity-based classification: concepts and algorithms.
    JMLR 10, 2009, section 6.1.
    """
    )

    def __init__(self, n_neighbors="auto", similarity_range=None, min_class_size=3):
        self.n_neighbors = n_neighbors
        self.similarity_range = similarity_range
        self.min_class_size = min_class_size

    _parameter_constraints = {
        "n_neighbors": _POSITIVE_INT | options("auto"),
        "min_class_size": _POSITIVE_INT,
        "similarity_range": _RANGE,
    }

    def fit(self, S, y):
        """Store the symmetrised training similarities and labels.

        Parameters
        ----------
        S : array-like of shape (n_train, n_train)
        y : array-like of shape (n_train,)

        Returns
        -------
        self
        """
        validate_params(self)
        S, classes, y_idx, low, high = _validate_fit(self, S, y)
        self.S_fit_ = S
        self.classes_ = classes
        self._y_idx = y_idx
        self.similarity_range_ = (low, high)
        self.n_features_in_ = S.shape[0]
        if self.n_neighbors == "auto":
            def fold_predictor(tr):
                inner = LocalSDA(1, similarity_range=(low, high),
                                 min_class_size=self.min_class_size)
                inner.S_fit_, inner._y_idx = S[np.ix_(tr, tr)], y_idx[tr]
                inner.classes_, inner.similarity_range_ = classes, (low, high)
                inner.n_features_in_ = len(tr)
                return lambda nbrs, sims: np.argmax(inner._log_proba_neighbors(nbrs, sims), axis=1)

            self.n_neighbors_, self.cv_scores_ = choose_k_by_cv(S, y_idx, fold_predictor)
        else:
            self.n_neighbors_ = check_n_neighbors(self.n_neighbors, S.shape[0])
            self.cv_scores_ = None
        return self

    def _chunks(self, m, k):
        G = self.classes_.shape[0]
        return row_chunks(m, 8 * (4 * k * k + 4 * k * G + 6 * G * G + self.n_features_in_))

    def predict_log_proba(self, S_test):
        """Local posterior log-probabilities of shape (m, n_classes).

        Absent classes (and, in the fallback, non-nearest centroids) get
        ``-inf``.
        """
        check_is_fitted(self, "S_fit_")
        S_test = check_test_similarity(S_test, self.n_features_in_)
        validate_params(self, "min_class_size")  # the one parameter read here
        k = self.n_neighbors_
        out = np.empty((S_test.shape[0], self.classes_.shape[0]))
        for sl in self._chunks(S_test.shape[0], k):
            out[sl] = self._log_proba_neighbors(*top_k_similar(S_test[sl], k))
        return out

    def _log_proba_neighbors(self, nbrs, sims):
        """Local posterior log-probabilities from neighbour lists ``(c, k)`` and the
        test-to-neighbour similarities (most similar first)."""
        G = self.classes_.shape[0]
        low, high = self.similarity_range_
        width = high - low
        degenerate_range = not width > _RANGE_RTOL * max(1.0, abs(low), abs(high))
        k = nbrs.shape[1]
        out = np.empty((nbrs.shape[0], G))
        for sl in self._chunks(nbrs.shape[0], k):
            nb = nbrs[sl]
            lab = self._y_idx[nb]
            S_blk = self.S_fit_[nb[:, :, None], nb[:, None, :]]
            cent, counts, onehot = _centroids(S_blk, lab, nb, G)
            Tx = np.take_along_axis(sims[sl], cent, axis=1)  # (c, G) psi(x, mu_g)
            present = counts > 0
            if degenerate_range:
                LJ = np.where(present, np.log(np.where(present, counts, 1) / k), -np.inf)
            else:
                T_tr = np.take_along_axis(S_blk, cent[:, None, :], axis=2)  # (c, k, G)
                LJ, _ = _sda_log_joint(
                    _unit(T_tr, low, width), onehot, counts,
                    _unit(Tx, low, width), low, width,
                )
            small = (present & (counts < self.min_class_size)).any(axis=1)
            lp = _log_softmax(LJ)
            if small.any():
                # nearest local centroid among the present classes
                sc = np.where(present, Tx, -np.inf)[small]
                tied = sc == sc.max(axis=1, keepdims=True)
                with np.errstate(divide="ignore"):
                    lp[small] = np.log(tied / tied.sum(axis=1, keepdims=True))
            out[sl] = lp
        return out

    def predict_proba(self, S_test):
        """Local posterior probabilities of shape (m, n_classes) (rows sum to 1)."""
        return np.exp(self.predict_log_proba(S_test))

    def predict(self, S_test):
        """Maximum local posterior class (fallback: nearest local centroid)."""
        best = np.argmax(self.predict_log_proba(S_test), axis=1)
        return self.classes_[best]
