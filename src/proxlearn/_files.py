"""Writing files safely (imports nothing of proxlearn).

Every file proxlearn writes (cache cells, results, reports) goes through
:func:`atomic_write_text`: the text is written to a uniquely named temporary
file in the same folder and moved over the target with :func:`os.replace`, so

* a reader never sees half a file (an interrupted run leaves the old file or none),
* two processes writing the same file never trip over one shared temporary
  name (docs/methods.md, "Foundations reference notes: atomic writes"),
* a failed write (disk full, permission) leaves no temporary file behind and
  raises an ``OSError`` that names the target path.

It also holds the two file-format facts the loaders of ``datasets`` and the readers
of ``pairwise`` share: :data:`FASTA_SUFFIXES` and :func:`is_number`.
"""

from __future__ import annotations

import os
import re
import tempfile
from pathlib import Path

__all__ = ["FASTA_SUFFIXES", "atomic_write_text", "is_number", "safe_component"]


def atomic_write_text(path, text: str) -> Path:
    """Write ``text`` to ``path`` atomically (see the module docstring).

    Parameters
    ----------
    path : str or Path
        The target; missing parent folders are created.
    text : str
        Written as UTF-8.

    Returns
    -------
    Path
        ``path``.

    Raises
    ------
    OSError
        With the target path and the reason, e.g. ``[Errno 28] cannot write
        out/results.json: No space left on device``.

    See Also
    --------
    safe_component : A name made safe for one path component.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from proxlearn._files import atomic_write_text
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     path = atomic_write_text(Path(tmp) / "out" / "a.txt", "done")
    ...     path.read_text(), sorted(p.name for p in path.parent.iterdir())
    ('done', ['a.txt'])
    """
    path = Path(path)
    tmp = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        os.replace(tmp, path)
        tmp = None
    except OSError as exc:
        raise OSError(exc.errno, f"cannot write {path}: {exc.strerror or exc}") from None
    finally:
        if tmp is not None:
            Path(tmp).unlink(missing_ok=True)
    return path


_UNSAFE = re.compile(r"[^A-Za-z0-9_.+=-]")


def safe_component(name: str) -> str:
    """``name`` as one safe path component: no separators, never ``.``/``..`` or hidden.

    Readable names are kept as they are; any other gets its unsafe characters
    replaced and a short hash of the original appended, so that two different
    names never share a component.

    Parameters
    ----------
    name : str

    Returns
    -------
    str

    See Also
    --------
    atomic_write_text : Writes the files named so.

    Examples
    --------
    >>> from proxlearn._files import safe_component
    >>> safe_component("aural_sonar"), safe_component("a/b"), safe_component("..")
    ('aural_sonar', 'a_b-c14cddc0', 'unnamed-...')
    """
    import hashlib

    slug = _UNSAFE.sub("_", name).lstrip(".")
    if slug == name and slug:
        return slug
    digest = hashlib.sha256(name.encode("utf-8", "surrogatepass")).hexdigest()[:8]
    return f"{slug or 'unnamed'}-{digest}"


#: Suffixes of sequence files (raw objects; :func:`proxlearn.pairwise.read_objects`).
FASTA_SUFFIXES = (".fasta", ".fa", ".faa", ".fna", ".fas")


def is_number(token: str) -> bool:
    """Whether a text cell of a matrix or label file reads as a number.

    Examples
    --------
    >>> from proxlearn._files import is_number
    >>> is_number("-1.5e3"), is_number("nan"), is_number("seq_1")
    (True, True, False)

    See Also
    --------
    atomic_write_text : the other file helper of this module.
    """
    try:
        float(token)
    except ValueError:
        return False
    return True
