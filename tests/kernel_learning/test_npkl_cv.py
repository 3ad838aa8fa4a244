"""SimpleNPKLCV: C by cross-validation over the constraints; one graph; refit; errors."""

import numpy as np
import pytest
from sklearn.datasets import load_iris
from sklearn.preprocessing import StandardScaler

from proxlearn.cluster import PairwiseConstraints, make_pairwise_constraints
from proxlearn.exceptions import InvalidParameterError
from proxlearn.kernel_learning import SimpleNPKL, SimpleNPKLCV, held_out_auc
from proxlearn._cv import cv_folds


def _iris(r=0.3):
    X, y = load_iris(return_X_y=True)
    X = StandardScaler().fit_transform(X[::2])
    y = y[::2]
    return X, y, make_pairwise_constraints(y, r=r, random_state=0)


def test_scores_are_those_of_cold_fits_on_the_training_pairs():
    X, y, pc = _iris()
    Cs = [0.1, 1.0, 3.0]
    est = SimpleNPKLCV(Cs=Cs, cv=3).fit(X, pc)
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
    import proxlearn.kernel_learning._npkl as npkl

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
        SimpleNPKLCV(cv=2).fit(X, few)
    with pytest.raises(InvalidParameterError, match="no pairwise constraints"):
        SimpleNPKLCV().fit(X, None)
    # a callable score
    est = SimpleNPKLCV(Cs=[1.0], cv=2, scoring=lambda K, p, lab: 0.25).fit(X, pc)
    assert est.best_score_ == 0.25
