"""Several similarity matrices over the same labelled objects.

:class:`MultiSimilarityDataset` is the data-set side of the library's
multi-similarity convention (:mod:`proxlearn._multi_input`): the ``m`` matrices
are stacked on the **last** axis, ``matrices[:, :, i]``, so that the study
runner's ``S[np.ix_(rows, cols)]`` slices every matrix at once and the
multi-similarity estimators (``mkl``, ``kernel_learning.ESKL / EMKL / REKL``)
take the slices directly. Kundu et al. (NIPS 2010, Table 3) use three alignment
scores (PSI-BLAST, Smith-Waterman, Needleman-Wunsch) of the same proteins.

Registered multi-similarity sets (:data:`MULTI_REGISTRY`) are built from
registered single sets over the same objects, in the same order.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np

from .._multi_input import check_multi_similarity
from .._validation import LabelError, SimilarityMatrixError
from ._base import SimilarityDataset, dataset_labels

__all__ = ["MULTI_REGISTRY", "MultiSimilarityDataset", "MultiSpec"]


@dataclass
class MultiSimilarityDataset:
    """``m`` similarity matrices over the same ``n`` objects, with one label per object.

    Parameters
    ----------
    matrices : array-like of shape (n, n, m), or a list of m (n, n) matrices
        ``matrices[:, :, i]`` is the ``i``-th similarity; each is checked like
        the matrix of a :class:`SimilarityDataset` (a bad one is named); an
        ``(n, n)`` matrix is ``m = 1`` (the library's convention,
        :func:`proxlearn.mkl.check_multi_similarity`).
    labels : array-like of shape (n,)
    name : str
    matrix_names : sequence of str, optional
        One name per matrix (default ``"S0"``, ``"S1"``, ...).
    description, class_names, source : as :class:`SimilarityDataset`.

    Notes
    -----
    ``matrix`` is an alias of ``matrices`` so that code written for one matrix
    (the study runner, ``np.ix_`` slicing) passes the stack through unchanged;
    single-matrix methods refuse a 3-D array with a clear error. Use
    :meth:`view` for one matrix and :meth:`average` for their mean.

    Examples
    --------
    >>> from proxlearn.datasets import load_dataset
    >>> ds = load_dataset("digits-multi")
    >>> ds.matrices.shape, ds.view(0).matrix.shape
    ((400, 400, 3), (400, 400))

    See Also
    --------
    SimilarityDataset : one matrix.
    proxlearn.transforms.CombineSimilarities : one matrix from the stack.
    proxlearn.mkl : learners on stacks.
    """

    matrices: np.ndarray
    labels: np.ndarray
    name: str = "unnamed"
    matrix_names: tuple = field(default=())
    description: str = ""
    class_names: tuple = field(default=())
    source: str = ""
    kind: str = "similarity"
    conversion: str = ""

    def __post_init__(self):
        what = f"data set {self.name!r}"
        given = tuple(str(s) for s in self.matrix_names)

        def label(i):
            return f"matrix {i} ({given[i] if i < len(given) else f'S{i}'!r}) of {what}"

        self.matrices = check_multi_similarity(
            self.matrices, name=f"the matrices of {what}", symmetric="allow",
            dissimilarity_check=False, label=label)
        n, _, m = self.matrices.shape
        names = given or tuple(f"S{i}" for i in range(m))
        if len(names) != m:
            raise SimilarityMatrixError(
                f"{what} has {m} matrices but {len(names)} matrix_names; give one per matrix."
            )
        self.matrix_names = names
        self.labels, self.class_names = dataset_labels(
            self.labels, n, self.class_names, what)

    @property
    def matrix(self) -> np.ndarray:
        """The ``(n, n, m)`` stack (alias of ``matrices``, see Notes)."""
        return self.matrices

    @property
    def n(self) -> int:
        return int(self.matrices.shape[0])

    @property
    def m(self) -> int:
        """Number of similarity matrices."""
        return int(self.matrices.shape[2])

    @property
    def classes(self) -> np.ndarray:
        return np.unique(self.labels)

    @property
    def class_counts(self) -> dict:
        classes, counts = np.unique(self.labels, return_counts=True)
        return {c.item() if hasattr(c, "item") else c: int(k) for c, k in zip(classes, counts)}

    def view(self, i) -> SimilarityDataset:
        """Matrix ``i`` (index or name) as a :class:`SimilarityDataset`."""
        if isinstance(i, str):
            if i not in self.matrix_names:
                raise SimilarityMatrixError(
                    f"data set {self.name!r} has no matrix {i!r}; its matrices are "
                    f"{list(self.matrix_names)}."
                )
            i = self.matrix_names.index(i)
        if not -self.m <= int(i) < self.m:
            raise SimilarityMatrixError(
                f"data set {self.name!r} has {self.m} matrices; index {i} is out of range."
            )
        return SimilarityDataset(
            matrix=self.matrices[:, :, i], labels=self.labels,
            name=f"{self.name}[{self.matrix_names[i]}]", class_names=self.class_names,
            description=f"matrix {self.matrix_names[i]!r} of {self.name}", source=self.source)

    def average(self) -> SimilarityDataset:
        """The mean of the ``m`` matrices (the "uniform" baseline), one data set."""
        return SimilarityDataset(
            matrix=self.matrices.mean(axis=2), labels=self.labels, name=f"{self.name}[average]",
            class_names=self.class_names, description=f"mean of the matrices of {self.name}",
            source=self.source)

    def subset(self, classes, *, name: str | None = None) -> MultiSimilarityDataset:
        """Restrict every matrix to the samples of ``classes``."""
        one = self.view(0).subset(classes)
        keep = np.isin(self.labels, np.unique(one.labels))
        return replace(self, matrices=self.matrices[np.ix_(keep, keep)], labels=self.labels[keep],
                       name=name or one.name.replace(f"[{self.matrix_names[0]}]", ""),
                       class_names=one.class_names)

    @classmethod
    def from_datasets(cls, datasets, *, name=None, matrix_names=None, description=""):
        """Stack single data sets over the same objects (same ``n``, same labels in
        the same order: checked, since a silent misalignment would be a wrong answer)."""
        datasets = list(datasets)
        if not datasets:
            raise SimilarityMatrixError("from_datasets needs at least one data set.")
        first = datasets[0]
        for ds in datasets[1:]:
            if ds.n != first.n:
                raise SimilarityMatrixError(
                    f"data sets {first.name!r} (n = {first.n}) and {ds.name!r} (n = {ds.n}) "
                    "do not cover the same objects."
                )
            if not np.array_equal(np.asarray(ds.labels), np.asarray(first.labels)):
                raise LabelError(
                    f"data sets {first.name!r} and {ds.name!r} have different labels (or the "
                    "same objects in a different order); align them before stacking."
                )
        return cls(np.stack([ds.matrix for ds in datasets], axis=-1), first.labels,
                   name=name or "+".join(ds.name for ds in datasets),
                   matrix_names=tuple(matrix_names or (ds.name for ds in datasets)),
                   description=description, class_names=first.class_names,
                   source="; ".join(dict.fromkeys(ds.source for ds in datasets)),
                   conversion="; ".join(f"{ds.name}: {ds.conversion}" for ds in datasets
                                        if getattr(ds, "conversion", "")))

    def describe(self) -> dict:
        """``proxlearn info``: the common facts and :func:`describe` of every matrix
        (JSON-serialisable), plus the mean pairwise correlation of their
        off-diagonal entries (how much the matrices say the same thing)."""
        from ._base import describe

        off = ~np.eye(self.n, dtype=bool)
        flat = np.stack([self.matrices[:, :, i][off] for i in range(self.m)])
        corr = np.corrcoef(flat) if self.m > 1 else np.ones((1, 1))
        return {"name": self.name, "n": self.n, "m": self.m,
                "n_classes": len(self.class_names),
                "class_counts": {str(k): v for k, v in self.class_counts.items()},
                "matrix_names": list(self.matrix_names), "description": self.description,
                "source": self.source,
                "correlation": np.round(corr, 6).tolist(),
                "matrices": [describe(self.view(i)) for i in range(self.m)]}

    def __repr__(self) -> str:
        return (f"MultiSimilarityDataset(name={self.name!r}, n={self.n}, m={self.m}, "
                f"matrices={list(self.matrix_names)}, classes={len(self.class_names)})")


@dataclass(frozen=True)
class MultiSpec:
    """A registered multi-similarity set: registered single sets, stacked.

    Examples
    --------
    >>> from proxlearn.datasets import MULTI_REGISTRY
    >>> MULTI_REGISTRY["digits-multi"].parts
    ('digits-idm', 'digits-rbf', 'digits-hog')

    See Also
    --------
    MULTI_REGISTRY : the registered specs.
    MultiSimilarityDataset : what :func:`load_dataset` builds from one.
    """

    description: str
    n: int
    parts: tuple  # names of registered single data sets


#: name -> spec; each part is a registered single data set over the same objects.
MULTI_REGISTRY: dict[str, MultiSpec] = {
    "protein-multi": MultiSpec(
        "Protein alignment similarity and its RBF-sim on the rows (Chen et al. 2009), "
        "m = 2", 213, ("protein", "protein-rbf")),
    "digits-multi": MultiSpec(
        "the digits of digits-idm under three similarities: Image Distortion Model, "
        "Euclidean RBF on pixels, cosine of gradient histograms; m = 3", 400,
        ("digits-idm", "digits-rbf", "digits-hog")),
}
