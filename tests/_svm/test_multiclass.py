"""The one-vs-one driver of proxlearn._svm._multiclass: the binary problems, the
assembly of per-pair results, the votes, and SVC's layout and vote."""

import numpy as np
import pytest
from sklearn.svm import SVC

from proxlearn._svm._libsvm import svc_pairwise_coef
from proxlearn._svm._multiclass import (
    fit_ovo,
    libsvm_vote,
    ovo_decision,
    ovo_fit,
    ovo_labels,
    ovo_pairs,
    ovo_problems,
    scatter_pairs,
    transductive_outputs,
    unlabelled_decisions,
)


def _labels(n_classes, n, seed):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, n_classes, size=n)
    y[:n_classes] = np.arange(n_classes)  # every class present
    return y


@pytest.mark.parametrize("n_classes", [2, 3, 5])
def test_problems_are_the_pairs_samples_in_libsvm_order(n_classes):
    y = _labels(n_classes, 40, n_classes)
    problems = ovo_problems(y, n_classes, n_total=46)
    assert [p.pair for p in problems] == ovo_pairs(n_classes)
    assert [p.k for p in problems] == list(range(len(problems)))
    for p in problems:
        i, j = p.pair
        assert i < j
        np.testing.assert_array_equal(p.idx, np.flatnonzero(np.isin(y, [i, j])))
        np.testing.assert_array_equal(p.y, np.where(y[p.idx] == j, 1.0, -1.0))
        np.testing.assert_array_equal(p.rows, np.r_[p.idx, np.arange(40, 46)])
    # without unlabelled samples the rows are the pair's samples
    assert all(np.array_equal(p.rows, p.idx) for p in ovo_problems(y, n_classes))


def test_ovo_fit_calls_the_binary_problem_once_per_pair_and_scatters_its_result():
    y = _labels(4, 30, 0)
    seen = []

    def fit_binary(p):
        seen.append(p.pair)
        return p.y * (p.k + 1.0), float(p.k)

    problems, fits = ovo_fit(y, 4, fit_binary)
    assert seen == ovo_pairs(4)
    coef = scatter_pairs(problems, [w for w, _ in fits], y.size)
    assert coef.shape == (6, 30)
    for p in problems:
        outside = np.setdiff1d(np.arange(30), p.idx)
        assert np.all(coef[p.k, outside] == 0.0)
        np.testing.assert_array_equal(coef[p.k, p.idx], p.y * (p.k + 1.0))
    # trailing axes are kept (a coefficient per sample and kernel)
    stack = scatter_pairs(problems, [np.outer(p.y, [1.0, 2.0]) for p in problems], 30)
    assert stack.shape == (6, 30, 2)
    np.testing.assert_array_equal(stack[..., 1], 2.0 * stack[..., 0])


def test_fit_ovo_gives_each_pair_its_block():
    rng = np.random.default_rng(1)
    S = rng.normal(size=(25, 25))
    y = _labels(3, 25, 1)

    def fit_binary(S_sub, y_pm):
        return S_sub @ y_pm, float(y_pm.sum()), S_sub.shape

    coef, intercept, infos = fit_ovo(S, y, 3, fit_binary)
    for p, info in zip(ovo_problems(y, 3), infos, strict=True):
        assert info == (p.idx.size, p.idx.size)
        np.testing.assert_allclose(coef[p.k, p.idx], S[np.ix_(p.idx, p.idx)] @ p.y)
        assert intercept[p.k] == p.y.sum()


def test_votes_and_tie_breaks():
    # three classes, pairs (0,1), (0,2), (1,2); positive favours the second class
    raw = np.array([[1.0, 1.0, -1.0],    # 1 beats 0, 2 beats 0, 1 beats 2: class 1
                    [-1.0, -2.0, 3.0],   # 0 beats 1, 0 beats 2: class 0
                    [1.0, -1.0, 2.0],    # one vote each; summed values 0, -1, 1: class 2
                    [0.0, 0.0, 0.0]])    # no value > 0: every pair votes for the first
    labels = ovo_labels(raw, np.array(["a", "b", "c"]))
    assert labels[:2].tolist() == ["b", "a"]
    dec = ovo_decision(raw, 3)
    assert dec.shape == (4, 3)
    assert labels[2] == "c" and int(np.argmax(dec[2])) == 2
    assert np.all(np.abs(dec - np.round(dec)) < 1.0 / 3.0)  # votes plus a term in (-1/3, 1/3)
    assert labels[3] == "a"
    np.testing.assert_array_equal(ovo_decision(raw, 3, "ovo"), raw)
    # two classes: the raw value itself, positive for the second class
    two = np.array([[0.5], [-0.5], [0.0]])
    np.testing.assert_array_equal(ovo_decision(two, 2), two[:, 0])
    assert ovo_labels(two, np.array([3, 7])).tolist() == [7, 3, 3]


def test_transductive_outputs_from_the_learned_kernels():
    y = _labels(3, 12, 2)
    problems = ovo_problems(y, 3, n_total=15)
    rng = np.random.default_rng(2)
    kernels = [rng.normal(size=(p.rows.size, p.rows.size)) for p in problems]
    coefs = [rng.normal(size=p.idx.size) for p in problems]
    raw = unlabelled_decisions(problems, kernels, coefs, [0.1, 0.2, 0.3])
    assert raw.shape == (3, 3)
    for p, K, c in zip(problems, kernels, coefs, strict=True):
        np.testing.assert_allclose(raw[:, p.k], K[p.idx.size:, : p.idx.size] @ c + 0.1 * (p.k + 1))
    decision, labels = transductive_outputs(raw, np.array([10, 20, 30]))
    np.testing.assert_array_equal(decision, ovo_decision(raw, 3))
    np.testing.assert_array_equal(labels, ovo_labels(raw, np.array([10, 20, 30])))


@pytest.mark.parametrize("n_classes", [2, 3, 4])
def test_svc_layout_and_vote_reproduce_svc(n_classes):
    """svc_pairwise_coef turns SVC's dual coefficients into pairwise machines with
    the driver's sign, and libsvm_vote is SVC.predict."""
    rng = np.random.default_rng(n_classes)
    X = rng.normal(size=(60, 3))
    y = _labels(n_classes, 48, n_classes)
    X[:48] += y[:, None]
    K = X @ X.T
    svc = SVC(kernel="precomputed", C=1.0, decision_function_shape="ovo").fit(K[:48, :48], y)
    V, b = svc_pairwise_coef(svc, svc.support_, 48)
    raw = K[48:, :48] @ V + b
    ref = svc.decision_function(K[48:, :48])
    if n_classes == 2:
        np.testing.assert_allclose(raw[:, 0], ref, atol=1e-10)
    else:  # SVC's ovo values favour the first class of the pair
        np.testing.assert_allclose(raw, -ref, atol=1e-10)
    np.testing.assert_array_equal(svc.classes_[libsvm_vote(raw, n_classes)],
                                  svc.predict(K[48:, :48]))
