"""Scale-free defaults of the base kernels and BaseKernelSVC (issue 40); the
formulas and the SimMKL use are tested in test_simmkl.py."""

import numpy as np
import pytest
from sklearn.metrics.pairwise import euclidean_distances

from proxlearn._validation import InvalidParameterError
from proxlearn.kernel_learning._base_kernels import BaseKernelSVC, RBFSimilarityKernel

from _problems import indefinite_problem


def _large_units(n=60, seed=0):
    """Three classes whose similarity is in the hundreds (like the synthetic sets of
    the defaults panel): a linear kernel of well-separated blobs, times 100."""
    rng = np.random.default_rng(seed)
    y = np.arange(n) % 3
    X = 3.0 * np.eye(3)[y] + rng.standard_normal((n, 3))
    return 100.0 * (X @ X.T), y


def test_rbf_scale_is_one_over_the_mean_squared_row_distance():
    S, _ = indefinite_problem(20, 1)
    tf = RBFSimilarityKernel().fit(S)
    d2 = euclidean_distances(S, S, squared=True)
    off = ~np.eye(20, dtype=bool)
    assert tf.beta_ == pytest.approx(1.0 / d2[off].mean())
    assert RBFSimilarityKernel(beta=0.3).fit(S).beta_ == 0.3
    # scale-free: the kernel of c S is the kernel of S (train and test rows)
    for c in (1e-3, 1e3):
        np.testing.assert_allclose(RBFSimilarityKernel().fit_transform(c * S), tf.transform(S),
                                   rtol=1e-9, atol=1e-12)


def test_rbf_default_is_not_a_diagonal_kernel_on_large_units():
    """beta = 0.1 (the former default) on entries in the hundreds: every off-diagonal
    kernel value underflows to 0 and the SVM on it predicts one class."""
    S, y = _large_units()
    K = RBFSimilarityKernel().fit_transform(S)
    off = K[~np.eye(len(y), dtype=bool)]
    assert np.median(off) > 0.05
    tr, te = np.arange(45), np.arange(45, 60)
    from proxlearn.svm import SimilaritySVC
    from sklearn.pipeline import make_pipeline
    model = make_pipeline(RBFSimilarityKernel(), SimilaritySVC())
    acc = model.fit(S[np.ix_(tr, tr)], y[tr]).score(S[np.ix_(te, tr)], y[te])
    assert acc >= 0.8


def test_base_kernel_svc_normalize():
    S, y = _large_units(seed=2)
    tr, te = np.arange(45), np.arange(45, 60)
    S_tr, S_te = S[np.ix_(tr, tr)], S[np.ix_(te, tr)]
    c = np.trace(S_tr) / len(tr)
    est = BaseKernelSVC().fit(S_tr, y[tr])
    assert est.scale_ == pytest.approx(c)
    ref = BaseKernelSVC(normalize=False).fit(S_tr / c, y[tr])
    np.testing.assert_allclose(est.decision_function(S_te), ref.decision_function(S_te / c),
                               rtol=1e-8, atol=1e-8)
    for factor in (1e-3, 1e3):
        scaled = BaseKernelSVC().fit(factor * S_tr, y[tr])
        np.testing.assert_array_equal(scaled.predict(factor * S_te), est.predict(S_te))


@pytest.mark.parametrize("params", [{"beta": "median"}, {"beta": 0.0}, {"beta": -1.0}])
def test_rbf_bad_beta(params):
    S, _ = indefinite_problem(8, 0)
    with pytest.raises(InvalidParameterError, match="beta"):
        RBFSimilarityKernel(**params).fit(S)


def test_base_kernel_svc_bad_normalize():
    S, y = indefinite_problem(8, 0)
    with pytest.raises(InvalidParameterError, match="normalize"):
        BaseKernelSVC(normalize="no").fit(S, y)


# ---------------------------------------------------------------------- #
# LinearSimilarityKernel(center=True) and DiffusionKernel(graph="knn") (issue 40)
# ---------------------------------------------------------------------- #
def _split(S, y, n_train):
    tr, te = np.arange(n_train), np.arange(n_train, len(y))
    return S[np.ix_(tr, tr)], y[tr], S[np.ix_(te, tr)], y[te]


def test_linear_kernel_centres_the_feature_rows():
    from proxlearn.kernel_learning import LinearSimilarityKernel
    S, _ = indefinite_problem(20, 3)
    T = S[:5] + 0.1
    tf = LinearSimilarityKernel().fit(S)
    m = S.mean(axis=0)
    np.testing.assert_allclose(tf.transform(S), (S - m) @ (S - m).T, atol=1e-12)
    np.testing.assert_allclose(tf.transform(T), (T - m) @ (S - m).T, atol=1e-12)
    lit = LinearSimilarityKernel(center=False).fit(S)
    np.testing.assert_allclose(lit.transform(T), T @ S.T, atol=1e-12)
    with pytest.raises(InvalidParameterError, match="center"):
        LinearSimilarityKernel(center="yes").fit(S)


@pytest.mark.parametrize("tf", ["linear", "diffusion"])
def test_base_kernel_specs_keep_the_thesis_kernels(tf):
    """make_base_kernel's specs (SimMKL, BaseKernelSVC, the study) stay the thesis's."""
    from proxlearn.kernel_learning._base_kernels import make_base_kernel
    est = make_base_kernel(tf if tf == "linear" else ("diffusion", 20.0))
    assert est.get_params()["center"] is False
    if tf == "diffusion":
        assert est.get_params()["graph"] == "dense"


def test_diffusion_knn_graph_accepts_negative_similarities_and_is_consistent():
    from proxlearn.kernel_learning import DiffusionKernel
    S, _ = indefinite_problem(30, 5)
    assert S.min() < 0
    tf = DiffusionKernel(n_neighbors=6).fit(S)
    K = tf.kernel_
    np.testing.assert_allclose(tf.transform(S), K, atol=1e-9 * np.abs(K).max())
    perm = np.random.default_rng(0).permutation(30)
    np.testing.assert_allclose(tf.transform(S[perm]), K[perm], atol=1e-9 * np.abs(K).max())
    assert np.linalg.eigvalsh(K).min() > -1e-9 * np.abs(K).max()
    np.testing.assert_allclose(K.sum(axis=0), 0.0, atol=1e-9 * np.abs(K).max())  # centred
    # only the order of each row matters: a positive factor and a shift change nothing
    np.testing.assert_allclose(DiffusionKernel(n_neighbors=6).fit_transform(3.0 * S - 2.0), K,
                               atol=1e-12)


def test_diffusion_knn_graph_is_the_shared_neighbour_count():
    from proxlearn.kernel_learning import DiffusionKernel
    S, _ = indefinite_problem(12, 2)
    k = 4
    W = np.zeros_like(S)
    for i in range(12):
        W[i, np.argsort(-S[i], kind="stable")[:k]] = 1.0
    A = W @ W.T
    d = A.sum(axis=1)
    L = np.eye(12) - A / np.sqrt(np.outer(d, d))
    import scipy.linalg
    K = scipy.linalg.expm(-1.5 * L) - np.exp(-1.5) * np.eye(12)  # without the ridge
    np.testing.assert_allclose(
        DiffusionKernel(sigma2=3.0, n_neighbors=k, center=False).fit_transform(S), K, atol=1e-10)
    H = np.eye(12) - 1.0 / 12
    np.testing.assert_allclose(DiffusionKernel(sigma2=3.0, n_neighbors=k).fit_transform(S),
                               H @ K @ H, atol=1e-10)


def test_diffusion_dense_graph_still_refuses_negative_similarities():
    from proxlearn._validation import SimilarityMatrixError
    from proxlearn.kernel_learning import DiffusionKernel
    S, _ = indefinite_problem(8, 0)
    with pytest.raises(SimilarityMatrixError, match="graph='knn'"):
        DiffusionKernel(graph="dense").fit(S)


@pytest.mark.parametrize("params, match", [({"graph": "full"}, "graph"),
                                           ({"n_neighbors": 0}, "n_neighbors"),
                                           ({"n_neighbors": 2.5}, "n_neighbors"),
                                           ({"center": None}, "center"),
                                           ({"sigma2": -1.0}, "sigma2")])
def test_diffusion_bad_parameters(params, match):
    from proxlearn.kernel_learning import DiffusionKernel
    S, _ = indefinite_problem(10, 0)
    with pytest.raises(InvalidParameterError, match=match):
        DiffusionKernel(**params).fit(S - S.min())


@pytest.mark.parametrize("name", ["digits-idm", "protein"])
def test_diffusion_default_is_not_rank_one_on_dense_graphs(name):
    """The literal kernel (dense graph, sigma2 = 20) scored 53.5 % (digits-idm) and
    62.5 % (protein) on the defaults panel against the clip SVM's 96.8 / 96.9 %."""
    from sklearn.pipeline import make_pipeline
    from proxlearn.datasets import load_dataset
    from proxlearn.kernel_learning import DiffusionKernel
    from proxlearn.svm import SimilaritySVC
    try:
        ds = load_dataset(name)
    except (OSError, FileNotFoundError) as exc:
        pytest.skip(f"{name} not available ({exc}); the data belong in ../shared/data")
    S, y = np.asarray(ds.matrix, float), np.asarray(ds.labels)
    idx = np.random.default_rng(0).permutation(len(y))[:300]
    S, y = S[np.ix_(idx, idx)], y[idx]
    S_tr, y_tr, S_te, y_te = _split(S, y, int(0.7 * len(y)))
    new = make_pipeline(DiffusionKernel(), SimilaritySVC()).fit(S_tr, y_tr).score(S_te, y_te)
    old = make_pipeline(DiffusionKernel(graph="dense", center=False),
                        SimilaritySVC()).fit(S_tr, y_tr).score(S_te, y_te)
    assert new >= old + 0.15


def test_diffusion_knn_test_row_off_the_graph_gets_a_zero_row():
    """A test sample whose neighbours are nobody's neighbours is not connected to the
    training graph: its (ridge-free) kernel row is 0, not an error or NaN."""
    from proxlearn._validation import SimilarityMatrixError
    from proxlearn.kernel_learning import DiffusionKernel
    S = np.array([[0.5, 1.0, 0.0], [1.0, 2.0, 0.0], [0.0, 0.0, 1.0]])
    tf = DiffusionKernel(n_neighbors=1, center=False).fit(S)  # nobody's neighbour: 0
    np.testing.assert_array_equal(tf.transform([[1.0, 0.0, 0.0]]), np.zeros((1, 3)))
    np.testing.assert_allclose(tf.transform([[0.0, 1.0, 0.0]]), tf.kernel_[1:2], atol=1e-12)
    with pytest.raises(SimilarityMatrixError, match="zero total similarity"):
        DiffusionKernel(graph="dense").fit(S).transform([[0.0, 0.0, 0.0]])


def test_centred_linear_kernel_is_the_uncentred_one_at_a_larger_c():
    """The SVM dual sees y^T alpha = 0, so K and H K H give the same problem: after
    the trace normalisation of SimilaritySVC, centring only multiplies C by
    tr(S S^T) / tr(H S S^T H), the factor by which C = 1 was too small."""
    from sklearn.pipeline import make_pipeline
    from proxlearn.kernel_learning import LinearSimilarityKernel
    from proxlearn.svm import SimilaritySVC
    S, y = indefinite_problem(60, 7)
    S = S + 3.0  # a common offset: the uncentred trace is mostly the shared component
    S_tr, y_tr, S_te, _ = _split(S, y, 45)
    K = S_tr @ S_tr.T
    H = np.eye(45) - 1.0 / 45
    ratio = np.trace(K) / np.trace(H @ K @ H)
    assert ratio > 5
    new = make_pipeline(LinearSimilarityKernel(), SimilaritySVC()).fit(S_tr, y_tr)
    old = make_pipeline(LinearSimilarityKernel(center=False),
                        SimilaritySVC(C=ratio)).fit(S_tr, y_tr)
    np.testing.assert_array_equal(new.predict(S_te), old.predict(S_te))
    np.testing.assert_allclose(new.decision_function(S_te), old.decision_function(S_te),
                               rtol=1e-4, atol=1e-4)
