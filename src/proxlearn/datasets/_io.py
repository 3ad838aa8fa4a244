"""Reading a (dis)similarity matrix and its labels from a file.

Supported formats: MATLAB ``.mat`` (v4-v7, the format of the UW
similarity-learning benchmarks of Chen et al. 2009), numpy ``.npz`` and text
``.csv`` / ``.txt`` / ``.tsv`` with the labels in a separate file.
"""

from __future__ import annotations

import re
import zipfile
from pathlib import Path

import numpy as np

from .._files import FASTA_SUFFIXES, is_number
from .._validation import LabelError, SimilarityMatrixError
from ._base import DatasetNotFoundError, SimilarityDataset
from ._kind import DEFAULT_CONVERSION, resolve_kind

__all__ = ["SUPPORTED_SUFFIXES", "load_similarity"]

SUPPORTED_SUFFIXES = (".mat", ".npz", ".csv", ".txt", ".tsv")
_MATRIX_KEYS = ("S", "similarity", "matrix", "K", "D", "A")
_LABEL_KEYS = ("y", "labels", "label", "target", "classes", "C")
#: Vectors that are never labels: the object names ``proxlearn similarity`` stores.
_NOT_LABEL_KEYS = ("ids",)


def load_similarity(path, *, matrix_key=None, labels_key=None, labels_path=None,
                    kind="auto", convert=DEFAULT_CONVERSION, name=None,
                    description="", require_labels=True) -> SimilarityDataset:
    """Load a square (dis)similarity matrix and its class labels from a file.

    Parameters
    ----------
    path : str or Path
        ``.mat`` (``scipy.io.loadmat``), ``.npz``, or text ``.csv`` / ``.txt``
        / ``.tsv`` (comma- or whitespace-separated numbers, no header).
    matrix_key, labels_key : str, optional
        Variable names inside a ``.mat`` / ``.npz`` file. By default the file
        must hold exactly one square 2-D numeric array and one label vector of
        the same length (``S``/``similarity``/``matrix`` and ``y``/``labels``
        win a tie).
    labels_path : str or Path, optional
        Text (one label per line, or one comma/space separated line) or
        ``.npy`` file with the labels. For text matrices the default is a
        column named ``label``/``labels``/``y``/``class``/``target`` in a
        header row, else a sibling ``<stem>_labels<suffix>``,
        ``<stem>_labels.txt`` or ``<stem>.labels``. Labels may be strings.
        Text matrices may have a header row and an index column (as pandas'
        ``DataFrame.to_csv`` writes them); both are detected and dropped.
    kind : {"auto", "similarity", "dissimilarity"}, default="auto"
        ``"auto"`` detects a dissimilarity (zero diagonal, or a diagonal that
        is the smallest entry of most rows) and converts it with ``convert``,
        warning once; ``"similarity"`` uses the matrix as stored;
        ``"dissimilarity"`` converts it. See :func:`resolve_kind`.
    convert : str or None, default="negative"
        :class:`~proxlearn.transforms.DissimilarityToSimilarity` method for a
        dissimilarity (``"negative"``: ``s = -d``, parameter-free); ``None``
        keeps it as a dissimilarity.
    name : str, optional
        Data set name; defaults to the file stem.
    require_labels : bool, default=True
        Raise when no labels are found; with ``False`` the data set has
        ``labels=None`` (enough for :func:`describe` and plots).

    Raises
    ------
    DatasetNotFoundError
        The file does not exist.
    SimilarityMatrixError
        Unreadable/corrupt file, unsupported type, no or several candidate
        matrices, non-square matrix, NaN or inf entries.
    LabelError
        No labels found, or their number differs from the matrix size.

    Examples
    --------
    >>> import pathlib, shutil, tempfile
    >>> import numpy as np
    >>> from proxlearn.datasets import load_similarity
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "toy.npz"
    >>> np.savez(path, S=np.eye(3), y=np.array([0, 1, 1]))
    >>> ds = load_similarity(path)
    >>> ds.name, ds.matrix.shape, ds.labels.tolist()
    ('toy', (3, 3), [0, 1, 1])
    >>> shutil.rmtree(path.parent)

    See Also
    --------
    load_dataset : a registered name, or a path through this function.
    resolve_kind : the dissimilarity check applied at load time.
    """
    path = Path(path).expanduser()
    if not path.is_file():
        raise DatasetNotFoundError(
            f"similarity file not found: {path}. Check the path, or give a "
            "registered data set name (see `proxlearn datasets`)."
        )
    suffix = path.suffix.lower()
    if suffix in (".mat", ".npz"):
        variables = _read_mat(path) if suffix == ".mat" else _read_npz(path)
        key, S = _pick_matrix(variables, matrix_key, path)
        y = None
        if labels_path is None:
            y = _pick_labels(variables, labels_key, key, S.shape[0], path, require_labels)
    elif suffix in (".csv", ".txt", ".tsv"):
        S, y = _read_text_matrix(path)
        if labels_path is None and y is None:
            labels_path = _sibling_labels(path, require_labels)
    elif suffix in FASTA_SUFFIXES:
        raise SimilarityMatrixError(
            f"{path}: a {path.suffix} file holds sequences, not a similarity matrix; build "
            f"one first: proxlearn similarity {path} --metric smith-waterman-normalized "
            "--out S.npz (in Python: proxlearn.pairwise.pairwise_similarity)."
        )
    else:
        raise SimilarityMatrixError(
            f"{path}: unsupported file type {path.suffix!r}. Save the matrix as "
            f"one of {', '.join(SUPPORTED_SUFFIXES)}."
        )
    if labels_path is not None:
        y = _read_labels(Path(labels_path).expanduser())
    try:
        ds = SimilarityDataset(
            matrix=S, labels=y, name=name or path.stem,
            description=description or f"loaded from {path.name}",
            source=str(path.resolve()),
        )
    except (SimilarityMatrixError, LabelError) as exc:
        raise type(exc)(f"{path}: {exc}") from None
    return resolve_kind(ds, kind, convert)


def _read_mat(path: Path) -> dict:
    import scipy.io

    try:
        data = scipy.io.loadmat(path)
    except NotImplementedError as exc:  # v7.3 (HDF5) files
        raise SimilarityMatrixError(
            f"{path}: cannot read this MATLAB file ({exc}). Re-save it in "
            "MATLAB with save(..., '-v7') or export it as .npz."
        ) from None
    except Exception as exc:  # scipy raises several types on corrupt input
        raise SimilarityMatrixError(
            f"{path}: not a readable MATLAB .mat file ({type(exc).__name__}: "
            f"{exc}). Check that the file is complete and really a .mat file."
        ) from None
    return {k: v for k, v in data.items() if not k.startswith("__")}


def _check_npy_headers(path: Path) -> None:
    """Refuse members whose header declares more data than the member holds.

    ``np.load`` allocates the declared shape before reading; a corrupt or
    hostile header (a 10^6 x 10^6 matrix in a few bytes) raised a
    ``MemoryError``. The zip directory knows each member's real
    (uncompressed) size, so the check is exact and allocates nothing.
    """
    with zipfile.ZipFile(path) as z:
        for info in z.infolist():
            if not info.filename.endswith(".npy"):
                continue
            with z.open(info) as fh:
                version = np.lib.format.read_magic(fh)
                read = {(1, 0): np.lib.format.read_array_header_1_0,
                        (2, 0): np.lib.format.read_array_header_2_0}.get(version)
                if read is None:
                    continue  # format 3.0 (utf-8 names): left to np.load
                shape, _, dtype = read(fh)
                header = fh.tell()
            if dtype.hasobject:
                continue  # refused by allow_pickle=False with its own message
            need = int(np.prod(shape, dtype=object)) * dtype.itemsize
            if need > info.file_size - header:
                dims = " x ".join(str(d) for d in shape)
                raise SimilarityMatrixError(
                    f"{path}: member {info.filename!r} declares a {dims} {dtype} array "
                    f"({need:,} bytes) but holds only {info.file_size - header:,} bytes of "
                    "data. The file is truncated or corrupt; write it again with "
                    "numpy.savez(path, S=matrix, y=labels)."
                )


def _read_npz(path: Path) -> dict:
    try:
        _check_npy_headers(path)
        with np.load(path, allow_pickle=False) as npz:
            return {k: npz[k] for k in npz.files}
    except (zipfile.BadZipFile, ValueError, OSError, EOFError) as exc:
        raise SimilarityMatrixError(
            f"{path}: not a readable .npz archive ({type(exc).__name__}: {exc}). "
            "Write it with numpy.savez(path, S=matrix, y=labels)."
        ) from None


def _describe_keys(variables: dict) -> str:
    parts = [f"{k} {getattr(v, 'shape', '?')}" for k, v in variables.items()]
    return ", ".join(parts) or "none"


def _pick_matrix(variables: dict, key, path: Path):
    if key is not None:
        if key not in variables:
            raise SimilarityMatrixError(
                f"{path}: no variable {key!r}; variables found: "
                f"{_describe_keys(variables)}."
            )
        return key, np.asarray(variables[key])
    cands = [
        k for k, v in variables.items()
        if isinstance(v, np.ndarray) and v.ndim == 2 and v.shape[0] == v.shape[1]
        and v.shape[0] > 1 and np.issubdtype(v.dtype, np.number)
    ]
    preferred = [k for k in _MATRIX_KEYS if k in cands]
    if len(cands) == 1 or (len(cands) > 1 and len(preferred) == 1):
        k = cands[0] if len(cands) == 1 else preferred[0]
        return k, variables[k]
    if not cands:
        raise SimilarityMatrixError(
            f"{path}: no square 2-D numeric matrix found; variables found: "
            f"{_describe_keys(variables)}. Store the n x n matrix (e.g. as 'S') "
            "or name it with matrix_key=."
        )
    raise SimilarityMatrixError(
        f"{path}: several square matrices ({', '.join(cands)}); choose one with "
        f"matrix_key=. Variables found: {_describe_keys(variables)}."
    )


def _as_label_vector(v):
    """A 1-D label array from a stored variable, or None if it is not one."""
    if not isinstance(v, np.ndarray):
        return None
    if v.dtype == object:  # MATLAB cell array of strings
        try:
            v = np.array([str(np.asarray(e).ravel()[0]) for e in v.ravel()])
        except (IndexError, TypeError):
            return None
    if v.ndim == 2 and 1 in v.shape:
        v = v.ravel()
    if v.ndim != 1 or v.dtype.kind not in "biufU":
        return None
    return v


def _pick_labels(variables: dict, key, matrix_key: str, n: int, path: Path, required=True):
    if key is not None:
        if key not in variables:
            raise LabelError(
                f"{path}: no variable {key!r}; variables found: "
                f"{_describe_keys(variables)}."
            )
        y = _as_label_vector(variables[key])
        if y is None:
            raise LabelError(
                f"{path}: variable {key!r} (shape {variables[key].shape}) is not a "
                "vector of class labels."
            )
        return y
    vecs = {k: _as_label_vector(v) for k, v in variables.items()
            if k != matrix_key and k not in _NOT_LABEL_KEYS}
    vecs = {k: v for k, v in vecs.items() if v is not None}
    cands = [k for k, v in vecs.items() if v.shape[0] == n]
    preferred = [k for k in _LABEL_KEYS if k in cands]
    if len(cands) == 1 or (len(cands) > 1 and len(preferred) == 1):
        return vecs[cands[0] if len(cands) == 1 else preferred[0]]
    if cands:
        raise LabelError(
            f"{path}: several label vectors of length {n} ({', '.join(cands)}); "
            f"choose one with labels_key=. Variables found: {_describe_keys(variables)}."
        )
    if not required:
        return None
    wrong = [f"{k} (length {v.shape[0]})" for k, v in vecs.items()]
    hint = (f" Vectors of the wrong length: {', '.join(wrong)}; there must be one "
            f"label per row of the {n} x {n} matrix.") if wrong else ""
    raise LabelError(
        f"{path}: no label vector of length {n} found next to matrix "
        f"{matrix_key!r}; variables found: {_describe_keys(variables)}.{hint} "
        "Store the labels in the file (e.g. as 'y') or pass labels_path=."
    )


#: Header names of a column that holds the class labels in a text matrix.
_LABEL_COLUMNS = ("label", "labels", "y", "class", "classes", "target")


def _split_rows(lines: list[str]) -> list[list[str]]:
    """Tokens of each line: CSV quoting for comma/semicolon/tab files, else whitespace."""
    import csv

    first = lines[0]
    delim = next((d for d in (",", ";", "\t") if d in first), None)
    if delim is None:
        return [ln.split() for ln in lines]
    return [[t.strip() for t in row] for row in csv.reader(lines, delimiter=delim)]


def _strip_header_and_index(split: list[list[str]]):
    """Detect a header row, an index column and a label column (pandas ``to_csv``).

    Only unambiguous layouts are recognised: a header is a first row that
    starts with an empty cell (pandas' corner above the index) or holds no
    number at all (names, with the index name first); the index is a first
    column that is non-numeric, or ``0..n-1``, in rows one entry longer than
    the matrix is wide. A header name in ``_LABEL_COLUMNS``
    makes that column the labels. Returns ``(rows, labels or None, header or None)``
    (the header without the label column).
    """
    header = None
    first = split[0] if split else []
    # a header starts with a name or pandas' empty corner cell, or has no number at all
    if len(split) > 1 and first and (first[0] == "" or not any(map(is_number, first))):
        header, split = first, split[1:]
    labels = None
    if header is not None:
        lowered = [h.strip().strip('"').lower() for h in header]
        hits = [i for i, h in enumerate(lowered) if h in _LABEL_COLUMNS]
        if len(hits) == 1 and all(len(r) == len(header) for r in split):
            j = hits[0]
            labels = [r[j] for r in split]
            split = [r[:j] + r[j + 1:] for r in split]
            header = header[:j] + header[j + 1:]
    n = len(split)
    if split and all(len(r) == n + 1 for r in split):
        first = [r[0] for r in split]
        if (header is not None and len(header) == n + 1) or not all(map(is_number, first)) \
                or first == [str(i) for i in range(n)]:
            split = [r[1:] for r in split]  # the index column (row names or 0..n-1)
            header = header[1:] if header is not None and len(header) == n + 1 else header
    if labels is not None:
        labels = _labels_from_tokens(labels)
    return split, labels, header


def _read_text_matrix(path: Path):
    """The square matrix of a text file, and labels from a label column (or None)."""
    try:
        text = path.read_text()
    except (OSError, UnicodeDecodeError) as exc:
        raise SimilarityMatrixError(
            f"{path}: cannot read as a text matrix ({type(exc).__name__}: {exc})."
        ) from None
    rows = [r for r in (line.split("#")[0].strip() for line in text.splitlines()) if r]
    if not rows:
        raise SimilarityMatrixError(f"{path}: the file is empty; expected n rows of n numbers.")
    split, labels, header = _strip_header_and_index(_split_rows(rows))
    lengths = sorted({len(r) for r in split})
    if len(lengths) > 1:
        raise SimilarityMatrixError(
            f"{path}: rows have different numbers of entries {lengths}; expected "
            f"n rows of n comma- or whitespace-separated numbers."
        )
    try:
        return np.array(split, dtype=np.float64), labels
    except ValueError as exc:
        raise SimilarityMatrixError(
            f"{path}: not a numeric matrix ({exc}{_text_columns(split, header)}). Write n "
            "rows of n numbers (a header row, an index column and a column named "
            f"{' / '.join(_LABEL_COLUMNS)} for the labels are recognised); or put the labels "
            "in a separate file (--labels PATH, labels_path=)."
        ) from None


def _text_columns(split, header) -> str:
    """Which columns hold text, by header name and position (for the error above)."""
    width = len(split[0]) if split else 0
    cols = [j for j in range(width) if any(not is_number(r[j]) for r in split)]
    if not cols:
        return ""
    names = [f"{header[j]!r} (column {j + 1})" if header and len(header) == width and header[j]
             else f"column {j + 1}" for j in cols]
    return f"; text in {', '.join(names)}"


def _sibling_labels(path: Path, required=True) -> Path | None:
    stem, parent = path.stem, path.parent
    cands = list(dict.fromkeys([parent / f"{stem}_labels{path.suffix}",
                                parent / f"{stem}_labels.txt", parent / f"{stem}_labels.csv",
                                parent / f"{stem}.labels"]))
    for c in cands:
        if c.is_file():
            return c
    if not required:
        return None
    raise LabelError(
        f"{path}: no labels found. Looked for {', '.join(c.name for c in cands)} in "
        f"{parent.resolve()}. Put one label per line in {cands[0].name}, or name the labels "
        "file (--labels PATH on the command line, labels_path= in Python)."
    )


def _read_labels(path: Path) -> np.ndarray:
    if not path.is_file():
        raise LabelError(f"labels file not found: {path}.")
    if path.suffix.lower() == ".npy":
        try:
            y = _as_label_vector(np.load(path, allow_pickle=False))
        except (ValueError, OSError, EOFError) as exc:
            raise LabelError(f"{path}: not a readable .npy file ({exc}).") from None
        if y is None:
            raise LabelError(f"{path}: does not hold a 1-D vector of labels.")
        return y
    try:
        text = path.read_text()
    except (OSError, UnicodeDecodeError) as exc:
        raise LabelError(f"{path}: cannot read labels ({exc}).") from None
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    tokens = (lines if len(lines) > 1
              else re.split(r"[,\s;]+", lines[0].strip(",; ")) if lines else [])
    if not tokens:
        raise LabelError(f"{path}: the labels file is empty.")
    return _labels_from_tokens(tokens)


def _labels_from_tokens(tokens) -> np.ndarray:
    """Integers, else floats, else strings (quotes stripped)."""
    tokens = [t.strip().strip('"').strip("'") for t in tokens]
    for dtype in (np.int64, np.float64):
        try:
            return np.array(tokens, dtype=dtype)
        except ValueError:
            pass
    return np.array(tokens)
