"""Benchmark: the spectrum shift from ``lambda_min`` alone (issue 37, item 6).

``SpectrumTransformer("shift")`` (test map "consistent") needs only the smallest
eigenvalue; before, its fit computed every eigenvalue (LAPACK ``dsyevd``,
eigenvalues only: the Householder tridiagonalisation, ``4 n^3 / 3`` flops, then
``O(n^2)``). Now: Lanczos (ARPACK, ``k=1``, ``which="SA"``) on a budget of
``max(100, n / 20)`` products, then one LAPACK eigenvalue (``dsyevr``,
``subset_by_index=[0, 0]``) when the budget runs out.

For each problem, process CPU time (one BLAS thread, A/B alternating, medians of
``--repeats``) of

* ``corr-before`` / ``corr-after``: ``SpectrumTransformer("shift").fit(S)`` at
  the main branch's ``transforms/_spectrum.py`` (``--before``, default
  ``git show main:...``, loaded beside the current one) and at this tree;
* ``ocsvm-before`` / ``ocsvm-after``: ``SimilarityOneClassSVM().fit(S)`` with the
  one or the other transformer;
* ``sklearn``: ``OneClassSVM(kernel="precomputed").fit(K)`` on the matrix libsvm
  is given by ours (the corrected, scaled ``K``).

Problems: ``noisy`` (5-D linear kernel plus symmetric Gaussian noise, n = 2000,
as ``bench_novelty.py --timing``: a semicircle bulk at the bottom of the
spectrum, the worst case for Lanczos), the sigmoid kernel ``tanh(<x, x'> / d -
0.5)`` (as ``wine-sigmoid``) on the largest real feature sets at hand
(scikit-learn's digits, n = 1797; UCI a1a, n = 1605, from
``/work/shared/data/uci``; skipped if absent), and the real similarity sets
digits-idm, protein, wine-sigmoid, voting at their own n.

Usage: python benchmarks/bench_shift.py [--repeats 5] [--problems noisy digits-sigmoid ...]
"""

from __future__ import annotations

import argparse
import importlib.util
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from unittest import mock

import numpy as np
from sklearn.svm import OneClassSVM
from threadpoolctl import threadpool_limits

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _timing import timed_alternating  # noqa: E402
from bench_novelty import timing_problem  # noqa: E402

import proxlearn.svm._one_class as one_class  # noqa: E402
from proxlearn.datasets import load_dataset  # noqa: E402
from proxlearn.svm import SimilarityOneClassSVM  # noqa: E402
from proxlearn.transforms import SpectrumTransformer  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
UCI = Path("/work/shared/data/uci")
PROBLEMS = ("noisy", "digits-sigmoid", "a1a-sigmoid", "digits-idm", "protein",
            "wine-sigmoid", "voting")


def sigmoid(X):
    X = np.asarray(X, dtype=np.float64)
    sd = X.std(axis=0)
    X = (X - X.mean(axis=0)) / np.where(sd > 0, sd, 1.0)
    return np.tanh(X @ X.T / X.shape[1] - 0.5)


def problem(name):
    if name == "noisy":
        return timing_problem(2000)
    if name == "digits-sigmoid":
        from sklearn.datasets import load_digits

        return sigmoid(load_digits().data)
    if name == "a1a-sigmoid":
        path = UCI / "a1a"
        if not path.exists():
            return None
        return sigmoid(np.loadtxt(path, delimiter=",", skiprows=1)[:, 1:])
    S = np.asarray(load_dataset(name).matrix, dtype=np.float64)
    return (S + S.T) / 2


def load_before(rev):
    """The ``SpectrumTransformer`` of ``rev``'s transforms/_spectrum.py, as a module
    of the installed package (its relative imports resolve to this tree)."""
    src = subprocess.run(["git", "-C", str(REPO), "show", f"{rev}:src/proxlearn/transforms/"
                          "_spectrum.py"], check=True, capture_output=True, text=True).stdout
    path = Path(tempfile.mkdtemp()) / "_spectrum_before.py"
    path.write_text(src)
    spec = importlib.util.spec_from_file_location("proxlearn.transforms._spectrum_before", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module.SpectrumTransformer


def run(names, repeats, before):
    Before = load_before(before)
    rows = []
    for name in names:
        S = problem(name)
        if S is None:
            print(f"{name}: skipped (data absent)")
            continue
        n = S.shape[0]
        ours = SimilarityOneClassSVM().fit(S)
        K = ours.transformer_._training_kernel()

        def ocsvm_before():
            with mock.patch.object(one_class, "SpectrumTransformer", Before):
                return SimilarityOneClassSVM().fit(S)

        fns = {
            "corr-before": lambda: Before("shift").fit(S),
            "corr-after": lambda: SpectrumTransformer("shift").fit(S),
            "ocsvm-before": ocsvm_before,
            "ocsvm-after": lambda: SimilarityOneClassSVM().fit(S),
            "sklearn": lambda: OneClassSVM(kernel="precomputed").fit(K),
        }
        t, out = timed_alternating(fns, repeats, clock=time.process_time)
        a, b = out["corr-after"], out["corr-before"]
        gap = abs(a.shift_ - b.shift_)
        tol = b.tol_
        dec = np.max(np.abs(out["ocsvm-after"].decision_function(S)
                            - out["ocsvm-before"].decision_function(S)))
        rows.append((name, n, t, a.eigen_solver_, gap, tol, dec))
        print(f"{name} n={n}: " + ", ".join(f"{k} {v:.4f}" for k, v in t.items())
              + f"; route {a.eigen_solver_}; |shift after - before| {gap:.1e} (tol_ {tol:.1e});"
              f" ours/sklearn {t['ocsvm-before'] / t['sklearn']:.2f} -> "
              f"{t['ocsvm-after'] / t['sklearn']:.2f}", flush=True)
    print()
    print("| problem | n | route | correction before -> after (s) | SimilarityOneClassSVM "
          "before -> after (s) | sklearn OneClassSVM on K (s) | ours / sklearn before -> "
          "after | shift change (tol_) | max decision change |")
    print("|---|---|---|---|---|---|---|---|---|")
    for name, n, t, route, gap, tol, dec in rows:
        print(f"| {name} | {n} | {route} | {t['corr-before']:.4f} -> {t['corr-after']:.4f} | "
              f"{t['ocsvm-before']:.4f} -> {t['ocsvm-after']:.4f} | {t['sklearn']:.4f} | "
              f"{t['ocsvm-before'] / t['sklearn']:.2f} -> {t['ocsvm-after'] / t['sklearn']:.2f} "
              f"| {gap:.1e} ({tol:.1e}) | {dec:.1e} |")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--problems", nargs="*", default=list(PROBLEMS))
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--before", default="main", help="git revision of the 'before' transformer")
    args = ap.parse_args()
    with threadpool_limits(1):
        run(args.problems, args.repeats, args.before)


if __name__ == "__main__":
    main()
