"""FullKernelSVM's binary problem (Chen 2010 eq. 5.6): our dual solver against the SDP
through cvxpy + Clarabel, on real one-vs-one pairs of the defaults panel's splits, A/B
alternating, process CPU, medians (issue 40).

Each row is one pair of classes of split 0 of a data set, on the panel's training part
(``S / scale``, ``tr S / n``, as ``FullKernelSVM(normalize=True)`` solves it), at the
estimator's ``gamma`` default and ``eta = 1 / (2 n)`` (its ``"auto"``), or at ``--eta``.
Reported: the medians of process CPU (Clarabel's own threads counted), their ratio, the
relative difference of the objectives, and the certificate of the dual solution
(primal value minus the lower bound ``D(alpha)``, relative).

Run (one BLAS thread; Clarabel's own threads as configured)::

    python benchmarks/bench_full_kernel_dual.py --datasets aural_sonar protein-2 --repeats 3
"""

from __future__ import annotations

import argparse
import os
import time

from _bench_env import REPO  # noqa: F401,I001  (first: threads and sys.path before numpy)

import numpy as np  # noqa: E402


def pairs_of(name, max_pairs):
    import _defaults_panel as panel
    from proxlearn._scale import similarity_scale

    S, y, _ = panel.load("sim", name)
    tr, _ = panel.split("sim", name, 0)
    S, y = 0.5 * (S[np.ix_(tr, tr)] + S[np.ix_(tr, tr)].T), y[tr]
    classes = np.unique(y)
    out = []
    for i in range(len(classes)):
        for j in range(i + 1, len(classes)):
            idx = np.flatnonzero(np.isin(y, classes[[i, j]]))
            Sp = S[np.ix_(idx, idx)]
            out.append((f"{classes[i]}/{classes[j]}", Sp / similarity_scale(Sp),
                        np.where(y[idx] == classes[j], 1.0, -1.0)))
            if len(out) >= max_pairs:
                return out
    return out


def main(argv=None):
    from proxlearn.kernel_learning._full_kernel_dual import (
        full_kernel_dual_bound,
        solve_full_kernel_dual,
    )
    from proxlearn.kernel_learning._full_kernel_svm import _solve_full_kernel

    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--datasets", nargs="*", default=["aural_sonar", "protein-2"])
    ap.add_argument("--pairs", type=int, default=1, help="pairs per data set")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--eta", type=float, default=None, help="default: 1 / (2 n)")
    ap.add_argument("--gamma", type=float, default=100.0)
    args = ap.parse_args(argv)
    print(f"load average {os.getloadavg()[0]:.1f}; process CPU, medians of {args.repeats}, "
          "A/B alternating")
    print(f"{'data set':14s} {'pair':>6s} {'n':>4s} {'Clarabel s':>10s} {'dual s':>8s} "
          f"{'ratio':>7s} {'rel d obj':>10s} {'rel gap':>9s}")
    for name in args.datasets:
        for label, S, y in pairs_of(name, args.pairs):
            n = y.size
            eta = args.eta if args.eta is not None else 1.0 / (2.0 * n)
            t = {"cvx": [], "dual": []}
            for _ in range(args.repeats):
                t0 = time.process_time()
                ref = _solve_full_kernel(S, y, eta, args.gamma, 0, "CLARABEL", None)
                t["cvx"].append(time.process_time() - t0)
                t0 = time.process_time()
                res = solve_full_kernel_dual(S, y, eta, args.gamma)
                t["dual"].append(time.process_time() - t0)
            a, b = np.median(t["cvx"]), np.median(t["dual"])
            rel = (res.fun - ref["objective"]) / abs(ref["objective"])
            gap = (res.fun - full_kernel_dual_bound(S, y, res.x, eta, args.gamma)) / abs(res.fun)
            print(f"{name:14s} {label:>6s} {n:4d} {a:10.2f} {b:8.3f} {a / b:7.0f} "
                  f"{rel:10.1e} {gap:9.1e}", flush=True)
    print(f"load average {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
