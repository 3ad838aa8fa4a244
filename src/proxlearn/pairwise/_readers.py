"""Reading raw objects and their labels from files (input of ``proxlearn similarity``).

==========  =====================  ===============================================
format      suffixes               one object is
==========  =====================  ===============================================
``fasta``   .fasta .fa .faa .fna   a record ``>ID LABEL ...`` followed by sequence
            .fas                   lines (concatenated, white space removed). The
                                   id is the first word of the header, the label
                                   the second word (the rest is ignored). Either
                                   every record has a label or none has.
``text``    .txt                   a line; ``STRING<TAB>LABEL`` gives a label
                                   (all lines or none). A last empty line is
                                   ignored; other empty lines are errors.
``csv``     .csv .tsv              a row of numbers (a time series; rows may have
                                   different lengths, empty trailing fields are
                                   dropped), separated by commas (tabs in .tsv,
                                   white space when a .csv has no comma). Labels:
                                   a header row naming a column ``label`` /
                                   ``labels`` / ``y`` / ``class`` / ``target``,
                                   or ``label_column=`` (0 for the first column,
                                   -1 for the last, as in the UCR archive's
                                   first-column labels). The first row is a
                                   header (``header="auto"``) when every cell
                                   of it but the label column's is a name, or
                                   when they are the column numbers ``0, 1,
                                   2, ...`` that pandas writes (at least
                                   three; said with a ``UserWarning``); a row
                                   mixing names and numbers is an error.
                                   ``header=True`` / ``False`` decides.
==========  =====================  ===============================================

Files are decoded as UTF-8 (a byte-order mark is skipped) unless ``encoding=``
says otherwise; an undecodable byte is an error naming the file, line and byte.
Labels are read as integers only when every label is written as one in its plain
form (``1``, ``-2``): ``01``, ``1`` and ``+1`` are three different classes.

Ids name the records in error messages: the FASTA id, else ``line K`` (1-based).
"""

from __future__ import annotations

import re
import warnings
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .._validation import InvalidParameterError, ObjectListError
from .._files import FASTA_SUFFIXES, is_number

__all__ = ["FORMATS", "ObjectFile", "read_objects"]

FORMATS = {
    "fasta": FASTA_SUFFIXES,
    "text": (".txt",),
    "csv": (".csv", ".tsv"),
}
_LABEL_COLUMNS = ("label", "labels", "y", "class", "target")


@dataclass
class ObjectFile:
    """Objects read from a file, with their labels (or None) and record ids.

    Attributes
    ----------
    objects : list
        Strings, sequences or time series (1-D float arrays), in file order.
    labels : ndarray or None
        One label per object, or None when the file has none.
    ids : list of str
        The FASTA id of each record, else ``"line K"``.
    format : {"fasta", "text", "csv"}

    Examples
    --------
    >>> from proxlearn.pairwise import ObjectFile
    >>> f = ObjectFile(["ab", "abc"], None, ["line 1", "line 2"], "text")
    >>> len(f.objects), f.labels is None
    (2, True)

    See Also
    --------
    read_objects : returns it.
    """

    objects: list
    labels: np.ndarray | None
    ids: list
    format: str


def read_objects(path, format="auto", *, label_column=None, header="auto",
                 encoding="utf-8") -> ObjectFile:
    """Read strings, sequences or time series and their labels from a file.

    Parameters
    ----------
    path : str or Path
    format : {"auto", "fasta", "text", "csv"}, default="auto"
        ``"auto"``: from the suffix (module docstring).
    label_column : int, optional
        CSV only: the column holding the labels (0 first, -1 last).
    header : {"auto", True, False}, default="auto"
        CSV only: whether the first row names the columns (module docstring).
    encoding : str, default="utf-8"
        Text encoding of the file (for example ``"latin-1"``).

    Returns
    -------
    ObjectFile

    Raises
    ------
    ObjectListError
        A malformed record (empty sequence, NaN in a series, a label missing on
        some records), named by its id or line number.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> from proxlearn.pairwise import pairwise_similarity, read_objects
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "seqs.fasta"
    >>> _ = path.write_text(">s1 a\\nACGT\\n>s2 b\\nACGA\\n")
    >>> f = read_objects(path)
    >>> f.objects, f.labels.tolist(), f.ids
    (['ACGT', 'ACGA'], ['a', 'b'], ['s1', 's2'])
    >>> import shutil; shutil.rmtree(path.parent)

    See Also
    --------
    pairwise_similarity : the matrix of the objects read.
    proxlearn.datasets.load_similarity : reads a precomputed matrix instead.
    """
    path = Path(path).expanduser()
    if format == "auto":
        suffix = path.suffix.lower()
        format = next((f for f, sfx in FORMATS.items() if suffix in sfx), None)
        if format is None:
            raise InvalidParameterError(
                f"{path}: cannot tell the format from the suffix {path.suffix!r}; name it "
                "(fasta, text or csv) or use one of "
                f"{', '.join(s for v in FORMATS.values() for s in v)}."
            )
    elif format not in FORMATS:
        raise InvalidParameterError(
            f"format={format!r} is not supported; choose auto, {', '.join(FORMATS)}.")
    if label_column is not None and format != "csv":
        raise InvalidParameterError("label_column applies to CSV time series only.")
    if header not in ("auto", True, False):
        raise InvalidParameterError(f"header must be 'auto', True or False, got {header!r}.")
    lines = _decode(path, encoding).splitlines()  # OSError for a missing file
    reader = {"fasta": _fasta, "text": _text, "csv": _csv}[format]
    objects, labels, ids = (reader(lines, path, label_column, header) if format == "csv"
                            else reader(lines, path))
    if not objects:
        raise ObjectListError(f"{path}: no {format} records found.")
    return ObjectFile(objects, None if labels is None else _labels(labels), ids, format)


def _decode(path, encoding):
    data = path.read_bytes()
    codec = "utf-8-sig" if encoding.lower().replace("_", "-") in ("utf-8", "utf8") else encoding
    try:
        return data.decode(codec)
    except LookupError:
        raise InvalidParameterError(f"unknown text encoding {encoding!r}.") from None
    except UnicodeDecodeError as exc:
        line = data[:exc.start].count(b"\n") + 1
        raise ObjectListError(
            f"{path}: line {line}: byte {data[exc.start:exc.start + 1]!r} is not valid "
            f"{encoding}; save the file as UTF-8, or name its encoding (encoding='latin-1', "
            "--encoding latin-1 on the command line).") from None


def _labels(labels):
    """Integer labels when every one is written as a plain integer, else the strings."""
    if all(re.fullmatch(r"-?(0|[1-9][0-9]*)", x) for x in labels):
        return np.array([int(x) for x in labels])
    return np.array(labels)


def _all_or_none(labels, ids, path, how):
    have = [lab is not None for lab in labels]
    if all(have):
        return labels
    if not any(have):
        return None
    i = have.index(False) if have[0] else have.index(True)
    raise ObjectListError(
        f"{path}: record {ids[i]} {'has no' if have[0] else 'has a'} label while "
        f"{'earlier records have one' if have[0] else 'earlier records have none'}; "
        f"{how} on every record or on none."
    )


def _fasta(lines, path):
    ids, seqs, labels, starts = [], [], [], []
    for k, line in enumerate(lines, 1):
        line = line.strip()
        if line.startswith(">"):
            words = line[1:].split()
            if not words:
                raise ObjectListError(f"{path}: line {k}: FASTA header without an id.")
            ids.append(words[0])
            labels.append(words[1] if len(words) > 1 else None)
            seqs.append([])
            starts.append(k)
        elif line and not line.startswith(";"):  # ';' comment lines of old FASTA
            if not seqs:
                raise ObjectListError(
                    f"{path}: line {k}: sequence before the first '>' header; "
                    "is this a FASTA file?")
            seqs[-1].append("".join(line.split()))
    out = ["".join(s) for s in seqs]
    for i, s in enumerate(out):
        if not s:
            raise ObjectListError(
                f"{path}: record {ids[i]} (line {starts[i]}) has an empty sequence; "
                "remove the record or add its sequence.")
    return out, _all_or_none(labels, ids, path, "give a label (second word of the header)"), ids


def _text(lines, path):
    if lines and not lines[-1].strip():
        lines = lines[:-1]
    objects, labels, ids = [], [], []
    for k, line in enumerate(lines, 1):
        text, tab, label = line.partition("\t")
        if not text:
            raise ObjectListError(
                f"{path}: line {k} is an empty string; remove the line (or the empty "
                "lines at the end of the file).")
        objects.append(text)
        labels.append(label.strip() if tab else None)
        ids.append(f"line {k}")
    return objects, _all_or_none(labels, ids, path, "give STRING<TAB>LABEL"), ids


def _is_header(first, path, label_column):
    """The ``header="auto"`` rule (module docstring) on the first row's cells."""
    cells = list(first)
    if label_column is not None and -len(cells) <= label_column < len(cells):
        del cells[label_column % len(cells)]
    names = [not is_number(c) for c in cells if c]
    if names and all(names):
        return True
    if any(names):
        bad = next(c for c in cells if c and not is_number(c))
        raise ObjectListError(
            f"{path}: line 1 mixes names and numbers ({bad!r} among numbers): pass header=True "
            "(--header yes) if it names the columns, or correct the value if it is data.")
    values = [c for c in cells if c]  # pandas writes an empty first cell for its index
    if len(values) >= 3 and values == [str(k) for k in range(len(values))]:
        warnings.warn(
            f"{path}: line 1 ({', '.join(values[:3])}, ...) is read as a header of column "
            "numbers, as pandas writes; pass header=False (--header no) to read it as data.",
            UserWarning, stacklevel=4)
        return True
    return False


def _csv(lines, path, label_column, header="auto"):
    # .tsv: tabs; else commas if the first lines have any, else white space
    sep = "\t" if path.suffix.lower() == ".tsv" else ("," if "," in "".join(lines[:5]) else None)
    rows = [(k, [t.strip() for t in line.strip().split(sep)]) for k, line in enumerate(lines, 1)
            if line.strip()]
    first = rows[0][1] if rows else []
    if rows and (header is True or (header == "auto" and _is_header(first, path, label_column))):
        header = [t.lower() for t in first]
        rows = rows[1:]
        if label_column is None:
            hits = [j for j, h in enumerate(header) if h in _LABEL_COLUMNS]
            label_column = hits[0] if hits else None
    objects, labels, ids = [], [], []
    for k, tokens in rows:
        while tokens and not tokens[-1]:
            tokens = tokens[:-1]
        if label_column is not None:
            if not -len(tokens) <= label_column < len(tokens):
                raise ObjectListError(f"{path}: line {k} has no column {label_column}.")
            labels.append(tokens[label_column])
            tokens = [t for j, t in enumerate(tokens) if j != label_column % len(tokens)]
        values = []
        for j, t in enumerate(tokens, 1):
            try:
                v = float(t) if t else float("nan")
            except ValueError:
                raise ObjectListError(
                    f"{path}: line {k}, value {j}: {t!r} is not a number.") from None
            if not np.isfinite(v):
                raise ObjectListError(
                    f"{path}: line {k}, value {j}: {t or 'an empty field'} in a time series; "
                    "interpolate the missing values or drop the series.")
            values.append(v)
        if not values:
            raise ObjectListError(f"{path}: line {k} holds no values (an empty series).")
        objects.append(np.array(values))
        ids.append(f"line {k}")
    return objects, (labels if label_column is not None else None), ids
