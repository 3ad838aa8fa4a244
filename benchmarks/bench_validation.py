"""Benchmark: validation overhead of a lazy k-NN fit (issue #19).

``SimilarityKNeighborsClassifier.fit`` only validates and stores the training
matrix, so its time is the validation: shape, finiteness and magnitude checks,
the dissimilarity heuristic, the asymmetry norm and (for asymmetric input) the
symmetrisation. Timed against scikit-learn's
``KNeighborsClassifier(metric="precomputed").fit`` on a matrix of the same size
(scikit-learn needs non-negative distances: it gets ``max(S) - S``), for a
symmetric and an asymmetric ``S``; alternating, medians. Peak traced memory of
our fit in units of the n x n matrix.

Run it once with this ``src`` and once with an older one on ``PYTHONPATH`` to
compare before and after (the table names the library path)::

    python benchmarks/bench_validation.py --n 4000 --repeats 5
"""

from __future__ import annotations

import argparse
import tracemalloc
import warnings

import numpy as np
import proxlearn
from sklearn.neighbors import KNeighborsClassifier
from threadpoolctl import threadpool_limits

from proxlearn.neighbors import SimilarityKNeighborsClassifier
from _timing import timed_alternating  # noqa: E402  (benchmarks/ is on sys.path when run as a script)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=4000)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--threads", type=int, default=1)
    args = ap.parse_args()
    n = args.n
    rng = np.random.default_rng(0)
    y = np.arange(n) % 3
    X = rng.normal(size=(n, 5)) + 2.0 * np.eye(5)[y]
    G = X @ X.T
    S_sym = G + 0.1 * rng.normal(size=(n, n))
    S_sym = 0.5 * (S_sym + S_sym.T)
    S_asym = G + 0.1 * rng.normal(size=(n, n))
    print(f"library: {proxlearn.__file__}")
    print(f"{'n':>6} {'input':>10} {'ours ms':>8} {'sklearn ms':>10} {'ours/sklearn':>12} "
          f"{'peak / nxn':>10}", flush=True)
    with threadpool_limits(args.threads), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for label, S in (("symmetric", S_sym), ("asymmetric", S_asym)):
            D = S.max() - S
            t, _ = timed_alternating({
                "ours": lambda: SimilarityKNeighborsClassifier(n_neighbors=5).fit(S, y),
                "sklearn": lambda: KNeighborsClassifier(n_neighbors=5, metric="precomputed").fit(D, y),
            }, args.repeats)
            tracemalloc.start()
            SimilarityKNeighborsClassifier(n_neighbors=5).fit(S, y)
            peak = tracemalloc.get_traced_memory()[1] / S.nbytes
            tracemalloc.stop()
            print(f"{n:>6} {label:>10} {1e3 * t['ours']:8.1f} {1e3 * t['sklearn']:10.1f} "
                  f"{t['ours'] / t['sklearn']:12.2f} {peak:10.2f}", flush=True)


if __name__ == "__main__":
    main()
