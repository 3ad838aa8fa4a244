"""Benchmark: similarity builders (``proxlearn.pairwise.pairwise_similarity``) against
plain Python double loops over the same per-pair library call, and their scaling.

Objects: ``make_mutated_strings`` (lengths 20-60, 5 classes, amino-acid alphabet);
random-walk series of length 30-60 for DTW; sets of 5-25 of 200 items for Jaccard.
Every comparison computes the same unordered pairs (``i <= j``) and checks that
both sides give the identical matrix.

1. Edit distance (goal of issue #19: >= 50x). A: ``pairwise_similarity(X,
   metric="levenshtein")`` (rapidfuzz ``cdist`` per tile); B: a Python double loop
   calling ``rapidfuzz.distance.Levenshtein.distance`` per pair (the library's own
   per-pair C call: the honest baseline). For scale only, also against a loop of
   a pure-Python dynamic-programming edit distance on a subset (``--n-python``).
2. Scaling with ``n_jobs`` 1 vs 2 for Levenshtein (threads) and Smith-Waterman
   (processes), on the machine's 2 cores (shared: the ratio is an upper bound on
   what another load leaves).
3. Alignment throughput (pairs / second, Smith-Waterman, BLOSUM62, gaps 11/1):
   the builder (one parasail query profile per row object) against a loop of
   ``parasail.sw_striped_sat`` without a profile and one of the plain
   ``parasail.sw`` (no SIMD).
4. DTW and Jaccard: builder against a loop of ``dtw.distance_fast`` / the set
   formula.

A and B alternate in every repeat (A first on even repeats, B first on odd ones)
and medians are reported. Usage: python benchmarks/bench_builders.py [--n 1500]
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import parasail
from dtaidistance import dtw
from rapidfuzz.distance import Levenshtein

from proxlearn.datasets import make_mutated_strings
from proxlearn.pairwise import pairwise_similarity


def alternate(fa, fb, repeats):
    """Median wall times of ``fa()`` and ``fb()``, run alternately, and their last results."""
    ta, tb, ra, rb = [], [], None, None
    for r in range(repeats):
        for which in ((0, 1) if r % 2 == 0 else (1, 0)):
            t = time.perf_counter()
            if which == 0:
                ra = fa()
                ta.append(time.perf_counter() - t)
            else:
                rb = fb()
                tb.append(time.perf_counter() - t)
    return float(np.median(ta)), float(np.median(tb)), ra, rb


def loop_upper(f, X):
    """The baseline: a Python double loop over the unordered pairs, mirrored."""
    n = len(X)
    S = np.empty((n, n))
    for i in range(n):
        a = X[i]
        for j in range(i, n):
            S[i, j] = S[j, i] = f(a, X[j])
    return S


def pairs(n):
    return n * (n + 1) // 2


def python_levenshtein(a, b):
    """Textbook dynamic programme, one row at a time (the pure-Python reference)."""
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i]
        for j, cb in enumerate(b, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb)))
        prev = cur
    return prev[-1]


def bench_edit(n, n_python, repeats):
    X, _ = make_mutated_strings(n, random_state=0)
    ta, tb, A, B = alternate(lambda: pairwise_similarity(X, metric="levenshtein"),
                             lambda: loop_upper(Levenshtein.distance, X), repeats)
    assert np.array_equal(A, B)
    print(f"1. Levenshtein, n = {n} ({pairs(n):,} pairs): builder {ta:.3f} s, Python loop "
          f"of Levenshtein.distance {tb:.3f} s, speed-up {tb / ta:.1f}x "
          f"({pairs(n) / ta / 1e6:.1f} M pairs/s vs {pairs(n) / tb / 1e6:.2f} M pairs/s)")
    Z = X[:n_python]
    ta, tb, A, B = alternate(lambda: pairwise_similarity(Z, metric="levenshtein"),
                             lambda: loop_upper(python_levenshtein, Z), 1)
    assert np.array_equal(A, B)
    print(f"1b. Levenshtein, n = {n_python}: builder {ta:.4f} s, pure-Python DP loop "
          f"{tb:.3f} s, speed-up {tb / ta:.0f}x")


def jobs_ratio(label, objects, metric, repeats):
    """n_jobs=1 against n_jobs=2 on the same objects (identical matrices checked)."""
    t1, t2, A, B = alternate(lambda: pairwise_similarity(objects, metric=metric, n_jobs=1),
                             lambda: pairwise_similarity(objects, metric=metric, n_jobs=2),
                             repeats)
    assert np.array_equal(A, B)
    print(f"{label}, n = {len(objects)}: n_jobs=1 {t1:.3f} s, n_jobs=2 {t2:.3f} s, "
          f"ratio {t1 / t2:.2f}")


def bench_jobs(n_lev, n_sw, repeats):
    X, _ = make_mutated_strings(n_lev, random_state=1)
    jobs_ratio("2a. Levenshtein (threads)", X, "levenshtein", repeats)
    P, _ = make_mutated_strings(n_sw, random_state=2)
    # start the loky workers once (their first start costs seconds)
    pairwise_similarity(P[:40], metric="smith-waterman", n_jobs=2, block_size=10)
    jobs_ratio("2b. Smith-Waterman (processes)", P, "smith-waterman", repeats)


def bench_alignment(n, repeats):
    P, _ = make_mutated_strings(n, random_state=3)
    M = parasail.blosum62

    def no_profile():
        return loop_upper(lambda a, b: parasail.sw_striped_sat(a, b, 11, 1, M).score, P)

    ta, tb, A, B = alternate(lambda: pairwise_similarity(P, metric="smith-waterman"),
                             no_profile, repeats)
    assert np.array_equal(A, B)
    tc, _, C, _ = alternate(lambda: loop_upper(lambda a, b: parasail.sw(a, b, 11, 1, M).score,
                                               P), lambda: None, 1)
    assert np.array_equal(A, C)
    k = pairs(n)
    print(f"3. Smith-Waterman, n = {n} ({k:,} pairs): builder (profile per row) "
          f"{k / ta:,.0f} pairs/s; loop of sw_striped_sat without profile {k / tb:,.0f} pairs/s "
          f"(builder {tb / ta:.2f}x); loop of plain parasail.sw {k / tc:,.0f} pairs/s "
          f"(builder {tc / ta:.1f}x)")


def bench_dtw_sets(n_dtw, n_sets, repeats):
    rng = np.random.default_rng(4)
    series = [np.cumsum(rng.normal(size=rng.integers(30, 61))) for _ in range(n_dtw)]
    ta, tb, A, B = alternate(lambda: pairwise_similarity(series, metric="dtw"),
                             lambda: loop_upper(dtw.distance_fast, series), repeats)
    assert np.array_equal(A, B)
    print(f"4a. DTW, n = {n_dtw}: builder {ta:.3f} s, loop of dtw.distance_fast {tb:.3f} s, "
          f"speed-up {tb / ta:.1f}x")
    sets = [set(rng.choice(200, size=rng.integers(5, 26), replace=False).tolist())
            for _ in range(n_sets)]

    def jac(a, b):
        u = len(a | b)
        return len(a & b) / u if u else 1.0

    ta, tb, A, B = alternate(lambda: pairwise_similarity(sets, metric="jaccard"),
                             lambda: loop_upper(jac, sets), repeats)
    assert np.array_equal(A, B)
    print(f"4b. Jaccard, n = {n_sets}: builder {ta:.3f} s, loop of the set formula {tb:.3f} s, "
          f"speed-up {tb / ta:.1f}x")


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--n", type=int, default=1500, help="strings of the edit-distance test")
    p.add_argument("--n-python", type=int, default=100,
                   help="strings of the pure-Python edit-distance loop")
    p.add_argument("--repeats", type=int, default=3)
    a = p.parse_args(argv)
    bench_edit(a.n, a.n_python, a.repeats)
    bench_jobs(2 * a.n, a.n // 3, a.repeats)
    bench_alignment(a.n // 5, a.repeats)
    bench_dtw_sets(a.n // 5, a.n, a.repeats)


if __name__ == "__main__":
    main()
