"""The base-kernel bank of Zhuang (2011) ch. 4-5, and kernel stacks that need not be held.

==================  ========================================================
kernel              on z-scored features ``z`` (training mean and deviation)
==================  ========================================================
Gaussian            ``exp(-||z - z'||^2 / (2 sigma^2))``, ``sigma`` in
                    ``{2^-3, ..., 2^6}`` (10 widths)
polynomial          ``(z . z' + c)^p``, ``p`` in ``{1, 2, 3}``
==================  ========================================================

each on all features and on every single feature, each divided by its mean
diagonal on the training samples (the same scalar for test rows; ``normalize=
"diagonal"``, the default): ``m = 13 (d + 1)`` kernels (Sonar 793, Adult a1a
1,612). The thesis divides each kernel by its **trace** (``normalize="trace"``,
the literal reading): ``n`` times smaller, so that an SVM on any convex
combination sees a kernel of scale ``1 / n`` and its ``C`` acts as ``C / n``
(at ``C = 1`` UMKL then an SVM, IKL and KTASVC on such a bank predicted the
majority class on seven UCI sets; docs/methods.md, "Zhuang ch. 4-5 at their
defaults"). Both readings give the same kernels up to one common factor.

Zhuang, *Kernel Learning: Methods and Applications* (2011), section 4.5.1 (and
5.3), following Xu, Jin, King & Lyu (NIPS 2008). The thesis states neither the width convention nor the
polynomial's form: the ``2 sigma^2`` convention is SimpleMKL's and Xu et al.'s
(docs/methods.md, "MKL reference notes"); ``c = 1`` (inhomogeneous,
so that degree 2 and 3 include the lower orders) is **our choice**;
``poly_offset=0`` gives the homogeneous form.

Memory rule
-----------
A stack of ``m`` kernels between ``n_rows`` and ``n_cols`` samples holds
``8 m n_rows n_cols`` bytes (sizes on the UCI sets: docs/benchmarks.md, "MKL
reference notes").
:meth:`KernelBank.stack` returns a dense ``(n_rows, n_cols, m)`` float64 array
when that is at most ``max_memory`` bytes (default 1 GiB), and otherwise a
:class:`LazyKernelStack` that keeps only the features and computes kernels
feature group by feature group when asked (``O(n_rows n_cols)`` working memory
per group, results identical to the dense stack up to rounding). Every MKL
solver of :mod:`proxlearn.mkl` reads stacks only through :func:`stack_combine`,
:func:`stack_quad`, :func:`stack_inner`, :func:`stack_take` and
:func:`stack_entries`, which accept both.
"""

from __future__ import annotations

import numbers

import numpy as np
from scipy.linalg.blas import daxpy as _axpy
from sklearn.base import BaseEstimator
from sklearn.utils.validation import check_is_fitted

from .._validation import (
    InvalidParameterError,
    check_features,
    options,
    positive,
    satisfies,
    unchecked,
    validate_params,
)

__all__ = [
    "DEFAULT_DEGREES",
    "DEFAULT_WIDTHS",
    "KernelBank",
    "LazyKernelStack",
    "stack_combine",
    "stack_entries",
    "stack_inner",
    "stack_mean_diagonal",
    "stack_quad",
    "stack_take",
]

#: Zhuang's Gaussian widths, ``2^-3`` to ``2^6`` (section 4.5.1).
DEFAULT_WIDTHS = tuple(2.0 ** k for k in range(-3, 7))
#: Zhuang's polynomial degrees.
DEFAULT_DEGREES = (1, 2, 3)


def _positive_numbers(widths):
    """Whether ``widths`` holds finite numbers > 0 (KernelBank's widths)."""
    try:
        w = np.asarray(widths, dtype=np.float64)
    except (TypeError, ValueError):
        return False
    return bool(np.all(np.isfinite(w)) and np.all(w > 0))


def _degrees(degrees):
    """Whether ``degrees`` is a sequence of integers >= 1 (KernelBank's degrees)."""
    try:
        return all(isinstance(p, numbers.Integral) and not isinstance(p, bool) and p >= 1
                   for p in list(degrees))
    except TypeError:
        return False


class KernelBank(BaseEstimator):
    """Gaussian and polynomial base kernels on all features and on each feature.

    Parameters
    ----------
    widths : sequence of float, default=(2^-3, ..., 2^6)
        Gaussian widths ``sigma`` of ``exp(-||z - z'||^2 / (2 sigma^2))``.
    degrees : sequence of int, default=(1, 2, 3)
        Polynomial degrees of ``(z . z' + poly_offset)^p``.
    per_feature : bool, default=True
        Also every kernel on each single feature (``13 (d + 1)`` kernels; a
        feature constant on the training samples gets none: its kernels would
        be constant, e.g. Ionosphere's column 2, which makes Zhuang's 33 features);
        ``False``: the 13 all-feature kernels (the inner layer 2LMKL-Inf
        starts from).
    standardize : bool, default=True
        z-score the features with the training mean and standard deviation
        (constant features become 0).
    poly_offset : float, default=1.0
        ``c`` of the polynomial kernels (our choice; the thesis is silent).
    normalize : {"diagonal", "trace"} or None, default="diagonal"
        Divide every kernel by its mean training diagonal (``"diagonal"``: the
        Gaussians are unchanged, the polynomials get mean diagonal 1), by its
        training trace (``"trace"``: the thesis's unit trace, ``n`` times
        smaller), or not at all (``None``). A kernel whose trace is 0 is the
        zero kernel and stays 0.
    max_memory : int, default=2**30
        Bytes above which :meth:`stack` returns a :class:`LazyKernelStack`; such a
        lazy stack keeps up to a quarter of it in computed kernels (its cache).

    Attributes
    ----------
    n_kernels_ : int
    kernels_ : list of tuple
        ``(feature, kind, parameter)`` per kernel; ``feature`` is ``None`` for
        all features, ``kind`` is ``"gaussian"`` or ``"poly"``.
    scales_ : ndarray of shape (``n_kernels_``,)
        The factor of each kernel: ``n / trace``, ``1 / trace`` or 1 (``normalize``).
    gaussian_scale_ : float
        The factor of every Gaussian kernel (1, or ``1 / n`` for ``"trace"``); the
        learners that add Gaussians during the fit scale them alike.
    mean_, scale_ : ndarray of shape (n_features,)
        The standardisation.
    Z_ : ndarray of shape (n_train, n_features)
        The standardised training features.
    n_features_in_ : int

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from proxlearn.mkl import KernelBank, SimpleMKL
    >>> X, y = load_iris(return_X_y=True)
    >>> bank = KernelBank().fit(X)
    >>> bank.n_kernels_, bank.stack().shape, bank.kernel_name(0)
    (65, (150, 150, 65), 'gaussian(sigma=0.125) on all features')
    >>> SimpleMKL(bank=KernelBank(per_feature=False)).fit(X, y).predict(X[::50]).tolist()
    [0, 1, 2]

    See Also
    --------
    LazyKernelStack : the stack returned above ``max_memory``.
    SimpleMKL : convex MKL, on a bank with ``bank=KernelBank(...)``.
    UMKL : the unsupervised weights of Zhuang's bank.
    """

    def __init__(self, widths=DEFAULT_WIDTHS, degrees=DEFAULT_DEGREES, *, per_feature=True,
                 standardize=True, poly_offset=1.0, normalize="diagonal", max_memory=2**30):
        self.widths = widths
        self.degrees = degrees
        self.per_feature = per_feature
        self.standardize = standardize
        self.poly_offset = poly_offset
        self.normalize = normalize
        self.max_memory = max_memory

    _parameter_constraints = {
        "widths": satisfies(_positive_numbers, "positive numbers"),
        "degrees": satisfies(_degrees, "integers >= 1"),
        "per_feature": unchecked("read as a truth value"),
        "standardize": unchecked("read as a truth value"),
        "poly_offset": satisfies(lambda c: isinstance(c, numbers.Real) and np.isfinite(c)
                                 and c >= 0, "a finite number >= 0"),
        "max_memory": positive(),
        "normalize": options("diagonal", "trace", None),
    }

    def fit(self, X, y=None):
        """Standardise, list the kernels and their training traces."""
        validate_params(self)
        widths = np.asarray(self.widths, dtype=np.float64).ravel()
        degrees = [int(p) for p in self.degrees]
        if widths.size + len(degrees) == 0:
            raise InvalidParameterError("the bank is empty: give widths or degrees.")
        X = check_features(X)
        n, d = X.shape
        if self.standardize:
            self.mean_ = X.mean(axis=0)
            sd = X.std(axis=0)
            self.scale_ = np.where(sd > 0, sd, 1.0)
        else:
            self.mean_, self.scale_ = np.zeros(d), np.ones(d)
        self.Z_ = Z = (X - self.mean_) / self.scale_  # constant features are 0
        # a feature constant on the training samples gives constant kernels: skipped
        varies = X.std(axis=0) > 0
        features = [None] + ([j for j in range(d) if varies[j]] if self.per_feature else [])
        kernels, scales = [], []
        # the factor making a kernel of trace tr: n / tr (mean diagonal 1), 1 / tr, or 1
        num = {"diagonal": float(n), "trace": 1.0, None: None}[self.normalize]
        for f in features:
            sq = (Z * Z).sum(1) if f is None else Z[:, f] ** 2  # z . z on the diagonal
            for s in widths:
                kernels.append((f, "gaussian", float(s)))
                scales.append(1.0 if num is None else num / n)
            for p in degrees:
                kernels.append((f, "poly", p))
                tr = float(np.sum((sq + self.poly_offset) ** p))
                scales.append(1.0 if num is None else (num / tr if tr > 0 else 0.0))
        self.kernels_ = kernels
        self.scales_ = np.array(scales)
        self.gaussian_scale_ = 1.0 if num is None else num / n
        self.n_kernels_ = len(kernels)
        self.n_features_in_ = d
        self.n_train_ = n
        return self

    def standardized(self, X):
        """``X`` standardised with the training statistics (constant training
        features map to 0)."""
        check_is_fitted(self, "Z_")
        return self._z(X)

    def kernel_name(self, t):
        """A readable name of kernel ``t``, e.g. ``"gaussian(sigma=0.5) on feature 3"``."""
        f, kind, par = self.kernels_[t]
        on = "all features" if f is None else f"feature {f}"
        return f"gaussian(sigma={par:g}) on {on}" if kind == "gaussian" else \
            f"poly(degree={par}) on {on}"

    def stack(self, X=None):
        """Kernels between the rows ``X`` (default: the training samples) and the
        training samples: dense ``(n_rows, n_train, m)`` or lazy (memory rule)."""
        check_is_fitted(self, "Z_")
        Zr = self.Z_ if X is None else self._z(X)
        lazy = LazyKernelStack(Zr, self.Z_, self.kernels_, self.scales_, self.poly_offset,
                               cache_bytes=self.max_memory // 4)
        if 8.0 * self.n_kernels_ * Zr.shape[0] * self.Z_.shape[0] <= self.max_memory:
            return lazy.toarray()
        return lazy

    def _z(self, X):
        X = check_features(X, n_features=self.n_features_in_)
        Z = (X - self.mean_) / self.scale_
        if self.standardize:  # a feature constant in training carries no information
            Z[:, np.all(self.Z_ == 0.0, axis=0)] = 0.0
        return Z


class LazyKernelStack:
    """Kernels of a :class:`KernelBank` between two sample sets, computed on demand.

    Behaves like the dense ``(n_rows, n_cols, m)`` stack for the ``stack_*``
    functions; ``shape`` is that stack's shape. Kernels are grouped by feature
    set (all features, or one feature): a group's squared distances and inner
    products are computed once per call and every kernel of the group is
    derived from them.

    A single feature with at most ``categorical_max`` distinct values (binary
    features: Adult a1a's 123) is **categorical**: each of its kernels is an
    ``r x r`` table ``T_t`` of the values, ``K_t = O_r T_t O_c^T`` with one-hot
    codes ``O``. Then ``combine`` sums every categorical feature's weighted
    tables in one ``(n_rows x R) (R x n_cols)`` product (``R`` the number of
    codes) and ``inner`` reads ``<W, K_t> = <O^T W O, T_t>`` from one ``R x R``
    matrix, instead of ``13 n^2`` exponentials per feature (the same numbers).

    Caches. An MKL solver makes two passes per iteration, so what is computed once
    is kept: the tables of the categorical kernels and the one-hot codes (small), and
    the dense matrices of the other kernels as they are first computed in full, up
    to ``cache_bytes`` (why: docs/benchmarks.md, "MKL reference notes"). Yielded
    matrices are shared with the cache: callers must not modify them.

    Parameters
    ----------
    Zr, Zc : ndarray of shape (n_rows, d) and (n_cols, d)
        The standardised features of the rows and of the columns.
    kernels, scales, poly_offset
        :class:`KernelBank`'s ``kernels_``, ``scales_`` and ``poly_offset``.
    categorical_max : int, default=16
        A single feature with at most this many distinct values is categorical.
    cache_bytes : int, default=0
        Bytes of computed kernels kept.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.datasets import load_iris
    >>> from proxlearn.mkl import KernelBank
    >>> X, _ = load_iris(return_X_y=True)
    >>> lazy = KernelBank(max_memory=10_000).fit(X).stack()
    >>> type(lazy).__name__, lazy.shape
    ('LazyKernelStack', (150, 150, 65))
    >>> bool(np.allclose(lazy.toarray(), KernelBank().fit(X).stack()))
    True

    See Also
    --------
    KernelBank : builds these stacks (``stack``).
    """

    def __init__(self, Zr, Zc, kernels, scales, poly_offset, categorical_max=16,
                 cache_bytes=0):
        self.Zr, self.Zc = Zr, Zc
        self.kernels, self.scales, self.poly_offset = kernels, np.asarray(scales), poly_offset
        self.categorical_max = categorical_max
        self.cache_bytes = cache_bytes
        self._dense, self._tables, self._codes = {}, {}, {}
        groups = {}
        for t, (f, _, _) in enumerate(kernels):
            groups.setdefault(f, []).append(t)
        self.groups = list(groups.items())
        self.shape = (Zr.shape[0], Zc.shape[0], len(kernels))
        # categorical features: codes of rows and columns, offsets in the one-hot basis
        self.cat, offset = {}, 0
        for f, _ in self.groups:
            if f is None:
                continue
            vals = np.unique(np.concatenate([Zr[:, f], Zc[:, f]]))
            if vals.size <= categorical_max:
                self.cat[f] = (np.searchsorted(vals, Zr[:, f]), np.searchsorted(vals, Zc[:, f]),
                               vals, offset)
                offset += vals.size
        self.n_codes = offset

    def _table(self, t):
        if t not in self._tables:
            vals = self.cat[self.kernels[t][0]][2]
            self._tables[t] = self._kernel(t, np.multiply.outer(vals, vals),
                                           np.subtract.outer(vals, vals) ** 2)
        return self._tables[t]

    def _onehot(self, which, idx=None):
        """``(n, R)`` one-hot codes of the rows (``which=0``) or columns (1)."""
        if which not in self._codes:
            n = self.shape[which]
            O = np.zeros((n, self.n_codes))
            for codes_r, codes_c, _, off in self.cat.values():
                O[np.arange(n), off + (codes_r, codes_c)[which]] = 1.0
            self._codes[which] = O
        O = self._codes[which]
        return O if idx is None else O[np.asarray(idx)]

    def _base(self, f, rows=None, cols=None, paired=False):
        a = self.Zr if rows is None else self.Zr[rows]
        b = self.Zc if cols is None else self.Zc[cols]
        if paired:  # entries (rows[k], cols[k])
            if f is None:
                G = np.einsum("ij,ij->i", a, b)
                D2 = np.maximum(np.einsum("ij,ij->i", a - b, a - b), 0.0)
            else:
                G = a[:, f] * b[:, f]
                D2 = (a[:, f] - b[:, f]) ** 2
            return G, D2
        if f is None:
            G = a @ b.T
            D2 = np.maximum((a * a).sum(1)[:, None] + (b * b).sum(1)[None] - 2.0 * G, 0.0)
        else:
            G = np.multiply.outer(a[:, f], b[:, f])
            D2 = np.subtract.outer(a[:, f], b[:, f]) ** 2
        return G, D2

    def _kernel(self, t, G, D2):
        _, kind, par = self.kernels[t]
        if kind == "gaussian":
            K = np.exp(D2 * (-0.5 / par**2))
        else:
            K = (G + self.poly_offset) ** par
        K *= self.scales[t]
        return K

    def _iter(self, need=None, skip_categorical=False, rows=None, cols=None, paired=False,
              keep=True):
        """Yield ``(t, K_t)`` for the kernels ``need`` (a boolean mask; default all),
        from the cache where it holds them (sliced to ``rows`` x ``cols``); ``keep``:
        cache the full kernels computed while there is room."""
        full = keep and rows is None and cols is None
        for f, ts in self.groups:
            ts = [t for t in ts if need is None or need[t]]
            if not ts or (skip_categorical and f in self.cat):
                continue
            if all(t in self._dense for t in ts):
                for t in ts:
                    yield t, self._cached(t, rows, cols, paired)
                continue
            G, D2 = self._base(f, rows, cols, paired)
            for t in ts:
                K = self._kernel(t, G, D2)
                if full and not paired and t not in self._dense and self._room(K):
                    self._dense[t] = K
                yield t, K

    def _room(self, K):
        return sum(A.nbytes for A in self._dense.values()) + K.nbytes <= self.cache_bytes

    def _cached(self, t, rows, cols, paired):
        K = self._dense[t]
        r = slice(None) if rows is None else np.asarray(rows)
        c = slice(None) if cols is None else np.asarray(cols)
        if paired:
            return K[r, c]
        if rows is None or cols is None:
            return K[r][:, c]
        return K[np.ix_(r, c)]

    def _uncached(self, need):
        """``need`` without the cached kernels, and the cached kernels ``need`` holds."""
        need = np.ones(self.shape[2], dtype=bool) if need is None else need.copy()
        hits = [t for t in self._dense if need[t]]
        need[hits] = False
        return need, hits

    def combine(self, w):
        w = np.asarray(w, dtype=np.float64)
        out = np.zeros(self.shape[:2])
        need, hits = self._uncached(w != 0)
        flat = out.reshape(-1)
        for t in hits:  # in place: no temporary per kernel
            _axpy(self._dense[t].reshape(-1), flat, a=w[t])
        for t, K in self._iter(need, skip_categorical=True):
            out += w[t] * K
        if self.cat:
            L = np.zeros((self.shape[0], self.n_codes))  # O_r blockdiag(sum_t w_t T_t)
            for f, ts in self.groups:
                if f not in self.cat or not np.any(w[ts] != 0):
                    continue
                codes_r, _, vals, off = self.cat[f]
                T = sum(w[t] * self._table(t) for t in ts if w[t] != 0)
                L[:, off:off + vals.size] = T[codes_r]
            out += L @ self._onehot(1).T
        return out

    def inner(self, W, idx=None):
        W = np.asarray(W, dtype=np.float64)
        out = np.zeros(self.shape[2])
        need, hits = self._uncached(None)
        if hits:  # cached kernels against a zero-padded W: no gather of K[idx, idx]
            Wf = W
            if idx is not None:
                Wf = np.zeros(self.shape[:2])
                Wf[np.ix_(idx, idx)] = W
            for t in hits:
                out[t] = np.vdot(Wf, self._dense[t])
        for t, K in self._iter(need, skip_categorical=True, rows=idx, cols=idx):
            out[t] = np.vdot(W, K)
        if self.cat:
            A = self._onehot(0, idx).T @ W @ self._onehot(1, idx)  # O^T W O, R x R
            for f, ts in self.groups:
                if f in self.cat:
                    off, r = self.cat[f][3], self.cat[f][2].size
                    block = A[off:off + r, off:off + r]
                    for t in ts:
                        out[t] = np.vdot(block, self._table(t))
        return out

    def take(self, rows, cols):
        return LazyKernelStack(self.Zr[rows], self.Zc[cols], self.kernels, self.scales,
                               self.poly_offset, self.categorical_max, self.cache_bytes)

    def entries(self, rows, cols):
        out = np.empty((len(rows), self.shape[2]))
        for t, K in self._iter(None, rows=rows, cols=cols, paired=True):
            out[:, t] = K
        return out

    def toarray(self):
        """The dense stack, stored kernel-major: an ``(n_rows, n_cols, m)`` view of an
        ``(m, n_rows, n_cols)`` array, so that ``reshape(n_rows * n_cols, m)`` is a
        view with contiguous kernels (a subset of kernels is a contiguous copy)."""
        out = np.empty((self.shape[2], self.shape[0], self.shape[1]))
        for t, K in self._iter(keep=False):  # the copy is the cache
            out[t] = K
        return np.moveaxis(out, 0, -1)


def _flat(Ks):
    """``(n_r n_c, m)`` view of a dense stack and the order (``"C"`` or ``"F"``)
    in which its first two axes are flattened: C-ordered and kernel-major stacks
    flatten in C order, a stack of Fortran-ordered kernels (``np.stack`` of
    LAPACK/BLAS outputs) in F order, without the copy of the whole stack that a
    C-order ``reshape`` makes there (it was half of REKL's time at n = 200)."""
    n_r, n_c, m = Ks.shape
    s_r, s_c, _ = Ks.strides
    if n_r == 1 or s_r == n_c * s_c:  # rows then columns contiguous: a C-order view
        return Ks.reshape(n_r * n_c, m), "C"
    if n_c == 1 or s_c == n_r * s_r:  # columns then rows: an F-order view
        return Ks.reshape(n_r * n_c, m, order="F"), "F"
    return Ks.reshape(n_r * n_c, m), "C"  # any other layout: a copy


def _kernel_major(Ks):
    """``(m, n_r n_c)`` view of a dense stack stored kernel-major (as
    :meth:`LazyKernelStack.toarray` returns it), else ``None``."""
    base = np.moveaxis(Ks, -1, 0)
    return base.reshape(base.shape[0], -1) if base.flags.c_contiguous else None


def _weighted_rows(rows, w, nz):
    """``sum_{t in nz} w_t rows[t]``: one contiguous axpy per nonzero weight."""
    out = np.zeros(rows.shape[1])
    for t in nz:
        out += w[t] * rows[t]
    return out


def zscore_params(X, standardize=True):
    """``(mean, scale)`` of the training features for ``(X - mean) / scale``: the
    training mean and standard deviation (1 for a constant feature), or ``(0, 1)``
    when ``standardize`` is False. Zhuang (2011) section 4.5.1 z-scores the
    features for every method of Table 4.2."""
    d = X.shape[1]
    if not standardize:
        return np.zeros(d), np.ones(d)
    sd = X.std(axis=0)
    return X.mean(axis=0), np.where(sd > 0, sd, 1.0)


def stack_mean_diagonal(Ks):
    """``(m,)``: each kernel's mean diagonal ``tr K_t / n`` of a square stack (dense
    or lazy): the scale the learners that normalise their kernels divide by."""
    n = Ks.shape[0]
    if isinstance(Ks, np.ndarray):
        return np.einsum("iit->t", Ks) / n
    idx = np.arange(n)
    return stack_entries(Ks, idx, idx).mean(axis=0)


def stack_combine(Ks, w):
    """``sum_t w_t K_t`` of a dense ``(n_r, n_c, m)`` or lazy stack. A kernel-major
    dense stack with few nonzero weights (fewer than ``m / 2``) adds only those
    kernels (one contiguous axpy each: 0.3 ms against 12 ms for the full product
    with 100 of Sonar's 793 kernels)."""
    w = np.asarray(w, dtype=np.float64)
    if isinstance(Ks, np.ndarray):
        n_r, n_c, m = Ks.shape
        nz = np.flatnonzero(w)
        rows = _kernel_major(Ks) if nz.size < m // 2 else None
        if rows is None:
            flat, order = _flat(Ks)
            return (flat @ w).reshape(n_r, n_c, order=order)
        return _weighted_rows(rows, w, nz).reshape(n_r, n_c)
    return Ks.combine(w)


def stack_inner(Ks, W, idx=None):
    """``<W, K_t[idx, idx]>_F`` for every kernel ``t`` (``W`` of shape
    ``(len(idx), len(idx))``; ``idx=None``: all samples)."""
    W = np.asarray(W, dtype=np.float64)
    if isinstance(Ks, np.ndarray):
        n_r, n_c, m = Ks.shape
        if idx is not None:  # zero-padded W: one gemv, no copy of the sub-stack
            full = np.zeros((n_r, n_c))
            full[np.ix_(idx, idx)] = W
            W = full
        flat, order = _flat(Ks)
        return W.reshape(n_r * n_c, order=order) @ flat
    return Ks.inner(W, idx)


def stack_quad(Ks, u):
    """``u^T K_t u`` for every kernel (a lazy stack: on the support of ``u`` only)."""
    u = np.asarray(u, dtype=np.float64)
    if isinstance(Ks, np.ndarray):
        flat, order = _flat(Ks)
        return np.outer(u, u).ravel(order=order) @ flat  # one gemv, no copy of the stack
    sv = np.flatnonzero(u)
    if sv.size == 0:
        return np.zeros(Ks.shape[2])
    us = u[sv]
    return Ks.inner(np.outer(us, us), sv)


class PackedSymmetricStack:
    """The upper triangles of a dense stack of symmetric ``n x n`` kernels, kernel-major
    ``(m, n (n + 1) / 2)``: half the memory traffic of the full stack for the
    two passes an MKL iteration makes (the combination ``sum_t w_t K_t`` and the
    inner products ``<W, K_t>`` with a symmetric ``W``), with the same float64 values
    (``dtype=np.float64``) or a quarter of the traffic in float32 (the entries rounded
    to 6e-8 relative and the passes accumulated in float32, so their results carry
    relative errors of about ``1e-7 sqrt(m)`` to ``1e-7 m``).

    Hand-written because neither numpy nor scipy has a packed-symmetric batched
    ``gemv``; the rows of the pack are plain BLAS ``gemv``/``axpy`` operands. Used by
    :func:`proxlearn.mkl.two_layer_mkl` and :func:`proxlearn.mkl.simple_mkl` for dense
    training stacks (one copy, half the stack's size, per fit; :class:`StackPasses`).
    """

    def __init__(self, Ks, dtype=np.float64):
        n, n2, m = Ks.shape
        if n != n2:
            raise ValueError(f"a packed stack needs square kernels, got {Ks.shape}.")
        self.n, self.m = n, m
        self.rows, self.cols = np.triu_indices(n)
        self.P = np.empty((m, self.rows.size), dtype=dtype)
        K3 = np.moveaxis(Ks, -1, 0)  # (m, n, n) view of any layout
        off = 0
        for i in range(n):  # one strided (m, n - i) block per row: no fancy-index gather
            self.P[:, off:off + n - i] = K3[:, i, i:]
            off += n - i
        self._double = np.where(self.rows == self.cols, 1.0, 2.0)

    @property
    def shape(self):
        return (self.n, self.n, self.m)

    def unpack(self, packed):
        """The symmetric ``n x n`` matrix of a packed upper triangle."""
        A = np.empty((self.n, self.n))
        A[self.rows, self.cols] = packed
        A[self.cols, self.rows] = packed
        return A

    def combine(self, w):
        """``sum_t w_t K_t`` (``n x n``); only the nonzero weights' rows are read when
        they are fewer than half (float64) or a sixth (float32, whose rows are upcast
        one by one: on Sonar's pack, 0.8 ms for m / 8 rows, 1.5 ms for m / 4, against
        1.1-1.4 ms for the whole gemv)."""
        w = np.asarray(w, dtype=np.float64)
        nz = np.flatnonzero(w)
        if nz.size < self.m // (2 if self.P.dtype == np.float64 else 6):
            out = _weighted_rows(self.P, w, nz)
        else:  # one gemv in the pack's precision (a float64 w would upcast the pack)
            out = w.astype(self.P.dtype, copy=False) @ self.P
        return self.unpack(out)

    def inner(self, W):
        """``<W, K_t>_F`` for every kernel, ``W`` symmetric ``n x n`` (float64 result)."""
        v = np.asarray(W, dtype=np.float64)[self.rows, self.cols] * self._double
        return (self.P @ v.astype(self.P.dtype, copy=False)).astype(np.float64, copy=False)


#: Largest packed copy (bytes) the MKL solvers make of a dense training stack (half
#: the stack's entries, at the pack's precision): beyond it they read the full stack
#: as given.
PACK_MAX_BYTES = 2**30
#: Passes over the full stack before :class:`StackPasses` packs it. The copy costs
#: about three passes (it reads the upper halves and writes half a stack), so a fit
#: that ends soon after would lose: at 20, at most about 15% on a fit of 21 passes,
#: and a 100-iteration fit (about 220 passes) gains nearly the whole halving.
PACK_AFTER = 20


class StackPasses:
    """The per-iteration passes of an MKL solver over a stack (dense or lazy):
    ``combine(w)``, ``inner(W, idx)`` and ``quad(u)``, as :func:`stack_combine`,
    :func:`stack_inner` and :func:`stack_quad`. A dense square stack of at least two
    kernels is read through a :class:`PackedSymmetricStack` of ``dtype`` from the
    :data:`PACK_AFTER`-th pass on, when the pack fits in :data:`PACK_MAX_BYTES`
    (``dtype=np.float32``: the passes from then on carry float32 errors, see
    :class:`PackedSymmetricStack`; the caller decides whether its answer may)."""

    def __init__(self, Ks, dtype=np.float64):
        self.Ks = Ks
        self.packed = None
        self.dtype = np.dtype(dtype)
        self._calls = 0
        # the pack holds half the entries at dtype's size
        pack_bytes = Ks.nbytes / 2 * self.dtype.itemsize / 8 if isinstance(Ks, np.ndarray) else 0
        self._eligible = (isinstance(Ks, np.ndarray) and Ks.ndim == 3
                          and Ks.shape[0] == Ks.shape[1] and Ks.shape[2] > 1
                          and pack_bytes <= PACK_MAX_BYTES)

    def _tick(self):
        self._calls += 1
        if self._eligible and self.packed is None and self._calls >= PACK_AFTER:
            self.packed = PackedSymmetricStack(self.Ks, self.dtype)

    def combine(self, w):
        self._tick()
        return stack_combine(self.Ks, w) if self.packed is None else self.packed.combine(w)

    def inner(self, W, idx=None):
        self._tick()
        if self.packed is None:
            return stack_inner(self.Ks, W, idx)
        if idx is not None:
            full = np.zeros((self.packed.n, self.packed.n))
            full[np.ix_(idx, idx)] = W
            W = full
        return self.packed.inner(W)

    def quad(self, u):
        self._tick()
        if self.packed is None:
            return stack_quad(self.Ks, u)
        u = np.asarray(u, dtype=np.float64)
        return self.packed.inner(np.outer(u, u))


def stack_take(Ks, rows, cols):
    """The sub-stack ``Ks[rows][:, cols]`` (the stack itself, not a copy, when
    ``rows`` and ``cols`` are all samples in order: a binary problem)."""
    if isinstance(Ks, np.ndarray):
        if _is_all(rows, Ks.shape[0]) and _is_all(cols, Ks.shape[1]):
            return Ks
        return Ks[np.ix_(rows, cols)]
    return Ks.take(rows, cols)


def stack_entries(Ks, rows, cols):
    """``(len(rows), m)``: every kernel at the entries ``(rows[k], cols[k])``."""
    if isinstance(Ks, np.ndarray):
        return Ks[np.asarray(rows), np.asarray(cols), :]
    return Ks.entries(rows, cols)


def _is_all(idx, n):
    idx = np.asarray(idx)
    return idx.shape == (n,) and np.array_equal(idx, np.arange(n))
