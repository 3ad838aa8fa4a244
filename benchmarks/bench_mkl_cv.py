"""MKLClassifierCV against GridSearchCV over the same C grid and folds (issue 40 item 4).

Both choose ``C`` of an MKL classifier on a :class:`~proxlearn.mkl.KernelBank` by
5-fold stratified CV over Zhuang's grid ``{0.01, ..., 100}``, then refit. GridSearchCV
rebuilds the bank (``13 (d + 1)`` kernels) for every ``(C, fold)``;
MKLClassifierCV builds it once per fold. Runs alternate (A, B, A, B, ...) and the
medians are reported, with the C each chose (the same, by construction: tested in
tests/mkl/test_cv.py) and the test accuracy on split 0 of bench_defaults' panel.

Run from the repository root with one BLAS thread::

    python benchmarks/bench_mkl_cv.py --datasets heart sonar --estimators AverageKernelSVC
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import warnings
from pathlib import Path

for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_v, "1")

import numpy as np  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))
sys.path.insert(0, str(Path(__file__).resolve().parent))
import _defaults_panel as panel  # noqa: E402


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--datasets", nargs="*", default=["heart", "sonar", "liver", "german"])
    ap.add_argument("--estimators", nargs="*", default=["AverageKernelSVC", "SimpleMKL"])
    ap.add_argument("--repeats", type=int, default=2)
    args = ap.parse_args(argv)

    from sklearn.model_selection import GridSearchCV, StratifiedKFold

    import proxlearn.mkl as mkl
    from proxlearn.mkl._cv import ZHUANG_CS

    print("| estimator | data set | n_train | m | MKLClassifierCV s | GridSearchCV s | ratio "
          "| C (ours / GS) | test acc % |")
    print("|---|---|---|---|---|---|---|---|---|")
    for ds in args.datasets:
        X, y, _ = panel.load("feat", ds)
        tr, te = panel.split("feat", ds, 0)
        X_tr, X_te = panel._zscore(X[tr], X[te])
        for name in args.estimators:
            est = getattr(mkl, name)(bank=mkl.KernelBank())
            cv = StratifiedKFold(5, shuffle=True, random_state=0)
            times = {"ours": [], "gs": []}
            for _ in range(args.repeats):
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    t0 = time.perf_counter()
                    ours = mkl.MKLClassifierCV(est, Cs=ZHUANG_CS, cv=cv).fit(X_tr, y[tr])
                    times["ours"].append(time.perf_counter() - t0)
                    t0 = time.perf_counter()
                    gs = GridSearchCV(est, {"C": list(ZHUANG_CS)}, cv=cv).fit(X_tr, y[tr])
                    times["gs"].append(time.perf_counter() - t0)
            a, b = np.median(times["ours"]), np.median(times["gs"])
            acc = 100 * np.mean(ours.predict(X_te) == y[te])
            m = ours.best_estimator_.n_kernels_
            print(f"| {name} | {ds} | {len(tr)} | {m} | {a:.2f} | {b:.2f} | {b / a:.1f}x | "
                  f"{ours.best_C_:g} / {gs.best_params_['C']:g} | {acc:.1f} |", flush=True)


if __name__ == "__main__":
    main()
