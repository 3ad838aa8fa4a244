"""Benchmark: 100,000 raw strings -> landmark similarities -> Nystroem -> linear SVM.

Issue #19's goal: "100,000 random-mutation strings of length 20-60 in 5 classes (a
documented generator) -> Nystroem (m = 1,000) -> linear SVM, on 2 cores, with peak
memory under 4 GB; report wall time of build / fit / predict and the accuracy
against the exact method on a 5,000-object subset".

* Data: :func:`proxlearn.datasets.make_mutated_strings` (``--n``, 5 classes,
  ``--mutation-rate``, default 1.0 so that the classes overlap enough for the
  accuracies to differ; at the generator's default 0.15 every method is at 100%),
  random 80/20 split.
* Measure: ``levenshtein-similarity`` (rapidfuzz, ``1 - d / max(len)``; indefinite).
* Nystroem route: ``m`` random training landmarks; **build** = the ``n_train x m``
  and ``n_test x m`` blocks (``pairwise_similarity``); **fit** =
  ``NystroemSpectrum("clip", landmarks=...)`` + ``LinearSVC``; **predict** = the test
  map and ``LinearSVC.predict``.
* On the first ``--subset`` objects (same generator, 80/20): the exact route
  (the full matrix, ``SimilaritySVC(spectrum="clip")``) and the Nystroem route with the
  same ``m``, for the accuracy comparison.

Peak memory is this process's maximum resident set size (``getrusage``), so run the
script in a fresh process. BLAS threads: ``--threads`` (default 1: on the shared
2-core machine 2 OpenBLAS threads made the fit 16x slower at n = 10,000, 13.2 s
against 0.8 s, as the test suite's conftest notes for small eigendecompositions).

Usage: python benchmarks/bench_strings_pipeline.py [--n 100000] [--m 1000] [--subset 5000]
"""

from __future__ import annotations

import argparse
import resource
import time

import numpy as np
from sklearn.svm import LinearSVC
from threadpoolctl import threadpool_limits

from proxlearn.datasets import make_mutated_strings
from proxlearn.kernel_approximation import NystroemSpectrum
from proxlearn.pairwise import pairwise_similarity
from proxlearn.svm import SimilaritySVC

METRIC = "levenshtein-similarity"


def peak_rss_gib():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024**2  # Linux: kB


def split(n, rng, test=0.2):
    perm = rng.permutation(n)
    k = int(round(test * n))
    return np.sort(perm[k:]), np.sort(perm[:k])


def nystroem_route(X, y, tr, te, m, rng, C_svm):
    """Build the landmark blocks, fit NystroemSpectrum + LinearSVC, predict. Times and accuracy."""
    pos = np.sort(rng.choice(tr.size, size=m, replace=False))
    L = [X[i] for i in tr[pos]]
    t = time.perf_counter()
    C_tr = pairwise_similarity([X[i] for i in tr], L, metric=METRIC)
    C_te = pairwise_similarity([X[i] for i in te], L, metric=METRIC)
    t_build = time.perf_counter() - t
    t = time.perf_counter()
    ny = NystroemSpectrum("clip", landmarks=pos)
    Phi = ny.fit_transform(C_tr)
    t_ny = time.perf_counter() - t
    del C_tr
    clf = LinearSVC(C=C_svm, dual=True, max_iter=5_000).fit(Phi, y[tr])
    t_fit = time.perf_counter() - t
    del Phi
    t = time.perf_counter()
    acc = float(np.mean(clf.predict(ny.transform(C_te)) == y[te]))
    t_pred = time.perf_counter() - t
    return {"build": t_build, "fit": t_fit, "predict": t_pred, "accuracy": acc,
            "r": ny.n_output_features_, "nystroem_fit": t_ny}


def exact_route(X, y, tr, te, C_svm):
    t = time.perf_counter()
    S = pairwise_similarity(X, metric=METRIC)
    t_build = time.perf_counter() - t
    t = time.perf_counter()
    clf = SimilaritySVC(spectrum="clip", C=C_svm).fit(S[np.ix_(tr, tr)], y[tr])
    t_fit = time.perf_counter() - t
    t = time.perf_counter()
    acc = float(np.mean(clf.predict(S[np.ix_(te, tr)]) == y[te]))
    return {"build": t_build, "fit": t_fit, "predict": time.perf_counter() - t, "accuracy": acc}


def fmt(name, r):
    extra = (f", r = {r['r']} (fit: NystroemSpectrum {r['nystroem_fit']:.1f} s, LinearSVC "
             f"{r['fit'] - r['nystroem_fit']:.1f} s)") if "r" in r else ""
    return (f"{name}: build {r['build']:.1f} s, fit {r['fit']:.1f} s, predict "
            f"{r['predict']:.1f} s, accuracy {r['accuracy']:.4f}{extra}")


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--n", type=int, default=100_000)
    p.add_argument("--m", type=int, default=1_000)
    p.add_argument("--subset", type=int, default=5_000)
    p.add_argument("--mutation-rate", type=float, default=1.0)
    p.add_argument("--C", type=float, default=1.0, help="C of both SVMs")
    p.add_argument("--threads", type=int, default=1)
    a = p.parse_args(argv)
    rng = np.random.default_rng(0)
    t = time.perf_counter()
    X, y = make_mutated_strings(a.n, n_classes=5, mutation_rate=a.mutation_rate,
                                random_state=0)
    print(f"{a.n:,} strings (mutation rate {a.mutation_rate}) in "
          f"{time.perf_counter() - t:.1f} s; m = {a.m}, {METRIC}, {a.threads} BLAS threads")
    out = {}
    with threadpool_limits(limits=a.threads, user_api="blas"):
        tr, te = split(a.n, rng)
        out["nystroem_full"] = nystroem_route(X, y, tr, te, a.m, rng, a.C)
        print(fmt(f"Nystroem, n = {a.n:,} (train {tr.size:,}, test {te.size:,})",
                  out["nystroem_full"]))
        print(f"peak RSS {peak_rss_gib():.2f} GiB")
        Xs, ys = X[: a.subset], y[: a.subset]
        tr, te = split(a.subset, rng)
        out["exact_subset"] = exact_route(Xs, ys, tr, te, a.C)
        print(fmt(f"exact (clip + SVC), n = {a.subset:,}", out["exact_subset"]))
        out["nystroem_subset"] = nystroem_route(Xs, ys, tr, te, a.m, rng, a.C)
        print(fmt(f"Nystroem, n = {a.subset:,}", out["nystroem_subset"]))
    print(f"peak RSS of the whole run {peak_rss_gib():.2f} GiB")
    return out


if __name__ == "__main__":
    main()
