"""The public estimator classes, discovered from the subpackages' ``__all__`` (shared by
the cross-cutting tests, so that a new estimator is covered by all of them at once)."""

import importlib
import inspect


def public_classes(packages, base):
    """``(package, name, class)`` for every class of the packages' ``__all__`` that
    subclasses ``base``, in the packages' order."""
    for pkg in packages:
        mod = importlib.import_module(f"proxlearn.{pkg}")
        for name in getattr(mod, "__all__", []):
            obj = getattr(mod, name)
            if inspect.isclass(obj) and issubclass(obj, base):
                yield pkg, name, obj


# --------------------------------------------------------------------------- inputs by kind
# What each public estimator is fitted on, shared by the cross-cutting checks that
# run every estimator at its defaults (tests/test_scale_invariance.py) and by the
# behaviour snapshot of scripts/behaviour.py.

#: Subpackages whose estimators are run at their defaults on the common problem.
LEARNER_PACKAGES = ["transforms", "kernel_approximation", "svm", "neighbors", "discriminant",
                    "kernel_learning", "mkl", "cluster", "manifold", "ranking", "krein"]

#: Input kind per estimator where the subpackage's guess (``guess_kind``) is wrong.
KIND = {
    "ESKL": "sim-clf", "EMKL": "stack-clf", "REKL": "stack-clf",
    "ESKLCV": "sim-clf", "EMKLCV": "stack-clf", "REKLCV": "stack-clf",
    "ArcCosineSVC": "feat-clf", "GMKL": "feat-clf", "IKL": "feat-clf",
    "TwoLayerMKLInf": "feat-clf",
    "UMKL": "stack-transform",
    "DiffusionKernel": "sim-transform", "LinearSimilarityKernel": "sim-transform",
    "RBFSimilarityKernel": "sim-transform", "WarpedKernel": "sim-transform",
    "KernelCompleter": "completion-transform", "CompletionSVC": "completion-clf",
    "SimpleNPKL": "feat-constraints-kernel", "NPKL": "feat-constraints-kernel",
    "SimpleNPKLCV": "feat-constraints-kernel",
    "ConstrainedKMeans": "feat-constraints-cluster", "KernelKMeans": "kernel-cluster",
    "CMVU": "feat-embed-supervised",
    "CombineSimilarities": "stack-transform",
    # outlier detectors (issue 37, item 2): fit(S) on the training block, y ignored
    "SimilarityOneClassSVM": "sim-outlier", "SimilarityLocalOutlierFactor": "sim-outlier",
    # krein (issue 37 item 4): the regressors
    "KreinSVR": "sim-reg", "KreinLeastSquares": "sim-reg",
}

# mklreg (issue 37 item 3): MKL regression and one-class on (n, n, m) stacks
KIND.update({"SimpleMKLRegressor": "stack-reg", "LpMKLKernelRidge": "stack-reg",
             "SimpleMKLOneClass": "stack-outlier"})

# --- regression on similarities (issue 37, item 1): input kind "sim-reg", fitted on a
# continuous target of the common problem's features (regression_target)
LEARNER_PACKAGES.append("kernel_ridge")
KIND.update({"SimilaritySVR": "sim-reg", "SimilarityKernelRidge": "sim-reg",
             "SimilarityKNeighborsRegressor": "sim-reg", "SimilarityFeatureSVR": "sim-reg"})


def regression_target(X):
    """A smooth real-valued target of the common problem's features (kind "sim-reg")."""
    return X[:, 0] + 0.5 * X[:, 1] ** 2 - X[:, 2]


#: Smaller grids for the cross-validated variants (their default grids fit 60
#: estimators per call; what is checked is a property of the grid's units).
CHEAP = {f"{n}CV": {"Cs": (0.1, 10.0), "rhos": (1.0,), "cv": 3} for n in ("ESKL", "EMKL", "REKL")}

#: Estimators defined only on non-negative similarities (graph kernels). Empty since
#: DiffusionKernel's default kNN graph uses only the order of each row (issue 40).
NONNEGATIVE_ONLY: set[str] = set()


def guess_kind(pkg, cls):
    """The input kind of an estimator of subpackage ``pkg`` not listed in ``KIND``."""
    if pkg == "mkl":
        return "stack-clf"
    if pkg == "cluster":
        return "kernel-cluster"
    if pkg == "manifold":
        return "feat-embed"
    return "sim-clf" if hasattr(cls, "predict") else "sim-transform"


def learners(base, packages=LEARNER_PACKAGES):
    """``{name: (class, kind)}`` for every public estimator of ``packages``."""
    return {name: (cls, KIND.get(name, guess_kind(pkg, cls)))
            for pkg, name, cls in public_classes(packages, base)}


def common_problem(n_train=30, n_test=12, n_classes=2, seed=0):
    """Overlapping Gaussian classes in 3-D: features ``X``, labels ``y``, a noisy
    indefinite similarity ``S`` (linear kernel + symmetric noise + offset) and an RBF
    kernel ``K``, over ``n_train + n_test`` points (training points first)."""
    import numpy as np

    rng = np.random.default_rng(seed)
    n = n_train + n_test
    y = np.tile(np.arange(n_classes), -(-n // n_classes))[:n]
    centres = np.array([[1.0, 0.5, 0.0], [-1.0, -0.5, 0.0], [0.0, 1.0, 1.0]])[:n_classes]
    if n_classes == 2:
        centres = np.array([[-1.0, -0.5, 0.0], [1.0, 0.5, 0.0]])
    X = rng.normal(size=(n, 3)) + centres[y]
    noise = rng.normal(scale=0.5, size=(n, n))
    S = X @ X.T + (noise + noise.T) / 2 + 2.0
    sq = np.sum(X ** 2, axis=1)
    K = np.exp(-np.maximum(sq[:, None] + sq[None, :] - 2 * X @ X.T, 0) / 3.0)
    return X, y, S, K


def fit_outputs(name, cls, kind, problem, n_train, scale=(1.0, 1.0), extras=False):
    """Fit ``cls`` at its defaults (``CHEAP`` grids, ``random_state=0``) on ``problem``
    (scaled: the first matrix / the features by ``scale[0]``, a stack's second matrix by
    ``scale[1]``) and return its raw outputs by name: ``predict`` for classifiers,
    ``transform`` / ``transform_test`` for transforms and learned kernels, ``labels`` for
    clusterers; with ``extras``, also ``decision_function`` and ``predict_proba`` where
    the fitted estimator has them."""
    import warnings

    import numpy as np

    from proxlearn.cluster import make_pairwise_constraints

    X, y, S, K = problem
    n = len(y)
    tr, te = np.arange(n_train), np.arange(n_train, n)
    c1, c2 = scale
    est = cls().set_params(**CHEAP.get(name, {}))
    if "random_state" in est.get_params():  # the same random draws at every scale
        est.set_params(random_state=0)
    if name in NONNEGATIVE_ONLY:
        S = S - S.min()

    def blocks(M):
        return M[np.ix_(tr, tr)], M[np.ix_(te, tr)]

    def classifier(train, test):
        est.fit(train, y[tr])
        out = {"predict": est.predict(test)}
        if extras:
            for method in ("decision_function", "predict_proba"):
                if hasattr(est, method):
                    try:
                        out[method] = getattr(est, method)(test)
                    except (AttributeError, NotImplementedError):
                        pass
        return out

    constraints = lambda: make_pairwise_constraints(y[tr], r=0.7, random_state=0)  # noqa: E731
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if kind == "sim-clf":
            return classifier(*blocks(c1 * S))
        if kind == "sim-reg":  # issue 37, item 1
            S_tr, S_te = blocks(c1 * S)
            return {"predict": est.fit(S_tr, regression_target(X)[tr]).predict(S_te)}
        if kind == "sim-outlier":  # issue 37: labels in {-1, +1}
            S_tr, S_te = blocks(c1 * S)
            if not hasattr(est, "predict"):  # LOF's default novelty=False: the training labels
                out = {"predict": est.fit_predict(S_tr)}
                if extras:
                    out["negative_outlier_factor"] = est.negative_outlier_factor_
                return out
            out = {"predict": est.fit(S_tr).predict(S_te)}
            if extras:
                out.update(decision_function=est.decision_function(S_te),
                           score_samples=est.score_samples(S_te))
            return out
        if kind == "sim-transform":
            S_tr, S_te = blocks(c1 * S)
            est.fit(S_tr, y[tr])
            return {"transform": est.transform(S_tr), "transform_test": est.transform(S_te)}
        if kind in ("stack-reg", "stack-outlier"):  # mklreg: the sim-reg / sim-outlier
            stack = np.stack([c1 * S, c2 * K], axis=2)  # conventions on the stack
            st_tr, st_te = stack[tr][:, tr], stack[te][:, tr]
            if kind == "stack-reg":
                return {"predict": est.fit(st_tr, regression_target(X)[tr]).predict(st_te)}
            out = {"predict": est.fit(st_tr).predict(st_te)}
            if extras:
                out.update(decision_function=est.decision_function(st_te),
                           score_samples=est.score_samples(st_te))
            return out
        if kind in ("stack-clf", "stack-transform"):
            stack = np.stack([c1 * S, c2 * K], axis=2)
            st_tr, st_te = stack[tr][:, tr], stack[te][:, tr]
            if kind == "stack-clf":
                return classifier(st_tr, st_te)
            est.fit(st_tr)
            return {"transform": est.transform(st_tr), "transform_test": est.transform(st_te)}
        if kind == "feat-clf":
            return classifier(c1 * X[tr], c1 * X[te])
        if kind == "completion-clf":  # nothing known: the auxiliary kernel alone; one SDP
            K_tr, K_te = (c1 * K)[:12, :12], (c1 * K)[n_train:n_train + 4, :12]
            est.fit(K_tr, y[:12])  # per test row a smaller problem
            return {"predict": est.predict(K_te)}
        if kind == "completion-transform":
            n1 = n_train - 6
            return {"transform": est.fit_transform(c1 * K[:n1, :n1],
                                                   c2 * S[:n_train, :n_train])}
        if kind == "feat-constraints-kernel":
            return {"transform": est.fit_transform(c1 * X[tr], constraints())}
        if kind == "feat-constraints-cluster":
            return {"labels": est.fit_predict(c1 * X[tr], constraints())}
        if kind == "kernel-cluster":
            return {"labels": est.fit_predict(c1 * K[np.ix_(tr, tr)])}
        if kind == "feat-embed":
            return {"transform": est.fit_transform(c1 * X[tr])}
        if kind == "feat-embed-supervised":
            return {"transform": est.fit_transform(c1 * X[tr], y[tr])}
    raise AssertionError(f"{name}: unknown input kind {kind!r}; add it to KIND")
