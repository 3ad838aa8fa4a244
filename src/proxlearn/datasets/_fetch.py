"""Download the UW similarity benchmarks (aural_sonar, protein, voting).

The three matrices of Chen et al. (JMLR 2009) in their normalised form
(symmetric, unit diagonal, values in [0, 1]) are redistributed under
Apache-2.0 in the public repository
``Lcrypto/Classical-and-Quantum-Topology-ML-toric-spherical``. The files are
fetched from one pinned commit and checked against their SHA-256 digests, so
what lands in the data home is byte for byte the file the reproduction report
was computed on. Written with the standard library only (``urllib``): the
download is three small files, not worth a dependency.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable
from pathlib import Path

from ..exceptions import DatasetNotFoundError, DownloadError
from ._registry import REGISTRY, get_data_home

__all__ = ["UW_BASE_URL", "UW_FILES", "fetch_uw"]

#: Raw files of the pinned commit; ``$PROXLEARN_UW_URL`` overrides it (a mirror, or tests).
UW_BASE_URL = (
    "https://raw.githubusercontent.com/Lcrypto/Classical-and-Quantum-Topology-ML-toric-spherical/"
    "068427e220a4e21b676020c306ade6b68cbd9d67/LDPC_PEG_ACE_SF_CHORD_TSVD/square_matrices/dense_graph/"
)

#: file -> SHA-256 (from the data README of the founding documents).
UW_FILES = {
    "aural_sonar.mat": "b7fc590266a9fa97f5d1154ffdb8160eed186579f526ffcf009e6c126e7e1cb5",
    "protein.mat": "3f180796d442e4f2613dbecca60e4e5cfe5a5f2e79b6c9f2f5202bc9e0daa9cc",
    "voting.mat": "1d2eaf9d9a8a0d4ff1133552f147c59d330da679ef237e989fb90d59658a9464",
}

_CHUNK = 1 << 16


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(_CHUNK), b""):
            h.update(block)
    return h.hexdigest()


def check_downloadable(names) -> None:
    """Raise :class:`DatasetNotFoundError` naming every one of ``names`` that
    :func:`fetch_uw` cannot download, with the names it can."""
    known = sorted(k for k, s in REGISTRY.items() if s.file in UW_FILES)
    bad = [n for n in names if n not in known]
    if bad:
        raise DatasetNotFoundError(
            f"{', '.join(map(repr, bad))} {'is not a' if len(bad) == 1 else 'are not'} "
            f"downloadable UW data set{'s' if len(bad) > 1 else ''}; choose among "
            f"{', '.join(known)}."
        )


def fetch_uw(name: str, data_home=None, *, force: bool = False,
             progress: Callable[[int, int | None], None] | None = None,
             timeout: float = 60.0) -> Path:
    """Download the file of a UW benchmark set into the data home; return its path.

    Parameters
    ----------
    name : str
        ``"aural_sonar"``, ``"protein"``, ``"voting"``, or a set derived from
        one of them (``"protein-2"``, ``"protein-rbf"``: the protein file).
    data_home : str or Path, optional
        Destination folder; the file goes to ``<data_home>/uw/``. Defaults to
        :func:`get_data_home`, which :func:`load_dataset` searches.
    force : bool
        Download again even if a file with the right checksum is there.
    progress : callable, optional
        ``progress(bytes_done, bytes_total_or_None)`` while downloading.
    timeout : float
        Seconds to wait for the server.

    Raises
    ------
    DatasetNotFoundError
        ``name`` is not a UW set.
    DownloadError
        The server could not be reached (offline, proxy) or the file's
        SHA-256 differs from the pinned one (nothing is kept then).

    Examples
    --------
    >>> from proxlearn.datasets import fetch_uw
    >>> # needs the network and writes outside the repository: not run
    >>> fetch_uw("aural_sonar")  # doctest: +SKIP
    PosixPath('.../uw/aural_sonar.mat')

    See Also
    --------
    load_dataset : finds the downloaded file on the data search path.
    get_data_home : the default destination.
    """
    check_downloadable([name])
    spec = REGISTRY[name]
    folder = Path(data_home).expanduser() if data_home is not None else get_data_home()
    target = folder / "uw" / spec.file
    expected = UW_FILES[spec.file]
    if target.is_file() and not force and _sha256(target) == expected:
        return target
    base = os.environ.get("PROXLEARN_UW_URL") or UW_BASE_URL
    url = base.rstrip("/") + "/" + spec.file
    parts = urllib.parse.urlsplit(url)
    if parts.scheme not in ("http", "https", "file") or not (parts.netloc or parts.scheme == "file"):
        raise DownloadError(
            f"cannot download from {url!r}: PROXLEARN_UW_URL must be a URL such as "
            "https://host/path or file:///folder (the folder holding the .mat files).")
    made = [d for d in (target.parent, *target.parent.parents) if not d.exists()]
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{spec.file}.", suffix=".part")
    try:
        h = hashlib.sha256()
        try:
            with os.fdopen(fd, "wb") as out, urllib.request.urlopen(url, timeout=timeout) as resp:
                size = resp.headers.get("Content-Length")  # file:// responses have no .length
                total = int(size) if size and size.isdigit() else None
                done = 0
                for block in iter(lambda: resp.read(_CHUNK), b""):
                    out.write(block)
                    h.update(block)
                    done += len(block)
                    if progress is not None:
                        progress(done, total)
        except (urllib.error.URLError, TimeoutError, ConnectionError) as exc:
            reason = getattr(exc, "reason", exc)
            raise DownloadError(
                f"could not download {url} ({reason}). Check the network connection, or "
                f"download the file by other means and put it at {target} (SHA-256 {expected})."
            ) from None
        got = h.hexdigest()
        if got != expected:
            raise DownloadError(
                f"{url}: the downloaded file's SHA-256 is {got}, not the pinned {expected}; it "
                "was deleted. The server returned something else (a proxy's page, a changed "
                "file): try again later or set PROXLEARN_UW_URL to a mirror."
            )
        os.replace(tmp, target)
        tmp = None
    finally:
        if tmp is not None:
            Path(tmp).unlink(missing_ok=True)
            for d in made:  # folders this call created stay only with a file in them
                try:
                    d.rmdir()
                except OSError:
                    break
    return target
