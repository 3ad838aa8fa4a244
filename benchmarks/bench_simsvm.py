"""Benchmark: SimSVM's SOCP (5.31) with Clarabel called directly, against the
same SOCP written plainly in cvxpy (Clarabel) and against the LMI form (5.21).

For aural_sonar (n = 100), voting (n = 435) and a random indefinite problem with
n = 100 (for the SDP), with ``eta = gamma = 0.01`` and ``h = ||alpha -
alpha_clip||_1`` (Chen 2010 Table 5.1 setting), it reports the median wall time
of

* ours: assembling the conic data and solving with Clarabel
  (:class:`proxlearn.kernel_learning._simsvm_socp.SimSVMSOCP`), and the re-solve of an
  already assembled problem (what a grid search pays per grid point);
* dual QP: the same problem through its dual QP with our interior point
  (:class:`proxlearn.kernel_learning._simsvm_dual.SimSVMDualQP`, ``solver="dual-qp"``),
  set-up included, with its certified relative duality gap;
* plain cvxpy: the same SOCP (same kept eigen-directions) built and solved by
  cvxpy with Clarabel, compile time included;
* SDP: the LMI (5.21) in cvxpy with Clarabel (only for n <= 100),

their ratios and the relative difference of the optima. ``--grid`` adds, for
the two real data sets, the medians over the 6 x 7 grid ``eta`` in
{1e-3, ..., 100}, ``gamma`` in {1e-4, ..., 100} for the l1 and l2 regularisers
with both references (Clarabel re-solve against the dual QP; the optima
compared as values of the returned points). The eigendecomposition
(shared by all) is excluded from these solver timings. ``--scaling N1,N2,...``
times whole ``SimSVM.fit`` calls (validation, eigendecompositions and solves
included) on random indefinite 3-class problems, the default ``solver="auto"``
(dual QP) against ``solver="socp"``, alternating, medians, with the largest
relative objective difference and the agreement of the predictions on n/2 test
rows. BLAS is limited to one thread. The thesis reports
44.6 ms (aural_sonar) and 38.3 ms (voting) with MOSEK on an Intel i7 3.2 GHz.

Usage: python benchmarks/bench_simsvm.py [--repeats 5] [--sdp-n 100] [--grid]
       [--scaling 400,800]
"""

from __future__ import annotations

import argparse
import time
import warnings
from pathlib import Path

import cvxpy as cp
import numpy as np
import scipy.linalg
from threadpoolctl import threadpool_limits

from proxlearn.kernel_learning import SimSVM
from proxlearn.kernel_learning._simsvm_dual import SimSVMDualQP
from proxlearn.kernel_learning._simsvm_socp import (
    SimSVMSOCP,
    SimSVMSolverError,
    SimSVMSolverWarning,
    simsvm_objective,
    solve_simsvm_sdp,
)
from _timing import timed, timed_alternating, uw_problem  # noqa: E402  (benchmarks/ is on sys.path when run as a script)


def random_problem(n, seed=0):
    rng = np.random.default_rng(seed)
    y = np.where(np.arange(n) % 2 == 0, 1.0, -1.0)
    X = rng.normal(size=(n, 3)) + np.outer(y, [1.0, 0.0, 0.0])
    N = rng.normal(size=(n, n))
    return X @ X.T + 0.5 * (N + N.T), y


def kept(S, eig_tol=1e-6):
    lam, U = scipy.linalg.eigh(S)
    keep = np.abs(lam) > eig_tol * np.abs(lam).max()
    lamk = lam[keep]
    return U[:, keep], lamk, (lamk > 0).astype(float)


def plain_cvxpy(U, lam, y, ref, eta, gamma):
    n, k = U.shape
    z, b, xi = cp.Variable(k), cp.Variable(), cp.Variable(n)
    a, t = cp.Variable(k), cp.Variable(k)
    la = cp.multiply(lam, a)
    cons = [
        cp.multiply(y, U @ z + b) >= 1 - xi,
        xi >= 0,
        t >= 0,
        la >= 0,
        cp.SOC(la + t, cp.vstack([2 * z, la - t]), axis=0),
    ]
    obj = cp.sum(xi) / n + eta * cp.sum(t) + gamma * cp.norm1(a - ref)
    p = cp.Problem(cp.Minimize(obj), cons)
    p.solve(solver="CLARABEL")
    return p.value




def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--sdp-n", type=int, default=100)
    ap.add_argument("--eig-tol", type=float, default=1e-6)
    ap.add_argument("--grid", action="store_true", help="also time the (eta, gamma) grid")
    ap.add_argument("--data-dir", default=str(Path(__file__).resolve().parents[2] / "shared/data/uw"))
    ap.add_argument("--scaling", default="", help="comma-separated n for whole fits")
    args = ap.parse_args()
    eta = gamma = 0.01
    if args.scaling:
        with threadpool_limits(args.threads):
            scaling([int(v) for v in args.scaling.split(",")], args.repeats)
        return
    problems = []
    for name in ("aural_sonar", "voting"):
        pr = uw_problem(name, args.data_dir)
        if pr is not None:
            S, y = pr
            problems.append((name, 0.5 * (S + S.T), y))
    if args.sdp_n > 0:
        problems.append((f"random n={args.sdp_n}", *random_problem(args.sdp_n)))
    print(f"{'problem':>16} {'n':>4} {'k':>4} {'ours ms':>8} {'resolve':>8} {'dualqp':>7} "
          f"{'cvxpy ms':>9} {'ratio':>6} {'ratio dq':>8} {'rel diff':>9} {'dq diff':>9} "
          f"{'dq gap':>8} {'sdp ms':>8} {'ratio':>6} {'rel diff':>9}", flush=True)
    with threadpool_limits(args.threads):
        for name, S, y in problems:
            U, lam, ref = kept(S, args.eig_tol)

            def ours():
                return SimSVMSOCP(U, lam, y, ref, "l1").solve(eta, gamma).objective

            prob = SimSVMSOCP(U, lam, y, ref, "l1")
            prob.solve(eta, gamma)
            t, out = timed_alternating({
                "ours": ours,
                "re": lambda: prob.solve(eta, gamma).objective,
                "dq": lambda: SimSVMDualQP(U, lam, y, ref).solve(eta, gamma),
                "cvx": lambda: plain_cvxpy(U, lam, y, ref, eta, gamma),
            }, args.repeats)
            t_ours, f_ours, t_re = t["ours"], out["ours"], t["re"]
            t_dq, sol_dq, t_cvx, f_cvx = t["dq"], out["dq"], t["cvx"], out["cvx"]
            f_dq = sol_dq.objective
            line = (f"{name:>16} {S.shape[0]:>4} {U.shape[1]:>4} {1e3 * t_ours:8.1f} "
                    f"{1e3 * t_re:8.1f} {1e3 * t_dq:7.1f} {1e3 * t_cvx:9.1f} "
                    f"{t_cvx / t_ours:6.1f} {t_cvx / t_dq:8.1f} "
                    f"{(f_ours - f_cvx) / abs(f_cvx):9.1e} {(f_dq - f_cvx) / abs(f_cvx):9.1e} "
                    f"{sol_dq.gap / abs(sol_dq.dual_objective):8.1e}")
            if S.shape[0] <= args.sdp_n and name.startswith("random"):
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    t_sdp, sol = timed(
                        lambda: solve_simsvm_sdp(U, lam, y, ref, "l1", eta, gamma),
                        max(1, args.repeats // 2),
                    )
                line += (f" {1e3 * t_sdp:8.1f} {t_sdp / t_ours:6.1f} "
                         f"{(f_ours - sol.objective) / abs(sol.objective):9.1e}")
            print(line, flush=True)
        if args.grid:
            grid(problems, args.eig_tol)


def random_multiclass(n, seed=0, k=3):
    """Linear kernel of k separated blobs plus symmetric noise (indefinite),
    ``n`` training and ``n // 2`` test rows."""
    rng = np.random.default_rng(seed)
    m = n + n // 2
    y = np.arange(m) % k
    X = rng.normal(size=(m, 3)) + 1.5 * np.eye(3)[y]
    N = rng.normal(size=(m, n))
    S = X @ X[:n].T + N
    S[:n] = 0.5 * (S[:n] + S[:n].T)
    return S[:n], y[:n], S[n:]


def scaling(sizes, repeats):
    """Whole SimSVM fits, default (auto: dual QP) against solver='socp'."""
    print(f"{'n':>6} {'auto s':>8} {'socp s':>8} {'ratio':>6} {'max rel obj diff':>16} "
          f"{'same pred':>9}", flush=True)
    for n in sizes:
        S, y, S_test = random_multiclass(n)
        fns = {
            "auto": lambda: SimSVM(eta=0.01, gamma=0.01).fit(S, y),
            "socp": lambda: SimSVM(eta=0.01, gamma=0.01, solver="socp").fit(S, y),
        }
        t, fitted = timed_alternating(fns, repeats)
        a, b = fitted["auto"], fitted["socp"]
        rel = np.max(np.abs(a.objective_ - b.objective_) / np.abs(b.objective_))
        same = np.mean(a.predict(S_test) == b.predict(S_test))
        print(f"{n:>6} {t['auto']:8.2f} {t['socp']:8.2f} {t['socp'] / t['auto']:6.1f} "
              f"{rel:16.1e} {same:9.3f}", flush=True)


def grid(problems, eig_tol):
    """Medians over the (eta, gamma) grid: Clarabel re-solve against the dual QP."""
    etas = (1e-3, 1e-2, 1e-1, 1.0, 10.0, 100.0)
    gammas = (1e-4, 1e-3, 1e-2, 1e-1, 1.0, 10.0, 100.0)
    print(f"\n{'grid':>16} {'reg':>7} {'clarabel ms':>12} {'dual qp ms':>11} {'ratio':>6} "
          f"{'dq better':>9} {'max dq worse':>12} {'max gap':>8} {'warned':>6} {'clarabel failed':>15}",
          flush=True)
    for name, S, y in problems:
        if name.startswith("random"):
            continue
        U, lam, _ = kept(S, eig_tol)
        for kind, rname in [(kd, rn) for kd in ("l1", "l2") for rn in ("clip", "flip")]:
            ref = (lam > 0).astype(float) if rname == "clip" else np.sign(lam)
            socp, dq = SimSVMSOCP(U, lam, y, ref, kind), SimSVMDualQP(U, lam, y, ref, kind)
            tc, td, worse, gaps = [], [], [], []
            better = warned = failed = 0
            for eta in etas:
                for gamma in gammas:
                    with warnings.catch_warnings(record=True) as w:
                        warnings.simplefilter("always", SimSVMSolverWarning)
                        t = time.perf_counter()
                        try:
                            a = socp.solve(eta, gamma)
                        except SimSVMSolverError:
                            a = None  # Clarabel failed (InsufficientProgress etc.)
                        tc.append(time.perf_counter() - t)
                        t = time.perf_counter()
                        b = dq.solve(eta, gamma)
                        td.append(time.perf_counter() - t)
                        warned += sum("dual QP" in str(x.message) for x in w)
                    gaps.append(b.gap / abs(b.dual_objective))
                    if a is None:
                        failed += 1
                        continue
                    fa = simsvm_objective(U, lam, y, ref, kind, eta, gamma, a.z, a.b, a.alpha)
                    rel = (b.objective - fa) / abs(fa)
                    better += rel < -1e-6
                    worse.append(rel)
            print(f"{name:>16} {kind + '-' + rname:>7} {1e3 * np.median(tc):12.1f} {1e3 * np.median(td):11.1f} "
                  f"{np.median(tc) / np.median(td):6.1f} {better:>9d} {max(worse):12.1e} "
                  f"{max(gaps):8.1e} {warned:>6d} {failed:>15d}", flush=True)


if __name__ == "__main__":
    main()
