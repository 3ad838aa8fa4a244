"""top_eigh: the k largest eigenpairs, robust to LAPACK returning fewer (issue #14)."""

import numpy as np
import pytest
import scipy.linalg

from proxlearn import _linalg
from proxlearn._linalg import eigh_below, top_eigh


@pytest.fixture
def short_lapack(monkeypatch):
    """Simulate the LAPACK builds whose index-range solver returns too few pairs
    on an exactly degenerate cluster: every subset_by_index call returns none."""
    real = scipy.linalg.eigh

    def eigh(A, B=None, *, subset_by_index=None, eigvals_only=False, **kw):
        out = real(A, B, subset_by_index=subset_by_index, eigvals_only=eigvals_only, **kw)
        if subset_by_index is None:
            return out
        if eigvals_only:
            return out[:0]
        return out[0][:0], out[1][:, :0]

    monkeypatch.setattr(_linalg.scipy.linalg, "eigh", eigh)


@pytest.mark.parametrize("generalised", [False, True])
def test_matches_full_decomposition(generalised):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(12, 12))
    A = X + X.T
    B = np.eye(12) + 0.1 * np.diag(rng.random(12)) if generalised else None
    w_all, V_all = scipy.linalg.eigh(A, B)
    w, V = top_eigh(A, 3, B)
    np.testing.assert_allclose(w, w_all[-3:], rtol=1e-10)
    np.testing.assert_allclose(np.abs(V.T @ (B if generalised else np.eye(12)) @ V_all[:, -3:]),
                               np.eye(3), atol=1e-8)
    np.testing.assert_allclose(top_eigh(A, 2, B, eigvals_only=True), w_all[-2:], rtol=1e-10)


def test_falls_back_when_lapack_returns_too_few(short_lapack):
    A = 2.0 * np.eye(8)
    w, V = top_eigh(A, 3)
    assert w.shape == (3,) and V.shape == (8, 3)
    np.testing.assert_allclose(w, 2.0)
    np.testing.assert_allclose(A @ V, 2.0 * V)
    assert top_eigh(A, 1, eigvals_only=True).tolist() == [2.0]


def test_svmca_and_ikfd_on_degenerate_spectra(short_lapack):
    """SVMCA().fit(2 I, y) crashed with an IndexError on such a LAPACK."""
    from proxlearn.discriminant import IndefiniteKFD
    from proxlearn.kernel_learning import SVMCA

    y = np.repeat([0, 1, 2], 8)
    S = 2.0 * np.eye(24)
    for est in (SVMCA(), IndefiniteKFD()):
        pred = est.fit(S, y).predict(S)
        assert pred.shape == (24,) and set(pred) <= {0, 1, 2}


@pytest.mark.parametrize("solver", ["dense", "tridiagonal", "arpack", "randomized"])
@pytest.mark.parametrize("rng", [None, 0, np.random.RandomState(1), np.random.default_rng(2)])
def test_leading_eigh_matches_full_decomposition(solver, rng):
    from proxlearn._linalg import leading_eigh

    g = np.random.default_rng(5)
    Q = np.linalg.qr(g.standard_normal((60, 60)))[0]
    lam = np.concatenate([np.geomspace(40, 0.1, 30), -np.geomspace(20, 0.2, 30)])
    A = (Q * lam) @ Q.T
    for by, key in (("value", lam), ("modulus", np.abs(lam))):
        w, V = leading_eigh(A, 6, by=by, solver=solver, rng=rng)
        top = np.sort(lam[np.argsort(key)[-6:]])
        np.testing.assert_allclose(w, top, rtol=1e-10)
        np.testing.assert_allclose(A @ V, V * w, atol=1e-9 * np.abs(lam).max())


@pytest.mark.parametrize("by", ["value", "modulus"])
@pytest.mark.parametrize("k", [1, 2, 3, 5, 29, 30])
def test_eigh_leading_tridiagonal_matches_full_decomposition(by, k):
    """The tridiagonal route (issue #19): exactly k pairs, the leading ones by
    value or modulus, orthonormal, eigen-residuals at rounding level; ties
    between +c and -c (modulus) and inside a repeated eigenvalue still give k."""
    from proxlearn._linalg import eigh_leading_tridiagonal

    rng = np.random.default_rng(k)
    lam = np.concatenate([[9.0, 4.0, 4.0, 4.0, 2.0], rng.uniform(-1, 1, 20), [-4.0, -3.0, -2.0,
                                                                             -0.5, 0.25]])
    Q = np.linalg.qr(rng.standard_normal((30, 30)))[0]
    A = (Q * lam) @ Q.T
    w, V = eigh_leading_tridiagonal(A, k, by=by)
    assert w.shape == (k,) and V.shape == (30, k)
    key = lam if by == "value" else np.abs(lam)
    np.testing.assert_allclose(np.sort(np.abs(w) if by == "modulus" else w),
                               np.sort(np.sort(key)[-k:]), atol=1e-12)
    np.testing.assert_allclose(V.T @ V, np.eye(k), atol=1e-12)
    np.testing.assert_allclose(A @ V, V * w, atol=1e-12 * 9.0)


def test_leading_eigh_budget_falls_back_to_tridiagonal():
    """ARPACK on a budget of products: when it runs out the tridiagonal route
    answers (same pairs); the input is left alone unless overwrite_a."""
    from proxlearn._linalg import leading_eigh

    rng = np.random.default_rng(0)
    E = rng.standard_normal((200, 200))
    A = E + E.T  # semicircle spectrum: no gap, slow for Lanczos
    A0 = A.copy()
    ref, _ = leading_eigh(A, 8, by="modulus", solver="dense")
    w, V, route = leading_eigh(A, 8, by="modulus", solver="arpack", max_matvec=5, rng=0,
                               return_solver=True)
    assert route == "tridiagonal"
    np.testing.assert_allclose(w, ref, atol=1e-10)
    np.testing.assert_allclose(A @ V, V * w, atol=1e-10 * np.abs(ref).max())
    np.testing.assert_array_equal(A, A0)
    w2, _, route2 = leading_eigh(A, 8, by="modulus", solver="arpack", max_matvec=10**6, rng=0,
                                 return_solver=True)
    assert route2 == "arpack"
    np.testing.assert_allclose(w2, ref, atol=1e-10)


def test_leading_eigh_arpack_without_convergence_falls_back_to_tridiagonal(monkeypatch):
    """ARPACK stopping without convergence: the tridiagonal route answers instead of
    the ARPACK error (found by the partial-spectrum consistency property test, where
    the wanted pairs sit in a degenerate cluster; whether ARPACK converges there
    depends on the BLAS kernels, so the failure is forced here)."""
    import scipy.sparse.linalg as spla

    from proxlearn._linalg import leading_eigh

    def no_convergence(*args, **kwargs):
        raise spla.ArpackNoConvergence("No convergence", np.empty(0), np.empty((0, 0)))

    rng = np.random.default_rng(0)
    E = rng.standard_normal((30, 30))
    A = E + E.T
    ref, _ = leading_eigh(A, 5, solver="dense")
    monkeypatch.setattr(spla, "eigsh", no_convergence)
    w, V, route = leading_eigh(A, 5, solver="arpack", rng=0, return_solver=True)
    assert route == "tridiagonal"
    np.testing.assert_allclose(w, ref, atol=1e-10 * np.abs(ref).max())
    np.testing.assert_allclose(A @ V, V * w, atol=1e-10 * np.abs(ref).max())


def test_leading_eigh_pairs_in_a_degenerate_cluster_are_right_on_every_route():
    """The property test's case: 6 positive eigenvalues, then a cluster near 0, and 9
    wanted. ARPACK converges or not depending on the BLAS kernels; either way the
    pairs equal the dense decomposition's."""
    from proxlearn._linalg import leading_eigh

    rng = np.random.default_rng(0)
    A, B = rng.standard_normal((24, 6)), rng.standard_normal((24, 6))
    E = rng.standard_normal((24, 24))
    S = A @ A.T - B @ B.T + 1e-9 * (E + E.T)
    ref, _ = leading_eigh(S, 9, solver="dense")
    w, V = leading_eigh(S, 9, solver="arpack", rng=0)
    np.testing.assert_allclose(w, ref, atol=1e-10 * np.abs(ref).max())
    np.testing.assert_allclose(V.T @ V, np.eye(9), atol=1e-10)
    np.testing.assert_allclose(S @ V, V * w, atol=1e-10 * np.abs(ref).max())


@pytest.mark.parametrize("n", [2, 3, 7])
def test_eigh_below_small_and_exact(n):
    """eigh_below (issue #19): every eigenvalue, orthonormal eigenvectors of those
    below the threshold, the threshold the callable returned; both routes; the
    input is left alone unless overwrite_a."""
    rng = np.random.default_rng(n)
    E = rng.standard_normal((n, n))
    S = E + E.T
    lam = np.linalg.eigvalsh(S)
    for max_count in (0, n):
        w, V, t = eigh_below(S, lambda w: float(np.median(w)), max_count=max_count)
        assert t == pytest.approx(np.median(lam))
        np.testing.assert_allclose(w, lam, atol=1e-12 * np.abs(lam).max())
        k = V.shape[1]
        want = int(np.sum(w <= t))
        assert k == (want if want <= max_count else n)
        np.testing.assert_allclose(V.T @ V, np.eye(k), atol=1e-13)
        np.testing.assert_allclose(S @ V, V * w[:k], atol=1e-12 * np.abs(lam).max())
    for order in "CF":
        A = np.array(S, order=order)
        eigh_below(A, lambda w: 0.0, max_count=n)
        np.testing.assert_array_equal(A, S)
        eigh_below(A, lambda w: 0.0, max_count=n, overwrite_a=True)
        assert n < 3 or not np.array_equal(A, S)  # destroyed in place, no copy


def test_eigh_below_falls_back_to_mrrr_when_inverse_iteration_fails(monkeypatch):
    """dstein may report unconverged eigenvectors (LinAlgError): dstemr then."""
    real = scipy.linalg.eigh_tridiagonal
    drivers = []

    def flaky(*args, lapack_driver="auto", **kw):
        drivers.append(lapack_driver)
        if lapack_driver == "stebz":
            raise np.linalg.LinAlgError("stein (eigh_tridiagonal) failed")
        return real(*args, lapack_driver=lapack_driver, **kw)

    monkeypatch.setattr(scipy.linalg, "eigh_tridiagonal", flaky)
    rng = np.random.default_rng(0)
    E = rng.standard_normal((30, 30))
    S = E + E.T
    w, V, t = eigh_below(S, lambda w: w[4], max_count=10)
    assert drivers == ["stebz", "stemr"] and V.shape == (30, 5)
    np.testing.assert_allclose(S @ V, V * w[:5], atol=1e-12 * np.abs(w).max())
