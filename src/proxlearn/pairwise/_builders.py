"""Similarity (or dissimilarity) matrices of raw objects, computed by blocks.

===============================  ==============================================
function                         what
===============================  ==============================================
``pairwise_similarity``          ``n x m`` matrix of a built-in measure
                                 (:data:`METRICS`) or a callable, in tiles of
                                 ``block_size x block_size``: joblib workers,
                                 a Dask cluster (``scheduler=``), in memory or
                                 in an ``.npy`` file on disk, resumable
``metric_kind``                  ``"similarity"`` or ``"dissimilarity"`` of a
                                 metric name
===============================  ==============================================

The measures, their libraries and whether each returns a similarity or a
dissimilarity are listed in :mod:`proxlearn.pairwise._metrics`. A
dissimilarity is returned as computed (no conversion): turn it into a
similarity with :class:`proxlearn.transforms.DissimilarityToSimilarity` (or
:class:`proxlearn.kernel_approximation.NystroemSpectrum` with
``kind="dissimilarity"``).

Blocks
------
The output is cut into tiles of ``block_size`` rows by ``block_size`` columns;
each tile is one task, computed by the library on the slices of ``X`` and ``Y``
it needs (only those slices travel to a worker). With ``Y=None`` and a symmetric
measure only the tiles on and above the diagonal are computed and mirrored, so
every unordered pair is computed once, except inside the diagonal tiles of the
vectorised measures: alignments, DTW and callables compute one triangle of them,
rapidfuzz's ``cdist`` and the Jaccard product the whole ``b x b`` tile (about
``n b / 2`` extra pairs, a fraction ``b / n`` of the work). Extra memory is a few tiles per worker (``8 block_size^2``
bytes each; DTW's off-diagonal tiles ``4x`` that) on top of the result, which
is held in RAM, or, with ``out="S.npy"``, memory-mapped in a file so that a
matrix larger than RAM is written tile by tile.

Resuming
--------
With ``out="S.npy"`` every finished tile is recorded in ``S.npy.blocks`` (a
fingerprint of the inputs and parameters, then one tile number per line, written
after the tile is flushed to ``S.npy``; tiles are flushed and recorded in batches
every 2 seconds and when the run ends or raises, so a hard kill loses at most the
last 2 seconds of work). A rerun with the same inputs and
parameters skips the recorded tiles; different ones start over. The record is
kept after the end (a rerun then computes nothing); delete it with the matrix.
"""

from __future__ import annotations

import json
import numbers
import os
import time
from pathlib import Path

import numpy as np

from .._validation import InvalidParameterError, check_option
from ._metrics import (
    METRICS,
    callable_block,
    compute_block,
    get_metric,
    prepare,
    resolve_params,
)

__all__ = ["metric_kind", "pairwise_similarity"]

#: Finished tiles are flushed and recorded at most this often (and when the run ends or
#: fails): a flush per tile (an msync of the whole map and an fsync) is slow
#: (docs/benchmarks.md, "Measurements moved out of docstrings", "pairwise builders").
#: A hard kill loses at most this many seconds of tiles.
COMMIT_SECONDS = 2.0
#: Default tile side: 16,384 pairs per task, 128 kB per tile (the fastest measured,
#: docs/benchmarks.md, "Measurements moved out of docstrings", "pairwise builders").
DEFAULT_BLOCK_SIZE = 128
KINDS = ("similarity", "dissimilarity")


def metric_kind(metric) -> str:
    """``"similarity"`` or ``"dissimilarity"``: what a built-in metric returns.

    Examples
    --------
    >>> from proxlearn.pairwise import metric_kind
    >>> metric_kind("levenshtein"), metric_kind("jaccard")
    ('dissimilarity', 'similarity')

    See Also
    --------
    get_metric : the whole record of a measure.
    """
    return get_metric(metric).kind


def _tiles(nx, ny, b, triangle):
    """Tiles ``(tile_id, row slice, column slice)``; ``triangle``: only ``bi <= bj``."""
    rows = [slice(i, min(i + b, nx)) for i in range(0, nx, b)]
    cols = [slice(j, min(j + b, ny)) for j in range(0, ny, b)]
    out = []
    for bi, r in enumerate(rows):
        for bj, c in enumerate(cols):
            if triangle and bj < bi:
                continue
            out.append((bi * len(cols) + bj, r, c))
    return out


def _run_tile(tile_id, A, B, same, metric, params, symmetric):
    """One task: the tile's block (executed by a joblib or Dask worker)."""
    if callable(metric):
        block = callable_block(metric, A, B, same, symmetric)
    else:
        block = compute_block(metric, A, B, params, same)
    if block.shape != (len(A), len(B)):  # a library returning another shape is a bug
        raise RuntimeError(f"tile {tile_id}: block of shape {block.shape}, "
                           f"expected {(len(A), len(B))}")
    return tile_id, block


def _fingerprint(metric, params, kind, symmetric, X, Y, block_size):
    import joblib

    try:
        mkey = metric if isinstance(metric, str) else joblib.hash(metric)
    except Exception:  # unpicklable callable: its qualified name
        mkey = f"{getattr(metric, '__module__', '')}.{getattr(metric, '__qualname__', metric)}"
    return joblib.hash([mkey, sorted(params.items()), kind, symmetric, X, Y, block_size])


class _Record:
    """The ``<out>.blocks`` sidecar: fingerprint line, then finished tile numbers."""

    def __init__(self, path: Path, fingerprint: str, shape):
        self.path = path
        self.header = json.dumps({"fingerprint": fingerprint, "shape": list(shape)})

    def load(self) -> set[int] | None:
        """Finished tiles of a previous run with the same fingerprint, else None."""
        try:
            lines = self.path.read_text().splitlines()
        except OSError:
            return None
        if not lines or lines[0] != self.header:
            return None
        return {int(x) for x in lines[1:] if x.strip().isdigit()}

    def start(self):
        self.path.write_text(self.header + "\n")

    def add(self, tile_ids):
        with open(self.path, "a") as f:
            f.write("".join(f"{t}\n" for t in tile_ids))
            f.flush()
            os.fsync(f.fileno())


def _open_out(out, shape, record):
    """The result array: a fresh or resumed ``.npy`` memmap, and the tiles already done."""
    if out is None:
        return np.empty(shape, dtype=np.float64), set()
    path = Path(out)
    if path.suffix != ".npy":
        raise InvalidParameterError(
            f"out={str(out)!r}: give a path ending in .npy (a numpy memmap is written there)."
        )
    done = record.load() if path.exists() else None
    if done is not None:
        S = np.lib.format.open_memmap(path, mode="r+")
        if S.shape == shape and S.dtype == np.float64:
            return S, done
        del S
    S = np.lib.format.open_memmap(path, mode="w+", dtype=np.float64, shape=shape)
    record.start()
    return S, set()


def _client(scheduler):
    """``(client, owned)``: a ``distributed.Client`` from an address or the client given."""
    try:
        from dask.distributed import Client
    except ImportError:
        raise InvalidParameterError(
            "scheduler= needs Dask distributed: pip install 'proxlearn[distributed]'."
        ) from None
    if isinstance(scheduler, Client):
        return scheduler, False
    try:
        return Client(scheduler, timeout="20s"), True
    except (ValueError, OSError, TypeError) as exc:  # malformed address, unreachable host
        raise InvalidParameterError(
            f"cannot use the Dask scheduler {scheduler!r} ({type(exc).__name__}: {exc}). "
            "Give its address as tcp://HOST:PORT, as printed by `dask scheduler`, or a "
            "distributed.Client."
        ) from None


def _progress_callback(progress, total):
    """``(callback, closer)`` for ``progress``: False, True (a rich bar) or a callable."""
    if progress is True:
        from rich.progress import (BarColumn, Progress, TextColumn, TimeElapsedColumn,
                                   TimeRemainingColumn)

        bar = Progress(TextColumn("similarity"), BarColumn(),
                       TextColumn("{task.completed}/{task.total} blocks"), TimeElapsedColumn(),
                       TextColumn("ETA"), TimeRemainingColumn(), transient=False)
        bar.start()
        task = bar.add_task("similarity", total=total)
        return (lambda done, total: bar.update(task, completed=done, total=total)), bar.stop
    if callable(progress):
        return progress, (lambda: None)
    return (lambda done, total: None), (lambda: None)


def pairwise_similarity(X, Y=None, metric="levenshtein", *, metric_params=None,
                        kind=None, symmetric=None, n_jobs=None, block_size=None,
                        out=None, scheduler=None, progress=False, ids=None):
    """Matrix of a similarity or dissimilarity between lists of raw objects.

    Parameters
    ----------
    X : list of objects, length n
        Strings, protein / DNA sequences (strings), time series (1-D arrays of
        any length) or sets, as the metric needs (table in
        :mod:`proxlearn.pairwise._metrics`), or anything a callable accepts.
    Y : list of objects, length m, optional
        Column objects (e.g. the training objects, for a test-to-train matrix).
        ``None``: ``Y = X`` and, for a symmetric measure, each unordered pair
        is computed once.
    metric : str or callable, default="levenshtein"
        A name of :data:`METRICS` or ``f(a, b) -> float``.
    metric_params : dict, optional
        Parameters of a built-in metric (alignment: ``matrix``, ``gap_open``,
        ``gap_extend``; DTW: ``window``, ``psi``, ...; Jaro-Winkler:
        ``prefix_weight``). Unknown keys are an error.
    kind : {"similarity", "dissimilarity"}, optional
        What a callable returns (default ``"similarity"``). It changes no value;
        it is part of the resume fingerprint and what ``proxlearn similarity``
        stores as ``kind``. For a built-in metric leave it ``None`` (its kind is
        :func:`metric_kind`; a contradicting value is an error).
    symmetric : bool, optional
        Whether a callable is symmetric (default ``False``: every ordered pair
        is computed). Built-in metrics are symmetric.
    n_jobs : int, optional
        joblib workers over the tiles (``None``: 1, ``-1``: every core). String
        metrics use threads (rapidfuzz releases the GIL), the others processes;
        a callable that cannot be pickled runs in threads.
    block_size : int, optional
        Tile side (default 128). The result does not depend on it.
    out : str or Path ending in ``.npy``, optional
        Write the result into this memory-mapped file instead of RAM, record
        finished tiles in ``<out>.blocks`` and resume from them on a rerun
        (module docstring). The returned array is then a ``numpy.memmap``.
    scheduler : str or distributed.Client, optional
        A Dask distributed scheduler address (``tcp://HOST:PORT``, as
        ``proxlearn study --scheduler``) or a client: the tiles run on that
        cluster. ``n_jobs`` is then ignored.
    progress : bool or callable, default=False
        ``True``: a rich progress bar on the terminal; a callable is called as
        ``progress(n_done, n_total)`` (in tiles) after every tile.
    ids : list of str, optional
        Names of the objects of ``X`` (FASTA ids, line numbers) used in error
        messages.

    Returns
    -------
    S : ndarray or numpy.memmap of shape (n, m), float64
        ``S[i, j] = s(X[i], Y[j])``; a similarity or a dissimilarity as
        :func:`metric_kind` says.

    Raises
    ------
    ObjectListError
        A malformed object (empty sequence, letter outside the alphabet, NaN in
        a series), named by its index (and id).
    InvalidParameterError
        Unknown metric or parameter, bad ``block_size`` / ``out`` / ``scheduler``.

    Examples
    --------
    >>> from proxlearn.pairwise import pairwise_similarity
    >>> pairwise_similarity(["kitten", "sitting", "mitten"]).tolist()
    [[0.0, 3.0, 1.0], [3.0, 0.0, 3.0], [1.0, 3.0, 0.0]]
    >>> pairwise_similarity([{1, 2}, {2, 3}], metric="jaccard").round(3).tolist()
    [[1.0, 0.333], [0.333, 1.0]]

    See Also
    --------
    METRICS : the built-in measures.
    read_objects : reads the objects from FASTA, text or CSV files.
    proxlearn.transforms.DissimilarityToSimilarity : turns a dissimilarity into a similarity.
    """
    if callable(metric):
        kind = "similarity" if kind is None else check_option(kind, "kind", KINDS)
        symmetric = bool(symmetric)
        params, name = {}, getattr(metric, "__name__", "callable")
        Xp = _as_list(X, "X")
        Yp = None if Y is None else _as_list(Y, "Y")
    else:
        spec = get_metric(metric)
        if kind is not None and kind != spec.kind:
            raise InvalidParameterError(
                f"metric {metric!r} returns a {spec.kind}, not a {kind}; leave kind=None."
            )
        if symmetric is False:
            raise InvalidParameterError(f"metric {metric!r} is symmetric; leave symmetric=None.")
        kind, symmetric, name = spec.kind, spec.symmetric, metric
        params = resolve_params(spec, metric_params)
        Xp = prepare(metric, X, params, "X", ids)
        Yp = None if Y is None else prepare(metric, Y, params, "Y", None)
    b = DEFAULT_BLOCK_SIZE if block_size is None else block_size
    if isinstance(b, bool) or not isinstance(b, numbers.Integral) or b < 1:
        raise InvalidParameterError(f"block_size must be a positive integer, got {block_size!r}.")
    b = int(b)
    if n_jobs == 0:
        raise InvalidParameterError("n_jobs=0 runs nothing; give 1 or more, or -1 for every core.")

    triangle = Yp is None and symmetric
    Yc = Xp if Yp is None else Yp
    shape = (len(Xp), len(Yc))
    record = None
    if out is not None:
        fp = _fingerprint(metric, params, kind, symmetric, X, Y, b)
        record = _Record(Path(str(out) + ".blocks"), fp, shape)
    S, done = _open_out(out, shape, record)
    tiles = _tiles(shape[0], shape[1], b, triangle)
    todo = [t for t in tiles if t[0] not in done]
    by_id = {t[0]: t for t in tiles}
    update, close = _progress_callback(progress, len(tiles))
    n_done = len(tiles) - len(todo)
    update(n_done, len(tiles))

    pending, last = [], [time.monotonic()]

    def commit():
        """Flush the written tiles to disk, then record them (never the other way)."""
        if record is not None and pending:
            S.flush()
            record.add(pending)
            pending.clear()
        last[0] = time.monotonic()

    def write(tile_id, block):
        _, r, c = by_id[tile_id]
        S[r, c] = block
        if triangle and r != c:
            S[c, r] = block.T
        pending.append(tile_id)
        if time.monotonic() - last[0] > COMMIT_SECONDS:
            commit()

    def task_args(t):
        tile_id, r, c = t
        same = triangle and r == c
        A = Xp[r]
        return (tile_id, A, A if same else Yc[c], same, metric, params, symmetric)

    try:
        if scheduler is not None:
            _run_dask(scheduler, todo, task_args, write, update, n_done, len(tiles))
        else:
            from joblib import Parallel, delayed

            prefer = _callable_prefer(metric) if callable(metric) else METRICS[metric].prefer
            runner = Parallel(n_jobs=n_jobs, prefer=prefer, return_as="generator_unordered")
            for tile_id, block in runner(delayed(_run_tile)(*task_args(t)) for t in todo):
                write(tile_id, block)
                n_done += 1
                update(n_done, len(tiles))
    finally:  # also after an error: the tiles written so far are kept and recorded
        commit()
        close()
    if isinstance(S, np.memmap):
        S.flush()
    return S


def _run_dask(scheduler, todo, task_args, write, update, n_done, total):
    from dask.distributed import as_completed

    client, owned = _client(scheduler)
    try:
        futures = [client.submit(_run_tile, *task_args(t), pure=False) for t in todo]
        try:
            for fut in as_completed(futures):
                tile_id, block = fut.result()
                write(tile_id, block)
                n_done += 1
                update(n_done, total)
        finally:
            for f in futures:
                f.cancel()
    finally:
        if owned:
            client.close()


def _callable_prefer(func) -> str:
    """Processes for a callable that can be sent to them (cloudpickle, as loky does),
    else threads (e.g. Cython functions such as rapidfuzz's scorers, which do not pickle)."""
    try:
        import cloudpickle  # what loky sends tasks with (joblib >= 1.5 depends on it)
    except ImportError:  # older joblib vendors it
        from joblib.externals import cloudpickle

    try:
        cloudpickle.dumps(func)
    except Exception:
        return "threads"
    return "processes"


def _as_list(X, name):
    from .._validation import check_object_list

    return check_object_list(X, name)
