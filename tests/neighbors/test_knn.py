"""SimilarityKNeighborsClassifier (Chen et al. 2009, sections 5 and 7)."""

import pickle

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.model_selection import GridSearchCV, KFold
from sklearn.utils.estimator_checks import check_estimator

from proxlearn.base import SKLEARN_CHECK_EXCEPTIONS
import proxlearn.base
import proxlearn.neighbors._knn as knn_mod
from proxlearn._validation import (
    AsymmetricSimilarityWarning,
    InvalidParameterError,
    LabelError,
    SimilarityMatrixError,
    TestMatrixError,
)
from proxlearn.neighbors import (
    SimilarityKNeighborsClassifier,
    kri_weights_batch,
    krr_weights_batch,
)
from proxlearn._graph import top_k_similar

ALL_WEIGHTS = ["uniform", "affinity", "kri", "krr"]


def _indefinite_problem(seed=0, n=150, n_classes=3):
    """Three Gaussian classes; similarity = RBF plus symmetric noise (indefinite)."""
    rng = np.random.default_rng(seed)
    centers = 3.0 * rng.standard_normal((n_classes, 4))
    y = np.arange(n) % n_classes
    X = centers[y] + rng.standard_normal((n, 4))
    D = ((X[:, None] - X[None]) ** 2).sum(-1)
    N = 0.15 * rng.standard_normal((n, n))
    S = np.exp(-D / 8) + (N + N.T) / 2
    np.fill_diagonal(S, 1.0)
    return S, y


@pytest.fixture(scope="module")
def problem():
    S, y = _indefinite_problem()
    assert np.linalg.eigvalsh(S).min() < -0.5  # really indefinite
    idx = np.random.default_rng(1).permutation(len(y))
    tr, te = idx[:100], idx[100:]
    return S[np.ix_(tr, tr)], y[tr], S[np.ix_(te, tr)], y[te]


@pytest.mark.parametrize("weights", ALL_WEIGHTS)
def test_accuracy_on_indefinite_problem(problem, weights):
    S_tr, y_tr, S_te, y_te = problem
    est = SimilarityKNeighborsClassifier(n_neighbors=7, weights=weights, reg=0.1)
    acc = est.fit(S_tr, y_tr).score(S_te, y_te)
    assert acc > 0.8  # chance is 1/3


@pytest.mark.parametrize("spectrum", ["clip", "flip", "shift"])
def test_kri_krr_spectra_run(problem, spectrum):
    S_tr, y_tr, S_te, y_te = problem
    for w in ("kri", "krr"):
        est = SimilarityKNeighborsClassifier(7, weights=w, reg=0.1, spectrum=spectrum)
        assert est.fit(S_tr, y_tr).score(S_te, y_te) > 0.8


def test_predict_matches_manual_weights(problem):
    S_tr, y_tr, S_te, y_te = problem
    k = 6
    order = np.argsort(-S_te, axis=1, kind="stable")[:, :k]
    sims = np.take_along_axis(S_te, order, 1)
    S_loc = S_tr[order[:, :, None], order[:, None, :]]
    for weights, W in [
        ("kri", kri_weights_batch(S_loc, sims, 0.2, "clip")),
        ("krr", krr_weights_batch(S_loc, sims, 0.2, "pinv")),
    ]:
        est = SimilarityKNeighborsClassifier(k, weights=weights, reg=0.2).fit(S_tr, y_tr)
        scores = np.stack([(W * (y_tr[order] == g)).sum(1) for g in range(3)], 1)
        present = np.stack([(y_tr[order] == g).any(1) for g in range(3)], 1)
        expect = np.argmax(np.where(present, scores, -np.inf), axis=1)
        np.testing.assert_array_equal(est.predict(S_te), est.classes_[expect])
        P = est.predict_proba(S_te)
        Wp = np.maximum(W, 0)
        Wp /= Wp.sum(1, keepdims=True)
        np.testing.assert_allclose(
            P, np.stack([(Wp * (y_tr[order] == g)).sum(1) for g in range(3)], 1)
        )


def test_top_k_ties_lower_index_first():
    R = np.array([[1.0, 3, 3, 2, 3, 0], [5, 5, 5, 5, 5, 5], [0, 1, 2, 3, 4, 5]])
    idx, val = top_k_similar(R, 2)
    np.testing.assert_array_equal(idx, [[1, 2], [0, 1], [5, 4]])
    np.testing.assert_array_equal(val, [[3, 3], [5, 5], [5, 4]])
    rng = np.random.default_rng(0)
    R = rng.integers(0, 4, size=(30, 20)).astype(float)  # many ties
    for k in (1, 5, 20):
        idx, val = top_k_similar(R, k)
        ref = np.argsort(-R, axis=1, kind="stable")[:, :k]
        np.testing.assert_array_equal(idx, ref)
        np.testing.assert_array_equal(val, np.take_along_axis(R, ref, 1))


def test_kneighbors(problem):
    S_tr, y_tr, S_te, _ = problem
    est = SimilarityKNeighborsClassifier(4).fit(S_tr, y_tr)
    sim, ind = est.kneighbors(S_te)
    ref = np.argsort(-S_te, axis=1, kind="stable")[:, :4]
    np.testing.assert_array_equal(ind, ref)
    np.testing.assert_array_equal(sim, np.take_along_axis(S_te, ref, 1))
    ind9 = est.kneighbors(S_te, n_neighbors=9, return_similarity=False)
    assert ind9.shape == (S_te.shape[0], 9)
    with pytest.raises(InvalidParameterError, match="larger than the training set"):
        est.kneighbors(S_te, n_neighbors=101)


def test_one_nn_and_uniform_tie_rule():
    S = np.array(
        [[1.0, 0.9, 0.1, 0.0], [0.9, 1, 0.2, 0.1], [0.1, 0.2, 1, 0.8], [0, 0.1, 0.8, 1]]
    )
    y = np.array(["a", "a", "b", "b"])
    # test row nearest to sample 2 (class b), then sample 0 (class a)
    T = np.array([[0.5, 0.1, 0.6, 0.0]])
    assert SimilarityKNeighborsClassifier(1).fit(S, y).predict(T)[0] == "b"
    # k = 2: one vote each -> tie goes to the nearest neighbour's class ("b")
    est = SimilarityKNeighborsClassifier(2).fit(S, y)
    assert est.predict(T)[0] == "b"
    np.testing.assert_allclose(est.predict_proba(T), [[0.5, 0.5]])
    T2 = np.array([[0.6, 0.1, 0.5, 0.0]])
    assert est.predict(T2)[0] == "a"


def test_affinity_negative_and_zero_similarities():
    S = np.eye(4)
    y = np.array([0, 0, 1, 1])
    est = SimilarityKNeighborsClassifier(3, weights="affinity").fit(S, y)
    # all similarities <= 0: uniform fallback over the 3 neighbours
    T = np.array([[-0.1, -0.2, -0.3, -0.5]])
    np.testing.assert_allclose(est.predict_proba(T), [[2 / 3, 1 / 3]])
    # negative similarities are clipped at zero
    T = np.array([[0.2, -0.9, 0.6, -0.95]])
    np.testing.assert_allclose(est.predict_proba(T), [[0.25, 0.75]])
    assert est.predict(T)[0] == 1


def test_krr_negative_weights_proba():
    S = np.array(
        [[5, 1, 1, 1], [1, 5, 4, 2], [1, 4, 5, 2], [1, 2, 2, 5.0]]
    )
    y = np.array([0, 1, 2, 1])
    T = np.array([[2.0, 4, 3, 3]])  # toy example 3: x3 gets a negative KRR weight
    est = SimilarityKNeighborsClassifier(4, weights="krr", reg=0.01).fit(S, y)
    w = krr_weights_batch(S[None], T, 0.01)[0]
    assert w[2] < 0
    P = est.predict_proba(T)
    assert P[0, 2] == 0.0
    np.testing.assert_allclose(P.sum(), 1.0)
    assert est.predict(T)[0] == 1


def test_chunking_does_not_change_results(problem, monkeypatch):
    S_tr, y_tr, S_te, _ = problem
    est = SimilarityKNeighborsClassifier(5, weights="kri", reg=0.05).fit(S_tr, y_tr)
    full, P = est.predict(S_te), est.predict_proba(S_te)
    monkeypatch.setattr(proxlearn.base, "CHUNK_BYTES", 1)  # one row per chunk
    np.testing.assert_array_equal(est.predict(S_te), full)
    np.testing.assert_allclose(est.predict_proba(S_te), P)


def test_asymmetric_training_matrix_symmetrised():
    S, y = _indefinite_problem(seed=3, n=40)
    rng = np.random.default_rng(0)
    A = S + 0.1 * rng.standard_normal(S.shape)
    with pytest.warns(AsymmetricSimilarityWarning):
        est = SimilarityKNeighborsClassifier(3, weights="kri").fit(A, y)
    np.testing.assert_allclose(est.S_fit_, (A + A.T) / 2)


def test_sklearn_conventions(problem):
    S_tr, y_tr, S_te, _ = problem
    est = SimilarityKNeighborsClassifier(4, weights="krr", reg=0.3, spectrum="clip")
    assert est.get_params()["spectrum"] == "clip"
    est2 = clone(est).set_params(n_neighbors=6, transform_s=False)
    assert est2.n_neighbors == 6 and est.n_neighbors == 4
    est.fit(S_tr, y_tr)
    restored = pickle.loads(pickle.dumps(est))
    np.testing.assert_array_equal(restored.predict(S_te), est.predict(S_te))
    assert est.n_features_in_ == S_tr.shape[0]


def test_grid_search_equals_hand_loop(problem):
    S_tr, y_tr, _, _ = problem
    grid = {"n_neighbors": [1, 3, 7], "reg": [1e-3, 1.0]}
    cv = KFold(4, shuffle=True, random_state=0)
    base = SimilarityKNeighborsClassifier(weights="kri")
    gs = GridSearchCV(base, grid, cv=cv).fit(S_tr, y_tr)
    hand = {}
    for k in grid["n_neighbors"]:
        for reg in grid["reg"]:
            accs = []
            for tr, te in cv.split(S_tr):
                e = SimilarityKNeighborsClassifier(k, weights="kri", reg=reg)
                e.fit(S_tr[np.ix_(tr, tr)], y_tr[tr])
                accs.append(e.score(S_tr[np.ix_(te, tr)], y_tr[te]))
            hand[(k, reg)] = np.mean(accs)
    for params, score in zip(gs.cv_results_["params"], gs.cv_results_["mean_test_score"]):
        assert score == pytest.approx(hand[(params["n_neighbors"], params["reg"])])
    best = max(hand, key=lambda p: (hand[p], -list(hand).index(p)))
    assert (gs.best_params_["n_neighbors"], gs.best_params_["reg"]) == best




@pytest.mark.parametrize("weights", ["uniform", "kri", "krr"])
def test_check_estimator(weights):
    est = SimilarityKNeighborsClassifier(weights=weights)
    check_estimator(est, expected_failed_checks=SKLEARN_CHECK_EXCEPTIONS)


def test_bad_input(problem):
    S_tr, y_tr, S_te, _ = problem
    est = SimilarityKNeighborsClassifier(3).fit(S_tr, y_tr)
    with pytest.raises(TestMatrixError, match="columns"):
        est.predict(S_te[:, :-1])
    bad = S_te.copy()
    bad[0, 0] = np.nan
    with pytest.raises(SimilarityMatrixError, match="NaN"):
        est.predict(bad)
    with pytest.raises(LabelError, match="class"):
        SimilarityKNeighborsClassifier(3).fit(S_tr, np.zeros(len(y_tr)))
    with pytest.raises(InvalidParameterError, match="larger than the training set"):
        SimilarityKNeighborsClassifier(101).fit(S_tr, y_tr)
    big = SimilarityKNeighborsClassifier(3).fit(S_tr, y_tr).set_params(n_neighbors=500)
    with pytest.raises(InvalidParameterError, match="larger than the training set"):
        big.predict(S_te)
    with pytest.raises(InvalidParameterError, match="weights"):
        SimilarityKNeighborsClassifier(weights="distance").fit(S_tr, y_tr)
    with pytest.raises(InvalidParameterError, match="KRR only|KRI"):
        SimilarityKNeighborsClassifier(weights="kri", spectrum="pinv").fit(S_tr, y_tr)
    with pytest.raises(InvalidParameterError, match="reg"):
        SimilarityKNeighborsClassifier(weights="krr", spectrum="clip", reg=0).fit(
            S_tr, y_tr
        )
    with pytest.raises(InvalidParameterError, match="reg"):
        SimilarityKNeighborsClassifier(weights="kri", reg=-1).fit(S_tr, y_tr)
    with pytest.raises(InvalidParameterError, match="n_neighbors"):
        SimilarityKNeighborsClassifier(2.5).fit(S_tr, y_tr)
    with pytest.raises(LabelError, match="y is None"):
        SimilarityKNeighborsClassifier(3).fit(S_tr, None)
    with pytest.raises(SimilarityMatrixError, match="square"):
        SimilarityKNeighborsClassifier(3).fit(S_te, y_tr)
    # all-equal test row: deterministic neighbours (lowest indices)
    flat = np.full((1, S_tr.shape[0]), 0.5)
    np.testing.assert_array_equal(est.kneighbors(flat)[1], [[0, 1, 2]])


def test_protein_krr_pinv_beats_knn(load_uw):
    A, y = load_uw("protein")
    idx = np.random.default_rng(0).permutation(len(y))
    te, tr = idx[:43], idx[43:]
    errs = {}
    for w in ("uniform", "krr"):
        e = []
        for k in (5, 10, 16):
            est = SimilarityKNeighborsClassifier(k, weights=w, reg=0.1)
            est.fit(A[np.ix_(tr, tr)], y[tr])
            e.append(np.mean(est.predict(A[np.ix_(te, tr)]) != y[te]))
        errs[w] = np.array(e)
    # Chen et al. (2009) Table 3: KRR (pinv) ~1/3 the error of k-NN on Protein
    assert errs["krr"].mean() < 0.8 * errs["uniform"].mean()
    assert np.all(errs["krr"] <= errs["uniform"])


def test_train_to_test_similarities_are_symmetrised():
    rng = np.random.default_rng(5)
    X = rng.normal(size=(30, 2))
    y = (X[:, 0] > 0).astype(int)
    S = X @ X.T
    T = rng.normal(size=(6, 2))
    fwd = T @ X.T + rng.normal(scale=0.5, size=(6, 30))  # psi(x, x_j)
    back = X @ T.T + rng.normal(scale=0.5, size=(30, 6))  # psi(x_j, x)
    clf = SimilarityKNeighborsClassifier(n_neighbors=5, weights="krr").fit(S, y)
    sym = 0.5 * (fwd + back.T)
    np.testing.assert_array_equal(clf.predict(fwd, back), clf.predict(sym))
    np.testing.assert_allclose(clf.predict_proba(fwd, back), clf.predict_proba(sym))
    np.testing.assert_array_equal(clf.kneighbors(fwd, S_train_test=back)[1],
                                  clf.kneighbors(sym)[1])
    assert not np.array_equal(clf.kneighbors(fwd)[1], clf.kneighbors(sym)[1])
    with pytest.raises(TestMatrixError, match="S_train_test has shape"):
        clf.predict(fwd, back.T)


@pytest.mark.parametrize("weights, spectrum", [("kri", "clip"), ("krr", "pinv"), ("uniform", None)])
def test_memmapped_test_matrix_predicts_like_an_array(tmp_path, monkeypatch, weights, spectrum):
    """Issue #19: a memmapped test-to-train matrix is read in chunks (no copy) and
    gives the in-memory predictions."""
    import proxlearn.neighbors._knn as knn

    rng = np.random.default_rng(3)
    X = rng.standard_normal((60, 3))
    y = (X[:, 0] > 0).astype(int)
    T = rng.standard_normal((25, 3))
    S = X @ X.T + 0.1 * rng.standard_normal((60, 60))
    S = 0.5 * (S + S.T)
    S_test = T @ X.T
    mm = np.memmap(tmp_path / "S_test.f64", dtype=np.float64, mode="w+", shape=S_test.shape)
    mm[:] = S_test
    mm.flush()
    mm = np.memmap(tmp_path / "S_test.f64", dtype=np.float64, mode="r", shape=S_test.shape)
    clf = SimilarityKNeighborsClassifier(n_neighbors=5, weights=weights, spectrum=spectrum,
                                         reg=1e-2).fit(S, y)
    ref = clf.predict(S_test)
    seen = []
    orig = knn.row_chunks

    def spy(m, per_row):
        out = list(orig(m, per_row))
        seen.append(len(out))
        return out

    monkeypatch.setattr(knn, "row_chunks", spy)
    monkeypatch.setattr(proxlearn.base, "CHUNK_BYTES", 1)  # one test row per chunk
    np.testing.assert_array_equal(clf.predict(mm), ref)
    assert max(seen) == 25


@pytest.mark.parametrize("weights", ["uniform", "affinity", "kri", "krr"])
def test_predict_path_equals_one_model_per_reg(weights):
    """The grid-path protocol: entry i is what set_params(reg=reg[i]) predicts."""
    from proxlearn._graph import top_k_similar

    rng = np.random.default_rng(5)
    X = rng.normal(size=(50, 3))
    y = (X[:, 0] + 0.5 * rng.normal(size=50) > 0).astype(int)
    N = rng.normal(scale=0.5, size=(50, 50))
    S = X @ X.T + (N + N.T) / 2
    S_tr, y_tr, S_te = S[:35, :35], y[:35], S[35:, :35]
    regs = [1e-3, 0.1, 10.0]
    model = SimilarityKNeighborsClassifier(n_neighbors=7, weights=weights).fit(S_tr, y_tr)
    nbrs, sims = top_k_similar(S_te, 7)
    labels = model.predict_path(nbrs, sims, reg=regs)
    probas = model.predict_proba_path(nbrs, sims, reg=regs)
    for reg, pred, P in zip(regs, labels, probas, strict=True):
        one = SimilarityKNeighborsClassifier(n_neighbors=7, weights=weights, reg=reg).fit(S_tr, y_tr)
        np.testing.assert_array_equal(pred, one.predict(S_te))
        np.testing.assert_allclose(P, one.predict_proba(S_te), rtol=1e-9, atol=1e-12)
