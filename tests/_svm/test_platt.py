"""Platt's sigmoid and the calibrators of proxlearn._svm._platt (the estimators'
probability=True is tested in tests/svm/test_probability.py)."""

import numpy as np
from scipy.special import expit, log_expit

from proxlearn._svm._platt import calibrated_proba, fit_calibrators, fit_platt_sigmoid


def test_platt_sigmoid_is_the_maximum_likelihood_fit():
    """Certificate: the gradient of the regularised-target log loss vanishes."""
    rng = np.random.default_rng(0)
    f = 3.0 * rng.normal(size=300)
    pos = f + 2.0 * rng.normal(size=300) > 0.5
    A, B = fit_platt_sigmoid(f, pos)
    n_pos, n_neg = pos.sum(), (~pos).sum()
    t = np.where(pos, (n_pos + 1) / (n_pos + 2), 1 / (n_neg + 2))
    z = A * f + B
    dz = expit(z) - (1 - t)
    grad = np.array([dz @ f, dz.sum()])
    assert np.abs(grad).max() <= 1e-4 * len(f)
    assert A < 0  # larger decision values mean the positive class
    value = -np.sum(t * log_expit(-z) + (1 - t) * log_expit(z))
    for dA, dB in [(1e-3, 0), (-1e-3, 0), (0, 1e-3), (0, -1e-3)]:
        z2 = (A + dA) * f + B + dB
        assert value <= -np.sum(t * log_expit(-z2) + (1 - t) * log_expit(z2)) + 1e-9


def test_calibrators_match_sigmoid_formula_and_normalise():
    rng = np.random.default_rng(1)
    f = rng.normal(size=(60, 3))
    y = f.argmax(axis=1)
    cals = fit_calibrators(f, y, "sigmoid")
    P = calibrated_proba(f, cals)
    raw = np.column_stack([expit(-(c.a * f[:, k] + c.b)) for k, c in enumerate(cals)])
    np.testing.assert_allclose(P, raw / raw.sum(axis=1, keepdims=True))
