"""A/B of two source trees on the same fits: process CPU, alternating, medians.

For a change that should not change speed (the renovation of issue 36): each round runs
the fits of CODE once per tree, each in its own process (first call discarded), the
order alternating between rounds.

    python benchmarks/bench_two_trees.py --before OLD/src --after NEW/src --rounds 9

(``OLD`` e.g. ``git worktree add /tmp/old 2bef6b3 --detach``.) Prints a Markdown table
of the median CPU milliseconds and the ratio before / after.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
CODE = r'''
import time, warnings, numpy as np
warnings.simplefilter("ignore")
from proxlearn.datasets import load_dataset
from proxlearn.svm import SimilaritySVC
from proxlearn.kernel_learning import IndefiniteSVM, SVMCA, SimSVM, ESKL
from proxlearn.mkl import SimpleMKL, KernelBank, AverageKernelSVC
from proxlearn.neighbors import SVMKNN
from sklearn.datasets import load_breast_cancer
d = load_dataset("protein"); S = np.asarray(d.matrix); y = np.asarray(d.labels)
idx = np.random.default_rng(0).permutation(len(y)); tr, te = idx[:150], idx[150:]
X, yb = load_breast_cancer(return_X_y=True); X = X[:300]; yb = yb[:300]
jobs = {
 "SimilaritySVC": lambda: SimilaritySVC().fit(S[np.ix_(tr,tr)], y[tr]).predict(S[np.ix_(te,tr)]),
 "IndefiniteSVM": lambda: IndefiniteSVM().fit(S[np.ix_(tr,tr)], y[tr]).predict(S[np.ix_(te,tr)]),
 "SVMCA": lambda: SVMCA().fit(S[np.ix_(tr,tr)], y[tr]).predict(S[np.ix_(te,tr)]),
 "ESKL": lambda: ESKL().fit(S[np.ix_(tr,tr)], y[tr]).predict(S[np.ix_(te,tr)]),
 "SVMKNN": lambda: SVMKNN().fit(S[np.ix_(tr,tr)], y[tr]).predict(S[np.ix_(te,tr)]),
 "SimpleMKL[bank]": lambda: SimpleMKL(bank=KernelBank()).fit(X[:200], yb[:200]).predict(X[200:]),
 "AverageKernelSVC[bank]": lambda: AverageKernelSVC(bank=KernelBank()).fit(X[:200], yb[:200]).predict(X[200:]),
}
out = {}
for name, f in jobs.items():
    f()
    t = time.process_time(); f(); out[name] = time.process_time() - t
print(__import__("json").dumps(out))
'''
ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
ap.add_argument("--before", required=True, help="the src folder of the old tree")
ap.add_argument("--after", required=True, help="the src folder of the new tree")
ap.add_argument("--rounds", type=int, default=9)
args = ap.parse_args()
trees = {"before": args.before, "after": args.after}
res = {k: [] for k in trees}
for rep in range(args.rounds):
    for k in (("before", "after") if rep % 2 == 0 else ("after", "before")):
        env = dict(os.environ, PYTHONPATH=trees[k], OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1")
        r = subprocess.run([sys.executable, "-c", CODE], env=env, capture_output=True, text=True)
        res[k].append(json.loads(r.stdout.strip().splitlines()[-1]))
for name in res["before"][0]:
    b = statistics.median(x[name] for x in res["before"]); a = statistics.median(x[name] for x in res["after"])
    print(f"| {name} | {b*1000:.1f} | {a*1000:.1f} | {b/a:.2f} |")
