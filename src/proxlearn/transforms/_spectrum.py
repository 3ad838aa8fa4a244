"""Spectrum modifications of indefinite similarity matrices (clip, flip, shift, square).

A symmetric similarity matrix ``S = U diag(lambda) U^T`` (numpy convention:
eigenvectors are the *columns* of ``U``; Chen et al. (2009) write
``S = U^T Lambda U`` with eigenvectors as rows) is turned into a positive
semidefinite kernel by changing its eigenvalues:

========  ==============================  ===================================
method    new eigenvalue                  consistent test map ``P = U diag(m) U^T``
========  ==============================  ===================================
clip      ``max(lambda, 0)``              ``m = I{lambda > tol}``
flip      ``|lambda|``                    ``m = sign(lambda)``, 0 if ``|lambda| <= tol``
shift     ``lambda + delta``              ``s~ = s`` ("consistent") or
                                          ``m = (lambda + delta) / lambda`` ("linear")
square    ``lambda ** 2`` (``K = S S^T``) ``s~ = S s`` (``K_test = S_test S^T``)
none      ``lambda``                      identity
========  ==============================  ===================================

References
----------
Chen, Garcia, Gupta, Rahimi, Cazzanti (2009), "Similarity-based classification:
concepts and algorithms", JMLR 10: section 2.1.2 (clip), 2.1.3 (flip), 2.1.4
(shift), 2.1.5 (square) and section 2.2 (consistent test transformation
``P_clip``, ``P_flip``; ``s~ = s`` for shift, following Wu et al. 2005).
Gu and Guo (2012), "Learning SVM classifiers with indefinite kernels", AAAI,
eqs. 10-15: the exact linear map for shift ``U diag((lambda + eta) / lambda) U^T``.

Partial spectra (``n_components=k``: the ``k`` leading eigenpairs, the best
rank-``k`` approximation of the modified kernel) and the exact path that
computes only the eigenpairs with ``lambda <= tol``: derivation in
docs/methods.md, section "Transforms (`proxlearn.transforms`)", subsection
"Spectrum modification: partial spectra and the negative part"; the measured
rules of ``eigen_solver="auto"`` in docs/benchmarks.md, section
"`benchmarks/bench_spectrum.py`".

Erratum followed: Chen et al. define ``M_clip`` with ``I{lambda >= 0}`` but the
proof of their Proposition 1 drops zero eigenvalues (``I{lambda > 0}``). Both give
the same training rows; for test rows they differ. We follow Proposition 1 with a
numerical tolerance: eigenvalues with ``|lambda| <= tol`` count as zero and are
dropped by clip and flip.
"""

from __future__ import annotations

import numbers
import warnings

import numpy as np
import scipy.linalg
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.utils.validation import check_is_fitted

from .._validation import (
    InvalidParameterError,
    check_option,
    check_similarity,
    check_test_similarity,
    options,
    positive,
    unchecked,
    validate_params,
)
from .._linalg import eigh_below, leading_eigh, lowest_eigenvalue
from ..base import PairwiseMixin, SampleColumnsMixin

__all__ = [
    "SPECTRUM_METHODS",
    "SpectrumTransformer",
    "default_tol",
    "modify_spectrum",
    "spectrum_modify",
]

#: Supported spectrum modifications.
SPECTRUM_METHODS = ("clip", "flip", "shift", "square", "none")
#: Supported ways of treating test rows.
TEST_TRANSFORMS = ("consistent", "linear", "raw")
#: Eigensolvers of a partial spectrum (``n_components``).
EIGEN_SOLVERS = ("auto", "dense", "tridiagonal", "arpack", "randomized")
#: ``eigen_solver="auto"`` with ``n_components=k``: when ``n >= AUTO_PARTIAL_MIN_N``
#: and ``k * AUTO_PARTIAL_RATIO <= n``, ARPACK with a budget of
#: ``AUTO_ARPACK_BUDGET * n`` matrix-vector products, then (budget spent: a flat
#: spectrum) the tridiagonal route; else the tridiagonal route when
#: ``n >= AUTO_NEGATIVE_MIN_N`` and ``k <= AUTO_NEGATIVE_FRACTION * n``; else one
#: dense decomposition. Measured with ``benchmarks/bench_spectrum.py --partial``
#: (docs/benchmarks.md, "Measurements moved out of docstrings",
#: "transforms.SpectrumTransformer").
AUTO_PARTIAL_MIN_N = 1000
AUTO_PARTIAL_RATIO = 40
AUTO_ARPACK_BUDGET = 0.1
#: Clip / flip without ``n_components``: ``eigen_solver="auto"`` reduces a
#: matrix of ``n >= AUTO_NEGATIVE_MIN_N`` to tridiagonal form, counts the
#: eigenvalues ``<= tol`` from all eigenvalues (cheap once tridiagonal) and
#: computes only their eigenvectors when there are at most
#: ``AUTO_NEGATIVE_FRACTION * n`` of them, else all (the work of the full
#: decomposition). Measured with ``benchmarks/bench_spectrum.py --negative``.
AUTO_NEGATIVE_MIN_N = 500
AUTO_NEGATIVE_FRACTION = 0.2
#: Shift with a test transform that needs no eigenvectors ("consistent", "raw"),
#: ``eigen_solver != "dense"``: ``lambda_min`` alone, by Lanczos on a budget of
#: ``max(SHIFT_ARPACK_MIN_BUDGET, SHIFT_ARPACK_BUDGET * n)`` products, then (budget
#: spent: a flat bottom of the spectrum) shift-invert Lanczos certified by a Cholesky
#: factorisation, else one LAPACK eigenvalue
#: (:func:`proxlearn._linalg.lowest_eigenvalue`). Measured with
#: ``benchmarks/bench_shift.py`` (docs/benchmarks.md, "Shift from lambda_min only",
#: and "Issue 37 item 6: every wrapper against scikit-learn").
SHIFT_ARPACK_BUDGET = 0.02
SHIFT_ARPACK_MIN_BUDGET = 40

# LAPACK driver for the eigendecomposition. Divide and conquer ("evd") was the
# fastest accurate driver in benchmarks/bench_spectrum.py (docs/benchmarks.md,
# "Measurements moved out of docstrings") with residuals ~1e-14.
_EIGH_DRIVER = "evd"


def default_tol(eigenvalues) -> float:
    """Default zero-eigenvalue tolerance ``n * eps * max|lambda|``.

    This is the usual bound on the rounding error of a symmetric
    eigendecomposition of an ``n x n`` matrix (as in ``numpy.linalg.matrix_rank``).
    Returns 0.0 for an all-zero spectrum.

    Examples
    --------
    >>> from proxlearn.transforms._spectrum import default_tol
    >>> default_tol([2.0, -1.0, 0.5]) == 3 * 2.0 * 2.0 ** -52
    True

    See Also
    --------
    modify_spectrum : uses it when ``tol=None``.
    """
    lam = np.asarray(eigenvalues, dtype=np.float64)
    if lam.size == 0:
        return 0.0
    return float(lam.size * np.finfo(np.float64).eps * np.max(np.abs(lam)))


#: ``tol`` of a spectrum correction: ``None`` (the rounding level) or a number >= 0.
SPECTRUM_TOL = options(None) | positive(allow_zero=True)


def _check_tol(tol):
    return SPECTRUM_TOL.check(tol, "tol")


def modify_spectrum(eigenvalues, method: str, tol=None):
    """Modify a spectrum and return the factor of the consistent linear test map.

    Reusable on small local ``k x k`` matrices (SVM-KNN, KRI/KRR weights).

    Parameters
    ----------
    eigenvalues : array-like of shape (n,)
        Eigenvalues ``lambda`` of a symmetric similarity matrix
        ``S = U diag(lambda) U^T``.
    method : {"clip", "flip", "shift", "square", "none"}
        Chen et al. (2009) sections 2.1.2-2.1.5.
    tol : float or None
        Eigenvalues with ``|lambda| <= tol`` count as zero. ``None`` uses
        :func:`default_tol`, ``n * eps * max|lambda|``.

    Returns
    -------
    new_eigenvalues : ndarray of shape (n,)
        clip: ``lambda * I{lambda > tol}``; flip: ``|lambda| * I{|lambda| > tol}``;
        shift: ``lambda + delta`` with ``delta = max(0, -min(lambda))``;
        square: ``lambda ** 2``; none: ``lambda``.
    factor : ndarray of shape (n,)
        Diagonal ``m`` of the linear test map ``P = U diag(m) U^T``, so that a
        test row transforms as ``s~ = P s``. clip: ``I{lambda > tol}`` (Chen et
        al. 2009, ``M_clip`` with the Proposition 1 convention); flip:
        ``sign(lambda)`` with 0 for ``|lambda| <= tol`` (``M_flip``); shift:
        ``(lambda + delta) / lambda`` (Gu & Guo 2012, eq. 15 rewritten as a test
        map) with the factor set to 1 where ``|lambda| <= tol`` (exact
        consistency then needs a non-singular matrix); square: ``lambda``
        (``P = S``, so ``P s`` is the square-kernel row for symmetric ``S``);
        none: 1. For clip, flip and none ``new_eigenvalues == factor * lambda``
        exactly, which makes the map consistent (``P S`` equals the modified
        matrix).

    Notes
    -----
    An all-zero spectrum gives all-zero factors for clip and flip and all-one
    factors for shift (no NaN).

    Examples
    --------
    >>> import numpy as np
    >>> from proxlearn.transforms import modify_spectrum
    >>> new, factor = modify_spectrum(np.array([-1.0, 0.5, 2.0]), "flip")
    >>> new.tolist(), factor.tolist()
    ([1.0, 0.5, 2.0], [-1.0, 1.0, 1.0])

    See Also
    --------
    SpectrumTransformer : the same modification of a whole matrix, with test rows.
    """
    lam = np.asarray(eigenvalues, dtype=np.float64)
    if lam.ndim != 1:
        raise InvalidParameterError(
            f"eigenvalues must be a 1-D array, got shape {lam.shape}."
        )
    check_option(method, "method", SPECTRUM_METHODS)
    tol = _check_tol(tol)
    if tol is None:
        tol = default_tol(lam)
    nonzero = np.abs(lam) > tol
    if method == "clip":
        factor = (lam > tol).astype(np.float64)
        new = lam * factor
    elif method == "flip":
        factor = np.sign(lam) * nonzero
        new = lam * factor
    elif method == "shift":
        delta = max(0.0, -float(lam.min())) if lam.size else 0.0
        new = lam + delta
        factor = np.ones_like(lam)
        factor[nonzero] = new[nonzero] / lam[nonzero]
    elif method == "square":
        new = lam * lam
        factor = lam.copy()
    else:  # none
        new = lam.copy()
        factor = np.ones_like(lam)
    return new, factor


def spectrum_modify(S, method: str = "clip", tol=None) -> np.ndarray:
    """Deprecated: use ``SpectrumTransformer(method, tol=tol).fit_transform(S)``.

    The spectrum-modified training matrix. Deprecated because its name was easily
    confused with :func:`modify_spectrum`, which modifies eigenvalues; one name per
    concept. It will be removed in a later release.

    See Also
    --------
    SpectrumTransformer : ``SpectrumTransformer(method).fit_transform(S)`` replaces it.
    modify_spectrum : the modification of a vector of eigenvalues.
    """
    warnings.warn(
        "spectrum_modify(S, method) is deprecated and will be removed: use "
        "SpectrumTransformer(method).fit_transform(S) (modify_spectrum works on "
        "eigenvalues).", FutureWarning, stacklevel=2)
    return SpectrumTransformer(method=method, tol=tol).fit_transform(S)


def _own_copy(arr: np.ndarray, original) -> np.ndarray:
    """Return ``arr`` or a copy of it, so that the result never aliases ``original``.

    ``original`` may be any array-like: wrappers whose ``__array__`` returns
    their own buffer (DataFrames, memmaps, custom containers) must not be
    overwritten by LAPACK either.
    """
    try:
        base = np.asarray(original)
    except ValueError:  # ragged input cannot alias anything
        return arr
    if np.may_share_memory(arr, base):
        return arr.copy()
    return arr


#: Fitted attributes that the lambda_min-only shift fit leaves to be computed on access.
_ON_DEMAND = ("eigenvalues_", "modified_eigenvalues_", "n_negative_", "tol_")


class _OnDemandSpectrum:
    """Fitted spectrum attribute computed on first access after a shift fit from
    ``lambda_min`` only (a non-data descriptor: a value stored on the instance, as
    every other fit stores it, takes precedence)."""

    def __set_name__(self, owner, name):
        self.name = name

    def __get__(self, obj, owner=None):
        if obj is None:
            return self
        if not obj.__dict__.get("_spectrum_on_demand", False):
            raise AttributeError(
                f"{type(obj).__name__!r} object has no attribute {self.name!r}")
        obj._complete_spectrum()
        return obj.__dict__[self.name]


class SpectrumTransformer(PairwiseMixin, SampleColumnsMixin, TransformerMixin, BaseEstimator):
    """Make a similarity matrix positive semidefinite by modifying its spectrum.

    ``fit`` takes the ``n x n`` training similarity matrix, symmetrises it
    (Chen et al. 2009, section 2.1; see :mod:`proxlearn._validation`),
    eigendecomposes it once and modifies the eigenvalues. ``transform`` maps an
    ``m x n`` test-to-train matrix consistently; ``fit_transform`` returns the
    modified ``n x n`` training kernel.

    Parameters
    ----------
    method : {"clip", "flip", "shift", "square", "none"}, default="clip"
        * ``"clip"``: negative eigenvalues set to 0, the nearest PSD matrix in
          Frobenius norm (Chen et al. 2009, section 2.1.2; Gu & Guo 2012, eq. 2).
        * ``"flip"``: eigenvalues replaced by their absolute values (section
          2.1.3; Gu & Guo eq. 3).
        * ``"shift"``: ``S + delta I`` with ``delta = max(0, -lambda_min)``
          (section 2.1.4; Gu & Guo eq. 4). Only self-similarities change.
        * ``"square"``: ``K = S S^T`` with ``S`` **as given** (no
          symmetrisation; section 2.1.5). Equals the linear kernel on
          similarity feature vectors.
        * ``"none"``: the symmetrised matrix unchanged (possibly indefinite).
    test_transform : {"consistent", "linear", "raw"}, default="consistent"
        How test rows ``s`` (similarities of a test sample to the training
        samples) are mapped:

        * ``"consistent"``: clip/flip: ``s~ = P s`` with
          ``P = U diag(m) U^T`` (Chen et al. 2009, section 2.2, ``P_clip`` and
          ``P_flip``); square: ``s~ = S s`` (rows of ``S_test S^T``); none:
          unchanged; shift: ``s~ = s`` unchanged (Chen et al. following Wu et
          al. 2005). For shift this reproduces every *off-diagonal* entry of
          ``S + delta I``; a training sample given as a test row differs only in
          its (unknown) self-similarity, by ``delta``.
        * ``"linear"``: as ``"consistent"`` except for shift, which uses Gu &
          Guo's (2012, eqs. 10-15) exact map
          ``P = U diag((lambda + delta) / lambda) U^T``. Directions with
          ``|lambda| <= tol_`` get factor 1, so exact consistency needs a
          non-singular ``S``; for nearly singular ``S`` the factors are large
          and the map is numerically fragile.
        * ``"raw"``: test rows unmodified for every method (the inconsistent
          ablation discussed in both papers).
    tol : float or None, default=None
        Eigenvalues with ``|lambda| <= tol`` count as zero (dropped by clip and
        flip, factor 1 for the shift map). ``None`` uses
        ``n * eps * max|lambda|``. This follows Proposition 1 of Chen et al.
        (``I{lambda > 0}``) rather than their ``I{lambda >= 0}`` definition of
        ``M_clip``; pass a larger ``tol`` to drop more small eigenvalues.
    eigen_solver : {"auto", "dense", "tridiagonal", "arpack", "randomized"}, default="auto"
        Without ``n_components`` (exact clip / flip): ``"dense"`` is one full
        LAPACK divide-and-conquer decomposition; any other value takes the
        measured rule of ``"auto"``: for ``n >= 500``
        (:data:`AUTO_NEGATIVE_MIN_N`) the matrix is reduced to tridiagonal
        form, all eigenvalues follow cheaply, and when at most ``n / 5``
        (:data:`AUTO_NEGATIVE_FRACTION`) of them are ``<= tol_`` only their
        eigenvectors are computed (:func:`proxlearn._linalg.eigh_below`), else
        all of them (the dense work). The kernel,
        test map and coefficients equal the full decomposition's to rounding
        (tested to ``1e-10`` relative). Shift, square and none do not depend
        on it: shift with ``test_transform`` "consistent" or "raw" computes
        ``lambda_min`` alone, by Lanczos on a budget of
        ``max(40, n / 50)`` products (:data:`SHIFT_ARPACK_MIN_BUDGET`,
        :data:`SHIFT_ARPACK_BUDGET`) and, when the budget runs out,
        shift-invert Lanczos below a Cholesky-certified shift, else one
        LAPACK eigenvalue (:func:`proxlearn._linalg.lowest_eigenvalue`; the
        shift equals the full decomposition's to ``eps`` times the spectral
        norm, tested); shift with "linear" needs every eigenpair; square needs
        no eigenvalue. ``"arpack"`` and
        ``"randomized"`` take the route of ``"auto"`` here (a Lanczos route
        for the pairs ``<= tol_`` would need their count first; not
        implemented).
        With ``n_components`` (a partial spectrum): ``"dense"``: one full
        decomposition, then the leading pairs; ``"tridiagonal"``: the
        tridiagonal reduction, all eigenvalues, then the eigenvectors of the
        ``k`` leading ones only (bisection, inverse iteration and the
        back-transformation of ``k`` vectors, whatever the spectrum);
        ``"arpack"``: Lanczos
        (:func:`scipy.sparse.linalg.eigsh`, to machine precision), fast on a
        decaying spectrum, slow on a flat one; ``"randomized"``: subspace
        iteration from a random block, run until every kept Ritz pair has a
        residual below ``1e-10`` of ``max|lambda|`` (then as accurate as
        ARPACK; ARPACK finishes if 200 iterations do not get there, which
        happens on flat spectra: it pays on fast-decaying ones). ``"auto"``:
        for ``n >= 1000`` and ``n_components <= n / 40`` ARPACK with a budget
        of ``n / 10`` matrix-vector products, and the tridiagonal route if the
        budget runs out (a flat spectrum never pays ARPACK's slow
        convergence); else the tridiagonal route for ``n >= 500`` and ``n_components <= n / 5``;
        else dense (``eigen_solver_`` says which route ran). The rule and its
        measurements: docs/benchmarks.md, section "Measurements moved out of
        docstrings", subsection "transforms.SpectrumTransformer". See
        :func:`proxlearn._linalg.leading_eigh`.
    n_components : int or None, default=None
        Clip and flip only (the other methods ignore it with a warning): keep
        the ``k`` leading eigenpairs (the ``k``
        largest eigenvalues for clip, the ``k`` largest in modulus for flip)
        and drop the rest, so the kernel is ``U_k diag(new) U_k^T`` and the test
        map ``P = U_k diag(m) U_k^T`` (applied as two ``n x k`` products, never
        formed). Approximation error: the kernel differs from the full clip /
        flip kernel by exactly the dropped part, whose spectral norm is the
        largest dropped modified eigenvalue (clip: the ``(k+1)``-th largest
        eigenvalue if positive, else 0; flip: the ``(k+1)``-th largest
        ``|lambda|``) and whose Frobenius norm is the root sum of squares of
        the dropped modified eigenvalues (Eckart-Young: the best rank-``k``
        approximation of the full kernel). Test rows carry the same
        truncation (``P`` misses the dropped eigen-directions). With
        ``n_components = n`` the result equals the full decomposition's.
        Training rows still map to the training kernel rows (to the
        eigensolver's residual, ``<= 1e-10 max|lambda|`` relative).
    random_state : int, RandomState, Generator or None, default=None
        Starting vectors of ``"arpack"`` and ``"randomized"``.

    Attributes
    ----------
    eigenvalues_ : ndarray of shape (n,) or (n_components,) or None
        Ascending eigenvalues of the symmetrised training matrix (``None`` for
        ``"square"``, which needs no eigendecomposition; only the leading ones
        with ``n_components``). After a shift fit from ``lambda_min`` alone
        (``eigen_solver_`` "arpack" or "tridiagonal") this, as
        ``modified_eigenvalues_`` (then ``eigenvalues_ + shift_``),
        ``n_negative_`` and ``tol_`` (``tol=None``), is computed on first
        access (one eigenvalues-only decomposition, kept); the fit does not
        need it.
    eigenvectors_ : ndarray of shape (n, n), (n, n_components), (n, k) or None
        Orthonormal eigenvectors (columns). Only computed when needed (clip,
        flip, shift with ``test_transform="linear"``); ``None`` otherwise.
        With ``eigen_solver_ == "negative"`` only the ``k`` columns of
        ``eigenvalues_[:k]``, the eigenvalues ``<= tol_``.
    modified_eigenvalues_ : ndarray of shape (n,) or None
        The modified spectrum (see :func:`modify_spectrum`).
    n_negative_ : int
        Number of eigenvalues ``< -tol_`` (0 for square; among the computed
        ones with ``n_components``).
    eigen_solver_ : str or None
        The eigensolver used (``"dense"`` for the full decomposition,
        ``"negative"`` for the eigenpairs ``lambda <= tol_`` only, None for
        square; with ``n_components`` the route that produced the pairs:
        ``"dense"``, ``"tridiagonal"``, ``"arpack"`` or ``"randomized"``; for
        shift from ``lambda_min`` alone ``"arpack"`` (Lanczos converged within
        its budget), ``"shift-invert"`` (Lanczos on ``(S - sigma I)^{-1}``) or
        ``"tridiagonal"`` (one LAPACK eigenvalue)).
    shift_ : float
        ``delta = max(0, -lambda_min)`` for shift, 0.0 otherwise.
    tol_ : float
        Zero-eigenvalue tolerance used.
    P_ : ndarray of shape (n, n) or None
        Symmetric linear test map ``U diag(m) U^T`` (clip, flip, and shift with
        ``"linear"``); ``None`` when the test transform is not a product with a
        spectral map (square, none, shift with ``"consistent"``, any ``"raw"``)
        or when it is applied in low-rank form without being formed
        (``n_components``, and ``eigen_solver_ == "negative"``:
        ``s~ = s + ((s V) (m - 1)) V^T``).
    train_similarity_ : ndarray of shape (n, n) or None
        Training matrix as given, stored for ``"square"`` only.
    n_features_in_ : int
        Number of training samples ``n``.

    Notes
    -----
    An all-zero ``S`` gives an all-zero kernel for clip, flip, square and none,
    and ``S`` unchanged for shift (``delta = 0``); no NaN is produced.
    Rank-deficient matrices are fine. ``kernel_`` (the modified training matrix)
    is computed on access rather than stored, to keep ``fit`` at one
    eigendecomposition plus one matrix product.

    Examples
    --------
    >>> import numpy as np
    >>> from proxlearn.transforms import SpectrumTransformer
    >>> S = np.array([[1.0, 0.9, 0.1], [0.9, 1.0, 0.9], [0.1, 0.9, 1.0]])
    >>> st = SpectrumTransformer("clip").fit(S)
    >>> st.n_negative_, bool(np.linalg.eigvalsh(st.kernel_).min() > -1e-12)
    (1, True)
    >>> np.allclose(st.transform(S), st.kernel_)
    True

    See Also
    --------
    modify_spectrum : the eigenvalue map behind each method.
    proxlearn.svm.SimilaritySVC : an SVM that applies this transform itself.
    proxlearn.kernel_approximation.NystroemSpectrum : the same correction at linear cost.
    """

    _parameter_constraints = {
        "method": options(*SPECTRUM_METHODS),
        "test_transform": options(*TEST_TRANSFORMS),
        "tol": SPECTRUM_TOL,
        "eigen_solver": unchecked("checked with n_samples in fit (_check_partial)"),
        "n_components": unchecked("None or an integer in [1, n_samples], checked in fit"),
        "random_state": unchecked("sklearn.utils.check_random_state"),
    }

    eigenvalues_ = _OnDemandSpectrum()
    modified_eigenvalues_ = _OnDemandSpectrum()
    n_negative_ = _OnDemandSpectrum()
    tol_ = _OnDemandSpectrum()

    def __init__(self, method="clip", test_transform="consistent", tol=None,
                 eigen_solver="auto", n_components=None, random_state=None):
        self.method = method
        self.test_transform = test_transform
        self.tol = tol
        self.eigen_solver = eigen_solver
        self.n_components = n_components
        self.random_state = random_state

    # ------------------------------------------------------------------ fit
    def fit(self, S, y=None):
        """Eigendecompose the training similarity matrix once.

        Parameters
        ----------
        S : array-like of shape (n, n)
            Training similarities. Symmetrised (with a warning when
            asymmetric) except for ``method="square"``.
        y : ignored

        Returns
        -------
        self
        """
        params = validate_params(self)
        method = params["method"]
        arr = check_similarity(S, symmetric=self._symmetric_mode(method))
        return self._fit_checked(arr, S, method, params["test_transform"], params["tol"])

    @staticmethod
    def _symmetric_mode(method):
        """How :func:`check_similarity` must treat the training matrix for ``method``."""
        return "allow" if method == "square" else "symmetrize"

    def _fit_checked(self, arr, S, method=None, test_transform=None, tol=None):
        """Fit on ``arr``, the output of ``check_similarity(S, symmetric=
        self._symmetric_mode(method))``: for estimators that validate ``S``
        themselves (once) before fitting this transformer. ``S`` is the input as
        given, which ``arr`` may alias (it is then copied before LAPACK)."""
        if method is None:  # called directly by an estimator that did not check them
            params = validate_params(self, "method", "test_transform", "tol")
            method, test_transform, tol = params.values()
        self.eigenvalues_ = None
        self.eigenvectors_ = None
        self.modified_eigenvalues_ = None
        self.P_ = None
        self.train_similarity_ = None
        self.shift_ = 0.0
        self.n_negative_ = 0
        self._S_sym = None
        self._factor = None
        self._plus_identity = False  # test map I + U diag(_factor) U^T (negative path)
        self._spectrum_on_demand = False
        # the settings this fit used (set_params without refit cannot desync)
        self._method, self._test_transform = method, test_transform

        if method == "square":
            self._check_partial(method, arr.shape[0])  # warns if n_components is given
            self.eigen_solver_ = None  # no eigendecomposition
            self.train_similarity_ = _own_copy(arr, S)
            self.n_features_in_ = arr.shape[0]
            self.tol_ = 0.0 if tol is None else tol
            return self

        n = arr.shape[0]
        self.n_features_in_ = n
        k, solver = self._check_partial(method, n)
        self.eigen_solver_ = solver
        if k is not None:
            return self._fit_leading(_own_copy(arr, S), method, test_transform, tol, k, solver)
        if solver == "negative":
            return self._fit_negative(_own_copy(arr, S), method, test_transform, tol)
        if solver == "lowest":
            return self._fit_lowest(_own_copy(arr, S), tol)
        need_vectors = method in ("clip", "flip") or (
            method == "shift" and test_transform == "linear"
        )
        if method in ("shift", "none"):
            # the kernel S + delta I (or S) needs the symmetrised matrix itself
            self._S_sym = _own_copy(arr, S)
            work = self._S_sym.copy()
        else:
            # clip/flip never need S again: let LAPACK destroy a copy we own
            # (no copy at all when validation already made a new array)
            work = _own_copy(arr, S)
        if need_vectors:
            lam, U = scipy.linalg.eigh(
                work, overwrite_a=True, check_finite=False, driver=_EIGH_DRIVER
            )
        else:
            lam = scipy.linalg.eigh(
                work,
                eigvals_only=True,
                overwrite_a=True,
                check_finite=False,
                driver=_EIGH_DRIVER,
            )
            U = None
        self.tol_ = default_tol(lam) if tol is None else tol
        new, factor = modify_spectrum(lam, method, self.tol_)
        self.eigenvalues_ = lam
        self.modified_eigenvalues_ = new
        self.eigenvectors_ = U
        self.n_negative_ = int(np.count_nonzero(lam < -self.tol_))
        if method == "shift":
            self.shift_ = max(0.0, -float(lam[0]))
        if need_vectors and test_transform != "raw":
            self.P_ = self._spectral_map(U, factor, work)
        del work
        return self

    def _check_partial(self, method, n):
        """``(k, solver)``: ``k = None`` for the full decomposition."""
        solver = check_option(self.eigen_solver, "eigen_solver", EIGEN_SOLVERS)
        k = self.n_components
        # shift with a test map that needs no eigenvector: lambda_min alone, whatever
        # eigen_solver says (the result does not depend on it)
        lowest = method == "shift" and self._test_transform != "linear"
        if k is None:
            if solver != "dense" and method in ("clip", "flip") and n >= max(
                AUTO_NEGATIVE_MIN_N, 2
            ):
                return None, "negative"
            return None, "lowest" if lowest else "dense"
        if isinstance(k, bool) or not isinstance(k, numbers.Integral) or not 1 <= k <= n:
            raise InvalidParameterError(
                f"n_components must be None or an integer in [1, n_samples={n}], got {k!r}."
            )
        if method not in ("clip", "flip"):
            # a warning, not an error: scikit-learn's common checks set
            # n_components on every estimator that has it
            warnings.warn(
                f"n_components (a partial spectrum) is used by method 'clip' and "
                f"'flip' only; method {method!r} ignores it (its kernel needs no "
                "eigenvectors).",
                UserWarning,
                stacklevel=4,
            )
            return None, "lowest" if lowest else "dense"
        if solver == "auto":
            if n >= AUTO_PARTIAL_MIN_N and k * AUTO_PARTIAL_RATIO <= n:
                solver = "auto-arpack"  # ARPACK on a budget, then tridiagonal
            elif n >= AUTO_NEGATIVE_MIN_N and k <= AUTO_NEGATIVE_FRACTION * n:
                solver = "tridiagonal"
            else:
                solver = "dense"
        return int(k), solver

    def _fit_lowest(self, S_sym, tol):
        """Shift from ``lambda_min`` alone (test transform "consistent" or "raw").

        The kernel ``S + delta I`` and these test maps need no eigenvector and no
        other eigenvalue: :func:`proxlearn._linalg.lowest_eigenvalue` (Lanczos on
        a budget, else one LAPACK eigenvalue). ``eigenvalues_``,
        ``modified_eigenvalues_``, ``n_negative_`` and (``tol=None``) ``tol_`` are
        computed on first access (:meth:`_complete_spectrum`).
        """
        n = self.n_features_in_
        budget = max(SHIFT_ARPACK_MIN_BUDGET, int(SHIFT_ARPACK_BUDGET * n))
        self._S_sym = S_sym
        lam_min, self.eigen_solver_ = lowest_eigenvalue(S_sym, max_matvec=budget,
                                                        rng=self.random_state)
        self.shift_ = max(0.0, -lam_min)
        for name in _ON_DEMAND:
            self.__dict__.pop(name, None)
        if tol is not None:
            self.tol_ = tol
        self._spectrum_on_demand = True
        return self

    def _complete_spectrum(self):
        """The attributes a lambda_min-only shift fit left: every eigenvalue of the
        symmetrised training matrix (one LAPACK call, eigenvalues only), the
        modified ones ``lambda + shift_`` (``shift_`` as fitted), ``tol_`` and
        ``n_negative_`` as the full fit defines them."""
        lam = scipy.linalg.eigh(self._S_sym, eigvals_only=True, check_finite=False,
                                driver=_EIGH_DRIVER)
        if "tol_" not in self.__dict__:
            self.tol_ = default_tol(lam)
        self.eigenvalues_ = lam
        self.modified_eigenvalues_ = lam + self.shift_
        self.n_negative_ = int(np.count_nonzero(lam < -self.tol_))
        self._spectrum_on_demand = False

    def _fit_negative(self, S_sym, method, test_transform, tol):
        """Clip / flip from every eigenvalue and the eigenvectors of ``lambda <= tol_`` only.

        Clip and flip leave the eigenpairs with ``lambda > tol_`` unchanged
        (new value ``lambda``, test-map factor 1), so with ``V`` the eigenvectors
        of the others (``D`` their eigenvalues):
        ``K = S + V diag(new - D) V^T`` (clip: ``S - V D V^T``; flip:
        ``S - 2 V_- D_- V_-^T`` minus the ``|lambda| <= tol_`` part) and
        ``P = I + V diag(m - 1) V^T`` (clip: ``I - V V^T``; flip:
        ``I - 2 V_- V_-^T`` minus the zero part), the full decomposition's
        kernel and map written differently. When more than
        ``AUTO_NEGATIVE_FRACTION * n`` eigenvalues are ``<= tol_`` every
        eigenvector is computed instead and the fit goes on as the dense one.
        """
        n = self.n_features_in_

        def threshold(lam):
            return default_tol(lam) if tol is None else tol

        work = S_sym.copy()  # S_sym is kept for the kernel; LAPACK destroys work
        lam, U, self.tol_ = eigh_below(
            work, threshold, max_count=int(AUTO_NEGATIVE_FRACTION * n), overwrite_a=True
        )
        new, factor = modify_spectrum(lam, method, self.tol_)
        self.eigenvalues_ = lam
        self.modified_eigenvalues_ = new
        self.eigenvectors_ = U
        self.n_negative_ = int(np.count_nonzero(lam < -self.tol_))
        if U.shape[1] == n:  # too many: the dense route's full decomposition
            self.eigen_solver_ = "dense"
            del S_sym
            if test_transform != "raw":
                self.P_ = self._spectral_map(U, factor, work)
            return self
        k = U.shape[1]
        self._S_sym = S_sym
        if test_transform != "raw":
            self._factor = factor[:k] - 1.0
            self._plus_identity = True
        return self

    def _fit_leading(self, work, method, test_transform, tol, k, solver):
        """Clip / flip from the ``k`` leading eigenpairs only (low-rank kernel and map)."""
        by = "value" if method == "clip" else "modulus"
        budget = None
        if solver == "auto-arpack":
            solver, budget = "arpack", int(AUTO_ARPACK_BUDGET * self.n_features_in_)
        lam, U, self.eigen_solver_ = leading_eigh(
            work, k, by=by, solver=solver, rng=self.random_state, max_matvec=budget,
            overwrite_a=True, return_solver=True,
        )
        del work
        self.tol_ = default_tol(lam) * (self.n_features_in_ / lam.size) if tol is None else tol
        new, factor = modify_spectrum(lam, method, self.tol_)
        self.eigenvalues_ = lam
        self.modified_eigenvalues_ = new
        self.eigenvectors_ = U
        self.n_negative_ = int(np.count_nonzero(lam < -self.tol_))
        if test_transform != "raw":
            self._factor = factor
        return self

    @staticmethod
    def _spectral_map(U, factor, buf):
        """``U diag(factor) U^T`` with one (reduced) matrix product.

        Because ``U U^T = I``, ``U diag(f) U^T = c I + U diag(f - c) U^T`` for
        any constant ``c``. Taking ``c`` as the most frequent factor value (1
        for clip with few negative eigenvalues, +-1 for flip) only the columns
        with ``f != c`` enter the product, e.g. ``P_clip = I - U_- U_-^T``.
        ``buf`` is an n x n scratch array (the matrix destroyed by LAPACK),
        reused for the scaled columns.
        """
        n = U.shape[0]
        values, counts = np.unique(factor, return_counts=True)
        c = float(values[np.argmax(counts)])
        if np.count_nonzero(factor == c) <= np.count_nonzero(factor == 0.0):
            c = 0.0
        sel = factor != c
        k = int(np.count_nonzero(sel))
        if k == 0:
            P = np.zeros((n, n))
        else:
            Uk = U if k == n else U[:, sel]
            W = np.multiply(Uk, factor[sel] - c, out=buf[:, :k])
            P = W @ Uk.T
        if c != 0.0:
            P.flat[:: n + 1] += c
        return P

    # ------------------------------------------------------------ transform
    def transform(self, S_test):
        """Map test-to-train similarities consistently with the training kernel.

        Parameters
        ----------
        S_test : array-like of shape (m, n)
            ``S_test[i, j]`` is the similarity of test sample ``i`` to training
            sample ``j``. For asymmetric similarities, symmetrise test rows first
            with :class:`Symmetrize` (needs the train-to-test similarities).

        Returns
        -------
        K_test : ndarray of shape (m, n)
            Rows of the transformed test-to-train kernel.
        """
        check_is_fitted(self, "n_features_in_")
        return self._transform_checked(check_test_similarity(S_test, self.n_features_in_),
                                       S_test)

    def _transform_checked(self, arr, S_test):
        """:meth:`transform` of ``arr``, the output of ``check_test_similarity(S_test,
        n_features_in_)``: for estimators that validated the test rows themselves
        (``S_test``: what the caller passed, which the result never aliases)."""
        if self._test_transform == "raw":
            return _own_copy(arr, S_test)
        if self._method == "square":
            return arr @ self.train_similarity_.T
        if self.P_ is not None:
            return arr @ self.P_
        if getattr(self, "_factor", None) is not None:  # low-rank map, never formed
            U = self.eigenvectors_
            out = ((arr @ U) * self._factor) @ U.T
            if getattr(self, "_plus_identity", False):
                out += arr
            return out
        # none, or shift with the consistent rule s~ = s
        return _own_copy(arr, S_test)

    def transform_coef(self, V):
        """Fold the test map into coefficients on transformed test columns.

        ``transform(S_test) = S_test M`` for a fixed ``n x n`` matrix ``M`` (``P_``,
        ``S^T`` for square, the identity otherwise), so a linear function of the
        transformed rows is one of the raw rows:
        ``transform(S_test) @ V == S_test @ transform_coef(V)`` with
        ``transform_coef(V) = M V``. A model with ``p`` such functions (an SVM's
        dual coefficients, ``p`` one-vs-one pairs) then predicts in
        ``O(m n p)`` instead of the ``O(m n^2)`` of forming ``S_test M``.

        Parameters
        ----------
        V : ndarray of shape (n, p)

        Returns
        -------
        ndarray of shape (n, p)
        """
        check_is_fitted(self, "n_features_in_")
        V = np.asarray(V, dtype=np.float64)
        if self._test_transform == "raw":
            return V.copy()
        if self._method == "square":
            return self.train_similarity_.T @ V
        if self.P_ is not None:
            return self.P_ @ V  # P_ is symmetric: M = P_
        if getattr(self, "_factor", None) is not None:
            U = self.eigenvectors_
            out = U @ (self._factor[:, None] * (U.T @ V))
            if getattr(self, "_plus_identity", False):
                out += V
            return out
        return V.copy()

    def fit_transform(self, S, y=None):
        """Fit and return the modified ``n x n`` training kernel."""
        return self.fit(S, y)._training_kernel()

    def _training_kernel(self) -> np.ndarray:
        check_is_fitted(self, "n_features_in_")
        if self._method == "square":
            S = self.train_similarity_
            return S @ S.T
        if self._method == "none":
            return self._S_sym.copy()
        if self._method == "shift":
            K = self._S_sym.copy()
            K.flat[:: K.shape[0] + 1] += self.shift_
            return K
        U = self.eigenvectors_
        if self._S_sym is not None:  # clip / flip from the eigenpairs lambda <= tol_
            k = U.shape[1]
            delta = self.modified_eigenvalues_[:k] - self.eigenvalues_[:k]
            K = (U * delta) @ U.T
        else:
            lam = self.modified_eigenvalues_
            keep = lam != 0.0
            Uk = U[:, keep]
            K = (Uk * lam[keep]) @ Uk.T
        # exact symmetry (the product is symmetric only up to rounding)
        K += K.T
        K *= 0.5
        if self._S_sym is not None:
            K += self._S_sym
        return K

    @property
    def kernel_(self) -> np.ndarray:
        """Modified training kernel (``n x n``), computed on access."""
        return self._training_kernel()
