"""Regression targets built from real data (datasets._targets)."""

import numpy as np
import pytest

from proxlearn.datasets._targets import REGRESSION_TARGET_NAMES, regression_targets
from proxlearn.exceptions import InvalidParameterError


def test_diabetes_target_is_built_from_the_features_without_it():
    from sklearn.datasets import load_diabetes

    targets, missing = regression_targets(["diabetes"])
    assert missing == {} and list(targets) == ["diabetes"]
    t = targets["diabetes"]
    d = load_diabetes()
    assert np.array_equal(t.target, d.target)
    assert t.matrix.shape == (442, 442) and np.allclose(t.matrix, t.matrix.T)
    assert np.linalg.eigvalsh(t.matrix).min() < -1e-8  # the sigmoid kernel is indefinite
    Z = (d.data - d.data.mean(0)) / d.data.std(0)
    assert np.allclose(t.matrix, np.tanh(Z @ Z.T / 10 - 0.5))


def test_digits_ink_is_the_mean_pixel_of_the_idm_set():
    t = regression_targets(["digits-ink"])[0]["digits-ink"]
    assert t.stack == "digits-multi" and t.matrix.shape == (400, 400)
    from proxlearn.datasets._embedded import _digits_subset

    images = _digits_subset(40, 0)[0]
    assert np.allclose(t.target, images.reshape(400, -1).mean(axis=1))
    assert 0 < t.target.min() < t.target.max() < 16


def test_unknown_target_is_refused_with_the_names():
    with pytest.raises(InvalidParameterError, match="glass-RI"):
        regression_targets(["nope"])
    assert REGRESSION_TARGET_NAMES[0] == "glass-RI"
