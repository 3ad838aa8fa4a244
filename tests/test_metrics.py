"""proxlearn.metrics: perplexity and normalised cross entropy (Chen thesis 4.6)."""

import numpy as np
import pytest

from proxlearn._validation import InvalidParameterError, LabelError
from proxlearn.metrics import (
    empirical_cross_entropy,
    normalized_cross_entropy,
    perplexity,
)


def test_hand_computed_two_classes():
    y = np.array([0, 1, 1])
    P = np.array([[0.8, 0.2], [0.4, 0.6], [0.5, 0.5]])
    # epsilon = 0: (0.8 * 0.6 * 0.5) ** (-1/3)
    assert perplexity(y, P, epsilon=0) == pytest.approx(0.24 ** (-1 / 3))
    # smoothed: (p + e) / (1 + 2e)
    e = 0.1
    p = (np.array([0.8, 0.6, 0.5]) + e) / (1 + 2 * e)
    assert perplexity(y, P, epsilon=e) == pytest.approx(np.prod(p) ** (-1 / 3))
    assert empirical_cross_entropy(y, P, epsilon=e) == pytest.approx(-np.log(p).mean())


def test_hand_computed_nce():
    y = np.array(["a", "b", "b", "b"])
    P = np.array([[0.5, 0.5], [0.25, 0.75], [0.0, 1.0], [0.5, 0.5]])
    zeta = -np.mean(np.log([0.5, 0.75, 1.0, 0.5]))
    zeta0 = -np.mean(np.log([0.25, 0.75, 0.75, 0.75]))  # prior from y_true
    assert normalized_cross_entropy(y, P, epsilon=0) == pytest.approx(
        (zeta0 - zeta) / zeta0
    )
    # explicit (training) prior
    zeta0b = -np.mean(np.log([0.6, 0.4, 0.4, 0.4]))
    assert normalized_cross_entropy(y, P, epsilon=0, prior=[0.6, 0.4]) == pytest.approx(
        (zeta0b - zeta) / zeta0b
    )
    # per-sample priors (leave-one-out style) and smoothing of the prior too
    pri = np.array([[0.2, 0.8], [0.5, 0.5], [0.5, 0.5], [0.5, 0.5]])
    e = 0.01
    sm = lambda v: (np.asarray(v) + e) / (1 + 2 * e)  # noqa: E731
    z = -np.mean(np.log(sm([0.5, 0.75, 1.0, 0.5])))
    z0 = -np.mean(np.log(sm([0.2, 0.5, 0.5, 0.5])))
    assert normalized_cross_entropy(y, P, epsilon=e, prior=pri) == pytest.approx(
        (z0 - z) / z0
    )


def test_perfect_predictions_tend_to_one():
    rng = np.random.default_rng(0)
    y = rng.integers(0, 4, 50)
    P = np.eye(4)[y]
    vals = [perplexity(y, P, epsilon=e) for e in (1e-1, 1e-3, 1e-6, 0.0)]
    assert vals[-1] == 1.0
    assert np.all(np.diff(vals) < 0)  # decreases towards 1 as epsilon -> 0
    assert vals[2] == pytest.approx(1.0, abs=1e-5)
    assert normalized_cross_entropy(y, P, epsilon=0) == pytest.approx(1.0)


@pytest.mark.parametrize("G", [2, 3, 7])
def test_uniform_predictions(G):
    y = np.repeat(np.arange(G), 5)  # balanced prior
    P = np.full((len(y), G), 1.0 / G)
    assert perplexity(y, P, epsilon=0) == pytest.approx(G)
    assert perplexity(y, P, epsilon=1e-3) == pytest.approx(G)  # smoothing keeps uniform
    assert normalized_cross_entropy(y, P, epsilon=0) == pytest.approx(0.0, abs=1e-12)
    assert normalized_cross_entropy(y, P) == pytest.approx(0.0, abs=1e-12)


def test_monotone_in_true_class_probability():
    y = np.array([0, 1, 2, 0])
    base = np.full((4, 3), 1 / 3)
    perps, nces = [], []
    for q in np.linspace(1 / 3, 1.0, 6):
        P = base.copy()
        P[np.arange(4), y] = q
        P[np.arange(4)[:, None], (y[:, None] + [1, 2]) % 3] = (1 - q) / 2
        perps.append(perplexity(y, P))
        nces.append(normalized_cross_entropy(y, P, prior=[1 / 3, 1 / 3, 1 / 3]))
    assert np.all(np.diff(perps) < 0)
    assert np.all(np.diff(nces) > 0)
    assert nces[0] == pytest.approx(0.0, abs=1e-12) and nces[-1] < 1.0


def test_zero_probability_needs_smoothing():
    y = np.array([0, 1])
    P = np.array([[1.0, 0.0], [1.0, 0.0]])
    assert perplexity(y, P, epsilon=0) == np.inf
    assert normalized_cross_entropy(y, P, epsilon=0) == -np.inf
    val = perplexity(y, P, epsilon=1e-4)
    assert np.isfinite(val) and val > 10  # heavily penalised, finite


def test_classes_argument_and_column_order():
    y = np.array(["b", "b"])
    P = np.array([[0.1, 0.9], [0.3, 0.7]])  # columns: a, b
    assert perplexity(y, P, classes=["a", "b"], epsilon=0) == pytest.approx(
        (0.9 * 0.7) ** -0.5
    )
    # unsorted classes are honoured
    assert perplexity(y, P[:, ::-1], classes=["b", "a"], epsilon=0) == pytest.approx(
        (0.9 * 0.7) ** -0.5
    )
    with pytest.raises(ValueError, match="pass classes"):
        perplexity(y, P)  # y has 1 class, proba has 2 columns


def test_bad_input():
    y = np.array([0, 1])
    P = np.array([[0.5, 0.5], [0.5, 0.5]])
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        perplexity(y, np.array([[1.5, -0.5], [0.5, 0.5]]))
    with pytest.raises(ValueError, match="sum to 1"):
        perplexity(y, np.array([[0.5, 0.4], [0.5, 0.5]]))
    with pytest.raises(ValueError, match="shape"):
        perplexity(y, P[:1])
    with pytest.raises(ValueError, match="NaN"):
        perplexity(y, np.array([[np.nan, 0.5], [0.5, 0.5]]))
    with pytest.raises(LabelError, match="not in classes"):
        perplexity(np.array([0, 5]), P, classes=[0, 1])
    with pytest.raises(LabelError, match="1-D"):
        perplexity(y[:, None], P)
    with pytest.raises(InvalidParameterError, match="epsilon"):
        perplexity(y, P, epsilon=-1e-3)
    with pytest.raises(ValueError, match="prior must have shape"):
        normalized_cross_entropy(y, P, prior=[1.0, 0.0, 0.0])
    with pytest.raises(ValueError, match="undefined"):
        normalized_cross_entropy(np.array([0, 0]), np.array([[1.0], [1.0]]), epsilon=0)
