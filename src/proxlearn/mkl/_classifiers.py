"""MKL classifiers on several similarity matrices over the same objects, or on features.

``fit(X, y)`` with ``X`` of shape ``(n, n, m)`` (:mod:`._input`), ``predict``
with ``(n_test, n_train, m)``; or, with ``bank=KernelBank(...)``, ``X`` is a
feature matrix ``(n, d)`` and the base kernels are the bank's (built inside
``fit``, test kernels from test features; the estimator is then not pairwise).
Each similarity matrix is first made a kernel
by a spectrum modification (``spectrum="clip"`` by default, the "denoised"
kernels Kundu et al. 2010 give SimpleMKL in their Table 3; ``None`` uses the
matrices as given and requires PSD kernels: each matrix for :class:`NonSparseMKL`,
whose certificate needs every kernel PSD; the learned combination for
:class:`SimpleMKL` and :class:`LpMKL`, which certifies their answer; the one
combination the SVM is given for :class:`AverageKernelSVC` and :class:`KTASVC`;
each tested by a Cholesky factorisation, :func:`proxlearn._multi_input.psd_violation`),
with the consistent test map of
:class:`proxlearn.transforms.SpectrumTransformer`. Several classes: one
versus one, each pair with its own kernel weights (as libsvm trains pairs).
"""

from __future__ import annotations

import numbers

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.utils.validation import check_is_fitted

from .._validation import (
    InvalidParameterError,
    LabelError,
    SimilarityMatrixError,
    boolean,
    check_labels,
    integer,
    options,
    positive,
    satisfies,
    validate_params,
)
from .._multi_input import (
    check_multi_similarity,
    check_multi_test,
    check_psd_stack,
    psd_violation,
    psd_violations,
)
from .._scale import similarity_scale
from ..base import PairwiseMixin
from .._svm._multiclass import ovo_decision, ovo_fit, ovo_labels, ovo_problems, scatter_pairs
from ..transforms import SpectrumTransformer
from ._bank import stack_combine, stack_take
from ._solvers import (
    SIMPLE_MKL_SOLVERS,
    MKLResult,
    lp_mkl,
    nonsparse_mkl,
    shared_mkl,
    simple_mkl,
    uniform_mkl,
)

__all__ = ["AverageKernelSVC", "KTASVC", "LpMKL", "NonSparseMKL", "SimpleMKL"]

SPECTRA = {"clip", "flip", "shift", "square"}

def _is_bank(b):
    return b is None or (hasattr(b, "fit") and hasattr(b, "stack"))


#: The entries shared by the MKL classifiers' parameter tables (each class lists
#: those it has: ``{k: MKL_CONSTRAINTS[k] for k in (...)}``).
MKL_CONSTRAINTS = {
    "C": positive(),
    "normalize": boolean("True divides each matrix of the stack (and its test rows) by its "
                         "training scale tr K / n."),
    "spectrum": options(*sorted(SPECTRA), None),
    "tol": positive(),
    "max_iter": integer(1),
    "bank": satisfies(_is_bank, "a proxlearn.mkl.KernelBank (or None for precomputed kernels)"),
    # TwoLayerMKLInf and IKL: features only
    "feature_bank": satisfies(_is_bank, "a proxlearn.mkl.KernelBank (or None for "
                              "KernelBank(per_feature=False))"),
    "multiclass": options("per-pair", "shared"),
    # as proxlearn._progress.check_verbose, which IterationLog applies again
    "verbose": satisfies(lambda v: isinstance(v, bool) or (
        isinstance(v, numbers.Integral) and v >= 0), "False/True or an integer >= 0"),
}


def mkl_constraints(*names, **extra):
    """A parameter table: the shared entries ``names`` of :data:`MKL_CONSTRAINTS`
    (in that order), then the class's own ``extra`` ones."""
    return {**{k: MKL_CONSTRAINTS[k] for k in names}, **extra}

_NOT_PSD_HINT = (" but spectrum=None uses the matrices as kernels. Use spectrum='clip' "
                 "(or 'flip', 'shift', 'square') for indefinite similarities.")


class _MKLKernels:
    """The base kernels of the MKL estimators, shared by the classifiers
    (:class:`_BaseMKL`) and the regressors and one-class models of
    :mod:`proxlearn.mkl._regression`: a validated ``(n, n, m)`` stack made kernels
    by ``spectrum`` and divided by its ``scales_`` (``normalize``), or a bank's
    stack (``bank``), and the same map for test rows (module docstring)."""

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.pairwise = getattr(self, "bank", None) is None
        tags.input_tags.sparse = not tags.input_tags.pairwise  # features: densified
        return tags

    def _rows_of(self):
        """What the training rows are, for error messages."""
        return "the similarity stack" if self.__sklearn_tags__().input_tags.pairwise else "X"

    #: With ``spectrum=None``, which matrices must be PSD: ``"each"`` (every matrix,
    #: ``m`` factorisations before the solver: :class:`NonSparseMKL`, whose problem
    #: is concave in ``alpha``, and its certificate valid, only with PSD members),
    #: ``"combined"`` (the one fixed combination the SVM uses, before the SVM:
    #: :class:`AverageKernelSVC`, :class:`KTASVC`; :meth:`_check_combined`) or
    #: ``"learned"`` (the learned combination ``K_d* = sum_k d*_k K_k``, after the
    #: solver: :class:`SimpleMKL`, :class:`LpMKL`; :meth:`_check_learned`). The last
    #: two cost one factorisation per pair of classes instead of ``m``.
    _psd = "each"

    def _solve(self, Ks, y_pm):  # pragma: no cover - abstract
        raise NotImplementedError

    def _checks_combination(self, kind):
        """Whether ``spectrum=None`` on a precomputed stack makes this estimator test
        a combination of the matrices (``_psd == kind``)."""
        return self._psd == kind and getattr(self, "bank", None) is None \
            and self.spectrum is None

    def _check_combined(self, K, what):
        """With ``spectrum=None`` on a stack (``_psd = "combined"``): raise when the
        kernel ``K`` the SVM is given, ``what`` of the matrices, is not PSD."""
        if not self._checks_combination("combined"):
            return
        lam_min = psd_violation(K)
        if lam_min is not None:
            raise SimilarityMatrixError(
                f"X: {what} is not positive semidefinite (smallest eigenvalue "
                f"{lam_min:.3g}){_NOT_PSD_HINT}")

    def _check_learned(self, Ks, Kp, res, pair):
        """With ``spectrum=None`` on a stack (``_psd = "learned"``): certify the
        solution ``res`` on the pair's kernels ``Kp``, or raise.

        ``J(d) = omega(K_d)`` is convex in ``d`` whatever the kernels (a maximum of
        functions affine in ``d``), and the solvers' dual value ``1^T alpha - 1/2
        max_k a_k`` (Lp: ``||max(a, 0)||_q``) bounds ``min_d J`` from below for any
        feasible ``alpha`` (weak duality, no PSD assumption). The SVM value at the
        returned ``d*`` is ``J(d*)`` when the SVM's problem is concave, i.e. when
        ``K_d*`` is PSD: then the gap certifies ``d*`` even if some member ``Ks[:, :, k]``
        is indefinite, and one factorisation of ``K_d*`` replaces ``m``. Otherwise the
        error names the members that are not PSD (``Ks``: the whole training stack)."""
        if not self._checks_combination("learned"):
            return
        lam_min = psd_violation(stack_combine(Kp, res.kernel_weights))
        rel_gap = res.gap / max(abs(res.objective), 1e-12)
        if lam_min is None and rel_gap <= self.tol:
            return  # certified
        # the members' eigenvalues in the units of X (Ks holds X[:, :, k] / scales_[k])
        bad = [(k, lam * self.scales_[k]) for k, lam in psd_violations(Ks)]
        if lam_min is None and not bad:
            return  # PSD members, not converged: the solver warned (ConvergenceWarning)
        members = ", ".join(f"X[:, :, {k}] (smallest eigenvalue {lam:.3g})" for k, lam in bad) \
            if bad else "none of the matrices alone (their combination's rounding)"
        weights = np.array2string(np.asarray(res.kernel_weights), precision=3)
        of_pair = "" if pair is None else f" of classes {pair[0]} vs {pair[1]}"
        kernel = "X[:, :, k]" if self._kernel_div is None else "X[:, :, k] / scales_[k]"
        what = f"the learned combination sum_k d_k {kernel}{of_pair} (d = {weights})"
        if lam_min is None:  # PSD, but an indefinite member may leave a duality gap
            raise SimilarityMatrixError(
                f"X: the solver stopped at a relative gap {rel_gap:.3g} > tol = {self.tol:g} "
                f"on {what}; with matrices that are not positive semidefinite ({members}) "
                "the problem need not have a zero duality gap, so the answer cannot be "
                f"certified,{_NOT_PSD_HINT}")
        raise SimilarityMatrixError(
            f"X: {what} is not positive semidefinite (smallest eigenvalue {lam_min:.3g}), "
            f"so its SVM value and the duality gap certify nothing; not positive "
            f"semidefinite: {members},{_NOT_PSD_HINT}")

    def _combine_test(self, T, res):
        """The combined kernel of one pair's solution on test rows ``T`` (a stack)."""
        return stack_combine(T, res.kernel_weights)

    def _kernels(self, X):
        if getattr(self, "bank", None) is not None:  # checked by the table (bank)
            self.bank_ = clone(self.bank).fit(X)
            self.spectra_ = []
            Ks = self.bank_.stack()
            self._set_scales(None, Ks.shape[2])  # the bank's own normalize scales it
            return Ks
        # validated once, in place: the stack itself when nothing must change
        return self._checked_kernels(check_multi_similarity(X, symmetric="symmetrize",
                                                            copy=False))

    def _checked_kernels(self, Ks):
        """:meth:`_kernels` of a validated stack ``Ks`` (or of a fold of one:
        :func:`proxlearn.mkl._cv.grid_scores`)."""
        self.spectra_ = []
        if self.spectrum is None:
            if self._psd == "each":
                check_psd_stack(Ks, hint=_NOT_PSD_HINT)
            div = self._set_scales(Ks, Ks.shape[2])
            return Ks if div is None else Ks / div  # never in place: Ks may be the input
        out = np.empty_like(Ks)  # the input's layout (kernel-major stays kernel-major)
        for k in range(Ks.shape[2]):
            st = SpectrumTransformer(self.spectrum)
            # each matrix was checked (and warned about) above: fit on it directly
            # (passing the stack as the original makes the transformer copy its view)
            out[:, :, k] = st._fit_checked(Ks[:, :, k], Ks)._training_kernel()
            self.spectra_.append(st)
        div = self._set_scales(out, Ks.shape[2])
        if div is not None:
            out /= div
        return out

    def _set_scales(self, Ks, m):
        """Set ``scales_`` (the training scale ``tr K_k / n`` of each kernel ``Ks``
        the solver would see; ones when ``normalize=False`` or ``Ks`` is ``None``,
        a bank's stack) and return the divisor of the stack, ``None`` when all
        scales are 1 (unit-diagonal similarities: nothing to divide)."""
        scale_free = Ks is not None and bool(getattr(self, "normalize", False))
        # an all-zero kernel (e.g. the clip of a negative semidefinite similarity)
        # has no scale and adds nothing: it stays 0, as in KernelBank
        self.scales_ = np.array([
            similarity_scale(Ks[:, :, k], name=f"X[:, :, {k}]") if np.any(Ks[:, :, k]) else 1.0
            for k in range(m)]) if scale_free else np.ones(m)
        self._kernel_div = None if np.all(self.scales_ == 1.0) else self.scales_
        return self._kernel_div

    def _test_kernels(self, X_test):
        check_is_fitted(self, "coef_")
        if getattr(self, "bank", None) is not None:
            return self.bank_.stack(X_test)
        return self._checked_test_kernels(
            check_multi_test(X_test, self.n_features_in_, self.n_kernels_, copy=False))

    def _checked_test_kernels(self, T):
        """:meth:`_test_kernels` of validated test rows ``T`` (or of a fold's): the
        hook from test rows to test kernels (class docstring)."""
        if self.spectra_:
            T = np.stack([st._transform_checked(np.ascontiguousarray(T[:, :, k]), T)
                          for k, st in enumerate(self.spectra_)], axis=-1)  # T is checked
        div = getattr(self, "_kernel_div", None)  # set with scales_ by _set_scales only
        if div is not None:
            T = T / div
        return T

    def grid_predictions(self, X, y, X_test, params_list):
        """Predictions of ``X_test`` (class labels, targets) for every parameter set of
        ``params_list``, fitted on ``X, y``.

        One call for a whole grid (the grid-path protocol, docs/architecture.md).
        Entry ``i`` equals ``clone(self).set_params(**params_list[i]).fit(X, y).predict(X_test)``
        (tested). With a ``bank``, the bank is fitted and its training and test stacks
        are built once for the whole grid (the 793 kernels of Splice's 400 rows take
        seconds); ``params_list`` must then not change the bank. Without one, each
        point is fitted in turn.

        Parameters
        ----------
        X : array-like
            Features (with a ``bank``) or an ``(n, n, m)`` stack.
        y : array-like of shape (n,)
        X_test : array-like
            Test features, or the ``(n_test, n, m)`` test stack.
        params_list : list of dict

        Returns
        -------
        list of ndarray of shape (n_test,)
        """
        if getattr(self, "bank", None) is None:
            return [clone(self).set_params(**p).fit(X, y).predict(X_test) for p in params_list]
        if any("bank" in p or any(k.startswith("bank__") for k in p) for p in params_list):
            raise InvalidParameterError(
                "grid_predictions builds the bank once for the whole grid: the grid must "
                "not change the bank; fit one estimator per bank instead.")
        bank_ = clone(self.bank).fit(X)
        Ks, T = bank_.stack(), bank_.stack(X_test)
        return [clone(self).set_params(**p)._grid_point(bank_, Ks, y, T) for p in params_list]

    def _use_prebuilt(self, bank_, Ks):
        """Validate the parameters and take ``bank_`` (a bank fitted on the training
        features) and its stack ``Ks`` as ``fit`` would build them."""
        validate_params(self)
        self.bank_, self.spectra_ = bank_, []
        self._set_scales(None, Ks.shape[2])


class _BaseMKL(_MKLKernels, PairwiseMixin, ClassifierMixin, BaseEstimator):
    """Shared fit / predict of the MKL classifiers (see the module docstring).

    ``predict`` and ``decision_function`` go through two hooks, which a subclass
    with another decision overrides: :meth:`_checked_test_kernels` (validated test
    rows to the test kernels the decision reads: here each matrix's spectrum
    transform and scale, as in training) and :meth:`_raw_stack` (those kernels to
    the one-vs-one decision values: here each pair's learned combination times its
    dual coefficients). The entropic kernel learners (ESKL, EMKL, REKL) keep a
    decision linear in the raw test rows and override both.
    """

    def fit(self, X, y):
        """Learn kernel weights and the SVM.

        Parameters
        ----------
        X : array-like of shape (n, n, m) or (n, n)
            ``m`` similarity matrices over the ``n`` training samples, stacked
            on the last axis.
        y : array-like of shape (n,)
        """
        validate_params(self)
        return self._fit_stack(self._kernels(X), y)

    def _fit_prebuilt(self, bank_, Ks, y):
        """``fit(X, y)`` of an estimator with a ``bank``, given ``bank_`` (its bank
        fitted on ``X``) and ``Ks = bank_.stack()``: what ``fit`` computes first, so
        that the study's fold evaluators build them once per fold for a whole grid."""
        self._use_prebuilt(bank_, Ks)
        return self._fit_stack(Ks, y)

    def _grid_point(self, bank_, Ks, y, T):
        """One entry of :meth:`grid_predictions`: fitted on the bank's stack ``Ks``,
        the labels of its test stack ``T``."""
        est = self._fit_prebuilt(bank_, Ks, y)
        return est._labels(est._raw_stack(T))

    def _fit_stack(self, Ks, y):
        """The fit on the training kernels ``Ks`` (an ``(n, n, m)`` stack, dense or lazy)."""
        n, _, m = Ks.shape
        classes, y_idx = check_labels(y, n, rows_of=self._rows_of())
        self._uw = []
        if classes.dtype.kind == "f" and np.any(classes != np.round(classes)):
            raise LabelError("Unknown label type: continuous. Pass class labels.")
        binary = len(classes) == 2

        def fit_binary(p):
            Kp = stack_take(Ks, p.idx, p.idx)
            res = self._solve(Kp, p.y)
            self._check_learned(Ks, Kp, res, None if binary else
                                tuple(classes[list(p.pair)].tolist()))
            return res

        shared = getattr(self, "multiclass", "per-pair") == "shared" and not binary
        if shared:
            problems, results = self._fit_shared(Ks, y_idx, len(classes))
        else:
            self.__dict__.pop("result_", None)  # of an earlier shared fit
            problems, results = ovo_fit(y_idx, len(classes), fit_binary)
        self.coef_ = scatter_pairs(problems, [(r.alpha * p.y)[:, None] * r.kernel_weights[None, :]
                                              for p, r in zip(problems, results)], n)
        self._uw = list(scatter_pairs(problems, [r.alpha * p.y for p, r in
                                                 zip(problems, results)], n))
        self.intercept_ = np.array([r.b for r in results], dtype=np.float64)
        weights = [r.weights for r in results]
        objective = [r.objective for r in results]
        gaps = [r.gap for r in results]
        n_iter = [r.n_iter for r in results]
        self.classes_ = classes
        self.n_features_in_ = self.bank_.n_features_in_ if getattr(self, "bank", None) \
            is not None else n
        self.n_train_ = n
        self.n_kernels_ = m
        self.weights_ = weights[0] if binary else np.array(weights)
        self.objective_ = objective[0] if binary else np.array(objective)
        self.gap_ = gaps[0] if binary else np.array(gaps)
        self.n_iter_ = n_iter[0] if binary else np.array(n_iter)
        self.results_ = results
        if shared:  # one weight vector, one objective and gap
            res = self.result_
            self.weights_, self.objective_, self.gap_, self.n_iter_ = (
                res.weights, res.objective, res.gap, res.n_iter)
        return self

    def _fit_shared(self, Ks, y_idx, n_classes):
        """``multiclass="shared"``: one weight vector for all pairs of classes
        (:func:`proxlearn.mkl._solvers.shared_mkl`); the pairs' results share its
        weights, objective and gap, and ``result_`` is the shared problem's."""
        problems = ovo_problems(y_idx, n_classes)
        res = self.result_ = self._solve_shared(Ks, problems)
        # K_d PSD on all samples makes every pair's block PSD: one test certifies all
        self._check_learned(Ks, Ks, res, None)
        return problems, [MKLResult(res.weights, res.kernel_weights, alpha, b, res.objective,
                                    res.gap, res.n_iter, res.history)
                          for alpha, b in zip(res.alpha, res.b)]

    def _raw(self, X_test):
        return self._raw_stack(self._test_kernels(X_test))

    def _raw_stack(self, T):
        """One-vs-one decision values on the test kernels ``T`` (``(n_test, n_train, m)``):
        the hook from test kernels to decision values (class docstring)."""
        raw = np.tile(self.intercept_, (T.shape[0], 1))
        rows = np.arange(T.shape[0])
        shared = getattr(self, "result_", None)
        if shared is not None:  # one weight vector: combine the test kernels once
            U = np.array(self._uw)
            sv = np.flatnonzero(np.any(U != 0.0, axis=0))
            T_sv = T[:, sv] if isinstance(T, np.ndarray) else stack_take(T, rows, sv)
            return raw + stack_combine(T_sv, shared.kernel_weights) @ U[:, sv].T
        for k, (u, res) in enumerate(zip(self._uw, self.results_)):
            sv = np.flatnonzero(u)  # only the support vectors' columns are needed
            if not sv.size:
                continue
            if isinstance(T, np.ndarray):  # one gemv on the whole stack, no sub-stack copy
                raw[:, k] += self._combine_test(T, res)[:, sv] @ u[sv]
            else:  # lazy: compute the support vectors' columns only
                raw[:, k] += self._combine_test(stack_take(T, rows, sv), res) @ u[sv]
        return raw

    def decision_function(self, X_test):
        """Decision values for ``(n_test, n_train, m)`` test rows.

        Binary: ``(n_test,)``, positive for ``classes_[1]``; several classes:
        ``(n_test, n_classes)`` one-vs-one votes with a tie-breaking term.
        """
        return ovo_decision(self._raw(X_test), len(self.classes_))

    def predict(self, X_test):
        """Class labels for ``(n_test, n_train, m)`` test rows."""
        return self._labels(self._raw(X_test))

    def _labels(self, raw):
        """Class labels from one-vs-one decision values."""
        return ovo_labels(raw, self.classes_)


_SPECTRUM_LEARNED = """ The learned combination
        ``sum_k d_k K_k`` must be positive semidefinite (one Cholesky test after
        the solver; a member may be indefinite): the duality gap then certifies
        the weights. Else, or when the gap stays above ``tol`` with an indefinite
        member, ``fit`` raises :class:`SimilarityMatrixError` naming the matrices
        that are not PSD (use ``"clip"``; docs/methods.md, MKL section)."""
_SPECTRUM_EACH = """ Every matrix must be positive
        semidefinite (one Cholesky test each): the certificate of the method
        needs each kernel PSD."""

_PARAMS_DOC = """
    C : float, default=1.0
        SVM regularisation, not tuned: the best ``C`` on a ``KernelBank``'s
        combination ranged from 1 to 100 over the UCI sets;
        :class:`~proxlearn.mkl.MKLClassifierCV` chooses it (docs/methods.md).
    spectrum : {"clip", "flip", "shift", "square"} or None, default="clip"
        How each similarity matrix becomes a kernel (consistent test map);
        ``None``: used as given.""" + _SPECTRUM_LEARNED + """
    tol : float, default=1e-4
        Relative gap of the certificate at which the solver stops.
    max_iter : int, default=200
    bank : KernelBank or None, default=None
        ``None``: ``X`` is an ``(n, n, m)`` stack of similarities (pairwise
        input). A :class:`proxlearn.mkl.KernelBank`: ``X`` is a feature matrix
        ``(n, d)``, the base kernels are the bank's (already PSD: ``spectrum``
        is not applied) and the estimator is not pairwise.
    normalize : bool, default=True
        Divide each matrix of a stack (after ``spectrum``), and its test rows,
        by its training scale ``tr K_k / n`` (:func:`proxlearn._scale.similarity_scale`;
        ``scales_``), so that scaling any matrix by a positive constant changes
        no prediction and ``C`` is relative to kernels of unit mean diagonal
        (ours). Unit-diagonal similarities and all-zero kernels are unchanged.
        ``False``: the matrices as given (the papers). With a ``bank`` the
        bank's own ``normalize`` scales the kernels and this is not applied.
    """

_MULTICLASS_DOC = """multiclass : {"per-pair", "shared"}, default="per-pair"
        Several classes are learned one versus one. ``"per-pair"``: each pair
        of classes its own kernel weights (as libsvm trains pairs).
        ``"shared"``: one weight vector for all pairs, minimising the sum of
        the pairwise objectives (Rakotomamonjy et al. 2008, multiclass section;
        :func:`proxlearn.mkl._solvers.shared_mkl`, one certified gap);
        ``weights_``, ``objective_``, ``gap_``, ``n_iter_`` are then the shared
        problem's and ``result_`` its :class:`MKLResult`. Two classes: the
        same model either way. The default and the comparison:
        docs/benchmarks.md, "Multiclass MKL: shared or per-pair weights".
"""

_ATTRS_DOC = """
    Attributes
    ----------
    weights_ : ndarray of shape (m,) or (n_pairs, m)
        The method's kernel weights (per pair of classes for several classes).
    coef_ : ndarray of shape (n_pairs, n_train, m)
        ``alpha_i y_i`` times the weight of each kernel in the combination.
    intercept_, objective_, gap_ (certified), n_iter_, classes_, n_kernels_,
    n_features_in_, results_ (one :class:`MKLResult` per pair), spectra_.
    scales_ : ndarray of shape (m,)
        The divisor of each matrix (``normalize``; ones with a ``bank``).
    """


class _IterativeMKL(_BaseMKL):
    """The parameters shared by :class:`SimpleMKL` and :class:`NonSparseMKL`."""

    def __init__(self, C=1.0, *, spectrum="clip", tol=1e-4, max_iter=200, bank=None,
                 normalize=True):
        self.C = C
        self.spectrum = spectrum
        self.tol = tol
        self.max_iter = max_iter
        self.bank = bank
        self.normalize = normalize


class SimpleMKL(_IterativeMKL):
    __doc__ = """Convex MKL, ``min_{d in simplex} omega(sum_k d_k K_k)`` (SimpleMKL).

    The problem of Rakotomamonjy, Bach, Canu & Grandvalet (JMLR 2008), solved
    by a spectral projected gradient on the simplex (default) or by their
    reduced gradient with an Armijo line search; either stops at a certified
    duality gap (:func:`proxlearn.mkl.simple_mkl`). The baseline of Kundu et
    al. 2010, Table 3 (on clipped similarities), and Zhuang 2011's convex MKL.

    Parameters
    ----------""" + _PARAMS_DOC + """solver : {"spg", "reduced-gradient"}, default="spg"
        ``"spg"``: spectral projected gradient (Birgin, Martinez & Raydan 2000),
        which zeroes many weights per step; ``"reduced-gradient"``: SimpleMKL's
        own algorithm, which zeroes one weight per step (slow with hundreds of
        kernels: docs/benchmarks.md). Same optimum, each with a certified gap.
    """ + _MULTICLASS_DOC + _ATTRS_DOC + """
    Examples
    --------
    >>> import numpy as np
    >>> from proxlearn.mkl import SimpleMKL
    >>> x = np.random.default_rng(0).normal(size=(40, 2))
    >>> S = np.exp(-(x[:, None, :] - x[None, :, :]) ** 2)  # (40, 40, 2): a kernel per feature
    >>> y = (x[:, 0] > 0).astype(int)
    >>> clf = SimpleMKL().fit(S, y)
    >>> np.round(clf.weights_, 2).tolist(), clf.score(S, y)
    ([1.0, 0.0], 0.975)

    See Also
    --------
    LpMKL : the Lp-norm weights (``p = 1`` is this problem).
    MKLClassifierCV : ``C`` chosen by cross-validation.
    simple_mkl : the solver, on a kernel stack and labels in {-1, +1}.
    AverageKernelSVC : the uniform-combination baseline.
    """

    _psd = "learned"

    def __init__(self, C=1.0, *, spectrum="clip", tol=1e-4, max_iter=200, bank=None,
                 normalize=True, solver="spg", multiclass="per-pair"):
        super().__init__(C, spectrum=spectrum, tol=tol, max_iter=max_iter, bank=bank,
                         normalize=normalize)
        self.solver = solver
        self.multiclass = multiclass

    _parameter_constraints = mkl_constraints(
        "C", "normalize", "spectrum", "tol", "max_iter", "bank", "multiclass",
        solver=options(*SIMPLE_MKL_SOLVERS))

    def _solve(self, Ks, y_pm):
        return simple_mkl(Ks, y_pm, self.C, tol=self.tol, max_iter=self.max_iter,
                          solver=self.solver)

    def _solve_shared(self, Ks, problems):
        return shared_mkl(Ks, problems, self.C, 1.0, tol=self.tol, max_iter=self.max_iter,
                          solver=self.solver)


class LpMKL(_BaseMKL):
    __doc__ = """Lp-norm MKL, ``min_{d >= 0, ||d||_p <= 1} omega(sum_k d_k K_k)``.

    Kloft, Brefeld, Sonnenburg & Zien (JMLR 2011), the closed-form weight
    update alternated with the SVM; ``p = 1`` is :class:`SimpleMKL`'s problem
    (solved by it).

    Parameters
    ----------
    p : float >= 1, default=2.0""" + _PARAMS_DOC + _MULTICLASS_DOC + _ATTRS_DOC + """
    Examples
    --------
    >>> import numpy as np
    >>> from proxlearn.mkl import LpMKL
    >>> x = np.random.default_rng(0).normal(size=(40, 2))
    >>> S = np.exp(-(x[:, None, :] - x[None, :, :]) ** 2)  # (40, 40, 2): a kernel per feature
    >>> y = (x[:, 0] > 0).astype(int)
    >>> clf = LpMKL().fit(S, y)
    >>> np.round(clf.weights_, 2).tolist(), clf.score(S, y)
    ([0.99, 0.16], 0.975)

    See Also
    --------
    SimpleMKL : the sparse ``p = 1`` problem.
    lp_mkl : the solver, on a kernel stack and labels in {-1, +1}.
    MKLClassifierCV : ``C`` (and ``p``) chosen by cross-validation.
    """

    _psd = "learned"

    def __init__(self, p=2.0, C=1.0, *, spectrum="clip", tol=1e-4, max_iter=200, bank=None,
                 normalize=True, multiclass="per-pair"):
        self.p = p
        self.C = C
        self.spectrum = spectrum
        self.tol = tol
        self.max_iter = max_iter
        self.bank = bank
        self.normalize = normalize
        self.multiclass = multiclass

    _parameter_constraints = {
        "p": satisfies(lambda p: isinstance(p, numbers.Real) and np.isfinite(p) and p >= 1,
                       "a finite number >= 1"),
        **mkl_constraints("C", "normalize", "spectrum", "tol", "max_iter", "bank",
                          "multiclass")}

    def _solve(self, Ks, y_pm):
        if self.p == 1:
            return simple_mkl(Ks, y_pm, self.C, tol=self.tol, max_iter=self.max_iter)
        return lp_mkl(Ks, y_pm, self.C, self.p, tol=self.tol, max_iter=self.max_iter)

    def _solve_shared(self, Ks, problems):
        return shared_mkl(Ks, problems, self.C, self.p, tol=self.tol, max_iter=self.max_iter)


class NonSparseMKL(_IterativeMKL):
    __doc__ = """The non-sparse MKL of Kundu et al. (2010) eq. 10 (Saketha Nath et al. 2009).

    ``max_{gamma in Delta} max_alpha 1^T alpha - 1/2 alpha^T Y (sum_k K_k / gamma_k) Y alpha``,
    solved by block ascent: an SVM on ``sum_k K_k / gamma_k``, then the closed
    form ``gamma_k = sqrt(a_k) / sum_j sqrt(a_j)`` (digest 2.2); certified by
    a Frank-Wolfe upper bound (:func:`proxlearn.mkl.nonsparse_mkl`). It is the
    MKL that EMKL and REKL call; ``weights_`` are the ``gamma``, the combined
    kernel is ``sum_k K_k / gamma_k``.

    Parameters
    ----------""" + _PARAMS_DOC.replace(_SPECTRUM_LEARNED, _SPECTRUM_EACH) + _ATTRS_DOC + """
    Examples
    --------
    >>> import numpy as np
    >>> from proxlearn.mkl import NonSparseMKL
    >>> x = np.random.default_rng(0).normal(size=(40, 2))
    >>> S = np.exp(-(x[:, None, :] - x[None, :, :]) ** 2)  # (40, 40, 2): a kernel per feature
    >>> y = (x[:, 0] > 0).astype(int)
    >>> clf = NonSparseMKL().fit(S, y)
    >>> np.round(clf.weights_, 2).tolist(), clf.score(S, y)
    ([0.99, 0.01], 1.0)

    See Also
    --------
    nonsparse_mkl : the solver, on a kernel stack and labels in {-1, +1}.
    SimpleMKL : the convex (sparse) MKL.
    EMKL : the entropic kernel learner that calls this MKL.
    """

    # spectrum=None checks every matrix (_psd = "each", m factorisations), not only
    # the learned combination as SimpleMKL / LpMKL do: the problem is
    # max_alpha 1^T alpha - 1/2 (sum_k sqrt(a_k))^2, concave in alpha (and its
    # Frank-Wolfe upper bound valid) only when every sqrt(a_k) = ||K_k^{1/2} u|| is a
    # seminorm of u, i.e. every K_k is PSD; an indefinite member makes a_k < 0
    # possible (its sqrt undefined) and the certificate meaningless.

    _parameter_constraints = mkl_constraints(
        "C", "normalize", "spectrum", "tol", "max_iter", "bank")

    def _solve(self, Ks, y_pm):
        return nonsparse_mkl(Ks, y_pm, self.C, tol=self.tol, max_iter=self.max_iter)


class AverageKernelSVC(_BaseMKL):
    __doc__ = """An SVM on the average of the kernels (the uniform-combination baseline).

    Parameters
    ----------
    C : float, default=1.0
        SVM regularisation, not tuned: the best ``C`` on a ``KernelBank``'s
        combination ranged from 1 to 100 over the UCI sets;
        :class:`~proxlearn.mkl.MKLClassifierCV` chooses it (docs/methods.md).
    spectrum : {"clip", "flip", "shift", "square"} or None, default="clip"
        ``None``: the matrices as given; their average (of the matrices over
        their ``scales_``) must be PSD (the one kernel the SVM uses; a member
        may be indefinite).
    bank : KernelBank or None, default=None
        ``None``: ``X`` is an ``(n, n, m)`` stack. A :class:`KernelBank`:
        ``X`` is features and the base kernels are the bank's.
    normalize : bool, default=True
        Divide each matrix of a stack and its test rows by its training scale
        ``tr K_k / n`` (``scales_``; see :class:`SimpleMKL`). ``False``: as given.
    """ + _ATTRS_DOC + """
    Examples
    --------
    >>> import numpy as np
    >>> from proxlearn.mkl import AverageKernelSVC
    >>> x = np.random.default_rng(0).normal(size=(40, 2))
    >>> S = np.exp(-(x[:, None, :] - x[None, :, :]) ** 2)  # (40, 40, 2): a kernel per feature
    >>> y = (x[:, 0] > 0).astype(int)
    >>> clf = AverageKernelSVC().fit(S, y)
    >>> np.round(clf.weights_, 2).tolist(), clf.score(S, y)
    ([0.5, 0.5], 0.975)

    See Also
    --------
    SimpleMKL : the weights learned instead of fixed.
    KTASVC : the weights chosen by kernel-target alignment.
    MKLClassifierCV : ``C`` chosen by cross-validation.
    """

    def __init__(self, C=1.0, *, spectrum="clip", bank=None, normalize=True):
        self.C = C
        self.spectrum = spectrum
        self.bank = bank
        self.normalize = normalize

    _psd = "combined"

    _parameter_constraints = mkl_constraints("C", "normalize", "spectrum", "bank")

    def _solve(self, Ks, y_pm):
        return uniform_mkl(Ks, y_pm, self.C, kernel_check=lambda K: self._check_combined(
            K, "the average of the matrices"))


class KTASVC(_BaseMKL):
    __doc__ = """Two-stage MKL by centred kernel-target alignment, then an SVM (KTA).

    Cortes, Mohri & Rostamizadeh (ICML 2010), "alignf": the non-negative
    combination of the centred base kernels best aligned with ``y y^T``
    (:func:`proxlearn.mkl.alignf`; Zhuang 2011 Theorem 7.35, the KTA baseline
    of Table 5.2), normalised to sum 1 (``weight_norm="l1"``, the scale convex
    MKL's weights have, so that one ``C`` grid serves both), then an SVM on
    ``sum_k w_k K_k``. Several classes: one versus one, each pair its own
    target.

    Parameters
    ----------
    C : float, default=1.0
        SVM regularisation, not tuned: the best ``C`` on a ``KernelBank``'s
        combination ranged from 1 to 100 over the UCI sets;
        :class:`~proxlearn.mkl.MKLClassifierCV` chooses it (docs/methods.md).
    spectrum : {"clip", "flip", "shift", "square"} or None, default="clip"
        ``None``: the matrices as given; the combination ``sum_k w_k K_k`` the
        SVM uses must be PSD.
    bank : KernelBank or None, default=None
    normalize : bool, default=True
        Divide each matrix of a stack and its test rows by its training scale
        ``tr K_k / n`` (``scales_``; see :class:`SimpleMKL`). ``False``: as given.
    weight_norm : {"l1", "l2"}, default="l1"
        The norm the aligned weights are scaled to (``alignf``'s ``normalize``).
    """ + _ATTRS_DOC + """
    Examples
    --------
    >>> import numpy as np
    >>> from proxlearn.mkl import KTASVC
    >>> x = np.random.default_rng(0).normal(size=(40, 2))
    >>> S = np.exp(-(x[:, None, :] - x[None, :, :]) ** 2)  # (40, 40, 2): a kernel per feature
    >>> y = (x[:, 0] > 0).astype(int)
    >>> clf = KTASVC().fit(S, y)
    >>> np.round(clf.weights_, 2).tolist(), clf.score(S, y)
    ([1.0, 0.0], 0.975)

    See Also
    --------
    alignf : the aligned weights alone.
    AverageKernelSVC : the uniform weights.
    SimpleMKL : the weights learned with the SVM.
    """

    _psd = "combined"

    def __init__(self, C=1.0, *, spectrum="clip", bank=None, normalize=True, weight_norm="l1"):
        self.C = C
        self.spectrum = spectrum
        self.bank = bank
        self.normalize = normalize
        self.weight_norm = weight_norm

    _parameter_constraints = mkl_constraints(
        "C", "normalize", "spectrum", "bank", weight_norm=options("l1", "l2"))

    def _solve(self, Ks, y_pm):
        from ._kta import alignf_checked
        from .._svm._dual import svm_dual

        dense = Ks if isinstance(Ks, np.ndarray) else Ks.toarray()
        w = alignf_checked(dense, np.outer(y_pm, y_pm), self.weight_norm)
        K = stack_combine(dense, w)
        self._check_combined(K, "the aligned combination sum_k w_k X[:, :, k]")
        sol = svm_dual(K, y_pm, self.C)
        return MKLResult(w, w, sol.alpha, sol.b, sol.value, 0.0, 1, [])
