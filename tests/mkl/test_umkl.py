"""UMKL (Zhuang 2011 ch. 5, Protocol 4): the corrected eq. 5.4 against its formula,
the mu-step against cvxpy, the greedy D-step against a brute-force greedy, a planted
kernel, the alternation's bookkeeping, pipelines and bad input."""

import pickle
import warnings

import cvxpy as cp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.base import clone
from sklearn.decomposition import KernelPCA
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import Lasso, lars_path
from sklearn.model_selection import StratifiedKFold, cross_val_score
from sklearn.neighbors import KNeighborsClassifier
from sklearn.pipeline import make_pipeline
from sklearn.svm import SVC
from sklearn.utils.estimator_checks import check_estimator

import proxlearn.base
from proxlearn.base import SKLEARN_CHECK_EXCEPTIONS, is_pairwise
from proxlearn.exceptions import (
    FeatureMatrixError,
    InvalidParameterError,
    SimilarityMatrixError,
    SimplexQPConvergenceWarning,
    TestMatrixError,
)
from proxlearn.mkl import _umkl
from proxlearn.mkl._umkl import UMKL, umkl, umkl_objective
from proxlearn.solvers import simplex_qp_kkt_residual


def _gauss(Z, s):
    d2 = ((Z[:, None, :] - Z[None, :, :]) ** 2).sum(-1)
    return np.exp(-d2 / (2.0 * s * s))


def _random_instance(n=8, m=3, d=4, seed=0):
    """Features ``F`` (n, d), PSD base kernels with negative entries, ``P = F F^T``."""
    rng = np.random.default_rng(seed)
    F = rng.normal(size=(n, d))
    Ks = np.stack([(A := rng.normal(size=(n, 3))) @ A.T / 3 for _ in range(m)], axis=-1)
    return F, Ks, F @ F.T


def _random_basis(n, B, rng):
    return np.array([rng.choice(np.delete(np.arange(n), i), B, replace=False)
                     for i in range(n)])


def _indicator(basis, n):
    """``D`` with column ``i`` the indicator ``d_i`` of the bases of point ``i``."""
    D = np.zeros((n, n))
    for i, row in enumerate(basis):
        D[row, i] = 1.0
    return D


def _twins(seed=0, n_pairs=20):
    """Pairs of near-duplicates: the Gaussian of width 0.05 is ~0.92 on a twin and ~0
    on every other point; wider Gaussians are large on several neighbours, the
    narrowest ~0 on the twin. Kernels: widths (0.005, 0.05, 0.3, 1, 3) + a random PSD
    kernel with entries in (0, 1]."""
    rng = np.random.default_rng(seed)
    c = rng.uniform(-1.0, 1.0, size=(n_pairs, 2))
    a = rng.uniform(0.0, 2.0 * np.pi, n_pairs)
    Z = np.vstack([c, c + 0.02 * np.c_[np.cos(a), np.sin(a)]])
    n = len(Z)
    A = rng.uniform(size=(n, n))
    R = A @ A.T
    r = np.sqrt(np.diag(R))
    Ks = np.stack([_gauss(Z, s) for s in (0.005, 0.05, 0.3, 1.0, 3.0)] + [R / np.outer(r, r)],
                  axis=-1)
    twin = np.r_[np.arange(n_pairs, n), np.arange(n_pairs)]
    return Z, Ks, twin


# --- eq. 5.4 (corrected) and the objective (5.3) -------------------------------------


@pytest.mark.parametrize("distortion", ["signed", "abs"])
@pytest.mark.parametrize("gamma1", [0.0, 0.5, 2.0])
def test_w_and_u_equal_the_formula_and_give_the_objective(gamma1, distortion):
    """``"signed"``: (5.3) as printed; ``"abs"``: its distortion term with
    ``sum_t mu_t |K_t|`` (the base kernels here have entries of both signs)."""
    F, Ks, P = _random_instance(seed=1)
    n, _, m = Ks.shape
    B = 3
    basis = _random_basis(n, B, np.random.default_rng(2))
    M = _umkl._sq_dists(P)
    W, u = _umkl._mu_problem(Ks, P, M, basis, gamma1, distortion)
    D = _indicator(basis, n)
    W_ref, u_ref = np.zeros((m, m)), np.zeros(m)
    for i in range(n):
        a = [Ks[:, i, t] * D[:, i] for t in range(m)]  # kappa_{t,i} o d_i
        for t in range(m):
            dist = np.abs(a[t]) if distortion == "abs" else a[t]
            u_ref[t] += 2 * gamma1 * M[:, i] @ dist - 2 * P[:, i] @ a[t]
            for s in range(m):
                W_ref[t, s] += a[t] @ P @ a[s]
    np.testing.assert_allclose(W, W_ref, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(u, u_ref, rtol=1e-12, atol=1e-12)
    # (5.3) with the features X = F^T (columns are points)
    mu = np.random.default_rng(3).dirichlet(np.ones(m))
    K = Ks @ mu
    X = F.T
    Kd = np.abs(Ks) @ mu if distortion == "abs" else K
    direct = (0.5 * np.linalg.norm(X @ (np.eye(n) - K * D), "fro") ** 2
              + gamma1 * np.sum(Kd * D * M))
    assert umkl_objective(Ks, P, mu, basis, gamma1=gamma1, distortion=distortion) == \
        pytest.approx(direct, rel=1e-12)
    assert _umkl._objective(np.trace(P), W, u, mu) == pytest.approx(direct, rel=1e-12)
    if gamma1 > 0 and distortion == "abs":  # the two readings differ on these kernels
        assert umkl_objective(Ks, P, mu, basis, gamma1=gamma1, distortion="signed") < \
            direct - 1e-6


def test_chunked_passes_equal_the_one_pass(monkeypatch):
    F, Ks, P = _random_instance(n=12, m=4, seed=4)
    M = _umkl._sq_dists(P)
    basis = _random_basis(12, 3, np.random.default_rng(5))
    K = Ks @ np.array([0.1, 0.2, 0.3, 0.4])
    W, u = _umkl._mu_problem(Ks, P, M, basis, 0.5)
    D = _umkl._d_step(K, P, M, 3, 0.5)
    monkeypatch.setattr(proxlearn.base, "CHUNK_BYTES", 1)  # one point per chunk
    W1, u1 = _umkl._mu_problem(Ks, P, M, basis, 0.5)
    np.testing.assert_allclose(W1, W, rtol=1e-13, atol=1e-13)
    np.testing.assert_allclose(u1, u, rtol=1e-13, atol=1e-13)
    np.testing.assert_array_equal(_umkl._d_step(K, P, M, 3, 0.5), D)


# --- mu-step -----------------------------------------------------------------------


def _cvxpy_value(W, u):
    m = len(u)
    mu = cp.Variable(m)
    prob = cp.Problem(cp.Minimize(cp.quad_form(mu, cp.psd_wrap(W)) + u @ mu),
                      [mu >= 0, cp.sum(mu) == 1])
    prob.solve(solver="CLARABEL", tol_gap_abs=1e-12, tol_gap_rel=1e-12, tol_feas=1e-12)
    return prob.value


@pytest.mark.parametrize(("m", "rank", "seed", "warm"),
                         [(1, 1, 0, False), (3, 3, 1, False), (20, 20, 2, False),
                          (60, 60, 3, False), (60, 8, 4, False), (200, 200, 5, False),
                          (200, 10, 6, False), (200, 200, 7, True), (200, 10, 8, True)])
def test_mu_step_is_kkt_optimal_and_matches_cvxpy(m, rank, seed, warm):
    rng = np.random.default_rng(seed)
    A = rng.normal(size=(m, rank))
    W = A @ A.T / rank
    u = rng.normal(size=m)
    mu0 = None
    if warm:  # a warm start on the wrong support: the working set must grow past it
        mu0 = np.zeros(m)
        mu0[np.argsort(np.diag(W) + u)[-3:]] = 1.0 / 3
    mu, res = _umkl._mu_step(W, u, mu0)
    assert res <= 1e-9
    assert simplex_qp_kkt_residual(2 * W, -u, mu) <= 1e-9
    assert np.all(mu >= 0) and mu.sum() == pytest.approx(1.0, abs=1e-12)
    ours = mu @ W @ mu + u @ mu
    ref = _cvxpy_value(W, u)
    assert ours <= ref + 1e-8 * max(1.0, abs(ref))
    assert ours == pytest.approx(ref, rel=1e-6, abs=1e-8)


def test_mu_step_on_a_real_singular_w():
    """Duplicated kernels make ``W`` singular; still certified and equal to cvxpy."""
    F, Ks, P = _random_instance(n=15, m=3, seed=6)
    Ks = np.concatenate([Ks, Ks[:, :, :2]], axis=-1)  # m = 5, two duplicates
    basis = _random_basis(15, 4, np.random.default_rng(7))
    W, u = _umkl._mu_problem(Ks, P, _umkl._sq_dists(P), basis, 0.5)
    assert np.linalg.matrix_rank(W) < 5
    mu, res = _umkl._mu_step(W, u, np.full(5, 0.2))  # a warm start
    assert res <= 1e-9
    assert mu @ W @ mu + u @ mu == pytest.approx(_cvxpy_value(W, u), rel=1e-6, abs=1e-8)


# --- D-step ------------------------------------------------------------------------


def _brute_greedy(K, P, M, B, gamma1, distortion="signed"):
    """Eq. 5.6 greedily, ``J(d) = d^T (kappa kappa^T o P) d + w^T d`` recomputed from
    scratch for every candidate set."""
    n = K.shape[0]
    out = np.empty((n, B), dtype=int)
    for i in range(n):
        kap = K[:, i]
        U = np.outer(kap, kap) * P
        dist = np.abs(kap) if distortion == "abs" else kap
        w = 2 * gamma1 * dist * M[:, i] - 2 * kap * P[:, i]
        chosen = []
        for b in range(B):
            best, best_j = np.inf, -1
            for j in range(n):
                if j == i or j in chosen:
                    continue
                d = np.zeros(n)
                d[chosen + [j]] = 1.0
                J = d @ U @ d + w @ d
                if J < best:
                    best, best_j = J, j
            chosen.append(best_j)
        out[i] = chosen
    return out


@pytest.mark.parametrize("distortion", ["signed", "abs"])
@pytest.mark.parametrize(("seed", "B", "gamma1"), [(0, 1, 0.5), (1, 3, 0.5), (2, 5, 0.0),
                                                   (3, 8, 2.0)])
def test_greedy_d_step_equals_brute_force(seed, B, gamma1, distortion):
    F, Ks, P = _random_instance(n=9, m=3, seed=seed)
    mu = np.random.default_rng(seed).dirichlet(np.ones(3))
    K = Ks @ mu
    M = _umkl._sq_dists(P)
    basis = _umkl._d_step(K, P, M, B, gamma1, distortion)
    np.testing.assert_array_equal(basis, _brute_greedy(K, P, M, B, gamma1, distortion))


@pytest.mark.parametrize("init", ["knn", "lasso"])
@pytest.mark.parametrize("B", [1, 4, 29])
def test_bases_exclude_the_point_and_number_b(init, B):
    Z, Ks, _ = _twins(seed=1, n_pairs=15)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        est = UMKL(B=B, init=init, max_iter=3).fit(Ks)
    n = Ks.shape[0]
    assert est.basis_.shape == (n, B)
    assert not np.any(est.basis_ == np.arange(n)[:, None])  # d_ii = 0
    assert all(len(set(row)) == B for row in est.basis_)
    for init0 in ("knn", "lasso"):  # the initialisations themselves
        P = Ks.mean(-1)
        b0 = (_umkl._knn_basis(_umkl._sq_dists(P), B) if init0 == "knn"
              else _umkl._lasso_basis(P, _umkl._sq_dists(P), B))
        assert not np.any(b0 == np.arange(n)[:, None])
        assert all(len(set(row)) == B for row in b0)


def test_lasso_init_is_the_support_of_eq_5_5():
    """The first B points on the Lasso path are the support of the Lasso (coordinate
    descent on the features) at a penalty between the path's knots."""
    rng = np.random.default_rng(8)
    F = rng.normal(size=(12, 9))
    P = F @ F.T
    B = 3
    basis = _umkl._lasso_basis(P, _umkl._sq_dists(P), B)
    for i in range(12):
        others = np.delete(np.arange(12), i)
        alphas, _, coefs = lars_path(F[others].T, F[i], method="lasso")
        k = np.flatnonzero(np.count_nonzero(coefs, axis=0) >= B)[0]
        alpha = np.sqrt(alphas[k - 1] * alphas[k])  # inside the segment with B active
        w = Lasso(alpha=alpha, fit_intercept=False, tol=1e-14,
                  max_iter=100_000).fit(F[others].T, F[i]).coef_
        assert set(others[np.abs(w) > 1e-10]) == set(basis[i])


def test_lasso_init_fills_a_short_path_with_neighbours():
    """Rank-one ``P``: the path stops after one point; the rest are the nearest."""
    v = np.arange(1.0, 8.0)
    P = np.outer(v, v)
    basis = _umkl._lasso_basis(P, _umkl._sq_dists(P), 3)
    assert not np.any(basis == np.arange(7)[:, None])
    assert all(len(set(row)) == 3 for row in basis)


# --- planted kernel ----------------------------------------------------------------


def _objective_at(Ks, P, mu, B=5):
    """(5.3) at weights ``mu`` with their own greedy D-step."""
    M = _umkl._sq_dists(P)
    return umkl_objective(Ks, P, mu, _umkl._d_step(Ks @ mu, P, M, B, 0.5))


def test_planted_kernel_gets_the_weight_with_features():
    Z, Ks, twin = _twins(seed=0)
    m = Ks.shape[2]
    est = UMKL(B=5).fit(Ks, features=Z)

    def planted(w):  # the criterion: most weight on the width that sees the twins
        return w[1] >= 0.8

    assert planted(est.weights_)
    # the criterion would fail for a uniform or a random weighting
    rng = np.random.default_rng(0)
    others = [np.full(m, 1.0 / m)] + [rng.dirichlet(np.ones(m)) for _ in range(10)]
    assert not any(planted(w) for w in others)
    P = Z @ Z.T
    assert all(est.objective_ < 0.1 * _objective_at(Ks, P, w) for w in others)
    # the first basis chosen is the twin, or a point as close (where two pairs touch)
    dist = np.linalg.norm(Z[:, None] - Z[None], axis=-1)
    assert np.all(dist[np.arange(len(Z)), est.basis_[:, 0]] <= 0.02 + 1e-12)
    assert np.mean(est.basis_[:, 0] == twin) >= 0.9
    assert est.n_iter_ < est.max_iter  # converged


def test_planted_kernel_gets_the_weight_from_kernels_only():
    """reference="average": the twin-seeing width still gets the largest weight."""
    Z, Ks, twin = _twins(seed=3)
    m = Ks.shape[2]
    est = UMKL(B=5).fit(Ks)

    def planted(w):  # most weight there, the rest on the narrowest width only
        return w[1] > 0.5 and w[2:].sum() < 0.05

    assert planted(est.weights_)
    P = Ks.mean(-1)
    rng = np.random.default_rng(1)
    for w in [np.full(m, 1.0 / m)] + [rng.dirichlet(np.ones(m)) for _ in range(10)]:
        assert not planted(w)
        assert est.objective_ < _objective_at(Ks, P, w)


def test_a_kernel_with_negative_entries_wins_by_negative_distortion():
    """The caveat of the module docstring: a random PSD kernel with entries of both
    signs takes the weight from the twin-seeing Gaussian, at a negative objective
    (the kernels as given, ``shift=None``); shifted to non-negative entries (the
    default) it does not."""
    Z, Ks, _ = _twins(seed=0)
    rng = np.random.default_rng(0)
    A = rng.normal(size=(len(Z), len(Z)))
    R = A @ A.T
    r = np.sqrt(np.diag(R))
    Ks = np.concatenate([Ks[:, :, :5], (R / np.outer(r, r))[:, :, None]], axis=-1)
    est = UMKL(B=5, shift=None, distortion="signed").fit(Ks, features=Z)
    assert est.weights_[5] > 0.99 and est.objective_ < 0
    assert UMKL(B=5).fit(Ks, features=Z).weights_[5] < 0.5


# --- the alternation ---------------------------------------------------------------


def test_history_best_iterate_and_certificate():
    Z, Ks, _ = _twins(seed=2)
    est = UMKL(B=4, tol=0.0).fit(Ks, features=Z)
    h = est.objective_history_
    assert h.shape == (est.n_iter_,) and est.n_iter_ >= 2
    assert est.objective_ == h.min()
    P = Z @ Z.T
    # the returned pair is consistent: (5.3) at (weights_, basis_) is objective_
    assert umkl_objective(Ks, P, est.weights_, est.basis_) == pytest.approx(est.objective_,
                                                                            rel=1e-12)
    # and weights_ is the exact mu-step for basis_
    W, u = _umkl._mu_problem(Ks, P, _umkl._sq_dists(P), est.basis_, 0.5)
    assert simplex_qp_kkt_residual(2 * W, -u, est.weights_) <= 1e-9
    assert est.kkt_residual_ <= 1e-9
    np.testing.assert_allclose(est.kernel_, Ks @ est.weights_)


def test_a_worse_d_step_stops_and_returns_the_best_iterate(monkeypatch):
    """A D-step that makes things worse: the run stops at the first increase and returns
    the first iterate (the kNN basis with its optimal weights)."""
    Z, Ks, _ = _twins(seed=4)
    P = Z @ Z.T
    M = _umkl._sq_dists(P)

    def farthest(K, P, M, B, gamma1, distortion):
        return np.argsort(-M, axis=1, kind="stable")[:, :B]

    monkeypatch.setattr(_umkl, "_d_step", farthest)
    res = umkl(Ks, P, B=3)
    assert res.n_iter == 2 and res.converged
    assert res.objective_history[1] > res.objective_history[0] == res.objective
    np.testing.assert_array_equal(res.basis, _umkl._knn_basis(M, 3))


def test_max_iter_warns_and_explicit_init():
    Z, Ks, _ = _twins(seed=5)
    P = Z @ Z.T
    init = _umkl._knn_basis(_umkl._sq_dists(P), 5)[:, ::-1]
    with pytest.warns(ConvergenceWarning, match="max_iter=1"):
        res = umkl(Ks, P, B=5, max_iter=1, init=init)
    assert res.n_iter == 1 and not res.converged
    np.testing.assert_array_equal(res.basis, init)
    with pytest.raises(InvalidParameterError, match="own index"):
        umkl(Ks, P, B=1, init=np.arange(40)[:, None])
    with pytest.raises(InvalidParameterError, match=r"\(40, 2\) integer"):
        umkl(Ks, P, B=2, init=init)


def test_indefinite_reference_is_clipped_and_the_qp_stays_certified():
    rng = np.random.default_rng(9)
    E = rng.normal(size=(30, 30, 3))
    Ks = E + E.transpose(1, 0, 2)  # symmetric, indefinite
    with warnings.catch_warnings():
        warnings.simplefilter("error", SimplexQPConvergenceWarning)
        warnings.simplefilter("ignore", ConvergenceWarning)
        est = UMKL(B=4).fit(Ks)
    assert est.kkt_residual_ <= 1e-9
    P = est._reference(Ks)
    assert np.linalg.eigvalsh(P)[0] >= -1e-10
    assert np.all(np.isfinite(est.kernel_))


# --- estimator ---------------------------------------------------------------------


def _labelled(seed=0, n=60):
    rng = np.random.default_rng(seed)
    y = np.arange(n) % 2
    Z = rng.normal(size=(n, 2)) + 1.5 * np.c_[2 * y - 1, np.zeros(n)]
    A = rng.uniform(size=(n, n))
    R = A @ A.T
    r = np.sqrt(np.diag(R))
    Ks = np.stack([_gauss(Z, s) for s in (0.1, 0.5, 2.0)] + [R / np.outer(r, r)], axis=-1)
    return Ks, y


@pytest.mark.parametrize("tail", ["svc", "kpca-knn"])
def test_pipelines_in_cross_val_score_slice_the_stack(tail):
    Ks, y = _labelled()
    steps = ([SVC(kernel="precomputed")] if tail == "svc"
             else [KernelPCA(2, kernel="precomputed"), KNeighborsClassifier(5)])
    pipe = make_pipeline(UMKL(), *steps)
    assert is_pairwise(pipe)
    cv = StratifiedKFold(3, shuffle=True, random_state=0)
    auto = cross_val_score(pipe, Ks, y, cv=cv)
    manual = []
    for tr, te in cv.split(Ks[:, :, 0], y):
        umk = UMKL().fit(Ks[np.ix_(tr, tr)])
        K_tr, K_te = umk.kernel_, umk.transform(Ks[np.ix_(te, tr)])
        if tail == "svc":
            pred = SVC(kernel="precomputed").fit(K_tr, y[tr]).predict(K_te)
        else:
            kp = KernelPCA(2, kernel="precomputed").fit(K_tr)
            pred = KNeighborsClassifier(5).fit(kp.transform(K_tr), y[tr]).predict(
                kp.transform(K_te))
        manual.append(np.mean(pred == y[te]))
    np.testing.assert_allclose(auto, manual)
    assert auto.mean() > 0.7


def test_transform_fit_transform_and_single_matrix():
    Ks, y = _labelled(seed=1, n=30)
    est = UMKL(B=4)
    K = est.fit_transform(Ks)
    np.testing.assert_array_equal(K, est.kernel_)
    np.testing.assert_allclose(est.transform(Ks), K, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(est.transform(Ks[:5, :, :]),
                               np.einsum("ijt,t->ij", Ks[:5], est.weights_), atol=1e-12)
    np.testing.assert_array_equal(UMKL(B=4).fit(Ks, y).weights_, est.weights_)  # y ignored
    assert est.weights_.shape == (4,) and est.weights_.sum() == pytest.approx(1.0)
    one = UMKL(B=4).fit(Ks[:, :, 1])  # (n, n): m = 1
    np.testing.assert_array_equal(one.weights_, [1.0])
    np.testing.assert_allclose(one.kernel_, Ks[:, :, 1])
    np.testing.assert_allclose(one.transform(Ks[:3, :, 1]), Ks[:3, :, 1])
    assert one.transform(Ks[0, :, 1]).shape == (1, 30)  # one test row as a vector


def test_features_entry_point_and_reference_index():
    Z, Ks, _ = _twins(seed=6, n_pairs=12)
    est = UMKL(B=3).fit(Ks, features=Z)
    res = umkl(Ks, Z @ Z.T, B=3)
    np.testing.assert_array_equal(est.weights_, res.weights)
    np.testing.assert_array_equal(est.basis_, res.basis)
    ref = UMKL(B=3, reference=4).fit(Ks)
    res = umkl(Ks, Ks[:, :, 4], B=3)
    np.testing.assert_allclose(ref.weights_, res.weights, atol=1e-12)
    with pytest.raises(FeatureMatrixError, match="one feature row per training sample"):
        UMKL(B=3).fit(Ks, features=Z[:-1])
    bad = Z.copy()
    bad[2, 1] = np.nan
    with pytest.raises(FeatureMatrixError, match="NaN"):
        UMKL(B=3).fit(Ks, features=bad)


def test_pickle_clone_and_params_unchanged():
    Ks, _ = _labelled(seed=2, n=30)
    est = UMKL(B=3, gamma1=1.0, max_iter=10, tol=1e-5, init="lasso", reference=0)
    params = est.get_params()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        est.fit(Ks)
    assert est.get_params() == params
    back = pickle.loads(pickle.dumps(est))
    np.testing.assert_array_equal(back.transform(Ks[:4]), est.transform(Ks[:4]))
    assert clone(est).get_params() == params
    for name in ("weights_", "basis_", "kernel_", "objective_history_", "n_iter_"):
        assert hasattr(est, name)


def test_bad_input_errors():
    Ks, _ = _labelled(seed=3, n=20)
    bad = Ks.copy()
    bad[1, 2, 2] = np.nan
    with pytest.raises(SimilarityMatrixError, match=r"X\[:, :, 2\] contains NaN"):
        UMKL(B=3).fit(bad)
    with pytest.raises(SimilarityMatrixError, match="square"):
        UMKL(B=3).fit(Ks[:, :-1])
    est = UMKL(B=3).fit(Ks)
    with pytest.raises(TestMatrixError, match="fitted on 20 training samples"):
        est.transform(Ks[:5, :-1])
    with pytest.raises(TestMatrixError, match="m = 4"):
        est.transform(Ks[:5, :, :3])
    with pytest.raises(InvalidParameterError, match=r"B <= n - 1 = 19"):
        UMKL(B=20).fit(Ks)
    for params, match in [({"B": 0}, "B must be an integer"),
                          ({"B": 2.5}, "B must be an integer"),
                          ({"gamma1": -1.0}, "gamma1"),
                          ({"tol": -1.0}, "tol"),
                          ({"max_iter": 0}, "max_iter"),
                          ({"init": "pca"}, "init"),
                          ({"init": np.zeros((20, 3), int)}, "init must be"),
                          ({"reference": "max"}, "reference"),
                          ({"reference": 4}, "reference")]:
        with pytest.raises(InvalidParameterError, match=match):
            UMKL(**{"B": 3, **params}).fit(Ks)


def test_check_estimator():
    """scikit-learn's checks (B=3: some checks fit on 10 samples, and B <= n - 1)."""
    check_estimator(UMKL(B=3), expected_failed_checks=SKLEARN_CHECK_EXCEPTIONS)


def test_bank_mode_uses_standardised_features_and_is_consistent():
    """With a KernelBank: X is features, P = Z Z^T; the same as the stack route with
    ``features=Z`` and ``shift=None`` (a bank's kernels are not shifted), and
    training rows map to rows of ``kernel_``."""
    from sklearn.base import clone

    from proxlearn.base import is_pairwise
    from proxlearn.mkl import KernelBank

    rng = np.random.default_rng(5)
    X = rng.normal(size=(40, 3)) * [1.0, 5.0, 0.2]
    bank = KernelBank(widths=[0.5, 2.0], degrees=[1])
    est = UMKL(B=4, bank=bank)
    assert not is_pairwise(est) and is_pairwise(clone(est).set_params(bank=None))
    a = est.fit(X)
    fitted = clone(bank).fit(X)
    b = UMKL(B=4, shift=None).fit(fitted.stack(), features=fitted.Z_)
    np.testing.assert_allclose(a.weights_, b.weights_, atol=1e-10)
    np.testing.assert_allclose(a.transform(X[:6]), a.kernel_[:6], atol=1e-12)
    np.testing.assert_allclose(a.transform(X[30:]), b.transform(fitted.stack(X[30:])),
                               atol=1e-12)


def test_readme_pipeline_on_wine_fits_and_generalises():
    """Issue 40: ``make_pipeline(UMKL(bank=KernelBank()), SVC(kernel="precomputed"))``
    on wine reached 39.9 % *training* accuracy (the majority class) with the
    unit-trace bank: the learned kernel had scale 1 / n, so the SVM's ``C = 1``
    acted as ``C / n``. With the default bank (unit mean diagonal) it fits."""
    from sklearn.datasets import load_wine
    from sklearn.model_selection import train_test_split

    from proxlearn.mkl import KernelBank

    X, y = load_wine(return_X_y=True)
    Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.5, stratify=y, random_state=0)
    pipe = make_pipeline(UMKL(bank=KernelBank()), SVC(kernel="precomputed")).fit(Xtr, ytr)
    assert pipe.score(Xtr, ytr) >= 0.95
    assert pipe.score(Xte, yte) >= 0.9


@settings(max_examples=6, deadline=None)
@given(c=st.floats(1e-3, 1e3), t=st.integers(0, 3))
def test_scaling_one_base_kernel_changes_nothing_at_the_defaults(c, t):
    """``normalize="diagonal"`` (default) divides each kernel by its mean training
    diagonal first, so ``K_t -> c K_t`` leaves the weights and the learned kernel
    unchanged; ``normalize=None`` (the thesis's reading) does not."""
    rng = np.random.default_rng(3)
    Z = rng.normal(size=(30, 3))
    Ks = np.stack([_gauss(Z, s) for s in (0.5, 1.0, 2.0, 4.0)], axis=-1)
    Ks2 = Ks.copy()
    Ks2[:, :, t] *= c
    a, b = UMKL(B=5).fit(Ks), UMKL(B=5).fit(Ks2)
    np.testing.assert_allclose(b.weights_, a.weights_, atol=1e-8)
    np.testing.assert_allclose(b.kernel_, a.kernel_, rtol=1e-8, atol=1e-12)
    np.testing.assert_allclose(b.transform(Ks2[:7]), a.transform(Ks[:7]), rtol=1e-8, atol=1e-12)


def test_features_scaled_change_nothing_with_a_bank():
    from proxlearn.mkl import KernelBank

    rng = np.random.default_rng(4)
    X = rng.normal(size=(30, 3))
    bank = KernelBank(widths=[0.5, 2.0], degrees=[2])
    a = UMKL(B=5, bank=bank).fit(X)
    b = UMKL(B=5, bank=bank).fit(250.0 * X)
    np.testing.assert_allclose(b.transform(250.0 * X[:5]), a.transform(X[:5]), rtol=1e-8)


@pytest.mark.parametrize("c", [1e-3, 7.0, 1e3])
def test_abs_distortion_is_scale_free(c):
    """``distortion="abs"`` keeps the defaults scale-free: one kernel with entries of
    both signs (a linear kernel, not shifted) times ``c`` changes neither the weights
    nor the learned kernel, and a bank's features times 250 change nothing."""
    from proxlearn.mkl import KernelBank

    rng = np.random.default_rng(6)
    Z = rng.normal(size=(30, 3))
    Ks = np.stack([_gauss(Z, 0.5), _gauss(Z, 2.0), Z @ Z.T], axis=-1)
    Ks2 = Ks.copy()
    Ks2[:, :, 2] *= c
    a = UMKL(B=5, shift=None, distortion="abs").fit(Ks, features=Z)
    b = UMKL(B=5, shift=None, distortion="abs").fit(Ks2, features=Z)
    np.testing.assert_allclose(b.weights_, a.weights_, atol=1e-8)
    np.testing.assert_allclose(b.transform(Ks2[:7]), a.transform(Ks[:7]), rtol=1e-8, atol=1e-12)
    bank = KernelBank(widths=[0.5, 2.0], degrees=[1, 3])
    e = UMKL(B=5, bank=bank, distortion="abs").fit(Z)
    f = UMKL(B=5, bank=bank, distortion="abs").fit(250.0 * Z)
    np.testing.assert_allclose(f.transform(250.0 * Z[:5]), e.transform(Z[:5]), rtol=1e-8)


def test_output_column_names_are_the_training_samples():
    """issue 39 section 4: get_feature_names_out, so that set_output and a Pipeline's
    names work; with a bank the input columns are features, the output samples."""
    from proxlearn.mkl import KernelBank

    rng = np.random.default_rng(5)
    Z = rng.normal(size=(12, 3))
    Ks = np.stack([_gauss(Z, s) for s in (0.5, 2.0)], axis=-1)
    est = UMKL(B=3).fit(Ks)
    assert list(est.get_feature_names_out()) == [f"x{i}" for i in range(12)]
    fb = UMKL(B=3, bank=KernelBank(widths=[1.0], degrees=[1])).fit(Z)
    names = fb.get_feature_names_out()
    assert len(names) == fb.transform(Z[:2]).shape[1] == 12 and names[0] == "umkl0"


# --------------------------------------------------------------------------- issue 40

def _offset_stack(seed=0, n=40):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3)) + np.repeat([[2.0, 0, 0], [-2.0, 0, 0]], n // 2, axis=0)
    d2 = ((X[:, None] - X[None]) ** 2).sum(-1)
    Xc = X - X.mean(axis=0)
    cos = Xc @ Xc.T / np.outer(np.linalg.norm(Xc, axis=1), np.linalg.norm(Xc, axis=1))
    return np.exp(-d2 / 6.0), cos


def test_shift_makes_the_weights_blind_to_a_negative_offset():
    """Objective (5.3) is linear in the kernel values: without the shift, moving a
    kernel's entries down by a constant buys it weight; with it, the kernels
    learned from [K0, K1 - c] are the same for every c that makes K1 - c negative."""
    K0, K1 = _offset_stack()
    fits = [UMKL(B=5).fit(np.stack([K0, K1 - c], axis=-1)) for c in (1.0, 3.0)]
    np.testing.assert_allclose(fits[0].weights_, fits[1].weights_, atol=1e-8)
    np.testing.assert_allclose(fits[0].kernel_offsets_, [0.0, 1.0 - K1.min()], atol=1e-12)
    np.testing.assert_allclose(fits[1].kernel_offsets_, [0.0, 3.0 - K1.min()], atol=1e-12)
    literal = [UMKL(B=5, shift=None).fit(np.stack([K0, K1 - c], axis=-1)) for c in (1.0, 3.0)]
    assert not np.allclose(literal[0].weights_, literal[1].weights_, atol=1e-3)
    np.testing.assert_array_equal(literal[0].kernel_offsets_, [0.0, 0.0])


def test_shifted_transform_of_the_training_rows_is_kernel_():
    K0, K1 = _offset_stack(seed=1)
    Ks = np.stack([K0, K1], axis=-1)
    est = UMKL(B=5).fit(Ks)
    assert est.kernel_offsets_[1] > 0
    np.testing.assert_allclose(est.transform(Ks), est.kernel_, atol=1e-10)
    np.testing.assert_allclose(est.transform(Ks[:7]), est.kernel_[:7], atol=1e-10)


@pytest.mark.parametrize("bad", ["min", 0, True])
def test_shift_is_validated(bad):
    K0, K1 = _offset_stack()
    with pytest.raises(InvalidParameterError, match="shift"):
        UMKL(shift=bad).fit(np.stack([K0, K1], axis=-1))


# --- the distortion term on a bank (issue 40) ----------------------------------------


def test_abs_distortion_stops_the_linear_kernel_winning_by_far_bases():
    """Two circles: a Gaussian separates them, the linear kernel cannot. On z-scored
    features the linear kernel has negative entries between far points, and under the
    printed (5.3) (``distortion="signed"``, the default) they earn a negative
    distortion: it takes all the weight at a negative objective and the SVM on it is
    at chance (the bank's linear kernel took the weight on every UCI set of Table
    5.2). With ``|k_ij|`` (``distortion="abs"``) the Gaussian gets the weight and the
    SVM separates the circles."""
    from sklearn.datasets import make_circles

    from proxlearn.mkl import KernelBank

    bank = KernelBank(widths=(0.5,), degrees=(1,), per_feature=False)  # [gaussian, linear]
    X, y = make_circles(160, factor=0.4, noise=0.05, random_state=0)
    est = UMKL(bank=bank, B=5, distortion="abs").fit(X[:80])
    assert est.weights_[0] > 0.5 and est.objective_ > 0
    pipe = make_pipeline(UMKL(bank=bank, B=5, distortion="abs"), SVC(kernel="precomputed"))
    assert pipe.fit(X[:80], y[:80]).score(X[80:], y[80:]) >= 0.9
    literal = UMKL(bank=bank, B=5, distortion="signed").fit(X[:80])
    assert literal.weights_[1] > 0.99 and literal.objective_ < 0
    pipe.set_params(umkl__distortion="signed")
    assert pipe.fit(X[:80], y[:80]).score(X[80:], y[80:]) <= 0.7


def test_distortion_is_validated():
    Z, Ks, _ = _twins(seed=0)
    with pytest.raises(InvalidParameterError, match="distortion"):
        UMKL(B=3, distortion="absolute").fit(Ks)
    with pytest.raises(InvalidParameterError, match="distortion"):
        umkl(Ks, Z @ Z.T, B=3, distortion=None)


# --- the default: both readings, averaged (issue 40) ---------------------------------


def test_default_averages_both_readings_and_separates_circles():
    """Two circles (a Gaussian separates them, the linear kernel cannot): under the
    printed distortion alone the linear kernel takes all the weight and the SVM is at
    chance; the default (``distortion="both"``) averages the signed and the absolute
    readings' weights, so the Gaussian keeps about half of it and the SVM separates
    the circles."""
    from sklearn.datasets import make_circles

    from proxlearn.mkl import KernelBank

    bank = KernelBank(widths=(0.5,), degrees=(1,), per_feature=False)  # [gaussian, linear]
    X, y = make_circles(160, factor=0.4, noise=0.05, random_state=0)
    pipe = make_pipeline(UMKL(bank=bank, B=5), SVC(kernel="precomputed"))
    assert pipe.fit(X[:80], y[:80]).score(X[80:], y[80:]) >= 0.9
    est = UMKL(bank=bank, B=5).fit(X[:80])
    signed = UMKL(bank=bank, B=5, distortion="signed").fit(X[:80])
    absolute = UMKL(bank=bank, B=5, distortion="abs").fit(X[:80])
    np.testing.assert_allclose(est.readings_["signed"], signed.weights_)
    np.testing.assert_allclose(est.readings_["abs"], absolute.weights_)
    np.testing.assert_allclose(est.weights_, (signed.weights_ + absolute.weights_) / 2)
    assert est.weights_[0] > 0.3
    np.testing.assert_allclose(est.kernel_, (signed.kernel_ + absolute.kernel_) / 2,
                               atol=1e-12)
    np.testing.assert_allclose(est.transform(X[80:]),
                               (signed.transform(X[80:]) + absolute.transform(X[80:])) / 2,
                               atol=1e-12)
    assert est.objective_ == absolute.objective_  # the "abs" run's attributes


def test_default_runs_once_where_the_readings_coincide():
    """On non-negative kernels ``|k| = k``: the shifted stack's default fit is the
    signed one (one run), equal to ``"abs"`` as well."""
    K0, cos = _offset_stack()
    Ks = np.stack([K0, cos], axis=-1)
    est = UMKL(B=5).fit(Ks)
    assert list(est.readings_) == ["signed"]
    for d in ("signed", "abs"):
        other = UMKL(B=5, distortion=d).fit(Ks)
        np.testing.assert_allclose(est.weights_, other.weights_, atol=1e-12)
        np.testing.assert_allclose(est.kernel_, other.kernel_, atol=1e-12)


@pytest.mark.parametrize("c", [1e-3, 7.0])
def test_default_with_both_runs_is_scale_free(c):
    """Where both readings run (a kernel with negative entries, ``shift=None``),
    multiplying one base kernel by a constant changes neither the weights nor the
    test rows of the learned kernel: each reading is scale-free, so their mean is."""
    K0, cos = _offset_stack()
    Ks = np.stack([K0, cos], axis=-1)
    est = UMKL(B=5, shift=None).fit(Ks)
    assert list(est.readings_) == ["signed", "abs"]
    scaled = Ks.copy()
    scaled[:, :, 1] *= c
    other = UMKL(B=5, shift=None).fit(scaled)
    np.testing.assert_allclose(other.weights_, est.weights_, atol=1e-10)
    np.testing.assert_allclose(other.transform(scaled[:7]), est.transform(Ks[:7]), atol=1e-10)
