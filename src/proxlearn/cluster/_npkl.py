"""Non-parametric kernel learning from pairwise constraints: NPKL and SimpleNPKL.

==================  =====================================================================
estimator           problem (over the PSD ``n x n`` kernel ``K`` of the given points)
==================  =====================================================================
``SimpleNPKL``      ``min tr(L K) + C sum l(T_ij K_ij)`` s.t. ``tr K^p <= B`` (or the
                    penalty ``+ (G/p) tr K^p``); losses ``"linear"`` (closed form,
                    eq. 3.6 / Prop. 3.25-3.26), ``"square-hinge"`` (eq. 3.15,
                    Protocol 1), ``"square"`` and ``"hinge"`` (sections 3.2.4-3.2.5),
                    by projected gradient ascent on the dual with a closed-form ``K``
``NPKL``            the same problem as a semidefinite program through cvxpy
                    (Clarabel): Hoi, Jin & Lyu's NPKL (thesis eq. 3.4), the baseline
                    and the test oracle; refuses above ``max_samples``
==================  =====================================================================

``L`` is the Laplacian of the mutual kNN graph
(:func:`~proxlearn.cluster.knn_laplacian`): ``D - W`` by default, eq. 3.3's
normalised ``I - D^{-1/2} W D^{-1/2}`` with ``laplacian="normalized"`` (the text;
see "Conventions" below), and ``T`` the symmetric constraint matrix of eq. 3.1
(:class:`proxlearn.cluster.PairwiseConstraints`).

References
----------
J. Zhuang, "Kernel Learning: Methods and Applications", PhD thesis, NTU 2011,
chapter 3: eq. 3.4 (NPKL), 3.5-3.8 and Prop. 3.25 (closed form, constraint
form), 3.13-3.14 and Prop. 3.26 (penalty form), 3.15-3.19 (square hinge loss,
dual, Danskin gradient), Protocol 1 (printed as "Algorithm 5"), Lemma 3.4 and
Prop. 3.28 (step size), Prop. 3.27 (Pataki's rank bound), sections 3.2.4-3.2.5.
J. Zhuang, I. W. Tsang, S. C. H. Hoi, "SimpleNPKL: simple non-parametric kernel
learning", ICML 2009. S. C. H. Hoi, R. Jin, M. R. Lyu, "Learning nonparametric
kernel matrices from pairwise constraints", ICML 2007.

Conventions and errata followed (the thesis digest; docs/methods.md)
--------------------------------------------------------------------
* **Laplacian: two readings.** Eq. 3.3 prints the normalised Laplacian; with
  the thesis's ``C = 1`` it does not reproduce the thesis's Iris results and
  loses to k-means at its defaults, while ``D - W`` reproduces them: ``D - W``
  is the default, the text stays ``laplacian="normalized"``. Evidence:
  docs/methods.md, "SimpleNPKL's Laplacian: two readings".
* **Counting.** Sums over constraints run over the *ordered* non-zeros of the
  symmetric ``T`` (each unordered pair twice), so that the linear-loss solution is
  ``A = C T - L`` exactly as printed (digest section 1 asks for one documented
  convention; the other one halves the effective ``C``). The dual keeps one
  multiplier per unordered pair (the two of a pair are equal at the optimum).
* **Signs** (digest 16.1): every K-step maximises ``tr(A K)`` with
  ``A = sum alpha_ij T_ij - L``; the extraction lost Protocol 1's minus sign.
* **Projections of alpha** (digest 16.2): square hinge ``alpha >= 0``; hinge
  ``0 <= alpha <= C``; square loss: equality constraints, **alpha free** (the
  thesis keeps Protocol 1's clipping without saying; clipping would solve the
  square-hinge problem instead).
* **Steps and stopping** are not reported (digest 16.3-16.4). We use projected
  gradient ascent (:func:`proxlearn.solvers.dual_ascent`) with a monotone Armijo
  backtracking line search, the step grown by 1.5 after each accepted step and
  started at the inverse Lipschitz constant of Lemma 3.4 recomputed for our counting
  (``2 (sqrt 2 / G + 1 / C)`` for ``p = 2``; the printed ``m / G + 1 / C`` is a
  loose bound), so the dual objective never decreases in either form (the
  bound form has no Lipschitz guarantee in the thesis). We stop on the
  **duality gap**: ``K(alpha)`` is primal feasible, so
  ``P(K(alpha)) - J(alpha) >= 0`` bounds the suboptimality of both; stop when the
  lowest ``P`` minus the highest ``J`` seen is below ``tol * max(1, |P|)`` (or a
  step leaves ``alpha`` unchanged), and return the iterate of the lowest ``P``.
* ``A_+ = 0`` (no positive eigenvalue) gives ``K = 0`` (digest 16.6).
* ``p = 1`` (Table 3.5's first column) is the bound form only: ``K`` is ``B``
  times the normalised projector on the top eigenspace of ``A`` (Prop. 3.25);
  the dual is then not differentiable and the gradient is a supergradient.
* The NPKL SDP with the linear loss is unbounded without a capacity bound
  (digest 16.12): ``NPKL`` uses the same ``tr K^p <= B`` (``p`` in ``{1, 2}``) or
  penalty as ``SimpleNPKL``; ``B=None`` (Hoi et al.'s original, no bound) is
  allowed for the hinge and square-hinge losses.
"""

from __future__ import annotations

import time
import warnings

import numpy as np
import scipy.linalg
import scipy.sparse as sp
import scipy.sparse.linalg as spla
from sklearn.base import BaseEstimator
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils import check_random_state

from .._progress import IterationLog, check_verbose
from .._validation import (
    check_features,
    check_positive,
    check_similarity,
    integer,
    only_if,
    options,
    positive,
    unchecked,
    validate_params,
)
from ..exceptions import InvalidParameterError, SolverError
from ..solvers import dual_ascent
from ._constraints import as_pairwise_constraints
from ._laplacian import LAPLACIANS, METRICS, knn_laplacian

__all__ = ["LOSSES", "NPKL", "SimpleNPKL"]

#: Losses of the constrained entries ``f = T_ij K_ij``.
LOSSES = ("linear", "square-hinge", "hinge", "square")
FORMS = ("bound", "penalty")
EIGEN_SOLVERS = ("auto", "dense", "arpack")
#: ``eigen_solver="auto"`` uses ARPACK from this size on when Pataki's bound is below
#: ``n / 20``. Measured (2 cores, shared): 3-class blobs n = 2000, 1,809 pairs, rank 43:
#: ARPACK 1.1-1.4 s, LAPACK 3.9-5.6 s; Adult a1a (k = 50, 4,100 pairs, B = N) has 445
#: positive eigenvalues: LAPACK 3.4 s, while ARPACK asked for Pataki's 129 took 50 s
#: before handing over.
_ARPACK_MIN_N = 1000


def _check_p(p, form: str) -> float:
    p = check_positive(p, "p")
    if p < 1:
        raise InvalidParameterError(f"p must be >= 1 (the capacity tr K^p), got {p}.")
    if p == 1 and form == "penalty":
        raise InvalidParameterError(
            "p=1 needs form='bound': the penalty (G/p) tr K is linear and the inner "
            "maximum is unbounded whenever A has an eigenvalue above G.")
    return p


def _pataki_rank(m: int) -> int:
    """Largest ``r`` with ``r (r + 1) / 2 <= m`` (Prop. 3.27)."""
    return int((np.sqrt(8.0 * m + 1.0) - 1.0) // 2)


class _Spectrum:
    """Positive eigenpairs of a symmetric ``A`` and the closed-form ``K`` built on them.

    ``values``: the eigenvalues of ``K`` (on the columns of ``vectors``),
    ``inner``: ``max_K tr(A K) - penalty`` (the K-step's optimal value).
    """

    __slots__ = ("values", "vectors", "inner")

    def __init__(self, values, vectors, inner):
        self.values, self.vectors, self.inner = values, vectors, inner

    def entries(self, i, j):
        """``K_ij`` for index arrays ``i``, ``j`` (O(len(i) r))."""
        if self.values.size == 0:
            return np.zeros(len(i))
        return np.einsum("kr,kr->k", self.vectors[i] * self.values, self.vectors[j])

    def dense(self):
        U = self.vectors
        K = (U * self.values) @ U.T
        return 0.5 * (K + K.T)

    def trace_LK(self, L):
        if self.values.size == 0:
            return 0.0
        U = self.vectors
        return float(np.sum(self.values * np.einsum("nr,nr->r", U, L @ U)))

    def trace_power(self, p):
        return float(np.sum(self.values**p))


class _KStep:
    """The closed-form K-step ``argmax_{K PSD} tr(A K)`` with the capacity term.

    Bound form (Prop. 3.25): ``K = (B / tr A_+^q)^{1/p} A_+^{1/(p-1)}``, ``q = p/(p-1)``
    (``p = 1``: ``B`` times the projector on the top eigenspace). Penalty form
    (Prop. 3.26): ``K = (A_+ / G)^{1/(p-1)}``.
    """

    def __init__(self, form, B, G, p, eigen_solver, n, rank_hint, rng):
        self.form, self.B, self.G, self.p = form, B, G, p
        self.n = n
        self.rank = max(1, min(rank_hint, n - 2)) if n > 2 else n
        if eigen_solver == "auto":
            eigen_solver = "arpack" if (n >= _ARPACK_MIN_N and 20 * self.rank < n) else "dense"
        self.eigen_solver = eigen_solver
        self.rng = rng
        self._v0 = None
        self.n_eig = 0

    def _positive_pairs(self, A):
        """All positive eigenpairs of ``A`` (``p = 1``: only the top eigenspace)."""
        self.n_eig += 1
        n = self.n
        if self.eigen_solver == "arpack" and n > 2:
            k = self.rank
            v0 = self._v0 if self._v0 is not None else self.rng.uniform(-1, 1, n)
            try:
                lam, V = spla.eigsh(A, k=k, which="LA", v0=v0, tol=1e-10)
            except spla.ArpackNoConvergence:
                return self._dense_pairs(A)
            order = np.argsort(lam)[::-1]
            lam, V = lam[order], V[:, order]
            self._v0 = V[:, 0]
            # all positive ones are found once the smallest computed is <= 0
            if lam[-1] <= 0 or self.p == 1:
                keep = lam > 0
                return lam[keep], V[:, keep]
            # more positive eigenvalues than asked for: LAPACK is faster than growing
            # k (measured, see _ARPACK_MIN_N), from now on
            self.eigen_solver = "dense"
        return self._dense_pairs(A)

    def _dense_pairs(self, A):
        Ad = A.toarray() if sp.issparse(A) else np.asarray(A)
        # only the eigenvalues in (0, inf): MRRR skips the back-transformation of
        # the others (most of them, since L is PSD and T is sparse)
        lam, V = scipy.linalg.eigh(Ad, subset_by_value=(0.0, np.inf), driver="evr")
        order = np.argsort(lam)[::-1]
        return lam[order], V[:, order]

    def __call__(self, A) -> _Spectrum:
        lam, V = self._positive_pairs(A)
        # eigenvalues at rounding level are zero: L has a null space (constant
        # vectors), and a 1e-16 "positive" eigenvalue would be scaled up to B
        scale = float(abs(A).sum(axis=1).max()) if sp.issparse(A) else float(
            np.abs(A).sum(axis=1).max())
        keep = lam > 64.0 * np.finfo(float).eps * self.n * max(scale, 1e-300)
        lam, V = lam[keep], V[:, keep]
        if lam.size == 0:
            return _Spectrum(np.zeros(0), np.zeros((self.n, 0)), 0.0)
        p = self.p
        if self.form == "bound" and p == 1:
            top = lam >= lam[0] * (1.0 - 1e-10)
            w = np.full(int(top.sum()), self.B / int(top.sum()))
            return _Spectrum(w, V[:, top], float(self.B * lam[0]))
        q = p / (p - 1.0)
        if self.form == "bound":
            norm_q = float(np.sum(lam**q))
            w = (self.B / norm_q) ** (1.0 / p) * lam ** (1.0 / (p - 1.0))
            inner = self.B ** (1.0 / p) * norm_q ** (1.0 / q)
        else:
            w = (lam / self.G) ** (1.0 / (p - 1.0))
            inner = (1.0 - 1.0 / p) * float(np.sum(lam**q)) * self.G ** (-1.0 / (p - 1.0))
        return _Spectrum(w, V, float(inner))


class _NPKLBase(BaseEstimator):
    """Shared input handling: points (features or similarity) and constraints."""

    def _prepare(self, X, constraints):
        """The kNN Laplacian ``L`` of the points and the checked constraints; the
        parameters were validated by the caller's table (``validate_params``)."""
        if self.metric == "precomputed":
            S = check_similarity(X, name="X", symmetric="symmetrize")
            n = S.shape[0]
            self.n_features_in_ = n
            data = S
        else:
            data = check_features(X, name="X")
            n = data.shape[0]
            self.n_features_in_ = data.shape[1]
        if n < 3:
            raise InvalidParameterError(
                f"X has {n} samples; kernel learning from a kNN graph needs at least 3.")
        pc = as_pairwise_constraints(constraints, n)
        if pc is None or len(pc) == 0:
            raise InvalidParameterError(
                "no pairwise constraints given: NPKL learns the kernel from must-link / "
                "cannot-link pairs. Pass constraints=PairwiseConstraints(...), a (pairs, "
                "labels) tuple or a matrix T; proxlearn.cluster.make_pairwise_constraints(y) "
                "draws them from labels.")
        shared = getattr(self, "_cv_state", None)  # SimpleNPKLCV: one graph for its walk
        if shared is not None and "laplacian" in shared:
            L = shared["laplacian"]
        else:
            L = knn_laplacian(data, self.n_neighbors, metric=self.metric, mutual=self.mutual,
                              kind=self.laplacian)
            if shared is not None:
                shared["laplacian"] = L
        self.constraints_ = pc
        self.laplacian_ = L
        return L, pc

    @staticmethod
    def _constraints(B, **extra):
        """The parameter table of SimpleNPKL / NPKL: the shared entries, ``B``
        (checked with ``form="bound"``) and the class's ``extra`` ones."""
        return {
            "loss": options(*LOSSES), "C": positive(), "form": options(*FORMS),
            "p": positive(),  # and p >= 1, p > 1 with form="penalty": _check_p
            "B": only_if(B, "form", "bound"), "G": only_if(positive(), "form", "penalty"),
            "n_neighbors": integer(1, what="a positive integer"),
            "metric": options(*METRICS), "mutual": unchecked("read as a truth value"),
            "laplacian": options(*LAPLACIANS), **extra}

    @staticmethod
    def _capacity(params):
        """``form, p, B, G`` of validated parameters, with the rules tying ``p``
        to ``form`` (:func:`_check_p`); ``B`` is ``None`` with ``form="penalty"``,
        ``G`` with ``form="bound"``."""
        form = params["form"]
        p = _check_p(params["p"], form)
        if form == "bound":
            return form, p, params["B"], None
        return form, p, None, params["G"]

    def fit_transform(self, X, constraints=None):
        """Fit and return the learned kernel ``kernel_`` (n x n)."""
        return self.fit(X, constraints).kernel_

    def _primal(self, spec, f, L, C, form, p, G):
        """Primal objective at ``K`` with ``f = T_ij K_ij`` on the constrained pairs
        (ordered-pair counting, see module notes)."""
        val = spec.trace_LK(L)
        loss = self.loss
        if loss == "linear":
            val -= 2.0 * C * float(f.sum())
        elif loss == "square-hinge":
            val += C * float(np.sum(np.maximum(0.0, 1.0 - f) ** 2))
        elif loss == "square":
            val += C * float(np.sum((1.0 - f) ** 2))
        else:
            val += 2.0 * C * float(np.sum(np.maximum(0.0, 1.0 - f)))
        if form == "penalty":
            val += G / p * spec.trace_power(p)
        return val


class SimpleNPKL(_NPKLBase):
    """SimpleNPKL: a PSD kernel over the given points learned from pairwise constraints.

    Solves (Zhuang 2011, eq. 3.6 / 3.15 and sections 3.2.4-3.2.5)
    ``min_K tr(L K) + C sum_{T_ij != 0} l(T_ij K_ij)`` over PSD ``K`` with
    ``tr K^p <= B`` (``form="bound"``) or ``+ (G/p) tr K^p`` (``"penalty"``),
    where ``L`` is the Laplacian of the mutual kNN graph of the points (``D - W``
    by default; eq. 3.3's normalised one with ``laplacian="normalized"``) and ``T`` the symmetric must-link (+1) / cannot-link (-1) matrix. The linear
    loss has a closed form (one eigendecomposition of ``A = C T - L``); the others
    are solved by projected gradient ascent on the dual multipliers with the
    closed-form ``K(alpha)`` (Protocol 1), to a certified duality gap. See the
    module docstring for the conventions and the errata followed.

    Transductive: the kernel is learned over the ``n`` points passed to ``fit``
    (the thesis's use: cluster them with kernel k-means). For new points use
    :class:`~proxlearn.kernel_learning.WarpedKernel` or refit.

    Parameters
    ----------
    loss : {"square-hinge", "linear", "hinge", "square"}, default="square-hinge"
    C : float > 0, default=1.0
        Loss weight (the thesis: 1 on Adult and in Tables 3.4-3.5, "several values
        in (0, 1]" in Table 3.2). With the default Laplacian, ``C`` in {0.3, 3}
        is worse than 1 on the benchmark panel; data with a poor kNN graph (Heart,
        Sonar, Ionosphere) prefer 3, ten classes (digits) 0.3. A large ``C`` is
        not a harder fit of the same kernel: at ``B = 1`` no margin ``T_ij K_ij
        >= 1`` is reachable, the loss acts linearly, and as ``C`` grows the
        optimum tends to ``T_+ / ||T_+||_F``, the kernel of the constraints
        without the graph (near-chance clusters; ``C = 100``: Rand 58 on Iris and
        Wine). :class:`SimpleNPKLCV` chooses ``C``; docs/methods.md, "SimpleNPKL
        at a large C".
    B : float > 0, default=1.0
        Capacity bound ``tr K^p <= B`` (``form="bound"``); the thesis's 1 on the
        small sets, ``N`` on Adult. For the linear loss ``B`` only rescales ``K``.
    p : float >= 1, default=2.0
        Capacity exponent (the thesis's default 2).
    form : {"bound", "penalty"}, default="bound"
        Capacity as a constraint (Prop. 3.25) or as the penalty ``(G/p) tr K^p``
        (Prop. 3.26, where the step size is provably safe).
    G : float > 0, default=1.0
        Penalty weight (``form="penalty"`` only).
    n_neighbors : int, default=5
        ``k`` of the kNN graph (thesis: 5 on the UCI sets, 50 on Adult).
    metric : {"euclidean", "precomputed"}, default="euclidean"
        ``X`` is a feature matrix (neighbours by Euclidean distance) or a
        precomputed ``n x n`` similarity (neighbours by largest similarity; only
        the graph is built from it).
    mutual : bool, default=True
        Mutual kNN graph (the thesis); see :func:`knn_graph`.
    laplacian : {"unnormalized", "normalized"}, default="unnormalized"
        ``D - W`` of the kNN graph (the default: the reading that reproduces the
        thesis's Tables 3.4-3.5 at its ``C = 1`` and that beats k-means at the
        default ``C`` on 17 of 21 real-data rows, 1 worse; docs/methods.md,
        "SimpleNPKL's Laplacian: two readings"), or ``"normalized"``: eq. 3.3's
        ``I - D^{-1/2} W D^{-1/2}``, the thesis's literal text (at ``C = 1`` it
        collapses: Rand 53 on Iris, 51 on Wine, below k-means on 9 of 21 rows; it
        needs ``C`` about 0.3). Scaling ``L`` by ``s`` is the same as dividing
        ``C`` by ``s``; the degrees of a mutual 5-NN graph are about 3-10.
    max_iter : int, default=200
        Dual ascent iterations (the thesis's runs took 6-51; none for ``"linear"``).
    tol : float, default=1e-4
        Stop when the duality gap is below ``tol * max(1, |primal|)``.
    eigen_solver : {"auto", "dense", "arpack"}, default="auto"
        Positive eigenpairs by LAPACK (``eigh`` restricted to positive
        eigenvalues) or ARPACK Lanczos (``eigsh``, the thesis's choice; the
        number requested is Pataki's bound; all positive ones are found when the last one
        is non-positive, else LAPACK takes over). ``"auto"``: ARPACK for
        ``n >= 1000`` when the bound is below ``n / 20`` (measured rule, see
        ``_ARPACK_MIN_N``).
    random_state : int, RandomState or None
        Start vector of ARPACK.
    verbose : int, default=0
        1: a progress line (iteration, primal, dual, gap) every 2 seconds and at the
        end; 2: every iteration.

    Attributes
    ----------
    kernel_ : ndarray of shape (n, n)
        The learned kernel (PSD). Its diagonal is small for points far from every
        constraint; :class:`~proxlearn.cluster.KernelKMeans` clusters it by direction
        by default (``normalize="cosine"``; docs/methods.md).
    eigenvalues_, eigenvectors_ : ndarray
        ``kernel_ = eigenvectors_ @ diag(eigenvalues_) @ eigenvectors_.T`` (rank r).
    dual_coef_ : ndarray of shape (n_constraints,)
        Multipliers ``alpha`` of the constraints, in the order of
        ``constraints_.pairs`` (``None`` for the linear loss).
    objective_ : float
        Primal objective at ``kernel_``.
    duality_gap_ : float
        ``primal - dual`` (0 for the closed form).
    objective_history_, dual_objective_history_ : list of float
        Per iteration (the dual one never decreases).
    n_iter_ : int
    eigen_solver_ : str
        The eigensolver used at the end (``"auto"`` resolved; ARPACK hands over to
        LAPACK when the positive eigenvalues turn out to be many).
    constraints_ : PairwiseConstraints
    laplacian_ : scipy.sparse.csr_matrix
    fit_time_ : float
        Seconds spent learning the kernel, graph included (the thesis's Table 3.3
        timing excludes only the clustering).

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from proxlearn.cluster import KernelKMeans, SimpleNPKL, make_pairwise_constraints, rand_index
    >>> X, y = load_iris(return_X_y=True)
    >>> pc = make_pairwise_constraints(y, r=0.7, random_state=0)
    >>> K = SimpleNPKL(loss="square-hinge").fit_transform(X, pc)
    >>> labels = KernelKMeans(3, random_state=0).fit_predict(K)
    >>> rand_index(y, labels) > 80
    True

    See Also
    --------
    NPKL : the same problem as a semidefinite program (small ``n``, the oracle).
    SimpleNPKLCV : ``C`` chosen by cross-validation over the constraints.
    proxlearn.kernel_learning.WarpedKernel : the learned kernel extended to new points.
    proxlearn.cluster.KernelKMeans : clusters the learned kernel.
    proxlearn.solvers.dual_ascent : the dual-ascent engine.
    """

    _parameter_constraints = _NPKLBase._constraints(
        positive(), eigen_solver=options(*EIGEN_SOLVERS), max_iter=integer(1), tol=positive(),
        random_state=unchecked("sklearn.utils.check_random_state, in fit"),
        verbose=unchecked("proxlearn._progress.check_verbose, in fit"))

    def __init__(self, loss="square-hinge", *, C=1.0, B=1.0, p=2.0, form="bound", G=1.0,
                 n_neighbors=5, metric="euclidean", mutual=True, laplacian="unnormalized",
                 max_iter=200, tol=1e-4, eigen_solver="auto", random_state=None, verbose=0):
        self.loss = loss
        self.C = C
        self.B = B
        self.p = p
        self.form = form
        self.G = G
        self.n_neighbors = n_neighbors
        self.metric = metric
        self.mutual = mutual
        self.laplacian = laplacian
        self.max_iter = max_iter
        self.tol = tol
        self.eigen_solver = eigen_solver
        self.random_state = random_state
        self.verbose = verbose

    def fit(self, X, constraints=None):
        """Learn the kernel over the points ``X`` from ``constraints``.

        Parameters
        ----------
        X : array-like
            Features ``(n, d)`` or, with ``metric="precomputed"``, a similarity ``(n, n)``.
        constraints : PairwiseConstraints, (pairs, labels) tuple, or matrix T
            Must-link / cannot-link pairs over the ``n`` points.
        """
        t0 = time.perf_counter()
        params = validate_params(self)
        C, tol = params["C"], params["tol"]
        form, p, B, G = self._capacity(params)
        check_verbose(self.verbose)
        L, pc = self._prepare(X, constraints)
        n = L.shape[0]
        i, j = pc.pairs[:, 0], pc.pairs[:, 1]
        t = pc.labels.astype(np.float64)
        m = len(pc)
        rng = check_random_state(self.random_state)
        kstep = _KStep(form, B, G, p, self.eigen_solver, n,
                       _pataki_rank(2 * m) + 2, rng)

        def M(alpha):
            v = alpha * t
            return sp.csr_matrix((np.r_[v, v], (np.r_[i, j], np.r_[j, i])), shape=(n, n))

        if self.loss == "linear":
            spec = kstep(C * M(np.ones(m)) - L)
            primal = self._primal(spec, t * spec.entries(i, j), L, C, form, p, G)
            self.objective_history_ = [primal]
            self.dual_objective_history_ = [primal]
            self.dual_coef_ = None
            self.duality_gap_ = 0.0
            self.n_iter_ = 0
        else:
            spec = self._ascent(kstep, M, L, i, j, t, C, form, p, B, G, tol)
        self.eigenvalues_ = spec.values
        self.eigenvectors_ = spec.vectors
        self.kernel_ = spec.dense()
        self.objective_ = self.objective_history_[-1]
        self.n_eigendecompositions_ = kstep.n_eig
        self.eigen_solver_ = kstep.eigen_solver
        self.fit_time_ = time.perf_counter() - t0
        return self

    def _dual(self, spec, alpha, C):
        """``J(alpha)``, ordered-pair counting (module notes)."""
        J = -spec.inner + 2.0 * float(alpha.sum())
        if self.loss != "hinge":
            J -= float(alpha @ alpha) / C
        return J

    def _grad(self, f, alpha, C):
        """Danskin gradient (eq. 3.19) from ``f = T_ij K_ij(alpha)``."""
        g = 2.0 * (1.0 - f)
        if self.loss != "hinge":
            g -= 2.0 * alpha / C
        return g

    def _project(self, a, C):
        if self.loss == "square-hinge":
            return np.maximum(a, 0.0)
        if self.loss == "hinge":
            return np.clip(a, 0.0, C)
        return a  # square loss: equality constraints, free multipliers

    def _ascent(self, kstep, M, L, i, j, t, C, form, p, B, G, tol):
        # SimpleNPKLCV's walk along C starts from the previous C's multipliers (the
        # dual optimum moves continuously with C; the duality-gap test is unchanged)
        warm = (getattr(self, "_cv_state", None) or {}).get("alpha")
        alpha0 = warm if warm is not None and len(warm) == len(i) else np.zeros(len(i))

        def k_step(alpha):
            spec = kstep(M(alpha) - L)
            return self._dual(spec, alpha, C), spec

        def measure(alpha, spec):
            f = t * spec.entries(i, j)  # K_ij on the pairs, once per iterate
            return self._primal(spec, f, L, C, form, p, G), self._grad(f, alpha, C)

        # Lemma 3.4 recomputed for one multiplier per pair counted twice, p = 2:
        # ||grad J(a) - grad J(b)|| <= 2 (sqrt(2) / G + 1 / C) ||a - b||; the bound
        # form behaves like G = ||A_+||_F / sqrt(B) (unknown before the first step).
        G_eff = G if form == "penalty" else 1.0 / np.sqrt(B)
        lip = 2.0 * (np.sqrt(2.0) / G_eff + (1.0 / C if self.loss != "hinge" else 0.0))
        log = IterationLog(f"SimpleNPKL({self.loss!r})", self.verbose)
        # monotone Armijo on the quadratic model, the step grown by 1.5 after each
        # accepted step; the best primal seen is returned (module notes)
        res = dual_ascent(k_step, measure, alpha0, project=lambda a: self._project(a, C),
                          step=1.0 / lip, step_rule="expand", expand=1.5,
                          acceptance="quadratic", min_step=1e-14, tol=tol,
                          max_iter=self.max_iter, certify_start=False, certificate="best",
                          stop_when_stalled=True,
                          callback=lambda it, P, J, gap: log(it, primal=P, dual=J, gap=gap))
        if res.status == 1:
            log.end(self.max_iter, "max_iter", primal=res.primal, gap=res.gap)
            warnings.warn(
                f"SimpleNPKL({self.loss!r}) stopped at max_iter={self.max_iter} with relative "
                f"duality gap {res.gap / max(1.0, abs(res.primal)):.2e} > tol={tol:g}. "
                "Increase max_iter, or use form='penalty' (provably safe steps).",
                ConvergenceWarning, stacklevel=3)
        else:
            log.end(res.nit, "duality gap within tol", primal=res.primal, gap=res.gap)
        if getattr(self, "_cv_state", None) is not None:
            self._cv_state["alpha"] = res.x
        self.objective_history_ = res.trace["primal"]
        self.dual_objective_history_ = res.trace["dual"]
        self.dual_coef_ = res.x
        self.duality_gap_ = float(max(res.gap, 0.0))
        self.n_iter_ = res.nit
        return res.state


class NPKL(_NPKLBase):
    """NPKL as a semidefinite program (Hoi, Jin & Lyu 2007; Zhuang 2011 eq. 3.4).

    The same problem as :class:`SimpleNPKL` (same ``L``, ``T``, counting, losses
    and capacity), solved by an interior-point method through cvxpy: the
    baseline of the thesis's Tables 3.2-3.3 (which used SDPT3) and the oracle of
    our tests. ``O(n^2)`` variables in one PSD cone: it refuses above
    ``max_samples`` points.

    Parameters
    ----------
    loss, C, B, p, form, G, n_neighbors, metric, mutual, laplacian
        As :class:`SimpleNPKL`; ``p`` in ``{1, 2}`` (``tr K <= B`` or
        ``||K||_F^2 <= B``). ``B=None``: no capacity (Hoi et al.'s original; only
        for the hinge losses, the linear loss is then unbounded).
    solver : str, default="auto"
        A cvxpy solver accepting SDPs (``"CLARABEL"``, ``"SCS"``). ``"auto"``:
        Clarabel (interior point, like the thesis's SDPT3) up to 60 points, SCS
        (first order) above, where it reaches the same objective much faster
        (docs/benchmarks.md, "Kernel-learning docstrings: moved measurements").
    max_samples : int, default=300

    Attributes
    ----------
    kernel_, objective_, constraints_, laplacian_, fit_time_, solver_stats_

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.datasets import make_moons
    >>> from proxlearn.cluster import NPKL, SimpleNPKL, make_pairwise_constraints
    >>> X, y = make_moons(30, noise=0.05, random_state=0)
    >>> pc = make_pairwise_constraints(y, r=0.5, random_state=0)
    >>> K = NPKL(loss="square-hinge").fit(X, pc).kernel_
    >>> K_simple = SimpleNPKL(loss="square-hinge").fit(X, pc).kernel_
    >>> K.shape, bool(np.abs(K - K_simple).max() < 0.01 * np.abs(K_simple).max())
    ((30, 30), True)

    See Also
    --------
    SimpleNPKL : the same problem by closed forms and dual ascent, for large ``n``.
    knn_laplacian : the graph Laplacian ``L``.
    proxlearn.cluster.PairwiseConstraints : the constraints ``T``.
    """

    _parameter_constraints = _NPKLBase._constraints(
        options(None) | positive(), solver=unchecked("a cvxpy solver name, or 'auto'"),
        max_samples=unchecked("compared with the number of samples in fit"))

    def __init__(self, loss="hinge", *, C=1.0, B=1.0, p=2.0, form="bound", G=1.0,
                 n_neighbors=5, metric="euclidean", mutual=True, laplacian="unnormalized",
                 solver="auto", max_samples=300):
        self.loss = loss
        self.C = C
        self.B = B
        self.p = p
        self.form = form
        self.G = G
        self.n_neighbors = n_neighbors
        self.metric = metric
        self.mutual = mutual
        self.laplacian = laplacian
        self.solver = solver
        self.max_samples = max_samples

    def fit(self, X, constraints=None):
        """Solve the SDP over the points ``X`` (see :meth:`SimpleNPKL.fit`)."""
        import cvxpy as cp

        t0 = time.perf_counter()
        params = validate_params(self)
        C, form = params["C"], params["form"]
        unbounded = form == "bound" and self.B is None
        if unbounded:
            if self.loss in ("linear", "square"):
                raise InvalidParameterError(
                    f"B=None (no capacity bound) makes the {self.loss!r} loss problem "
                    "unbounded or degenerate; give B (the thesis's NPKL+LL needs one).")
            p = _check_p(self.p, form)
            B = G = None
        else:
            form, p, B, G = self._capacity(params)
        if p not in (1.0, 2.0):
            raise InvalidParameterError(
                f"NPKL supports p in {{1, 2}} (tr K or ||K||_F^2 as a cone constraint), "
                f"got p={p}; SimpleNPKL handles any p >= 1.")
        n_probe = np.shape(X)[0] if np.ndim(X) == 2 else 0
        if n_probe > self.max_samples:
            raise InvalidParameterError(
                f"NPKL solves an SDP with {n_probe} x {n_probe} matrix variable; above "
                f"max_samples={self.max_samples} interior-point methods need hours and "
                "gigabytes (O(n^6.5), thesis section 3.1). Use SimpleNPKL, or raise "
                "max_samples knowingly.")
        L, pc = self._prepare(X, constraints)
        n = L.shape[0]
        i, j = pc.pairs[:, 0], pc.pairs[:, 1]
        t = pc.labels.astype(np.float64)
        solver = self.solver if self.solver != "auto" else ("CLARABEL" if n <= 60 else "SCS")
        K = cp.Variable((n, n), PSD=True)
        kij = cp.hstack([K[a, b] for a, b in zip(i, j)]) if len(i) < 64 else \
            (sp.csr_matrix((np.ones(len(i)), (np.arange(len(i)), i + j * n)),
                           shape=(len(i), n * n)) @ cp.vec(K, order="F"))
        f = cp.multiply(t, kij)
        obj = cp.trace(sp.csr_matrix(L) @ K)
        if self.loss == "linear":
            obj = obj - 2.0 * C * cp.sum(f)
        elif self.loss == "square-hinge":
            obj = obj + C * cp.sum_squares(cp.pos(1.0 - f))
        elif self.loss == "square":
            obj = obj + C * cp.sum_squares(1.0 - f)
        else:
            obj = obj + 2.0 * C * cp.sum(cp.pos(1.0 - f))
        cons = []
        if form == "penalty":
            obj = obj + G / p * cp.sum_squares(K)
        elif not unbounded:
            cons.append((cp.trace(K) if p == 1 else cp.sum_squares(K)) <= B)
        prob = cp.Problem(cp.Minimize(obj), cons)
        try:
            prob.solve(solver=solver)
        except cp.error.SolverError as exc:
            raise SolverError(f"NPKL: cvxpy solver {solver} failed: {exc}") from exc
        if prob.status not in ("optimal", "optimal_inaccurate") or K.value is None:
            raise SolverError(f"NPKL: the SDP ended with status {prob.status!r}.")
        Kv = 0.5 * (K.value + K.value.T)
        self.kernel_ = Kv
        self.objective_ = float(prob.value)
        self.solver_stats_ = {"status": prob.status, "solver": solver,
                              "solve_time": prob.solver_stats.solve_time}
        self.fit_time_ = time.perf_counter() - t0
        return self

