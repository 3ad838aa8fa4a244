"""proxlearn's MKL classifiers against MKLpy 0.6, side by side (issue 40, item 8).

    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1 \\
        python benchmarks/bench_mklpy.py [--splits 3] [--repeats 5] [--sets sonar,heart]
        python benchmarks/bench_mklpy.py --memory     # peak memory, n = 800, 20 kernels

MKLpy is an optional dependency of this benchmark only (it needs torch): install it in
a separate environment (``pip install MKLpy torch``); without it the script says so
and exits. For every data set (Sonar, Heart, Ionosphere, Breast, Pima, Australian
from ``../shared/data/uci``) and every random stratified 70/30 split:

* the same 13 unit-trace base kernels for both libraries:
  ``proxlearn.mkl.KernelBank(per_feature=False)`` fitted on the training part
  (Gaussian widths ``2^-3 ... 2^6`` and polynomial degrees 1-3 on z-scored features,
  SimpleMKL's classic set), training and test stacks computed once; MKLpy gets them
  as a list of torch tensors, proxlearn as the ``(n, n, 13)`` stack (``spectrum=None``:
  the kernels are PSD by construction);
* ``C`` of every method chosen by the same inner 3-fold cross-validation on the
  training part over :data:`C_GRID` (MKLpy's methods: ``C`` of their ``SVC`` learner;
  EasyMKL's ``lam`` at its default 0.1);
* the fit at the chosen ``C`` timed for all methods in alternation (A B C ..., the
  order rotated each round), medians of ``--repeats`` rounds, one BLAS thread;
* the test accuracy.

Reported per data set: each method's median fit time and accuracy (mean over splits),
and each proxlearn method's time ratio to MKLpy's fastest method on that set (the
goal: ratio <= 1 at equal or better accuracy).

``--memory``: the extra peak resident memory of one fit (each in a fresh process;
the peak counter is reset after the kernels are built) at n = 800 with 20 kernels
(Adult a1a's first 800 rows, widths ``geomspace(2^-3, 2^6, 17)`` and degrees 1-3).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
import warnings
from pathlib import Path

import numpy as np

SETS = ("sonar", "heart", "ionosphere", "breast", "diabetes", "australian")
C_GRID = (0.1, 1.0, 10.0, 100.0, 1000.0)
PROXLEARN = ("AverageKernelSVC", "SimpleMKL", "LpMKL", "NonSparseMKL", "KTASVC")
MKLPY = ("AverageMKL", "EasyMKL")


def have_mklpy():
    try:
        import MKLpy  # noqa: F401
        import torch  # noqa: F401
    except ImportError as exc:
        return str(exc)
    return None


def make(method, C):
    """A fresh estimator of ``method`` at ``C``."""
    if method in MKLPY:
        from MKLpy.algorithms import AverageMKL, EasyMKL
        from sklearn.svm import SVC

        if method == "AverageMKL":
            return AverageMKL(learner=SVC(C=C))
        return EasyMKL(lam=0.1, learner=SVC(C=C))
    from proxlearn import mkl

    cls = getattr(mkl, method)
    return cls(C=C, spectrum=None)


class Problem:
    """Training and test kernels of one split, in both libraries' formats."""

    def __init__(self, X, y, train, test):
        import torch

        from proxlearn.mkl import KernelBank

        bank = KernelBank(per_feature=False).fit(X[train])
        self.K = bank.stack()  # (n, n, 13), kernel-major
        self.T = bank.stack(X[test])
        self.y, self.y_test = y[train], y[test]
        self.KL = [torch.from_numpy(np.ascontiguousarray(self.K[:, :, k]))
                   for k in range(self.K.shape[2])]
        self.TL = [torch.from_numpy(np.ascontiguousarray(self.T[:, :, k]))
                   for k in range(self.T.shape[2])]
        self.y_t = torch.from_numpy(self.y)

    def sub(self, rows, cols):
        """The kernels between training rows ``rows`` and ``cols`` (inner CV)."""
        p = Problem.__new__(Problem)
        import torch

        p.K = self.K[np.ix_(rows, rows)]
        p.T = self.K[np.ix_(cols, rows)]
        p.y, p.y_test = self.y[rows], self.y[cols]
        p.KL = [torch.from_numpy(np.ascontiguousarray(p.K[:, :, k])) for k in range(p.K.shape[2])]
        p.TL = [torch.from_numpy(np.ascontiguousarray(p.T[:, :, k])) for k in range(p.T.shape[2])]
        p.y_t = torch.from_numpy(p.y)
        return p

    def fit(self, method, C):
        est = make(method, C)
        if method in MKLPY:
            return est.fit(self.KL, self.y_t)
        return est.fit(self.K, self.y)

    def accuracy(self, method, est):
        if method in MKLPY:
            pred = np.asarray(est.predict(self.TL))
        else:
            pred = est.predict(self.T)
        return float(np.mean(pred == self.y_test))


def choose_c(prob, method, folds):
    """``C`` of :data:`C_GRID` with the best mean inner-CV accuracy (first on ties)."""
    scores = []
    for C in C_GRID:
        acc = [sub.accuracy(method, sub.fit(method, C)) for sub in folds]
        scores.append(np.mean(acc))
    return C_GRID[int(np.argmax(scores))]


def run_set(name, splits, repeats, out):
    from sklearn.model_selection import StratifiedKFold, StratifiedShuffleSplit

    from proxlearn.datasets import load_feature_dataset

    ds = load_feature_dataset(name)
    X = np.asarray(ds.X, dtype=np.float64)
    _, y = np.unique(np.asarray(ds.labels), return_inverse=True)
    y = y.astype(np.int64)
    methods = PROXLEARN + MKLPY
    sss = StratifiedShuffleSplit(n_splits=splits, test_size=0.3, random_state=0)
    for s, (train, test) in enumerate(sss.split(X, y)):
        prob = Problem(X, y, train, test)
        inner = StratifiedKFold(3, shuffle=True, random_state=s)
        folds = [prob.sub(a, b) for a, b in inner.split(train, y[train])]
        chosen = {m: choose_c(prob, m, folds) for m in methods}
        times = {m: [] for m in methods}
        fitted = {}
        for r in range(repeats):
            order = methods[r % len(methods):] + methods[: r % len(methods)]
            for m in order:
                t = time.perf_counter()
                fitted[m] = prob.fit(m, chosen[m])
                times[m].append(time.perf_counter() - t)
        for m in methods:
            row = dict(set=name, split=s, n=len(train), method=m, C=chosen[m],
                       time=float(np.median(times[m])),
                       accuracy=prob.accuracy(m, fitted[m]))
            out.append(row)
            print(json.dumps(row), flush=True)


def summarise(rows):
    """Markdown table: per set and method, median time over splits, mean accuracy, and
    the ratio to MKLpy's fastest method on that set."""
    lines = ["| data set | n | method | C chosen | fit time (ms) | ratio to MKLpy's fastest "
             "| accuracy (%) | MKLpy fastest acc. (%) |", "|---|---|---|---|---|---|---|---|"]
    for name in dict.fromkeys(r["set"] for r in rows):
        rs = [r for r in rows if r["set"] == name]
        stat = {}
        for m in dict.fromkeys(r["method"] for r in rs):
            mr = [r for r in rs if r["method"] == m]
            stat[m] = (float(np.median([r["time"] for r in mr])),
                       100 * float(np.mean([r["accuracy"] for r in mr])),
                       "/".join(f"{r['C']:g}" for r in mr), mr[0]["n"])
        fastest = min(MKLPY, key=lambda m: stat[m][0])
        ft, fa = stat[fastest][0], stat[fastest][1]
        for m, (t, a, cs, n) in stat.items():
            ratio = f"{t / ft:.2f}" if m in PROXLEARN else ("fastest" if m == fastest else
                                                            f"{t / ft:.2f}")
            lines.append(f"| {name} | {n} | {m} | {cs} | {1e3 * t:.1f} | {ratio} | {a:.1f} "
                         f"| {fa:.1f} ({fastest}) |")
    return "\n".join(lines)


_MEMORY_CHILD = r"""
import sys, json, warnings, numpy as np
warnings.simplefilter("ignore")
method = sys.argv[1]
sys.path.insert(0, sys.argv[2])
from bench_mklpy import make, MKLPY
from proxlearn.datasets import load_feature_dataset
from proxlearn.mkl import KernelBank
ds = load_feature_dataset("adult")
X = np.asarray(ds.X, float)[:800]
_, y = np.unique(np.asarray(ds.labels)[:800], return_inverse=True)
bank = KernelBank(np.geomspace(2.0 ** -3, 2.0 ** 6, 17), (1, 2, 3), per_feature=False).fit(X)
K = bank.stack()
if method in MKLPY:
    import torch
    K = [torch.from_numpy(np.ascontiguousarray(K[:, :, k])) for k in range(K.shape[2])]
    y = torch.from_numpy(y)
def status(key):
    for line in open("/proc/self/status"):
        if line.startswith(key):
            return int(line.split()[1]) / 1024
est = make(method, 1.0)
open("/proc/self/clear_refs", "w").write("5")  # reset the peak (VmHWM) to the current RSS
base = status("VmRSS")
est.fit(K, y)
print(json.dumps(dict(method=method, extra_peak_mib=status("VmHWM") - base,
                      stack_mib=20 * 800 * 800 * 8 / 2**20)))
"""


def memory():
    rows = []
    for m in PROXLEARN + MKLPY:
        res = subprocess.run([sys.executable, "-c", _MEMORY_CHILD, m, str(Path(__file__).parent)],
                             capture_output=True, text=True)
        if res.returncode != 0:
            print(m, "failed:", res.stderr[-500:])
            continue
        rows.append(json.loads(res.stdout.strip().splitlines()[-1]))
        print(json.dumps(rows[-1]), flush=True)
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--splits", type=int, default=3)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--sets", default=",".join(SETS))
    ap.add_argument("--memory", action="store_true")
    ap.add_argument("--out", default=None, help="write the rows as JSON to this file")
    args = ap.parse_args()
    missing = have_mklpy()
    if missing:
        print(f"bench_mklpy: skipped, MKLpy is not installed ({missing}). It is an optional "
              "dependency of this benchmark only: pip install MKLpy torch (in its own "
              "environment), then run this script with that interpreter.")
        return 0
    warnings.simplefilter("ignore")
    if args.memory:
        rows = memory()
    else:
        rows = []
        for name in args.sets.split(","):
            run_set(name, args.splits, args.repeats, rows)
        print(summarise(rows))
    if args.out:
        Path(args.out).write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
