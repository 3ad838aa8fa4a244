"""normalize=True (_normalize): the single-matrix classifiers are scale-free at their
defaults, and normalize=False is the literal problem on S as given (issue 40 item 3)."""

import warnings

import numpy as np
import pytest

from proxlearn._scale import similarity_scale
from proxlearn._validation import InvalidParameterError, SimilarityMatrixError
from proxlearn.kernel_learning import FullKernelSVM, IndefiniteSVM, SimMKL, SimSVM
from proxlearn.svm import LPMachine, SimilarityFeatureSVC, SimilaritySVC

ESTIMATORS = [SimilaritySVC, SimilarityFeatureSVC, LPMachine, SimSVM, SimMKL, FullKernelSVM,
              IndefiniteSVM]


def _problem(n_train=24, n_test=16, seed=0):
    """Two overlapping classes; an indefinite similarity with mean diagonal about 6."""
    rng = np.random.default_rng(seed)
    n = n_train + n_test
    y = np.tile([0, 1], n // 2)
    X = rng.normal(size=(n, 3)) + np.where(y == 1, 0.8, -0.8)[:, None] * np.array([1.0, 0.5, 0.0])
    E = rng.normal(scale=0.5, size=(n, n))
    S = X @ X.T + (E + E.T) / 2 + 2.0
    tr, te = np.arange(n_train), np.arange(n_train, n)
    return S[np.ix_(tr, tr)], y[tr], S[np.ix_(te, tr)]


def _predict(cls, c, **params):
    S, y, S_te = _problem()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # convergence notes at extreme scales
        return cls(**params).fit(c * S, y).predict(c * S_te)


@pytest.mark.parametrize("cls", ESTIMATORS, ids=lambda c: c.__name__)
def test_default_predictions_do_not_depend_on_the_units_of_S(cls):
    ref = _predict(cls, 1.0)
    for c in (1e-3, 1e3):
        np.testing.assert_array_equal(_predict(cls, c), ref)


@pytest.mark.parametrize("cls", ESTIMATORS, ids=lambda c: c.__name__)
def test_literal_problem_depends_on_the_units_of_S(cls):
    """What normalize=True fixes: with S as given, C / eta / rho are in the units of S."""
    ref = _predict(cls, 1.0, normalize=False)
    changed = [np.any(_predict(cls, c, normalize=False) != ref) for c in (1e-3, 1e3)]
    assert any(changed)


@pytest.mark.parametrize("cls", ESTIMATORS, ids=lambda c: c.__name__)
def test_scale_attribute(cls):
    S, y, _ = _problem()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert cls().fit(3.0 * S, y).scale_ == pytest.approx(3.0 * np.trace(S) / len(S))
        assert cls(normalize=False).fit(3.0 * S, y).scale_ == 1.0


@pytest.mark.parametrize("cls", [SimilaritySVC, SimilarityFeatureSVC, LPMachine, SimSVM,
                                 IndefiniteSVM], ids=lambda c: c.__name__)
def test_unit_diagonal_similarity_is_unchanged(cls):
    """On a unit-diagonal S (most benchmark sets, the reproduction's Chen 2009 sets) the
    scale is exactly 1 and both readings give the same decision values."""
    S, y, S_te = _problem()
    d = np.sqrt(np.abs(np.diag(S)))
    S_unit, S_te_unit = S / np.outer(d, d), S_te / d
    np.fill_diagonal(S_unit, 1.0)
    a = cls().fit(S_unit, y)
    b = cls(normalize=False).fit(S_unit, y)
    assert a.scale_ == 1.0
    np.testing.assert_array_equal(a.decision_function(S_te_unit), b.decision_function(S_te_unit))


@pytest.mark.parametrize("cls", ESTIMATORS, ids=lambda c: c.__name__)
@pytest.mark.parametrize("value", ["yes", 1, None])
def test_normalize_must_be_a_bool(cls, value):
    S, y, _ = _problem()
    with pytest.raises(InvalidParameterError, match="normalize must be True or False"):
        cls(normalize=value).fit(S, y)


@pytest.mark.parametrize("cls", [SimilaritySVC, SimilarityFeatureSVC, LPMachine],
                         ids=lambda c: c.__name__)
def test_matrix_without_a_scale_is_refused_with_the_way_out(cls):
    y = np.array([0, 1] * 5)
    S = -np.eye(10) - 0.1  # negative definite: no positive eigenvalue, no scale
    with pytest.raises(SimilarityMatrixError, match="normalize=False"):
        cls().fit(S, y)
    cls(normalize=False).fit(S, y)  # the literal reading still runs
    assert cls().fit(np.zeros((10, 10)), y).scale_ == 1.0  # all zero: no units to remove


def test_full_kernel_svm_scales_the_test_self_similarity():
    """The QCQP test rows read psi(x, x) in the units of S: divided by the scale as well."""
    S, y, S_te = _problem(n_train=16, n_test=6)
    psi = np.full(len(S_te), 0.5 * np.trace(S) / len(S))
    ref = FullKernelSVM().fit(S, y).decision_function(S_te, self_similarity=psi)
    out = FullKernelSVM().fit(1e3 * S, y).decision_function(1e3 * S_te, self_similarity=1e3 * psi)
    np.testing.assert_allclose(out, ref, rtol=1e-4, atol=1e-4)


def test_similarity_scale_is_the_one_used():
    S, y, _ = _problem()
    assert SimilaritySVC().fit(S, y).scale_ == similarity_scale(S)
