"""Smoke test of investigations/shift.py (issue #18, item 1) on tiny inputs."""

import numpy as np
import pytest

from proxlearn.datasets import SimilarityDataset
from proxlearn.study import get_protocol


@pytest.fixture(scope="module")
def shift(import_script):
    return import_script("investigations/shift.py")


def _indefinite(n, seed):
    """Two noisy clusters under a sigmoid similarity (indefinite, unit-ish scale)."""
    rng = np.random.default_rng(seed)
    y = np.repeat([0, 1], n // 2)
    X = rng.normal(size=(n, 3)) + 1.5 * y[:, None]
    S = np.tanh(0.5 * X @ X.T - 0.5)
    return 0.5 * (S + S.T), y


def test_gu_map_is_consistent_and_amplifies_small_eigenvalues(shift):
    S, _ = _indefinite(30, 0)
    delta = shift.shift_amount(S, "min0")
    assert delta > 0
    M = shift.gu_map(S, delta)
    # training rows map to the rows of the shifted kernel (Gu & Guo eqs. 10-15)
    np.testing.assert_allclose(S @ M, S + delta * np.eye(30), atol=1e-8 * np.abs(S).max())
    # raw rows are not consistent: they miss delta on the diagonal only
    np.testing.assert_allclose(S - (S + delta * np.eye(30)), -delta * np.eye(30))
    lam = np.linalg.eigvalsh(S)
    # M = I + delta S^+ : its largest eigenvalue is 1 + delta / smallest positive |lambda|
    gain = np.abs(np.linalg.eigvalsh(M)).max()
    assert gain == pytest.approx(np.abs(1 + delta / lam).max(), rel=1e-6)


def test_shift_rules(shift):
    S, _ = _indefinite(20, 1)
    lam_min = np.linalg.eigvalsh(S)[0]
    assert shift.shift_amount(S, "abs") == pytest.approx(shift.shift_amount(S, "min0"))
    assert shift.shift_amount(S, "min0") == pytest.approx(-lam_min)
    P = S @ S + 0.5 * np.eye(20)  # positive definite: the two readings differ
    assert shift.shift_amount(P, "min0") == 0.0
    assert shift.shift_amount(P, "abs") == pytest.approx(np.linalg.eigvalsh(P)[0])
    assert 0.0 <= shift.shift_amount(S, "centred") <= -lam_min + 1e-9


def test_self_similarity_never_reaches_the_decision(shift):
    S, y = _indefinite(40, 2)
    train, test = np.arange(0, 40, 2), np.arange(1, 40, 2)
    model = shift.ShiftSVC(C=1.0).fit(S[np.ix_(train, train)], y[train])
    check = shift._self_similarity_check(model, S, train, test)
    assert check["max_row_change"] == 0.0
    assert check["max_decision_change"] == 0.0
    assert check["delta_aug_minus_delta"][0] >= -1e-9  # interlacing: delta' >= delta


def test_tiny_C_collapses_to_one_class(shift):
    S, y = _indefinite(40, 3)
    keep = np.r_[0:20, 20:38]  # 20 / 18: unbalanced training classes
    S_tr, y_tr = S[np.ix_(keep, keep)], y[keep]
    classes = np.unique(y)
    tiny = shift.ShiftSVC(C=1e-6).fit(S_tr, y_tr)
    big = shift.ShiftSVC(C=10.0).fit(S_tr, y_tr)
    d_tiny = shift._diagnose(tiny, S_tr, y_tr, y_tr, classes)
    d_big = shift._diagnose(big, S_tr, y_tr, y_tr, classes)
    assert d_tiny["collapsed"] and not d_big["collapsed"]
    assert d_tiny["decision"]["spread_minus_b"] < 1e-3 < abs(d_tiny["decision"]["intercept"])


def test_run_reading_small(shift):
    S, y = _indefinite(40, 4)
    data = SimilarityDataset(S, y, name="tiny-indefinite")
    protocol = get_protocol("custom", n_splits=2, cv=3)
    cur = shift.run_reading(data, protocol, "svm-shift", "current")
    gu = shift.run_reading(data, protocol, "svm-shift", "gu-map")
    lib = shift.run_reading(data, protocol, "svm-shift", "libsvm")
    assert len(cur["errors"]) == len(gu["errors"]) == 2
    assert 0.0 <= cur["collapse_fraction"] <= 1.0 and cur["paper"] is None
    # the reading's own refit (ShiftSVC, plain libsvm) equals the registered method
    assert lib["errors"] == cur["errors"]
    for d in cur["diagnostics"]:
        assert d["self_similarity"]["max_decision_change"] == 0.0
        assert set(d["test_error_per_C"]) == {f"{c:g}" for c in shift.C_SVM}


def test_gu_map_equals_the_library_linear_shift_map(shift):
    from proxlearn.transforms import SpectrumTransformer

    S, _ = _indefinite(30, 5)
    S_test = _indefinite(36, 6)[0][30:, :30]
    tf = SpectrumTransformer(method="shift", test_transform="linear").fit(S)
    ours = S_test @ shift.gu_map(S, shift.shift_amount(S, "min0"))
    np.testing.assert_allclose(tf.transform(S_test), ours, atol=1e-8 * np.abs(ours).max())


def test_self_term_check_small(shift):
    S, y = _indefinite(40, 7)
    data = SimilarityDataset(S, y, name="tiny-indefinite")
    out = shift.self_term_check(data, get_protocol("custom", n_splits=2), Cs=(1.0,))
    r = out["1"]
    assert -1.0 <= r["spearman_alpha_misleading"] <= 1.0
    assert 0.0 <= r["train_error_without_self_term"] <= 100.0
    assert 0.0 <= out["parzen_test_error"] <= 100.0
