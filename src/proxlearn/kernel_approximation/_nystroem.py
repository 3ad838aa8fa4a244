"""Spectrum correction of indefinite proximities at linear cost (Nystroem approximation).

Only the ``n x m`` block ``C = S[:, L]`` of similarities to ``m`` landmark objects
``L`` is read (or computed). With ``W = S[L, L]`` the Nystroem approximation
``S~ = C W^+ C^T`` is eigendecomposed through ``m x m`` problems only,
``S~ = V diag(mu) V^T`` (``V`` is ``n x k`` orthonormal, ``k <= m``), the
eigenvalues ``mu`` are corrected exactly as :func:`proxlearn.transforms.modify_spectrum`
does, and the result is returned as an explicit feature map ``Phi`` (``n x r``,
``r <= k``) with ``Phi Phi^T`` the corrected approximate kernel, so that a linear
model (``LinearSVC``) trains on it:

========  ===============  ====================================  =========================
method    new eigenvalue   training kernel ``Phi Phi^T``         equals SpectrumTransformer
========  ===============  ====================================  =========================
clip      ``max(mu, 0)``   ``V diag(max(mu, 0)) V^T``            when ``m = n``
flip      ``|mu|``         ``V diag(|mu|) V^T``                  when ``m = n``
shift     ``mu + delta``   ``S~ + delta Pi`` (``Pi`` projects    when ``m = n`` and ``S``
                           onto the range of ``S~``), **not**    is non-singular
                           ``S~ + delta I``
square    ``mu ** 2``      ``S~ S~``                             when ``m = n`` and ``S``
                                                                 is symmetric
========  ===============  ====================================  =========================

``delta = max(0, -min mu)``. The approximation is exact, ``S~ = S``, whenever the
landmark block has the rank of ``S`` (``rank(W) = rank(S)``, so ``rank(S) <= m``):
then every row of the table holds with ``S`` itself, for any ``m``.
Every column of ``Phi`` has ``nu > 0`` and ``|mu| > tol_``; the feature of a new
object is computed from its similarities to the landmarks only (the Nystroem
extension), and the map reproduces the training features on training rows.

The derivation (the five steps of :meth:`NystroemSpectrum.fit`, the thin-QR
route to the small eigenproblem, the test map ``components_`` and the double
centering of the approximation for dissimilarities) is in docs/methods.md,
section "Linear-cost spectrum correction", subsection "The derivation of
NystroemSpectrum.fit".

References
----------
Gisbrecht and Schleif (2015), "Metric and non-metric proximity transformations at
linear costs", Neurocomputing 167: the Nystroem approximation of (indefinite)
similarities and of dissimilarities, double centering of the approximation, and
eigenvalue corrections of the approximation computed through small ``m x m``
problems. Schleif and Tino (2015), "Indefinite proximity learning: a
review", Neural Computation 27(10), the section on large-scale proximity learning
(Nystroem). (Section and equation numbers of both are not given here: no
readable copy was at hand to check them.) Williams and Seeger (2001), "Using the
Nystroem method to speed up kernel machines", NIPS (the approximation and its
out-of-sample extension). Chen, Garcia, Gupta, Rahimi, Cazzanti (2009), JMLR 10,
sections 2.1-2.2 and Gu and Guo (2012), AAAI, eq. 15 (the spectral test maps, as
in :mod:`proxlearn.transforms._spectrum`). Arthur and Vassilvitskii (2007),
"k-means++: the advantages of careful seeding", SODA (``D^2`` sampling).

Deviations (ours, and why)
--------------------------
* **shift**: ``S~ + delta I`` adds ``delta`` on the ``n - k`` directions
  orthogonal to the range of ``S~``, which has no finite-rank feature map and no
  out-of-sample extension (a new object has no component there). We shift inside
  the range only: ``K = S~ + delta Pi``; the most negative direction gets
  ``nu = 0`` and is dropped. When ``m = n`` and ``S`` is non-singular,
  ``Pi = I`` and the two agree. The test map is Gu & Guo's linear map (what
  ``SpectrumTransformer(test_transform="linear")`` uses), restricted to the range.
* **square** squares the eigenvalues of the symmetrised approximation
  (``S~ S~``); ``SpectrumTransformer("square")`` returns ``S S^T`` for ``S`` as
  given, which differs for asymmetric ``S``.
* The small eigenproblem is reached by a thin QR of ``Q`` (step 3) rather than by
  an eigendecomposition of ``Q^T Q`` (the usual route of the PSD Nystroem
  eigendecomposition): the QR route needs no ``(Q^T Q)^(-1/2)``, does not square
  the condition number of ``Q``, and stays orthonormal when ``Q`` is rank
  deficient (double centering can remove a direction; with ``m = n`` it always
  removes the constant one).
* ``"kmeans++"`` is plain ``D^2`` sampling (without scikit-learn's greedy local
  trials) with ``d(i, j)^2 = s_ii + s_jj - 2 s_ij`` clipped at 0 (indefinite
  similarities can make it negative), or ``d_ij^2`` for dissimilarities.
"""

from __future__ import annotations

import numbers
import warnings

import numpy as np
import scipy.linalg
from sklearn.base import BaseEstimator, ClassNamePrefixFeaturesOutMixin, TransformerMixin
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted

from .._scale import similarity_scale
from .._validation import (
    ASYMMETRY_TOL,
    AsymmetricSimilarityWarning,
    DissimilarityWarning,
    InvalidParameterError,
    SimilarityMatrixError,
    TestMatrixError,
    _as_float_matrix,
    boolean,
    integer,
    looks_like_dissimilarity,
    options,
    satisfies,
    unchecked,
    validate_params,
)
from ..base import PairwiseMixin, row_chunks
from ..transforms import modify_spectrum

__all__ = ["KINDS", "LANDMARK_RULES", "NYSTROEM_METHODS", "LazySimilarity", "NystroemSpectrum"]

#: Spectrum corrections with a real feature map (``"none"`` keeps negative eigenvalues).
NYSTROEM_METHODS = ("clip", "flip", "shift", "square")
#: What the input holds.
KINDS = ("similarity", "dissimilarity")
#: Landmark selection rules (an explicit index array is the third option).
LANDMARK_RULES = ("random", "kmeans++")

_EPS = np.finfo(np.float64).eps
# divide and conquer, as SpectrumTransformer (the fastest accurate driver there)
_EIGH_DRIVER = "evd"


# ----------------------------------------------------------------------- inputs
class LazySimilarity:
    """A training similarity (or dissimilarity) matrix computed on demand, by blocks.

    :class:`NystroemSpectrum` asks it only for the columns of the landmarks
    (``func(all rows, landmark columns)``), so the ``n x n`` matrix is never
    formed.

    Parameters
    ----------
    func : callable
        ``func(rows, cols) -> block`` with ``rows`` and ``cols`` 1-D integer arrays
        of training indices; returns the ``(len(rows), len(cols))`` array of
        (dis)similarities ``s(x_rows[a], x_cols[b])``.
    n_samples : int
        Number of training objects ``n``.
    symmetric : bool, default=True
        Whether ``func`` is symmetric. ``True``: only ``func(all, L)`` is called.
        ``False``: ``func(L, all)`` is called as well and the two are averaged
        (the symmetric part, as :func:`proxlearn._validation.symmetrize`), which
        doubles the number of evaluations.
    diagonal : array-like of shape (n_samples,) or None, default=None
        Self-similarities ``s(x_i, x_i)``, needed only by ``landmarks="kmeans++"``
        on similarities. ``None``: computed when needed by ``n_samples`` calls
        ``func([i], [i])``.

    Examples
    --------
    >>> import numpy as np
    >>> from proxlearn.kernel_approximation import LazySimilarity, NystroemSpectrum
    >>> X = np.random.default_rng(0).normal(size=(50, 2))
    >>> lazy = LazySimilarity(lambda r, c: X[r] @ X[c].T, 50)
    >>> lazy.shape, lazy.block([0, 1], [2]).shape
    ((50, 50), (2, 1))
    >>> NystroemSpectrum(n_components=5, random_state=0).fit_transform(lazy).shape
    (50, 2)

    See Also
    --------
    NystroemSpectrum : reads only the landmark columns of it.
    """

    def __init__(self, func, n_samples, *, symmetric=True, diagonal=None):
        if not callable(func):
            raise InvalidParameterError(
                "func must be callable as func(rows, cols) -> block, got "
                f"{type(func).__name__}."
            )
        if (isinstance(n_samples, bool) or not isinstance(n_samples, numbers.Integral)
                or n_samples < 1):
            raise InvalidParameterError(
                f"n_samples must be a positive integer, got {n_samples!r}.")
        self.func = func
        self.n_samples = int(n_samples)
        self.symmetric = bool(symmetric)
        if diagonal is not None:
            d = np.asarray(diagonal, dtype=np.float64)
            if d.shape != (self.n_samples,) or not np.all(np.isfinite(d)):
                raise InvalidParameterError(
                    f"diagonal must be a finite vector of {self.n_samples} self-similarities, "
                    f"got shape {d.shape}."
                )
            diagonal = d
        self.diagonal = diagonal

    @property
    def shape(self):
        return (self.n_samples, self.n_samples)

    def block(self, rows, cols) -> np.ndarray:
        """``func(rows, cols)`` as a validated float64 array."""
        rows = np.asarray(rows, dtype=np.intp)
        cols = np.asarray(cols, dtype=np.intp)
        out = self.func(rows, cols)
        name = f"func(rows, cols) for a ({rows.size}, {cols.size}) block"
        arr = _as_float_matrix(out, name)
        if isinstance(out, np.ndarray) and np.may_share_memory(arr, out):
            arr = arr.copy()  # fit edits the block in place; never the caller's array
        if arr.shape != (rows.size, cols.size):
            raise SimilarityMatrixError(
                f"{name} returned shape {arr.shape}; it must return one row per index "
                "in rows and one column per index in cols."
            )
        return arr

    def __repr__(self):
        return (f"LazySimilarity({getattr(self.func, '__name__', 'func')}, n_samples="
                f"{self.n_samples}, symmetric={self.symmetric})")


class _DenseSource:
    """The full ``n x n`` matrix: checked for NaN/inf in one chunked pass; only the
    landmark rows and columns are read further."""

    def __init__(self, arr, name):
        self.arr, self.name, self.n = arr, name, arr.shape[0]
        for sl in row_chunks(self.n, 8 * self.n):
            bad = ~np.isfinite(np.asarray(arr[sl], dtype=np.float64))
            if bad.any():
                i, j = np.argwhere(bad)[0]
                raise SimilarityMatrixError(
                    f"{name} contains NaN or inf (first at [{sl.start + i}, {j}]). Replace "
                    "missing similarities (for example with the row mean) or drop those "
                    "samples before fitting."
                )

    def pair(self, idx):
        A = _as_float_matrix(self.arr[:, idx], self.name)
        B = _as_float_matrix(self.arr[idx, :], self.name).T
        return A, B

    def diagonal(self):
        return _as_float_matrix(np.diagonal(self.arr).reshape(1, -1), self.name).ravel()


class _LazySource:
    def __init__(self, lazy):
        self.lazy, self.n = lazy, lazy.n_samples

    def pair(self, idx):
        rows = np.arange(self.n)
        A = self.lazy.block(rows, idx)
        B = None if self.lazy.symmetric else self.lazy.block(idx, rows).T
        return A, B

    def diagonal(self):
        if self.lazy.diagonal is not None:
            return self.lazy.diagonal
        return np.array([self.lazy.block([i], [i])[0, 0] for i in range(self.n)])


def _as_array(X, name):
    """``X`` as an ndarray without copying large float inputs (memmaps stay memmaps);
    anything unusual goes through the full check, which raises its clear error."""
    if isinstance(X, np.ndarray) and not isinstance(X, np.ma.MaskedArray):
        arr = X
    elif (hasattr(X, "toarray") and hasattr(X, "nnz")) or isinstance(
            X, np.ma.MaskedArray | list | tuple):
        return _as_float_matrix(X, name)
    else:
        try:
            arr = np.asarray(X)
        except ValueError:
            return _as_float_matrix(X, name)
    if (arr.dtype == object or not (np.issubdtype(arr.dtype, np.number) or arr.dtype == np.bool_)
            or np.iscomplexobj(arr) or arr.ndim != 2 or arr.size == 0):
        return _as_float_matrix(arr, name)  # raises
    return arr


def _check_landmark_indices(landmarks, n):
    arr = np.asarray(landmarks)
    if arr.ndim != 1 or arr.size == 0 or arr.dtype.kind not in "iu":
        raise InvalidParameterError(
            "landmarks must be 'random', 'kmeans++' or a non-empty 1-D array of integer "
            f"training indices, got {landmarks!r}."
        )
    if arr.min() < 0 or arr.max() >= n:
        raise InvalidParameterError(
            f"landmarks must be training indices in [0, {n - 1}], got values from "
            f"{int(arr.min())} to {int(arr.max())}."
        )
    if np.unique(arr).size != arr.size:
        raise InvalidParameterError(
            "landmarks contains repeated indices; a landmark listed twice makes W "
            "singular and adds nothing. Pass each landmark once."
        )
    return arr.astype(np.intp)


def _kmeanspp(source, n, m, kind, rng):
    """``D^2`` sampling of ``m`` distinct landmarks; returns them with their column pairs."""
    diag = source.diagonal() if kind == "similarity" else None
    chosen, cols_a, cols_b = [], [], []
    mind = np.full(n, np.inf)
    idx = int(rng.randint(n))
    for t in range(m):
        chosen.append(idx)
        A, B = source.pair(np.array([idx]))
        cols_a.append(A[:, 0])
        cols_b.append(None if B is None else B[:, 0])
        if t == m - 1:
            break
        if kind == "similarity":
            s = A[:, 0] if B is None else 0.5 * (A[:, 0] + B[:, 0])
            d2 = diag + diag[idx] - 2.0 * s
        else:
            d2 = A[:, 0] ** 2 if B is None else 0.5 * (A[:, 0] ** 2 + B[:, 0] ** 2)
        np.minimum(mind, np.maximum(d2, 0.0), out=mind)
        p = mind.copy()
        p[chosen] = 0.0
        p[~np.isfinite(p)] = 0.0
        total = float(p.sum())
        if total > 0.0 and np.isfinite(total):
            cum = np.cumsum(p)
            idx = int(np.searchsorted(cum, rng.random_sample() * cum[-1], side="right"))
            idx = min(idx, n - 1)
            if p[idx] == 0.0:  # rounding at the end of the cumulative sum
                idx = int(np.flatnonzero(p)[-1])
        else:  # every remaining object coincides with a landmark: uniform among them
            free = np.setdiff1d(np.arange(n), chosen)
            idx = int(free[rng.randint(free.size)])
    L = np.asarray(chosen, dtype=np.intp)
    A = np.column_stack(cols_a)
    B = None if cols_b[0] is None else np.column_stack(cols_b)
    return L, A, B


# -------------------------------------------------------------------- estimator
#: Landmarks drawn when ``n_components=None`` (at most; every object when n is smaller).
DEFAULT_N_COMPONENTS = 500


class NystroemSpectrum(PairwiseMixin, ClassNamePrefixFeaturesOutMixin, TransformerMixin, BaseEstimator):
    """Clip, flip, shift or square the spectrum of a Nystroem approximation at linear cost.

    ``fit`` reads only the similarities of all ``n`` training objects to ``m``
    landmarks, corrects the spectrum of the approximation ``S~ = C W^+ C^T`` in
    ``m x m`` problems (Gisbrecht & Schleif 2015; the derivation is in
    docs/methods.md, section "Linear-cost spectrum correction") and ``fit_transform`` returns the ``n x r`` feature map ``Phi``
    with ``Phi Phi^T`` the corrected kernel. ``transform`` maps new objects from
    their similarities to the landmarks. Time ``O(n m^2 + m^3)``, memory a few
    ``n x m`` arrays.

    Parameters
    ----------
    method : {"clip", "flip", "shift", "square"}, default="clip"
        The correction of the eigenvalues ``mu`` of ``S~``, as
        :func:`proxlearn.transforms.modify_spectrum`. ``"shift"`` shifts within
        the range of ``S~`` only (see Notes).
    n_components : int or None, default=None
        Number of landmarks ``m`` drawn by ``landmarks="random"`` or
        ``"kmeans++"``; ``1 <= n_components <= n``. ``None`` uses
        ``min(500, n)``: on a training set of at most 500 objects every object is
        a landmark and the correction is exact. Ignored when ``landmarks`` is an
        index array. (As scikit-learn's ``Nystroem``; the 500 is ours, the papers
        give none. The output has ``r <= m`` columns, ``n_output_features_``.)
    landmarks : {"random", "kmeans++"} or array-like of int, default="random"
        ``"random"``: ``m`` distinct training objects uniformly at random.
        ``"kmeans++"``: ``D^2`` sampling (Arthur & Vassilvitskii 2007) with
        ``d(i, j)^2 = s_ii + s_jj - 2 s_ij`` (clipped at 0), or the squared
        dissimilarity. Drawn landmarks are stored in ascending order. An array:
        these training indices, in this order (distinct).
    random_state : int, RandomState instance or None, default=None
        Seeds the landmark draw (the only randomness).
    kind : {"similarity", "dissimilarity"}, default="similarity"
        ``"dissimilarity"``: the input holds dissimilarities ``d`` (not squared),
        turned into similarities by the double centering of the Nystroem
        approximation of ``d^2`` (docs/methods.md), as
        ``DissimilarityToSimilarity(method="double-centering")`` does exactly.
    normalize : bool, default=True
        Divide the matrix (training columns and test rows) by ``scale_``, the
        mean self-similarity of the landmarks (``tr W / m``, the landmark block's
        trace; for dissimilarities the trace of the double-centred landmark block
        over ``m``, ``mean(d^2) / 2``). With every object a landmark it is
        ``tr S / n``, the units :class:`~proxlearn.svm.SimilaritySVC` removes, so
        that a linear SVM at a given ``C`` on the features is the clip SVM at that
        ``C``, whatever the units of ``S`` (a landmark block with no positive
        eigenvalue is divided by its largest ``|w_ij|``). ``False`` keeps the
        units of the input.

    Attributes
    ----------
    landmarks_ : ndarray of shape (m,)
        Training indices of the landmarks; test columns are read in this order.
    eigenvalues_ : ndarray of shape (k,)
        Ascending non-zero eigenvalues ``mu`` of the approximation ``S~`` (its
        other ``n - k`` eigenvalues are 0).
    modified_eigenvalues_ : ndarray of shape (k,)
        The corrected eigenvalues ``nu`` (:func:`modify_spectrum`).
    components_ : ndarray of shape (m, r)
        The test map ``T``: features are ``C_test @ components_`` (after squaring
        and centring for dissimilarities). Columns ordered by decreasing ``nu``.
    n_output_features_ : int
        ``r``, the number of output features (1 all-zero column when nothing is
        kept, so downstream estimators receive a non-empty matrix).
    landmark_mean_sq_ : ndarray of shape (m,) or None
        Column means of the squared training dissimilarities to the landmarks
        (``kind="dissimilarity"``), subtracted from test rows.
    n_negative_ : int
        Number of ``mu < -tol_``.
    shift_ : float
        ``delta = max(0, -min mu)`` for shift, 0.0 otherwise.
    tol_ : float
        ``n * eps * max|mu|``: eigenvalues of ``S~`` with ``|mu| <= tol_`` count as 0.
    pinv_tol_ : float
        ``m * eps * max|lambda|``: eigenvalues of ``W`` cut off by the pseudo-inverse.
    n_features_in_ : int
        Number of training objects ``n``.
    scale_ : float
        The factor the input was divided by (1.0 with ``normalize=False``).

    Notes
    -----
    **Inputs of fit.** ``X`` is one of

    * the square ``n x n`` training matrix: checked for NaN/inf in one chunked
      pass; only its landmark columns and rows are read further, and symmetrised,
      ``C = (S[:, L] + S[L, :]^T) / 2``, with an
      :class:`AsymmetricSimilarityWarning` when they differ. This is the route for
      ``Pipeline`` and ``cross_val_score`` (the pairwise tag slices rows and
      columns);
    * an ``n x m`` array ``C = S[:, L]`` of precomputed landmark columns, with
      ``landmarks`` the index array ``L`` (``m < n``; only ``W = C[L]`` is
      symmetrised). A square input is always read as the full matrix;
    * a :class:`LazySimilarity`: only ``func(all rows, landmark columns)`` is
      called (plus ``func(landmarks, all)`` when ``symmetric=False``, and the
      diagonal for ``"kmeans++"`` on similarities).

    **Inputs of transform.** The ``(n_test, m)`` similarities of the test objects
    to the landmarks in ``landmarks_`` order, or the ``(n_test, n)``
    test-to-train matrix, of which only the landmark columns are read. When
    ``m = n`` both have ``n`` columns and are read as landmark columns; they
    coincide for drawn landmarks (ascending, so ``landmarks_ = arange(n)``).

    **shift.** ``K = S~ + delta Pi`` with ``Pi`` the projector onto the range of
    ``S~``, not ``S~ + delta I``: the shift of the ``n - k`` directions outside
    the range has no finite feature map and no out-of-sample extension. Both
    agree when ``m = n`` and ``S`` is non-singular.

    **Accuracy.** The features of directions with small ``|mu|`` (near ``tol_``)
    are computed from test rows with a relative error of order
    ``eps * max|mu| / |mu|``; their contribution to kernel values stays at
    rounding level. An ill-conditioned landmark block ``W`` (an indefinite
    ``S`` has principal submatrices with eigenvalues near 0 more often than a
    PSD one) makes ``S~`` itself a poor approximation; try other landmarks or
    more of them.

    **Which linear SVM.** The classifier on the features matters as much as the
    approximation (one-vs-one hinge ``LinearSVC`` or the defaults): choose it
    by cross-validation. Measurements: docs/benchmarks.md, section
    "Measurements moved out of docstrings", subsection
    "kernel_approximation.NystroemSpectrum".

    Examples
    --------
    >>> import numpy as np
    >>> from proxlearn.kernel_approximation import NystroemSpectrum
    >>> X = np.random.default_rng(0).normal(size=(40, 3))
    >>> S = X @ X.T - 0.5
    >>> ns = NystroemSpectrum("clip", n_components=10, random_state=0)
    >>> ns.fit_transform(S).shape, ns.landmarks_.shape, ns.transform(S[:2]).shape
    ((40, 3), (10,), (2, 3))

    See Also
    --------
    LazySimilarity : the training similarities computed by landmark columns only.
    proxlearn.transforms.SpectrumTransformer : the exact correction (``m = n``).
    sklearn.kernel_approximation.Nystroem : the PSD version of the approximation.
    """

    @property
    def _n_features_out(self):  # names nystroemspectrum0, ... (get_feature_names_out)
        return self.n_output_features_

    _parameter_constraints = {
        "method": options(*NYSTROEM_METHODS),
        "kind": options(*KINDS),
        "landmarks": options(*LANDMARK_RULES) | satisfies(
            lambda v: not isinstance(v, str),
            "a non-empty 1-D array of integer training indices (checked in fit)"),
        "normalize": boolean(
            "True (the default) divides S by the landmarks' mean self-similarity, so "
            "that a positive factor on S does not change the features' units; False "
            "uses S as given."),
        "n_components": integer(1, what="a positive integer (the number of landmarks)")
        | options(None),
        "random_state": unchecked("sklearn.utils.check_random_state"),
    }

    def __init__(self, method="clip", n_components=None, landmarks="random",
                 random_state=None, kind="similarity", normalize=True):
        self.method = method
        self.n_components = n_components
        self.landmarks = landmarks
        self.random_state = random_state
        self.kind = kind
        self.normalize = normalize

    # ------------------------------------------------------------- fitting
    def fit(self, X, y=None):
        """Select landmarks, read their columns and correct the approximation's spectrum.

        Parameters
        ----------
        X : array-like of shape (n, n) or (n, m), or LazySimilarity
            See Notes.
        y : ignored

        Returns
        -------
        self
        """
        self._fit(X)
        return self

    def fit_transform(self, X, y=None):
        """Fit and return the ``n x r`` training features ``Phi``."""
        return self._fit(X)

    def _fit(self, X):
        params = validate_params(self)
        method, kind, m_req = params["method"], params["kind"], params["n_components"]
        name = "S" if kind == "similarity" else "D"
        explicit = not isinstance(self.landmarks, str)

        # --- the source of landmark columns
        if isinstance(X, LazySimilarity):
            source, columns = _LazySource(X), None
        elif callable(X) and not hasattr(X, "__array__"):
            raise InvalidParameterError(
                "A similarity function needs the number of objects: pass "
                "LazySimilarity(func, n_samples) instead of the bare function."
            )
        else:
            arr = _as_array(X, name)
            if arr.shape[0] == arr.shape[1]:
                source, columns = _DenseSource(arr, name), None
            elif explicit and arr.shape[0] > arr.shape[1] == np.asarray(self.landmarks).size:
                columns = _as_float_matrix(arr, "C")
                if np.may_share_memory(columns, arr):
                    columns = columns.copy()  # fit edits it in place
                source = None
            else:
                raise SimilarityMatrixError(
                    f"{name} has shape {arr.shape}: pass the square n x n training matrix, "
                    "or the (n, m) columns of the m landmarks together with "
                    "landmarks=<their m training indices>, or a LazySimilarity."
                )
        n = source.n if columns is None else columns.shape[0]

        # --- landmarks and their columns A = X[:, L] (B = X[L, :]^T when read)
        if explicit:
            L = _check_landmark_indices(self.landmarks, n)
            if columns is not None:
                A, B = columns, None
            else:
                A, B = source.pair(L)
        else:
            if m_req is None:
                m_req = min(DEFAULT_N_COMPONENTS, n)
            if m_req > n:
                raise InvalidParameterError(
                    f"n_components={m_req} is larger than the training set ({n} objects); "
                    f"choose n_components <= {n} (n_components = {n} makes every object "
                    "a landmark, the exact spectrum correction)."
                )
            rng = check_random_state(self.random_state)
            if self.landmarks == "random":
                L = np.sort(rng.choice(n, size=m_req, replace=False)).astype(np.intp)
                A, B = source.pair(L)
            else:
                L, A, B = _kmeanspp(source, n, m_req, kind, rng)
                order = np.argsort(L)
                L, A = L[order], A[:, order]
                B = None if B is None else B[:, order]
        m = L.size

        # --- symmetrise (squares first for dissimilarities, as D^(2) is what is centred)
        if kind == "dissimilarity":
            neg = A.min() < 0 or (B is not None and B.min() < 0)
            if neg:
                raise SimilarityMatrixError(
                    f"{name} has negative dissimilarities; double centering squares them, "
                    "so their sign would be lost. Use kind='similarity' with -D, or fix the input."
                )
            A = A * A
            B = None if B is None else B * B
        if B is not None:
            self._warn_asymmetric(A, B, name)
            A += B
            A *= 0.5
            del B
            Wraw = A[L]
        else:  # only the landmark block can be checked and symmetrised
            Wraw = A[L]
            self._warn_asymmetric(Wraw, Wraw.T, name)
            Wraw = 0.5 * (Wraw + Wraw.T)
            A[L] = Wraw
        if kind == "similarity":
            flag, reason = looks_like_dissimilarity(Wraw)
            if flag:
                warnings.warn(
                    f"The landmark block of {name} looks like a dissimilarity matrix "
                    f"({reason}). Pass kind='dissimilarity' if it is one.",
                    DissimilarityWarning, stacklevel=3,
                )
            self.landmark_mean_sq_ = None
            C, W = A, Wraw
        else:
            self.landmark_mean_sq_ = A.mean(axis=0)
            C = A - self.landmark_mean_sq_
            W = -2.0 * Wraw
        del A
        self.scale_ = self._landmark_scale(Wraw, kind) if self.normalize else 1.0
        if self.scale_ != 1.0:
            C = C / self.scale_
            W = W / self.scale_
        self.landmarks_ = L
        self.n_features_in_ = n
        self._kind = kind  # the kind this fit used (set_params without refit cannot desync)
        return self._spectral_fit(C, W, method, n, m)

    @staticmethod
    def _landmark_scale(Wraw, kind):
        """``tr W / m`` of the landmark block (of its double centring for squared
        dissimilarities: ``mean(d^2) / 2``); 1 for an all-zero block."""
        if not Wraw.any():
            return 1.0
        if kind == "dissimilarity":
            return float(Wraw.mean()) / 2.0
        try:
            return similarity_scale(Wraw, name="the landmark block of S")
        except SimilarityMatrixError:  # no positive eigenvalue: no trace to use
            return float(np.abs(Wraw).max())

    @staticmethod
    def _warn_asymmetric(A, B, name):
        a = _rel_asym(A, B)
        if a > ASYMMETRY_TOL:
            warnings.warn(
                f"{name} is asymmetric on the landmark rows and columns (relative asymmetry "
                f"{a:.3g}); using the symmetric part (S + S^T) / 2 there as documented.",
                AsymmetricSimilarityWarning, stacklevel=4,
            )

    def _spectral_fit(self, C, W, method, n, m):
        lam, U = scipy.linalg.eigh(W, check_finite=False, driver=_EIGH_DRIVER)
        self.pinv_tol_ = float(m * _EPS * np.max(np.abs(lam))) if lam.size else 0.0
        keep_w = np.abs(lam) > self.pinv_tol_
        Uk, lk = U[:, keep_w], lam[keep_w]
        k = lk.size
        self.shift_, self.n_negative_ = 0.0, 0
        if k == 0:
            return self._empty(n, m, method)
        inv_sqrt = 1.0 / np.sqrt(np.abs(lk))
        sgn = np.sign(lk)
        Q = C @ (Uk * inv_sqrt)
        # Only R is formed (LAPACK geqrf without orgqr: half the flops of the thin
        # QR): the training features Z Y sqrt(nu) equal C @ components_, because
        # Q = Z R and R sgn R^T Y = Y mu for the kept eigenpairs.
        (R,) = scipy.linalg.qr(Q, mode="r", overwrite_a=True, check_finite=False)
        del Q
        R = R[:k]
        Bk = (R * sgn) @ R.T
        Bk = 0.5 * (Bk + Bk.T)
        mu, Y = scipy.linalg.eigh(Bk, overwrite_a=True, check_finite=False, driver=_EIGH_DRIVER)
        self.tol_ = float(n * _EPS * np.max(np.abs(mu)))
        nu, _ = modify_spectrum(mu, method, self.tol_)
        self.eigenvalues_, self.modified_eigenvalues_ = mu, nu
        self.n_negative_ = int(np.count_nonzero(mu < -self.tol_))
        if method == "shift":
            self.shift_ = max(0.0, -float(mu[0]))
        keep = np.flatnonzero((np.abs(mu) > self.tol_) & (nu > 0.0))
        keep = keep[np.argsort(-nu[keep], kind="stable")]
        if keep.size == 0:
            return self._empty(n, m, method, fitted_spectrum=True)
        Yr, mur, nur = Y[:, keep], mu[keep], nu[keep]
        root = np.sqrt(nur)
        self.components_ = (Uk * (sgn * inv_sqrt)) @ (R.T @ Yr) * (root / mur)
        self.n_output_features_ = keep.size
        return C @ self.components_

    def _empty(self, n, m, method, fitted_spectrum=False):
        """All-zero approximation (or nothing kept): one all-zero feature."""
        if not fitted_spectrum:
            self.eigenvalues_ = np.zeros(0)
            self.modified_eigenvalues_ = np.zeros(0)
            self.tol_ = 0.0
        self.components_ = np.zeros((m, 1))
        self.n_output_features_ = 1
        return np.zeros((n, 1))

    # ----------------------------------------------------------- transform
    def transform(self, X):
        """Features of new objects from their (dis)similarities to the landmarks.

        Parameters
        ----------
        X : array-like of shape (n_test, m) or (n_test, n)
            Similarities (dissimilarities for ``kind="dissimilarity"``) of each
            test object to the landmarks, in ``landmarks_`` order, or to every
            training object in training order (only the landmark columns are
            read). A single object may be a 1-D vector.

        Returns
        -------
        Phi_test : ndarray of shape (n_test, r)
        """
        check_is_fitted(self, "components_")
        m, n = self.landmarks_.size, self.n_features_in_
        name = "S_test" if self._kind == "similarity" else "D_test"
        if not isinstance(X, str):
            try:
                a = np.asanyarray(X)
            except ValueError:
                a = None
            if a is not None and a.ndim == 1 and a.dtype != object and a.shape[0] in (m, n):
                X = a.reshape(1, -1)
        arr = _as_float_matrix(X, name)
        if arr.shape[1] == m:
            C = arr
        elif arr.shape[1] == n:
            C = arr[:, self.landmarks_]
        else:
            raise TestMatrixError(
                f"{name} has {arr.shape[1]} columns, but the estimator has {m} landmarks "
                f"and was fitted on {n} objects. Pass the (n_test, {m}) matrix of "
                "similarities of each test object to the landmarks (in the order of "
                f"landmarks_), or the full (n_test, {n}) test-to-train matrix."
            )
        if self._kind == "dissimilarity":
            if C.min() < 0:
                raise SimilarityMatrixError(
                    f"{name} has negative dissimilarities (min {C.min():.3g}); double "
                    "centering squares them, so their sign would be lost."
                )
            C = C * C
            C -= self.landmark_mean_sq_
        scale = getattr(self, "scale_", 1.0)
        return (C if scale == 1.0 else C / scale) @ self.components_


def _rel_asym(A, B) -> float:
    """``||A - B||_F / (||A||_F + ||B||_F)``: :func:`asymmetry` for a pair of blocks."""
    den = float(np.linalg.norm(A) + np.linalg.norm(B))
    return 0.0 if den == 0.0 else float(np.linalg.norm(A - B) / den)
