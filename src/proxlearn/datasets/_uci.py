"""UCI feature data of Kundu et al. (2010) Table 1, and indefinite similarities from them.

Kundu et al. build indefinite similarity matrices for Sonar, Liver, Ionosphere,
Diabetes and Heart "as prescribed in" Ying, Campbell & Girolami (NIPS 2009), a
recipe neither paper prints. :func:`perturbed_gaussian_similarity` is our
**documented stand-in**, in the spirit of Luss & d'Aspremont (2007), who make
kernels indefinite by a symmetric random perturbation: features z-scored, a
Gaussian kernel ``exp(-||x - x'||^2 / median)`` (median of the off-diagonal
squared distances), plus ``eta (R + R^T) / sqrt(2)`` off the diagonal, ``R``
standard normal, ``eta = 0.1``, seeded. Everything computed on it is an
approximation of Table 1, and the report says so.

The files are read from ``<data>/uci/`` on the data search path (the copies in
``../shared/data/uci``; formats in its README).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ._base import SimilarityDataset

__all__ = ["UCI_FILES", "perturbed_gaussian_similarity", "read_uci"]

#: name -> (file, separator (None: whitespace), header lines, label column)
UCI_FILES = {
    "sonar": ("sonar.data", ",", 1, -1),
    "liver": ("bupa.data", ",", 1, -1),
    "ionosphere": ("ionosphere.data", ",", 1, -1),
    "diabetes": ("pima.data", ",", 1, -1),
    "heart": ("heart.dat", None, 1, -1),
}


def read_uci(path, name):
    """Features ``X`` (float, ``(n, d)``) and labels ``y`` of a UCI file in the
    format of :data:`UCI_FILES`; a malformed row is named in the error."""
    _, sep, header, label_col = UCI_FILES[name]
    lines = [ln for ln in Path(path).read_text().splitlines()[header:] if ln.strip()]
    rows = [ln.split(sep) if sep else ln.split() for ln in lines]
    width = len(rows[0])
    for i, r in enumerate(rows):
        if len(r) != width:
            raise ValueError(f"{path}: row {i + header + 1} has {len(r)} fields, expected {width}.")
    labels = np.array([r[label_col].strip() for r in rows])
    feats = [r[:label_col] + r[label_col + 1:] if label_col != -1 else r[:-1] for r in rows]
    try:
        X = np.array(feats, dtype=np.float64)
    except ValueError as exc:
        raise ValueError(f"{path}: non-numeric feature value ({exc}).") from None
    return X, labels


def perturbed_gaussian_similarity(X, *, eta=0.1, random_state=0):
    """The stand-in indefinite similarity of the module docstring, ``(n, n)``."""
    X = np.asarray(X, dtype=np.float64)
    sd = X.std(axis=0)
    Z = (X - X.mean(axis=0)) / np.where(sd > 0, sd, 1.0)  # constant columns stay 0
    sq = (Z * Z).sum(1)
    D2 = np.maximum(sq[:, None] + sq[None] - 2 * Z @ Z.T, 0.0)
    np.fill_diagonal(D2, 0.0)
    K = np.exp(-D2 / float(np.median(D2[~np.eye(len(Z), dtype=bool)])))
    R = np.random.default_rng(random_state).normal(size=K.shape)
    E = (R + R.T) / np.sqrt(2.0)
    np.fill_diagonal(E, 0.0)
    return K + float(eta) * E


def uci_similarity_dataset(path, name, display):
    """A registered ``<name>-noisy`` set: the stand-in similarity of a UCI file."""
    X, labels = read_uci(path, name)
    return SimilarityDataset(
        matrix=perturbed_gaussian_similarity(X), labels=labels, name=f"{name}-noisy",
        description=(f"UCI {display} (Kundu et al. 2010 Table 1): Gaussian kernel on z-scored "
                     "features + symmetric N(0, 0.1^2) noise, a stand-in for Ying et al.'s "
                     "unprinted recipe"),
        source=str(path))
