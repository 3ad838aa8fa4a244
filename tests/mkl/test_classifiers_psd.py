"""spectrum=None: SimpleMKL and LpMKL certify their answer by one PSD test of the
learned combination (issue 40, item 8); the non-sparse MKL tests every matrix.

J(d) = omega(sum_k d_k K_k) is convex in d whatever the kernels and the solvers' dual
value bounds min_d J from below for any feasible alpha, so a PSD learned combination
with a small gap is the global optimum even when a member is indefinite.
Real data: the protein similarity (indefinite, smallest eigenvalue -12.4) and its RBF
companion of ``protein-multi``.
"""

import warnings

import numpy as np
import pytest
from sklearn.base import clone

import proxlearn._multi_input as multi_input
from proxlearn.datasets import DatasetNotFoundError, load_dataset
from proxlearn.exceptions import SimilarityMatrixError
from proxlearn.mkl import LpMKL, NonSparseMKL, SimpleMKL, lp_mkl
from proxlearn.transforms import SpectrumTransformer


@pytest.fixture(scope="module")
def protein():
    """``(R, Pc, P, y)``: protein-multi's RBF kernel, the clipped and the raw protein
    similarity, the four class labels."""
    try:
        ds = load_dataset("protein-multi")
    except DatasetNotFoundError as exc:
        pytest.skip(f"protein-multi not found (the UW files belong in ../shared/data/uw): {exc}")
    X = np.asarray(ds.matrices, dtype=np.float64)
    P = 0.5 * (X[:, :, 0] + X[:, :, 0].T)
    assert np.linalg.eigvalsh(P)[0] < -1.0  # the raw similarity is indefinite
    Pc = SpectrumTransformer("clip").fit_transform(P)
    return X[:, :, 1], Pc, P, np.asarray(ds.labels)


def _fit(est, X, y):
    """A fitted clone of ``est`` on ``(X, y)``."""
    est = clone(est)
    with warnings.catch_warnings():
        # -P has its self-similarities at the bottom of each row: it is not a
        # dissimilarity here but an indefinite matrix the SVMs cannot use
        warnings.filterwarnings("ignore", message=".*looks like a dissimilarity")
        return est.fit(X, y)


@pytest.mark.parametrize("est", [SimpleMKL(C=0.1, spectrum=None, tol=1e-6),
                                 LpMKL(C=0.1, spectrum=None, tol=1e-6)],
                         ids=["SimpleMKL", "LpMKL"])
def test_an_indefinite_member_with_weight_zero_is_certified(protein, est):
    """[R, Pc, -P]: -P is indefinite (its a_k = -u^T P u < 0 at the optimum, so its
    weight is 0); the fit is accepted with a certified gap and is the fit on [R, Pc]."""
    R, Pc, P, y = protein
    X3 = np.stack([R, Pc, -P], axis=-1)
    assert np.linalg.eigvalsh(-P)[0] < -1.0
    with_bad = _fit(est, X3, y)
    without = _fit(est, X3[:, :, :2], y)
    gaps = np.asarray(with_bad.gap_) / np.abs(with_bad.objective_)
    assert np.all(gaps <= est.tol)
    np.testing.assert_array_equal(with_bad.weights_[:, 2], 0.0)
    np.testing.assert_allclose(with_bad.objective_, without.objective_, rtol=5 * est.tol)
    # the objective is flat in d near the optimum: Lp weights agree to about 2e-3
    np.testing.assert_allclose(with_bad.weights_[:, :2], without.weights_, atol=1e-2)
    np.testing.assert_array_equal(with_bad.predict(X3), without.predict(X3[:, :, :2]))
    np.testing.assert_allclose(with_bad.decision_function(X3),
                               without.decision_function(X3[:, :, :2]), atol=1e-3)


def test_an_indefinite_member_with_positive_weight_is_certified(protein):
    """SimpleMKL on [R, Pc, -P] at C = 1 gives -P a positive weight on one pair; its
    learned kernel is PSD, so the gap certifies it: J(d*) is the SVM value there, and
    the dual bound 1^T alpha - 1/2 max_k a_k holds whatever the kernels."""
    R, Pc, P, y = protein
    X3 = np.stack([R, Pc, -P], axis=-1)
    clf = _fit(SimpleMKL(C=1.0, spectrum=None), X3, y)
    assert np.any(clf.weights_[:, 2] > 1e-3)
    for res, (i, j) in zip(clf.results_, [(a, b) for a in range(4) for b in range(a + 1, 4)]):
        idx = np.flatnonzero((y == clf.classes_[i]) | (y == clf.classes_[j]))
        y_pm = np.where(y[idx] == clf.classes_[j], 1.0, -1.0)
        Ks = X3[np.ix_(idx, idx)] / clf.scales_
        K = Ks @ res.kernel_weights
        assert np.linalg.eigvalsh(K)[0] > -1e-8 * np.abs(K).max()
        u = res.alpha * y_pm
        a = np.einsum("i,ijk,j->k", u, Ks, u)
        assert res.objective == pytest.approx(res.alpha.sum() - 0.5 * u @ K @ u, rel=1e-10)
        dual = res.alpha.sum() - 0.5 * a.max()  # one feasible alpha's lower bound
        assert 0 <= res.objective - dual
        assert res.gap <= res.objective - dual + 1e-9 * res.objective  # the best dual


def test_lp_gap_uses_the_positive_part_and_the_true_objective(protein):
    """Lp-MKL's certificate with an indefinite member: J - (1^T alpha - 1/2
    ||max(a, 0)||_q), with J the SVM value at d (d^T a, not d^T max(a, 0))."""
    R, Pc, P, y = protein
    X3 = np.stack([R, Pc, P], axis=-1)
    clf = _fit(LpMKL(C=1.0, p=2.0, spectrum=None), X3, y)
    assert np.any(clf.weights_[:, 2] > 1e-3)  # the indefinite member has weight
    for k, res in enumerate(clf.results_):
        i, j = [(a, b) for a in range(4) for b in range(a + 1, 4)][k]
        idx = np.flatnonzero((y == clf.classes_[i]) | (y == clf.classes_[j]))
        y_pm = np.where(y[idx] == clf.classes_[j], 1.0, -1.0)
        Ks = X3[np.ix_(idx, idx)] / clf.scales_
        u = res.alpha * y_pm
        a = np.einsum("i,ijk,j->k", u, Ks, u)
        J = res.alpha.sum() - 0.5 * res.weights @ a
        dual = res.alpha.sum() - 0.5 * np.linalg.norm(np.maximum(a, 0.0), 2)
        assert res.objective == pytest.approx(J, rel=1e-9)
        assert res.gap == pytest.approx(J - dual, rel=1e-6, abs=1e-9 * abs(J))
        assert 0 <= res.gap <= clf.tol * abs(res.objective)


def test_lp_gap_of_an_iterate_that_weights_a_negative_a_k(protein):
    """lp_mkl stopped at its first iterate (uniform d): of the indefinite P and -P one
    has a_k < 0 there with d_k > 0; the gap is J - dual with J = 1^T alpha - 1/2 d^T a
    (not d^T max(a, 0), which made it smaller than the true gap)."""
    R, Pc, P, y = protein
    two = np.flatnonzero(y <= np.unique(y)[1])
    y_pm = np.where(y[two] == y[two].max(), 1.0, -1.0)
    Ks = np.stack([R, Pc, P, -P], axis=-1)[np.ix_(two, two)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # max_iter = 1
        res = lp_mkl(Ks, y_pm, 1.0, 2.0, max_iter=1)
    u = res.alpha * y_pm
    a = np.einsum("i,ijk,j->k", u, Ks, u)
    assert min(a[2], a[3]) < 0 and np.all(res.weights > 0)
    J = res.alpha.sum() - 0.5 * res.weights @ a
    assert res.objective == pytest.approx(J, rel=1e-9)
    dual = res.alpha.sum() - 0.5 * np.linalg.norm(np.maximum(a, 0.0), 2)
    assert res.gap == pytest.approx(J - dual, rel=1e-9)


@pytest.mark.parametrize("est", [SimpleMKL(C=0.1, spectrum=None), LpMKL(C=0.1, spectrum=None)],
                         ids=["SimpleMKL", "LpMKL"])
def test_an_indefinite_learned_combination_is_refused_naming_the_member(protein, est):
    """[R, Pc, P] at C = 0.1: the learned kernel of one pair is indefinite: the error
    names the indefinite matrix (and only it) and the remedy."""
    R, Pc, P, y = protein
    X3 = np.stack([R, Pc, P], axis=-1)
    lam = np.linalg.eigvalsh(P)[0]
    with pytest.raises(SimilarityMatrixError) as err:
        _fit(est, X3, y)
    msg = str(err.value)
    assert "the learned combination sum_k d_k X[:, :, k] / scales_[k] of classes" in msg
    assert "is not positive semidefinite" in msg
    assert f"X[:, :, 2] (smallest eigenvalue {lam:.3g})" in msg
    assert "X[:, :, 0]" not in msg.split("not positive semidefinite:")[1]
    assert "X[:, :, 1]" not in msg.split("not positive semidefinite:")[1]
    assert "Use spectrum='clip'" in msg
    _fit(est.set_params(spectrum="clip"), X3, y)  # the remedy works


def test_an_uncertified_fit_with_an_indefinite_member_is_refused(protein):
    """Lp-MKL on protein-multi as given at C = 1: one pair's learned kernel is PSD
    but the gap does not close (with an indefinite member the min-max need not have a
    zero duality gap): refused, not returned with a warning."""
    R, _, P, y = protein
    X = np.stack([P, R], axis=-1)
    with pytest.raises(SimilarityMatrixError, match=r"relative gap .* > tol = 0.0001 .*"
                       r"X\[:, :, 0\] \(smallest eigenvalue .*cannot be certified"), \
            warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the solver's ConvergenceWarning
        LpMKL(C=1.0, spectrum=None).fit(X, y)


def _count_factorisations(monkeypatch):
    calls = []
    real = multi_input._potrf

    def counting(*args, **kwargs):
        calls.append(args[0].shape)
        return real(*args, **kwargs)

    monkeypatch.setattr(multi_input, "_potrf", counting)
    return calls


@pytest.mark.parametrize("est,expected", [(SimpleMKL(spectrum=None), "one"),
                                          (LpMKL(spectrum=None), "one"),
                                          (LpMKL(p=1.0, spectrum=None), "one"),
                                          (NonSparseMKL(spectrum=None), "each")],
                         ids=["SimpleMKL", "LpMKL", "LpMKL-p1", "NonSparseMKL"])
def test_psd_factorisations_per_fit(protein, monkeypatch, est, expected):
    """A PSD stack of m = 3 matrices, two classes: one Cholesky of the learned kernel
    for SimpleMKL / LpMKL, one per matrix for the non-sparse MKL."""
    R, Pc, _, y = protein
    two = np.flatnonzero(y <= np.unique(y)[1])
    X = np.stack([R, Pc, Pc @ Pc / len(Pc)], axis=-1)[np.ix_(two, two)]
    calls = _count_factorisations(monkeypatch)
    clf = clone(est).fit(X, y[two])
    assert clf.gap_ <= clf.tol * abs(clf.objective_)
    assert len(calls) == (1 if expected == "one" else X.shape[2])
    assert all(shape == (len(two), len(two)) for shape in calls)


def test_psd_factorisations_per_pair_of_classes(protein, monkeypatch):
    """Several classes: one factorisation per pair, of the pair's block."""
    R, Pc, _, y = protein
    X = np.stack([R, Pc], axis=-1)
    calls = _count_factorisations(monkeypatch)
    SimpleMKL(spectrum=None).fit(X, y)
    sizes = sorted(int(np.sum((y == a) | (y == b))) for a in np.unique(y)
                   for b in np.unique(y) if a < b)
    assert sorted(s[0] for s in calls) == sizes

