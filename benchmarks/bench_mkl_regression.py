"""MKL regression on real targets (issue 37 item 3): SimpleMKLRegressor and
LpMKLKernelRidge on Zhuang's base-kernel bank against scikit-learn's SVR (RBF,
``gamma="scale"``) and KernelRidge on the bank's average kernel.

Targets (UCI files of ../shared/data/uci, one continuous column predicted from the
others):

* ``bupa-drinks``: half-pint drinks per day from the five blood tests (liver
  disorders, n = 345; the column the UCI documentation names as the target);
* ``glass-ri``: the refractive index from the eight oxide percentages (glass, n = 214).

Five random 70/30 splits (seeds 0-4); R^2 on the test part, mean +- standard error;
fit time as process CPU seconds (one BLAS thread), median over the splits. Every
model sees the same z-scored features (the bank z-scores its own).

    python benchmarks/bench_mkl_regression.py [--splits 5] [--out table.md]
    python benchmarks/bench_mkl_regression.py --speed   # m = 1 at n = 2,000 against SVR / KernelRidge
    python benchmarks/bench_mkl_regression.py --one-class   # novelty AUC, SimpleMKLOneClass
"""

from __future__ import annotations

import _bench_env  # noqa: F401  (one thread, this tree's src first)

import argparse
import time
import warnings
from pathlib import Path

import numpy as np
from sklearn.compose import TransformedTargetRegressor
from sklearn.kernel_ridge import KernelRidge
from sklearn.metrics import r2_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVR

from proxlearn.mkl import KernelBank, LpMKLKernelRidge, SimpleMKLRegressor

DATA = [Path(__file__).resolve().parents[1].parent / "shared" / "data" / "uci",
        Path("/work/shared/data/uci")]


def _file(name):
    for d in DATA:
        if (d / name).is_file():
            return d / name
    raise SystemExit(f"{name} not found in {DATA} (../shared/data/uci)")


def load(target):
    if target == "bupa-drinks":
        A = np.loadtxt(_file("bupa.data"), delimiter=",", skiprows=1)
        return A[:, :5], A[:, 5]
    if target == "glass-ri":
        A = np.loadtxt(_file("glass.data"), delimiter=",")
        return A[:, 2:10], A[:, 1]
    raise ValueError(target)


class AverageKernelRidge:
    """KernelRidge (alpha=1, scikit-learn's default) on the bank's average kernel, the
    target centred by its training mean (KernelRidge has no intercept)."""

    def fit(self, X, y):
        self.bank_ = KernelBank().fit(X)
        self.mean_ = y.mean()
        self.krr_ = KernelRidge(kernel="precomputed").fit(self.bank_.stack().mean(axis=2),
                                                          y - self.mean_)
        return self

    def predict(self, X):
        return self.mean_ + self.krr_.predict(self.bank_.stack(X).mean(axis=2))


BASELINE = "KernelRidge on the bank's average kernel"


def methods():
    rbf = lambda: make_pipeline(StandardScaler(), SVR(kernel="rbf", gamma="scale"))  # noqa: E731
    return {
        "SimpleMKLRegressor(bank=KernelBank())": lambda: SimpleMKLRegressor(bank=KernelBank()),
        "LpMKLKernelRidge(bank=KernelBank())": lambda: LpMKLKernelRidge(bank=KernelBank()),
        "LpMKLKernelRidge(p=1, bank=KernelBank())":
            lambda: LpMKLKernelRidge(p=1.0, bank=KernelBank()),
        "SVR(rbf, gamma='scale') [sklearn defaults]": rbf,
        "SVR(rbf, gamma='scale'), standardised y": lambda: TransformedTargetRegressor(
            rbf(), transformer=StandardScaler()),
        "KernelRidge on the bank's average kernel": AverageKernelRidge,
    }


def run(targets, n_splits):
    rows = []
    for target in targets:
        X, y = load(target)
        n = len(y)
        per_split = {}
        for name, make in methods().items():
            scores, times, extra = [], [], []
            for seed in range(n_splits):
                perm = np.random.default_rng(seed).permutation(n)
                tr, te = perm[: int(0.7 * n)], perm[int(0.7 * n):]
                est = make()
                t0 = time.process_time()
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    est.fit(X[tr], y[tr])
                times.append(time.process_time() - t0)
                scores.append(r2_score(y[te], est.predict(X[te])))
                if hasattr(est, "weights_"):
                    extra.append((int(np.sum(est.weights_ > 1e-6)), est.n_kernels_,
                                  est.gap_ / abs(est.objective_), est.n_iter_))
            s = np.asarray(scores)
            note = ""
            if extra:
                nz, m, gap, it = zip(*extra)
                note = (f"{np.median(nz):.0f} of {m[0]} kernels, rel. gap <= {max(gap):.1e}, "
                        f"{np.median(it):.0f} iter")
            per_split[name] = s
            rows.append([target, name, s.mean(), s.std(ddof=1) / np.sqrt(len(s)),
                         float(np.median(times)), note, s])
            print(f"{target:12s} {name:45s} R^2 {s.mean():.3f} +- {rows[-1][3]:.3f}  "
                  f"fit {rows[-1][4]:.3f} s  {note}", flush=True)
        base = per_split[BASELINE]
        for row in rows:  # paired difference with the baseline, over the same splits
            if row[0] == target:
                diff = row[6] - base
                row[6] = (diff.mean(), diff.std(ddof=1) / np.sqrt(len(diff)))
    return rows


def table(rows):
    out = ["| target | method | R^2 (mean +- s.e.) | minus KRR(average), paired | "
           "fit CPU s (median) | weights / certificate |", "|---|---|---|---|---|---|"]
    for target, name, mean, se, t, note, (dm, ds) in rows:
        paired = "" if name == BASELINE else f"{dm:+.3f} +- {ds:.3f}"
        out.append(f"| {target} | {name} | {mean:.3f} +- {se:.3f} | {paired} | {t:.3f} | "
                   f"{note} |")
    return "\n".join(out)


def speed(n=2000, repeats=3, seed=0):
    """Fit CPU time at ``m = 1`` (where the weight is 1 and the model is the wrapped
    scikit-learn one) against that estimator on the same PSD kernel, A/B alternating,
    medians of ``repeats``: the overhead of the MKL machinery (validation, the
    certificate, the PSD test of ``spectrum=None``)."""
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, 5))
    y = np.sin(2 * x[:, 0]) + x[:, 1] * x[:, 2] + 0.3 * rng.normal(size=n)
    sq = np.sum(x**2, axis=1)
    K = np.exp(-np.maximum(sq[:, None] + sq[None, :] - 2 * x @ x.T, 0) / 10.0)
    pairs = {
        "SimpleMKLRegressor vs SVR(precomputed), tol 1e-7 both": (
            lambda: SimpleMKLRegressor(spectrum=None, normalize=False, normalize_y=False),
            lambda: SVR(kernel="precomputed", tol=1e-7)),
        "SimpleMKLRegressor vs SVR(precomputed) at its default tol 1e-3": (
            lambda: SimpleMKLRegressor(spectrum=None, normalize=False, normalize_y=False),
            lambda: SVR(kernel="precomputed")),
        "LpMKLKernelRidge(fit_intercept=False) vs KernelRidge(precomputed)": (
            lambda: LpMKLKernelRidge(spectrum=None, normalize=False, fit_intercept=False),
            lambda: KernelRidge(kernel="precomputed")),
        "SimpleMKLRegressor(spectrum='clip') vs SVR(precomputed), tol 1e-7": (
            lambda: SimpleMKLRegressor(normalize=False, normalize_y=False),
            lambda: SVR(kernel="precomputed", tol=1e-7)),
    }
    out = ["| n = %d, m = 1 | ours CPU s | scikit-learn CPU s | ratio |" % n, "|---|---|---|---|"]
    for name, (ours, theirs) in pairs.items():
        t = {"a": [], "b": []}
        for _ in range(repeats):
            for key, make in (("a", ours), ("b", theirs)):
                est = make()
                t0 = time.process_time()
                est.fit(K, y)
                t[key].append(time.process_time() - t0)
        a, b = np.median(t["a"]), np.median(t["b"])
        out.append(f"| {name} | {a:.2f} | {b:.2f} | {a / b:.2f} |")
        print(out[-1], flush=True)
    return "\n".join(out)


def load_one_class(name):
    """Features and a boolean 'normal' mask: the majority class is normal."""
    if name == "breast":
        A = np.loadtxt(_file("breast.data"), delimiter=",")
        X, lab = A[:, 2:], A[:, 0]  # column 2 is the sample code number
    elif name == "heart":
        A = np.loadtxt(_file("heart.dat"), skiprows=1)
        X, lab = A[:, :-1], A[:, -1]
    elif name == "ionosphere":
        A = np.genfromtxt(_file("ionosphere.data"), delimiter=",", skip_header=1, dtype=str)
        X, lab = A[:, :-1].astype(float), A[:, -1]
    else:
        raise ValueError(name)
    values, counts = np.unique(lab, return_counts=True)
    return X, lab == values[np.argmax(counts)]


def one_class(sets=("breast", "heart", "ionosphere"), n_splits=5):
    """Novelty detection: train on 70 % of the majority class, rank the rest of it
    against the other class by ``score_samples``; AUC, mean +- s.e. over the splits."""
    from sklearn.metrics import roc_auc_score
    from sklearn.svm import OneClassSVM

    from proxlearn.mkl import SimpleMKLOneClass

    class AverageOneClass:
        def fit(self, X):
            self.bank_ = KernelBank().fit(X)
            self.oc_ = OneClassSVM(kernel="precomputed").fit(self.bank_.stack().mean(axis=2))
            return self

        def score_samples(self, X):
            return self.oc_.score_samples(self.bank_.stack(X).mean(axis=2))

    makers = {
        "SimpleMKLOneClass(bank=KernelBank())": lambda: SimpleMKLOneClass(bank=KernelBank()),
        "OneClassSVM(rbf, gamma='scale'), z-scored": lambda: make_pipeline(
            StandardScaler(), OneClassSVM(gamma="scale")),
        "OneClassSVM on the bank's average kernel": AverageOneClass,
    }
    out = ["| data set | method | AUC (mean +- s.e.) | fit CPU s (median) | kernels kept |",
           "|---|---|---|---|---|"]
    for name in sets:
        X, normal = load_one_class(name)
        idx_n, idx_o = np.flatnonzero(normal), np.flatnonzero(~normal)
        for label, make in makers.items():
            aucs, times, kept = [], [], []
            for seed in range(n_splits):
                perm = np.random.default_rng(seed).permutation(idx_n)
                tr, te_n = perm[: int(0.7 * perm.size)], perm[int(0.7 * perm.size):]
                te = np.concatenate([te_n, idx_o])
                est = make()
                t0 = time.process_time()
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    est.fit(X[tr])
                times.append(time.process_time() - t0)
                aucs.append(roc_auc_score(normal[te], est.score_samples(X[te])))
                if hasattr(est, "weights_"):
                    kept.append(f"{int(np.sum(est.weights_ > 1e-6))} of {est.n_kernels_}")
            a = np.asarray(aucs)
            out.append(f"| {name} | {label} | {a.mean():.3f} +- "
                       f"{a.std(ddof=1) / np.sqrt(a.size):.3f} | {np.median(times):.3f} | "
                       f"{kept[0] if kept else ''} |")
            print(out[-1], flush=True)
    return "\n".join(out)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--splits", type=int, default=5)
    ap.add_argument("--targets", nargs="+", default=["bupa-drinks", "glass-ri"])
    ap.add_argument("--out")
    ap.add_argument("--speed", action="store_true",
                    help="instead: fit time at m = 1 against the wrapped scikit-learn model")
    ap.add_argument("--one-class", action="store_true",
                    help="instead: SimpleMKLOneClass's novelty AUC on three UCI sets")
    args = ap.parse_args(argv)
    md = (speed() if args.speed else one_class(n_splits=args.splits) if args.one_class
          else table(run(args.targets, args.splits)))
    print(md)
    if args.out:
        Path(args.out).write_text(md + "\n")


if __name__ == "__main__":
    main()
