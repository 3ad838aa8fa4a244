"""Benchmark: the landmark block of 100,000 strings, locally and on a Dask LocalCluster.

Issue #19's goal: "a Dask LocalCluster run of the 100,000-string build with 2
workers, identical result to the local run". The build a Nystroem route needs is
the ``n x m`` block of similarities of all ``n`` strings to ``m`` landmarks (the
``n x n`` matrix, 5 * 10^9 pairs and 80 GB, is never formed): ``n = 100,000``
:func:`~proxlearn.datasets.make_mutated_strings` (lengths 20-60, 5 classes), ``m =
1,000`` random landmarks, ``levenshtein-similarity`` (rapidfuzz), written into
``.npy`` memory maps (``out=``) so that neither run holds the 800 MB block in RAM.

* A: ``pairwise_similarity(X, landmarks, out=A.npy)`` in this process (``n_jobs=1``);
* B: the same with ``scheduler=`` a ``distributed.LocalCluster(n_workers=2,
  threads_per_worker=1, processes=True)`` and tiles of 512 (``--dask-block-size``;
  the default 128 makes 6,256 tasks, whose scheduling and result transfers cost
  more than the edit distances: 48 s against 9.6 s locally in a first run).

Reported: wall time of each, whether the two blocks are identical (compared in row
chunks), and this process's peak resident memory (which counts the memory-mapped
pages it touched). Run A first, then B (one run each: the point is the equality
and the order of magnitude, not a ratio).

Usage: python benchmarks/bench_builders_large.py [--n 100000] [--m 1000] [--dir /tmp]
"""

from __future__ import annotations

import argparse
import resource
import tempfile
import time
from pathlib import Path

import numpy as np

from proxlearn.datasets import make_mutated_strings
from proxlearn.pairwise import pairwise_similarity

METRIC = "levenshtein-similarity"


def peak_rss_mib():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # Linux: kB


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--n", type=int, default=100_000)
    p.add_argument("--m", type=int, default=1_000)
    p.add_argument("--dir", default=None, help="folder of the two .npy files (default: a temp dir)")
    p.add_argument("--dask-block-size", type=int, default=512,
                   help="tile side of the Dask run (fewer, larger tasks than the default 128)")
    a = p.parse_args(argv)
    t = time.perf_counter()
    X, _ = make_mutated_strings(a.n, random_state=0)
    rng = np.random.default_rng(0)
    L = [X[i] for i in np.sort(rng.choice(a.n, size=a.m, replace=False))]
    print(f"{a.n:,} strings generated in {time.perf_counter() - t:.1f} s; "
          f"block {a.n:,} x {a.m:,} = {a.n * a.m / 1e6:.0f} M pairs, {METRIC}")
    with tempfile.TemporaryDirectory(dir=a.dir) as tmp:
        tmp = Path(tmp)
        t = time.perf_counter()
        A = pairwise_similarity(X, L, metric=METRIC, out=tmp / "A.npy")
        ta = time.perf_counter() - t
        print(f"A local (n_jobs=1): {ta:.1f} s ({a.n * a.m / ta / 1e6:.1f} M pairs/s), "
              f"peak RSS so far {peak_rss_mib():.0f} MiB")
        import distributed

        with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                      dashboard_address=None) as cluster:
            t = time.perf_counter()
            B = pairwise_similarity(X, L, metric=METRIC, out=tmp / "B.npy",
                                    scheduler=cluster.scheduler_address,
                                    block_size=a.dask_block_size)
            tb = time.perf_counter() - t
        print(f"B Dask LocalCluster (2 worker processes, tiles of {a.dask_block_size}): "
              f"{tb:.1f} s "
              f"({a.n * a.m / tb / 1e6:.1f} M pairs/s)")
        same = all(np.array_equal(A[i:i + 10_000], B[i:i + 10_000])
                   for i in range(0, a.n, 10_000))
        print(f"identical: {same}; peak RSS of this process {peak_rss_mib():.0f} MiB")
        del A, B
    return same


if __name__ == "__main__":
    main()
