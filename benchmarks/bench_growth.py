"""Growth in n of the three spectrum-correction paths: time and memory exponents.

Paths, each fitting a clip correction of the training similarity:

* dense: ``SpectrumTransformer("clip", eigen_solver="dense")`` (every eigenpair);
* arpack: ``SpectrumTransformer("clip", n_components=k, eigen_solver="arpack")``
  (the k leading eigenpairs, default k = 100);
* nystroem: ``NystroemSpectrum("clip", n_components=m)`` (m landmark columns,
  default m = 500), which never reads more than the ``n x m`` columns.

Data: ``bench_nystroem.make_data`` (3 Gaussian classes in 10-D, a Gaussian of the L1
distance: indefinite). For each n the three paths run in rotating order (A B C,
B C A, ...) ``--repeats`` times; reported: the median fit time and the peak of
traced memory (``tracemalloc``: numpy's buffers are traced) during the fit, and the
least-squares slope of log(time) and log(memory) on log(n) per path. The input
matrix itself (8 n^2 bytes) is built before tracing and is not counted. A plot of
both is written to ``--plot`` (default docs/figures/growth.png).

Run: ``python benchmarks/bench_growth.py [--sizes 1000 2000 4000] [--repeats 3]``.
"""

from __future__ import annotations

import argparse
import time
import tracemalloc
from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_limits

from bench_nystroem import make_data
from proxlearn.kernel_approximation import NystroemSpectrum
from proxlearn.transforms import SpectrumTransformer


def paths(k, m):
    return {
        "dense": lambda: SpectrumTransformer("clip", eigen_solver="dense"),
        "arpack": lambda: SpectrumTransformer("clip", eigen_solver="arpack", n_components=k,
                                              random_state=0),
        "nystroem": lambda: NystroemSpectrum("clip", n_components=m, random_state=0),
    }


def measure(make, S):
    tracemalloc.start()
    t = time.perf_counter()
    make().fit(S)
    sec = time.perf_counter() - t
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return sec, peak


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="*", default=[1000, 2000, 4000])
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--k", type=int, default=100)
    ap.add_argument("--m", type=int, default=500)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--plot", default="docs/figures/growth.png")
    a = ap.parse_args(argv)
    fns = paths(a.k, a.m)
    names = list(fns)
    res = {p: [] for p in names}
    with threadpool_limits(a.threads):
        for n in a.sizes:
            S, _ = make_data(n)
            times = {p: [] for p in names}
            peaks = {p: [] for p in names}
            for r in range(a.repeats):
                for p in names[r % 3:] + names[: r % 3]:
                    sec, peak = measure(fns[p], S)
                    times[p].append(sec)
                    peaks[p].append(peak)
            for p in names:
                res[p].append((n, float(np.median(times[p])), float(np.max(peaks[p]))))
                print(f"n = {n:6d} {p:9s} {np.median(times[p]):8.3f} s  peak "
                      f"{np.max(peaks[p]) / 2**20:8.1f} MiB ({np.max(peaks[p]) / (8 * n * n):.2f} "
                      "n^2 floats)", flush=True)
    for p, pts in res.items():
        if len(pts) > 1:
            ln = np.log([q[0] for q in pts])
            et = np.polyfit(ln, np.log([q[1] for q in pts]), 1)[0]
            em = np.polyfit(ln, np.log([q[2] for q in pts]), 1)[0]
            print(f"{p:9s} growth exponents: time n^{et:.2f}, memory n^{em:.2f}")
    if a.plot:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        fig, ax = plt.subplots(1, 2, figsize=(9, 3.6))
        for p, pts in res.items():
            n = [q[0] for q in pts]
            ax[0].loglog(n, [q[1] for q in pts], "o-", label=p)
            ax[1].loglog(n, [q[2] / 2**20 for q in pts], "o-", label=p)
        ax[0].set(xlabel="n", ylabel="fit time (s)", title="time")
        ax[1].set(xlabel="n", ylabel="peak traced memory (MiB)", title="memory")
        ax[0].legend()
        fig.tight_layout()
        Path(a.plot).parent.mkdir(parents=True, exist_ok=True)
        fig.savefig(a.plot, dpi=110)
        print(f"plot: {a.plot}")
    return res


if __name__ == "__main__":
    main()
