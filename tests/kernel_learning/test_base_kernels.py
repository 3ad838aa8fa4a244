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
