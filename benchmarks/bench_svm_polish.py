"""svm_dual's slow-SMO route, A/B on the kernels where it matters: ESKL-L1 on Liver.

    OMP_NUM_THREADS=1 .venv/bin/python benchmarks/bench_svm_polish.py [--repeats 3]
        [--points 100,10 1,1 10,0.1]

One ESKL-L1 fit (300 iterations) on the first training set of the ``kundu2010``
protocol's Liver stand-in (n = 232), per grid point (C, rho), with the route on (A:
libsvm at 1e-3 + the monotone active-set polish once a chain met a slow solve) and
off (B: libsvm at 1e-7 every time, its 1e-3 answer at the 10^6-iteration cap: the
code before 2026-11-27), A and B alternating, medians. Prints the ratio B / A, the
best objectives (B's is that of inexact SVM answers where libsvm was capped) and the
test accuracy on the partition's test rows. Needs ../shared/data/uci (bupa).
"""

import argparse
import statistics
import time

import numpy as np

import proxlearn._svm._dual as sd
from proxlearn.datasets import load_dataset
from proxlearn.mkl import ESKL
from proxlearn.study._protocols import get_protocol, make_partitions


def fit(S_tr, y_tr, S_te, y_te, C, rho, route):
    saved = sd.SLOW_SMO_PER_SAMPLE, sd._monotone_active_set
    if not route:  # the code before the route: no chain flag, no polish
        sd.SLOW_SMO_PER_SAMPLE = float("inf")
        sd._monotone_active_set = lambda *a, **k: None
    try:
        t = time.perf_counter()
        est = ESKL(loss="l1", C=C, rho=rho).fit(S_tr, y_tr)
        seconds = time.perf_counter() - t
    finally:
        sd.SLOW_SMO_PER_SAMPLE, sd._monotone_active_set = saved
    return seconds, min(est.objective_history_), float(np.mean(est.predict(S_te) == y_te))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--points", nargs="+", default=["100,10", "1,1", "10,0.1"])
    args = ap.parse_args()
    ds = load_dataset("liver-noisy")
    S, y = ds.matrix, np.asarray(ds.labels)
    tr, te = make_partitions(y, get_protocol("kundu2010"), 0)[0]
    S_tr, S_te = S[np.ix_(tr, tr)], S[np.ix_(te, tr)]
    print(f"Liver stand-in, n = {len(tr)} training rows, {len(te)} test rows; "
          f"{args.repeats} repeats, A (route on) and B (off) alternating")
    print("| C, rho | A: route on | B: route off | B / A | best objective A / B | "
          "accuracy A / B |")
    print("|---|---|---|---|---|---|")
    for point in args.points:
        C, rho = (float(v) for v in point.split(","))
        runs = {True: [], False: []}
        for _ in range(args.repeats):
            for route in (True, False):
                runs[route].append(fit(S_tr, y[tr], S_te, y[te], C, rho, route))
        a = statistics.median(r[0] for r in runs[True])
        b = statistics.median(r[0] for r in runs[False])
        print(f"| {C:g}, {rho:g} | {a:.1f} s | {b:.1f} s | {b / a:.1f}x | "
              f"{runs[True][0][1]:.2f} / {runs[False][0][1]:.2f} | "
              f"{runs[True][0][2]:.3f} / {runs[False][0][2]:.3f} |", flush=True)


if __name__ == "__main__":
    main()
