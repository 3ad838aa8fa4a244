"""The :class:`SimilarityDataset` container and its spectral summary.

A data set in proxlearn is what the similarity-learning papers work with: an
n x n matrix of pairwise (dis)similarities plus one class label per row
(Chen et al., JMLR 2009, section 7.1; Gu & Guo, AAAI 2012, section 3).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np
import scipy.linalg

from ..exceptions import DatasetNotFoundError
from .._validation import (
    ASYMMETRY_TOL,
    LabelError,
    SimilarityMatrixError,
    asymmetry,
    check_labels,
    check_similarity,
    looks_like_dissimilarity,
)

__all__ = ["DatasetNotFoundError", "EIGENVALUE_RTOL", "SimilarityDataset", "describe"]

#: Eigenvalues with ``|lambda| <= EIGENVALUE_RTOL * max|lambda|`` count as zero.
EIGENVALUE_RTOL = 1e-10

_KINDS = ("similarity", "dissimilarity")


@dataclass
class SimilarityDataset:
    """An n x n (dis)similarity matrix with one class label per row.

    Parameters
    ----------
    matrix : array-like of shape (n, n)
        ``matrix[i, j] = psi(x_i, x_j)``; converted to float64. May be
        asymmetric and indefinite.
    labels : array-like of shape (n,), or None
        Class label of each row (numbers or strings). ``None`` for a matrix
        without labels (``proxlearn info`` on an unlabelled file); such a
        data set can be described and plotted but not used in a study.
    name : str
        Short name, e.g. ``"aural_sonar"``.
    kind : {"similarity", "dissimilarity"}
        Whether large entries mean "alike" or "far apart".
    description : str
        One-line human description (with its literature source).
    class_names : sequence of str, optional
        One display name per unique label, in sorted label order. Defaults to
        ``str(label)``.
    source : str
        Where the data came from: a file path or ``"embedded"``.
    conversion : str
        What was done to the stored matrix at load time (a dissimilarity
        detected and converted, see :func:`proxlearn.datasets.resolve_kind`);
        empty when it is used as stored.

    Examples
    --------
    >>> import numpy as np
    >>> from proxlearn.datasets import SimilarityDataset
    >>> ds = SimilarityDataset(np.eye(3), [0, 1, 1], name="toy")
    >>> ds.matrix.shape, ds.labels.tolist(), ds.kind
    ((3, 3), [0, 1, 1], 'similarity')

    See Also
    --------
    load_dataset : a named set as a SimilarityDataset.
    load_similarity : a matrix file as a SimilarityDataset.
    MultiSimilarityDataset : several matrices over the same objects.
    """

    matrix: np.ndarray
    labels: np.ndarray | None
    name: str = "unnamed"
    kind: str = "similarity"
    description: str = ""
    class_names: tuple = field(default=())
    source: str = ""
    conversion: str = ""

    def __post_init__(self):
        what = f"data set {self.name!r}"
        S = check_similarity(
            self.matrix, name=f"the matrix of {what}", square=False,
            dissimilarity_check=False,
        )
        if S.shape[0] != S.shape[1]:
            raise SimilarityMatrixError(
                f"the matrix of {what} must be square (n x n, one row and one "
                f"column per sample), got shape {S.shape}. Check that the file "
                "holds the full pairwise matrix, not a test-to-train block or "
                "feature vectors."
            )
        self.matrix = S
        if self.kind not in _KINDS:
            raise ValueError(f"kind must be one of {_KINDS}, got {self.kind!r}.")
        if self.labels is None:
            self.class_names = ()
            return
        self.labels, self.class_names = dataset_labels(
            self.labels, S.shape[0], self.class_names, what)

    @property
    def n(self) -> int:
        """Number of samples."""
        return int(self.matrix.shape[0])

    @property
    def classes(self) -> np.ndarray:
        """Sorted unique labels (empty without labels)."""
        return np.unique(self.labels) if self.labels is not None else np.array([])

    @property
    def class_counts(self) -> dict:
        """Mapping label -> number of samples, in sorted label order ({} without labels)."""
        if self.labels is None:
            return {}
        classes, counts = np.unique(self.labels, return_counts=True)
        return {c.item() if hasattr(c, "item") else c: int(k)
                for c, k in zip(classes, counts)}

    def subset(self, classes, *, name: str | None = None) -> SimilarityDataset:
        """Restrict to the samples of ``classes`` (rows and columns).

        Used for Protein-2 (classes 1 and 2 of Protein, Chen thesis ch. 5).
        """
        if self.labels is None:
            raise LabelError(f"data set {self.name!r} has no labels: no classes to take.")
        wanted = np.atleast_1d(np.asarray(classes, dtype=self.labels.dtype))
        known = self.classes
        missing = [c for c in wanted.tolist() if c not in known.tolist()]
        if missing or wanted.size == 0:
            raise LabelError(
                f"cannot take classes {wanted.tolist()!r} of data set {self.name!r}; "
                f"its classes are {known.tolist()!r}."
            )
        keep = np.isin(self.labels, wanted)
        pos = np.searchsorted(known, np.unique(wanted))
        tag = "+".join(str(c) for c in np.unique(wanted).tolist())
        return replace(
            self,
            matrix=self.matrix[np.ix_(keep, keep)],
            labels=self.labels[keep],
            name=name or f"{self.name}[{tag}]",
            class_names=tuple(self.class_names[i] for i in pos),
            description=self.description or f"classes {tag} of {self.name}",
        )

    def __repr__(self) -> str:
        return (
            f"SimilarityDataset(name={self.name!r}, n={self.n}, kind={self.kind!r}, "
            f"classes={len(self.class_names)}, source={self.source!r})"
        )


def dataset_labels(labels, n, class_names, what):
    """Checked label vector (a column vector is flattened) and one display name per
    class, for the data-set containers."""
    y = np.asarray(labels)
    if y.ndim == 2 and 1 in y.shape:
        y = y.ravel()
    try:
        classes, _ = check_labels(y, n, min_classes=1)
    except LabelError as exc:
        raise LabelError(f"{what}: {exc}") from None
    names = tuple(str(c) for c in (class_names or classes.tolist()))
    if len(names) != len(classes):
        raise LabelError(
            f"{what} has {len(classes)} classes but {len(names)} class_names "
            "were given; give one name per unique label, in sorted order."
        )
    return y, names


def spectrum(S) -> np.ndarray:
    """Ascending eigenvalues of the symmetric part ``(S + S^T) / 2``."""
    S = np.asarray(S, dtype=np.float64)
    return scipy.linalg.eigh(0.5 * (S + S.T), eigvals_only=True, driver="evd")


def describe(dataset: SimilarityDataset, *, rtol: float = EIGENVALUE_RTOL) -> dict:
    """Summary statistics of a data set, as printed by ``proxlearn info``.

    The spectral numbers are those used to characterise indefiniteness in
    Gu & Guo (AAAI 2012, Table 1 and section 3.2) and Chen's thesis (ch. 4-5):
    ``lambda_min``, ``lambda_max``, ``|lambda_min / lambda_max|`` and the
    negative mass ratio ``|sum(lambda < 0)| / sum(lambda > 0)``. They are
    computed on the symmetric part ``(S + S^T) / 2`` (the matrix kernel
    methods actually use). An eigenvalue counts as negative (positive) when it
    is below ``-rtol * max|lambda|`` (above ``+rtol * max|lambda|``); smaller
    ones are treated as numerical zeros.

    Returns
    -------
    dict
        JSON-serialisable: ``name, n, n_classes, class_counts`` (label as str
        -> count), ``class_names, symmetric, asymmetry, diagonal`` ({min, mean,
        max}), ``sparsity`` (fraction of exact zeros), ``n_negative_eigenvalues,
        n_positive_eigenvalues, lambda_min, lambda_max, lambda_ratio,
        negative_mass_ratio, kind, looks_like_dissimilarity,
        dissimilarity_reason, conversion, source, description, eigenvalue_rtol``.
        ``looks_like_dissimilarity`` applies the rule of
        :class:`~proxlearn.exceptions.DissimilarityWarning` to the matrix as
        described (after any conversion at load time).
        The two ratios are ``None`` when undefined (no positive eigenvalue).

    Examples
    --------
    >>> from proxlearn.datasets import describe, load_dataset
    >>> info = describe(load_dataset("synthetic-2"))
    >>> info["n"], info["n_classes"], info["symmetric"], info["n_negative_eigenvalues"] > 0
    (300, 3, True, True)

    See Also
    --------
    resolve_kind : the similarity / dissimilarity decision it reports.
    """
    S = dataset.matrix
    w = spectrum(S)
    scale = float(np.max(np.abs(w)))
    tol = rtol * scale
    neg, pos = w[w < -tol], w[w > tol]
    lam_min, lam_max = float(w[0]), float(w[-1])
    diag = np.diag(S)
    asym = asymmetry(S)
    flag, reason = looks_like_dissimilarity(S)
    return {
        "name": dataset.name,
        "n": dataset.n,
        "n_classes": len(dataset.class_names),
        "class_counts": {str(k): v for k, v in dataset.class_counts.items()},
        "class_names": list(dataset.class_names),
        "kind": dataset.kind,
        "looks_like_dissimilarity": flag,
        "dissimilarity_reason": reason,
        "conversion": dataset.conversion,
        "source": dataset.source,
        "description": dataset.description,
        "symmetric": bool(asym <= ASYMMETRY_TOL),
        "asymmetry": asym,
        "diagonal": {"min": float(diag.min()), "mean": float(diag.mean()),
                     "max": float(diag.max())},
        "sparsity": float(np.mean(S == 0.0)),
        "n_negative_eigenvalues": int(neg.size),
        "n_positive_eigenvalues": int(pos.size),
        "lambda_min": lam_min,
        "lambda_max": lam_max,
        "lambda_ratio": abs(lam_min / lam_max) if lam_max != 0 else None,
        "negative_mass_ratio": float(abs(neg.sum()) / pos.sum()) if pos.size
        else None,
        "eigenvalue_rtol": rtol,
    }
