"""Fit time of every new estimator of issue 37 that wraps a scikit-learn estimator,
against that estimator on the same corrected matrix (issue 37, item 6: within 2x at
n = 2,000).

Each row times three things, A/B alternating (the order rotated each round), process
CPU seconds (``time.process_time``), one BLAS thread, medians of ``--repeats``:

* **ours**: the estimator's ``fit`` at its defaults on the raw similarity ``S``;
* **by hand**: what a scikit-learn user writes for the same model: the same correction
  of the same (scaled) matrix (``SpectrumTransformer`` / an eigendecomposition / the
  derived distances), then the scikit-learn estimator (with the same search over the
  same grid where ours chooses a parameter inside ``fit``: ``GridSearchCV`` over
  ``AUTO_C`` for the SVRs, ``RidgeCV``'s exact leave-one-out over ``AUTO_ALPHAS`` for
  kernel ridge, ``GridSearchCV(KernelRidge)`` over as many points (29) with the same 5
  folds for ``KreinLeastSquares(radius="auto")``, whose search has no scikit-learn
  counterpart);
* **sklearn alone**: the scikit-learn estimator (or its search) on the corrected
  matrix handed to it precomputed, i.e. without the correction.

The ratio to "by hand" counts the correction on both sides; the ratio to "sklearn
alone" is the issue's literal reading ("the scikit-learn estimator it wraps on the
same (corrected) matrix"), which charges ours for the eigendecomposition that the
precomputed matrix hides.

Problems (``--problems``): ``sigmoid`` (the project's regression generator of
benchmarks/bench_regression.py: ``tanh(<x, x'> / 10 - 0.5)`` of 2000 Gaussian points in
10-D, target ``sin(x_1) + x_2``); ``digits`` (real: scikit-learn's 1797 digit images,
the sigmoid kernel of the standardised pixels as ``wine-sigmoid``, target the mean ink,
as ``digits-ink``; no real similarity set of proxlearn has n = 2000); ``noisy``
(bench_novelty.py's one-class generator, 5-D linear kernel plus symmetric noise,
n = 2000); ``krein`` (bench_krein.py's generator, sigmoid blobs plus noise, n = 2000,
two classes and a real target).

Usage: ``python benchmarks/bench_issue37_speed.py [--repeats 5] [--problems ...]
[--estimators ...]``; prints one Markdown table row per (estimator, problem).
"""

import _bench_env  # noqa: F401  (one thread, this tree first on the path)

import argparse
import time
import warnings

import numpy as np
from _timing import timed_alternating
from sklearn.kernel_ridge import KernelRidge
from sklearn.linear_model import RidgeCV
from sklearn.model_selection import GridSearchCV, KFold
from sklearn.neighbors import KNeighborsRegressor, LocalOutlierFactor
from sklearn.svm import SVC, SVR, OneClassSVM

from proxlearn.kernel_ridge import SimilarityKernelRidge
from proxlearn.kernel_ridge._kernel_ridge import AUTO_ALPHAS
from proxlearn.krein import KreinLeastSquares, KreinSVC, KreinSVR
from proxlearn.krein._ksvm import AUTO_C as KREIN_AUTO_C
from proxlearn.neighbors import SimilarityKNeighborsRegressor, SimilarityLocalOutlierFactor
from proxlearn.neighbors._outlier import similarity_distances
from proxlearn.svm import SimilarityFeatureSVR, SimilarityOneClassSVM, SimilaritySVR
from proxlearn.svm._kernel_svr import AUTO_C
from proxlearn.transforms import SpectrumTransformer

PROBLEMS = ("sigmoid", "digits", "noisy", "krein")


def _sigmoid(X):
    sd = X.std(axis=0)
    Z = (X - X.mean(axis=0)) / np.where(sd > 0, sd, 1.0)
    return np.tanh(Z @ Z.T / Z.shape[1] - 0.5)


def problem(name, n=2000):
    """``(S, y, labels)``: the similarity, a real-valued target and two classes."""
    if name == "sigmoid":
        rng = np.random.default_rng(0)
        X = rng.normal(size=(n, 10))
        y = np.sin(X[:, 0]) + X[:, 1]
        return np.tanh(X @ X.T / 10 - 0.5), y, (y > np.median(y)).astype(int)
    if name == "digits":
        from sklearn.datasets import load_digits

        d = load_digits()
        y = d.data.mean(axis=1)
        return _sigmoid(d.data), y, (d.target >= 5).astype(int)
    if name == "noisy":
        rng = np.random.default_rng(0)
        X = rng.normal(size=(n, 5))
        Z = rng.normal(size=(n, n))
        S = X @ X.T + (Z + Z.T) / 2
        y = X[:, 0] - X[:, 1]
        return S, y, (y > 0).astype(int)
    if name == "krein":
        rng = np.random.default_rng(0)
        labels = np.arange(n) % 2
        X = 1.2 * rng.standard_normal((2, 5))[labels] + rng.standard_normal((n, 5))
        E = rng.standard_normal((n, n))
        S = np.tanh(0.3 * X @ X.T - 0.5) + 0.3 * (E + E.T) / 2
        return S, X[:, 0] - X[:, 1], labels
    raise ValueError(name)


def _standardised(y):
    return (y - y.mean()) / y.std()


def _flip(S):
    lam, U = np.linalg.eigh(S)
    return (U * np.abs(lam)) @ U.T


def rows(S, y, labels):
    """``{estimator: (ours, by_hand, sklearn_alone)}`` of callables, on one problem.
    The scaled matrix ``S / (tr S / n)`` is what every scale-free estimator fits."""
    n = S.shape[0]
    scale = np.trace(S) / n
    Ss = S / scale
    t = _standardised(y)
    folds = KFold(5, shuffle=True, random_state=0)
    K_clip = SpectrumTransformer("clip").fit_transform(Ss)
    K_shift = SpectrumTransformer("shift").fit_transform(Ss)
    K_flip = _flip(Ss)
    d = np.diag(S)
    D = similarity_distances(S, d, d)
    D_knn = S.max() - S  # the same neighbours as the largest similarities, >= 0

    def svr_search(K):
        return GridSearchCV(SVR(kernel="precomputed"), {"C": list(AUTO_C)}, cv=folds,
                            scoring="neg_mean_squared_error").fit(K, t)

    def ridge_search(Ss):
        st = SpectrumTransformer("clip").fit(Ss)
        X = st.eigenvectors_ * np.sqrt(st.modified_eigenvalues_)
        return RidgeCV(alphas=AUTO_ALPHAS, fit_intercept=False, gcv_mode="eigen").fit(X, t)

    krr_alpha = SimilarityKernelRidge().fit(S, y).alpha_

    def krein_svr_search(K):
        return GridSearchCV(SVR(kernel="precomputed"), {"C": list(KREIN_AUTO_C)}, cv=folds,
                            scoring="neg_mean_squared_error").fit(K, y)

    def ridge_grid(K):
        # the search of radius="auto" has as many points (29) and the same 5 folds
        return GridSearchCV(KernelRidge(kernel="precomputed"), {"alpha": list(AUTO_ALPHAS)},
                            cv=folds, scoring="neg_mean_squared_error").fit(K, t)

    rowgram = Ss @ Ss.T  # SimilarityFeatureSVR's default: the linear kernel on the rows
    return {
        "SimilaritySVR (C='auto')": (
            lambda: SimilaritySVR().fit(S, y),
            lambda: svr_search(SpectrumTransformer("clip").fit_transform(Ss)),
            lambda: svr_search(K_clip)),
        "SimilarityKernelRidge (alpha='auto')": (
            lambda: SimilarityKernelRidge().fit(S, y),
            lambda: ridge_search(Ss),
            lambda: KernelRidge(alpha=krr_alpha, kernel="precomputed").fit(K_clip, t)),
        "SimilarityKNeighborsRegressor": (
            lambda: SimilarityKNeighborsRegressor().fit(S, y),
            lambda: KNeighborsRegressor(metric="precomputed").fit(S.max() - S, y),
            lambda: KNeighborsRegressor(metric="precomputed").fit(D_knn, y)),
        "SimilarityFeatureSVR": (
            lambda: SimilarityFeatureSVR().fit(S, y),
            lambda: SVR(kernel="precomputed").fit((S / scale) @ (S / scale).T, t),
            lambda: SVR(kernel="precomputed").fit(rowgram, t)),
        "SimilarityOneClassSVM": (
            lambda: SimilarityOneClassSVM().fit(S),
            lambda: OneClassSVM(kernel="precomputed").fit(
                SpectrumTransformer("shift").fit_transform(Ss)),
            lambda: OneClassSVM(kernel="precomputed").fit(K_shift)),
        "SimilarityLocalOutlierFactor": (
            lambda: SimilarityLocalOutlierFactor().fit(S),
            lambda: LocalOutlierFactor(metric="precomputed").fit(
                similarity_distances(S, np.diag(S), np.diag(S))),
            lambda: LocalOutlierFactor(metric="precomputed").fit(D)),
        "KreinSVC": (
            lambda: KreinSVC().fit(S, labels),
            lambda: SVC(kernel="precomputed").fit(_flip(Ss), labels),
            lambda: SVC(kernel="precomputed").fit(K_flip, labels)),
        "KreinSVR (C='auto')": (
            lambda: KreinSVR().fit(S, y),
            lambda: krein_svr_search(_flip(Ss)),
            lambda: krein_svr_search(K_flip)),
        "KreinLeastSquares (radius='auto')": (
            lambda: KreinLeastSquares().fit(S, y),
            lambda: ridge_grid(_flip(Ss)),
            lambda: ridge_grid(K_flip)),
        "KreinLeastSquares (radius=1)": (
            lambda: KreinLeastSquares(radius=1.0).fit(S, y),
            lambda: KernelRidge(kernel="precomputed").fit(_flip(Ss), t),
            lambda: KernelRidge(kernel="precomputed").fit(K_flip, t)),
    }


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--n", type=int, default=2000)
    ap.add_argument("--problems", nargs="+", default=["sigmoid", "digits", "noisy"],
                    choices=PROBLEMS)
    ap.add_argument("--estimators", nargs="+", default=None,
                    help="names (prefixes) of the rows to run; default all")
    args = ap.parse_args(argv)
    print(f"load average {open('/proc/loadavg').read().split()[:3]}, "
          f"{args.repeats} alternating repeats, process CPU s (median)")
    print("| estimator | problem (n) | ours | by hand | sklearn alone | ours / by hand | "
          "ours / sklearn alone |")
    print("|---|---|---|---|---|---|---|")
    for pname in args.problems:
        S, y, labels = problem(pname, args.n)
        for name, (ours, hand, alone) in rows(S, y, labels).items():
            if args.estimators and not any(name.startswith(e) for e in args.estimators):
                continue
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                med, _ = timed_alternating({"ours": ours, "hand": hand, "alone": alone},
                                           args.repeats, clock=time.process_time)
            print(f"| {name} | {pname} ({S.shape[0]}) | {med['ours']:.3f} | {med['hand']:.3f} "
                  f"| {med['alone']:.3f} | {med['ours'] / med['hand']:.2f} | "
                  f"{med['ours'] / med['alone']:.2f} |", flush=True)
    print(f"load average {open('/proc/loadavg').read().split()[:3]}")


if __name__ == "__main__":
    main()
