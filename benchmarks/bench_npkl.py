"""SimpleNPKL against the NPKL semidefinite program, and SimpleNPKL's growth in n.

Part 1 (``--sizes``): on two moons of n points with constraints drawn at r = 0.7,
time SimpleNPKL and cvxpy's solve of the *same* problem (``NPKL``, Clarabel and
SCS), alternating A and B, medians; also the thesis's own pairing NPKL-HL (hinge)
against SimpleNPKL-SHL. Objectives are printed so the ratio compares equal answers.

Part 2 (``--growth``): SimpleNPKL-LL and -SHL on n = 2,000 ... 8,000 points of a
3-class Gaussian mixture in 10-D (r = 0.7, k = 5, B = 1, C = 0.1), time and peak
memory (tracemalloc of the Python heap plus numpy buffers), and the least-squares
growth exponent of time in n.

Run: ``python benchmarks/bench_npkl.py [--sizes 100 200] [--growth 2000 4000 8000]``.
"""

from __future__ import annotations

import argparse
import time
import tracemalloc
import warnings

import numpy as np
from sklearn.datasets import make_blobs, make_moons

from _timing import timed_alternating
from proxlearn.cluster import NPKL, SimpleNPKL, make_pairwise_constraints


def versus_sdp(sizes, repeats=3):
    rows = []
    for n in sizes:
        X, y = make_moons(n, noise=0.06, random_state=0)
        pc = make_pairwise_constraints(y, r=0.7, random_state=0)
        fns = {
            "simple-ll": lambda: SimpleNPKL("linear", C=0.1).fit(X, pc),
            "sdp-ll-scs": lambda: NPKL("linear", C=0.1, solver="SCS", max_samples=10**4).fit(X, pc),
            "simple-shl": lambda: SimpleNPKL("square-hinge", C=0.1, tol=1e-6).fit(X, pc),
            "sdp-shl-scs": lambda: NPKL("square-hinge", C=0.1, solver="SCS",
                                        max_samples=10**4).fit(X, pc),
            "sdp-hl-scs": lambda: NPKL("hinge", C=0.1, solver="SCS", max_samples=10**4).fit(X, pc),
        }
        if n <= 100:
            fns["sdp-ll-clarabel"] = lambda: NPKL("linear", C=0.1, solver="CLARABEL").fit(X, pc)
            fns["sdp-shl-clarabel"] = lambda: NPKL("square-hinge", C=0.1,
                                                   solver="CLARABEL").fit(X, pc)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            t, out = timed_alternating(fns, repeats)
        obj = {k: v.objective_ for k, v in out.items()}
        rows.append((n, len(pc), t, obj))
        print(f"n = {n} ({len(pc)} pairs)")
        for k in fns:
            print(f"  {k:18s} {t[k]:8.3f} s  objective {obj[k]:.6f}")
        print(f"  LL:  SCS / SimpleNPKL = {t['sdp-ll-scs'] / t['simple-ll']:.1f}x"
              + (f", Clarabel / SimpleNPKL = {t['sdp-ll-clarabel'] / t['simple-ll']:.1f}x"
                 if "sdp-ll-clarabel" in t else ""))
        print(f"  SHL: SCS / SimpleNPKL = {t['sdp-shl-scs'] / t['simple-shl']:.1f}x"
              + (f", Clarabel / SimpleNPKL = {t['sdp-shl-clarabel'] / t['simple-shl']:.1f}x"
                 if "sdp-shl-clarabel" in t else ""))
        print(f"  thesis pairing NPKL-HL (SCS) / SimpleNPKL-SHL = "
              f"{t['sdp-hl-scs'] / t['simple-shl']:.1f}x", flush=True)
    return rows


def growth(sizes):
    pts = {"linear": [], "square-hinge": []}
    for n in sizes:
        X, y = make_blobs(n, n_features=10, centers=3, cluster_std=3.0, random_state=0)
        pc = make_pairwise_constraints(y, r=0.7, random_state=0)
        for loss in pts:
            tracemalloc.start()
            t = time.perf_counter()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                est = SimpleNPKL(loss, C=0.1, tol=1e-4).fit(X, pc)
            sec = time.perf_counter() - t
            peak = tracemalloc.get_traced_memory()[1] / 2**20
            tracemalloc.stop()
            pts[loss].append((n, sec))
            print(f"n = {n:6d} ({len(pc)} pairs) {loss:13s} {sec:8.2f} s, peak {peak:7.0f} MiB, "
                  f"rank {est.eigenvalues_.size}, {est.n_iter_} iterations, "
                  f"{est.eigen_solver_}", flush=True)
    for loss, p in pts.items():
        if len(p) > 1:
            e = np.polyfit(np.log([a for a, _ in p]), np.log([b for _, b in p]), 1)[0]
            print(f"growth exponent {loss}: {e:.2f}")
    return pts


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="*", default=[100, 200])
    ap.add_argument("--growth", type=int, nargs="*", default=[2000, 4000, 8000])
    ap.add_argument("--repeats", type=int, default=3)
    a = ap.parse_args(argv)
    if a.sizes:
        versus_sdp(a.sizes, a.repeats)
    if a.growth:
        growth(a.growth)


if __name__ == "__main__":
    main()
