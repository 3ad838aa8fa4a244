"""Convex MKL on Zhuang's base-kernel banks: spectral projected gradient against
SimpleMKL's reduced gradient (the two solvers of ``proxlearn.mkl.simple_mkl``).

    .venv/bin/python benchmarks/bench_mkl_spg.py [--repeats 3] [--sets ionosphere,sonar,splice]

Problem: ``min_{d in simplex} omega(sum_k d_k K_k)`` on the bank of one 50/50
training half (``KernelBank()``: 13 kernels per feature set, m = 442 for
Ionosphere, 793 for Sonar and Splice), with the study's settings (``tol = 1e-3``,
``max_iter = 100``, section ``zhuang2011-mkl``'s ``mkl-level``). A = ``solver="spg"``,
B = ``solver="reduced-gradient"``, alternating, medians of the times; each run's
objective (lower is better: both minimise the same convex function), certified
relative gap and number of kernels with weight are printed. Run it with one BLAS
thread (``OMP_NUM_THREADS=1``). The data come from ``../shared/data/uci``; a set
that is missing is skipped with a message.
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from bench_zhuang_mkl import training_half  # noqa: E402

from proxlearn.mkl import KernelBank, simple_mkl  # noqa: E402


def run(Ks, y, C, solver):
    t = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the reduced gradient stops at max_iter
        res = simple_mkl(Ks, y, C, tol=1e-3, max_iter=100, solver=solver)
    return time.perf_counter() - t, res


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--sets", default="ionosphere,sonar,splice")
    ap.add_argument("--C", default="1,10,100")
    args = ap.parse_args()
    print("| data | m | C | A: spg | B: reduced gradient | B / A | objective A / B | "
          "rel. gap A / B | kernels A / B |")
    print("|---|---|---|---|---|---|---|---|---|")
    for name in args.sets.split(","):
        data = training_half(name)
        if data is None:
            continue
        X, y = data
        Ks = KernelBank().fit(X).stack()
        for C in (float(c) for c in args.C.split(",")):
            ta, tb = [], []
            for _ in range(args.repeats):
                t, ra = run(Ks, y, C, "spg")
                ta.append(t)
                t, rb = run(Ks, y, C, "reduced-gradient")
                tb.append(t)
            a, b = float(np.median(ta)), float(np.median(tb))
            print(f"| {name} | {Ks.shape[2]} | {C:g} | {a:.2f} s | {b:.2f} s | {b / a:.1f}x | "
                  f"{ra.objective:.6g} / {rb.objective:.6g} | "
                  f"{ra.gap / abs(ra.objective):.2g} / {rb.gap / abs(rb.objective):.2g} | "
                  f"{np.count_nonzero(ra.weights)} / {np.count_nonzero(rb.weights)} |", flush=True)


if __name__ == "__main__":
    main()
