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


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--splits", type=int, default=5)
    ap.add_argument("--targets", nargs="+", default=["bupa-drinks", "glass-ri"])
    ap.add_argument("--out")
    args = ap.parse_args(argv)
    rows = run(args.targets, args.splits)
    md = table(rows)
    print(md)
    if args.out:
        Path(args.out).write_text(md + "\n")


if __name__ == "__main__":
    main()
