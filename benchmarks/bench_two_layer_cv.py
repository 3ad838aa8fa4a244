"""TwoLayerMKLCV against GridSearchCV over the same C grid (issue 40 item 4).

TwoLayerMKLCV builds the bank once per fold and walks the grid upwards with warm
starts; GridSearchCV(TwoLayerMKL(bank=KernelBank())) rebuilds the bank for every
(C, fold) and starts every fit cold. Same folds (StratifiedKFold(5)), same grid
(the thesis's {0.01, ..., 100}), one random 50/50 split's training half; the two are
timed alternately (A/B), median of ``--repeats``. Prints the times, their ratio and
the C each picks. Run: ``python benchmarks/bench_two_layer_cv.py [--sets heart,sonar]``.
"""

import argparse
import time
import warnings

import numpy as np
from sklearn.model_selection import GridSearchCV, StratifiedKFold, StratifiedShuffleSplit


def main():
    from proxlearn.datasets import load_feature_dataset
    from proxlearn.mkl import KernelBank, TwoLayerMKL, TwoLayerMKLCV
    from proxlearn.mkl._cv import ZHUANG_CS

    ap = argparse.ArgumentParser()
    ap.add_argument("--sets", default="heart,liver")
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
    warnings.simplefilter("ignore")
    for name in args.sets.split(","):
        ds = load_feature_dataset(name)
        X, y = np.asarray(ds.X, dtype=np.float64), np.asarray(ds.labels)
        tr, _ = next(StratifiedShuffleSplit(1, test_size=0.5, random_state=0).split(X, y))
        X, y = X[tr], y[tr]
        cv = StratifiedKFold(5)

        def ours():
            return TwoLayerMKLCV(bank=KernelBank(), cv=cv).fit(X, y).best_C_

        def grid():
            gs = GridSearchCV(TwoLayerMKL(bank=KernelBank()), {"C": list(ZHUANG_CS)}, cv=cv)
            return gs.fit(X, y).best_params_["C"]

        times = {"cv": [], "grid": []}
        picks = {}
        for _ in range(args.repeats):
            for key, fn in (("cv", ours), ("grid", grid)):
                t = time.perf_counter()
                picks[key] = fn()
                times[key].append(time.perf_counter() - t)
        a, b = np.median(times["cv"]), np.median(times["grid"])
        print(f"{name}: TwoLayerMKLCV {a:.1f} s (C={picks['cv']:g}), GridSearchCV {b:.1f} s "
              f"(C={picks['grid']:g}), ratio {b / a:.2f}", flush=True)


if __name__ == "__main__":
    main()
