"""Benchmark: SimilaritySVC.predict with the test map folded into the dual
coefficients (issue #19) against the unfolded path and scikit-learn.

For a random indefinite 3-class problem with ``n`` training and ``m = n / 2``
test rows it times, alternating, medians of ``--repeats``:

* folded: ``SimilaritySVC.predict(S_test)``: ``S_test @ W + b`` with the
  ``(n, n_pairs)`` weights ``W = P[:, sv] @ coef`` computed at fit time,
  ``O(m n n_pairs)``;
* unfolded: what ``predict`` did before: ``K_test = S_test @ P`` (``O(m n^2)``)
  and libsvm's prediction on it (``svc_.predict(K_test)``);
* sklearn: ``SVC(kernel="precomputed").predict(K_test)`` on the already
  transformed test kernel ``K_test`` (the transform not timed: what a user of
  scikit-learn pays once they have the equivalent kernel),

and checks that the three give the same labels. BLAS is limited to one thread.

Usage: python benchmarks/bench_similarity_svc.py [--sizes 1000,2000] [--repeats 5]
"""

from __future__ import annotations

import argparse

import numpy as np
from sklearn.svm import SVC
from threadpoolctl import threadpool_limits

from proxlearn.svm import SimilaritySVC
from _timing import timed_alternating  # noqa: E402  (benchmarks/ is on sys.path when run as a script)


def problem(n, seed=0, k=3):
    rng = np.random.default_rng(seed)
    m = n + n // 2
    y = np.arange(m) % k
    X = rng.normal(size=(m, 5)) + 2.0 * np.eye(5)[y]
    S = X @ X[:n].T + rng.normal(size=(m, n))
    S[:n] = 0.5 * (S[:n] + S[:n].T)
    return S[:n], y[:n], S[n:]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="1000,2000")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--threads", type=int, default=1)
    args = ap.parse_args()
    print(f"{'n':>6} {'m':>6} {'n_sv':>6} {'folded ms':>10} {'unfolded ms':>12} {'sklearn ms':>11} "
          f"{'unfolded/folded':>15} {'sklearn/folded':>14} {'same labels':>11}", flush=True)
    with threadpool_limits(args.threads):
        for n in (int(v) for v in args.sizes.split(",")):
            S, y, S_test = problem(n)
            clf = SimilaritySVC(C=1.0).fit(S, y)
            K = clf.transformer_._training_kernel()
            K_test = clf.transformer_.transform(S_test)
            ref = SVC(kernel="precomputed", C=1.0).fit(K, y)
            t, out = timed_alternating({
                "folded": lambda: clf.predict(S_test),
                "unfolded": lambda: clf.svc_.predict(clf.transformer_.transform(S_test)),
                "sklearn": lambda: ref.predict(K_test),
            }, args.repeats)
            same = np.array_equal(out["folded"], out["unfolded"]) and np.array_equal(
                out["folded"], out["sklearn"])
            print(f"{n:>6} {S_test.shape[0]:>6} {clf.svc_.support_.size:>6} "
                  f"{1e3 * t['folded']:10.2f} {1e3 * t['unfolded']:12.2f} {1e3 * t['sklearn']:11.2f} "
                  f"{t['unfolded'] / t['folded']:15.1f} {t['sklearn'] / t['folded']:14.1f} "
                  f"{str(same):>11}", flush=True)


if __name__ == "__main__":
    main()
