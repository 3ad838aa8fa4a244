"""SVMKNN: local SVM on the k nearest neighbours (Chen et al. 2009, sec. 2.12 notes)."""

import pickle

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.model_selection import GridSearchCV, KFold
from sklearn.svm import SVC
from sklearn.utils.estimator_checks import check_estimator

from proxlearn.base import SKLEARN_CHECK_EXCEPTIONS
import proxlearn.base
import proxlearn.neighbors._svm_knn as svm_knn_mod
from proxlearn._validation import (
    InvalidParameterError,
    LabelError,
    TestMatrixError,
)
from proxlearn.neighbors._svm_knn import SVMKNN



def _blobs_problem(seed=0, n=150, n_classes=3, noise=0.3, sep=3.0):
    """Linear kernel of Gaussian blobs plus symmetric noise (indefinite).

    The blob centres are orthogonal with norm ``sep``, so that the most similar
    (largest inner product) samples tend to share the class.
    """
    rng = np.random.default_rng(seed)
    Q = np.linalg.qr(rng.standard_normal((5, 5)))[0]
    centers = sep * Q[:n_classes]
    y = np.arange(n) % n_classes
    X = centers[y] + rng.standard_normal((n, 5))
    N = noise * rng.standard_normal((n, n))
    S = X @ X.T + (N + N.T) / 2
    return S, y


def _split(S, y, n_train, seed=1):
    idx = np.random.default_rng(seed).permutation(len(y))
    tr, te = idx[:n_train], idx[n_train:]
    return S[np.ix_(tr, tr)], y[tr], S[np.ix_(te, tr)], y[te]


def _reference_predict(S_tr, y_tr, S_te, k, C, spectrum):
    """Straightforward loop: stable argsort, explicit eigh, SVC per point."""
    S_tr = (S_tr + S_tr.T) / 2
    out = []
    for s_row in S_te:
        nb = np.argsort(-s_row, kind="stable")[:k]
        yl = y_tr[nb]
        if np.all(yl == yl[0]):
            out.append(yl[0])
            continue
        Sl = S_tr[np.ix_(nb, nb)]
        s = s_row[nb]
        lam, V = np.linalg.eigh(Sl)
        if spectrum == "clip":
            K = V @ np.diag(np.maximum(lam, 0)) @ V.T
            s = V @ np.diag((lam > 0).astype(float)) @ V.T @ s
        elif spectrum == "flip":
            K = V @ np.diag(np.abs(lam)) @ V.T
            s = V @ np.diag(np.sign(lam)) @ V.T @ s
        else:
            K = Sl + max(-lam.min(), 0.0) * np.eye(k)
        K = (K + K.T) / 2
        out.append(SVC(kernel="precomputed", C=C).fit(K, yl).predict(s[None])[0])
    return np.array(out)


@pytest.fixture(scope="module")
def problem():
    S, y = _blobs_problem()
    assert np.linalg.eigvalsh(S).min() < -1.0  # really indefinite
    return _split(S, y, 100)


@pytest.mark.parametrize("spectrum", ["clip", "flip", "shift"])
def test_matches_reference(spectrum):
    S, y = _blobs_problem(seed=3, n=60, noise=3.0, sep=1.5)
    S_tr, y_tr, S_te, _ = _split(S, y, 40, seed=4)
    S_tr = S_tr + 0.05 * np.random.default_rng(5).standard_normal(S_tr.shape)  # asymm.
    k, C = 9, 0.7
    with pytest.warns(UserWarning, match="asymmetric"):
        est = SVMKNN(n_neighbors=k, C=C, spectrum=spectrum, normalize=False).fit(S_tr, y_tr)
    ref = _reference_predict(S_tr, y_tr, S_te, k, C, spectrum)
    pred = est.predict(S_te)
    # non-trivial: many mixed neighbourhoods, each solved by a local SVM
    nb = np.argsort(-S_te, axis=1, kind="stable")[:, :k]
    mixed = (y_tr[nb] != y_tr[nb][:, :1]).any(1)
    assert mixed.sum() >= 10
    np.testing.assert_array_equal(pred, ref)


def test_reference_differs_between_spectra_somewhere():
    """The spectrum option really changes the local problems."""
    S, y = _blobs_problem(seed=3, n=60, noise=3.0, sep=1.5)
    S_tr, y_tr, S_te, _ = _split(S, y, 40, seed=4)
    est = SVMKNN(n_neighbors=9).fit(S_tr, y_tr)
    K = {}
    for sp in ("clip", "flip", "shift"):
        idx = np.argsort(-S_te, axis=1, kind="stable")[:, :9]
        sims = np.take_along_axis(S_te, idx, 1)
        K[sp] = est._local_problems(idx, sims, sp)
    assert not np.allclose(K["clip"][0], K["flip"][0])
    assert not np.allclose(K["clip"][1], K["shift"][1])  # P s != s
    for sp in K:  # every local kernel is PSD
        assert np.linalg.eigvalsh(K[sp][0]).min() > -1e-8 * np.abs(K[sp][0]).max()


def test_pure_neighbourhoods_skip_svm(monkeypatch):
    # two well-separated classes: every 3-neighbourhood is pure
    S = np.kron(np.eye(2), np.ones((5, 5))) + 0.01 * np.eye(10)
    y = np.repeat(["a", "b"], 5)
    est = SVMKNN(n_neighbors=3).fit(S, y)

    def boom(*a, **kw):
        raise AssertionError("no SVM may be trained on a pure neighbourhood")

    monkeypatch.setattr(svm_knn_mod, "small_svc", boom)
    S_te = np.array([[1.0] * 5 + [0.0] * 5, [0.0] * 5 + [1.0] * 5])
    np.testing.assert_array_equal(est.predict(S_te), ["a", "b"])


def test_single_neighbour_is_1nn(problem):
    S_tr, y_tr, S_te, _ = problem
    pred = SVMKNN(n_neighbors=1).fit(S_tr, y_tr).predict(S_te)
    np.testing.assert_array_equal(pred, y_tr[np.argmax(S_te, axis=1)])


@pytest.mark.parametrize("spectrum", ["clip", "flip", "shift"])
def test_accuracy_on_indefinite_problem(problem, spectrum):
    S_tr, y_tr, S_te, y_te = problem
    est = SVMKNN(n_neighbors=10, C=1.0, spectrum=spectrum).fit(S_tr, y_tr)
    assert est.score(S_te, y_te) > 0.8  # chance is 1/3


def test_deterministic_and_string_labels(problem):
    S_tr, y_tr, S_te, _ = problem
    names = np.array(["x", "y", "z"])
    p1 = SVMKNN(7).fit(S_tr, names[y_tr]).predict(S_te)
    p2 = SVMKNN(7).fit(S_tr, names[y_tr]).predict(S_te)
    p3 = SVMKNN(7).fit(S_tr, y_tr).predict(S_te)
    np.testing.assert_array_equal(p1, p2)
    np.testing.assert_array_equal(p1, names[p3])


def test_chunking_does_not_change_result(problem, monkeypatch):
    S_tr, y_tr, S_te, _ = problem
    est = SVMKNN(8).fit(S_tr, y_tr)
    full = est.predict(S_te)
    monkeypatch.setattr(proxlearn.base, "CHUNK_BYTES", 1)
    np.testing.assert_array_equal(est.predict(S_te), full)


def test_grid_search_equals_hand_loop(problem):
    S_tr, y_tr, _, _ = problem
    S, y = S_tr[:60, :60], y_tr[:60]
    grid = {"n_neighbors": [3, 8], "C": [0.1, 10.0]}
    cv = KFold(3, shuffle=True, random_state=0)
    gs = GridSearchCV(SVMKNN(), grid, cv=cv).fit(S, y)
    for i, params in enumerate(gs.cv_results_["params"]):
        accs = []
        for tr, te in cv.split(S):
            est = SVMKNN(**params).fit(S[np.ix_(tr, tr)], y[tr])
            accs.append(np.mean(est.predict(S[np.ix_(te, tr)]) == y[te]))
        assert gs.cv_results_["mean_test_score"][i] == pytest.approx(np.mean(accs))


def test_clone_pickle_params(problem):
    S_tr, y_tr, S_te, _ = problem
    est = SVMKNN(n_neighbors=5, C=2.0, spectrum="flip")
    assert est.get_params() == {"n_neighbors": 5, "C": 2.0, "spectrum": "flip",
                                "normalize": True}
    c = clone(est).set_params(C=3.0)
    assert c.C == 3.0 and est.C == 2.0
    est.fit(S_tr, y_tr)
    est2 = pickle.loads(pickle.dumps(est))
    np.testing.assert_array_equal(est2.predict(S_te), est.predict(S_te))
    np.testing.assert_array_equal(est.classes_, [0, 1, 2])
    assert est.n_features_in_ == S_tr.shape[0]


def test_bad_input(problem):
    S_tr, y_tr, S_te, _ = problem
    with pytest.raises(InvalidParameterError, match="larger than the training set"):
        SVMKNN(n_neighbors=101).fit(S_tr, y_tr)
    with pytest.raises(InvalidParameterError, match="C must be"):
        SVMKNN(C=0.0).fit(S_tr, y_tr)
    with pytest.raises(InvalidParameterError, match="spectrum"):
        SVMKNN(spectrum="pinv").fit(S_tr, y_tr)
    with pytest.raises(InvalidParameterError, match="n_neighbors"):
        SVMKNN(n_neighbors=2.5).fit(S_tr, y_tr)
    with pytest.raises(InvalidParameterError, match="n_neighbors .*'auto'"):
        SVMKNN(n_neighbors="best").fit(S_tr, y_tr)
    with pytest.raises(InvalidParameterError, match="normalize"):
        SVMKNN(normalize="yes").fit(S_tr, y_tr)
    with pytest.raises(LabelError, match="class"):
        SVMKNN(3).fit(S_tr, np.zeros(len(y_tr)))
    est = SVMKNN(3).fit(S_tr, y_tr)
    with pytest.raises(TestMatrixError, match="columns"):
        est.predict(S_te[:, :-1])


def test_constant_test_row(problem):
    """A test row of all-equal similarities takes the k lowest indices."""
    S_tr, y_tr, _, _ = problem
    est = SVMKNN(5).fit(S_tr, y_tr)
    row = np.ones((1, S_tr.shape[0]))
    pred = est.predict(row)
    np.testing.assert_array_equal(pred, _reference_predict(S_tr, y_tr, row, 5, 1.0, "clip"))


def test_check_estimator():
    check_estimator(SVMKNN(n_neighbors=3), expected_failed_checks=SKLEARN_CHECK_EXCEPTIONS)


def test_public_export():
    import proxlearn.neighbors as nb

    assert nb.SVMKNN is SVMKNN and "SVMKNN" in nb.__all__


@pytest.mark.parametrize("spectrum", ["clip", "flip", "shift"])
def test_all_training_samples_is_one_global_svm(spectrum):
    """k = n_train takes the one-SVM shortcut; it must agree with the per-point loop."""
    S, y = _blobs_problem(seed=3, n=60, noise=3.0, sep=1.5)
    S_tr, y_tr, S_te, _ = _split(S, y, 40, seed=4)
    est = SVMKNN(n_neighbors=40, C=0.7, spectrum=spectrum, normalize=False).fit(S_tr, y_tr)
    ref = _reference_predict(S_tr, y_tr, S_te, 40, 0.7, spectrum)
    np.testing.assert_array_equal(est.predict(S_te), ref)
    path = est._predict_path(*svm_knn_mod.top_k_similar(S_te, 40), [0.7, 1e3], spectrum)
    np.testing.assert_array_equal(est.classes_[path[0]], ref)
    big = SVMKNN(n_neighbors=40, C=1e3, spectrum=spectrum, normalize=False).fit(S_tr, y_tr)
    np.testing.assert_array_equal(est.classes_[path[1]], big.predict(S_te))



# ------------------------------------------------------------- defaults (issue 40)

def test_auto_k_is_the_inner_cv_choice():
    S, y = _blobs_problem(seed=3, n=150, noise=3.0, sep=1.5)
    S_tr, y_tr, S_te, _ = _split(S, y, 100)
    est = SVMKNN().fit(S_tr, y_tr)
    keys = list(est.cv_scores_)
    assert keys[-1] == "all" and all(k < 100 for k in keys[:-1])
    best = max(est.cv_scores_.values())
    chosen = "all" if est.n_neighbors_ == 100 else est.n_neighbors_
    assert est.cv_scores_[chosen] == best
    fixed = SVMKNN(n_neighbors=est.n_neighbors_).fit(S_tr, y_tr)
    np.testing.assert_array_equal(est.predict(S_te), fixed.predict(S_te))
    assert SVMKNN(n_neighbors=7).fit(S_tr, y_tr).cv_scores_ is None


def test_auto_k_beats_the_former_fixed_default_on_protein(load_uw):
    """On Protein the 10 most similar samples mislead (k-NN about 48 %, SVM-KNN at
    k = 10 about 56 % on the defaults panel); the inner CV picks a large k."""
    S, y = load_uw("protein")
    S_tr, y_tr, S_te, y_te = _split(S, y, 150, seed=0)
    auto = SVMKNN().fit(S_tr, y_tr)
    k10 = SVMKNN(n_neighbors=10).fit(S_tr, y_tr).score(S_te, y_te)
    assert auto.n_neighbors_ > 10
    assert auto.score(S_te, y_te) >= k10 + 0.2


def test_normalize_makes_C_scale_free(problem):
    S_tr, y_tr, S_te, _ = problem
    c = np.trace(S_tr) / len(y_tr)
    assert abs(c - 1.0) > 0.5  # not unit scale: normalize matters
    est = SVMKNN(n_neighbors=15, C=0.05).fit(S_tr, y_tr)
    assert est.scale_ == pytest.approx(c)
    ref = SVMKNN(n_neighbors=15, C=0.05, normalize=False).fit(S_tr / c, y_tr)
    np.testing.assert_array_equal(est.predict(S_te), ref.predict(S_te / c))
    for factor in (1e-3, 1e3):
        scaled = SVMKNN(n_neighbors=15, C=0.05).fit(factor * S_tr, y_tr)
        np.testing.assert_array_equal(scaled.predict(factor * S_te), est.predict(S_te))


def test_auto_k_without_a_stratified_split_falls_back_to_ten(problem):
    """A class with a single sample admits no stratified inner split: k = min(10, n)."""
    S_tr, y_tr, S_te, _ = problem
    y = y_tr.copy()
    y[0] = 7  # a singleton class
    est = SVMKNN().fit(S_tr, y)
    assert est.n_neighbors_ == 10 and est.cv_scores_ is None
    assert est.predict(S_te).shape == (S_te.shape[0],)
    small = SVMKNN().fit(S_tr[:6, :6], [0, 1, 0, 1, 0, 2])
    assert small.n_neighbors_ == 6


@pytest.mark.parametrize("normalize", [True, False])
def test_predict_path_equals_one_fit_per_C(normalize):
    """The grid-path protocol: entry i is what set_params(C=C[i]) predicts."""
    from proxlearn._graph import top_k_similar

    S, y = _blobs_problem(seed=3, n=90, noise=2.0, sep=1.5)
    S_tr, y_tr, S_te, _ = _split(S, y, 60)
    Cs = [0.01, 1.0, 100.0]
    for k in (5, 60):
        model = SVMKNN(n_neighbors=k, normalize=normalize).fit(S_tr, y_tr)
        path = model.predict_path(*top_k_similar(S_te, k), C=Cs)
        for C, pred in zip(Cs, path, strict=True):
            np.testing.assert_array_equal(pred, clone(model).set_params(C=C).fit(S_tr, y_tr)
                                          .predict(S_te))
    with pytest.raises(InvalidParameterError, match="same shape"):
        model.predict_path(np.zeros((2, 3), int), np.zeros((2, 4)), C=[1.0])
