"""The MKL classifiers' fits, A/B between two source trees (issue 40, item 8).

    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 python benchmarks/bench_mkl_ab.py \\
        --a /path/to/old/src --b /path/to/new/src [--rounds 5] [--sets sonar,heart] \\
        [--methods SimpleMKL,LpMKL,NonSparseMKL] [--C 1,10,100]

For each data set of :data:`SETS` (``../shared/data/uci``, or ``$PROXLEARN_DATA``), the
13 unit-trace base kernels of ``bench_mklpy.py`` (``KernelBank(per_feature=False)`` on the
70 % training part of the first stratified split, seed 0), and every method and ``C``:
one fit (``spectrum=None``) per round in a fresh process of tree A, then of tree B, the
order of A and B swapped every round (the machine's load drifts), ``--rounds`` rounds;
within a process every (set, method, C) is fitted twice and the second fit is timed.
Reports per row the median fit time (wall) of A and B, B / A, the same ratio of the
process CPU times (steadier on a loaded machine: the fits are single-threaded), and both
trees' objective,
certified gap, iterations and test accuracy (the same optimum is the point: the
objectives must agree to the solvers' tolerance).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys

import numpy as np

SETS = ("sonar", "heart", "ionosphere", "breast", "diabetes", "australian")

_CHILD = r"""
import json, sys, time, warnings
import numpy as np
warnings.simplefilter("ignore")
sets, methods, cs = sys.argv[1].split(","), sys.argv[2].split(","), sys.argv[3].split(",")
from sklearn.model_selection import StratifiedShuffleSplit
from proxlearn.datasets import load_feature_dataset
from proxlearn import mkl
for name in sets:
    ds = load_feature_dataset(name)
    X = np.asarray(ds.X, float)
    _, y = np.unique(np.asarray(ds.labels), return_inverse=True)
    tr, te = next(StratifiedShuffleSplit(1, test_size=0.3, random_state=0).split(X, y))
    bank = mkl.KernelBank(per_feature=False).fit(X[tr])
    K, T = bank.stack(), bank.stack(X[te])
    for m in methods:
        for C in cs:
            est = getattr(mkl, m)(C=float(C), spectrum=None)
            est.fit(K, y[tr])
            t, c = time.perf_counter(), time.process_time()
            est.fit(K, y[tr])
            sec, cpu = time.perf_counter() - t, time.process_time() - c
            print(json.dumps(dict(set=name, n=len(tr), method=m, C=float(C), time=sec, cpu=cpu,
                                  objective=float(est.objective_), gap=float(est.gap_),
                                  n_iter=int(est.n_iter_),
                                  accuracy=float(np.mean(est.predict(T) == y[te])))),
                  flush=True)
"""


def run(src, args):
    env_path = src
    out = subprocess.run([sys.executable, "-c", _CHILD, args.sets, args.methods, args.C],
                         capture_output=True, text=True,
                         env={**__import__("os").environ, "PYTHONPATH": env_path})
    if out.returncode != 0:
        raise RuntimeError(out.stderr[-2000:])
    return [json.loads(line) for line in out.stdout.splitlines() if line.startswith("{")]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--a", required=True, help="source tree A (the 'before')")
    ap.add_argument("--b", required=True, help="source tree B (the 'after')")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--sets", default=",".join(SETS))
    ap.add_argument("--methods", default="SimpleMKL,LpMKL,NonSparseMKL")
    ap.add_argument("--C", default="1,10,100")
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    rows = {"A": [], "B": []}
    for r in range(args.rounds):
        for side in ("AB" if r % 2 == 0 else "BA"):
            rows[side].append(run(getattr(args, side.lower()), args))
            print(f"round {r + 1} {side} done", file=sys.stderr, flush=True)
    keyed = {}
    for side in "AB":
        for rnd in rows[side]:
            for row in rnd:
                keyed.setdefault((row["set"], row["method"], row["C"]), {}).setdefault(
                    side, []).append(row)
    print("| data set (n) | method | C | A ms | B ms | B / A | CPU B / A | objective A / B | "
          "rel. gap A / B | iterations A / B | accuracy % A / B |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    summary = []
    for (name, m, C), sides in keyed.items():
        ta = float(np.median([x["time"] for x in sides["A"]]))
        tb = float(np.median([x["time"] for x in sides["B"]]))
        ca = float(np.median([x["cpu"] for x in sides["A"]]))
        cb = float(np.median([x["cpu"] for x in sides["B"]]))
        a, b = sides["A"][-1], sides["B"][-1]
        print(f"| {name} ({a['n']}) | {m} | {C:g} | {1e3 * ta:.1f} | {1e3 * tb:.1f} | "
              f"{tb / ta:.2f} | {cb / ca:.2f} | {a['objective']:.8g} / {b['objective']:.8g} | "
              f"{a['gap'] / abs(a['objective']):.1e} / {b['gap'] / abs(b['objective']):.1e} | "
              f"{a['n_iter']} / {b['n_iter']} | {100 * a['accuracy']:.1f} / "
              f"{100 * b['accuracy']:.1f} |")
        summary.append(dict(set=name, method=m, C=C, a=ta, b=tb, cpu_a=ca, cpu_b=cb, row_a=a,
                            row_b=b))
    if args.out:
        with open(args.out, "w") as fh:
            json.dump(summary, fh, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
