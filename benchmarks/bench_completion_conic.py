"""CompletionSVC's joint SDP (Chen 2010 eq. 6.7): the Frobenius gap as printed,
``||V^T K V - diag(w)||_F`` (n^4 non-zeros), against the form the estimator solves,
``||vec(K) - (V * V) w||`` (n^3), A/B alternating, process CPU, medians (issue 40).

Run (one BLAS thread; Clarabel's own threads as configured)::

    python benchmarks/bench_completion_conic.py --n 20 30 --repeats 3
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_v, "1")
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import numpy as np  # noqa: E402


def _printed_gap(cp, K, V, w):
    return cp.norm(V.T @ K @ V - cp.diag(w), "fro")


def main(argv=None):
    import _defaults_panel as panel
    from proxlearn.kernel_learning import CompletionSVC
    from proxlearn.kernel_learning import _completion_conic as cc

    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--dataset", default="aural_sonar")
    ap.add_argument("--n", nargs="*", type=int, default=[20, 30])
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args(argv)
    S, y, _ = panel.load("sim", args.dataset)
    tr, _ = panel.split("sim", args.dataset, 0)
    ours = cc._cp_frobenius_gap
    print(f"{'n':>4} {'printed s':>10} {'ours s':>8} {'ratio':>6} {'|d objective|':>14}")
    for n in args.n:
        idx = tr[:n]
        times = {"printed": [], "ours": []}
        obj = {}
        for _ in range(args.repeats):
            for name, gap in (("printed", _printed_gap), ("ours", ours)):
                cc._cp_frobenius_gap = gap
                try:
                    t0 = time.process_time()
                    est = CompletionSVC(max_samples=10_000).fit(S[np.ix_(idx, idx)], y[idx])
                    times[name].append(time.process_time() - t0)
                finally:
                    cc._cp_frobenius_gap = ours
                obj[name] = est.objective_[0]
        a, b = np.median(times["printed"]), np.median(times["ours"])
        print(f"{n:4d} {a:10.2f} {b:8.2f} {a / b:6.1f} {abs(obj['printed'] - obj['ours']):14.2e}")


if __name__ == "__main__":
    main()
