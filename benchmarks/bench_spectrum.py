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

``--partial K ...`` times fits with ``n_components=K`` (leading eigenpairs);
``--negative F ...`` times the default ``eigen_solver="auto"`` (eigenvectors
of the eigenvalues ``<= tol`` only, when few) against ``"dense"`` (the full
decomposition) on matrices with a fraction ``F`` of negative eigenvalues::

    python benchmarks/bench_spectrum.py --sizes 1000 2000 4000 --negative 0.01 0.5 --threads 1
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
    parser.add_argument("--partial-data", choices=("flat", "l1gauss"), default="flat",
                        help="with --partial: the matrix (default: random 3-class, flat bulk)")
    parser.add_argument("--negative", type=float, nargs="*", default=None,
                        help="fractions of negative eigenvalues: auto vs dense (issue #19)")
    parser.add_argument("--no-memory", action="store_true",
                        help="with --negative: skip the tracemalloc runs")
    parser.add_argument("--cutoff", type=float, default=None,
                        help="with --negative: set AUTO_NEGATIVE_FRACTION (1: always partial)")
    parser.add_argument("--shift", action="store_true",
                        help="lambda_min by ARPACK against the eigenvalues-only decomposition")
    parser.add_argument("--large", type=int, default=None,
                        help="one default clip fit at this n (negative path), no dense run; "
                        "with --partial K: the rank-K clip instead")
    parser.add_argument("--large-data", choices=("lowrank", "l1gauss"), default="lowrank",
                        help="with --large: the matrix (default: low rank + diagonal, 1%% "
                        "negative; l1gauss: bench_nystroem's Gaussian of L1 distances)")
    parser.add_argument("--eigen-solver", default="auto",
                        help="with --large: SpectrumTransformer's eigen_solver (default auto)")
    args = parser.parse_args(argv)
    from threadpoolctl import threadpool_limits

    if args.shift:
        with threadpool_limits(args.threads):
            shift_min(args.sizes, args.repeats)
        return
    if args.large:
        with threadpool_limits(args.threads):
            large(args.large, n_components=(args.partial or [None])[0], data=args.large_data,
                  solver=args.eigen_solver)
        return

    if args.negative:
        if args.cutoff is not None:  # to measure the cut-off itself
            import proxlearn.transforms._spectrum as spectrum_module

            spectrum_module.AUTO_NEGATIVE_FRACTION = args.cutoff
        with threadpool_limits(args.threads):
            negative(args.sizes, args.negative, args.methods, args.repeats,
                     memory=not args.no_memory)
        return
    if args.partial:
        with threadpool_limits(args.threads):
            partial(args.sizes, args.partial, args.methods, args.repeats, args.partial_data)
        return

    with threadpool_limits(args.threads):
        rows = [bench(n, m, args.repeats) for n in args.sizes for m in args.methods]
    show(rows)


def partial(sizes, ks, methods, repeats, data="flat"):
    """Full-spectrum fit against fits with ``n_components=k`` by each eigensolver.

    ``data="flat"``: random indefinite 3-class similarities (low-rank class
    structure plus noise: after the first few eigenvalues a flat bulk);
    ``"l1gauss"``: bench_nystroem's Gaussian of L1 distances (a decaying
    spectrum). Alternating, medians; "auto" is timed too and its route (what
    ``eigen_solver_`` says) printed; the error column is the spectral norm of
    the truncated kernel's difference from the full one relative to the
    largest dropped modified eigenvalue (1 = the documented bound is attained).
    """
    from bench_nystroem import make_data
    from bench_simsvm import random_multiclass

    solvers = ("dense", "tridiagonal", "arpack", "randomized", "auto")
    print(f"{'data':>7} {'n':>6} {'method':>6} {'k':>4} {'full s':>7} "
          + " ".join(f"{s[:10] + ' s':>12}" for s in solvers)
          + f" {'auto took':>11} {'full/auto':>9} {'err/bound':>9}", flush=True)
    for n in sizes:
        S = random_multiclass(n)[0] if data == "flat" else make_data(n)[0]
        for method in methods:
            for k in ks:
                fns = {"full": lambda: SpectrumTransformer(method).fit(S)}
                for sol in solvers:
                    fns[sol] = (lambda sol=sol: SpectrumTransformer(
                        method, eigen_solver=sol, n_components=k, random_state=0).fit(S))
                t, out = timed_alternating(fns, repeats)
                full, part = out["full"], out["auto"]
                lam = full.eigenvalues_
                key = lam if method == "clip" else np.abs(lam)
                bound = max(float(np.sort(key)[::-1][k]), 0.0)
                err = np.linalg.norm(part.kernel_ - full.kernel_, 2)
                print(f"{data:>7} {n:>6} {method:>6} {k:>4} {t['full']:7.2f} "
                      + " ".join(f"{t[s]:12.2f}" for s in solvers)
                      + f" {part.eigen_solver_:>11} {t['full'] / t['auto']:9.2f} "
                      f"{err / bound if bound else float('nan'):9.6f}", flush=True)


def spectrum_matrix(n, fraction, seed=0):
    """``Q diag(lambda) Q^T`` with a Haar-random orthogonal ``Q``: a fraction
    ``fraction`` of the eigenvalues uniform in [-1, -0.01], the rest
    ``10 u^3`` with ``u`` uniform in [0, 1] (a decaying positive spectrum with
    many small positive eigenvalues, as similarity matrices have)."""
    rng = np.random.default_rng(seed)
    Q, R = np.linalg.qr(rng.standard_normal((n, n)))
    Q *= np.sign(np.diag(R))
    del R
    k = int(round(fraction * n))
    lam = np.concatenate([-rng.uniform(0.01, 1.0, k), 10.0 * rng.uniform(0.0, 1.0, n - k) ** 3])
    S = (Q * lam) @ Q.T
    S += S.T
    S *= 0.5
    return S


def _peak(fn):
    """Peak traced memory of ``fn()`` in bytes (numpy buffers, LAPACK workspaces
    allocated by the wrappers)."""
    tracemalloc.start()
    fn()
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return peak


def negative(sizes, fractions, methods, repeats, memory=True):
    """Default fit (``eigen_solver="auto"``: the eigenpairs with ``lambda <= tol``
    only when at most n / 5) against the full decomposition
    (``eigen_solver="dense"``), alternating, medians; the largest difference
    of the kernels and of the transformed test rows relative to ``max|K|``;
    peak traced memory of each fit in ``n x n`` arrays (input excluded)."""
    print(f"{'n':>6} {'neg %':>6} {'method':>6} {'count':>6} {'auto takes':>10} "
          f"{'dense s':>8} {'auto s':>7} {'dense/auto':>10} {'max rel diff':>12} "
          f"{'mem dense':>9} {'mem auto':>8}", flush=True)
    for n in sizes:
        for frac in fractions:
            S = spectrum_matrix(n, frac)
            S_test = np.random.default_rng(1).standard_normal((64, n))
            for method in methods:
                fns = {
                    "dense": lambda: SpectrumTransformer(method, eigen_solver="dense").fit(S),
                    "auto": lambda: SpectrumTransformer(method).fit(S),
                }
                t, out = timed_alternating(fns, repeats)
                d, a = out["dense"], out["auto"]
                Kd = d.kernel_
                scale = np.abs(Kd).max()
                diff = max(np.abs(a.kernel_ - Kd).max(),
                           np.abs(a.transform(S_test) - d.transform(S_test)).max()) / scale
                del Kd
                mem = {k: _peak(f) / (8.0 * n * n) if memory else float("nan")
                       for k, f in fns.items()}
                print(f"{n:>6} {100 * frac:>6.1f} {method:>6} {a.n_negative_:>6} "
                      f"{a.eigen_solver_:>10} {t['dense']:8.2f} {t['auto']:7.2f} "
                      f"{t['dense'] / t['auto']:10.2f} {diff:12.1e} {mem['dense']:9.2f} "
                      f"{mem['auto']:8.2f}", flush=True)


def shift_min(sizes, repeats):
    """Shift needs only ``lambda_min``: ARPACK (``eigsh(k=1, which="SA")``, to
    machine precision) against the eigenvalues-only decomposition that
    ``SpectrumTransformer("shift")`` runs, on three spectra (not adopted: see
    docs/benchmarks.md)."""
    import scipy.sparse.linalg as spla
    from bench_simsvm import random_multiclass

    print(f"{'n':>6} {'matrix':>10} {'eigvals s':>9} {'arpack s':>8} {'eigvals/arpack':>14} "
          f"{'rel diff':>8}", flush=True)
    for n in sizes:
        for name, S in (("1 % neg", spectrum_matrix(n, 0.01)),
                        ("50 % neg", spectrum_matrix(n, 0.5)),
                        ("3-class", random_multiclass(n)[0])):
            S = 0.5 * (S + S.T)
            v0 = np.random.default_rng(0).standard_normal(n)
            t, out = timed_alternating({
                "eigvals": lambda: scipy.linalg.eigh(S, eigvals_only=True, driver="evd",
                                                     check_finite=False),
                "arpack": lambda: spla.eigsh(S, k=1, which="SA", v0=v0, tol=0,
                                             return_eigenvectors=False),
            }, repeats)
            lam = out["eigvals"]
            diff = abs(lam[0] - out["arpack"][0]) / np.abs(lam).max()
            print(f"{n:>6} {name:>10} {t['eigvals']:9.2f} {t['arpack']:8.2f} "
                  f"{t['eigvals'] / t['arpack']:14.2f} {diff:8.1e}", flush=True)


def large(n, n_neg_frac=0.01, seed=0, n_components=None, data="lowrank", solver="auto"):
    """One default ``SpectrumTransformer("clip")`` fit at a size where the full
    decomposition is out of reach: ``S = D + X X^T - Y Y^T`` with ``D``
    diagonal in [0.5, 1.5], ``X`` n x 20 and ``Y = Q diag(sqrt(s))``, ``Q``
    orthonormal n x (n / 100), ``s`` in [2, 4] (about 1 % negative
    eigenvalues), built in place (one n x n array). Prints the wall time, the
    count, the eigen-residual and orthogonality of the computed vectors, the
    peak traced memory of the fit (n x n arrays, input excluded) and the
    process's peak resident memory. ``n_components=k``: the rank-k clip instead,
    with a bound on its error against the exact clip; ``data="l1gauss"``: the
    similarity of bench_nystroem.py instead (a decaying spectrum)."""
    from scipy.linalg import blas

    if data == "l1gauss":  # bench_nystroem's similarity: a decaying, indefinite spectrum
        from bench_nystroem import make_data

        S = make_data(n, seed=seed)[0]
        return _large_fit(S, n, n_components, solver)
    rng = np.random.default_rng(seed)
    p = int(round(n_neg_frac * n))
    X = rng.standard_normal((n, 20))
    Q = np.linalg.qr(rng.standard_normal((n, p)))[0]
    Y = Q * np.sqrt(rng.uniform(2.0, 4.0, p))
    S = X @ X.T
    blas.dgemm(-1.0, Y, Y, beta=1.0, c=S.T, trans_b=True, overwrite_c=1)  # S -= Y Y^T
    S.flat[:: n + 1] += rng.uniform(0.5, 1.5, n)
    del X, Q, Y
    S += S.T  # exact symmetry (the in-place product is symmetric to rounding)
    S *= 0.5
    return _large_fit(S, n, n_components, solver)


def _large_fit(S, n, n_components, solver="auto"):
    import resource
    import time

    tracemalloc.start()
    t0 = time.perf_counter()
    est = SpectrumTransformer("clip", n_components=n_components, eigen_solver=solver).fit(S)
    wall = time.perf_counter() - t0
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    if n_components is not None:
        # ||clip(S) - K_k||_F^2 = ||clip(S)||_F^2 - sum_kept lambda^2 <= ||S||_F^2 - sum_kept
        # lambda^2 (orthogonal projections; ||clip(S)|| <= ||S||): a bound on the error
        # of the rank-k kernel relative to the exact clip, with no full decomposition
        kept = est.eigenvalues_[est.eigenvalues_ > 0]
        rest = max(float(np.einsum("ij,ij->", S, S)) - float(kept @ kept), 0.0)
        print(f"n={n} clip n_components={n_components} ({est.eigen_solver_}): {wall:.1f} s; "
              f"relative Frobenius error against the exact clip <= "
              f"{np.sqrt(rest / (kept @ kept)):.2e}", flush=True)
    V, lam = est.eigenvectors_, est.eigenvalues_[: est.eigenvectors_.shape[1]]
    res = np.linalg.norm(S @ V - V * lam) / np.abs(est.eigenvalues_).max()
    orth = np.abs(V.T @ V - np.eye(V.shape[1])).max()
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20  # KiB -> GiB
    print(f"n={n} clip auto takes {est.eigen_solver_}: {wall:.1f} s, "
          f"{V.shape[1]} eigenpairs "
          f"{'<= tol' if n_components is None else 'kept'} ({est.n_negative_} negative), "
          f"residual {res:.1e}, orthogonality {orth:.1e}, "
          f"peak traced {peak / (8.0 * n * n):.2f} n x n arrays, "
          f"process peak RSS {rss:.2f} GiB (input {8.0 * n * n / 2**30:.2f} GiB)", flush=True)


if __name__ == "__main__":
    main()
