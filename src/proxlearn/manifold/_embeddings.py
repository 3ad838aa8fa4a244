"""Embedding SDPs solved by the SimpleNPKL template (Zhuang 2011 sec. 3.4) and as SDPs.

=========  ==================  ============================================================
class      ``solver``          problem
=========  ==================  ============================================================
``MVE``    ``"npkl"``          Minimum Volume Embedding (Shaw & Jebara 2007), each step
                               ``max tr(K K0) - C/2 sum xi^2`` over ``K PSD, K1 = 0,
                               tr(KK) <= B``, ``dist_ij(K) = D_ij - xi_ij`` on k-NN edges,
                               by the template (thesis sec. 3.4.2);
                               outer loop ``K0 = sum_{i<=d} v_i v_i^T - sum_{i>d} v_i v_i^T``
           ``"sdp"``           the original: each step a cvxpy SDP with the hard
                               equalities ``dist_ij(K) = D_ij``, ``sum K = 0``, no ``B``
``SPE``    ``"npkl"``          Structure Preserving Embedding (Shaw & Jebara 2009):
                               ``max tr(K W) - C xi`` over ``K PSD, K1 = 0, tr(KK) <= B``,
                               ``dist_ij >= dist_ik - xi`` for ``k in N_i, j not in N_i``;
                               dual ``alpha`` on the capped simplex, working set of
                               violated triplets (sec. 3.4.3)
           ``"sdp"``           the original: cvxpy, ``tr K <= 1``, ``sum K = 0``,
                               cutting planes
``CMVU``   ``"npkl"``          colored MVU (Song et al. 2007) with squared slack
                               (eq. 3.25): ``max tr(H K H Y) - C/2 sum xi^2``
           ``"lowrank"``       the published approximation ``K = V P V^T``, ``V`` the
                               bottom ``n_basis`` Laplacian eigenvectors, ``P`` by cvxpy
=========  ==================  ============================================================

Input: see :mod:`proxlearn.manifold._base` (features with ``kernel="linear"``,
or an ``n x n`` kernel with ``kernel="precomputed"``). The embedding is read off
the learned kernel by :func:`kernel_embedding` (``sqrt(lambda_i) u_i``).

References
----------
J. Zhuang, PhD thesis, NTU 2011, sec. 3.4 (eq. 3.25, 3.26), Protocol 1,
Lemma 3.4 / Prop. 3.28 (first step), Prop. 3.25 (K-step);
B. Shaw, T. Jebara, Minimum volume embedding, AISTATS 2007 (Table 1);
B. Shaw, T. Jebara, Structure preserving embedding, ICML 2009;
L. Song, A. Smola, K. Borgwardt, A. Gretton, Colored maximum variance unfolding,
NIPS 2007.

Errata and choices followed: ``alpha`` is sign-free for the
distance equalities of MVE / CMVU (the thesis says "inequality"); the
centring ``sum K = 0`` of MVE / SPE is kept by centring ``A`` (``HAH``; without it
SPE's optimum on a regular graph is the constant kernel); SPE's single shared
slack gives ``sum alpha <= C``. Defaults that are ours (the thesis gives none):
``B = ||H G H||_F^2`` for the start kernel ``G`` (so the input configuration is
feasible with zero slack), ``tol`` / ``max_iter`` / ``max_outer_iter``, and the
step rule of :mod:`proxlearn.manifold._saddle`.
"""

from __future__ import annotations

import warnings

import numpy as np
import scipy.linalg
from sklearn.base import BaseEstimator, ClassNamePrefixFeaturesOutMixin, TransformerMixin
from sklearn.exceptions import ConvergenceWarning

from .._graph import laplacian
from .._linalg import center_kernel
from .._progress import IterationLog
from .._validation import (
    InvalidParameterError,
    check_n_neighbors,
    check_option,
    check_partial_labels,
    check_positive,
)
from ._base import (
    connected_knn_graph,
    distance_selectors,
    embedding_input,
    kernel_embedding,
    selector_operator,
)
from ..solvers import max_trace_psd_ball, project_capped_simplex
from ._saddle import dual_ascent
from ._sdp import MAX_SDP_N, cmvu_lowrank_sdp, mve_step_sdp, spe_sdp, spe_violations

__all__ = ["CMVU", "MVE", "SPE"]

#: ``scale``: "auto" solves in units where the centred start kernel has
#: ``||H G H||_F = 1`` (scale-free: ``C``, ``G`` and ``tol`` mean the same on any
#: data); None keeps the input's units (the earlier behaviour).
SCALES = ("auto", None)

#: Default penalty weights: MVE's and CMVU's ``- (G/2) tr(K K)`` instead of
#: the thesis's ball ``tr(K K) <= B`` (``G=None``), chosen on the defaults panel
#: (docs/methods.md, "Embeddings at their defaults"). With the ball and ``C = 1`` the
#: slack is too weak to hold the distances: MVE's kernel ends rank ``d`` with equal
#: eigenvalues (a whitened subspace that drifts from step to step) and CMVU collapses
#: each class to a point and every unlabelled sample to the centre.
MVE_G = 0.1
CMVU_G = 1e-4


class _Embedding(ClassNamePrefixFeaturesOutMixin, TransformerMixin, BaseEstimator):
    """Common parameters, input handling and read-off of the embedding estimators."""

    _solvers = ("npkl", "sdp")

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.pairwise = self.kernel == "precomputed"
        tags.input_tags.sparse = self.kernel != "precomputed"
        tags.transformer_tags.preserves_dtype = ["float64"]
        tags.non_deterministic = False
        return tags

    def _prepare(self, X):
        check_option(self.solver, "solver", self._solvers)
        if self.scale not in SCALES:
            raise InvalidParameterError(
                f"scale must be 'auto' (solve in units where ||H G H||_F = 1) or None (the "
                f"input's units), got {self.scale!r}.")
        G, D2, self.n_features_in_ = embedding_input(X, self.kernel)
        # scale-free: the slack weight C and the tolerances mean the same
        # thing whatever the units of X; kernel_ is returned in the input's units
        # (not for the SDP: an interior-point solver's tolerances are absolute, and
        # rescaling cost MVE's equalities 4-5 digits on small distances)
        auto = self.scale == "auto" and self.solver != "sdp"
        sigma = float(np.sqrt(np.sum(G * G))) if auto else 1.0
        if not sigma > 0:
            raise InvalidParameterError(
                "the centred start kernel H G H is 0 (all samples identical): there is "
                "nothing to embed.")
        G, D2 = G / sigma, D2 / sigma
        self.scale_ = sigma
        n = G.shape[0]
        check_n_neighbors(self.n_components, n, name="n_components")
        pairs, W = connected_knn_graph(D2, self.n_neighbors)
        C = check_positive(self.C, "C")
        tol = check_positive(self.tol, "tol")
        if isinstance(self.B, str) and self.B == "auto":
            B = float(np.sum(G * G))
            if B <= 0:
                raise InvalidParameterError(
                    "B='auto' is ||H G H||_F^2 of the start kernel, which is 0 here (all "
                    "samples identical): pass a positive B.")
        else:
            B = check_positive(self.B, "B") / sigma**2  # B is in the input's units
        self._gpen = None if self.G is None else check_positive(self.G, "G")
        return G, D2, pairs, W, C, B, tol

    def _finish(self, K):
        K = K * self.scale_
        self.kernel_ = K
        self.embedding_ = kernel_embedding(K, self.n_components, random_state=self.random_state)
        self._n_features_out = self.n_components
        return self

    def fit_transform(self, X, y=None):
        """Fit and return ``embedding_`` of shape ``(n_samples, n_components)``."""
        return self.fit(X, y).embedding_

    def _warn(self, what, gap):
        warnings.warn(
            f"{type(self).__name__}: {what} stopped at its iteration limit with relative "
            f"duality gap {gap:.3g} (tol {self.tol:g}); raise max_iter or tol.",
            ConvergenceWarning, stacklevel=3)


def _mve_objective(K, d, C, slack, eig=None):
    """MVE's ``sum_{i<=d} lambda_i - sum_{i>d} lambda_i - C/2 ||xi||^2``.

    ``eig``: the positive eigenvalues of ``K`` if known (the others are 0)."""
    lam = np.sort(scipy.linalg.eigvalsh(K) if eig is None else eig[0])[::-1]
    return float(lam[:d].sum() - lam[d:].sum() - (0.5 * C * slack @ slack if C else 0.0))


def _k0(K, d, eig=None):
    """``K0 = sum_{i<=d} v_i v_i^T - sum_{i>d} v_i v_i^T = 2 V_d V_d^T - I`` from ``K``, centred.

    ``eig``: ``(w, V)``, the positive eigenpairs of ``K`` if known (used when there
    are at least ``d`` of them; saves an eigendecomposition per MVE step)."""
    if eig is not None and eig[0].size >= d:
        lam, V = eig
    else:
        lam, V = scipy.linalg.eigh(K, driver="evd")
    Vd = V[:, np.argsort(-lam, kind="stable")[:d]]
    return center_kernel(2.0 * Vd @ Vd.T - np.eye(K.shape[0]))


def _squared_slack_parts(M, d2, C, A0):
    """``h``, ``grad h`` and the primal of the distance-equality (squared slack) problems."""
    def h(a):
        return float(a @ d2 - a @ a / (2.0 * C))

    def grad_h(a):
        return d2 - a / C

    def primal(K):
        xi = d2 - M @ K.ravel()
        return -float(np.vdot(A0, K)) + 0.5 * C * float(xi @ xi)

    return h, grad_h, primal


class MVE(_Embedding):
    """Minimum Volume Embedding (Shaw & Jebara 2007), by SimpleNPKL or by SDP.

    Parameters
    ----------
    n_components : int, default=2
        The target dimension ``d`` (MVE grows the top ``d`` eigenvalues).
    n_neighbors : int, default=5
        ``k`` of the symmetrised k-NN graph whose squared distances are kept.
    kernel : {"linear", "precomputed"}, default="linear"
        Input rule: features (squared Euclidean distances, start kernel the
        centred linear Gram) or a precomputed ``n x n`` kernel ``K``
        (``d_ij = K_ii + K_jj - 2 K_ij`` of its PSD part).
    solver : {"npkl", "sdp"}, default="npkl"
        ``"npkl"``: the SimpleNPKL template with squared slack and
        ``tr(KK) <= B``; ``"sdp"``: the original, each step a cvxpy SDP with
        hard distance equalities (no ``B``, no ``C``), refused above
        ``max_sdp_n`` samples.
    B : float or "auto", default="auto"
        Bound on ``tr(K K)`` in the input's units, used with ``G=None`` only
        (``"auto"``: that of the centred start kernel; the thesis sweeps
        ``B = m N``, ``m in {0.1, 1, 2, 10}``).
    G : float or None, default=0.1
        Penalty form (Prop. 3.26): ``- (G/2) tr(K K)`` in the objective instead of the
        ball (``B`` ignored, ``"npkl"`` only). ``K = A_+ / G`` is continuous in the
        duals and Prop. 3.28's step is safe; a small ``G`` lets the slack penalty
        set the scale, as the hard equalities of the original do. ``None``: the
        thesis's ball ``tr(K K) <= B`` (the former default). The default 0.1 is
        ours, chosen on real data: with the ball and ``C = 1`` the outer loop drifts
        away from the class structure; the penalty form holds the distances only
        loosely (measurements in docs/methods.md, "Embeddings at their defaults").
    C : float, default=1.0
        Weight of the squared slacks (the thesis uses 1), in the units of
        ``scale``: with ``scale="auto"`` the distances are those of the input
        divided by ``||H G H||_F``, so ``C`` means the same on any data.
    scale : {"auto", None}, default="auto"
        ``"auto"``: solve in units where the centred start kernel has
        ``||H G H||_F = 1`` and return ``kernel_`` in the input's units, so that
        multiplying ``X`` by ``c`` multiplies ``embedding_`` by ``c`` and changes
        nothing else (``C``, ``G``, ``tol`` are then unit-free). ``None``: the
        input's own units (the former default; the thesis's reading, ``C = 1`` on
        the data as given): ``C`` then weighs squared distances in the input's
        units, and on data with large distances every step can stop at its
        iteration limit (docs/benchmarks.md, "Embeddings: MVE in the input's units").
        ``solver="sdp"`` always solves in the input's units: an interior-point
        solver's tolerances are absolute, and in the rescaled units MVE's distance
        equalities held far less accurately (docs/methods.md, "Embeddings by kernel
        learning", ``scale="auto"`` and the SDP solver).
    tol : float, default=1e-4
        Inner: relative certified duality gap; outer: relative change of the
        MVE objective.
    max_iter : int, default=200
        Gradient steps per MVE step.
    max_outer_iter : int, default=100
        MVE steps (updates of ``K0``). The outer loop converges linearly (the
        measured ratio is in docs/methods.md, "Embeddings by kernel learning");
        warm-started steps cost one or two eigendecompositions each. The loop
        stops when the change of the MVE objective is below ``tol`` (relative) plus
        the certified gaps of the last two steps (a smaller change is not
        resolved by steps solved to that gap).
    sdp_solver : str, default="CLARABEL"
    sdp_options : dict, optional
        Passed to ``cvxpy.Problem.solve`` (e.g. ``{"eps_abs": 1e-3}`` for SCS).
    max_sdp_n : int, default=200
    random_state : int, RandomState or None
        Only used by ARPACK-based read-off (not the default); the fit is deterministic.
    verbose : int, default=0
        1: a progress line per MVE step every 2 seconds and at the end; 2: every step.

    Attributes
    ----------
    embedding_ : ndarray (n, n_components)
    kernel_ : ndarray (n, n), PSD, centred (``||K||_F^2 = B`` with ``G=None``)
    objective_history_ : list of float
        MVE objective ``sum_{i<=d} lambda_i - sum_{i>d} lambda_i - C/2 ||xi||^2``
        after each step (non-decreasing: each step maximises a minoriser).
    n_iter_ : int
        MVE steps taken; ``n_inner_iter_`` gradient steps in total.
    duality_gap_ : float
        Certified duality gap of the last step (``"npkl"``; 0 for ``"sdp"``), in
        the units of ``scale``; the step converged if it is at most
        ``tol * max(1, |primal_objective_|)``.
    primal_objective_ : float or None
        Primal objective of the last step (``"npkl"``).
    scale_ : float
        The unit used (``||H G H||_F``, or 1 with ``scale=None``).

    Examples
    --------
    >>> from sklearn.datasets import load_wine
    >>> from proxlearn.manifold import MVE
    >>> X, _ = load_wine(return_X_y=True)
    >>> MVE(n_components=2).fit_transform(X).shape
    (178, 2)

    See Also
    --------
    SPE, CMVU : the other embeddings by kernel learning.
    kernel_embedding : reads the embedding off the learned kernel
        (docs/methods.md, embeddings, has the measurements against kernel PCA).
    """

    def __init__(self, n_components=2, *, n_neighbors=5, kernel="linear", solver="npkl",
                 B="auto", G=MVE_G, C=1.0, scale="auto", tol=1e-4, max_iter=200,
                 max_outer_iter=100, sdp_solver="CLARABEL", sdp_options=None,
                 max_sdp_n=MAX_SDP_N, random_state=None, verbose=0):
        self.n_components = n_components
        self.n_neighbors = n_neighbors
        self.kernel = kernel
        self.solver = solver
        self.B = B
        self.G = G
        self.C = C
        self.scale = scale
        self.tol = tol
        self.max_iter = max_iter
        self.max_outer_iter = max_outer_iter
        self.sdp_solver = sdp_solver
        self.sdp_options = sdp_options
        self.max_sdp_n = max_sdp_n
        self.random_state = random_state
        self.verbose = verbose

    def fit(self, X, y=None):
        """Learn the kernel and the embedding of ``X`` (``y`` is ignored)."""
        log = IterationLog("MVE", self.verbose)
        G, D2, pairs, W, C, B, tol = self._prepare(X)
        n, d = G.shape[0], int(self.n_components)
        d2 = D2[pairs[:, 0], pairs[:, 1]]
        M = distance_selectors(n, pairs)
        K = G
        alpha = None
        history, inner = [], 0
        sdp = self.solver == "sdp"
        if sdp and n > self.max_sdp_n:
            mve_step_sdp(np.zeros((n, n)), pairs, d2, max_n=self.max_sdp_n)  # raises
        converged = False
        gaps = []  # certified duality gap of each step (0 for the SDP)
        eig = None  # eigenpairs of K from the last step's K-step, when known
        for t in range(1, int(self.max_outer_iter) + 1):
            A0 = _k0(K, d, eig)
            if sdp:
                K, _ = mve_step_sdp(A0, pairs, d2, solver=self.sdp_solver, max_n=self.max_sdp_n,
                                    options=self.sdp_options)
                slack = None
                gaps.append(0.0)
            else:
                h, grad_h, primal = _squared_slack_parts(M, d2, C, A0)
                res = dual_ascent(A0, M, B, h=h, grad_h=grad_h, primal=primal, C=C,
                                  alpha0=alpha, tol=tol, max_iter=self.max_iter, G=self._gpen)
                if not res.converged:
                    self._warn(f"MVE step {t}", res.gap / max(1.0, abs(res.primal)))
                K, alpha, inner, eig = res.K, res.alpha, inner + res.n_iter, res.eig
                slack = d2 - M @ K.ravel()
                # a step stopped at its iteration limit does not widen the outer test
                gaps.append(max(res.gap, 0.0) if res.converged else 0.0)
            history.append(_mve_objective(K, d, None if sdp else C, slack, eig))
            log(t, objective=history[-1], step_gap=gaps[-1], gradient_steps=inner)
            # settled: the change is within tol, or within what the two steps' certified
            # gaps leave undetermined (each step is solved only to its gap, so a smaller
            # change is not a change; without this the loop drifted by ~tol per step)
            if t > 1 and abs(history[-1] - history[-2]) <= (
                    tol * max(1.0, abs(history[-1])) + gaps[-1] + gaps[-2]):
                converged = True
                break
        log.end(len(history), "settled" if converged else "max_outer_iter",
                objective=history[-1])
        if not converged and self.max_outer_iter > 1:
            warnings.warn(f"MVE: the outer loop did not settle within max_outer_iter="
                          f"{self.max_outer_iter} steps (last change "
                          f"{abs(history[-1] - history[-2]) if len(history) > 1 else np.nan:.3g}).",
                          ConvergenceWarning, stacklevel=2)
        self.objective_history_ = history
        self.n_iter_ = len(history)
        self.n_inner_iter_ = inner
        self.duality_gap_ = 0.0 if sdp else max(float(res.gap), 0.0)
        self.primal_objective_ = None if sdp else float(res.primal)
        self.B_ = None if sdp or self._gpen is not None else B * self.scale_**2
        self.pairs_ = pairs
        return self._finish(K)


class SPE(_Embedding):
    """Structure Preserving Embedding (Shaw & Jebara 2009), by SimpleNPKL or by SDP.

    The connectivity ``W`` is the symmetrised k-NN graph; ``N_i`` the
    neighbours of ``i`` in it. A triplet ``(i, j, k)``, ``k in N_i``,
    ``j not in N_i``, asks ``dist_ij(K) >= dist_ik(K) - xi`` (one shared ``xi``).

    Working-set rule (``solver="npkl"``; the thesis does not say how it handles
    the ``O(n^2 k)`` triplets): start from each point's most violated triplet at
    ``alpha = 0``; solve the dual restricted to the working set to the
    tolerance; then add, for every point, its most violated triplet if it
    violates by more than the current ``xi`` (relative tolerance ``tol`` of the
    mean edge distance); stop when nothing is added. Then the full
    ``xi = max(0, max_i v_i)`` (computed in ``O(n^2)`` without listing the
    triplets) equals the working set's, and the restricted duality gap
    certifies the full problem.

    Parameters
    ----------
    n_components, n_neighbors, kernel, B, scale, tol, max_iter, sdp_solver,
    sdp_options, max_sdp_n, random_state : as :class:`MVE` (``C`` here weighs a
    slack in distance units over ``tr(K W)``, so it is unit-free with either
    ``scale``; ``scale="auto"`` makes ``tol`` unit-free too).
    G : float or None, default=None
        Penalty form as :class:`MVE`'s; SPE keeps the ball by default (it ties
        kernel PCA on 5 of the 6 sets of the defaults panel).
    solver : {"npkl", "sdp"}, default="npkl"
        ``"sdp"``: the original (``tr K <= 1``, ``sum K = 0``, cutting planes
        through cvxpy).
    C : float, default=1.0
        Weight of the shared slack; the duals satisfy ``sum alpha <= C``.
    max_rounds : int, default=30
        Working-set (cutting-plane) rounds.

    Attributes
    ----------
    embedding_, kernel_, n_iter_ (gradient steps), objective_history_ (dual
    value after each gradient step), triplets_ (the final working set),
    n_rounds_.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from proxlearn.manifold import SPE
    >>> X, _ = load_iris(return_X_y=True)
    >>> SPE(n_components=2).fit_transform(X[::5]).shape
    (30, 2)

    See Also
    --------
    MVE, CMVU : the other embeddings by kernel learning.
    spe_npkl, spe_sdp : the two solvers.
    sklearn.decomposition.KernelPCA : the baseline.
    """

    def __init__(self, n_components=2, *, n_neighbors=5, kernel="linear", solver="npkl",
                 B="auto", G=None, C=1.0, scale="auto", tol=1e-4, max_iter=200,
                 max_rounds=30, sdp_solver="CLARABEL", sdp_options=None,
                 max_sdp_n=MAX_SDP_N, random_state=None):
        self.n_components = n_components
        self.n_neighbors = n_neighbors
        self.kernel = kernel
        self.solver = solver
        self.B = B
        self.G = G
        self.C = C
        self.scale = scale
        self.tol = tol
        self.max_iter = max_iter
        self.max_rounds = max_rounds
        self.sdp_solver = sdp_solver
        self.sdp_options = sdp_options
        self.max_sdp_n = max_sdp_n
        self.random_state = random_state

    def fit(self, X, y=None):
        """Learn the kernel and the embedding of ``X`` (``y`` is ignored)."""
        G, D2, pairs, W, C, B, tol = self._prepare(X)
        if self.solver == "sdp":
            K, _, rounds = spe_sdp(W, C=C, solver=self.sdp_solver, max_n=self.max_sdp_n,
                                   tol=tol, max_rounds=self.max_rounds,
                                   options=self.sdp_options)
            self.objective_history_, self.n_iter_, self.n_rounds_ = [], 0, rounds
            self.triplets_ = None
            self.B_ = None
            return self._finish(K)
        res, T, rounds = spe_npkl(W, C=C, B=B, G=self._gpen, tol=tol, max_iter=self.max_iter,
                                  max_rounds=self.max_rounds)
        if not res.converged:
            self._warn("the SPE dual ascent", res.gap / max(1.0, abs(res.primal)))
        self.duality_gap_, self.primal_objective_ = max(res.gap, 0.0), float(res.primal)
        self.objective_history_ = res.history
        self.n_iter_ = res.n_iter
        self.n_rounds_ = rounds
        self.triplets_ = T
        self.B_ = None if self._gpen is not None else B * self.scale_**2
        return self._finish(res.K)


def _triplet_operator(n, T):
    """``T_ij - T_ik`` for each triplet: ``A = W - sum alpha (T_ik - T_ij) = W + M^T alpha``."""
    i, j, k = T[:, 0], T[:, 1], T[:, 2]
    rows = np.column_stack([j, i, j, k, i, k])
    cols = np.column_stack([j, j, i, k, k, i])
    coefs = np.tile([1.0, -1.0, -1.0, -1.0, 1.0, 1.0], (len(i), 1))
    return selector_operator(n, rows, cols, coefs)


def spe_npkl(W, *, C, B, G=None, tol=1e-4, max_iter=200, max_rounds=30):
    """SPE's saddle problem by the template with the working set of :class:`SPE`.

    Returns ``(SaddleResult, triplets, rounds)``; the result's ``primal`` is the
    full problem's (all triplets), its ``history`` the duals of every step.

    Parameters
    ----------
    W : ndarray of shape (n, n)
        0/1 connectivity (the symmetrised k-NN graph).
    C : float
        Weight of the shared slack.
    B : float
        Bound on ``tr(K K)`` (ignored with ``G``).
    G : float, optional
        Penalty form ``(G/2) tr(K K)`` instead of the ball.
    tol, max_iter, max_rounds : as :class:`SPE`.

    Returns
    -------
    result : SaddleResult
        ``K``, ``primal`` (of the full problem), ``gap``, ``converged``, ``history``.
    triplets : ndarray of shape (t, 3)
        The final working set.
    rounds : int

    Examples
    --------
    >>> import numpy as np
    >>> from proxlearn.manifold import spe_npkl
    >>> W = np.array([[0., 1, 1, 0], [1, 0, 0, 1], [1, 0, 0, 1], [0, 1, 1, 0]])
    >>> res, triplets, rounds = spe_npkl(W, C=1.0, B=1.0)
    >>> res.K.shape, res.converged, round(float((res.K ** 2).sum()), 4)
    ((4, 4), True, 1.0)

    See Also
    --------
    SPE : the estimator.
    spe_sdp : the original SDP (the test oracle).
    """
    n = W.shape[0]
    A0 = center_kernel(W)

    def full_primal(K):
        v, _, _ = spe_violations(K, W)
        pen = 0.0 if G is None else 0.5 * G * float(np.vdot(K, K))
        return -float(np.vdot(W, K)) + C * max(0.0, float(np.max(v))) + pen

    def edge_scale(K):
        d = np.diag(K)
        return max(float(np.mean((d[:, None] + d[None, :] - 2 * K)[W > 0])), 1e-12)

    if G is None:
        K, _ = max_trace_psd_ball(A0, B)
    else:
        lam, V = scipy.linalg.eigh(A0, driver="evd")
        K = (V * (np.maximum(lam, 0.0) / G)) @ V.T
    v, j, k = spe_violations(K, W)
    ok = np.isfinite(v)
    T = np.column_stack([np.flatnonzero(ok), j[ok], k[ok]]).astype(int)
    alpha = None
    history, total = [], 0
    res = None
    for rounds in range(1, int(max_rounds) + 1):
        M = _triplet_operator(n, T)

        def primal(K, M=M):
            viol = -(M @ K.ravel())  # dist_ik - dist_ij on the working set
            return -float(np.vdot(W, K)) + C * max(0.0, float(viol.max(initial=0.0)))

        res = dual_ascent(A0, M, B, h=lambda a: 0.0, grad_h=lambda a: 0.0, primal=primal,
                          project=lambda a: project_capped_simplex(a, C), alpha0=alpha,
                          tol=tol, max_iter=max_iter, G=G)
        history += res.history
        total += res.n_iter
        viol_ws = max(0.0, float((-(M @ res.K.ravel())).max(initial=0.0)))
        v, j, k = spe_violations(res.K, W)
        have = {tuple(r) for r in T.tolist()}
        cand = np.flatnonzero(v > viol_ws + tol * edge_scale(res.K))
        new = [(i, j[i], k[i]) for i in cand if (i, j[i], k[i]) not in have]
        if not new:
            break
        T = np.vstack([T, np.array(new, dtype=int)])
        alpha = np.concatenate([res.alpha, np.zeros(len(new))])
    res.primal = full_primal(res.K)
    res.gap = res.primal - res.dual
    if res.success and not res.gap <= tol * max(1.0, abs(res.primal)):
        res.update(res.stopping(False, 1, "duality gap on all triplets above tol"))
    res.history, res.n_iter = history, total
    return res, T, rounds


class CMVU(_Embedding):
    """Colored Maximum Variance Unfolding (Song et al. 2007), by SimpleNPKL or low rank.

    ``max_K tr(H K H Y) - C/2 sum xi_ij^2``, ``dist_ij(K) = D_ij - xi_ij`` on the
    k-NN edges, ``K PSD``, ``tr(KK) <= B`` (thesis eq. 3.25), with ``Y`` the
    one-hot label kernel (``y y^T`` for two classes up to a constant after
    centring). ``fit(X, y)``.

    ``y`` may be a :class:`numpy.ma.MaskedArray`: masked samples are unlabelled
    (their rows and columns of ``Y`` are 0 before centring) and are placed by the
    distance terms alone, so that a supervised embedding can be scored on samples
    whose labels it did not see (``labelled_``).

    Parameters
    ----------
    n_components, n_neighbors, kernel, B, C, scale, tol, max_iter, sdp_solver,
    random_state : as :class:`MVE`.
    G : float or None, default=1e-4
        Penalty form ``- (G/2) tr(K K)`` instead of the ball (as :class:`MVE`);
        ``None``: the thesis's ball ``tr(K K) <= B`` (the former default).
        The default is ours, chosen on real data: with the ball and ``C = 1`` the
        slack is too weak to hold the distances, each class collapses towards a
        point and unlabelled samples towards the centre; a small
        ``G`` lets the distances set the scale, as the original's hard equalities
        do (docs/methods.md, "Embeddings at their defaults").
    solver : {"npkl", "lowrank"}, default="npkl"
        ``"lowrank"``: the published approximation, ``K = V P V^T`` with ``V``
        the ``n_basis`` eigenvectors of smallest eigenvalue of the k-NN graph
        Laplacian and ``P`` (``n_basis^2`` variables) from cvxpy, same
        objective, slack and ``B`` (or ``G``).
    n_basis : int, default=10
        ``d`` of the low-rank form.

    Attributes
    ----------
    embedding_, kernel_, objective_history_ (dual after each step, ``"npkl"``),
    n_iter_, labelled_ (boolean, the samples whose label was used).

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from proxlearn.manifold import CMVU
    >>> X, y = load_iris(return_X_y=True)
    >>> CMVU(n_components=2).fit_transform(X[::5], y[::5]).shape
    (30, 2)

    See Also
    --------
    MVE, SPE : the unsupervised embeddings.
    cmvu_lowrank_sdp : the published low-rank approximation (``solver="lowrank"``).
    """

    _solvers = ("npkl", "lowrank")

    def __init__(self, n_components=2, *, n_neighbors=5, kernel="linear", solver="npkl",
                 B="auto", G=CMVU_G, C=1.0, scale="auto", tol=1e-4, max_iter=200, n_basis=10,
                 sdp_solver="CLARABEL", random_state=None):
        self.n_components = n_components
        self.n_neighbors = n_neighbors
        self.kernel = kernel
        self.solver = solver
        self.B = B
        self.G = G
        self.C = C
        self.scale = scale
        self.tol = tol
        self.max_iter = max_iter
        self.n_basis = n_basis
        self.sdp_solver = sdp_solver
        self.random_state = random_state

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.required = True
        return tags

    def fit(self, X, y):
        """Learn the kernel and the embedding of ``X`` coloured by the labels ``y``."""
        G, D2, pairs, W, C, B, tol = self._prepare(X)
        n = G.shape[0]
        _, codes, labelled = check_partial_labels(y, n, min_classes=1)
        Y = ((codes[:, None] == codes[None, :]) & labelled[:, None] & labelled[None, :])
        A0 = center_kernel(Y.astype(np.float64))
        self.labelled_ = labelled
        d2 = D2[pairs[:, 0], pairs[:, 1]]
        M = distance_selectors(n, pairs)
        if self.solver == "lowrank":
            m = check_n_neighbors(self.n_basis, n, name="n_basis")
            V = _laplacian_bottom(W, m)
            K, _ = cmvu_lowrank_sdp(A0, pairs, d2, V, C=C, B=None if self._gpen else B,
                                    G=self._gpen, solver=self.sdp_solver)
            self.objective_history_, self.n_iter_ = [], 0
            self.B_ = None if self._gpen is not None else B * self.scale_**2
            return self._finish(K)
        h, grad_h, primal = _squared_slack_parts(M, d2, C, A0)
        res = dual_ascent(A0, M, B, h=h, grad_h=grad_h, primal=primal, C=C, tol=tol,
                          max_iter=self.max_iter, G=self._gpen)
        if not res.converged:
            self._warn("the CMVU dual ascent", res.gap / max(1.0, abs(res.primal)))
        self.duality_gap_, self.primal_objective_ = max(res.gap, 0.0), float(res.primal)
        self.objective_history_ = res.history
        self.n_iter_ = res.n_iter
        self.B_ = None if self._gpen is not None else B * self.scale_**2
        return self._finish(res.K)


def _laplacian_bottom(W, m):
    """The ``m`` eigenvectors of smallest eigenvalue of the graph Laplacian of ``W``."""
    _, V = scipy.linalg.eigh(laplacian(W), subset_by_index=[0, m - 1])
    return V
