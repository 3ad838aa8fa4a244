"""Quality measures: of estimated class posteriors (Chen 2010 thesis, section 4.6),
and of the dependence between two kernels (:func:`hsic`, :func:`centered_alignment`;
Zhuang 2011, chapters 6-7).

The posterior measures are built on the *empirical cross entropy* (thesis section
4.6.1)

.. math::

    \\hat\\zeta = -\\frac{1}{m} \\sum_{i=1}^m \\log \\tilde P(y_i \\mid x_i),

an estimate of the expected KL divergence from the true posterior up to the
constant conditional entropy ``H(Y | X)``, evaluated on the *additively
smoothed* (Lidstone) posterior of the thesis,

.. math::

    \\tilde P(g \\mid x) = \\frac{\\hat P(g \\mid x) + \\epsilon}
                               {\\sum_{h} (\\hat P(h \\mid x) + \\epsilon)}
                         = \\frac{\\hat P(g \\mid x) + \\epsilon}{1 + G \\epsilon}

(G classes; the rows of ``proba`` sum to one). Smoothing keeps
``\\hat\\zeta`` finite when the true class gets probability 0, which happens
for k-NN weights whenever no neighbour shares the class. The thesis used
``epsilon = 1e-4`` (Aural Sonar, Patrol, Voting) and ``1e-6`` (Caltech-101,
Face Rec), footnote 7.

* :func:`perplexity` ``= exp(zeta) = 2^{-(1/m) sum log2 P~(y_i|x_i)}``; lower
  is better, 1 is perfect, G for the uniform posterior.
* :func:`normalized_cross_entropy` ``= (zeta_0 - zeta) / zeta_0``, where
  ``zeta_0`` is the empirical cross entropy of a baseline that ignores ``x``:
  the class prior. At most 1, higher is better, 0 means "no better than the
  prior".
"""

from __future__ import annotations

import numbers

import numpy as np

from proxlearn._linalg import center_kernel
from proxlearn._validation import InvalidParameterError, LabelError

__all__ = [
    "centered_alignment",
    "empirical_cross_entropy",
    "hsic",
    "normalized_cross_entropy",
    "perplexity",
]

#: Absolute tolerance for probabilities outside [0, 1] and row sums != 1.
_PROBA_ATOL = 1e-6


def _check_epsilon(epsilon) -> float:
    if isinstance(epsilon, bool) or not isinstance(epsilon, numbers.Real):
        raise InvalidParameterError(f"epsilon must be a real number, got {epsilon!r}.")
    epsilon = float(epsilon)
    if not np.isfinite(epsilon) or epsilon < 0:
        raise InvalidParameterError(
            f"epsilon must be finite and >= 0, got {epsilon}."
        )
    return epsilon


def _check_proba(P, m, G, name):
    """Validate an (m, G) probability matrix (rows on the simplex)."""
    P = np.asarray(P)
    if P.dtype == object or not (np.issubdtype(P.dtype, np.number) or P.dtype == bool):
        raise ValueError(f"{name} must be a numeric array, got dtype {P.dtype}.")
    P = np.asarray(P, dtype=np.float64)
    if P.ndim != 2 or P.shape != (m, G):
        raise ValueError(
            f"{name} must have shape (n_samples, n_classes) = ({m}, {G}), got "
            f"{P.shape}. Columns must follow `classes` (e.g. estimator.classes_)."
        )
    if not np.isfinite(P).all():
        raise ValueError(f"{name} contains NaN or inf.")
    lo, hi = P.min(), P.max()
    if lo < -_PROBA_ATOL or hi > 1 + _PROBA_ATOL:
        raise ValueError(
            f"{name} must contain probabilities in [0, 1]; found values in "
            f"[{lo:.6g}, {hi:.6g}]."
        )
    sums = P.sum(axis=1)
    bad = np.flatnonzero(np.abs(sums - 1.0) > _PROBA_ATOL)
    if bad.size:
        i = bad[0]
        raise ValueError(
            f"each row of {name} must sum to 1; {bad.size} row(s) do not (row {i} "
            f"sums to {sums[i]:.6g}). Normalise the rows first."
        )
    return np.clip(P, 0.0, 1.0)


def _check_inputs(y_true, proba, classes):
    y = np.asarray(y_true)
    if y.ndim != 1:
        raise LabelError(f"y_true must be a 1-D vector of labels, got shape {y.shape}.")
    if y.shape[0] == 0:
        raise LabelError("y_true is empty; at least one sample is needed.")
    if classes is None:
        classes = np.unique(y)
    else:
        classes = np.asarray(classes)
        if classes.ndim != 1 or np.unique(classes).shape[0] != classes.shape[0]:
            raise LabelError("classes must be a 1-D array of distinct labels.")
    G = classes.shape[0]
    P = np.asarray(proba)
    if P.ndim == 2 and P.shape[1] != G and P.shape[0] == y.shape[0]:
        raise ValueError(
            f"proba has {P.shape[1]} columns but there are {G} classes "
            f"({classes.tolist()!r}). When y_true does not contain every class, "
            "pass classes=estimator.classes_ (the column order of proba)."
        )
    P = _check_proba(P, y.shape[0], G, "proba")
    # position of each label in `classes` (classes need not be sorted)
    order = np.argsort(classes, kind="stable")
    pos = np.searchsorted(classes[order], y)
    pos = np.clip(pos, 0, G - 1)
    found = classes[order][pos] == y
    if not found.all():
        missing = np.unique(y[~found])
        raise LabelError(
            f"y_true contains labels {missing.tolist()!r} that are not in classes "
            f"{classes.tolist()!r}."
        )
    return P, order[pos], classes


def _smooth(P, epsilon):
    """Additive (Lidstone) smoothing, thesis section 4.6.2."""
    G = P.shape[1]
    return (P + epsilon) / (1.0 + G * epsilon)


def _cross_entropy(P_true_class):
    """``-mean(log p)``; ``inf`` if some ``p`` is 0 (only possible with epsilon=0)."""
    with np.errstate(divide="ignore"):
        return float(-np.mean(np.log(P_true_class)))


def empirical_cross_entropy(y_true, proba, classes=None, epsilon=1e-4):
    """Empirical cross entropy ``zeta`` of smoothed posteriors (thesis sec. 4.6.1).

    ``zeta = -(1/m) sum_i log P~(y_i | x_i)`` in nats, with
    ``P~ = (P + epsilon) / (1 + G epsilon)``. See :func:`perplexity` for the
    parameters.

    Returns
    -------
    zeta : float
        ``>= 0``; ``inf`` if ``epsilon = 0`` and a true class has probability 0.

    Examples
    --------
    >>> from proxlearn.metrics import empirical_cross_entropy
    >>> round(empirical_cross_entropy([0, 1], [[0.5, 0.5], [0.5, 0.5]]), 4)
    0.6931

    See Also
    --------
    perplexity : ``exp(zeta)``.
    normalized_cross_entropy : ``zeta`` against the class prior's.
    """
    epsilon = _check_epsilon(epsilon)
    P, yi, _ = _check_inputs(y_true, proba, classes)
    Ps = _smooth(P, epsilon)
    return _cross_entropy(Ps[np.arange(P.shape[0]), yi])


def perplexity(y_true, proba, classes=None, epsilon=1e-4):
    """Perplexity of estimated class posteriors (Chen 2010 thesis, section 4.6.1).

    .. math::

        \\mathrm{perplexity} = 2^{\\hat\\zeta_2}
        = \\Big(\\prod_{i=1}^m \\tilde P(y_i \\mid x_i)\\Big)^{-1/m}
        = \\exp\\Big(-\\frac1m \\sum_i \\ln \\tilde P(y_i \\mid x_i)\\Big),

    with the additively smoothed posterior
    ``P~(g | x) = (P(g | x) + epsilon) / (1 + G epsilon)`` (section 4.6.2).
    The value does not depend on the logarithm's base. Lower is better: 1 for
    perfect (``epsilon = 0``) predictions, G for uniform predictions.

    Parameters
    ----------
    y_true : array-like of shape (m,)
        True labels.
    proba : array-like of shape (m, G)
        Estimated posteriors, columns in the order of ``classes``; entries in
        [0, 1] and rows summing to 1 (tolerance 1e-6), otherwise ``ValueError``.
    classes : array-like of shape (G,), optional
        Labels of the columns of ``proba`` (e.g. ``estimator.classes_``).
        Defaults to the sorted unique labels of ``y_true``; pass it when
        ``y_true`` does not contain every class.
    epsilon : float, default=1e-4
        Smoothing constant (``>= 0``); the thesis used 1e-4 or 1e-6
        (footnote 7).

    Returns
    -------
    perplexity : float
        In ``[1, inf]``; ``inf`` only when ``epsilon = 0`` and some true class
        has probability 0.

    Examples
    --------
    >>> from proxlearn.metrics import perplexity
    >>> round(perplexity([0, 1, 2], [[1, 0, 0], [0, 1, 0], [1/3, 1/3, 1/3]]), 3)
    1.442

    See Also
    --------
    empirical_cross_entropy : its logarithm.
    normalized_cross_entropy : the same loss relative to the class prior.
    sklearn.metrics.log_loss : the unsmoothed cross entropy.
    """
    return float(np.exp(empirical_cross_entropy(y_true, proba, classes, epsilon)))


def normalized_cross_entropy(y_true, proba, classes=None, epsilon=1e-4, *, prior=None):
    """Normalised cross entropy (NCE) of estimated posteriors (thesis sec. 4.6.1).

    .. math::

        \\mathrm{NCE} = \\frac{\\hat\\zeta_0 - \\hat\\zeta}{\\hat\\zeta_0},

    where ``zeta`` is the empirical cross entropy of the smoothed ``proba``
    (:func:`empirical_cross_entropy`) and ``zeta_0`` that of the baseline
    model which predicts the class prior ``pi`` for every sample,
    ``zeta_0 = -(1/m) sum_i log pi~(y_i)``, smoothed the same way
    (``pi~ = (pi + epsilon) / (1 + G epsilon)``, so that a class absent from
    the prior's data is not infinitely penalised). The thesis uses "the class
    prior probability estimated from the training data" (for its
    leave-one-out experiments, from the rest of the data set).

    NCE is at most 1 (``zeta = 0``: perfect predictions), 0 when the
    posteriors are no better than the prior, and negative when worse. Higher is
    better.

    Parameters
    ----------
    y_true, proba, classes, epsilon
        As in :func:`perplexity`.
    prior : array-like of shape (G,) or (m, G), optional
        Baseline class probabilities in the order of ``classes``: one vector
        for all samples, or one row per sample (e.g. leave-one-out priors).
        Default: the class frequencies of ``y_true`` (pass the training-set
        frequencies to follow the thesis exactly).

    Returns
    -------
    nce : float

    Raises
    ------
    ValueError
        If ``zeta_0 = 0`` (the baseline is already perfect: a single class
        with ``epsilon = 0``), where NCE is undefined.

    Examples
    --------
    >>> from proxlearn.metrics import normalized_cross_entropy
    >>> y = [0, 0, 1, 1]
    >>> round(normalized_cross_entropy(y, [[0.9, 0.1]] * 2 + [[0.2, 0.8]] * 2), 3)
    0.763
    >>> round(normalized_cross_entropy(y, [[0.5, 0.5]] * 4), 3)
    0.0

    See Also
    --------
    empirical_cross_entropy : the cross entropy it normalises.
    perplexity : the same loss on another scale.
    """
    epsilon = _check_epsilon(epsilon)
    P, yi, classes = _check_inputs(y_true, proba, classes)
    m, G = P.shape
    if prior is None:
        Pi = np.broadcast_to(np.bincount(yi, minlength=G) / m, (m, G))
    else:
        Pi = np.asarray(prior)
        if Pi.ndim == 1:
            if Pi.shape != (G,):
                raise ValueError(
                    f"prior must have shape ({G},) or ({m}, {G}), got {Pi.shape}."
                )
            Pi = np.broadcast_to(Pi, (m, G))
        Pi = _check_proba(Pi, m, G, "prior")
    rows = np.arange(m)
    zeta = _cross_entropy(_smooth(P, epsilon)[rows, yi])
    zeta0 = _cross_entropy(_smooth(Pi, epsilon)[rows, yi])
    if zeta0 == 0.0:
        raise ValueError(
            "the baseline cross entropy is 0 (the prior already predicts every "
            "label with probability 1), so NCE is undefined."
        )
    if np.isinf(zeta0):
        raise ValueError(
            "the prior gives probability 0 to a true label and epsilon=0, so the "
            "baseline cross entropy is infinite; use epsilon > 0."
        )
    if np.isinf(zeta):
        return -np.inf
    return float((zeta0 - zeta) / zeta0)


# ---------------------------------------------------------------------------
# Dependence between two kernels on the same objects (Zhuang 2011, ch. 6-7)
# ---------------------------------------------------------------------------


def _check_kernel_pair(K, L):
    from ._validation import check_similarity

    K = check_similarity(K, name="K", dissimilarity_check=False)
    L = check_similarity(L, name="L", dissimilarity_check=False)
    if K.shape != L.shape:
        raise InvalidParameterError(
            f"K and L must be kernels on the same objects, got shapes {K.shape} and {L.shape}."
        )
    return K, L



def hsic(K, L) -> float:
    """Empirical Hilbert-Schmidt independence criterion of two kernels.

    Zhuang (2011), Definition 6.1 (Gretton et al. 2005)::

        HSIC(K, L) = tr(K H L H) / (n - 1)^2,   H = I - 11^T / n,

    computed as ``<H K H, L>_F / (n - 1)^2`` (no ``n x n`` centring matrix).
    Non-negative for PSD ``K`` and ``L``; zero when either is constant.

    Parameters
    ----------
    K, L : array-like of shape (n, n)
        Kernels (Gram matrices) over the same ``n`` objects, ``n >= 2``.

    Returns
    -------
    hsic : float

    Examples
    --------
    >>> import numpy as np
    >>> from proxlearn.metrics import hsic
    >>> X = np.random.default_rng(0).normal(size=(10, 2))
    >>> round(hsic(X @ X.T, np.ones((10, 10))), 12)
    0.0
    >>> hsic(X @ X.T, X @ X.T) > 0
    True

    See Also
    --------
    centered_alignment : the same inner product, normalised to [-1, 1].
    """
    K, L = _check_kernel_pair(K, L)
    n = K.shape[0]
    if n < 2:
        raise InvalidParameterError("HSIC needs at least 2 objects.")
    return float(np.vdot(center_kernel(K), L) / (n - 1) ** 2)


def centered_alignment(K, L) -> float:
    """Centred kernel alignment ``<K_c, L_c>_F / (||K_c||_F ||L_c||_F)``.

    Zhuang (2011), Definition 7.4 with centred kernels ``K_c = H K H``
    (Cortes, Mohri & Rostamizadeh 2010; the thesis's printed centring formula
    has an index typo; the centring followed is ``H K H``). In ``[-1, 1]``; 1
    when ``L_c`` is a positive multiple of ``K_c``. ``nan`` if either centred
    kernel is zero.

    Parameters
    ----------
    K, L : array-like of shape (n, n)

    Returns
    -------
    alignment : float

    Examples
    --------
    >>> import numpy as np
    >>> from proxlearn.metrics import centered_alignment
    >>> X = np.random.default_rng(0).normal(size=(10, 2))
    >>> round(centered_alignment(X @ X.T, 3 * X @ X.T), 6)
    1.0

    See Also
    --------
    hsic : the unnormalised centred inner product.
    """
    K, L = _check_kernel_pair(K, L)
    Kc, Lc = center_kernel(K), center_kernel(L)
    denom = np.linalg.norm(Kc) * np.linalg.norm(Lc)
    return float(np.vdot(Kc, Lc) / denom) if denom > 0 else float("nan")
