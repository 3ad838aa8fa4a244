"""Regression on similarities (issue 37, item 1): accuracy at the defaults and fit time.

Accuracy (``--accuracy``, the default): regression targets built from real data, no
download. Each target is predicted from a similarity that does not see it:

* ``glass-RI``: the refractive index of the 214 UCI glass samples from an indefinite
  sigmoid kernel ``tanh(<z, z'> / d - 0.5)`` of the 8 standardised oxide contents;
* ``liver-drinks``: half-pint drinks per day of the 345 UCI BUPA patients from the
  sigmoid kernel of the 5 standardised blood tests (the UCI set's intended target);
* ``diabetes``: disease progression of scikit-learn's 442 diabetes patients (bundled
  with scikit-learn) from the sigmoid kernel of the 10 standardised features;
* ``digits-ink``: the ink (mean pixel intensity) of the 400 images of ``digits-idm``
  from their Image Distortion Model similarity (a similarity of objects, no features).

Methods: ours at their defaults (``SimilaritySVR`` with ``C="auto"``,
``SimilarityKernelRidge`` with ``alpha="auto"``, and both at the former defaults
``C=1`` / ``alpha=1``,
``SimilarityFeatureSVR`` linear and RBF on the rows,
``SimilarityKNeighborsRegressor`` uniform k = 5, and its KRI / KRR weights), ours
with ``normalize_y=False`` (the literal reading), scikit-learn's ``SVR`` and
``KernelRidge`` (``kernel="precomputed"``, their defaults) on the matrix clipped by
hand (``SpectrumTransformer("clip")``, consistent test rows), and scikit-learn's RBF
``SVR`` on the standardised features (pixels for digits); the three scikit-learn
rows again with the targets standardised by hand (what ``normalize_y`` does). Five random 70 / 30 splits;
R^2 on the test rows, mean +- standard error.

Speed (``--speed``): fit time at n = 2000 (a sigmoid kernel of 2000 Gaussian points
in 10-D, indefinite) of ``SimilaritySVR`` and ``SimilarityKernelRidge`` against the
same pipeline run by hand (``SpectrumTransformer("clip").fit_transform`` + scikit-
learn's ``SVR`` / ``KernelRidge`` on the corrected matrix) and against scikit-learn's
fit alone on the already corrected matrix; ``SimilarityFeatureSVR(kernel="rbf")``
against ``SimilarityFeatures("rbf")`` + scikit-learn's ``SVR`` on the same problem; for the k-NN regressor the prediction of
500 test rows against ``KNeighborsRegressor(metric="precomputed")``. Process CPU time
(one BLAS thread), methods alternated, medians of ``--repeats``.

With ``--speed --auto``: ``C="auto"`` / ``alpha="auto"`` against scikit-learn's
``GridSearchCV`` (SVR, the same ``C`` grid and 5 shuffled folds) and ``RidgeCV``
(exact leave-one-out over the same ``alpha`` grid) on the same clipped matrix.

    python benchmarks/bench_regression.py [--accuracy] [--speed [--auto]] [--repeats 5]
"""

import _bench_env  # noqa: F401  (one thread, this tree's src first)

import argparse
import time
import warnings

import numpy as np
from sklearn.kernel_ridge import KernelRidge
from sklearn.model_selection import ShuffleSplit
from sklearn.neighbors import KNeighborsRegressor
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVR

from _timing import timed_alternating
from proxlearn.kernel_ridge import SimilarityKernelRidge
from proxlearn.neighbors import SimilarityKNeighborsRegressor
from proxlearn.svm import SimilarityFeatureSVR, SimilaritySVR
from proxlearn.transforms import SimilarityFeatures, SpectrumTransformer


def targets():
    """``{name: (S, y, features, description)}`` of the targets whose data are found
    (built by ``proxlearn.datasets._targets``, shared with the reproduction report)."""
    from proxlearn.datasets._targets import regression_targets

    data, missing = regression_targets()
    for name, why in missing.items():
        print(f"{name} skipped: {why}")
    return {n: (t.matrix, t.target, t.features, t.description) for n, t in data.items()}


def clipped(S_tr, S_te):
    st = SpectrumTransformer("clip").fit(S_tr)
    return st.kernel_, st.transform(S_te)


def methods():
    """``{name: fit-predict(S_tr, S_te, y_tr, Z_tr, Z_te)}``."""
    def ours(est):
        return lambda S_tr, S_te, y, Z_tr, Z_te: est.fit(S_tr, y).predict(S_te)

    def sk(model):
        def run(S_tr, S_te, y, Z_tr, Z_te):
            K, K_te = clipped(S_tr, S_te)
            return model.fit(K, y).predict(K_te)
        return run

    def rbf(S_tr, S_te, y, Z_tr, Z_te):
        sc = StandardScaler().fit(Z_tr)
        return SVR().fit(sc.transform(Z_tr), y).predict(sc.transform(Z_te))

    def standardised(run):
        """``run`` on ``(y - mean) / std``, predictions mapped back (by hand)."""
        def wrapped(S_tr, S_te, y, Z_tr, Z_te):
            mu, sd = y.mean(), y.std()
            return mu + sd * run(S_tr, S_te, (y - mu) / sd, Z_tr, Z_te)
        return wrapped

    return {
        "SimilaritySVR": ours(SimilaritySVR()),
        "SimilarityKernelRidge": ours(SimilarityKernelRidge()),
        "SimilaritySVR(C=1) (the former default)": ours(SimilaritySVR(C=1.0)),
        "SimilarityKernelRidge(alpha=1) (the former default)": ours(SimilarityKernelRidge(alpha=1.0)),
        "SimilarityFeatureSVR (linear)": ours(SimilarityFeatureSVR()),
        "SimilarityFeatureSVR(kernel='rbf')": ours(SimilarityFeatureSVR(kernel="rbf")),
        "kNN-regressor (uniform, k=5)": ours(SimilarityKNeighborsRegressor()),
        "kNN-regressor (KRI)": ours(SimilarityKNeighborsRegressor(weights="kri")),
        "kNN-regressor (KRR)": ours(SimilarityKNeighborsRegressor(weights="krr")),
        "SimilaritySVR(normalize_y=False)": ours(SimilaritySVR(normalize_y=False)),
        "SimilarityKernelRidge(normalize_y=False)": ours(SimilarityKernelRidge(normalize_y=False)),
        "sklearn SVR on clip(S)": sk(SVR(kernel="precomputed")),
        "sklearn KernelRidge on clip(S)": sk(KernelRidge(kernel="precomputed")),
        "sklearn RBF SVR on features": rbf,
        "sklearn SVR on clip(S), y standardised": standardised(sk(SVR(kernel="precomputed"))),
        "sklearn KernelRidge on clip(S), y standardised":
            standardised(sk(KernelRidge(kernel="precomputed"))),
        "sklearn RBF SVR on features, y standardised": standardised(rbf),
    }


def accuracy(n_splits=5):
    from sklearn.metrics import r2_score

    data = targets()
    meth = methods()
    scores = {(m, t): [] for m in meth for t in data}
    for t, (S, y, Z, desc) in data.items():
        neg = int(np.sum(np.linalg.eigvalsh(S) < -1e-10))
        print(f"{t}: n={len(y)}, {neg} negative eigenvalues; {desc}")
        for tr, te in ShuffleSplit(n_splits, test_size=0.3, random_state=0).split(y):
            S_tr, S_te = S[np.ix_(tr, tr)], S[np.ix_(te, tr)]
            for m, run in meth.items():
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    pred = run(S_tr, S_te, y[tr], Z[tr], Z[te])
                scores[m, t].append(r2_score(y[te], pred))
    names = list(data)
    print("\n| method | " + " | ".join(names) + " |")
    print("|---|" + "---|" * len(names))
    for m in meth:
        cells = []
        for t in names:
            v = np.asarray(scores[m, t])
            cells.append(f"{v.mean():.3f} +- {v.std(ddof=1) / np.sqrt(len(v)):.3f}")
        print(f"| {m} | " + " | ".join(cells) + " |")
    print("\nPaired differences of R^2 over the same splits, mean +- s.e. (t statistic):")
    print("\n| ours - scikit-learn | " + " | ".join(names) + " |")
    print("|---|" + "---|" * len(names))
    for a, b in PAIRS:
        cells = []
        for t in names:
            d = np.asarray(scores[a, t]) - np.asarray(scores[b, t])
            se = d.std(ddof=1) / np.sqrt(len(d))
            cells.append(f"{d.mean():+.3f} +- {se:.3f} ({d.mean() / se if se > 0 else 0.0:+.1f})")
        print(f"| {a} - {b} | " + " | ".join(cells) + " |")
    return scores


#: The paired comparisons printed under the table.
PAIRS = [("SimilaritySVR", "SimilaritySVR(C=1) (the former default)"),
         ("SimilarityKernelRidge", "SimilarityKernelRidge(alpha=1) (the former default)"),
         ("SimilaritySVR", "sklearn SVR on clip(S)"),
         ("SimilarityKernelRidge", "sklearn KernelRidge on clip(S)"),
         ("SimilaritySVR", "sklearn SVR on clip(S), y standardised"),
         ("SimilarityKernelRidge", "sklearn KernelRidge on clip(S), y standardised"),
         ("SimilaritySVR", "sklearn RBF SVR on features, y standardised")]


def auto_speed(S, y, repeats):
    """``C="auto"`` / ``alpha="auto"`` against scikit-learn's search over the same grid
    on the same corrected matrix, the correction counted on both sides: the SVR against
    ``GridSearchCV(SVR(kernel="precomputed"), AUTO_C, 5 shuffled folds)`` on the
    clipped matrix; kernel ridge against ``RidgeCV(alphas=AUTO_ALPHAS,
    fit_intercept=False, gcv_mode="eigen")`` (exact leave-one-out, scikit-learn's
    closed form) on a factor ``X`` of the clipped matrix (``X X^T = K``), which is
    kernel ridge on ``K``; the choices are asserted equal."""
    from sklearn.linear_model import RidgeCV
    from sklearn.model_selection import GridSearchCV, KFold

    from proxlearn.kernel_ridge._kernel_ridge import AUTO_ALPHAS
    from proxlearn.svm._kernel_svr import AUTO_C

    clock = time.process_time
    t = (y - y.mean()) / y.std()
    n = len(y)
    scale = np.trace(S) / n

    def sk_svr():
        K = SpectrumTransformer("clip").fit_transform(S / scale)
        return GridSearchCV(SVR(kernel="precomputed"), {"C": list(AUTO_C)},
                            cv=KFold(5, shuffle=True, random_state=0),
                            scoring="neg_mean_squared_error").fit(K, t)

    def sk_ridge():
        st = SpectrumTransformer("clip").fit(S / scale)
        X = st.eigenvectors_ * np.sqrt(st.modified_eigenvalues_)
        return RidgeCV(alphas=AUTO_ALPHAS, fit_intercept=False, gcv_mode="eigen").fit(X, t)

    times, out = timed_alternating({
        "SimilaritySVR (C='auto')": lambda: SimilaritySVR().fit(S, y),
        "clip + GridSearchCV(SVR, C grid, 5 folds)": sk_svr,
    }, repeats, clock)
    ours, theirs = out["SimilaritySVR (C='auto')"], out["clip + GridSearchCV(SVR, C grid, 5 folds)"]
    print(f"C_ = {ours.C_}, GridSearchCV: {theirs.best_params_} (folds see the correction "
          "of all n rows there, their own block's here: the choices may differ)")
    times2, out2 = timed_alternating({
        "SimilarityKernelRidge (alpha='auto')": lambda: SimilarityKernelRidge().fit(S, y),
        "clip + RidgeCV(eigen, LOO) on a factor of K": sk_ridge,
    }, repeats, clock)
    a, b = out2["SimilarityKernelRidge (alpha='auto')"].alpha_, \
        out2["clip + RidgeCV(eigen, LOO) on a factor of K"].alpha_
    print(f"alpha_ = {a}, RidgeCV alpha_ = {b}")
    assert np.isclose(a, b)
    print("\n| what | median CPU s |\n|---|---|")
    for k, v in {**times, **times2}.items():
        print(f"| {k} | {v:.3f} |")


def speed(repeats=5, n=2000, m=500, auto=False):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(n + m, 10))
    S_all = np.tanh(X @ X.T / 10 - 0.5)
    S, S_te = S_all[:n, :n].copy(), S_all[n:, :n].copy()
    y = np.sin(X[:n, 0]) + X[:n, 1]
    print(f"n = {n}: {int(np.sum(np.linalg.eigvalsh(S) < -1e-10))} negative eigenvalues; "
          f"load average {open('/proc/loadavg').read().split()[:3]}")
    K = SpectrumTransformer("clip").fit_transform(S)
    lit = {"normalize": False, "normalize_y": False}
    clock = time.process_time

    def by_hand(model):
        return lambda: model.fit(SpectrumTransformer("clip").fit_transform(S), y)

    if auto:
        auto_speed(S, y, repeats)
        return
    t, _ = timed_alternating({
        "SimilaritySVR(C=1)": lambda: SimilaritySVR(C=1.0).fit(S, y),
        "SimilaritySVR(C=1) (literal)": lambda: SimilaritySVR(C=1.0, **lit).fit(S, y),
        "clip + sklearn SVR": by_hand(SVR(kernel="precomputed")),
        "sklearn SVR on K only": lambda: SVR(kernel="precomputed").fit(K, y),
    }, repeats, clock)
    t2, _ = timed_alternating({
        "SimilarityKernelRidge(alpha=1)": lambda: SimilarityKernelRidge(alpha=1.0).fit(S, y),
        "clip + sklearn KernelRidge": by_hand(KernelRidge(kernel="precomputed")),
        "sklearn KernelRidge on K only": lambda: KernelRidge(kernel="precomputed").fit(K, y),
    }, repeats, clock)
    scaled = S / np.trace(S) * n  # SimilarityFeatureSVR's rows at normalize=True
    gamma = 1.0 / (scaled.var() * n)
    t4, _ = timed_alternating({
        "SimilarityFeatureSVR(kernel='rbf')": lambda: SimilarityFeatureSVR(kernel="rbf").fit(S, y),
        "SimilarityFeatures('rbf') + sklearn SVR": lambda: SVR(kernel="precomputed").fit(
            SimilarityFeatures("rbf", gamma=gamma).fit_transform(scaled), (y - y.mean()) / y.std()),
    }, repeats, clock)
    D, D_te = 1.0 - S, 1.0 - S_te  # the same neighbours: largest similarity = smallest 1 - S
    ours_knn = SimilarityKNeighborsRegressor().fit(S, y)
    sk_knn = KNeighborsRegressor(metric="precomputed").fit(D, y)
    t3, out = timed_alternating({
        "kNN-regressor predict (500 rows)": lambda: ours_knn.predict(S_te),
        "sklearn KNeighborsRegressor predict": lambda: sk_knn.predict(D_te),
    }, repeats, clock)
    assert np.allclose(out["kNN-regressor predict (500 rows)"],
                       out["sklearn KNeighborsRegressor predict"])
    print("\n| what | median CPU s |\n|---|---|")
    for k, v in {**t, **t2, **t4, **t3}.items():
        print(f"| {k} | {v:.3f} |")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--accuracy", action="store_true")
    ap.add_argument("--speed", action="store_true")
    ap.add_argument("--auto", action="store_true",
                    help="with --speed: C='auto' / alpha='auto' against scikit-learn's searches")
    ap.add_argument("--repeats", type=int, default=5)
    args = ap.parse_args(argv)
    if args.accuracy or not args.speed:
        accuracy()
    if args.speed:
        speed(args.repeats, auto=args.auto)


if __name__ == "__main__":
    main()
