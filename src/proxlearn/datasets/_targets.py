"""Regression targets built from real data: a similarity that does not see the target.

========================  =======  =================================================
name                      n        similarity -> target
========================  =======  =================================================
``glass-RI``              214      sigmoid kernel of the 8 oxide contents (UCI glass)
                                   -> refractive index
``liver-drinks``          345      sigmoid kernel of the 5 blood tests (UCI BUPA)
                                   -> half-pint drinks per day (the set's intended target)
``diabetes``              442      sigmoid kernel of the 10 features (scikit-learn's
                                   bundled diabetes) -> disease progression
``digits-ink``            400      ``digits-idm`` (Image Distortion Model) -> mean
                                   pixel intensity of the image
========================  =======  =================================================

The sigmoid kernel is ``tanh(<z, z'> / d - 0.5)`` of the standardised features
``z`` (indefinite). Used by benchmarks/bench_regression.py and the reproduction
report's section ``beyond-regression`` (:mod:`proxlearn.study.papers.beyond`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["RegressionTarget", "regression_targets"]

#: The targets, in report order.
REGRESSION_TARGET_NAMES = ("glass-RI", "liver-drinks", "diabetes", "digits-ink")


@dataclass(frozen=True)
class RegressionTarget:
    """A similarity matrix and a real target over the same objects.

    ``features``: the standardised features the similarity was built from (the
    pixels for ``digits-ink``); ``stack``: the name of a
    :class:`~proxlearn.datasets.MultiSimilarityDataset` over the same objects in
    the same order whose first matrix is ``matrix`` (``None`` when there is none).
    """

    name: str
    matrix: np.ndarray
    target: np.ndarray
    features: np.ndarray
    description: str
    stack: str | None = None


def _sigmoid(X):
    Z = (X - X.mean(axis=0)) / X.std(axis=0)
    return np.tanh(Z @ Z.T / Z.shape[1] - 0.5), Z


def _glass(data_home):
    from ._features import load_feature_dataset

    X = load_feature_dataset("glass", data_home=data_home).X  # RI, then Na Mg Al Si K Ca Ba Fe
    S, Z = _sigmoid(X[:, 1:])
    return RegressionTarget("glass-RI", S, X[:, 0], Z, "UCI glass, refractive index from 8 oxides")


def _liver(data_home):
    from ._features import load_feature_dataset

    X = load_feature_dataset("liver", data_home=data_home).X  # 5 blood tests, then drinks
    S, Z = _sigmoid(X[:, :5])
    return RegressionTarget("liver-drinks", S, X[:, 5], Z,
                            "UCI BUPA liver, drinks from 5 blood tests")


def _diabetes(data_home):
    from sklearn.datasets import load_diabetes

    d = load_diabetes()
    S, Z = _sigmoid(d.data)
    return RegressionTarget("diabetes", S, d.target.astype(float), Z,
                            "sklearn diabetes, progression from 10 features")


def _digits_ink(data_home):
    from ._embedded import _digits_subset
    from ._registry import load_dataset

    ds = load_dataset("digits-idm", data_home=data_home)
    images, labels, _ = _digits_subset(40, 0)
    if not np.array_equal(labels, ds.labels):
        raise RuntimeError("digits-idm's labels do not match its digit images")
    pixels = images.reshape(len(images), -1).astype(float)
    sd = pixels.std(axis=0)
    Z = (pixels - pixels.mean(axis=0)) / np.where(sd > 0, sd, 1.0)
    return RegressionTarget("digits-ink", np.asarray(ds.matrix, dtype=float), pixels.mean(axis=1),
                            Z, "digits-idm, mean ink of the image", stack="digits-multi")


_BUILDERS = {"glass-RI": _glass, "liver-drinks": _liver, "diabetes": _diabetes,
             "digits-ink": _digits_ink}


def regression_targets(names=None, data_home=None):
    """The regression targets whose data are found.

    Parameters
    ----------
    names : sequence of str, optional
        Some of :data:`REGRESSION_TARGET_NAMES` (default: all).
    data_home : path, optional
        Where the UCI files are looked for (see :func:`proxlearn.datasets.data_search_path`).

    Returns
    -------
    targets : dict
        ``{name: RegressionTarget}`` of the targets built.
    missing : dict
        ``{name: reason}`` of those whose data are absent.
    """
    names = REGRESSION_TARGET_NAMES if names is None else tuple(names)
    unknown = [n for n in names if n not in _BUILDERS]
    if unknown:
        from .._validation import InvalidParameterError

        raise InvalidParameterError(f"unknown regression target(s) {unknown}; choose from "
                                    f"{list(REGRESSION_TARGET_NAMES)}.")
    out, missing = {}, {}
    for n in names:
        try:
            out[n] = _BUILDERS[n](data_home)
        except (FileNotFoundError, OSError) as exc:  # a UCI file absent: say so, skip it
            missing[n] = str(exc).splitlines()[0]
    return out, missing
