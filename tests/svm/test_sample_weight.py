"""sample_weight where the solver supports it (issue #14, section 5)."""

import numpy as np
import pytest
from sklearn.base import clone

from proxlearn.exceptions import InvalidParameterError
from proxlearn.kernel_learning import BaseKernelSVC
from proxlearn.neighbors import SVMKNN, SimilarityKNeighborsClassifier
from proxlearn.svm import SimilarityFeatureSVC, SimilaritySVC


def _psd_problem(seed=0, n=24):
    """A PSD linear kernel: clip leaves it unchanged, so repeating a sample in the
    matrix is exactly repeating it in the SVM."""
    rng = np.random.default_rng(seed)
    y = np.repeat([0, 1], n // 2)
    X = rng.normal(size=(n, 3)) + 1.2 * (2 * y[:, None] - 1)
    Xt = rng.normal(size=(10, 3))
    return X, y, Xt


# normalize=False: repeating samples changes tr S / n, the default's scale
@pytest.mark.parametrize("est", [SimilaritySVC(C=0.5, normalize=False),
                                 SimilaritySVC("flip", C=2.0, normalize=False)],
                         ids=["clip", "flip"])
def test_integer_weights_equal_repeated_samples(est):
    X, y, Xt = _psd_problem()
    w = np.ones(len(y), dtype=int)
    w[[0, 5, 13]] = [2, 3, 2]
    rep = np.repeat(np.arange(len(y)), w)
    weighted = clone(est).fit(X @ X.T, y, sample_weight=w)
    repeated = clone(est).fit(X[rep] @ X[rep].T, y[rep])
    f_w = weighted.decision_function(Xt @ X.T)
    f_r = repeated.decision_function(Xt @ X[rep].T)
    np.testing.assert_allclose(f_w, f_r, rtol=1e-4, atol=1e-4 * np.abs(f_r).max())


@pytest.mark.parametrize("make", [SimilaritySVC, BaseKernelSVC, SimilarityFeatureSVC])
def test_zero_weight_never_reads_wrong_columns(make):
    """scikit-learn's precomputed SVC drops weight-0 samples and then indexes the
    reduced problem: its decision values on full test kernels were wrong (by 4.6 here).
    Expected: the SVM of the positive-weight samples on the same kernel."""
    from sklearn.svm import SVC

    X, y, Xt = _psd_problem(1)
    S, S_te = X @ X.T, Xt @ X.T
    w = np.ones(len(y))
    w[[2, 20]] = 0.0
    keep = w > 0
    model = make(C=1.0).fit(S, y, sample_weight=w)
    scale = getattr(model, "scale_", 1.0)  # the transformer reads S / scale_
    K = model.transformer_.transform(S / scale)
    K_te = model.transformer_.transform(S_te / scale)
    ref = SVC(kernel="precomputed", C=1.0).fit(K[np.ix_(keep, keep)], y[keep])
    np.testing.assert_allclose(model.decision_function(S_te), ref.decision_function(K_te[:, keep]),
                               rtol=1e-10, atol=1e-10)


def test_zero_weight_drops_the_sample():
    X, y, Xt = _psd_problem(1)
    w = np.ones(len(y))
    w[[2, 20]] = 0.0
    keep = w > 0
    # normalize=False: dropping samples changes tr S / n, the default's scale
    weighted = SimilaritySVC(C=1.0, normalize=False).fit(X @ X.T, y, sample_weight=w)
    dropped = SimilaritySVC(C=1.0, normalize=False).fit(X[keep] @ X[keep].T, y[keep])
    np.testing.assert_allclose(weighted.decision_function(Xt @ X.T),
                               dropped.decision_function(Xt @ X[keep].T), rtol=1e-4, atol=1e-5)


def test_feature_svc_weights_change_the_fit():
    X, y, Xt = _psd_problem(2)
    S = X @ X.T
    w = np.where(y == 1, 10.0, 0.1)
    plain = SimilarityFeatureSVC(C=0.01).fit(S, y)
    heavy = SimilarityFeatureSVC(C=0.01).fit(S, y, sample_weight=w)
    # class 1 weighted up: more test rows go to class 1
    assert (heavy.predict(Xt @ X.T) == 1).sum() >= (plain.predict(Xt @ X.T) == 1).sum()
    assert not np.allclose(heavy.decision_function(Xt @ X.T), plain.decision_function(Xt @ X.T))


@pytest.mark.parametrize("weights", ["uniform", "affinity", "kri", "krr"])
def test_knn_votes_are_scaled_by_sample_weight(weights):
    X, y, Xt = _psd_problem(3)
    S = X @ X.T + 5.0 * np.eye(len(y))
    S_te = Xt @ X.T
    w = np.random.default_rng(0).uniform(0.0, 3.0, len(y))
    k = 5
    plain = SimilarityKNeighborsClassifier(n_neighbors=k, weights=weights).fit(S, y)
    weighted = SimilarityKNeighborsClassifier(n_neighbors=k, weights=weights).fit(
        S, y, sample_weight=w)
    nbrs, _ = plain.kneighbors(S_te)
    # the neighbour weights W of the plain model, recovered from its eq. (9) scores
    from proxlearn._graph import top_k_similar

    idx, sims = top_k_similar(S_te, k)
    W = plain._weights(idx, sims)
    votes = np.maximum(W * w[idx], 0.0)
    expected = np.column_stack([(votes * (y[idx] == c)).sum(axis=1) for c in (0, 1)])
    expected /= expected.sum(axis=1, keepdims=True)
    np.testing.assert_allclose(weighted.predict_proba(S_te), expected, atol=1e-12)


def test_sample_weight_validation():
    X, y, _ = _psd_problem()
    S = X @ X.T
    with pytest.raises(InvalidParameterError, match="two classes need a positive weight"):
        SimilaritySVC().fit(S, y, sample_weight=(y == 0).astype(float))
    for bad, match in [(np.ones(len(y) - 1), "vector of 24 weights"),
                       (np.r_[-1.0, np.ones(len(y) - 1)], "finite and >= 0; positions 0"),
                       (np.r_[np.nan, np.ones(len(y) - 1)], "positions 0"),
                       (np.zeros(len(y)), "zero for every sample")]:
        with pytest.raises(InvalidParameterError, match=match):
            SimilaritySVC().fit(S, y, sample_weight=bad)
    with pytest.raises(TypeError, match="sample_weight"):  # not supported: no such argument
        SVMKNN(n_neighbors=3).fit(S, y, sample_weight=np.ones(len(y)))


def test_weighted_probability_cv_uses_the_weights():
    X, y, Xt = _psd_problem(4, n=40)
    S = X @ X.T
    w = np.where(y == 1, 5.0, 1.0)
    a = SimilaritySVC(probability=True, random_state=0).fit(S, y, sample_weight=w)
    b = SimilaritySVC(probability=True, random_state=0).fit(S, y)
    assert not np.allclose(a.probB_, b.probB_)


def test_sda_integer_weights_equal_repeated_samples():
    from proxlearn.discriminant import SimilarityDiscriminantAnalysis

    rng = np.random.default_rng(5)
    y = np.repeat([0, 1, 2], 8)
    X = rng.normal(size=(24, 2)) + 2.0 * np.eye(3)[y][:, :2]
    S = np.exp(-np.square(X[:, None] - X[None]).sum(-1))
    S_te = np.exp(-np.square(rng.normal(size=(12, 2))[:, None] - X[None]).sum(-1))
    w = rng.integers(1, 4, size=24)
    rep = np.repeat(np.arange(24), w)
    weighted = SimilarityDiscriminantAnalysis().fit(S, y, sample_weight=w)
    repeated = SimilarityDiscriminantAnalysis().fit(S[np.ix_(rep, rep)], y[rep])
    np.testing.assert_array_equal(rep[repeated.centroids_], weighted.centroids_)
    np.testing.assert_allclose(weighted.predict_proba(S_te), repeated.predict_proba(S_te[:, rep]),
                               rtol=1e-9, atol=1e-12)
    # weight 0 = dropping, once the support is fixed
    w0 = np.ones(24)
    w0[[1, 9, 17]] = 0
    keep = w0 > 0
    a = SimilarityDiscriminantAnalysis(similarity_range=(0, 1)).fit(S, y, sample_weight=w0)
    b = SimilarityDiscriminantAnalysis(similarity_range=(0, 1)).fit(S[np.ix_(keep, keep)], y[keep])
    np.testing.assert_allclose(a.predict_proba(S_te), b.predict_proba(S_te[:, keep]), rtol=1e-9)
    with pytest.raises(InvalidParameterError, match=r"class\(es\) \[2\]"):
        SimilarityDiscriminantAnalysis().fit(S, y, sample_weight=(y < 2).astype(float))


@pytest.mark.parametrize("spectrum", ["clip", "flip", "shift"])
def test_weights_act_on_the_svm_of_the_whole_matrix_transform(spectrum):
    """What holds exactly on an indefinite matrix (issue #39, item 2.3): the fit is an
    SVM with C_i = C w_i on the kernel the transform makes of the whole matrix, weight-0
    samples included in the transform and left out of the SVM."""
    from sklearn.svm import SVC

    rng = np.random.default_rng(4)
    n = 30
    y = np.repeat([0, 1], n // 2)
    X = rng.normal(size=(n, 3)) + 1.0 * (2 * y[:, None] - 1)
    E = rng.normal(scale=0.6, size=(n, n))
    S = X @ X.T + (E + E.T) / 2
    assert np.linalg.eigvalsh(S)[0] < -0.1  # indefinite
    S_te = rng.normal(size=(8, 3)) @ X.T
    w = rng.uniform(0.2, 3.0, n)
    w[[3, 17]] = 0.0
    model = SimilaritySVC(spectrum, C=0.7).fit(S, y, sample_weight=w)
    K = model.transformer_._training_kernel()
    K_te = model.transformer_.transform(S_te / model.scale_)  # fitted on S / scale_
    keep = w > 0
    ref = SVC(kernel="precomputed", C=0.7, tol=1e-3).fit(
        K[np.ix_(keep, keep)], y[keep], sample_weight=w[keep])
    np.testing.assert_allclose(model.decision_function(S_te), ref.decision_function(K_te[:, keep]),
                               rtol=1e-8, atol=1e-8)
