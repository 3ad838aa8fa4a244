"""Zhuang (2011) ch. 4-5 MKL: speed and memory (the thesis reports no times).

    .venv/bin/python benchmarks/bench_zhuang_mkl.py [--repeats 3] [--skip-cvxpy]

1. SimpleMKL and Lp-MKL (p = 2) against the same problems' duals in cvxpy
   (Clarabel) at n = 400 with m = 20 Gaussian kernels (goal >= 5x); A and B
   alternate, medians; both objective values shown.
2. 2LMKL: time per outer iteration (marginal: ``(T(2k) - T(k)) / (iters(2k) -
   iters(k))``, ``k = 12``, with the tolerance off; A with this round's defaults (float32
   packed copy of a dense stack, a lazy stack's cache of computed kernels), B with the
   float64 pack and no cache, alternating) against one SVM solve on the combined
   kernel ``exp(sum mu K)`` at the returned ``mu`` (goal <= 3x), on the bank of
   Sonar's training half (m = 793, dense) and Adult a1a's (m = 1,352 after the
   constant features, n = 802, lazy with the one-hot path).
3. Total fit time and peak memory (max RSS of a fresh process) of
   ``TwoLayerMKL(C=10, bank=KernelBank())`` on the two training halves.

Sonar and Adult come from ``../shared/data/uci`` (the data search path); a set
that is missing is skipped with a message.
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

sys.path.insert(0, str(Path(__file__).parent))
from bench_kundu import cvx_dual, timed  # noqa: E402

from proxlearn.mkl import KernelBank, lp_mkl, simple_mkl, svm_dual, two_layer_mkl  # noqa: E402
from proxlearn.mkl._bank import stack_combine  # noqa: E402


def gaussian_problem(n, m, seed=0):
    rng = np.random.default_rng(seed)
    y = np.where(np.arange(n) % 2 == 1, 1.0, -1.0)
    X = rng.normal(size=(n, 5))
    X[:, 0] += 0.8 * y
    d2 = ((X[:, None] - X[None]) ** 2).sum(-1)
    widths = np.geomspace(0.5, 200.0, m)
    return np.stack([np.exp(-d2 / s) for s in widths], -1), y


def bench_cvxpy(repeats):
    print("1. MKL solvers vs cvxpy (Clarabel) on the dual; n = 400, m = 20 Gaussian kernels, C = 1")
    Ks, y = gaussian_problem(400, 20)
    for kind, solve in (("simple", lambda: simple_mkl(Ks, y, 1.0, tol=1e-4)),
                        ("lp2", lambda: lp_mkl(Ks, y, 1.0, 2.0, tol=1e-4))):
        ta, tb = [], []
        for _ in range(repeats):
            t, res = timed(solve)
            ta.append(t)
            t, val = timed(lambda: cvx_dual(Ks, y, 1.0, kind))
            tb.append(t)
        a, b = float(np.median(ta)), float(np.median(tb))
        print(f"  {kind:>7}: ours {a:7.3f} s, cvxpy {b:7.2f} s, ratio {b / a:7.1f}x; "
              f"values {res.objective:.6g} / {val:.6g}; {res.n_iter} iterations", flush=True)


def training_half(name, seed=0):
    from proxlearn.datasets import load_feature_dataset
    from proxlearn.study import get_protocol
    from proxlearn.study._protocols import make_partitions

    try:
        ds = load_feature_dataset(name)
    except FileNotFoundError as exc:
        print(f"  {name}: skipped ({str(exc).splitlines()[0]})")
        return None
    y = np.asarray(ds.labels)
    tr, _ = make_partitions(y, get_protocol("zhuang2011", n_splits=1), seed)[0]
    return ds.X[tr], np.where(y[tr] == np.unique(y)[1], 1.0, -1.0)


def bench_two_layer(repeats, iters=12):
    from proxlearn.mkl import _two_layer

    print("\n2. 2LMKL: time per outer iteration / one SVM solve on exp(sum mu K) (goal <= 3);"
          "\n   A: the defaults (float32 packed copy of a dense stack; a lazy stack keeps its"
          "\n   computed kernels), B: the defaults before 2026-11-27 (float64 pack, no cache);"
          " alternating, medians")
    default = _two_layer.SEARCH_DTYPE
    for name in ("sonar", "adult"):
        data = training_half(name)
        if data is None:
            continue
        X, y = data
        Ks = KernelBank().fit(X).stack()
        kind = type(Ks).__name__
        budget = getattr(Ks, "cache_bytes", 0)

        def fresh(mode):  # each fit starts with an empty lazy cache, as a fit does
            if kind != "ndarray":
                Ks._dense.clear(), Ks._tables.clear(), Ks._codes.clear()
                Ks.cache_bytes = budget if mode == "A" else 0
        per = {"A": [], "B": []}
        unit = []
        for _ in range(repeats):
            for mode in ("A", "B"):
                _two_layer.SEARCH_DTYPE = default if mode == "A" else np.float64
                fresh(mode)
                t1, r1 = timed(lambda: two_layer_mkl(Ks, y, 10.0, tol=0.0, max_iter=iters))
                fresh(mode)
                t2, r2 = timed(lambda: two_layer_mkl(Ks, y, 10.0, tol=0.0, max_iter=2 * iters))
                per[mode].append((t2 - t1) / max(r2.n_iter - r1.n_iter, 1))
            K2 = np.exp(stack_combine(Ks, r2.weights))
            unit.append(timed(lambda: svm_dual(K2, y, 10.0))[0])
        _two_layer.SEARCH_DTYPE = default
        a, b, u = (float(np.median(v)) for v in (per["A"], per["B"], unit))
        print(f"  {name}: n = {len(y)}, m = {Ks.shape[2]} ({kind}): A {a * 1e3:8.1f} ms / iteration, "
              f"B {b * 1e3:8.1f} ms, SVM {u * 1e3:7.1f} ms; ratios A {a / u:.2f}, B {b / u:.2f}; "
              f"B / A {b / a:.2f}", flush=True)


_CHILD = """
import json, resource, sys, time, warnings
import numpy as np
sys.path.insert(0, {here!r})
from bench_zhuang_mkl import training_half
from proxlearn.mkl import KernelBank, TwoLayerMKL
warnings.simplefilter("ignore")
X, y = training_half({name!r})
t = time.perf_counter()
est = TwoLayerMKL(C=10.0, bank=KernelBank()).fit(X, y)
secs = time.perf_counter() - t
print(json.dumps({{"seconds": secs, "maxrss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                  "m": int(est.n_kernels_), "n": len(y), "n_iter": int(est.n_iter_)}}))
"""


def bench_fit_memory():
    print("\n3. TwoLayerMKL(C=10, bank=KernelBank()) fit on the training half: time, peak memory")
    here = str(Path(__file__).parent)
    for name in ("sonar", "adult"):
        code = _CHILD.format(here=here, name=name)
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
        if out.returncode != 0:
            print(f"  {name}: failed ({out.stderr.strip().splitlines()[-1:]})")
            continue
        lines = out.stdout.strip().splitlines()
        if not lines or not lines[-1].startswith("{"):
            print(f"  {name}: {out.stdout.strip()}")
            continue
        r = json.loads(lines[-1])
        print(f"  {name}: n = {r['n']}, m = {r['m']}: {r['seconds']:.1f} s, {r['n_iter']} steps, "
              f"peak RSS {r['maxrss_mib']:.0f} MiB", flush=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--skip-cvxpy", action="store_true")
    args = ap.parse_args()
    warnings.simplefilter("ignore")
    start = time.perf_counter()
    if not args.skip_cvxpy:
        bench_cvxpy(args.repeats)
    bench_two_layer(args.repeats)
    bench_fit_memory()
    print(f"\ntotal {time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
