"""Zhuang (2011) ch. 4-5 feature-data MKL learners at their defaults against an RBF SVM.

Every estimator at its defaults (a ``KernelBank()`` where it takes a bank) against
``SVC(kernel="rbf", gamma="scale")`` on standardised features, on the UCI sets of
``../shared/data/uci``, 5 random stratified 50/50 splits (the same splits for every
column). Prints accuracy mean +- standard error and the median fit time per cell, and
a verdict against the baseline (tied: within 2 standard errors of the paired
differences).

Run: ``python benchmarks/bench_zhuang_defaults.py [--sets heart,sonar] [--methods 2lmkl,svm]
[--cache FILE]``. Cells are cached in a JSON file (``--cache``), so a run can be
resumed and extended. One BLAS thread is assumed (``OMP_NUM_THREADS=1``).
"""

from __future__ import annotations

import argparse
import json
import time
import warnings
from pathlib import Path

import numpy as np
from sklearn.model_selection import StratifiedShuffleSplit
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC

SETS = ("heart", "sonar", "ionosphere", "diabetes", "breast", "australian", "liver")


def _methods():
    from proxlearn.mkl import (
        GMKL,
        IKL,
        KTASVC,
        UMKL,
        ArcCosineSVC,
        KernelBank,
        TwoLayerMKL,
        TwoLayerMKLInf,
    )

    out = {
        "svm-rbf": lambda: make_pipeline(StandardScaler(), SVC(kernel="rbf", gamma="scale")),
        "2lmkl": lambda: TwoLayerMKL(bank=KernelBank()),
        "2lmkl-inf": lambda: TwoLayerMKLInf(),
        "umkl+svm": lambda: make_pipeline(UMKL(bank=KernelBank()), SVC(kernel="precomputed")),
        "ikl": lambda: IKL(),
        "gmkl": lambda: GMKL(),
        "arccos": lambda: ArcCosineSVC(),
        "kta": lambda: KTASVC(bank=KernelBank()),
        # the thesis's literal readings (named options; docs/methods.md)
        "2lmkl-thesis": lambda: TwoLayerMKL(bank=KernelBank(normalize="trace"),
                                            penalty="thesis"),
        "umkl-thesis": lambda: make_pipeline(
            UMKL(bank=KernelBank(normalize="trace"), normalize=None),
            SVC(kernel="precomputed")),
        # the study's diagnostic umkl-raw: no scaling of the bank's kernels at all
        "umkl-raw": lambda: make_pipeline(
            UMKL(bank=KernelBank(normalize=None), normalize=None),
            SVC(kernel="precomputed")),
    }
    try:
        from proxlearn.mkl import TwoLayerMKLCV

        out["2lmkl-cv"] = lambda: TwoLayerMKLCV(bank=KernelBank())
    except ImportError:
        pass
    return out


def _data(name):
    from proxlearn.datasets import load_feature_dataset

    ds = load_feature_dataset(name)
    return np.asarray(ds.X, dtype=np.float64), np.asarray(ds.labels)


def run_cell(method, name, split, make):
    X, y = _data(name)
    sss = StratifiedShuffleSplit(n_splits=5, test_size=0.5, random_state=0)
    tr, te = list(sss.split(X, y))[split]
    est = make()
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        t = time.perf_counter()
        est.fit(X[tr], y[tr])
        fit_s = time.perf_counter() - t
        acc = float(np.mean(est.predict(X[te]) == y[te]))
    kinds = sorted({type(x.message).__name__ for x in w})
    return {"acc": acc, "fit_s": fit_s, "warnings": kinds}


def _cell(cache, meth, s, base="svm-rbf"):
    """``(mean, s.e., verdict, median fit seconds)`` or None; the verdict compares
    with the baseline on the same splits (tied: within 2 s.e. of the differences)."""
    accs = [cache.get(f"{meth}|{s}|{k}", {}).get("acc") for k in range(5)]
    if any(a is None for a in accs):
        return None
    a = 100 * np.array(accs)
    verdict = ""
    b = [cache.get(f"{base}|{s}|{k}", {}).get("acc") for k in range(5)]
    if meth != base and all(v is not None for v in b):
        d = a - 100 * np.array(b)
        se = d.std(ddof=1) / np.sqrt(5)
        verdict = "=" if abs(d.mean()) <= 2 * se else ("+" if d.mean() > 0 else "-")
    t = np.median([cache[f"{meth}|{s}|{k}"]["fit_s"] for k in range(5)])
    return a.mean(), a.std(ddof=1) / np.sqrt(5), verdict, t


def summarise(cache, methods, sets, markdown=False):
    if markdown:
        print("| method | " + " | ".join(sets) + " |")
        print("|---" * (len(sets) + 1) + "|")
    else:
        print(f"{'method':<11}" + "".join(f"{s:>22}" for s in sets))
    for meth in methods:
        cells = [_cell(cache, meth, s) for s in sets]
        if markdown:
            print(f"| {meth} | " + " | ".join(
                "-" if c is None else f"{c[0]:.1f} ± {c[1]:.1f} {c[2]} ({c[3]:.2g} s)"
                for c in cells) + " |")
            continue
        print(f"{meth:<11}" + "".join(
            f"{'-':>22}" if c is None else f"{c[0]:>6.1f}±{c[1]:.1f}{c[2]:1} {c[3]:>6.2f}s  "
            for c in cells))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sets", default=",".join(SETS))
    ap.add_argument("--methods", default=None)
    ap.add_argument("--cache", default="/tmp/bench_zhuang_defaults.json")
    ap.add_argument("--summary", action="store_true", help="print the table only")
    ap.add_argument("--markdown", action="store_true", help="the table in Markdown")
    ap.add_argument("--merge", default="", help="more caches (comma-separated) for the table")
    args = ap.parse_args()
    makers = _methods()
    methods = list(makers) if args.methods is None else args.methods.split(",")
    sets = args.sets.split(",")
    path = Path(args.cache)
    cache = json.loads(path.read_text()) if path.exists() else {}
    if not args.summary:
        for s in sets:
            for meth in methods:
                for k in range(5):
                    key = f"{meth}|{s}|{k}"
                    if key in cache:
                        continue
                    cache[key] = run_cell(meth, s, k, makers[meth])
                    path.write_text(json.dumps(cache, indent=0))
                    print(key, cache[key], flush=True)
    table = dict(cache)
    for extra in filter(None, args.merge.split(",")):
        table.update({k: v for k, v in json.loads(Path(extra).read_text()).items()
                      if k not in table})
    summarise(table, methods, sets, markdown=args.markdown)


if __name__ == "__main__":
    main()
