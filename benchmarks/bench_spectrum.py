"""Benchmark SpectrumTransformer against a bare eigendecomposition.

For each n: builds a random symmetric indefinite n x n matrix and reports

* ``eigh``: one ``scipy.linalg.eigh`` (eigenvalues and eigenvectors) of the
  same matrix, default driver and the divide-and-conquer driver ``evd`` used by
  SpectrumTransformer;
* ``fit``: ``SpectrumTransformer(method).fit`` (validation, one eigh, building
  ``P``), and its ratio to each eigh (goal <= 1.3x);
* ``transform``: m = n/2 test rows, against one ``S_test @ P`` product;
* peak traced memory of ``fit`` (tracemalloc) in units of one n x n float64
  array, excluding the input matrix.

Timings are medians of ``--repeats`` runs, the compared calls alternating. Run::

    python benchmarks/bench_spectrum.py --sizes 2000 4000 --repeats 3
"""

from __future__ import annotations

import argparse
import tracemalloc

import numpy as np
import scipy.linalg

from proxlearn.transforms import SpectrumTransformer
from _timing import timed_alternating  # noqa: E402  (benchmarks/ is on sys.path when run as a script)


def bench(n, method, repeats, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, 20))
    E = rng.standard_normal((n, n))
    S = X @ X.T + (E + E.T)
    del E
    S_test = rng.standard_normal((n // 2, n))

    est = SpectrumTransformer(method)
    t, _ = timed_alternating({  # A B C, B C A, ... (issue #19)
        "default": lambda: scipy.linalg.eigh(S),
        "evd": lambda: scipy.linalg.eigh(S, driver="evd"),
        "fit": lambda: est.fit(S),
    }, repeats)
    t_eigh_default, t_eigh_evd, t_fit = t["default"], t["evd"], t["fit"]
    P = est.P_ if est.P_ is not None else np.eye(n)
    t, _ = timed_alternating({"transform": lambda: est.transform(S_test),
                              "product": lambda: S_test @ P}, repeats)
    t_transform, t_product = t["transform"], t["product"]

    tracemalloc.start()
    SpectrumTransformer(method).fit(S)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return {
        "n": n,
        "method": method,
        "eigh (default)": t_eigh_default,
        "eigh (evd)": t_eigh_evd,
        "fit": t_fit,
        "fit/eigh(default)": t_fit / t_eigh_default,
        "fit/eigh(evd)": t_fit / t_eigh_evd,
        "transform": t_transform,
        "S_test@P": t_product,
        "transform/product": t_transform / t_product,
        "peak mem (n x n)": peak / (8.0 * n * n),
    }


def show(rows):
    cols = list(rows[0])
    fmt = {
        "n": "{:d}",
        "method": "{}",
    }
    cells = [[fmt.get(c, "{:.3f}").format(r[c]) for c in cols] for r in rows]
    try:
        from rich.console import Console
        from rich.table import Table

        table = Table(title="SpectrumTransformer benchmark (seconds, medians)")
        for c in cols:
            table.add_column(c, justify="right")
        for row in cells:
            table.add_row(*row)
        Console(width=max(160, 12 * len(cols))).print(table)
    except ImportError:  # plain fallback
        widths = [max(len(c), *(len(r[i]) for r in cells)) for i, c in enumerate(cols)]
        print("  ".join(c.rjust(w) for c, w in zip(cols, widths)))
        for row in cells:
            print("  ".join(v.rjust(w) for v, w in zip(row, widths)))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[2000])
    parser.add_argument("--methods", nargs="+", default=["clip"])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument(
        "--threads", type=int, default=None, help="BLAS threads (default: unchanged)"
    )
    parser.add_argument("--partial", type=int, nargs="*", default=None,
                        help="n_components values: time partial-spectrum fits (issue #19)")
    args = parser.parse_args(argv)
    from threadpoolctl import threadpool_limits

    if args.partial:
        with threadpool_limits(args.threads):
            partial(args.sizes, args.partial, args.methods, args.repeats)
        return

    with threadpool_limits(args.threads):
        rows = [bench(n, m, args.repeats) for n in args.sizes for m in args.methods]
    show(rows)


def partial(sizes, ks, methods, repeats):
    """Full-spectrum fit against fits with ``n_components=k`` by each eigensolver.

    Random indefinite 3-class similarities (low-rank class structure plus
    noise), alternating, medians; the error column is the spectral norm of the
    truncated kernel's difference from the full one relative to the largest
    dropped modified eigenvalue (1 = the documented bound is attained).
    """
    from bench_simsvm import random_multiclass

    print(f"{'n':>6} {'method':>6} {'k':>4} {'full s':>7} {'dense s':>8} {'arpack s':>9} "
          f"{'random s':>9} {'auto':>6} {'full/arpack':>11} {'full/random':>11} "
          f"{'err/bound':>9}", flush=True)
    for n in sizes:
        S, _, _ = random_multiclass(n)
        for method in methods:
            for k in ks:
                fns = {"full": lambda: SpectrumTransformer(method).fit(S)}
                for sol in ("dense", "arpack", "randomized"):
                    fns[sol] = (lambda sol=sol: SpectrumTransformer(
                        method, eigen_solver=sol, n_components=k, random_state=0).fit(S))
                t, out = timed_alternating(fns, repeats)
                full, part = out["full"], out["arpack"]
                lam = full.eigenvalues_
                key = lam if method == "clip" else np.abs(lam)
                bound = max(float(np.sort(key)[::-1][k]), 0.0)
                err = np.linalg.norm(part.kernel_ - full.kernel_, 2)
                auto = SpectrumTransformer(method, n_components=k)._check_partial(method, n)[1]
                print(f"{n:>6} {method:>6} {k:>4} {t['full']:7.2f} {t['dense']:8.2f} "
                      f"{t['arpack']:9.2f} {t['randomized']:9.2f} {auto:>6} "
                      f"{t['full'] / t['arpack']:11.2f} {t['full'] / t['randomized']:11.2f} "
                      f"{err / bound if bound else float('nan'):9.6f}", flush=True)


if __name__ == "__main__":
    main()
