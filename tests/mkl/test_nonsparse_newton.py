"""Newton's method for Kundu et al. eq. 10 (mkl._nonsparse_newton): what it returns is the
certified joint optimum, the same the block ascent and cvxpy reach."""

import cvxpy as cp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from proxlearn.mkl import box_knapsack_max, nonsparse_mkl, svm_dual
from proxlearn.mkl import _solvers
from proxlearn.mkl._nonsparse_newton import nonsparse_newton
from proxlearn.mkl._solvers import gamma_star
from proxlearn._svm._dual import kkt_violation


def _problem(n=40, seed=0, useless=False):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 5))
    y = np.where(X[:, 0] + 0.7 * rng.normal(size=n) > 0, 1.0, -1.0)
    d2 = ((X[:, None] - X[None]) ** 2).sum(-1)
    Ks = [np.exp(-d2 / s) for s in (1.0, 5.0, 25.0)]
    if useless:  # a large kernel unrelated to y: its weight 1/gamma runs to the floor
        R = rng.normal(size=(n, 3))
        Ks.append(12.0 * R @ R.T)
    return np.stack(Ks, -1), y


def _cvx_eq10(Ks, y, C, floor):
    """Eq. 10 over {gamma in simplex, gamma >= floor} (the problem certified)."""
    n, _, m = Ks.shape
    a, g = cp.Variable(n), cp.Variable(m)
    u = cp.multiply(y, a)
    Ls = []
    for k in range(m):
        lam, V = np.linalg.eigh(Ks[:, :, k])
        Ls.append(V * np.sqrt(np.maximum(lam, 0.0)))
    obj = cp.sum(a) - 0.5 * sum(cp.quad_over_lin(L.T @ u, g[k]) for k, L in enumerate(Ls))
    cons = [y @ a == 0, a >= 0, a <= C, cp.sum(g) == 1, g >= floor]
    return cp.Problem(cp.Maximize(obj), cons).solve(solver="CLARABEL")


def _check_certified(Ks, y, C, floor, tol, r):
    """The result is the SVM (libsvm's test) of the kernel its own gamma defines."""
    u = r.alpha * y
    a = np.einsum("i,ijk,j->k", u, Ks, u)
    np.testing.assert_allclose(r.gamma, gamma_star(a, floor), rtol=1e-9, atol=1e-15)
    K = Ks @ (1.0 / r.gamma)
    assert kkt_violation(K, y, C, r.alpha) <= tol * (1.0 + 1e-6)
    assert abs(r.alpha @ y) <= 1e-9 * C and r.alpha.min() >= 0 and r.alpha.max() <= C
    assert r.value == pytest.approx(r.alpha.sum() - 0.5 * u @ K @ u, rel=1e-9)
    return K


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("useless", [False, True])
def test_newton_from_another_gammas_svm_reaches_the_cvxpy_optimum(seed, useless):
    Ks, y = _problem(seed=seed, useless=useless)
    m = Ks.shape[2]
    start = svm_dual(Ks @ np.full(m, float(m)), y, 1.0)  # the SVM at uniform gamma
    r = nonsparse_newton(Ks, y, 1.0, start.alpha, floor=1e-3, tol=1e-7)
    assert r is not None
    _check_certified(Ks, y, 1.0, 1e-3, 1e-7, r)
    value = _cvx_eq10(Ks, y, 1.0, 1e-3)
    assert r.value == pytest.approx(value, rel=1e-5)
    if useless:
        assert r.gamma[-1] == pytest.approx(1e-3)  # the floored case is the one exercised


@pytest.mark.parametrize("useless", [False, True])
def test_nonsparse_mkl_takes_the_newton_path_and_certifies_the_block_ascent_optimum(
        monkeypatch, useless):
    Ks, y = _problem(seed=3, useless=useless)
    taken = []

    def spy(*args, **kwargs):
        out = nonsparse_newton(*args, **kwargs)
        taken.append(out is not None)
        return out

    monkeypatch.setattr(_solvers, "nonsparse_newton", spy)
    fast = nonsparse_mkl(Ks, y, 1.0, tol=1e-6)
    plain = nonsparse_mkl(Ks, y, 1.0, tol=1e-6, newton=False, accelerate=False,
                          max_iter=2000)
    assert taken == [True]  # tried once (newton=False never calls it), and it succeeded
    assert fast.gap <= 1e-6 * abs(fast.objective)
    assert fast.objective == pytest.approx(plain.objective, rel=2e-6)
    np.testing.assert_allclose(fast.weights, plain.weights, rtol=1e-3, atol=1e-5)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(8, 36), m=st.integers(1, 4),
       C=st.sampled_from([0.1, 1.0, 10.0]), floor=st.sampled_from([1e-3, 0.05]))
def test_newton_returns_only_certified_points(seed, n, m, C, floor):
    """Whatever the problem (rank-deficient kernels, all points at a bound, a kernel
    the SVM cannot use), the result is ``None`` or a certified optimum whose
    Frank-Wolfe gap is of the order of the SVM tolerance."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    y = np.where(rng.random(n) < 0.5, 1.0, -1.0)
    y[:2] = [1.0, -1.0]
    d2 = ((X[:, None] - X[None]) ** 2).sum(-1)
    cands = [np.exp(-d2 / 2.0), X[:, :1] @ X[:, :1].T, np.exp(-d2 / 20.0),
             np.outer(rng.normal(size=n), rng.normal(size=n))]
    cands[3] = cands[3] @ cands[3].T  # rank one, unrelated to y
    Ks = np.stack(cands[:m], -1)
    start = svm_dual(Ks @ np.full(m, float(m)), y, C)
    r = nonsparse_newton(Ks, y, C, start.alpha, floor=floor, tol=1e-7)
    if r is None:
        return
    K = _check_certified(Ks, y, C, floor, 1e-7, r)
    u = r.alpha * y
    grad = 1.0 - y * (K @ u)
    fw_gap = box_knapsack_max(grad, y, C) - grad @ r.alpha
    assert -1e-9 <= fw_gap <= 2.0 * n * C * 1e-7 + 1e-9


@pytest.mark.parametrize("seed", [0, 1])
def test_newton_reads_the_same_face_from_a_gathered_or_the_whole_stack(seed, monkeypatch):
    """_Face gathers the support's sub-stack when the support is small, else reads the
    whole stack at each step: both routes take the same steps to the same optimum."""
    import proxlearn.mkl._nonsparse_newton as eq

    Ks, y = _problem(n=50, seed=seed, useless=True)
    m = Ks.shape[2]
    start = svm_dual(Ks @ np.full(m, float(m)), y, 1.0)
    monkeypatch.setattr(eq, "SUB_STACK_MAX_FRACTION", 1.0)  # always gathered
    gathered = nonsparse_newton(Ks, y, 1.0, start.alpha, floor=1e-3, tol=1e-7)
    monkeypatch.setattr(eq, "SUB_STACK_MAX_FRACTION", 0.0)  # always the whole stack
    whole = nonsparse_newton(Ks, y, 1.0, start.alpha, floor=1e-3, tol=1e-7)
    assert gathered is not None and whole is not None
    assert gathered.n_steps == whole.n_steps
    assert gathered.value == pytest.approx(whole.value, rel=1e-10)
    np.testing.assert_allclose(gathered.gamma, whole.gamma, rtol=1e-7, atol=1e-12)
    _check_certified(Ks, y, 1.0, 1e-3, 1e-7, gathered)


def _spectral_sequence(n=40, steps=4, seed=5):
    """REKL-like kernels: fixed eigenvectors per kernel, spectra moving a little from one
    call to the next (the warm start's use)."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 4))
    y = np.where(X[:, 0] + 0.5 * rng.normal(size=n) > 0, 1.0, -1.0)
    d2 = ((X[:, None] - X[None]) ** 2).sum(-1)
    bases = [np.linalg.eigh(K)[1] for K in (np.exp(-d2 / 2.0), X @ X.T, np.exp(-d2 / 8.0))]
    mus = [np.linalg.eigh(K)[0].clip(0) for K in (np.exp(-d2 / 2.0), X @ X.T,
                                                   np.exp(-d2 / 8.0))]
    seq = []
    for s in range(steps):
        Ks = [(V * (mu * np.exp(0.05 * s * rng.normal(size=n)))) @ V.T
              for V, mu in zip(bases, mus)]
        seq.append(np.stack([0.5 * (K + K.T) for K in Ks], -1))
    return seq, y


@pytest.mark.parametrize("C", [0.1, 1.0, 10.0])
def test_warm_started_nonsparse_mkl_equals_the_cold_solve_and_passes_kkt(C):
    """Each solve warm from the previous one's (gamma, alpha) (as EMKL and REKL call it)
    reaches the cold solve's certified optimum, and its alpha is the SVM (libsvm's test)
    of the kernel its weights define."""
    seq, y = _spectral_sequence()
    prev = None
    for Ks in seq:
        cold = nonsparse_mkl(Ks, y, C, tol=1e-6)
        warm = nonsparse_mkl(Ks, y, C, tol=1e-6,
                             gamma0=None if prev is None else prev.weights,
                             alpha0=None if prev is None else prev.alpha)
        for r in (cold, warm):
            assert r.gap <= 1e-6 * abs(r.objective)
            K = Ks @ r.kernel_weights
            assert kkt_violation(K, y, C, r.alpha) <= 1e-7 * (1.0 + 1e-6)
            assert abs(r.alpha @ y) <= 1e-9 * C
        assert warm.objective == pytest.approx(cold.objective, rel=2e-6)
        np.testing.assert_allclose(warm.weights, cold.weights, rtol=1e-3, atol=1e-6)
        prev = warm


@pytest.mark.parametrize("seed", [0, 1])
def test_newton_returns_its_products_and_an_intercept_meeting_the_free_kkt(seed):
    """The products handed to the caller's certificate are ``[K_k u]`` at the returned
    ``alpha`` on every row, and ``b`` (the face residual's midrange when the face test
    stops the Newton loop) satisfies the free points' condition ``y_i - (K_gamma u)_i = b``
    to the tolerance."""
    Ks, y = _problem(n=50, seed=seed, useless=True)
    m = Ks.shape[2]
    start = svm_dual(Ks @ np.full(m, float(m)), y, 1.0)
    r = nonsparse_newton(Ks, y, 1.0, start.alpha, floor=1e-3, tol=1e-7)
    assert r is not None
    u = r.alpha * y
    np.testing.assert_allclose(r.products, np.einsum("ijk,j->ik", Ks, u), rtol=1e-10,
                               atol=1e-12)
    K = _check_certified(Ks, y, 1.0, 1e-3, 1e-7, r)
    free = (r.alpha > 1e-10) & (r.alpha < 1.0 - 1e-10)
    assert free.any()
    assert np.max(np.abs(y[free] - (K @ u)[free] - r.b)) <= 1e-7


@pytest.mark.parametrize("layout", ["interleaved", "kernel-major", "fortran"])
@pytest.mark.parametrize("support", [5, 45])
def test_products_are_the_same_for_every_stack_layout_and_support(layout, support):
    """``_products`` reads rows (kernel-major), columns (Fortran-ordered kernels), a column
    gather (interleaved) or whole kernels (large support): ``[K_k v]`` every time."""
    from proxlearn.mkl._nonsparse_newton import _products

    Ks, _ = _problem(n=50, seed=4, useless=True)
    if layout == "kernel-major":
        Ks = np.moveaxis(np.ascontiguousarray(np.moveaxis(Ks, -1, 0)), 0, -1)
    elif layout == "fortran":
        Ks = np.asfortranarray(Ks)
    v = np.zeros(50)
    cols = np.random.default_rng(0).choice(50, support, replace=False)
    v[cols] = np.random.default_rng(1).normal(size=support)
    np.testing.assert_allclose(_products(Ks, v, np.sort(cols)),
                               np.einsum("ijk,j->ik", Ks, v), rtol=1e-12, atol=1e-12)
