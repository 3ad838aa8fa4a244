"""Fit time of the Kreĭn learners against the scikit-learn estimator each wraps, on the
same (corrected) matrix (issue 37, item 6: within 2x at n = 2,000).

Rows (process CPU seconds, one BLAS thread, medians of A/B alternating repeats):

* ``KreinSVC`` against ``SVC(kernel="precomputed")`` fitted on the flipped matrix
  ``|S|`` (given precomputed: the SVM alone), and against
  ``SimilaritySVC(spectrum="flip")`` (the same model, decomposition included);
* ``KreinSVR`` against ``SVR(kernel="precomputed")`` on ``|S|``;
* ``KreinLeastSquares`` (decomposition, 5-fold CV radius, sphere problem) against
  ``KernelRidge(kernel="precomputed")`` on ``|S|``.

The problem: a sigmoid similarity of Gaussian blobs plus symmetric noise
(indefinite), two classes, ``n`` samples. Usage:
``python benchmarks/bench_krein.py [--n 2000] [--repeats 3]``.
"""

import _bench_env  # noqa: F401  (one thread, this tree first on the path)

import argparse
import time
import warnings

import numpy as np
from _timing import timed_alternating
from sklearn.kernel_ridge import KernelRidge
from sklearn.svm import SVC, SVR

from proxlearn.krein import KreinLeastSquares, KreinSVC, KreinSVR
from proxlearn.svm import SimilaritySVC


def problem(n, seed=0):
    rng = np.random.default_rng(seed)
    y = np.arange(n) % 2
    X = 1.2 * rng.standard_normal((2, 5))[y] + rng.standard_normal((n, 5))
    E = rng.standard_normal((n, n))
    S = np.tanh(0.3 * X @ X.T - 0.5) + 0.3 * (E + E.T) / 2
    return S, y, X[:, 0] - X[:, 1]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=2000)
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args(argv)
    S, y, t = problem(args.n)
    lam, U = np.linalg.eigh(S)
    K = (U * np.abs(lam)) @ U.T
    fns = {
        "KreinSVC": lambda: KreinSVC().fit(S, y),
        "SVC on |S|": lambda: SVC(kernel="precomputed").fit(K, y),
        "SimilaritySVC(flip)": lambda: SimilaritySVC(spectrum="flip").fit(S, y),
        "KreinSVR": lambda: KreinSVR().fit(S, t),
        "SVR on |S|": lambda: SVR(kernel="precomputed").fit(K, t),
        "KreinLeastSquares": lambda: KreinLeastSquares().fit(S, t),
        "KernelRidge on |S|": lambda: KernelRidge(kernel="precomputed").fit(K, t),
    }
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        med, _ = timed_alternating(fns, args.repeats, clock=time.process_time)
    print(f"n = {args.n}, {args.repeats} alternating repeats, process CPU s (median)")
    for k, v in med.items():
        print(f"  {k:22s} {v:8.2f}")
    for a, b in (("KreinSVC", "SVC on |S|"), ("KreinSVC", "SimilaritySVC(flip)"),
                 ("KreinSVR", "SVR on |S|"), ("KreinLeastSquares", "KernelRidge on |S|")):
        print(f"  {a} / {b}: {med[a] / med[b]:.2f}x")


if __name__ == "__main__":
    main()
