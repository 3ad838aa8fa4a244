"""Kundu et al. (2010) methods and the MKL solvers they stand on, measured in one run.

    .venv/bin/python benchmarks/bench_kundu.py [--mkl-sizes 100 200 400] [--repeats 3]
        [--eskl-sizes 200 500 1000] [--iters 20]

1. MKL solvers (SimpleMKL, Lp-MKL p = 2, the non-sparse MKL of eq. 10) against the
   same problems' duals in cvxpy (Clarabel), alternating, medians; both values shown.
2. ESKL: time per iteration / (one SVM solve + one eigh) on the same kernel size
   (goal <= 1.3).
3. REKL with m = 3: time per iteration / one SVM solve (goal <= 2). Each REKL
   iteration forms its m kernels (O(m n^3), measured separately as the floor) and
   calls the non-sparse MKL (warm-started; 2-5 SVM solves per iteration at the
   default mkl_tol = 1e-4, about 1.5 at 1e-2: both are measured).
Per-iteration times are marginal: (T(2k) - T(k)) / (extra iterations).
4. ``--real``: whole default fits of ESKL and REKL on real matrices, all rows
   (voting and sonar-noisy: stratified 200-row subsets; aural_sonar, 100; protein-2,
   144; protein-multi restricted to classes 1 and 2, 144, m = 2; the panel's UCI stacks
   heart-multi3, ionosphere-multi3 and sonar-multi3, m = 3, split 0's training part,
   at most 200 rows: :func:`real_problems`), against one
   SimilaritySVC(spectrum="clip") fit with the same C on the same rows (the stack's
   mean for m > 1), alternating, medians of ``--repeats`` of the process CPU time; the
   ratio's goal is <= 20 (issue 40 item 6). Needs the UW files and UCI's files
   (PROXLEARN_DATA or ../shared/data; a missing set is skipped with a note).
   ``--ab SRC_A SRC_B [--rounds 5]``: the same in fresh processes of two source trees,
   alternating, medians; ``--sets``: a subset.
"""

import argparse
import time

import cvxpy as cp
import numpy as np
import scipy.linalg

from proxlearn.mkl import ESKL, REKL
from proxlearn.mkl._mirror_descent import psd_from_eig
from proxlearn.mkl import lp_mkl, nonsparse_mkl, simple_mkl, svm_dual


def problem(n, m=3, seed=0):
    rng = np.random.default_rng(seed)
    y = np.where(np.arange(n) % 2 == 1, 1.0, -1.0)
    X = rng.normal(size=(n, 5))
    X[:, 0] += 0.8 * y
    d2 = ((X[:, None] - X[None]) ** 2).sum(-1)
    Ks = np.stack([np.exp(-d2 / s) for s in (2.0, 10.0, 50.0)][:m], -1)
    E = rng.normal(size=(n, n))
    S = np.stack([X @ X.T / 5 + 0.3 * (E + E.T)] + [Ks[:, :, k] for k in range(1, m)], -1)
    return Ks, S, y


def cvx_dual(Ks, y, C, kind):
    n = len(y)
    a = cp.Variable(n)
    u = cp.multiply(y, a)
    Ls = []
    for k in range(Ks.shape[2]):
        lam, V = np.linalg.eigh(Ks[:, :, k])
        keep = lam > 1e-10 * lam.max()
        Ls.append(V[:, keep] * np.sqrt(lam[keep]))
    sq = cp.hstack([cp.sum_squares(L.T @ u) for L in Ls])
    if kind == "simple":
        obj = cp.sum(a) - 0.5 * cp.max(sq)
    elif kind == "lp2":
        obj = cp.sum(a) - 0.5 * cp.norm(sq, 2)
    else:
        obj = cp.sum(a) - 0.5 * cp.square(sum(cp.norm(L.T @ u) for L in Ls))
    prob = cp.Problem(cp.Maximize(obj), [y @ a == 0, a >= 0, a <= C])
    prob.solve(solver="CLARABEL")
    return prob.value


def timed(f):
    """One timing of ``f()`` and its result (A and B alternate, so no repeats here)."""
    t = time.perf_counter()
    out = f()
    return time.perf_counter() - t, out


def per_iteration(label, sizes, repeats, make, unit):
    """Marginal cost of one iteration, ``(T(2k) - T(k)) / (n_iter(2k) - n_iter(k))``
    (so that the up-front eigendecompositions and the setup are not counted), median
    over ``repeats``, against ``unit(est, S, y)``: the reference work on the fitted
    kernel, timed right after the fits (A and B alternate)."""
    for n in sizes:
        S, y, short, long_ = make(n)
        ti, tr = [], []
        for _ in range(repeats):
            t1, _ = timed(lambda: short.fit(S, y))
            t2, _ = timed(lambda: long_.fit(S, y))
            ti.append((t2 - t1) / max(long_.n_iter_ - short.n_iter_, 1))
            tr.append(unit(long_, S, y))
        a, b = float(np.median(ti)), float(np.median(tr))
        print(f"  n = {n:>5}: {a * 1e3:8.1f} ms / iteration, {label} {b * 1e3:8.1f} ms, "
              f"ratio {a / b:.2f}", flush=True)


STACKS = ("heart-multi3", "ionosphere-multi3", "sonar-multi3")


def real_problems(names=None):
    """The real matrices of ``--real``: ``name -> (training stack, labels)``.

    Single matrices: all rows (voting and sonar-noisy: stratified 200-row subsets).
    Stacks (issue 40 item 6): ``protein-multi`` restricted to classes 1 and 2 (m = 2), and
    the defaults panel's UCI stacks (``benchmarks/_defaults_panel.py``: Gaussian, cosine
    and L1-Laplacian similarities of the z-scored features, m = 3), the training part of
    the panel's split 0, capped to a stratified 200 rows (ionosphere: 245 -> 200)."""
    import os
    import sys
    from pathlib import Path

    from sklearn.model_selection import StratifiedShuffleSplit

    from proxlearn.datasets import load_dataset

    shared = Path(__file__).resolve().parents[2] / "shared" / "data"
    os.environ.setdefault("PROXLEARN_DATA", f"{shared}{os.pathsep}{shared / 'uci'}")
    out = {}
    for name in ("voting", "aural_sonar", "protein-2", "protein-multi", "sonar-noisy",
                 *STACKS):
        label = "protein-multi (1 vs 2)" if name == "protein-multi" else name
        if names and name not in names and label not in names:
            continue
        try:
            if name in STACKS:
                sys.path.insert(0, str(Path(__file__).resolve().parent))
                import _defaults_panel as panel

                os.environ.setdefault("PROXLEARN_DATA", str(shared))
                X, y, _ = panel.load("multi", name)
                idx, _ = panel.split("multi", name, 0)
                if len(idx) > 200:
                    sub = next(StratifiedShuffleSplit(1, train_size=200, random_state=0)
                               .split(idx, y[idx]))[0]
                    idx = np.sort(idx[sub])
                out[label] = (np.ascontiguousarray(X[np.ix_(idx, idx)]), y[idx])
                continue
            d = load_dataset(name)
        except Exception as exc:  # the data are optional: say which set is left out
            print(f"  {name}: skipped ({str(exc).split('. ')[0]})")
            continue
        X = d.matrices if name == "protein-multi" else d.matrix[:, :, None]
        y = d.labels
        idx = np.arange(len(y))
        if len(y) > 200 and name != "protein-multi":
            idx = next(StratifiedShuffleSplit(1, train_size=200, random_state=0).split(idx, y))[0]
        if name == "protein-multi":
            idx = np.flatnonzero(np.isin(y, [1, 2]))
        out[label] = (X[np.ix_(idx, idx)], y[idx])
    return out


def cpu_timed(f):
    """Process CPU time of one call of ``f()`` (the fits are single-threaded; on the
    shared machine wall time mostly measures the queue) and its result."""
    t = time.process_time()
    out = f()
    return time.process_time() - t, out


def bench_real(repeats, names=None, as_json=False):
    import json
    import warnings

    from proxlearn.svm import SimilaritySVC

    if not as_json:
        print("\nWhole default fits on real matrices / one clip-SVM fit (same C, same rows), "
              "CPU time")
        print(f"{'data':>24} {'n':>4} {'m':>2} {'clip SVM':>9} {'ESKL':>8} {'ratio':>6} "
              f"{'iters':>5} {'REKL':>8} {'ratio':>6} {'iters':>5}")
    for name, (X, y) in real_problems(names).items():
        times = {"clip": [], "eskl": [], "rekl": []}
        iters = {}
        for _ in range(repeats):
            for key, est, arg in (("clip", SimilaritySVC(spectrum="clip"), X.mean(axis=2)),
                                  ("eskl", ESKL(), X), ("rekl", REKL(), X)):
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    t, _ = cpu_timed(lambda: est.fit(arg, y))
                times[key].append(t)
                iters[key] = int(np.max(getattr(est, "n_iter_", 0)))
        c, e, r = (float(np.median(times[k])) for k in ("clip", "eskl", "rekl"))
        if as_json:
            print(json.dumps(dict(data=name, n=len(y), m=X.shape[2], clip=c, eskl=e, rekl=r,
                                  eskl_iter=iters["eskl"], rekl_iter=iters["rekl"])),
                  flush=True)
            continue
        print(f"{name:>24} {len(y):>4} {X.shape[2]:>2} {c * 1e3:>7.1f}ms {e:>7.3f}s "
              f"{e / c:>6.1f} {iters['eskl']:>5} {r:>7.3f}s {r / c:>6.1f} {iters['rekl']:>5}",
              flush=True)


def bench_real_ab(src_a, src_b, rounds, repeats, names):
    """``--real`` in fresh processes of two source trees, alternating (A B, then B A),
    ``rounds`` rounds of ``repeats`` fits each; medians of the per-round CPU medians."""
    import json
    import os
    import subprocess
    import sys

    rows = {"A": [], "B": []}
    for r in range(rounds):
        for side in ("AB" if r % 2 == 0 else "BA"):
            src = src_a if side == "A" else src_b
            cmd = [sys.executable, __file__, "--real", "--json", "--repeats", str(repeats)]
            if names:
                cmd += ["--sets", *names]
            out = subprocess.run(cmd, capture_output=True, text=True, check=True,
                                 env={**os.environ, "PYTHONPATH": src})
            rows[side] += [json.loads(x) for x in out.stdout.splitlines() if x.startswith("{")]
            print(f"round {r + 1} {side} done", file=sys.stderr, flush=True)
    print("| data | n | m | clip SVM ms A / B | ESKL s A / B | ratio A / B | ESKL iters A / B "
          "| REKL s A / B | ratio A / B | REKL iters A / B |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for name in dict.fromkeys(x["data"] for x in rows["A"]):
        a = [x for x in rows["A"] if x["data"] == name]
        b = [x for x in rows["B"] if x["data"] == name]
        med = {(s, k): float(np.median([x[k] for x in v])) for s, v in (("A", a), ("B", b))
               for k in ("clip", "eskl", "rekl")}
        it = {(s, k): "/".join(sorted({str(x[k]) for x in v}, key=int))
              for s, v in (("A", a), ("B", b)) for k in ("eskl_iter", "rekl_iter")}
        print(f"| {name} | {a[0]['n']} | {a[0]['m']} | {1e3 * med['A', 'clip']:.1f} / "
              f"{1e3 * med['B', 'clip']:.1f} | {med['A', 'eskl']:.3f} / {med['B', 'eskl']:.3f} | "
              f"{med['A', 'eskl'] / med['A', 'clip']:.1f} / "
              f"{med['B', 'eskl'] / med['B', 'clip']:.1f} | {it['A', 'eskl_iter']} / "
              f"{it['B', 'eskl_iter']} | {med['A', 'rekl']:.3f} / {med['B', 'rekl']:.3f} | "
              f"**{med['A', 'rekl'] / med['A', 'clip']:.1f} / "
              f"{med['B', 'rekl'] / med['B', 'clip']:.1f}** | {it['A', 'rekl_iter']} / "
              f"{it['B', 'rekl_iter']} |", flush=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mkl-sizes", type=int, nargs="*", default=[100, 200, 400])
    ap.add_argument("--eskl-sizes", type=int, nargs="*", default=[200, 500, 1000])
    ap.add_argument("--rekl-sizes", type=int, nargs="*", default=[200, 500])
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--iters", type=int, default=20)
    ap.add_argument("--real", action="store_true",
                    help="only the whole fits on real matrices (section 4)")
    ap.add_argument("--sets", nargs="*", default=None, help="--real: these sets only")
    ap.add_argument("--json", action="store_true", help="--real: one JSON line per set")
    ap.add_argument("--ab", nargs=2, metavar=("SRC_A", "SRC_B"), default=None,
                    help="--real A/B between two source trees, fresh processes alternating")
    ap.add_argument("--rounds", type=int, default=5, help="--ab: rounds (A B / B A)")
    args = ap.parse_args()
    if args.ab:
        bench_real_ab(*args.ab, args.rounds, args.repeats, args.sets)
        return
    if args.real:
        bench_real(args.repeats, args.sets, args.json)
        return

    solvers = {"simple": lambda K, y: simple_mkl(K, y, 1.0, tol=1e-4),
               "lp2": lambda K, y: lp_mkl(K, y, 1.0, 2.0, tol=1e-4),
               "nonsparse": lambda K, y: nonsparse_mkl(K, y, 1.0, tol=1e-4)}
    print("MKL solvers vs cvxpy (Clarabel) on the dual; m = 3 Gaussian kernels; C = 1")
    print(f"{'n':>5} {'problem':>10} {'ours':>9} {'cvxpy':>9} {'ratio':>8} "
          f"{'value ours':>12} {'value cvxpy':>12} {'iters':>6}")
    for n in args.mkl_sizes:
        Ks, _, y = problem(n)
        for kind, solve in solvers.items():
            ta, tb = [], []
            for _ in range(args.repeats):
                t, res = timed(lambda: solve(Ks, y))
                ta.append(t)
                t, val = timed(lambda: cvx_dual(Ks, y, 1.0, kind))
                tb.append(t)
            a, b = float(np.median(ta)), float(np.median(tb))
            print(f"{n:>5} {kind:>10} {a:>8.3f}s {b:>8.2f}s {b / a:>7.1f}x "
                  f"{res.objective:>12.6g} {val:>12.6g} {res.n_iter:>6}", flush=True)

    print("\nESKL (m = 1, loss l3): time per iteration / (one SVM solve + one eigh)")

    def eskl_unit(est, S, y):
        K = est.kernel_
        return (timed(lambda: svm_dual(K, y, 1.0))[0]
                + timed(lambda: scipy.linalg.eigh(K, driver="evd"))[0])

    per_iteration("SVM + eigh", args.eskl_sizes, args.repeats,
                  lambda n: (problem(n, m=1)[1][:, :, 0], problem(n, m=1)[2],
                             ESKL(max_iter=args.iters, tol=1e-300),
                             ESKL(max_iter=2 * args.iters, tol=1e-300)), eskl_unit)

    def rekl_unit(est, S, y):
        V = [np.linalg.eigh(S[:, :, i])[1] for i in range(S.shape[2])]
        Kc = sum(psd_from_eig(V[i], est.spectra_mu_[:, i]) / est.gamma_[i]
                 for i in range(S.shape[2]))
        return timed(lambda: svm_dual(Kc, y, 1.0))[0]

    for mkl_tol in (1e-4, 1e-2):
        print(f"\nREKL (m = 3, loss l2, mkl_tol = {mkl_tol:g}): time per iteration / one SVM "
              "solve")
        per_iteration("one SVM", args.rekl_sizes, args.repeats,
                      lambda n, t=mkl_tol: (problem(n, m=3)[1], problem(n, m=3)[2],
                                            REKL(max_iter=args.iters, tol=1e-300, mkl_tol=t),
                                            REKL(max_iter=2 * args.iters, tol=1e-300,
                                                 mkl_tol=t)), rekl_unit)

    print("\nREKL's floor: forming its m kernels V_i diag(mu_i) V_i^T (m syrk, O(m n^3)) "
          "/ one SVM solve")
    for n in args.rekl_sizes:
        _, S, y = problem(n, m=3)
        est = REKL(max_iter=args.iters, tol=1e-300).fit(S, y)
        V = [np.linalg.eigh(S[:, :, i])[1] for i in range(3)]
        tf, tsv = [], []
        for _ in range(args.repeats):
            tf.append(timed(lambda: [psd_from_eig(V[i], est.spectra_mu_[:, i])
                                     for i in range(3)])[0])
            tsv.append(rekl_unit(est, S, y))
        a, b = float(np.median(tf)), float(np.median(tsv))
        print(f"  n = {n:>5}: forming {a * 1e3:8.1f} ms, one SVM {b * 1e3:8.1f} ms, "
              f"ratio {a / b:.2f}", flush=True)


if __name__ == "__main__":
    main()
