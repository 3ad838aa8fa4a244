"""A similarity set built from real strings by :mod:`proxlearn.pairwise`.

``splice-sw``: 400 DNA sequences of the UCI splice-junction data (LIBSVM's
``splice.train``, 1000 sequences of 60 nucleotides coded 1-4 for A, C, G, T, two
classes), a stratified sample (seed 0), compared by normalised Smith-Waterman local
alignment (parasail, ``smith-waterman-normalized``). The matrix is indefinite (59 of
400 eigenvalues below zero, ``lambda_min / lambda_max = -0.0025``).
"""

from __future__ import annotations

import numpy as np
from sklearn.model_selection import train_test_split

from ..pairwise import pairwise_similarity
from ._base import SimilarityDataset
from ._uci import read_uci

__all__ = ["SPLICE_SAMPLE", "splice_alignment_dataset"]

#: Sequences sampled from the 1000 of ``splice.train`` (a 400 x 400 alignment matrix
#: builds in about half a second).
SPLICE_SAMPLE = 400
_NUCLEOTIDES = "ACGT"


def splice_alignment_dataset(path, n=SPLICE_SAMPLE, metric="smith-waterman-normalized"):
    """The ``splice-sw`` set from LIBSVM's ``splice.train`` at ``path``.

    Parameters
    ----------
    path : path-like
        The file (comma-separated: the label, then 60 positions coded 1-4).
    n : int, default=400
        Sequences kept, a stratified sample (``random_state=0``); all when ``n``
        is at least the file's count.
    metric : str, default="smith-waterman-normalized"
        A sequence measure of :data:`proxlearn.pairwise.METRICS` that is a similarity.

    Returns
    -------
    SimilarityDataset
        ``matrix`` ``(n, n)``, ``labels`` the file's ``"-1"`` / ``"+1"`` classes
        (``"+1"``: a splice junction; Delve / LIBSVM's two-class version).

    Raises
    ------
    ValueError
        When a position is not one of the codes 1, 2, 3, 4.

    Examples
    --------
    >>> from proxlearn.datasets import load_dataset
    >>> ds = load_dataset("splice-sw")  # doctest: +SKIP
    >>> ds.matrix.shape  # doctest: +SKIP
    (400, 400)

    See Also
    --------
    proxlearn.pairwise.pairwise_similarity : the builder.
    load_dataset : loads it by name.
    """
    X, labels = read_uci(path, "splice")
    codes = np.unique(X)
    if not np.isin(codes, (1, 2, 3, 4)).all():
        raise ValueError(f"{path}: splice positions must be coded 1-4 (A, C, G, T); found "
                         f"{sorted(set(codes.tolist()) - {1, 2, 3, 4})[:5]}. Is this "
                         "LIBSVM's splice.train?")
    labels = np.asarray(labels)
    idx = np.arange(len(labels))
    if n < len(labels):
        idx, _ = train_test_split(idx, train_size=n, stratify=labels, random_state=0)
        idx = np.sort(idx)
    seqs = ["".join(_NUCLEOTIDES[int(v) - 1] for v in row) for row in X[idx]]
    S = np.asarray(pairwise_similarity(seqs, metric=metric), dtype=float)
    return SimilarityDataset(
        matrix=S, labels=labels[idx], name="splice-sw",
        description=(f"UCI splice junctions (LIBSVM splice.train), {len(idx)} DNA sequences "
                     f"of 60 nt, {metric} alignment (parasail)"),
        source=str(path))
