"""SimpleNPKLCV: C by cross-validation over the constraints; one graph; refit; errors."""

import numpy as np
import pytest
from sklearn.datasets import load_iris
from sklearn.preprocessing import StandardScaler

from proxlearn.cluster import (PairwiseConstraints, SimpleNPKL, SimpleNPKLCV,
                               constraint_groups, held_out_agreement, held_out_auc,
                               make_pairwise_constraints)
from proxlearn.exceptions import InvalidParameterError
from proxlearn._cv import cv_folds


def _iris(r=0.3):
    X, y = load_iris(return_X_y=True)
    X = StandardScaler().fit_transform(X[::2])
    y = y[::2]
    return X, y, make_pairwise_constraints(y, r=r, random_state=0)


def test_scores_are_those_of_cold_fits_on_the_training_pairs():
    X, y, pc = _iris()
    Cs = [0.1, 1.0, 3.0]
    est = SimpleNPKLCV(Cs=Cs, cv=3, scoring="auc").fit(X, pc)
    for k, (tr, te) in enumerate(cv_folds(3, pc.labels)):
        train = PairwiseConstraints(pc.pairs[tr], pc.labels[tr], pc.n)
        for i, C in enumerate(Cs):
            K = SimpleNPKL(C=C).fit_transform(X, train)
            # warm-started dual ascent stops on the same certified gap (tol=1e-4)
            assert est.cv_results_[f"split{k}_test_score"][i] == pytest.approx(
                held_out_auc(K, pc.pairs[te], pc.labels[te]), abs=2e-3)
    ref = SimpleNPKL(C=est.best_C_).fit_transform(X, pc)
    np.testing.assert_allclose(est.kernel_, ref, atol=1e-10)
    assert est.best_params_ == {"C": est.best_C_} and est.best_C_ in Cs
    assert est.fit_transform(X, pc).shape == (len(y), len(y))


def test_the_graph_is_built_once(monkeypatch):
    import proxlearn.cluster._npkl as npkl

    calls = []
    real = npkl.knn_laplacian
    monkeypatch.setattr(npkl, "knn_laplacian", lambda *a, **k: calls.append(1) or real(*a, **k))
    X, _, pc = _iris()
    SimpleNPKLCV(Cs=[0.1, 1.0], cv=3).fit(X, pc)
    assert len(calls) == 1 + 1  # the walk's (6 fits), the refit's


def test_held_out_auc():
    y = np.array([0, 0, 1, 1])
    K = (y[:, None] == y[None, :]).astype(float) + 0.1
    pairs = np.array([[0, 1], [2, 3], [0, 2], [1, 3]])
    labels = np.array([1, 1, -1, -1])
    assert held_out_auc(K, pairs, labels) == 1.0
    assert held_out_auc(K, pairs, -labels) == 0.0


@pytest.mark.filterwarnings("ignore:The least populated class")
def test_errors():
    X, y, pc = _iris()
    with pytest.raises(InvalidParameterError, match="scoring"):
        SimpleNPKLCV(scoring="accuracy").fit(X, pc)
    with pytest.raises(InvalidParameterError, match="Cs must be a non-empty"):
        SimpleNPKLCV(Cs=[0.0]).fit(X, pc)
    few = PairwiseConstraints(pc.pairs[:6], np.array([1, 1, 1, 1, 1, -1]), pc.n)
    with pytest.raises(InvalidParameterError, match="must-links and cannot-links"):
        SimpleNPKLCV(cv=2, scoring="auc").fit(X, few)
    with pytest.raises(InvalidParameterError, match="no pairwise constraints"):
        SimpleNPKLCV().fit(X, None)
    # a callable score
    est = SimpleNPKLCV(Cs=[1.0], cv=2, scoring=lambda K, p, lab: 0.25).fit(X, pc)
    assert est.best_score_ == 0.25


# --- the clustering score (issue 40 item 4: the CV variant at least as good as the default)


def _iris_full(seed, r=0.7):
    X, y = load_iris(return_X_y=True)
    return StandardScaler().fit_transform(X), y, make_pairwise_constraints(
        y, r=r, random_state=seed)


def _rand(y, K, normalize="cosine"):
    from proxlearn.cluster import KernelKMeans, rand_index

    return rand_index(y, KernelKMeans(len(np.unique(y)), normalize=normalize,
                                      random_state=0).fit_predict(K))


def test_defaults_cluster_at_least_as_well_as_simple_npkl_defaults():
    # failed before the clustering score: the kernel-cosine AUC preferred C = 0.3 on
    # these draws, where the kernel k-means clustering is worse than at C = 1
    cv, default = [], []
    for seed in range(3):
        X, y, pc = _iris_full(seed)
        cv.append(_rand(y, SimpleNPKLCV(random_state=0).fit(X, pc).kernel_))
        default.append(_rand(y, SimpleNPKL().fit_transform(X, pc)))
    assert np.mean(cv) >= np.mean(default)


def test_leaves_a_collapsing_C_on_the_normalised_laplacian():
    # laplacian="normalized" collapses at C = 1 (one cluster for Lloyd's kernel k-means;
    # clustering by direction, the default, recovers part of it): the held-out agreement
    # shows it and the CV moves to the C that clusters
    X, y, pc = _iris_full(0)
    Cs = (0.03, 0.1, 0.3, 1.0)
    est = SimpleNPKLCV(Cs=Cs, laplacian="normalized", random_state=0).fit(X, pc)
    K_1 = SimpleNPKL(laplacian="normalized").fit_transform(X, pc)
    assert est.best_C_ < 1.0
    assert _rand(y, est.kernel_, None) > _rand(y, K_1, None) + 20
    assert _rand(y, est.kernel_) > _rand(y, K_1) + 10


def test_agreement_scores_are_those_of_cold_fits_and_the_choice_is_their_best():
    X, y, pc = _iris()
    Cs = [0.1, 1.0, 3.0]
    est = SimpleNPKLCV(Cs=Cs, cv=3, n_clusters=3, n_std_errors=0.0, random_state=1).fit(X, pc)
    seed = est._kmeans_seed
    for k, (tr, te) in enumerate(cv_folds(3, pc.labels)):
        train = PairwiseConstraints(pc.pairs[tr], pc.labels[tr], pc.n)
        for i, C in enumerate(Cs):
            K = SimpleNPKL(C=C).fit_transform(X, train)
            assert est.cv_results_[f"split{k}_test_score"][i] == pytest.approx(
                held_out_agreement(K, pc.pairs[te], pc.labels[te], 3, seed), abs=1e-12)
    mean = est.cv_results_["mean_test_score"]
    assert est.best_score_ == mean.max() == mean[est.best_index_]
    # deterministic given random_state
    again = SimpleNPKLCV(Cs=Cs, cv=3, n_clusters=3, n_std_errors=0.0, random_state=1).fit(X, pc)
    np.testing.assert_array_equal(again.cv_results_["mean_test_score"], mean)
    np.testing.assert_array_equal(again.kernel_, est.kernel_)


def test_held_out_agreement():
    K = np.kron(np.eye(2), np.ones((3, 3))) + 1e-3 * np.eye(6)  # two blocks of three
    pairs = np.array([[0, 1], [3, 5], [0, 3], [2, 4]])
    assert held_out_agreement(K, pairs, np.array([1, 1, -1, -1]), 2, 0) == 1.0
    assert held_out_agreement(K, pairs, np.array([1, -1, -1, 1]), 2, 0) == 0.5


def test_the_default_C_is_kept_unless_another_is_better_beyond_the_noise():
    from proxlearn.cluster._npkl_cv import _choose

    def res(folds):
        folds = np.asarray(folds, float)
        out = {"param_C": np.array([0.1, 1.0, 3.0]), "mean_test_score": folds.mean(1)}
        out.update({f"split{k}_test_score": folds[:, k] for k in range(folds.shape[1])})
        return out
    noisy = res([[0.9, 0.7, 0.9, 0.7], [0.7, 0.8, 0.8, 0.7], [0.5] * 4])  # 0.8 vs 0.75
    assert _choose(noisy, 2.0, 0.25) == 1 and _choose(noisy, 0.0, 0.25) == 0
    clear = res([[0.9, 0.91, 0.92, 0.9], [0.5, 0.52, 0.5, 0.51], [0.5] * 4])
    assert _choose(clear, 2.0, 0.25) == 0
    tie = res([[0.8] * 4, [0.8] * 4, [0.8] * 4])
    assert _choose(tie, 0.0, 0.25) == 1  # ties: the default C


def test_number_of_clusters_from_the_constraints():
    X, y, pc = _iris(r=0.3)  # many constraints: every class met
    assert constraint_groups(pc) == 3
    assert SimpleNPKLCV(Cs=[1.0], cv=3).fit(X, pc).n_clusters_ == 3
    assert SimpleNPKLCV(Cs=[1.0], cv=3, n_clusters=4).fit(X, pc).n_clusters_ == 4
    # must-links only: no cannot-link asks for a second group, still 2 (k-means' minimum)
    ml = PairwiseConstraints(np.array([[0, 1], [1, 2]]), np.array([1, 1]), 5)
    assert constraint_groups(ml) == 2
    # a cannot-link triangle between chunklets {0, 1}, {2}, {3}
    tri = PairwiseConstraints(np.array([[0, 1], [1, 2], [0, 3], [2, 3]]),
                              np.array([1, -1, -1, -1]), 5)
    assert constraint_groups(tri) == 3


@pytest.mark.parametrize("bad", [0, 1, 2.5, "3", True, 76])
def test_bad_n_clusters(bad):
    X, _, pc = _iris()  # 75 points
    with pytest.raises(InvalidParameterError, match="n_clusters"):
        SimpleNPKLCV(Cs=[1.0], cv=3, n_clusters=bad).fit(X, pc)


@pytest.mark.parametrize("bad", [-1.0, "two", np.nan])
def test_bad_n_std_errors(bad):
    X, _, pc = _iris()
    with pytest.raises(InvalidParameterError, match="n_std_errors"):
        SimpleNPKLCV(Cs=[1.0], cv=3, n_std_errors=bad).fit(X, pc)


@pytest.mark.parametrize("bad", [{"metric": "cosine"}, {"laplacian": "random-walk"},
                                 {"n_neighbors": 0}, {"loss": "logistic"}, {"max_iter": 0},
                                 {"B": -1.0}, {"scoring": "accuracy"}])
def test_the_table_refuses_bad_parameters_before_any_graph(bad, monkeypatch):
    """SimpleNPKLCV validates its parameters once, by its table (issue 36): an option of
    the SimpleNPKL it fits is refused, named, before the graph of the walk is built."""
    import proxlearn.cluster._npkl as npkl

    assert set(SimpleNPKLCV._parameter_constraints) == set(SimpleNPKLCV().get_params())
    calls = []
    monkeypatch.setattr(npkl, "knn_laplacian", lambda *a, **k: calls.append(1))
    X, _, pc = _iris()
    with pytest.raises(InvalidParameterError, match=f"^{next(iter(bad))}"):
        SimpleNPKLCV(Cs=[1.0], cv=3, **bad).fit(X, pc)
    assert calls == []
