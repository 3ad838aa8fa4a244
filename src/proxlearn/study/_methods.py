"""The study's method registry: one place that names every method and its grids.

A :class:`Method` couples a short name (as used in the papers' tables and in
the package data file ``targets.csv``) with a builder ``build(**params) ->
estimator`` and the hyperparameter grid for each grid set. A method may also
provide a *fold evaluator* that computes whatever the grid shares once per fold
(for example one eigendecomposition for every ``C`` of a spectrum-clip SVM);
without one the runner fits one estimator per grid point.

New methods register themselves with :func:`register_method`, here or in the
module that defines them.

Grids
-----
``chen2009``: Chen et al. (2009) Table 2 / Chen thesis Table 4.2.
``gu2012``: Gu & Guo (2012) section 4: C, rho in {0.01, 0.1, 1, 10, 100}.
Grid values that are invalid for a training set (``n_neighbors >= n_train``)
are skipped.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from sklearn.model_selection import ParameterGrid

from .._validation import InvalidParameterError

__all__ = ["METHODS", "Method", "get_method", "register_method"]

Params = dict[str, Any]
#: A fold evaluator: (S_train, y_train, S_test, [params, ...]) -> [y_pred, ...]
FoldEvaluator = Callable[[np.ndarray, np.ndarray, np.ndarray, Sequence[Params]], list]


def _powers(lo: int, hi: int) -> list[float]:
    return [float(10.0**e) for e in range(lo, hi + 1)]


#: Chen et al. (2009) Table 2 grids.
K_GRID = list(range(1, 17)) + [32, 64, 128]
C_SVM = _powers(-3, 5)
C_RBF = _powers(-3, 1)
GAMMA_RBF = _powers(-5, 1)
KRI_REG = _powers(-6, 1) + [1e6]
KRR_REG = _powers(-3, 1)
PSVM_EPS = _powers(-4, 1)
PSVM_C = _powers(0, 4)
#: Gu & Guo (2012) grid for C and rho.
GU_GRID = _powers(-2, 2)


@dataclass
class Method:
    """A named method of the study.

    Attributes
    ----------
    name : str
        Short name, e.g. ``"svm-clip"``.
    build : callable
        ``build(**params)`` returns an unfitted estimator.
    grids : dict
        Grid set name -> parameter grid (dict of lists, as ``ParameterGrid``).
    description : str
    evaluate : callable or None
        Optional fold evaluator sharing work across the grid.
    tags : tuple of str
        Free labels used to group methods.

    See Also
    --------
    register_method : Adds a method to :data:`METHODS`.
    get_method : Looks a registered method up.

    Examples
    --------
    >>> from sklearn.neighbors import KNeighborsClassifier
    >>> from proxlearn.study import Method
    >>> m = Method("knn-demo", KNeighborsClassifier, {"chen2009": {"n_neighbors": [1, 3, 5]}})
    >>> m.grid("chen2009", n_train=4)
    [{'n_neighbors': 1}, {'n_neighbors': 3}]
    """

    name: str
    build: Callable[..., Any]
    grids: dict[str, dict[str, list]]
    description: str = ""
    evaluate: FoldEvaluator | None = None
    tags: tuple[str, ...] = field(default_factory=tuple)

    def grid(self, grid_set: str, n_train: int | None = None) -> list[Params]:
        """Parameter combinations under ``grid_set``, valid for ``n_train`` samples."""
        spec = self.grids.get(grid_set, self.grids.get("chen2009"))
        if spec is None:
            raise InvalidParameterError(
                f"method {self.name!r} has no grid for {grid_set!r}; it has "
                f"{sorted(self.grids)}."
            )
        combos = list(ParameterGrid(spec)) if spec else [{}]
        if n_train is not None:
            combos = [p for p in combos if p.get("n_neighbors", 0) < n_train]
        return combos

    def evaluate_grid(self, S_train, y_train, S_test, params_list) -> list:
        """Predictions on ``S_test`` for each parameter set, fitted on the training block."""
        if self.evaluate is not None:
            return self.evaluate(S_train, y_train, S_test, params_list)
        return [
            self.build(**p).fit(S_train, y_train).predict(S_test) for p in params_list
        ]


METHODS: dict[str, Method] = {}


def register_method(method: Method, *, replace: bool = False) -> Method:
    """Add ``method`` to the registry (``replace=True`` to overwrite a name).

    Parameters
    ----------
    method : Method
    replace : bool, default=False
        Overwrite a method registered under the same name; otherwise that
        raises ``InvalidParameterError``.

    Returns
    -------
    Method
        ``method`` itself.

    See Also
    --------
    get_method : Looks a registered method up.

    Examples
    --------
    >>> from sklearn.neighbors import KNeighborsClassifier
    >>> from proxlearn.study import METHODS, Method, register_method
    >>> m = register_method(Method("knn-doc", KNeighborsClassifier, {}))
    >>> "knn-doc" in METHODS
    True
    >>> del METHODS["knn-doc"]
    """
    if method.name in METHODS and not replace:
        raise InvalidParameterError(f"a method named {method.name!r} is already registered.")
    METHODS[method.name] = method
    return method


def get_method(name: str, dataset: str | None = None) -> Method:
    """Look up a registered method; the error lists the valid names.

    With ``dataset``, a registration named ``"<name>-<dataset>"`` takes
    precedence: methods whose ingredients depend on the data set (SimMKL's base
    kernels, Chen thesis Table 5.5) register one variant per data set and are
    still called by their table name.

    Parameters
    ----------
    name : str
        A registered method name (a key of :data:`METHODS`).
    dataset : str, optional
        The data set's name, to select its variant when one is registered.

    Returns
    -------
    Method

    See Also
    --------
    register_method : Adds a method.
    run_study : Runs registered methods under a protocol.

    Examples
    --------
    >>> from proxlearn.study import get_method
    >>> m = get_method("knn")
    >>> m.name, m.description, len(m.grid("chen2009"))
    ('knn', 'k-NN, majority vote', 19)
    """
    if dataset is not None and f"{name}-{dataset}" in METHODS:
        return METHODS[f"{name}-{dataset}"]
    try:
        return METHODS[name]
    except KeyError:
        raise InvalidParameterError(
            f"unknown method {name!r}; valid methods are: {', '.join(sorted(METHODS))}."
        ) from None


# --------------------------------------------------------------------------
# Fold evaluators that share work across a grid
# --------------------------------------------------------------------------


def _svc_over_C(K, y, K_test, Cs) -> list:
    """Precomputed-kernel SVM predictions for each C, sharing saturated solutions.

    If no dual coefficient of the SVM trained with ``C`` reaches the box bound
    (every support vector is free), the same dual solution satisfies the KKT
    conditions for every larger ``C`` (the box constraint is inactive), so
    its predictions are reused instead of refitting. This matters on the
    papers' grids, which go up to C = 1e5 where libsvm needs millions of
    iterations on a separable problem.
    """
    from sklearn.svm import SVC

    from .._svm._libsvm import MAX_ITER

    order = sorted(range(len(Cs)), key=lambda i: Cs[i])
    out: list = [None] * len(Cs)
    saturated = None
    for i in order:
        if saturated is not None:
            out[i] = saturated
            continue
        svc = SVC(kernel="precomputed", C=Cs[i], max_iter=MAX_ITER).fit(K, y)
        out[i] = svc.predict(K_test)
        if np.abs(svc.dual_coef_).max() < Cs[i] * (1.0 - 1e-12):
            saturated = out[i]
    return out


def _spectrum_svm_evaluator(spectrum: str, test_transform: str) -> FoldEvaluator:
    """One eigendecomposition per fold, then one libsvm fit per C."""

    def evaluate(S_train, y_train, S_test, params_list):
        from ..transforms import SpectrumTransformer

        tf = SpectrumTransformer(method=spectrum, test_transform=test_transform)
        K = tf.fit_transform(S_train)
        K_test = tf.transform(S_test)
        return _svc_over_C(K, y_train, K_test, [p["C"] for p in params_list])

    return evaluate


def _feature_svm_evaluator(kernel: str) -> FoldEvaluator:
    """One similarity-feature kernel per gamma, then one libsvm fit per C."""

    def evaluate(S_train, y_train, S_test, params_list):
        from ..transforms import SimilarityFeatures

        out: list = [None] * len(params_list)
        by_gamma: dict[float, list[int]] = {}
        for i, p in enumerate(params_list):
            by_gamma.setdefault(p.get("gamma", 1.0), []).append(i)
        for gamma, idx in by_gamma.items():
            tf = SimilarityFeatures(kernel=kernel, gamma=gamma)
            K = tf.fit_transform(S_train)
            K_test = tf.transform(S_test)
            preds = _svc_over_C(K, y_train, K_test, [params_list[i]["C"] for i in idx])
            for i, pred in zip(idx, preds, strict=True):
                out[i] = pred
        return out

    return evaluate


def _psvm_evaluator(S_train, y_train, S_test, params_list) -> list:
    """P-SVM over the (C, epsilon) grid, reusing box-inactive solutions.

    For a fixed ``epsilon``, if no coefficient of the solution for ``C``
    reaches the box (``max |alpha_j| < C``), that solution satisfies the KKT
    conditions of the problem without the box, hence of the problem for every
    larger ``C``: its predictions are reused instead of solving again (on the
    Table 4.2 grid about half of the fits). Otherwise each grid point is an
    ordinary :class:`~proxlearn.svm.PotentialSVM` fit.
    """
    from ..svm import PotentialSVM

    out: list = [None] * len(params_list)
    by_eps: dict[float, list[int]] = {}
    for i, p in enumerate(params_list):
        by_eps.setdefault(p["epsilon"], []).append(i)
    for eps, idx in by_eps.items():
        saturated = None
        for i in sorted(idx, key=lambda i: params_list[i]["C"]):
            if saturated is not None:
                out[i] = saturated
                continue
            C = params_list[i]["C"]
            # the paper's reading (not the scale-free default): S as given, as in Chen et al.'s grids
            model = PotentialSVM(C=C, epsilon=eps, normalize=False).fit(S_train, y_train)
            out[i] = model.predict(S_test)
            if np.abs(model.coef_).max(initial=0.0) < C * (1.0 - 1e-6):
                saturated = out[i]
    return out


def _lp_machine_evaluator(S_train, y_train, S_test, params_list) -> list:
    """LP machine for every ``C`` of the grid, one warm-started LP per pair.

    See :func:`proxlearn.svm.lp_machine_path`; the one-vs-one assembly and
    vote are those of :class:`~proxlearn.svm.LPMachine`.
    """
    from ..svm._lp_machine import lp_machine_path
    from .._svm._multiclass import ovo_fit, ovo_labels, scatter_pairs

    S_train = np.asarray(S_train, dtype=np.float64)
    classes, y_idx = np.unique(y_train, return_inverse=True)
    Cs = [p["C"] for p in params_list]
    n = S_train.shape[0]
    # per pair, the path over the grid: (coef, intercept, info) per C
    problems, paths = ovo_fit(y_idx, len(classes), lambda p: lp_machine_path(
        S_train[np.ix_(p.idx, p.idx)], p.y, Cs))
    S_test = np.asarray(S_test, dtype=np.float64)
    out = []
    for g in range(len(Cs)):
        coef = scatter_pairs(problems, [path[g][0] for path in paths], n)
        intercept = np.array([path[g][1] for path in paths], dtype=np.float64)
        out.append(ovo_labels(S_test @ coef.T + intercept, classes))
    return out


def _group_by_k(params_list) -> dict[int, list[int]]:
    """Indices of ``params_list`` grouped by ``n_neighbors``."""
    groups: dict[int, list[int]] = {}
    for i, p in enumerate(params_list):
        groups.setdefault(p["n_neighbors"], []).append(i)
    return groups


def _knn_evaluator(build) -> FoldEvaluator:
    """One neighbour search per fold for the largest k; every k uses a prefix."""

    def evaluate(S_train, y_train, S_test, params_list):
        from .._graph import top_k_similar

        k_max = max(p["n_neighbors"] for p in params_list)
        nbrs, sims = top_k_similar(S_test, k_max)
        model = build(n_neighbors=k_max).fit(S_train, y_train)
        if model.weights in ("kri", "krr"):  # one local eigh per k for the whole reg grid
            out = [None] * len(params_list)
            for k, idx in _group_by_k(params_list).items():
                regs = [params_list[i]["reg"] for i in idx]
                path = model.predict_path(nbrs[:, :k], sims[:, :k], reg=regs)
                for i, pred in zip(idx, path, strict=True):
                    out[i] = pred
            return out
        out = []
        for p in params_list:
            k = p["n_neighbors"]
            model.set_params(**p)
            out.append(model.predict_from_neighbors(nbrs[:, :k], sims[:, :k]))
        return out

    return evaluate


def _svm_knn_evaluator(build) -> FoldEvaluator:
    """One neighbour search per fold; per k one local eigh per point for every C."""

    def evaluate(S_train, y_train, S_test, params_list):
        from .._graph import top_k_similar

        k_max = max(p["n_neighbors"] for p in params_list)
        model = build(n_neighbors=k_max).fit(S_train, y_train)
        nbrs, sims = top_k_similar(S_test, k_max)
        out: list = [None] * len(params_list)
        for k, idx in _group_by_k(params_list).items():
            Cs = [params_list[i]["C"] for i in idx]
            preds = model.predict_path(nbrs[:, :k], sims[:, :k], C=Cs)
            for i, pred in zip(idx, preds, strict=True):
                out[i] = pred
        return out

    return evaluate


# --------------------------------------------------------------------------
# Built-in methods (lazy imports keep ``import proxlearn.study`` light)
# --------------------------------------------------------------------------


def _similarity_svc(spectrum: str, test_transform: str = "consistent"):
    def build(**params):
        from ..svm import SimilaritySVC

        # the papers' reading (S as given), as the fold evaluator computes it
        return SimilaritySVC(spectrum=spectrum, test_transform=test_transform, normalize=False,
                             **params)

    return build


def _feature_svc(kernel: str):
    def build(**params):
        from ..svm import SimilarityFeatureSVC

        return SimilarityFeatureSVC(kernel=kernel, normalize=False, **params)  # as the evaluator

    return build


def _knn(weights: str, spectrum: str | None = None):
    def build(**params):
        from ..neighbors import SimilarityKNeighborsClassifier

        extra = {} if spectrum is None else {"spectrum": spectrum}
        return SimilarityKNeighborsClassifier(weights=weights, **extra, **params)

    return build


def _local_sda(**params):
    from ..discriminant import LocalSDA

    return LocalSDA(**params)


def _svm_knn(spectrum: str):
    def build(**params):
        from ..neighbors import SVMKNN

        # the paper's reading (not the scale-free default): S as given; k and C come from the grid
        return SVMKNN(spectrum=spectrum, normalize=False, **params)

    return build


def _psvm(**params):
    from ..svm import PotentialSVM

    return PotentialSVM(normalize=False, **params)  # the paper's reading (not the scale-free default)


def _lp_machine(**params):
    from ..svm import LPMachine

    return LPMachine(normalize=False, **params)  # S as given, as lp_machine_path


def _ikfd(**params):
    from ..discriminant import IndefiniteKFD

    return IndefiniteKFD(**params)


for _spec in ("clip", "flip", "shift"):
    register_method(
        Method(
            f"svm-{_spec}",
            _similarity_svc(_spec),
            {"chen2009": {"C": C_SVM}, "gu2012": {"C": GU_GRID}},
            f"SVM with the spectrum-{_spec} similarity kernel (Chen et al. 2009 sec. 2)",
            evaluate=_spectrum_svm_evaluator(_spec, "consistent"),
        )
    )
register_method(
    Method(
        "svm-features-linear",
        _feature_svc("linear"),
        {"chen2009": {"C": C_SVM}, "gu2012": {"C": GU_GRID}},
        "linear SVM on similarities as features (Chen et al. 2009 eq. 4)",
        evaluate=_feature_svm_evaluator("linear"),
    )
)
register_method(
    Method(
        "svm-features-rbf",
        _feature_svc("rbf"),
        {"chen2009": {"C": C_RBF, "gamma": GAMMA_RBF}},
        "RBF SVM on similarities as features (Liao & Noble 2003)",
        evaluate=_feature_svm_evaluator("rbf"),
    )
)
register_method(
    Method(
        "psvm",
        _psvm,
        {"chen2009": {"C": PSVM_C, "epsilon": PSVM_EPS}},
        "potential SVM (Hochreiter & Obermayer 2006; Chen thesis eq. 2.8)",
        evaluate=_psvm_evaluator,
    )
)
register_method(
    Method(
        "lp-machine",
        _lp_machine,
        {"chen2009": {"C": C_SVM}},
        "l1-regularised SVM on similarity features (Chen et al. 2009 eq. 5)",
        evaluate=_lp_machine_evaluator,
    )
)
register_method(
    Method(
        "ikfd",
        _ikfd,
        {"chen2009": {"rho": GU_GRID}, "gu2012": {"rho": GU_GRID}},
        "indefinite kernel Fisher discriminant (Pekalska & Haasdonk 2009)",
    )
)
register_method(
    Method(
        "knn",
        _knn("uniform"),
        {"chen2009": {"n_neighbors": K_GRID}},
        "k-NN, majority vote",
        evaluate=_knn_evaluator(_knn("uniform")),
    )
)
register_method(
    Method(
        "knn-affinity",
        _knn("affinity"),
        {"chen2009": {"n_neighbors": K_GRID}},
        "affinity-weighted k-NN",
        evaluate=_knn_evaluator(_knn("affinity")),
    )
)
for _spec in ("clip", "flip", "shift"):
    register_method(
        Method(
            "knn-kri" if _spec == "clip" else f"knn-kri-{_spec}",
            _knn("kri", _spec),
            {"chen2009": {"n_neighbors": K_GRID, "reg": KRI_REG}},
            f"KRI-weighted k-NN, local spectrum {_spec} (Chen et al. 2009 eq. 12)",
            evaluate=_knn_evaluator(_knn("kri", _spec)),
        )
    )
for _spec in ("pinv", "clip", "flip", "shift"):
    register_method(
        Method(
            "knn-krr" if _spec == "pinv" else f"knn-krr-{_spec}",
            _knn("krr", _spec),
            {"chen2009": {"n_neighbors": K_GRID, "reg": KRR_REG}},
            f"KRR-weighted k-NN, local {_spec} (Chen et al. 2009 eq. 15)",
            evaluate=_knn_evaluator(_knn("krr", _spec)),
        )
    )
register_method(
    Method(
        "local-sda",
        _local_sda,
        {"chen2009": {"n_neighbors": K_GRID}},
        "local similarity discriminant analysis (Chen et al. 2009 sec. 6.1)",
    )
)
for _spec in ("clip", "flip", "shift"):
    register_method(
        Method(
            "svm-knn" if _spec == "clip" else f"svm-knn-{_spec}",
            _svm_knn(_spec),
            {"chen2009": {"n_neighbors": K_GRID, "C": C_SVM}},
            f"local SVM on the k neighbours, local spectrum {_spec} (Zhang et al. 2006)",
            evaluate=_svm_knn_evaluator(_svm_knn(_spec)),
        )
    )
