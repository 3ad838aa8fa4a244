"""Similarity or dissimilarity? Detection and conversion at load time.

A distance matrix handed to a method that expects similarities gives a
silently wrong answer: the "nearest" neighbours are the farthest objects (a
Levenshtein matrix read as similarities scored 100 % k-NN error). Loaders and the
command line therefore resolve the kind of a matrix once, when it is loaded:

=================  ===================================================================
``kind``           what happens
=================  ===================================================================
``"auto"``         :func:`~proxlearn._validation.looks_like_dissimilarity` decides
                   (the rule of :class:`~proxlearn.exceptions.DissimilarityWarning`:
                   a zero diagonal with positive off-diagonal entries, or a diagonal
                   that is the smallest entry of most rows); a detected
                   dissimilarity is converted, with one ``DissimilarityWarning``
                   saying so
``"similarity"``   the matrix is used as given (estimators may still warn)
``"dissimilarity"`` the matrix is converted (or kept as a dissimilarity with
                   ``convert=None``)
=================  ===================================================================

The default conversion is ``s = -d`` (:class:`~proxlearn.transforms.DissimilarityToSimilarity`
``method="negative"``). It has no parameter, so converting the whole matrix
before a study splits it is exactly the same as converting every training
fold and its test rows separately: nothing is learned from test samples.
``"max-minus"``, ``"exp"`` (median scale) and ``"double-centering"`` fit a
statistic of the whole matrix when used at load time (transductive); for a
per-fold conversion put :class:`~proxlearn.transforms.DissimilarityToSimilarity`
in a :class:`sklearn.pipeline.Pipeline` and load with ``kind="similarity"``.
"""

from __future__ import annotations

import warnings
from dataclasses import replace

from .._validation import DISSIMILARITY_METHODS, check_option, looks_like_dissimilarity
from ..exceptions import DissimilarityWarning
from ..transforms import DissimilarityToSimilarity
from ._base import SimilarityDataset

__all__ = ["DEFAULT_CONVERSION", "KIND_OPTIONS", "resolve_kind"]

#: Values of the ``kind`` argument of the loaders and of ``--kind``.
KIND_OPTIONS = ("auto", "similarity", "dissimilarity")
#: Conversion applied to a (detected) dissimilarity: parameter-free, so not transductive.
DEFAULT_CONVERSION = "negative"

_FORMULA = {
    "negative": "s = -d",
    "max-minus": "s = max(D) - d",
    "exp": "s = exp(-d / median(D))",
    "double-centering": "S = -1/2 J D^2 J (classical scaling)",
}


def resolve_kind(dataset: SimilarityDataset, kind: str = "auto",
                 convert: str | None = DEFAULT_CONVERSION) -> SimilarityDataset:
    """Decide whether ``dataset`` holds similarities and convert it if not.

    Parameters
    ----------
    dataset : SimilarityDataset
    kind : {"auto", "similarity", "dissimilarity"}, default="auto"
        See the module docstring.
    convert : str or None, default="negative"
        A :class:`~proxlearn.transforms.DissimilarityToSimilarity` method for a
        dissimilarity, or ``None`` to keep it (``kind="dissimilarity"`` on the
        result).

    Returns
    -------
    SimilarityDataset
        Converted (``kind="similarity"``, ``conversion`` saying what was done)
        or unchanged.

    Warns
    -----
    DissimilarityWarning
        Once, when ``kind="auto"`` detects a dissimilarity.

    Examples
    --------
    >>> import numpy as np
    >>> from proxlearn.datasets import SimilarityDataset, resolve_kind
    >>> D = np.array([[0.0, 1.0, 2.0], [1.0, 0.0, 1.0], [2.0, 1.0, 0.0]])
    >>> ds = resolve_kind(SimilarityDataset(D, [0, 0, 1], name="d"), "dissimilarity")
    >>> ds.kind, ds.matrix[0].tolist()
    ('similarity', [-0.0, -1.0, -2.0])

    See Also
    --------
    proxlearn.transforms.DissimilarityToSimilarity : the conversions.
    load_dataset : calls it at load time.
    """
    check_option(kind, "kind", KIND_OPTIONS)
    if convert is not None:
        check_option(convert, "convert", DISSIMILARITY_METHODS)
    if kind == "similarity":
        return replace(dataset, kind="similarity")
    if kind == "auto":
        flag, reason = looks_like_dissimilarity(dataset.matrix)
        if not flag:
            return replace(dataset, kind="similarity")
        why = f"detected as a dissimilarity ({reason})"
    else:
        why = "declared a dissimilarity"
    if convert is None:
        return replace(dataset, kind="dissimilarity", conversion=f"{why}; not converted")
    S = DissimilarityToSimilarity(method=convert).fit_transform(dataset.matrix)
    note = (f"{dataset.name}: {why}; converted to similarities with {_FORMULA[convert]} "
            f"(DissimilarityToSimilarity(method={convert!r}))")
    if kind == "auto":
        warnings.warn(
            note + ". Pass kind='similarity' (--kind similarity) to use the matrix as "
            "given, or choose another conversion with convert= (--convert).",
            DissimilarityWarning,
            stacklevel=3,
        )
    return replace(dataset, matrix=S, kind="similarity", conversion=note)
