"""MVE, SPE and CMVU by the SimpleNPKL template (Zhuang 2011 sec. 3.4) against cvxpy."""

import pickle
import warnings

import numpy as np
import pytest
from scipy.spatial.distance import pdist
from scipy.stats import spearmanr
from sklearn.base import clone
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.estimator_checks import check_estimator

from proxlearn._linalg import center_kernel
from proxlearn.base import FEATURE_CHECK_EXCEPTIONS, is_pairwise
from proxlearn.exceptions import (
    FeatureMatrixError,
    InvalidParameterError,
    LabelError,
    SimilarityMatrixError,
)
from proxlearn.manifold import (
    CMVU,
    MVE,
    SPE,
    connected_knn_graph,
    embedding_input,
    kernel_embedding,
    mve_step_sdp,
    spe_npkl,
    spe_sdp,
)
from proxlearn.manifold._embeddings import _k0
from proxlearn.manifold._sdp import all_triplets, spe_violations
from proxlearn.ranking import neighbour_pairs
from proxlearn.solvers import max_trace_psd_ball

#: Relative objective agreement with the cvxpy (Clarabel) optimum of the same problem.
#: The template's own certified gap is 1e-7 here; Clarabel's answers are accurate to
#: about 1e-5 relative on these SDPs (its value can fall below our certified lower bound).
RTOL_SDP = 1e-4


def _blobs(n=20, seed=1):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    return X, (X[:, 0] > 0).astype(int)


def _dist(K, pairs):
    d = np.diag(K)
    return d[pairs[:, 0]] + d[pairs[:, 1]] - 2.0 * K[pairs[:, 0], pairs[:, 1]]


def _assert_kernel(K, B):
    assert np.linalg.eigvalsh(K).min() > -1e-9 * np.abs(K).max()  # PSD
    np.testing.assert_allclose(K @ np.ones(len(K)), 0.0, atol=1e-9 * np.abs(K).max())  # K1 = 0
    np.testing.assert_allclose(np.sum(K * K), B, rtol=1e-9)  # ||K||_F^2 = B (ball is active)


@pytest.mark.parametrize("C, B", [(1.0, "auto"), (10.0, 5.0)])
def test_mve_step_reaches_the_sdp_optimum_of_the_same_saddle_problem(C, B):
    X, _ = _blobs()
    est = MVE(max_outer_iter=1, scale=None, C=C, B=B, G=None, tol=1e-7,
              max_iter=2000).fit(X)
    G, D2, _ = embedding_input(X)
    pairs, _ = connected_knn_graph(D2, 5)
    d2 = D2[pairs[:, 0], pairs[:, 1]]
    A0 = _k0(G, 2)  # the first MVE step, from the start kernel
    K = est.kernel_
    ours = -np.vdot(A0, K) + 0.5 * C * np.sum((d2 - _dist(K, pairs)) ** 2)
    _, value = mve_step_sdp(A0, pairs, d2, C=C, B=est.B_)
    assert abs(ours - value) <= RTOL_SDP * abs(value)
    _assert_kernel(K, est.B_)


@pytest.mark.parametrize("C, B", [(1.0, "auto"), (10.0, 5.0)])
def test_cmvu_reaches_the_sdp_optimum_of_the_same_saddle_problem(C, B):
    X, y = _blobs()
    est = CMVU(scale=None, C=C, B=B, G=None, tol=1e-7, max_iter=2000).fit(X, y)
    G, D2, _ = embedding_input(X)
    pairs, _ = connected_knn_graph(D2, 5)
    d2 = D2[pairs[:, 0], pairs[:, 1]]
    A0 = center_kernel((y[:, None] == y[None, :]).astype(float))
    K = est.kernel_
    ours = -np.vdot(A0, K) + 0.5 * C * np.sum((d2 - _dist(K, pairs)) ** 2)
    _, value = mve_step_sdp(A0, pairs, d2, C=C, B=est.B_)
    assert abs(ours - value) <= RTOL_SDP * abs(value)
    _assert_kernel(K, est.B_)
    # the dual is non-decreasing up to the non-monotone line search's window
    hist = np.array(est.objective_history_)
    assert hist[-1] >= hist[0]


def test_cmvu_lowrank_is_the_full_problem_with_a_full_basis_and_worse_with_a_small_one():
    X, y = _blobs(n=16)
    G, D2, _ = embedding_input(X)
    pairs, _ = connected_knn_graph(D2, 5)
    d2 = D2[pairs[:, 0], pairs[:, 1]]
    A0 = center_kernel((y[:, None] == y[None, :]).astype(float))

    def objective(K):
        return -np.vdot(A0, K) + 0.5 * np.sum((d2 - _dist(K, pairs)) ** 2)

    full = CMVU(scale=None, G=None, tol=1e-8, max_iter=3000).fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # cvxpy "inaccurate" notes
        whole = CMVU(scale=None, G=None, solver="lowrank", n_basis=16).fit(X, y)
        small = CMVU(scale=None, G=None, solver="lowrank", n_basis=3).fit(X, y)
    f_full, f_whole, f_small = objective(full.kernel_), objective(whole.kernel_), objective(small.kernel_)
    assert abs(f_whole - f_full) <= RTOL_SDP * abs(f_full)
    assert f_small > f_full + 1e-3 * abs(f_full)  # the restriction costs something here
    assert np.sum(small.kernel_ ** 2) <= full.B_ * (1 + 1e-6)


def _random_graph(seed, n=16):
    rng = np.random.default_rng(seed)
    U = rng.random((n, n)) < rng.uniform(0.05, 0.6, n)[:, None]
    W = np.triu(U, 1)
    return (W | W.T).astype(float)


@pytest.mark.parametrize("seed, C", [(0, 0.5), (0, 5.0), (2, 5.0)])
def test_spe_template_reaches_the_all_triplets_sdp(seed, C):
    W = _random_graph(seed)
    K0, _ = max_trace_psd_ball(center_kernel(W), 10.0)
    assert spe_violations(K0, W)[0].max() > 0.1  # triplets bind: the test has teeth
    res, T, _ = spe_npkl(W, C=C, B=10.0, tol=1e-8, max_iter=5000)
    assert res.converged and res.gap <= 1e-6 * abs(res.primal)
    assert np.all(res.alpha >= 0) and res.alpha.sum() <= C * (1 + 1e-12)
    assert res.alpha.sum() > 0
    assert len(T) < len(all_triplets(W))  # the working set is a strict subset
    _, value, _ = spe_sdp(W, C=C, B=10.0, triplets="all")
    assert abs(res.primal - value) <= RTOL_SDP * abs(value)
    _assert_kernel(res.K, 10.0)


def test_spe_cutting_planes_reach_the_all_triplets_sdp():
    W = _random_graph(0)
    _, v_all, _ = spe_sdp(W, C=2.0, triplets="all")
    _, v_cut, rounds = spe_sdp(W, C=2.0, triplets="cutting")
    assert rounds >= 2
    assert abs(v_all - v_cut) <= RTOL_SDP * abs(v_all)


def test_spe_estimator_kernel_is_centred_in_the_ball_and_preserves_the_knn_graph():
    X, _ = _blobs(n=30)
    est = SPE(n_neighbors=4).fit(X)
    _assert_kernel(est.kernel_, est.B_)
    _, W = connected_knn_graph(embedding_input(X)[1], 4)
    v, _, _ = spe_violations(est.kernel_, W)
    assert v.max() <= 1e-6 * np.abs(est.kernel_).max()  # every neighbour nearer than every other


def _plane(n=30, seed=0):
    rng = np.random.default_rng(seed)
    P = rng.uniform(-1, 1, (n, 2))
    Q, _ = np.linalg.qr(rng.normal(size=(3, 3)))
    return np.column_stack([P, np.zeros(n)]) @ Q.T, P


@pytest.mark.parametrize("solver, C, rtol", [("npkl", 100.0, 0.05), ("sdp", None, 1e-4)])
def test_mve_recovers_the_distances_of_points_on_a_plane(solver, C, rtol):
    X, P = _plane()
    kw = {} if C is None else {"C": C}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        # the ball form (the thesis's): at the default penalty form G the loose slack
        # stretches the plane (docs/methods.md, "Embeddings at their defaults")
        est = MVE(solver=solver, G=None, **kw).fit(X)
    got, want = pdist(est.embedding_), pdist(P)
    scale = (got @ want) / (got @ got)  # the NPKL form fixes the scale by B, not by D
    assert np.linalg.norm(scale * got - want) <= rtol * np.linalg.norm(want)
    lam = np.sort(np.linalg.eigvalsh(est.kernel_))[::-1]
    assert lam[2] <= 1e-2 * lam[0]  # two dimensions


@pytest.mark.parametrize("solver", ["npkl", "sdp"])
def test_mve_unfolds_a_noiseless_arc_into_a_line(solver):
    t = np.linspace(0, np.pi, 30)
    X = np.column_stack([np.cos(t), np.sin(t)])  # PCA would keep it 2-D
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        est = MVE(n_components=1, n_neighbors=3, solver=solver).fit(X)
    lam = np.sort(np.linalg.eigvalsh(est.kernel_))[::-1]
    assert lam[1] <= 1e-3 * lam[0]
    assert abs(spearmanr(est.embedding_[:, 0], t)[0]) > 0.999
    if solver == "sdp":  # hard distance equalities: the arc length is kept
        assert abs(np.ptp(est.embedding_) - np.pi) < 0.02
    hist = np.array(est.objective_history_)
    assert np.all(np.diff(hist) >= -1e-6 * np.abs(hist).max())  # MM: non-decreasing


def test_shapes_and_determinism():
    X, y = _blobs(n=25)
    for est in (MVE(n_components=3, random_state=0), SPE(random_state=0), CMVU(random_state=0)):
        a = clone(est).fit_transform(X, y)
        b = clone(est).fit_transform(X, y)
        assert a.shape == (25, est.n_components)
        np.testing.assert_array_equal(a, b)
        fitted = clone(est).fit(X, y)
        assert fitted.n_iter_ >= 1 and len(fitted.objective_history_) >= 1
        np.testing.assert_allclose(fitted.embedding_ @ fitted.embedding_.T,
                                   _top(fitted.kernel_, est.n_components), atol=1e-8)


def _top(K, d):
    lam, U = np.linalg.eigh(K)
    return (U[:, -d:] * lam[-d:]) @ U[:, -d:].T


def test_kernel_embedding_is_the_top_eigenpairs_and_arpack_agrees():
    X, _ = _blobs(n=30)
    K = center_kernel(X @ X.T)
    Y = kernel_embedding(K, 2)
    np.testing.assert_allclose(Y @ Y.T, _top(K, 2), atol=1e-10)
    Ya = kernel_embedding(K, 2, eigen_solver="arpack", random_state=0)
    np.testing.assert_allclose(Ya, Y, atol=1e-8)  # same sign convention
    # the KPCA baseline: scikit-learn's KernelPCA on the precomputed kernel spans the same
    from sklearn.decomposition import KernelPCA

    Z = KernelPCA(2, kernel="precomputed").fit_transform(X @ X.T)
    np.testing.assert_allclose(np.abs(Z), np.abs(Y), atol=1e-8)


def test_precomputed_kernel_equals_features():
    X, y = _blobs(n=20)
    rng = np.random.default_rng(3)
    K = X @ X.T + 5.0  # a constant offset: same distances after centring
    for cls in (MVE, SPE):
        a = cls().fit(X)
        b = cls(kernel="precomputed").fit(K)
        assert is_pairwise(b) and not is_pairwise(a)
        np.testing.assert_allclose(a.kernel_, b.kernel_, atol=1e-7 * np.abs(a.kernel_).max())
    b = CMVU(kernel="precomputed").fit(K, y)
    np.testing.assert_allclose(CMVU().fit(X, y).kernel_, b.kernel_, atol=1e-6 * np.abs(b.kernel_).max())
    del rng


def test_bad_input_errors():
    X, y = _blobs(n=20)
    bad = X.copy()
    bad[2, 1] = np.nan
    with pytest.raises(FeatureMatrixError):
        MVE().fit(bad)
    with pytest.raises(FeatureMatrixError):
        MVE().fit(X[:, 0])  # 1-D
    with pytest.raises(SimilarityMatrixError):
        MVE(kernel="precomputed").fit(X)  # not square
    with pytest.raises(InvalidParameterError, match="kernel"):
        MVE(kernel="rbf").fit(X)
    with pytest.raises(InvalidParameterError, match="solver"):
        SPE(solver="lowrank").fit(X)
    with pytest.raises(InvalidParameterError, match="n_neighbors"):
        MVE(n_neighbors=25).fit(X)
    with pytest.raises(InvalidParameterError, match="n_components"):
        MVE(n_components=0).fit(X)
    with pytest.raises(InvalidParameterError, match="B"):
        MVE(B=-1.0).fit(X)
    with pytest.raises(InvalidParameterError, match="C"):
        SPE(C=0.0).fit(X)
    with pytest.raises(InvalidParameterError, match="G"):
        MVE(G=0.0).fit(X)
    with pytest.raises(InvalidParameterError, match="G"):
        CMVU(G=-1.0).fit(X, y)
    with pytest.raises(LabelError):  # a mask of the wrong length
        CMVU().fit(X, np.ma.masked_array(y[:-1], mask=np.zeros(len(y) - 1, bool)))
    with pytest.raises(InvalidParameterError, match="all samples identical"):
        MVE().fit(np.ones((10, 3)))  # identical samples: no scale
    with pytest.raises(LabelError):
        CMVU().fit(X, y[:-1])
    with pytest.raises(LabelError):
        CMVU().fit(X, None)
    with pytest.raises(InvalidParameterError, match="max_n"):
        MVE(solver="sdp", max_sdp_n=10).fit(X)
    with pytest.raises(InvalidParameterError, match="max_n"):
        SPE(solver="sdp", max_sdp_n=10).fit(X)


def test_convergence_warning():
    X, _ = _blobs(n=25)
    with pytest.warns(ConvergenceWarning):
        MVE(max_iter=1, tol=1e-12).fit(X)
    with pytest.warns(ConvergenceWarning):
        CMVU(max_iter=1, tol=1e-12).fit(X, (X[:, 0] > 0).astype(int))


def test_params_clone_pickle():
    X, y = _blobs(n=20)
    for est in (MVE(C=2.0, n_neighbors=4), SPE(B=3.0), CMVU(n_basis=5)):
        params = est.get_params()
        fitted = clone(est).fit(X, y)
        assert fitted.get_params() == params
        back = pickle.loads(pickle.dumps(fitted))
        np.testing.assert_array_equal(back.embedding_, fitted.embedding_)
        assert clone(est).set_params(C=7.0).C == 7.0


@pytest.mark.parametrize("est", [MVE(n_neighbors=3), SPE(n_neighbors=3), CMVU(n_neighbors=3),
                                 MVE(n_neighbors=3, kernel="precomputed")],
                         ids=["MVE", "SPE", "CMVU", "MVE-precomputed"])
def test_check_estimator(est):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_estimator(est, expected_failed_checks=FEATURE_CHECK_EXCEPTIONS)


def test_disconnected_knn_graph_is_joined_by_its_shortest_link():
    rng = np.random.default_rng(0)
    X = np.vstack([rng.normal(size=(10, 2)), rng.normal(size=(10, 2)) + 20.0])
    _, D2, _ = embedding_input(X)
    pairs, W = connected_knn_graph(D2, 3)
    cross = [(i, j) for i, j in pairs if (i < 10) != (j < 10)]
    assert len(cross) == 1  # one link, and it is the shortest between the blobs
    i, j = cross[0]
    assert np.isclose(D2[i, j], D2[:10, 10:].min())
    # and nothing else: within each blob the edges are the k-NN graph's
    inside = {tuple(p) for p in pairs.tolist() if tuple(p) != (i, j)}
    assert inside == {tuple(p) for p in neighbour_pairs(D2, 3).tolist()}
    # MVU-type hard equalities are bounded now: the original MVE solves
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        est = MVE(n_neighbors=3, solver="sdp", max_outer_iter=2).fit(X)
    np.testing.assert_allclose(_dist(est.kernel_, pairs), D2[pairs[:, 0], pairs[:, 1]],
                               rtol=1e-4, atol=1e-4)


def test_penalty_form_reaches_the_sdp_optimum():
    """Prop. 3.26's penalty form (``G``): MVE step and SPE against cvxpy, same problem."""
    X, _ = _blobs()
    G, D2, _ = embedding_input(X)
    pairs, W = connected_knn_graph(D2, 5)
    d2 = D2[pairs[:, 0], pairs[:, 1]]
    est = MVE(max_outer_iter=1, scale=None, G=0.05, tol=1e-7, max_iter=3000).fit(X)
    assert est.B_ is None
    A0 = _k0(G, 2)
    K = est.kernel_
    ours = (-np.vdot(A0, K) + 0.5 * np.sum((d2 - _dist(K, pairs)) ** 2)
            + 0.5 * 0.05 * np.vdot(K, K))
    _, value = mve_step_sdp(A0, pairs, d2, C=1.0, G=0.05)
    assert abs(ours - value) <= RTOL_SDP * abs(value)
    assert np.linalg.eigvalsh(K).min() > -1e-9 * np.abs(K).max()
    np.testing.assert_allclose(K.sum(axis=1), 0.0, atol=1e-9 * np.abs(K).max())
    Wr = _random_graph(0)
    res, _, _ = spe_npkl(Wr, C=2.0, B=None, G=0.5, tol=1e-8, max_iter=5000)
    assert res.converged and res.alpha.sum() > 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        _, value, _ = spe_sdp(Wr, C=2.0, G=0.5, triplets="all")
    assert abs(res.primal - value) <= RTOL_SDP * abs(value)


# --- defaults on real data and scale (issue 40, items 3 and 3 of the npkl brief) ------


from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from sklearn.datasets import load_wine  # noqa: E402


def _raw_wine(n=40, seed=0):
    X, y = load_wine(return_X_y=True)  # raw units: distances up to ~1e6
    idx = np.random.default_rng(seed).choice(len(y), n, replace=False)
    return X[idx], y[idx]


@pytest.mark.parametrize("Est", [MVE, SPE, CMVU])
def test_defaults_converge_on_raw_wine_with_a_certified_gap(Est):
    # issue 40: on raw Wine every MVE step stopped at its iteration limit (relative gaps
    # 0.36-4) and the fit took 20+ minutes; the default now solves in units of ||HGH||_F
    X, y = _raw_wine()
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        est = Est().fit(X, y)
    assert 0.0 <= est.duality_gap_ <= est.tol * max(1.0, abs(est.primal_objective_))
    if Est is MVE:  # the outer loop settled
        assert est.n_iter_ < est.max_outer_iter


def test_scale_none_keeps_the_input_units_and_fails_to_converge_on_raw_wine():
    X, _ = _raw_wine()
    with pytest.warns(ConvergenceWarning, match="iteration limit"):
        MVE(scale=None, G=None, max_outer_iter=1).fit(X)


# derandomize: the same examples on every run. On about 2 of 120 random 18-point
# problems (MVE, SPE; measured 2026-11-28) the embedding is not determined to better
# than a few per cent by the input's rounding (MVE's outer loop settles by small
# progress, 0.3 % short of where a rounding-perturbed copy settles; SPE's optimum is
# flat: the objective agrees to 1e-15 while the embedding moves 0.5 %), so a random
# draw could fail on any machine; docs/methods.md, "Embeddings: rounding".
@settings(max_examples=5, deadline=None, derandomize=True)
@given(seed=st.integers(0, 10_000), k=st.integers(-10, 10), u=st.floats(0.0, 1.0),
       Est=st.sampled_from([MVE, SPE, CMVU]))
def test_scaling_the_input_scales_the_embedding_and_nothing_else(seed, k, u, Est):
    X, y = _blobs(n=18, seed=seed)
    X[:, 0] *= 30.0  # uneven units
    c = 2.0 ** k * (1.0 + u)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        a = Est().fit(X, y)
        b = Est().fit(c * X, y)
        p = Est(kernel="precomputed").fit(c * (X @ X.T), y)
    tol = 1e-6 * np.abs(a.embedding_).max()
    np.testing.assert_allclose(b.embedding_, c * a.embedding_, atol=c * tol)
    np.testing.assert_allclose(p.embedding_, np.sqrt(c) * a.embedding_, atol=np.sqrt(c) * tol)
    np.testing.assert_allclose(b.kernel_, c**2 * a.kernel_, atol=1e-9 * c**2 * np.abs(a.kernel_).max())


# --- defaults on real data (issue 40, item 1: embeddings against kernel PCA) -----------


def _uci_home():
    """``../shared/data`` of the main checkout (also from a git worktree), or None."""
    import subprocess
    from pathlib import Path
    here = Path(__file__).resolve().parent
    try:
        common = subprocess.run(["git", "-C", str(here), "rev-parse", "--git-common-dir"],
                                capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return None
    cand = (here / common).resolve().parent.parent / "shared" / "data"
    return cand if (cand / "uci").is_dir() else None


def _loo_1nn(E, y):
    D = np.sum((E[:, None, :] - E[None, :, :]) ** 2, axis=2)
    np.fill_diagonal(D, np.inf)
    return 100.0 * np.mean(y[np.argmin(D, axis=1)] == y)


def _zscored(X):
    sd = X.std(axis=0)
    return (X - X.mean(axis=0)) / np.where(sd > 0, sd, 1.0)


def test_mve_default_keeps_the_class_structure_of_soybean():
    # issue 40: with the ball tr(KK) <= B (the thesis's form, then the default) the
    # outer loop drifted away from the start for 38 steps: LOO 1-NN 63.8 % on
    # soybean (100 % after its first step), PCA 100 %
    from proxlearn.datasets import load_feature_dataset
    home = _uci_home()
    if home is None:
        pytest.skip("../shared/data/uci (soybean) is not available")
    ds = load_feature_dataset("soybean", data_home=home)
    X, y = _zscored(np.asarray(ds.X, float)), np.asarray(ds.labels)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        est = MVE().fit(X)
    assert _loo_1nn(est.embedding_, y) >= 90.0
    assert est.B_ is None  # the penalty form


def _iris_split(seed=0):
    from sklearn.datasets import load_iris
    from sklearn.model_selection import StratifiedShuffleSplit
    X, y = load_iris(return_X_y=True)
    _, te = next(StratifiedShuffleSplit(n_splits=1, test_size=0.3, random_state=seed)
                 .split(X, y))
    held = np.zeros(len(y), dtype=bool)
    held[te] = True
    return _zscored(X), y, held


def test_cmvu_takes_masked_labels_and_embeds_the_unlabelled_samples_near_their_class():
    # issue 40: a supervised embedding is scored on samples whose labels it did not see;
    # masked entries of y are unlabelled (rows of the label kernel Y set to 0)
    X, y, held = _iris_split()
    ym = np.ma.masked_array(y, mask=held)
    est = CMVU().fit(X, ym)
    np.testing.assert_array_equal(est.labelled_, ~held)
    E = est.embedding_
    D = np.sum((E[held][:, None, :] - E[~held][None, :, :]) ** 2, axis=2)
    acc = 100.0 * np.mean(y[~held][np.argmin(D, axis=1)] == y[held])
    # 84.4 here, PCA 86.7; the thesis's ball form (G=None) leaves them near the centre: 60.0
    assert acc >= 80.0
    # masking changes the fit: the held-out labels are not used
    full = CMVU().fit(X, y)
    assert not np.allclose(full.kernel_, est.kernel_)
    # y with the held-out labels changed but masked gives the same fit
    y2 = y.copy()
    y2[held] = (y2[held] + 1) % 3
    np.testing.assert_allclose(CMVU().fit(X, np.ma.masked_array(y2, mask=held)).kernel_,
                               est.kernel_)


def test_cmvu_every_label_masked_is_refused():
    X, y = _blobs()
    with pytest.raises(LabelError, match="every label"):
        CMVU().fit(X, np.ma.masked_array(y, mask=np.ones(len(y), bool)))


def test_cmvu_penalty_form_reaches_the_sdp_optimum_and_lowrank_matches_with_a_full_basis():
    X, y = _blobs(n=16)
    G, D2, _ = embedding_input(X)
    pairs, _ = connected_knn_graph(D2, 5)
    d2 = D2[pairs[:, 0], pairs[:, 1]]
    A0 = center_kernel((y[:, None] == y[None, :]).astype(float))
    est = CMVU(scale=None, G=0.5, tol=1e-8, max_iter=5000).fit(X, y)
    assert est.B_ is None

    def objective(K):
        return (-np.vdot(A0, K) + 0.5 * np.sum((d2 - _dist(K, pairs)) ** 2)
                + 0.25 * np.vdot(K, K))

    _, value = mve_step_sdp(A0, pairs, d2, C=1.0, G=0.5)
    assert abs(objective(est.kernel_) - value) <= RTOL_SDP * abs(value)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        whole = CMVU(scale=None, G=0.5, solver="lowrank", n_basis=16).fit(X, y)
    assert abs(objective(whole.kernel_) - value) <= RTOL_SDP * abs(value)


def test_knn_graph_is_a_deprecated_name_of_connected_knn_graph():
    from proxlearn.manifold import knn_graph

    _, D2, _ = embedding_input(_blobs()[0])
    with pytest.warns(FutureWarning, match="connected_knn_graph"):
        pairs, W = knn_graph(D2, 4)
    new_pairs, new_W = connected_knn_graph(D2, 4)
    np.testing.assert_array_equal(pairs, new_pairs)
    np.testing.assert_array_equal(W, new_W)


def test_connected_knn_graph_docstring_example_runs():
    import doctest

    import proxlearn.manifold._base as base

    result = doctest.testmod(base, verbose=False)
    assert result.attempted >= 1 and result.failed == 0
