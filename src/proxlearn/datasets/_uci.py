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

The files are read from ``<data>/uci/`` on the data search path
(:func:`proxlearn.datasets.data_search_path`). :data:`UCI_FORMATS` describes
every file of that folder (also the feature sets of Zhuang 2011 ch. 3-5, loaded
by :func:`proxlearn.datasets.load_feature_dataset`); :data:`UCI_FILES` is its
older 4-tuple view, kept for existing callers.
"""

from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

import numpy as np

from ._base import SimilarityDataset
from ._gram import gram

__all__ = ["UCI_FILES", "UCI_FORMATS", "UCIFormat", "perturbed_gaussian_similarity",
           "read_uci", "uci_similarity_dataset"]


class UCIFormat(NamedTuple):
    """How one plain-text feature file is laid out (one entry of :data:`UCI_FORMATS`)."""

    file: str
    #: field separator; ``None``: any run of whitespace
    sep: str | None
    #: lines skipped at the top (column names)
    header: int
    #: column of the class label (0 = first, -1 = last)
    label_col: int
    #: further columns that are not features (e.g. Glass's id), 0-based
    drop: tuple[int, ...] = ()
    #: lines starting with this prefix are skipped (Australian's ``@`` header)
    comment: str | None = None


#: name -> layout of its file in ``uci/``.
UCI_FORMATS: dict[str, UCIFormat] = {
    "sonar": UCIFormat("sonar.data", ",", 1, -1),
    "liver": UCIFormat("bupa.data", ",", 1, -1),
    "ionosphere": UCIFormat("ionosphere.data", ",", 1, -1),
    "diabetes": UCIFormat("pima.data", ",", 1, -1),
    "heart": UCIFormat("heart.dat", None, 1, -1),
    "breast": UCIFormat("breast.data", ",", 0, 0),  # column 2 (code number) kept
    "splice": UCIFormat("splice.train", ",", 0, 0),
    "adult": UCIFormat("a1a", ",", 1, 0),
    "german": UCIFormat("german.data-numeric", None, 0, -1),
    "glass": UCIFormat("glass.data", ",", 0, -1, drop=(0,)),
    "australian": UCIFormat("australian.dat", ",", 0, -1, comment="@"),
    "soybean": UCIFormat("soybean-small.data", ",", 1, -1),
}

#: name -> (file, separator (None: whitespace), header lines, label column): the
#: 4-field view of :data:`UCI_FORMATS` (dropped columns and comment lines not shown).
UCI_FILES = {name: f[:4] for name, f in UCI_FORMATS.items()}


def read_uci(path, name):
    """Features ``X`` (float, ``(n, d)``) and labels ``y`` (stripped strings) of a
    UCI file in the format of :data:`UCI_FORMATS`.

    A malformed row is named by its line number in the file: a row with another
    number of fields than the first data row, or a feature that is not a number
    (the column is named too).
    """
    fmt = UCI_FORMATS[name]
    rows, lines = [], []
    for lineno, line in enumerate(Path(path).read_text().splitlines(), start=1):
        if lineno <= fmt.header or not line.strip():
            continue
        if fmt.comment is not None and line.lstrip().startswith(fmt.comment):
            continue
        fields = line.split(fmt.sep) if fmt.sep else line.split()
        rows.append([t.strip() for t in fields])
        lines.append(lineno)
    if not rows:
        raise ValueError(f"{path}: no data rows (expected the {name!r} layout of "
                         "uci/README.md).")
    width = len(rows[0])
    for r, lineno in zip(rows, lines, strict=True):
        if len(r) != width:
            raise ValueError(f"{path}: row {lineno} has {len(r)} fields, expected {width}.")
    label_col = fmt.label_col % width
    skip = {label_col} | {c % width for c in fmt.drop}
    keep = [c for c in range(width) if c not in skip]
    labels = np.array([r[label_col] for r in rows])
    try:
        X = np.array([[r[c] for c in keep] for r in rows], dtype=np.float64)
    except ValueError:
        for r, lineno in zip(rows, lines, strict=True):
            for c in keep:
                try:
                    float(r[c])
                except ValueError:
                    raise ValueError(
                        f"{path}: row {lineno}, column {c + 1}: non-numeric feature value "
                        f"{r[c]!r}.") from None
        raise  # pragma: no cover - float() and numpy disagree
    return X, labels


def perturbed_gaussian_similarity(X, *, eta=0.1, random_state=0):
    """The stand-in indefinite similarity of the module docstring, ``(n, n)``."""
    X = np.asarray(X, dtype=np.float64)
    sd = X.std(axis=0)
    Z = (X - X.mean(axis=0)) / np.where(sd > 0, sd, 1.0)  # constant columns stay 0
    sq = (Z * Z).sum(1)
    D2 = np.maximum(sq[:, None] + sq[None] - 2 * gram(Z), 0.0)  # thread-independent bits
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
