"""Infinite kernel learning (Gehler & Nowozin 2008): the IKL column of Zhuang (2011)
Table 4.2.

Convex MKL (kernel weights on the simplex) over a continuously parameterised
family of Gaussian kernels, by column generation. With ``u = alpha o y`` and
``a_t = u^T K_t u``, the MKL dual is ``max_alpha 1^T alpha - 1/2 max_t a_t``
over every kernel of the family; the active set's MKL solution is optimal for
the whole family when no kernel has ``a_theta > max_{t active} a_t``. So:
solve the MKL on the active kernels (:func:`~proxlearn.mkl.simple_mkl`, warm
from the previous weights), search the family for the most violating kernel,
add it, repeat (Gehler & Nowozin's Algorithm 1, with SimpleMKL in place of
their inner solver: the problem is convex, so any MKL solver reaches the same
optimum, digest ``zhuang2011-thesis-ch4-8.md`` 1.6).

Family (our reading; the thesis gives none): Gaussian kernels
``exp(-||z - z'||^2 / (2 sigma^2))`` on all standardised features and, with
``per_feature=True``, on each single feature (Gehler & Nowozin's kernels are
parameterised by width and feature subset), each scaled as the bank's
Gaussians (``gaussian_scale_``: 1 by default, ``1 / n`` for the thesis's unit
trace). For each feature set
``sigma`` is searched as in :class:`~proxlearn.mkl.TwoLayerMKLInf` (41-point log
grid on ``[2^-5, 2^8]`` plus a bounded refinement): the violation test is
exact for the kernels searched, and the search is local, so "no violator" is
certified on the grid, not over every ``sigma``. Start: the bank's kernels
(default ``KernelBank(per_feature=False)``: 10 Gaussian widths and 3
polynomial degrees on all features, the start of 2LMKL-Inf).
"""

from __future__ import annotations

import numpy as np

from .._validation import integer, positive, unchecked
from ._bank import stack_quad
from ._solvers import simple_mkl
from ._classifiers import MKL_CONSTRAINTS, mkl_constraints
from ._two_layer import _AddedGaussians, _gauss, _sq_dists, best_gaussian, pair_profile

__all__ = ["IKL"]


class IKL(_AddedGaussians):
    """Infinite kernel learning: convex MKL over Gaussian kernels of any width, on
    all features or on one, by column generation (Gehler & Nowozin 2008).

    Features in (``fit(X, y)`` with ``X`` of shape ``(n, d)``): the new kernels
    are computed from them. Binary problems directly; several classes one
    versus one, each pair with its own kernels. See the module docstring.

    Parameters
    ----------
    C : float, default=1.0
        SVM regularisation.
    bank : KernelBank or None, default=None
        The starting kernels; ``None``: ``KernelBank(per_feature=False)``.
    per_feature : bool, default=True
        Search Gaussians on each single feature too (``False``: all features only).
    max_kernels : int, default=20
        Most kernels added per pair of classes.
    tol : float, default=1e-3
        A kernel is added when ``a_theta > (1 + tol) max_t a_t``.
    mkl_tol : float, default=1e-4
        Certified relative gap of each inner SimpleMKL solve.
    max_iter : int, default=1000
        Iterations of each inner SimpleMKL solve (why 1000: docs/benchmarks.md,
        "MKL reference notes").

    Attributes
    ----------
    added_widths_, added_features_ : list (per pair of classes for several classes)
        ``sigma`` and feature (``None``: all features) of each added Gaussian, in order.
    weights_ : ndarray (per pair)
        Simplex weights of the bank's kernels followed by the added ones.
    objective_history_ : list
        The MKL objective (SVM dual value of the combined kernel) after each
        round: non-increasing up to ``mkl_tol``, since each round enlarges the set.
    objective_, coef_, intercept_, classes_, bank_, n_kernels_, n_iter_
        (``n_iter_``: SimpleMKL iterations, summed).

    References
    ----------
    P. Gehler and S. Nowozin, "Infinite kernel learning", NIPS workshop on
    kernel learning, 2008; Zhuang (2011) Table 4.2, column IKL.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from proxlearn.mkl import IKL
    >>> X, y = load_iris(return_X_y=True)
    >>> clf = IKL(max_kernels=2).fit(X[:100], y[:100])
    >>> clf.added_features_, clf.score(X[:100], y[:100])
    ([2, 3], 1.0)

    See Also
    --------
    SimpleMKL : the inner convex MKL, on a fixed set of kernels.
    TwoLayerMKLInf : Gaussians added to a two-layer MKL.
    KernelBank : the starting kernels.
    """

    def __init__(self, C=1.0, *, bank=None, per_feature=True, max_kernels=20, tol=1e-3,
                 mkl_tol=1e-4, max_iter=1000):
        self.C = C
        self.bank = bank
        self.per_feature = per_feature
        self.max_kernels = max_kernels
        self.tol = tol
        self.mkl_tol = mkl_tol
        self.max_iter = max_iter

    @staticmethod
    def _decision(A, u):
        return A @ u

    _parameter_constraints = mkl_constraints(
        "C", "tol", "max_iter", bank=MKL_CONSTRAINTS["feature_bank"], mkl_tol=positive(),
        max_kernels=integer(0),
        per_feature=unchecked("read as a truth value"))

    def _solve(self, Ks, y_pm, idx=None):
        Z = self.bank_.Z_ if idx is None else self.bank_.Z_[idx]
        D2_all = self._D2 if idx is None else self._D2[np.ix_(idx, idx)]
        gscale = self.bank_.gaussian_scale_
        families = [None]
        if self.per_feature:  # features constant on these samples give constant kernels
            families += [j for j in range(Z.shape[1]) if np.ptp(Z[:, j]) > 0]
        solve = dict(tol=self.mkl_tol, max_iter=self.max_iter)
        res = simple_mkl(Ks, y_pm, self.C, **solve)
        history, steps = [res.objective], res.n_iter
        widths, features = [], []
        for _ in range(int(self.max_kernels)):
            u = res.alpha * y_pm
            sv = np.flatnonzero(u)
            if sv.size == 0:
                break
            current = float(np.max(stack_quad(Ks, u)))
            U = np.outer(u[sv], u[sv])
            best = (-np.inf, None, None)
            for f in families:
                d, c = pair_profile(U, D2_all[np.ix_(sv, sv)] if f is None
                                    else _sq_dists(Z[sv], Z[sv], f))
                s_b, a_b = best_gaussian(lambda s, d=d, c=c: c @ _gauss(d, s, gscale))
                if a_b > best[0]:
                    best = (a_b, f, s_b)
            a_b, f, s_b = best
            if a_b <= current * (1.0 + self.tol):
                break
            D2 = D2_all if f is None else _sq_dists(Z, Z, f)
            Ks = np.concatenate([Ks, _gauss(D2, s_b, gscale)[:, :, None]], axis=2)
            widths.append(s_b)
            features.append(f)
            res = simple_mkl(Ks, y_pm, self.C, alpha0=res.alpha,
                             d0=np.append(res.kernel_weights, 0.0), **solve)
            history.append(res.objective)
            steps += res.n_iter
        res.history = [{"objective": v} for v in history]
        res.widths, res.features, res.n_iter = widths, features, steps
        return res
