"""The direct libsvm path of the local SVMs equals sklearn's SVC exactly."""

import numpy as np
import pytest
from sklearn.svm import SVC

from proxlearn._svm import _libsvm
from proxlearn._svm._libsvm import small_svc


def _problem(seed, n=24, m=9, n_classes=2):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n + m, 3))
    y = rng.integers(0, n_classes, size=n)
    y[:n_classes] = np.arange(n_classes)  # every class present
    X[:n] += y[:, None]  # some signal, some overlap
    K = X @ X.T
    return K[:n, :n], y, K[n:, :n]


@pytest.mark.parametrize("n_classes", [2, 3])
@pytest.mark.parametrize("C", [1e-3, 1.0, 1e3])
def test_matches_svc(n_classes, C):
    for seed in range(4):
        K, y, K_test = _problem(seed, n_classes=n_classes)
        pred, max_dual = small_svc(K, y, K_test, C)
        ref = SVC(kernel="precomputed", C=C).fit(K, y)
        assert np.array_equal(pred, ref.predict(K_test))
        assert max_dual == pytest.approx(np.abs(ref.dual_coef_).max(), rel=1e-12)
        assert max_dual <= C * (1 + 1e-12)


def test_fallback_to_svc_gives_the_same(monkeypatch):
    K, y, K_test = _problem(7, n_classes=3)
    fast = small_svc(K, y, K_test, 10.0)
    monkeypatch.setattr(_libsvm, "_use_binding", False)
    slow = small_svc(K, y, K_test, 10.0)
    assert np.array_equal(fast[0], slow[0]) and fast[1] == pytest.approx(slow[1])
