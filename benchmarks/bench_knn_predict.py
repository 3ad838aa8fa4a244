"""Benchmark: whole-classifier prediction of KRI and KRR weighted k-NN.

Chen et al. (2009) weighted k-NN at scale: ``--n-test`` test points against
``--n-train`` training points with ``k`` neighbours (defaults 2000, 8000, 64).
The similarity is a noisy (indefinite) RBF similarity on 5-d points. For each
weighting we report the median wall time of ``predict`` over ``--repeats``
runs, the time per test point, and the peak Python-heap memory of one
``predict`` (tracemalloc, which sees numpy's buffers) in units of the m x n
test matrix it was given: neighbour search must not materialise more than that
matrix.

Baseline measured in the same run: one matrix product ``S_test @ X`` with the
same m x n matrix and a thin (n x k) right-hand side, the cheapest pass over the
test matrix any method must make; times are also reported as a ratio to it.

``--memmap`` (issue #19) instead times KRI and KRR ``predict`` on the test
matrix as an ``np.memmap`` file against the same matrix in memory,
alternating, medians, checks that the labels are identical, and reports the
peak Python-heap memory of the memmap ``predict`` (the file's pages are not
heap) in units of the test matrix.

Usage: python benchmarks/bench_knn_predict.py [--n-train 8000] [--n-test 2000] [--k 64] [--memmap]
"""

from __future__ import annotations

import argparse
import time
import tracemalloc

import numpy as np
from threadpoolctl import threadpool_limits

from proxlearn.neighbors import SimilarityKNeighborsClassifier


def make_data(n_train, n_test, dim=5, noise=0.05, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n_train, dim))
    T = rng.standard_normal((n_test, dim))
    y = (X[:, 0] + 0.3 * X[:, 1] > 0).astype(int)

    def rbf(A, B):
        sq = (A**2).sum(1)[:, None] + (B**2).sum(1)[None, :] - 2 * A @ B.T
        return np.exp(-np.maximum(sq, 0.0) / dim)

    S = rbf(X, X)
    N = noise * rng.standard_normal((n_train, n_train))
    S += (N + N.T) / 2
    S_test = rbf(T, X) + noise * rng.standard_normal((n_test, n_train))
    return S, y, S_test


def median_time(fn, repeats):
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return float(np.median(times))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n-train", type=int, default=8000)
    ap.add_argument("--n-test", type=int, default=2000)
    ap.add_argument("--k", type=int, default=64)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--threads", type=int, default=None, help="BLAS threads (default: library default)")
    ap.add_argument("--memmap", action="store_true")
    args = ap.parse_args(argv)
    S, y, S_test = make_data(args.n_train, args.n_test)
    if args.memmap:
        with threadpool_limits(args.threads):
            return memmap_run(S, y, S_test, args.k, args.repeats)
    test_bytes = S_test.nbytes
    rows = []
    with threadpool_limits(args.threads):
        R = np.random.default_rng(1).standard_normal((args.n_train, args.k))
        base = median_time(lambda: S_test @ R, args.repeats)
        for weights, spectrum in (("uniform", None), ("kri", "clip"), ("krr", "pinv"), ("krr", "clip")):
            clf = SimilarityKNeighborsClassifier(
                n_neighbors=args.k, weights=weights, reg=1e-2, spectrum=spectrum
            ).fit(S, y)
            t = median_time(lambda clf=clf: clf.predict(S_test), args.repeats)
            tracemalloc.start()
            clf.predict(S_test)
            _, peak = tracemalloc.get_traced_memory()
            tracemalloc.stop()
            rows.append((f"{weights}/{spectrum or '-'}", t, t / args.n_test * 1e3, t / base, peak / test_bytes))
    print(f"n_train={args.n_train} n_test={args.n_test} k={args.k}; baseline S_test @ (n x k): {base * 1e3:.1f} ms")
    print(f"{'weights':14s} {'predict s':>10s} {'ms/point':>9s} {'x baseline':>11s} {'peak / test matrix':>19s}")
    for name, t, per, ratio, mem in rows:
        print(f"{name:14s} {t:10.3f} {per:9.3f} {ratio:11.1f} {mem:19.2f}")
    return rows


def memmap_run(S, y, S_test, k, repeats):
    import tempfile
    from pathlib import Path

    from _timing import timed_alternating

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "S_test.f64"
        mm = np.memmap(path, dtype=np.float64, mode="w+", shape=S_test.shape)
        mm[:] = S_test
        mm.flush()
        del mm
        mm = np.memmap(path, dtype=np.float64, mode="r", shape=S_test.shape)
        print(f"n_train={S.shape[0]} n_test={S_test.shape[0]} k={k}; test matrix "
              f"{S_test.nbytes / 2**20:.0f} MB")
        print(f"{'weights':14s} {'memmap s':>9s} {'in-memory s':>12s} {'memmap/in-mem':>13s} "
              f"{'same':>5s} {'peak heap / test matrix':>24s}")
        for weights, spectrum in (("kri", "clip"), ("krr", "pinv")):
            clf = SimilarityKNeighborsClassifier(
                n_neighbors=k, weights=weights, reg=1e-2, spectrum=spectrum).fit(S, y)
            t, out = timed_alternating({"mm": lambda clf=clf: clf.predict(mm),
                                        "mem": lambda clf=clf: clf.predict(S_test)}, repeats)
            tracemalloc.start()
            clf.predict(mm)
            peak = tracemalloc.get_traced_memory()[1] / S_test.nbytes
            tracemalloc.stop()
            same = bool(np.array_equal(out["mm"], out["mem"]))
            print(f"{weights + '/' + spectrum:14s} {t['mm']:9.3f} {t['mem']:12.3f} "
                  f"{t['mm'] / t['mem']:13.2f} {str(same):>5s} {peak:24.2f}", flush=True)
        del mm


if __name__ == "__main__":
    main()
