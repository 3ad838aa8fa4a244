"""The binary SVM dual of proxlearn._svm._dual: svm_dual (libsvm, warm start, polish)
against cvxpy and SVC, libsvm's KKT certificate, the bordered solve of the free set
(the Cholesky + Schur complement route and the LAPACK sysv fallback solve the same
system) and the box-knapsack bound."""

import cvxpy as cp
import numpy as np
import pytest
import scipy.optimize
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.svm import SVC

from proxlearn._svm import _dual, _libsvm
from proxlearn._svm._dual import bordered_solve, box_knapsack_max, frank_wolfe_gap, svm_dual
from proxlearn.kernel_learning._indefinite_svm import project_box_hyperplane


def _problem(n=36, seed=0):
    """Kernels of one binary problem (the problem of tests/mkl/test_solvers.py)."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 5))
    y = np.where(X[:, 0] + 0.7 * rng.normal(size=n) > 0, 1.0, -1.0)
    d2 = ((X[:, None] - X[None]) ** 2).sum(-1)
    Ks = np.stack([np.exp(-d2 / s) for s in (1.0, 5.0, 25.0)] + [X[:, :1] @ X[:, :1].T], -1)
    return Ks, y


def _cvx_svm(K, y, C):
    """The SVM dual's optimal value by cvxpy."""
    lam, V = np.linalg.eigh(K)
    L = V * np.sqrt(np.maximum(lam, 0.0))
    a = cp.Variable(len(y))
    prob = cp.Problem(cp.Maximize(cp.sum(a) - 0.5 * cp.sum_squares(L.T @ cp.multiply(y, a))),
                      [y @ a == 0, a >= 0, a <= C])
    return prob.solve(solver="CLARABEL")


def _bordered(A):
    k = A.shape[0]
    M = np.zeros((k + 1, k + 1))
    M[:-1, :-1] = A
    M[:-1, -1] = M[-1, :-1] = 1.0
    return M


def _psd(k, rank, seed):
    rng = np.random.default_rng(seed)
    G = rng.normal(size=(k, rank))
    return G @ G.T


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("rank", [None, 5])  # positive definite, and singular (rank 5)
def test_bordered_solve_solves_the_bordered_system(seed, rank):
    k = 30
    A = _psd(k, 2 * k if rank is None else rank, seed)
    rng = np.random.default_rng(seed + 10)
    r, s = rng.normal(size=k), float(rng.normal())
    A_in = A.copy()
    got = bordered_solve(A, r, s)
    np.testing.assert_array_equal(A, A_in)  # the caller's block is not overwritten
    M = _bordered(A)
    if rank is None:  # nonsingular: the unique solution
        x, b = got
        want = np.linalg.solve(M, np.r_[r, s])
        np.testing.assert_allclose(np.r_[x, b], want, rtol=1e-8, atol=1e-10)
    else:  # singular: LAPACK's sysv (the old route) decides, or reports it singular
        if got is not None:
            x, b = got
            assert np.all(np.isfinite(x)) and np.isfinite(b)


@pytest.mark.parametrize("seed", [0, 1])
def test_bordered_solve_takes_several_right_hand_sides(seed):
    k, r = 25, 4
    A = _psd(k, 2 * k, seed) + np.eye(k)
    rng = np.random.default_rng(seed)
    R, s = rng.normal(size=(k, r)), rng.normal(size=r)
    X, b = bordered_solve(A, R, s)
    assert X.shape == (k, r) and b.shape == (r,)
    want = np.linalg.solve(_bordered(A), np.vstack([R, s]))
    np.testing.assert_allclose(np.vstack([X, b]), want, rtol=1e-8, atol=1e-10)


def test_bordered_solve_falls_back_to_sysv_on_an_indefinite_block(monkeypatch):
    """An indefinite (or numerically singular) block is not Cholesky-factorable: the
    answer is sysv's on the bordered matrix, as before the Cholesky route."""
    rng = np.random.default_rng(3)
    k = 20
    A = _psd(k, 2 * k, 3)
    A -= (np.linalg.eigvalsh(A)[0] + 1.0) * np.eye(k)  # smallest eigenvalue -1
    assert np.linalg.eigvalsh(A)[0] < 0
    r, s = rng.normal(size=k), 0.7
    x, b = bordered_solve(A, r, s)
    np.testing.assert_allclose(np.r_[x, b], np.linalg.solve(_bordered(A), np.r_[r, s]),
                               rtol=1e-8, atol=1e-10)
    # a pivot ratio above the threshold sends a positive definite block to sysv too
    A = _psd(k, 2 * k, 4) + 1e-3 * np.eye(k)
    monkeypatch.setattr(_dual, "CHOLESKY_MAX_RATIO", 1.0)
    x, b = bordered_solve(A, r, s)
    np.testing.assert_allclose(np.r_[x, b], np.linalg.solve(_bordered(A), np.r_[r, s]),
                               rtol=1e-7, atol=1e-9)


def test_svm_dual_value_is_the_svm_objective():
    Ks, y = _problem(seed=6)
    sol = svm_dual(Ks[:, :, 1], y, 2.0)
    assert sol.alpha.min() >= 0 and sol.alpha.max() <= 2.0
    assert abs(y @ sol.alpha) < 1e-8
    value = _cvx_svm(Ks[:, :, 1], y, 2.0)
    assert sol.value == pytest.approx(value, rel=1e-6)


def test_svm_dual_binding_and_svc_fallback_agree(monkeypatch):
    Ks, y = _problem(seed=7)
    K = Ks[:, :, 0]
    fast = svm_dual(K, y, 0.5)
    monkeypatch.setattr(_libsvm, "_use_binding", False)
    slow = svm_dual(K, y, 0.5)
    np.testing.assert_allclose(fast.alpha, slow.alpha, atol=1e-10)
    assert fast.b == pytest.approx(slow.b, abs=1e-10)
    svc = SVC(kernel="precomputed", C=0.5, tol=1e-7).fit(K, y)
    np.testing.assert_allclose(K @ (fast.alpha * y) + fast.b, svc.decision_function(K),
                               atol=1e-10)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(2, 12))
def test_box_knapsack_equals_linprog(seed, n):
    rng = np.random.default_rng(seed)
    y = rng.choice([-1.0, 1.0], n)
    y[0], y[-1] = 1.0, -1.0
    g = rng.normal(size=n)
    C = rng.uniform(0.1, 3.0)
    lp = scipy.optimize.linprog(-g, A_eq=y[None], b_eq=[0.0], bounds=[(0, C)] * n)
    assert box_knapsack_max(g, y, C) == pytest.approx(-lp.fun, abs=1e-8)


def test_svm_dual_falls_back_when_libsvm_hits_its_iteration_cap(monkeypatch):
    """libsvm never reached tol 1e-7 on a nearly constant kernel (entries 1 +- 6e-6, a
    2LMKL line-search trial on Liver) and ran for minutes; svm_dual caps the SMO
    iterations, re-solves at libsvm's default 1e-3 and polishes that solution by the
    monotone active-set method. A tiny cap makes an ordinary problem take that
    route: the answer passes the test at 1e-7 and is the cvxpy optimum, and the
    chain is marked for the fast route."""
    import proxlearn._svm._dual as sd
    from proxlearn._svm._dual import kkt_violation

    calls = []
    real = _libsvm.libsvm_fit

    def spy(K, y, C, *, tol, max_iter):
        out = real(K, y, C, tol=tol, max_iter=max_iter)
        calls.append((tol, int(np.max(out["n_iter"]))))
        return out

    rng = np.random.default_rng(0)
    Z = rng.normal(size=(60, 3))
    K = Z @ Z.T + 0.1 * np.eye(60)
    y = np.where(Z[:, 0] + 0.3 * rng.normal(size=60) > 0, 1.0, -1.0)
    enc = (y > 0).astype(float)
    n7 = int(np.max(real(K, enc, 1.0, tol=1e-7, max_iter=-1)["n_iter"]))
    n3 = int(np.max(real(K, enc, 1.0, tol=1e-3, max_iter=-1)["n_iter"]))
    assert n3 + 1 < n7  # a cap between the two makes 1e-7 fail and 1e-3 succeed
    monkeypatch.setattr(sd, "MAX_SMO_ITER", n3 + 1)
    monkeypatch.setattr(_libsvm, "libsvm_fit", spy)
    sol = sd.svm_dual(K, y, 1.0)
    assert calls[0] == (1e-7, n3 + 1) and calls[1] == (1e-3, n3)  # capped, then the fallback
    assert np.all(sol.alpha >= 0) and np.all(sol.alpha <= 1.0) and abs(sol.alpha @ y) < 1e-8
    a = cp.Variable(60)
    L = np.linalg.cholesky(K)
    prob = cp.Problem(cp.Maximize(cp.sum(a) - 0.5 * cp.sum_squares(L.T @ cp.multiply(y, a))),
                      [y @ a == 0, a >= 0, a <= 1.0])
    prob.solve(solver="CLARABEL")
    assert sol.value <= prob.value + 1e-6
    assert sol.value == pytest.approx(prob.value, rel=1e-6)
    assert kkt_violation(K, y, 1.0, sol.alpha) <= 1e-7 and sol.polish
    # without the polish the answer is libsvm's at 1e-3 (feasible, near-optimal)
    monkeypatch.setattr(sd, "_monotone_active_set", lambda *a, **k: None)
    loose = sd.svm_dual(K, y, 1.0)
    assert np.all(loose.alpha >= 0) and np.all(loose.alpha <= 1.0)
    assert abs(loose.alpha @ y) < 1e-8 and not loose.polish
    assert loose.value == pytest.approx(prob.value, rel=1e-2)


def _random_svm(seed, n=80):
    rng = np.random.default_rng(seed)
    r = int(rng.integers(3, 30))
    Z = rng.normal(size=(n, r))
    y = np.where(Z[:, 0] + rng.normal(size=n) * rng.uniform(0.3, 2.0) > 0, 1.0, -1.0)
    return Z @ Z.T / r, y, float(rng.choice([1.0, 10.0, 100.0])), Z / np.sqrt(r)


@pytest.mark.parametrize("seed", [0, 5, 17, 42, 120, 275, 283])
def test_monotone_active_set_polishes_a_loose_solution_to_the_optimum(seed):
    """From libsvm's solution at 1e-3 (low-rank kernels, C up to 100; seeds 17 and 42
    are cases where the clipping heuristic of the warm start oscillates), the
    monotone active-set method returns a solution that passes libsvm's test at 1e-7,
    is feasible, and has the cvxpy optimum's value. On seeds 42, 120, 275 and 283 the
    free set outgrows the kernel's rank; before the uphill line step the polish cycled
    there on some BLAS core types (42 and 283 under Prescott, 120 under SkylakeX, 275
    under both)."""
    import proxlearn._svm._dual as sd

    K, y, C, L = _random_svm(seed)
    alpha, _, _ = sd._libsvm(K, y, C, 1e-3)
    sol = sd._monotone_active_set(K, y, C, alpha, 1e-7, sd.POLISH_ROUNDS)
    assert sol is not None
    assert sd.kkt_violation(K, y, C, sol.alpha) <= 1e-7
    assert sol.alpha.min() >= 0 and sol.alpha.max() <= C and abs(sol.alpha @ y) < 1e-9 * C
    a = cp.Variable(y.size)
    value = cp.Problem(cp.Maximize(cp.sum(a) - 0.5 * cp.sum_squares(L.T @ cp.multiply(y, a))),
                       [y @ a == 0, a >= 0, a <= C]).solve(solver="CLARABEL")
    assert sol.value == pytest.approx(value, rel=1e-6)
    u = sol.alpha * y
    assert sol.value == pytest.approx(sol.alpha.sum() - 0.5 * u @ K @ u, rel=1e-12)
    loose_value = alpha.sum() - 0.5 * (alpha * y) @ K @ (alpha * y)
    assert sol.value >= loose_value - 1e-9 * abs(loose_value)  # ascent from the start


@pytest.mark.parametrize("sign", [1.0, -1.0])
@pytest.mark.parametrize("seed", [17, 42])
def test_monotone_active_set_climbs_a_singular_free_set_whichever_sign_the_solve_gives(
        seed, sign, monkeypatch):
    """When the free set outgrows the kernel's rank the bordered system is singular and
    its computed solution is dominated by a null vector whose sign the last bits of the
    factorisation decide (it changed with OPENBLAS_CORETYPE). Both signs are forced
    here: the polish must reach the optimum with either (before the fix one sign made
    it free and fix the same point until POLISH_ROUNDS ran out)."""
    import proxlearn._svm._dual as sd

    K, y, C, L = _random_svm(seed)
    real = sd._bordered_solve
    singular = []

    def forced(K, y, F, B, C):
        x = real(K, y, F, B, C)
        A = np.zeros((F.size + 1, F.size + 1))
        A[:-1, :-1] = K[np.ix_(F, F)]
        A[:-1, -1] = A[-1, :-1] = 1.0
        w, V = np.linalg.eigh(A)
        null = np.flatnonzero(np.abs(w) <= 1e-9 * np.abs(w).max())
        if x is None or null.size == 0:
            return x
        singular.append(F.size)
        z = V[:, null[0]]
        return x - z * (z @ x) + sign * 1e8 * z  # the null component, with a chosen sign

    monkeypatch.setattr(sd, "_bordered_solve", forced)
    alpha, _, _ = sd._libsvm(K, y, C, 1e-3)
    sol = sd._monotone_active_set(K, y, C, alpha, 1e-7, sd.POLISH_ROUNDS)
    assert singular  # the case under test occurred
    assert sol is not None and sd.kkt_violation(K, y, C, sol.alpha) <= 1e-7
    assert sol.alpha.min() >= 0 and sol.alpha.max() <= C and abs(sol.alpha @ y) < 1e-9 * C
    a = cp.Variable(y.size)
    value = cp.Problem(cp.Maximize(cp.sum(a) - 0.5 * cp.sum_squares(L.T @ cp.multiply(y, a))),
                       [y @ a == 0, a >= 0, a <= C]).solve(solver="CLARABEL")
    assert sol.value == pytest.approx(value, rel=1e-6)


def test_slow_smo_switches_the_chain_to_loose_solve_and_polish(monkeypatch):
    """A solve that took libsvm SLOW_SMO_PER_SAMPLE n iterations or more marks its
    chain; the next kernel of the chain is solved by libsvm at 1e-3 plus the polish
    (never libsvm at 1e-7), and its answer is the SVM of that kernel."""
    import proxlearn._svm._dual as sd

    Ks, y = _problem(n=60, seed=2)
    K0 = Ks[:, :, :3] @ np.array([0.5, 0.3, 0.2])
    K1 = Ks[:, :, :3] @ np.array([0.2, 0.3, 0.5])
    exact1 = sd.svm_dual(K1, y, 1.0)
    assert not exact1.polish  # an ordinary problem: libsvm is fast
    monkeypatch.setattr(sd, "SLOW_SMO_PER_SAMPLE", 0)
    prev = sd.svm_dual(K0, y, 1.0)
    assert prev.polish
    tols = []
    real = _libsvm.libsvm_fit
    monkeypatch.setattr(_libsvm, "libsvm_fit",
                        lambda *a, **k: tols.append(k["tol"]) or real(*a, **k))
    monkeypatch.setattr(sd, "_active_set_solution", lambda *a, **k: None)  # no warm start
    sol = sd.svm_dual(K1, y, 1.0, alpha0=prev)
    assert tols == [1e-3] and sol.polish
    assert sd.kkt_violation(K1, y, 1.0, sol.alpha) <= 1e-7
    assert sol.value == pytest.approx(exact1.value, rel=1e-7)


def _libsvm_forbidden(monkeypatch):
    import proxlearn._svm._dual as sd

    def boom(*args, **kwargs):
        raise AssertionError("libsvm was called: the warm start did not hold")

    monkeypatch.setattr(_libsvm, "libsvm_fit", boom)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_warm_started_svm_dual_is_the_svm_of_the_new_kernel(seed, monkeypatch):
    """From the solution on K, the active-set warm start on a nearby kernel K' gives
    the SVM of K' (same value and decision values as a cold libsvm solve, libsvm's
    own stopping test passed) without calling libsvm."""
    from proxlearn._svm._dual import kkt_violation

    Ks, y = _problem(n=60, seed=seed)
    K0 = Ks[:, :, :3] @ np.array([0.5, 0.3, 0.2])
    K1 = Ks[:, :, :3] @ np.array([0.49, 0.31, 0.2])
    cold0 = svm_dual(K0, y, 1.0)
    cold1 = svm_dual(K1, y, 1.0)
    _libsvm_forbidden(monkeypatch)
    warm = svm_dual(K1, y, 1.0, alpha0=cold0.alpha)
    assert kkt_violation(K1, y, 1.0, warm.alpha) <= 1e-7
    assert abs(y @ warm.alpha) < 1e-10
    assert warm.alpha.min() >= 0 and warm.alpha.max() <= 1.0
    assert warm.value == pytest.approx(cold1.value, rel=1e-7)
    np.testing.assert_allclose(K1 @ (warm.alpha * y) + warm.b,
                               K1 @ (cold1.alpha * y) + cold1.b, atol=1e-5)


def test_warm_start_from_a_wrong_active_set_falls_back_to_libsvm():
    """A random alpha0 (wrong active set), one of the wrong length and one with no
    free variable: the answer is still the SVM (libsvm's), never the wrong set's."""
    Ks, y = _problem(n=50, seed=3)
    K = Ks[:, :, 1]
    cold = svm_dual(K, y, 1.0)
    rng = np.random.default_rng(0)
    for alpha0 in (rng.uniform(0, 1, size=50), np.zeros(7), np.zeros(50), np.ones(50)):
        sol = svm_dual(K, y, 1.0, alpha0=alpha0)
        assert sol.value == pytest.approx(cold.value, rel=1e-7)
        np.testing.assert_allclose(K @ (sol.alpha * y) + sol.b,
                                   K @ (cold.alpha * y) + cold.b, atol=1e-5)


def test_kkt_violation_is_libsvm_stopping_measure():
    """At libsvm's answer the measure is below its tol; a feasible non-optimal alpha
    (all at C/2, balanced classes) is far above it."""
    from proxlearn._svm._dual import kkt_violation

    Ks, y = _problem(n=40, seed=4)
    K = Ks[:, :, 0]
    for tol in (1e-3, 1e-7):
        sol = svm_dual(K, y, 1.0, tol=tol)
        assert kkt_violation(K, y, 1.0, sol.alpha) <= tol * (1 + 1e-6)
    y = np.where(np.arange(40) % 2 == 0, 1.0, -1.0)
    assert kkt_violation(K, y, 1.0, np.full(40, 0.5)) > 1e-2


def test_warm_start_is_tried_only_when_the_cost_model_expects_a_gain(monkeypatch):
    """An SVMDual passed as alpha0 carries libsvm's work on its chain: a solve that
    took libsvm no work is not worth an active-set attempt (libsvm runs), one that
    took it a million iterations is; both give the SVM of the new kernel."""
    import dataclasses

    import proxlearn._svm._dual as sd

    Ks, y = _problem(n=60, seed=1)
    K0 = Ks[:, :, :3] @ np.array([0.5, 0.3, 0.2])
    K1 = Ks[:, :, :3] @ np.array([0.49, 0.31, 0.2])
    prev = svm_dual(K0, y, 1.0)
    assert 0 < prev.smo_work < np.inf  # n x libsvm's iterations
    calls = []
    real = _libsvm.libsvm_fit
    monkeypatch.setattr(_libsvm, "libsvm_fit", lambda *a, **k: calls.append(1) or real(*a, **k))
    cheap = sd.svm_dual(K1, y, 1.0, alpha0=dataclasses.replace(prev, smo_work=0.0))
    assert calls == [1]
    costly = sd.svm_dual(K1, y, 1.0, alpha0=dataclasses.replace(prev, smo_work=60e6))
    assert calls == [1] and costly.smo_work == 60e6  # warm, and the work is inherited
    assert costly.value == pytest.approx(cheap.value, rel=1e-7)


def test_frank_wolfe_gap_matches_lp():
    rng = np.random.default_rng(0)
    n, C = 25, 0.7
    y = np.where(np.arange(n) < 10, 1.0, -1.0)
    g = rng.normal(size=n)
    alpha = project_box_hyperplane(rng.random(n), y, C)
    a = cp.Variable(n)
    lp = cp.Problem(cp.Maximize(g @ a), [a >= 0, a <= C, y @ a == 0])
    lp.solve(solver="HIGHS")
    assert frank_wolfe_gap(g, alpha, y, C) == pytest.approx(lp.value - g @ alpha, abs=1e-8)


@pytest.mark.parametrize("C", [0.1, 1.0, 10.0])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_kkt_intercept_is_the_intercept_libsvm_returns(seed, C):
    """The intercept from the KKT conditions at the solution (kkt_intercept, used by
    solvers that do not return one) agrees with libsvm's own b to its tolerance."""
    from proxlearn._svm._dual import kkt_intercept

    Ks, y = _problem(n=50, seed=seed)
    K = Ks[:, :, 1]
    sol = svm_dual(K, y, C, tol=1e-9)
    b = kkt_intercept(sol.alpha, y, K @ (sol.alpha * y), C)
    assert b == pytest.approx(sol.b, abs=1e-6)
