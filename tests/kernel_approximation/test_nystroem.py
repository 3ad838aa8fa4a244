"""NystroemSpectrum: linear-cost spectrum correction through landmark columns."""

import pickle
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.base import clone
from sklearn.exceptions import NotFittedError
from sklearn.model_selection import StratifiedKFold, cross_val_score
from sklearn.pipeline import make_pipeline
from sklearn.svm import SVC, LinearSVC

from proxlearn.datasets import make_wine_sigmoid
from proxlearn.exceptions import (
    AsymmetricSimilarityWarning,
    DissimilarityWarning,
    InvalidParameterError,
    SimilarityMatrixError,
    TestMatrixError,
)
from proxlearn.kernel_approximation import LazySimilarity, NystroemSpectrum
from proxlearn.transforms import (
    DissimilarityToSimilarity,
    SpectrumTransformer,
    modify_spectrum,
)

METHODS = ["clip", "flip", "shift", "square"]


def indefinite(n=40, seed=0):
    """Random symmetric indefinite similarity with a dominant positive part."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, 4))
    E = rng.standard_normal((n, n))
    return X @ X.T + 0.8 * (E + E.T)


def low_rank(n=50, seed=0, spectrum=(5.0, 3.0, 1.5, -1.0, -2.5, -0.7)):
    """Symmetric indefinite matrix of rank len(spectrum)."""
    rng = np.random.default_rng(seed)
    A = rng.standard_normal((n, len(spectrum)))
    return (A * np.asarray(spectrum)) @ A.T


def dissimilarity(n=30, seed=0, noise=0.3):
    """Symmetric non-Euclidean dissimilarity with a zero diagonal."""
    rng = np.random.default_rng(seed)
    P = rng.standard_normal((n, 3))
    D = np.sqrt(((P[:, None] - P[None]) ** 2).sum(-1)) + noise * np.abs(rng.standard_normal((n, n)))
    D = (D + D.T) / 2
    np.fill_diagonal(D, 0.0)
    return D


def corrected_in_range(S, method):
    """The exact correction of the nonzero spectrum of S (shift inside the range)."""
    lam, U = np.linalg.eigh(S)
    tol = S.shape[0] * np.finfo(float).eps * np.abs(lam).max()
    nz = np.abs(lam) > tol
    nu, _ = modify_spectrum(lam[nz], method, tol)
    return (U[:, nz] * nu) @ U[:, nz].T


# --------------------------------------------------------- (1) m = n is exact
@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("landmarks", ["random", "kmeans++"])
def test_all_objects_as_landmarks_equal_spectrum_transformer(method, landmarks):
    S = indefinite()
    n = S.shape[0]
    est = NystroemSpectrum(method, n_components=n, landmarks=landmarks, random_state=0,
                           normalize=False)
    Phi = est.fit_transform(S)
    assert_array_equal(est.landmarks_, np.arange(n))
    # S is non-singular, so shift inside the range is S + delta I here
    K = SpectrumTransformer(method).fit_transform(S)
    assert_allclose(Phi @ Phi.T, K, atol=1e-8)
    assert_allclose(est.eigenvalues_, np.linalg.eigvalsh(S), atol=1e-9)
    ref = SpectrumTransformer(method).fit(S)
    if method == "shift":
        assert est.shift_ == pytest.approx(ref.shift_, abs=1e-9)
    # the test map of the full training rows reproduces the training features
    assert_allclose(est.transform(S), Phi, atol=1e-10)


@pytest.mark.parametrize("method", ["clip", "flip", "square"])
def test_dissimilarities_with_all_landmarks_equal_double_centering(method):
    D = dissimilarity()
    n = D.shape[0]
    est = NystroemSpectrum(method, n_components=n, kind="dissimilarity", random_state=0,
                           normalize=False)
    Phi = est.fit_transform(D)
    S = DissimilarityToSimilarity("double-centering").fit_transform(D)
    assert_allclose(Phi @ Phi.T, SpectrumTransformer(method).fit_transform(S), atol=1e-8)
    assert_allclose(est.transform(D), Phi, atol=1e-10)
    # Gower's out-of-sample rows: the test map agrees with the exact chain
    rng = np.random.default_rng(1)
    D_new = np.abs(D[:5] + 0.1 * rng.standard_normal((5, n)))
    S_new = DissimilarityToSimilarity("double-centering").fit(D).transform(D_new)
    exact = SpectrumTransformer(method).fit(S)
    assert_allclose(est.transform(D_new) @ Phi.T, exact.transform(S_new), atol=1e-8)


def test_dissimilarity_shift_is_the_shift_inside_the_range():
    # -1/2 J D^2 J is always singular (the constant vector): shift acts on its range
    D = dissimilarity()
    est = NystroemSpectrum("shift", n_components=D.shape[0], kind="dissimilarity", normalize=False)
    Phi = est.fit_transform(D)
    S = DissimilarityToSimilarity("double-centering").fit_transform(D)
    assert_allclose(Phi @ Phi.T, corrected_in_range(S, "shift"), atol=1e-8)
    assert_allclose(Phi.sum(axis=0), 0.0, atol=1e-9)  # centred features


def test_test_map_equals_spectrum_transformer_test_map_for_clip_and_flip():
    S = indefinite()
    n = S.shape[0]
    rng = np.random.default_rng(3)
    S_new = rng.standard_normal((7, n)) + S[:7]
    for method in ("clip", "flip"):
        est = NystroemSpectrum(method, n_components=n, normalize=False).fit(S)
        Phi = est.fit_transform(S)
        ref = SpectrumTransformer(method).fit(S)
        assert_allclose(est.transform(S_new) @ Phi.T, ref.transform(S_new), atol=1e-8)


# --------------------------------------------------- (2) low rank is exact
@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("landmarks", ["random", "kmeans++"])
def test_low_rank_indefinite_matrix_is_recovered_exactly(method, landmarks):
    S = low_rank()
    est = NystroemSpectrum(method, n_components=10, landmarks=landmarks, random_state=2,
                           normalize=False)
    Phi = est.fit_transform(S)
    assert est.eigenvalues_.size == 6  # rank 6 found from 10 columns
    assert_allclose(np.sort(est.eigenvalues_), np.linalg.eigvalsh(S)[[0, 1, 2, -3, -2, -1]],
                    rtol=1e-9, atol=1e-9)
    assert_allclose(Phi @ Phi.T, corrected_in_range(S, method), atol=1e-8)
    if method != "shift":  # clip/flip/square of a low-rank S: SpectrumTransformer itself
        assert_allclose(Phi @ Phi.T, SpectrumTransformer(method).fit_transform(S), atol=1e-8)
    # new objects in the same low-rank space get their exact corrected rows (for shift:
    # Gu & Guo's linear map, factor 1 on the null space, which these rows do not touch)
    coef = np.random.default_rng(5).standard_normal((4, S.shape[0]))
    S_new = coef @ S  # rows in the row space of S
    ref = SpectrumTransformer(method, test_transform="linear").fit(S)
    assert_allclose(est.transform(S_new) @ Phi.T, ref.transform(S_new), atol=1e-7)


def test_euclidean_dissimilarity_is_recovered_from_few_landmarks():
    # squared Euclidean distances in R^3 have rank <= 5: 8 landmarks suffice
    rng = np.random.default_rng(0)
    P = rng.standard_normal((60, 3))
    D = np.sqrt(((P[:, None] - P[None]) ** 2).sum(-1))
    est = NystroemSpectrum("clip", n_components=8, kind="dissimilarity", random_state=0,
                           normalize=False)
    Phi = est.fit_transform(D)
    S = DissimilarityToSimilarity("double-centering").fit_transform(D)
    assert_allclose(Phi @ Phi.T, S, atol=1e-8)  # S is the PSD Gram matrix of centred P
    assert Phi.shape[1] == 3


# ---------------------------------------- (3) the test map reproduces training rows
@settings(max_examples=150, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), n=st.integers(2, 25), frac=st.floats(0.05, 1.0),
       method=st.sampled_from(METHODS), kind=st.sampled_from(["similarity", "dissimilarity"]),
       landmarks=st.sampled_from(["random", "kmeans++"]))
def test_test_map_of_training_rows_reproduces_training_features(seed, n, frac, method, kind,
                                                                landmarks):
    rng = np.random.default_rng(seed)
    E = rng.standard_normal((n, n))
    if kind == "similarity":
        X = E + E.T
    else:
        X = np.abs(E + E.T)
        np.fill_diagonal(X, 0.0)
    m = max(1, int(round(frac * n)))
    est = NystroemSpectrum(method, n_components=m, landmarks=landmarks, random_state=seed,
                           kind=kind)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DissimilarityWarning)
        Phi = est.fit_transform(X)
    assert Phi.shape == (n, est.n_output_features_)
    assert est.components_.shape == (m, est.n_output_features_)
    assert np.unique(est.landmarks_).size == m
    # rounding is amplified by the spectral factor nu / mu of the test map (1 for clip and
    # flip, |mu| for square, Gu & Guo's (mu + delta) / mu for shift, large near mu = 0)
    kept = (np.abs(est.eigenvalues_) > est.tol_) & (est.modified_eigenvalues_ > 0)
    ratio = (est.modified_eigenvalues_[kept] / np.abs(est.eigenvalues_[kept])).max(initial=1.0)
    atol = 1e-10 * max(1.0, np.abs(Phi).max()) * max(1.0, ratio)
    assert_allclose(est.transform(X[:, est.landmarks_]), Phi, atol=atol, rtol=0)
    assert_allclose(est.transform(X), Phi, atol=atol, rtol=0)
    # Phi Phi^T is PSD with the corrected spectrum on the kept directions
    assert_allclose(np.sort(np.linalg.eigvalsh(Phi.T @ Phi)),
                    np.sort(est.modified_eigenvalues_[kept]) if kept.any() else [0.0],
                    atol=1e-8 * max(1.0, np.abs(est.modified_eigenvalues_).max(initial=0.0)))


# -------------------------------------------------------- (4) kmeans++ landmarks
def test_kmeanspp_landmarks_are_distinct_seeded_and_spread():
    rng = np.random.default_rng(0)
    centres = np.array([[0, 0], [50, 0], [0, 50], [50, 50]], dtype=float)
    P = np.repeat(centres, 25, axis=0) + 0.1 * rng.standard_normal((100, 2))
    S = P @ P.T
    noise = 1e-3 * rng.standard_normal((100, 100))
    S = S + noise + noise.T  # slightly indefinite
    a = NystroemSpectrum(n_components=4, landmarks="kmeans++", random_state=7).fit(S).landmarks_
    b = NystroemSpectrum(n_components=4, landmarks="kmeans++", random_state=7).fit(S).landmarks_
    assert_array_equal(a, b)
    assert np.unique(a).size == 4 and np.all(np.diff(a) > 0)
    assert sorted(a // 25) == [0, 1, 2, 3]  # one landmark per far-apart cluster
    draws = {tuple(NystroemSpectrum(n_components=4, landmarks="kmeans++", random_state=s)
                   .fit(S).landmarks_) for s in range(5)}
    assert len(draws) > 1  # the seed matters
    # every object a landmark, even with duplicate objects (zero D^2 mass left)
    S_dup = np.ones((6, 6))
    L = NystroemSpectrum(n_components=6, landmarks="kmeans++", random_state=0).fit(S_dup).landmarks_
    assert_array_equal(L, np.arange(6))


def test_kmeanspp_on_dissimilarities_uses_squared_distances():
    rng = np.random.default_rng(1)
    P = np.repeat(np.array([[0.0], [100.0], [200.0]]), 10, axis=0) + rng.standard_normal((30, 1))
    D = np.abs(P - P.T)
    L = NystroemSpectrum(n_components=3, landmarks="kmeans++", kind="dissimilarity",
                         random_state=3).fit(D).landmarks_
    assert sorted(L // 10) == [0, 1, 2]


def test_random_landmarks_are_seeded():
    S = indefinite(60)
    a = NystroemSpectrum(n_components=10, random_state=3).fit(S).landmarks_
    b = NystroemSpectrum(n_components=10, random_state=3).fit(S).landmarks_
    c = NystroemSpectrum(n_components=10, random_state=4).fit(S).landmarks_
    assert_array_equal(a, b)
    assert not np.array_equal(a, c)
    assert np.unique(a).size == 10


# ----------------------------------------------- (5) a linear SVM on the features
def test_linear_svm_on_features_is_close_to_svm_on_the_exact_clip_kernel():
    d = make_wine_sigmoid()
    S, y = d.matrix, d.labels
    cv = StratifiedKFold(5, shuffle=True, random_state=0)
    approx = make_pipeline(NystroemSpectrum("clip", n_components=60, landmarks="kmeans++",
                                            random_state=0), LinearSVC(C=1.0))
    exact = make_pipeline(SpectrumTransformer("clip"), SVC(kernel="precomputed", C=1.0))
    a = cross_val_score(approx, S, y, cv=cv).mean()
    b = cross_val_score(exact, S, y, cv=cv).mean()
    assert b > 0.9
    assert a > b - 0.05


def test_default_landmarks_fit_a_small_training_set_exactly():
    """At its defaults every object of a set of at most 500 is a landmark: the feature
    map reproduces the clipped matrix itself, in the units SimilaritySVC uses (tr S / n;
    the default used to refuse n < 500 and kept the input's units)."""
    S = 7.0 * indefinite(40)
    ny = NystroemSpectrum().fit(S)
    assert ny.landmarks_.size == 40
    assert ny.scale_ == pytest.approx(np.trace(S) / 40)
    Phi = ny.transform(S)
    lam, U = np.linalg.eigh(S / ny.scale_)
    clipped = (U * np.maximum(lam, 0)) @ U.T
    np.testing.assert_allclose(Phi @ Phi.T, clipped, atol=1e-8 * np.abs(clipped).max())
    again = NystroemSpectrum().fit_transform(S / 7.0)  # features up to column signs
    np.testing.assert_allclose(again @ again.T, Phi @ Phi.T, atol=1e-10)


@pytest.mark.parametrize("kind", ["similarity", "dissimilarity"])
def test_normalize_removes_the_units_of_the_input(kind):
    """normalize=True: a positive factor on the input changes neither the training
    features nor the test map; it divides by the landmarks' mean self-similarity."""
    X = indefinite(30) if kind == "similarity" else dissimilarity(30)
    est = NystroemSpectrum(n_components=12, random_state=0, kind=kind)
    Phi = est.fit_transform(X)
    rows = est.transform(X[:5])
    for c in (1e-3, 50.0):  # features up to column signs: compare Gram matrices
        other = NystroemSpectrum(n_components=12, random_state=0, kind=kind)
        P = other.fit_transform(c * X)
        np.testing.assert_allclose(P @ P.T, Phi @ Phi.T, atol=1e-9)
        np.testing.assert_allclose(other.transform(c * X[:5]) @ P.T, rows @ Phi.T, atol=1e-9)
    raw = NystroemSpectrum(n_components=12, random_state=0, kind=kind, normalize=False)
    R = raw.fit_transform(X)
    np.testing.assert_allclose(R @ R.T / est.scale_, Phi @ Phi.T, atol=1e-9)
    with pytest.raises(InvalidParameterError, match="normalize"):
        NystroemSpectrum(normalize="yes").fit(X)


# ----------------------------------------------------------- (6) bad input
def test_bad_parameters_raise_clear_errors():
    S = indefinite(20)
    with pytest.raises(InvalidParameterError, match="larger than the training set"):
        NystroemSpectrum(n_components=21).fit(S)
    for bad in (0, -3, 2.5, True, "10"):
        with pytest.raises(InvalidParameterError, match="n_components"):
            NystroemSpectrum(n_components=bad).fit(S)
    with pytest.raises(InvalidParameterError, match="method"):
        NystroemSpectrum("none", n_components=5).fit(S)
    with pytest.raises(InvalidParameterError, match="kind"):
        NystroemSpectrum(n_components=5, kind="distance").fit(S)
    with pytest.raises(InvalidParameterError, match="landmarks"):
        NystroemSpectrum(n_components=5, landmarks="kmeans").fit(S)
    for bad, msg in (([1, 1, 2], "repeated"), ([0, 20], r"\[0, 19\]"), ([-1, 2], r"\[0, 19\]"),
                     ([0.0, 1.0], "integer"), ([], "non-empty"), ([[0, 1]], "1-D")):
        with pytest.raises(InvalidParameterError, match=msg):
            NystroemSpectrum(landmarks=np.array(bad)).fit(S)
    # explicit landmarks: n_components (default 500 > n) is ignored
    assert NystroemSpectrum(landmarks=[0, 3, 5]).fit(S).landmarks_.tolist() == [0, 3, 5]


def test_bad_matrices_raise_clear_errors():
    S = indefinite(20)
    S_nan = S.copy()
    S_nan[4, 2] = np.nan
    with pytest.raises(SimilarityMatrixError, match="NaN"):
        NystroemSpectrum(n_components=20).fit(S_nan)
    with pytest.raises(SimilarityMatrixError, match="NaN"):
        NystroemSpectrum(landmarks=[2, 7]).fit(S_nan)
    with pytest.raises(SimilarityMatrixError, match=r"shape \(20, 5\)"):
        NystroemSpectrum(n_components=3).fit(S[:, :5])
    with pytest.raises(SimilarityMatrixError, match="sparse"):
        import scipy.sparse
        NystroemSpectrum(n_components=3).fit(scipy.sparse.csr_matrix(S))
    with pytest.raises(SimilarityMatrixError, match="2-D"):
        NystroemSpectrum(n_components=3).fit(np.ones(5))
    with pytest.raises(InvalidParameterError, match="LazySimilarity"):
        NystroemSpectrum(n_components=3).fit(lambda r, c: S[np.ix_(r, c)])
    D = np.abs(S)
    D[1, 3] = -1.0
    with pytest.raises(SimilarityMatrixError, match="negative"):
        NystroemSpectrum(n_components=20, kind="dissimilarity").fit(D)


def test_bad_test_matrices_raise_clear_errors():
    S = indefinite(20)
    est = NystroemSpectrum(n_components=5, random_state=0)
    with pytest.raises(NotFittedError):
        est.transform(S[:, :5])
    est.fit(S)
    with pytest.raises(TestMatrixError, match=r"\(n_test, 5\)"):
        est.transform(S[:, :6])
    bad = S[:3, est.landmarks_].copy()
    bad[0, 0] = np.inf
    with pytest.raises(SimilarityMatrixError, match="inf"):
        est.transform(bad)
    # a single object as a 1-D row, of either width
    assert_allclose(est.transform(S[0, est.landmarks_]), est.transform(S[:1]), atol=1e-14)
    estd = NystroemSpectrum(n_components=5, kind="dissimilarity").fit(np.abs(S))
    with pytest.raises(SimilarityMatrixError, match="negative"):
        estd.transform(-np.abs(S[:2, estd.landmarks_]))


def test_warnings_for_asymmetric_and_dissimilarity_like_input():
    S = indefinite(20)
    A = S + 0.3 * np.random.default_rng(0).standard_normal(S.shape)
    with pytest.warns(AsymmetricSimilarityWarning):
        Phi = NystroemSpectrum(n_components=20, normalize=False).fit_transform(A)
    # the symmetric part is used, as in SpectrumTransformer
    assert_allclose(Phi @ Phi.T, SpectrumTransformer().fit_transform((A + A.T) / 2), atol=1e-8)
    # a function declared symmetric that is not: only the landmark block can be checked
    lazy = LazySimilarity(lambda r, c: A[np.ix_(r, c)], 20)
    with pytest.warns(AsymmetricSimilarityWarning, match="landmark"):
        Phi = NystroemSpectrum(n_components=20, normalize=False).fit_transform(lazy)
    assert_allclose(Phi @ Phi.T, SpectrumTransformer().fit_transform((A + A.T) / 2), atol=1e-8)
    D = dissimilarity(20)
    with pytest.warns(DissimilarityWarning):
        NystroemSpectrum(n_components=10, random_state=0).fit(D)


# ------------------------------------------------- (7) only landmark columns computed
def test_callable_route_computes_only_landmark_columns():
    S = indefinite(50)
    calls = []

    def sim(rows, cols):
        calls.append((rows.copy(), cols.copy()))
        return S[np.ix_(rows, cols)]

    lazy = LazySimilarity(sim, 50)
    est = NystroemSpectrum("flip", n_components=8, random_state=1)
    Phi = est.fit_transform(lazy)
    assert len(calls) == 1
    rows, cols = calls[0]
    assert_array_equal(rows, np.arange(50))
    assert_array_equal(cols, est.landmarks_)
    ref = NystroemSpectrum("flip", n_components=8, random_state=1)
    assert_allclose(Phi, ref.fit_transform(S), atol=1e-12)  # same landmarks, same features

    # asymmetric functions: the landmark rows too, then the symmetric part
    calls.clear()
    NystroemSpectrum(n_components=8, random_state=1).fit(LazySimilarity(sim, 50, symmetric=False))
    assert [(r.size, c.size) for r, c in calls] == [(50, 8), (8, 50)]

    # kmeans++: one landmark column at a time (plus the diagonal when not given)
    calls.clear()
    est = NystroemSpectrum(n_components=6, landmarks="kmeans++", random_state=2)
    est.fit(LazySimilarity(sim, 50, diagonal=np.diag(S)))
    assert [(r.size, c.size) for r, c in calls] == [(50, 1)] * 6
    assert sorted(int(c[0]) for _, c in calls) == est.landmarks_.tolist()
    calls.clear()
    est2 = NystroemSpectrum(n_components=6, landmarks="kmeans++", random_state=2)
    est2.fit(LazySimilarity(sim, 50))
    shapes = [(r.size, c.size) for r, c in calls]
    assert shapes.count((1, 1)) == 50 and shapes.count((50, 1)) == 6 and len(shapes) == 56
    assert_array_equal(est2.landmarks_, est.landmarks_)
    assert_array_equal(est.landmarks_, NystroemSpectrum(
        n_components=6, landmarks="kmeans++", random_state=2).fit(S).landmarks_)


def test_lazy_similarity_checks_the_blocks_it_gets():
    with pytest.raises(SimilarityMatrixError, match="returned shape"):
        NystroemSpectrum(n_components=3).fit(LazySimilarity(lambda r, c: np.ones((2, 2)), 10))
    with pytest.raises(SimilarityMatrixError, match="NaN"):
        NystroemSpectrum(n_components=3).fit(
            LazySimilarity(lambda r, c: np.full((r.size, c.size), np.nan), 10))
    with pytest.raises(InvalidParameterError, match="n_samples"):
        LazySimilarity(lambda r, c: None, 0)
    with pytest.raises(InvalidParameterError, match="callable"):
        LazySimilarity(np.ones((3, 3)), 3)


def test_precomputed_landmark_columns_equal_the_full_matrix_route():
    S = indefinite(40)
    L = np.array([31, 2, 17, 8, 25, 11, 39, 0])
    C = S[:, L].copy()
    C0 = C.copy()
    a = NystroemSpectrum("clip", landmarks=L).fit(C)
    b = NystroemSpectrum("clip", landmarks=L).fit(S)
    assert_array_equal(C, C0)  # the caller's columns are not modified
    assert_array_equal(a.landmarks_, L)
    assert_allclose(a.transform(S[:, L]), b.transform(S), atol=1e-12)
    assert_allclose(a.fit_transform(C), b.fit_transform(S), atol=1e-12)


# ------------------------------------------------------- scikit-learn behaviour
def test_sklearn_conventions():
    S = indefinite(30)
    S0 = S.copy()
    est = NystroemSpectrum("flip", n_components=10, random_state=0)
    assert clone(est).get_params() == est.get_params()
    Phi = est.fit_transform(S)
    assert_array_equal(S, S0)  # input untouched
    est2 = pickle.loads(pickle.dumps(est))
    assert_allclose(est2.transform(S), Phi, atol=1e-12)
    assert est.n_features_in_ == 30
    assert_allclose(est.fit(S).transform(S), Phi, atol=1e-12)  # fit + transform == fit_transform


def test_all_zero_similarity_gives_one_zero_feature():
    est = NystroemSpectrum(n_components=4, random_state=0)
    Phi = est.fit_transform(np.zeros((10, 10)))
    assert Phi.shape == (10, 1) and not Phi.any()
    assert est.transform(np.ones((2, 4))).shape == (2, 1)
