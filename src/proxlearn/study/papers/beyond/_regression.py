"""Section ``beyond-regression``: the regressors on similarities against scikit-learn's
SVR and kernel ridge run by hand on the clipped matrix, R^2 on regression targets
built from real data (:mod:`proxlearn.datasets._targets`).

Methods (each fitted on a partition's training block, hyperparameters chosen on it):

===================  ===========================================================
method               what
===================  ===========================================================
``svr``              ``svm.SimilaritySVR()``: clip, ``C="auto"`` (internal 5-fold CV)
``kernel-ridge``     ``kernel_ridge.SimilarityKernelRidge()``: clip, ``alpha="auto"``
                     (exact leave-one-out)
``knn``              ``neighbors.SimilarityKNeighborsRegressor``, uniform weights,
                     ``n_neighbors`` in ``KNN_K`` by 3-fold CV
``knn-krr``          the same with KRR weights (Chen et al. 2009 eq. 15)
``feature-svr``      ``svm.SimilarityFeatureSVR()`` (linear on the rows), ``C`` in
                     ``SMALL_C`` by 3-fold CV
``krein-svr``        ``krein.KreinSVR()``: ``C="auto"``
``krein-svr-ystd``   ``KreinSVR()`` on the target standardised by hand (and mapped
                     back): added when ``KreinSVR`` had no ``normalize_y`` (its
                     ``epsilon=0.1`` was in the target's units); with the default
                     ``normalize_y=True`` the two columns agree, a check of it
``krein-ls``         ``krein.KreinLeastSquares()``: ``radius="auto"``
``simple-mkl-svr``   ``mkl.SimpleMKLRegressor`` on the target's stack (digits-ink:
                     digits-multi, IDM / pixel RBF / orientation histograms), ``C`` in
                     ``SMALL_C`` by 3-fold CV
``lp-mkl-krr``       ``mkl.LpMKLKernelRidge`` (p = 2) on the stack, ``alpha`` in
                     ``SMALL_ALPHA`` by 3-fold CV
``sk-svr-clip``      by hand: ``transforms.SpectrumTransformer("clip")`` of ``S / (tr S /
                     n)``, consistent test rows, the target standardised, scikit-learn's
                     ``SVR(kernel="precomputed")`` with ``C`` in ``AUTO_C`` by
                     ``GridSearchCV`` (5 shuffled folds)
``sk-krr-clip``      the same with ``KernelRidge(kernel="precomputed")``, ``alpha`` in
                     ``AUTO_ALPHAS`` by ``GridSearchCV`` (5 shuffled folds)
===================  ===========================================================

The scikit-learn rows get what ``normalize`` / ``normalize_y`` do for ours (matrix
scale, standardised target) and the same grids, so that a difference is the
estimator's, not its defaults'. ``AUTO_C`` and ``AUTO_ALPHAS`` are the grids of
``SimilaritySVR`` and ``SimilarityKernelRidge``.
"""

from __future__ import annotations

import numpy as np

__all__ = ["REGRESSION_METHODS", "regression_method"]

KNN_K = [1, 2, 4, 8, 16, 32]
SMALL_C = [0.1, 1.0, 10.0]
SMALL_ALPHA = [0.01, 0.1, 1.0]
#: The methods that need a stack of matrices (rows of targets without one stay empty).
STACK_METHODS = ("simple-mkl-svr", "lp-mkl-krr")
#: Table order.
REGRESSION_METHODS = ("svr", "kernel-ridge", "knn", "knn-krr", "feature-svr", "krein-svr",
                      "krein-svr-ystd", "krein-ls", "simple-mkl-svr", "lp-mkl-krr", "sk-svr-clip", "sk-krr-clip")


def _cv(n_folds=3):
    from sklearn.model_selection import KFold

    return KFold(n_folds, shuffle=True, random_state=0)


def _searched(estimator, grid, n_folds=3):
    """``fit_predict`` of ``estimator`` with ``grid`` chosen by ``n_folds``-fold CV on
    the training block (the estimators are pairwise: the folds slice rows and columns)."""
    from sklearn.model_selection import GridSearchCV

    def fit_predict(S_tr, y_tr, S_te):
        search = GridSearchCV(estimator, grid, cv=_cv(n_folds), scoring="neg_mean_squared_error")
        return search.fit(S_tr, y_tr).predict(S_te)

    return fit_predict


def _default(estimator):
    def fit_predict(S_tr, y_tr, S_te):
        return estimator.fit(S_tr, y_tr).predict(S_te)

    return fit_predict


def _standardised(fit_predict):
    """``fit_predict`` on ``(y - mean) / std``, the predictions mapped back."""
    def wrapped(S_tr, y_tr, S_te):
        mu, sd = y_tr.mean(), y_tr.std()
        sd = sd if sd > 0 else 1.0
        return mu + sd * fit_predict(S_tr, (y_tr - mu) / sd, S_te)

    return wrapped


def _sklearn_on_clip(estimator, grid):
    """scikit-learn's precomputed-kernel regressor on the clipped, scaled training
    matrix, by hand (the target standardised and mapped back)."""
    from sklearn.model_selection import GridSearchCV

    from ...._scale import similarity_scale
    from ....transforms import SpectrumTransformer

    def fit_predict(S_tr, y, S_te):
        scale = similarity_scale(S_tr)
        st = SpectrumTransformer("clip").fit(S_tr / scale)
        K, K_te = st.kernel_, st.transform(S_te / scale)
        search = GridSearchCV(estimator, grid, cv=_cv(5), scoring="neg_mean_squared_error")
        return search.fit((K + K.T) / 2, y).predict(K_te)

    return _standardised(fit_predict)


def regression_method(name):
    """``fit_predict(S_train, y_train, S_test) -> y_pred`` of a method of the section."""
    from sklearn.kernel_ridge import KernelRidge
    from sklearn.svm import SVR

    from ....kernel_ridge import SimilarityKernelRidge
    from ....kernel_ridge._kernel_ridge import AUTO_ALPHAS
    from ....krein import KreinLeastSquares, KreinSVR
    from ....mkl import LpMKLKernelRidge, SimpleMKLRegressor
    from ....neighbors import SimilarityKNeighborsRegressor
    from ....svm import SimilarityFeatureSVR, SimilaritySVR
    from ....svm._kernel_svr import AUTO_C

    makers = {
        "svr": lambda: _default(SimilaritySVR()),
        "kernel-ridge": lambda: _default(SimilarityKernelRidge()),
        "knn": lambda: _searched(SimilarityKNeighborsRegressor(), {"n_neighbors": KNN_K}),
        "knn-krr": lambda: _searched(SimilarityKNeighborsRegressor(weights="krr"),
                                     {"n_neighbors": KNN_K}),
        "feature-svr": lambda: _searched(SimilarityFeatureSVR(), {"C": SMALL_C}),
        "krein-svr": lambda: _default(KreinSVR()),
        "krein-svr-ystd": lambda: _standardised(_default(KreinSVR())),
        "krein-ls": lambda: _default(KreinLeastSquares()),
        "simple-mkl-svr": lambda: _searched(SimpleMKLRegressor(), {"C": SMALL_C}),
        "lp-mkl-krr": lambda: _searched(LpMKLKernelRidge(), {"alpha": SMALL_ALPHA}),
        "sk-svr-clip": lambda: _sklearn_on_clip(SVR(kernel="precomputed"), {"C": list(AUTO_C)}),
        "sk-krr-clip": lambda: _sklearn_on_clip(KernelRidge(kernel="precomputed"),
                                                {"alpha": [float(a) for a in AUTO_ALPHAS]}),
    }
    return makers[name]()


def run_regression(sec, *, splits, jobs, cache_dir, seed, data_home, progress):
    """The section's runner: every (target, method) over the partitions, cached."""
    from ....datasets import load_dataset
    from ....datasets._targets import regression_targets
    from ._scoring import regression_partitions, regression_r2, run_cells

    n_splits = splits or 5
    targets, missing = regression_targets(sec.datasets, data_home=data_home)
    cells = []
    for t, tgt in targets.items():
        parts = regression_partitions(len(tgt.target), n_splits, seed)
        for m in sec.methods:
            if m in STACK_METHODS:
                if tgt.stack is None:
                    continue
                S = np.asarray(load_dataset(tgt.stack, data_home=data_home).matrix, dtype=float)
            else:
                S = tgt.matrix
            cells.append((t, m, (S, tgt.target),
                          lambda S=S, y=tgt.target, m=m, parts=parts:
                          regression_r2(S, y, regression_method(m), parts)))
    out = run_cells(sec, cells, "r2", n_splits, seed, cache_dir, progress)
    out["missing_data"] = [f"{t} ({why})" for t, why in missing.items()]
    return out
