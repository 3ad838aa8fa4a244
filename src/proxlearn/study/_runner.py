"""Run a study: nested cross-validation over random partitions, cached and parallel.

One *cell* is (data set, method, partition). For each cell the runner

1. splits the training part into inner folds (:func:`inner_folds`),
2. evaluates the method's whole grid on every inner fold (sharing per-fold work
   through the method's fold evaluator),
3. picks the grid point with the lowest pooled CV error (ties: the first in grid
   order, i.e. the smallest regularisation / neighbourhood listed first),
4. refits on the whole training part and reports the test error in %.

Cells are independent: they run through joblib (``jobs``) or, given a Dask
scheduler address, through joblib's Dask backend on a distributed cluster.
Finished cells are cached as JSON files with a checksum, so an interrupted run
resumes and a rerun with more methods reuses finished cells; a corrupted file is
detected, reported and recomputed.
"""

from __future__ import annotations

import ast
import functools
import hashlib
import importlib
import inspect
import json
import re
import shutil
import time
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

from .._files import atomic_write_text, safe_component
from ..exceptions import InvalidParameterError, StudyWarning
from ._methods import get_method
from ._protocols import Protocol, inner_folds, make_partitions

__all__ = ["CellResult", "StudyResult", "run_cell", "run_study"]

CACHE_VERSION = 1


@dataclass
class CellResult:
    """Outcome of one (data set, method, partition) cell.

    Attributes
    ----------
    dataset, method : str
    partition : int
        Index of the partition.
    error : float
        Test error in %.
    params : dict
        Hyperparameters chosen by the inner cross-validation.
    cv_error : float
        Their cross-validation error in %.
    seconds : float
        Wall time of the cell.
    f_score : float or None
        F1 of the positive class in %.
    cached : bool
        Whether the cell came from the cache.

    See Also
    --------
    StudyResult : All cells of a study.
    run_cell : The computation of one cell.

    Examples
    --------
    >>> from proxlearn.datasets import make_gu_guo_synthetic
    >>> from proxlearn.study import get_protocol, run_study
    >>> ds = make_gu_guo_synthetic(2.0, 20.0, n_per_class=10)
    >>> result = run_study([ds], ["knn", "svm-clip"], get_protocol("custom", n_splits=2, cv=2))
    >>> cell = result.cells[0]
    >>> cell.method, cell.partition, cell.error + cell.accuracy
    ('knn', 0, 100.0)
    """

    dataset: str
    method: str
    partition: int
    error: float
    params: dict
    cv_error: float
    seconds: float
    f_score: float | None = None
    cached: bool = False

    @property
    def accuracy(self) -> float:
        """Test accuracy in % (100 minus the error)."""
        return 100.0 - self.error

    def to_json(self) -> dict:
        return {
            "dataset": self.dataset,
            "method": self.method,
            "partition": self.partition,
            "error": self.error,
            "f_score": self.f_score,
            "params": self.params,
            "cv_error": self.cv_error,
            "seconds": self.seconds,
        }


@dataclass
class StudyResult:
    """All cells of a study, with summaries per (data set, method).

    Attributes
    ----------
    protocol : Protocol
    seed : int
    cells : list of CellResult
    seconds : float
        Wall time of the study.
    warnings : list of str
        One entry per kind of warning raised while computing cells.

    See Also
    --------
    run_study : Returns a ``StudyResult``.
    summary_rows : Rows of the result next to the papers' numbers.

    Examples
    --------
    >>> from proxlearn.datasets import make_gu_guo_synthetic
    >>> from proxlearn.study import get_protocol, run_study
    >>> ds = make_gu_guo_synthetic(2.0, 20.0, n_per_class=10)
    >>> result = run_study([ds], ["knn", "svm-clip"], get_protocol("custom", n_splits=2, cv=2))
    >>> result.methods, len(result.cells)
    (['knn', 'svm-clip'], 4)
    >>> result.errors(ds.name, "svm-clip").tolist()
    [0.0, 0.0]
    """

    protocol: Protocol
    seed: int
    cells: list[CellResult] = field(default_factory=list)
    seconds: float = 0.0
    #: Warnings raised while computing cells, one entry per kind of warning
    #: (see :func:`_warning_summary`), instead of one printout per cell and fold.
    warnings: list[str] = field(default_factory=list)

    def _cells(self, dataset: str, method: str) -> list[CellResult]:
        return sorted(
            (c for c in self.cells if c.dataset == dataset and c.method == method),
            key=lambda c: c.partition,
        )

    def errors(self, dataset: str, method: str) -> np.ndarray:
        """Per-partition test error in %."""
        return np.array([c.error for c in self._cells(dataset, method)])

    def metric(self, dataset: str, method: str, name: str) -> np.ndarray:
        """Per-partition values of ``"error"``, ``"accuracy"`` or ``"f_score"`` (%)."""
        if name not in ("error", "accuracy", "f_score"):
            raise ValueError(f"unknown metric {name!r}; use error, accuracy or f_score.")
        return np.array([getattr(c, name) for c in self._cells(dataset, method)], dtype=float)

    @property
    def datasets(self) -> list[str]:
        return list(dict.fromkeys(c.dataset for c in self.cells))

    @property
    def methods(self) -> list[str]:
        return list(dict.fromkeys(c.method for c in self.cells))

    @classmethod
    def from_json(cls, data: dict, protocol: Protocol, seed: int = 0) -> StudyResult:
        """Rebuild the cells from :meth:`to_json`'s output (partition ``i`` is the
        ``i``-th stored value; CV errors and timings are not stored: NaN and 0)."""
        cells = []
        for ds, by_method in data.items():
            for m, block in by_method.items():
                f_scores = block.get("f_score", {}).get("values")
                for i, err in enumerate(block["errors"]):
                    cells.append(CellResult(
                        ds, m, i, float(err), dict(block["params"][i]), float("nan"), 0.0,
                        f_score=None if f_scores is None else float(f_scores[i]), cached=True))
        return cls(protocol=protocol, seed=seed, cells=cells)

    def to_json(self) -> dict:
        """``{dataset: {method: {"errors", "mean", "std", "params"}}}``.

        ``std`` is the sample standard deviation (ddof=1) over partitions. When
        the protocol reports more metrics (``kundu2010``), each method also gets
        ``"accuracy"`` and ``"f_score"`` blocks ``{"values", "mean", "std"}``.
        """
        out: dict = {}
        for ds in self.datasets:
            out[ds] = {}
            for m in self.methods:
                cells = sorted(
                    (c for c in self.cells if c.dataset == ds and c.method == m),
                    key=lambda c: c.partition,
                )
                if not cells:
                    continue
                errs = np.array([c.error for c in cells])
                out[ds][m] = {
                    "errors": errs.tolist(),
                    "mean": float(errs.mean()),
                    "std": float(errs.std(ddof=1)) if errs.size > 1 else 0.0,
                    "params": [c.params for c in cells],
                }
                for name in self.protocol.metrics:
                    if name == "error":
                        continue
                    vals = self.metric(ds, m, name)
                    out[ds][m][name] = {
                        "values": vals.tolist(),
                        "mean": float(vals.mean()),
                        "std": float(vals.std(ddof=1)) if vals.size > 1 else 0.0,
                    }
        return out


def _error_pct(y_true, y_pred) -> float:
    return float(100.0 * np.mean(np.asarray(y_true) != np.asarray(y_pred)))


def f_score_pct(y_true, y_pred, classes) -> float:
    """F-score in % as Kundu et al. (2010) report it.

    Binary problems: F1 of the positive class, taken to be the larger label
    (``+1`` of ``{-1, +1}``, ``2`` of ``{1, 2}``). More classes: the unweighted
    mean of the per-class F1 (macro F1). A class never predicted and absent
    from ``y_true`` is left out of the mean.
    """
    from sklearn.metrics import f1_score

    classes = np.asarray(classes)
    if classes.size == 2:
        return float(
            100.0 * f1_score(y_true, y_pred, labels=[classes[-1]], average="macro", zero_division=0.0)
        )
    return float(100.0 * f1_score(y_true, y_pred, average="macro", zero_division=0.0))


def _take(S, rows, cols, pairwise):
    return S[np.ix_(rows, cols)] if pairwise else S[rows]


def _nested_cv(S, y, method, train, test, protocol: Protocol, seed: int, pairwise: bool):
    """Model selection on ``train`` and the refitted model's test predictions.

    Returns ``(mistakes per grid point, grid, index of the chosen point, refitted
    model, test predictions, S_test)``: the whole computation of a cell, shared by
    :func:`run_cell` and the behaviour probe of the cache keys
    (:func:`method_behaviour_fingerprint`).
    """
    S = np.asarray(S, dtype=np.float64)
    y = np.asarray(y)
    S_tr = _take(S, train, train, pairwise)
    y_tr = y[train]
    folds = inner_folds(y_tr, protocol.cv, seed)
    # only grid values valid in every inner fold (k < inner training size)
    n_inner = min(len(f[0]) for f in folds)
    grid = method.grid(protocol.grids, n_inner)
    mistakes = np.zeros(len(grid))
    for fit_idx, val_idx in folds:
        preds = method.evaluate_grid(
            _take(S_tr, fit_idx, fit_idx, pairwise),
            y_tr[fit_idx],
            _take(S_tr, val_idx, fit_idx, pairwise),
            grid,
        )
        for g, pred in enumerate(preds):
            mistakes[g] += np.sum(np.asarray(pred) != y_tr[val_idx])
    best = int(np.argmin(mistakes))  # first minimum = first in grid order
    model = method.build(**grid[best]).fit(S_tr, y_tr)
    S_te = _take(S, test, train, pairwise)
    return mistakes, grid, best, model, model.predict(S_te), S_te


def run_cell(
    S, y, method_name, train, test, protocol: Protocol, seed: int, dataset: str | None = None,
    pairwise: bool = True,
) -> dict:
    """Nested CV on ``train``, refit, and test error on ``test`` (a plain dict).

    ``S`` is the full similarity matrix of the data set; ``train`` and ``test``
    index its rows. Only ``S[train][:, train]`` is used for model selection and
    fitting, ``S[test][:, train]`` for testing. ``dataset`` selects a
    data-set-specific variant of the method if one is registered (see
    :func:`~proxlearn.study.get_method`). ``pairwise=False``: ``S`` is a
    feature matrix (a :class:`~proxlearn.datasets.FeatureDataset`) and only
    its rows are sliced.

    Parameters
    ----------
    S : ndarray of shape (n_samples, n_samples)
        The data set's similarity matrix (its features when ``pairwise=False``).
    y : array-like of shape (n_samples,)
    method_name : str
        A registered method.
    train, test : array of int
        Row indices of the partition.
    protocol : Protocol
        Gives the inner folds and the grid set.
    seed : int
        Seeds the inner folds.
    dataset : str, optional
    pairwise : bool, default=True

    Returns
    -------
    dict
        ``{"error", "f_score", "params", "cv_error", "seconds"}`` (errors and
        F-score in %).

    See Also
    --------
    run_study : Every cell of several data sets and methods, cached.

    Examples
    --------
    >>> from proxlearn.datasets import make_gu_guo_synthetic
    >>> from proxlearn.study import get_protocol, make_partitions, run_cell
    >>> ds = make_gu_guo_synthetic(2.0, 20.0, n_per_class=10)
    >>> p = get_protocol("custom", n_splits=2, cv=2)
    >>> train, test = make_partitions(ds.labels, p)[0]
    >>> cell = run_cell(ds.matrix, ds.labels, "knn", train, test, p, seed=0)
    >>> sorted(cell), cell["params"]
    (['cv_error', 'error', 'f_score', 'params', 'seconds'], {'n_neighbors': 5})
    """
    start = time.perf_counter()
    y = np.asarray(y)
    mistakes, grid, best, _, y_pred, _ = _nested_cv(
        S, y, get_method(method_name, dataset), train, test, protocol, seed, pairwise)
    params = grid[best]
    return {
        "error": _error_pct(y[test], y_pred),
        "f_score": f_score_pct(y[test], y_pred, np.unique(y)),
        "params": {k: (v.item() if hasattr(v, "item") else v) for k, v in params.items()},
        "cv_error": float(100.0 * mistakes[best] / len(train)),
        "seconds": time.perf_counter() - start,
    }


def _fingerprint(*parts) -> str:
    h = hashlib.sha256()
    for p in parts:
        if isinstance(p, np.ndarray):
            h.update(str(p.dtype).encode())
            h.update(str(p.shape).encode())
            h.update(np.ascontiguousarray(p).tobytes())
        else:
            h.update(json.dumps(p, sort_keys=True, default=str).encode())
    return h.hexdigest()[:16]


@functools.lru_cache(maxsize=None)
def _module_source_hash(module: str) -> str:
    """sha256 of a module's code, with its docstrings, comments and layout left out.

    The module's source is parsed and printed back (``ast.unparse``) without the
    docstrings of the module, its classes and functions, so that editing a
    docstring or a comment, or reformatting, keeps the hash; the module's name and
    file are not hashed, and imports from inside proxlearn count by the names they
    bind only (not the module they come from, nor their order at the top), so a
    module renamed or moved to another package with the same code keeps it too.
    ``''`` hashed when there is no source (e.g. a compiled module); a name that
    does not import raises ``ImportError``.
    """
    mod = importlib.import_module(module)  # a name that does not import is an error
    try:
        text = _code_without_docstrings(inspect.getsource(mod))
    except (OSError, TypeError):
        text = ""
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _code_without_docstrings(source: str) -> str:
    tree = ast.parse(source)
    # where a module imports a name from inside proxlearn, and in which order, is
    # layout: a module moved to another package rewrites its relative imports. Each
    # internal ``from X import a, b`` is kept as its sorted names only, and the
    # module's top-level internal imports are gathered, sorted, at its top.
    internal = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (
                node.level > 0 or (node.module or "").split(".")[0] == "proxlearn"):
            node.module, node.level = "_proxlearn_", 0
            node.names = sorted(node.names, key=lambda a: (a.name, a.asname or ""))
            internal.append(node)
    top = [n for n in tree.body if n in internal]
    if top:
        rest = [n for n in tree.body if n not in internal]
        key = [ast.unparse(n) for n in top]
        tree.body = [n for _, n in sorted(zip(key, top), key=lambda kn: kn[0])] + rest
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if (body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant)
                    and isinstance(body[0].value.value, str)):
                node.body = body[1:] or [ast.Pass()]
        elif (isinstance(node, ast.Assign) and len(node.targets) == 1
              and isinstance(node.targets[0], ast.Name) and node.targets[0].id == "__doc__"):
            node.value = ast.Constant(None)  # ``__doc__ = ...`` assembled docstrings
    return ast.unparse(tree)


#: Part of every cell's key. Bump it when a change alters the numbers of cells in
#: a way the behaviour probe cannot see (a path taken only on inputs larger than the
#: probe, say): every cached cell is then recomputed.
CELL_KEY_VERSION = 2
#: The probe: the first ``max(PROBE_PER_CLASS, PROBE_SIZE / n_classes)`` samples of
#: each class (in the data set's order), a quarter of them (at least one) held out,
#: ``PROBE_CV`` inner folds; its outputs are hashed to ``PROBE_DECIMALS`` decimals
#: of their largest magnitude.
PROBE_PER_CLASS = 8
PROBE_SIZE = 48
PROBE_CV = 2
PROBE_DECIMALS = 8


def _probe_split(y):
    train, test = [], []
    classes = np.unique(y)
    per_class = max(PROBE_PER_CLASS, -(-PROBE_SIZE // classes.size))
    for c in classes:
        idx = np.flatnonzero(y == c)[:per_class]
        n_test = max(1, idx.size // 4) if idx.size > 1 else 0
        train.extend(idx[: idx.size - n_test])
        test.extend(idx[idx.size - n_test:])
    return np.sort(np.array(train, dtype=int)), np.sort(np.array(test, dtype=int))


def _rounded(values):
    """Floating outputs as ``(largest magnitude, values relative to it)``, both rounded
    (``-0.0`` as ``0.0``); other arrays as they are."""
    a = np.asarray(values)
    if a.dtype.kind not in "fc":
        return 1.0, a
    a = np.nan_to_num(np.asarray(a, dtype=np.float64), nan=0.0, posinf=0.0, neginf=0.0)
    scale = float(np.max(np.abs(a))) if a.size else 0.0
    if scale == 0.0:
        return 0.0, a
    # the largest magnitude to as many significant digits, the rest relative to it
    return float(f"{scale:.{PROBE_DECIMALS}e}"), np.round(a / scale, PROBE_DECIMALS) + 0.0


def method_behaviour_fingerprint(method_name: str, dataset: str | None, S, y,
                                 protocol: Protocol, pairwise: bool = True) -> str:
    """What the code behind a study method computes, seen on a probe of the data set.

    Part of every cell's cache key, so that a report built from the cache
    (``--cached-only``) never mixes cells computed by code that gave other
    numbers, while a change that moves code, renames modules, edits
    docstrings or refactors without changing a number keeps every cached cell.
    The probe runs the cell's own computation (:func:`_nested_cv`:
    the method's grid, its fold evaluator, the refit) on the first
    ``PROBE_PER_CLASS`` samples of each class of the data set with ``PROBE_CV``
    inner folds, and hashes the validation mistakes of every grid point, the
    chosen point, the test predictions and the refitted model's decision values
    and probabilities (rounded, :func:`_rounded`); an exception is hashed by its
    class and message. What it cannot see: a change whose numbers differ only on
    inputs larger than the probe (bump ``CELL_KEY_VERSION`` then).
    """
    method = get_method(method_name, dataset)
    y = np.asarray(y)
    train, test = _probe_split(y)
    probe = replace(protocol, cv=PROBE_CV)
    parts: list = [CELL_KEY_VERSION, method.name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            mistakes, grid, best, model, y_pred, S_te = _nested_cv(
                S, y, method, train, test, probe, 0, pairwise)
        except Exception as exc:  # noqa: BLE001 - a refusal is behaviour too
            return _fingerprint(*parts, type(exc).__name__, str(exc))
        parts += [mistakes, best, [str(v) for v in grid[best].values()], np.asarray(y_pred).astype(str)]
        for name in ("decision_function", "predict_proba"):
            if hasattr(model, name):
                try:
                    parts.extend(_rounded(getattr(model, name)(S_te)))
                except Exception as exc:  # noqa: BLE001
                    parts.append(type(exc).__name__)
    return _fingerprint(*parts)


class _Cache:
    """One JSON file per cell, with a checksum of its payload."""

    def __init__(self, root: Path | None):
        self.root = None if root is None else Path(root)

    def path(self, key: str) -> Path | None:
        return None if self.root is None else self.root / f"{key}.json"

    def load(self, key: str) -> dict | None:
        path = self.path(key)
        if path is None or not path.exists():
            return None
        try:
            record = json.loads(path.read_text())
            payload = record["payload"]
            ok = record.get("sha256") == _fingerprint(payload) and record.get(
                "version"
            ) == CACHE_VERSION
        # OSError: a directory or unreadable file; RecursionError: absurdly nested JSON
        except (ValueError, KeyError, TypeError, AttributeError, OSError, RecursionError):
            ok = False
        if not ok:
            warnings.warn(
                f"cache file {path} is corrupted or stale; recomputing it.",
                UserWarning,
                stacklevel=2,
            )
            if path.is_dir() and not path.is_symlink():
                shutil.rmtree(path, ignore_errors=True)
            else:
                path.unlink(missing_ok=True)
            return None
        return payload

    def save(self, key: str, payload: dict) -> None:
        path = self.path(key)
        if path is None:
            return
        record = {"version": CACHE_VERSION, "sha256": _fingerprint(payload), "payload": payload}
        # unique temporary name + atomic replace: safe against concurrent writers
        atomic_write_text(path, json.dumps(record))


def run_study(
    datasets: Sequence,
    methods: Sequence[str],
    protocol: Protocol,
    *,
    seed: int = 0,
    jobs: int = 1,
    scheduler: str | None = None,
    cache_dir: str | Path | None = None,
    progress=None,
    cached_only: bool = False,
) -> StudyResult:
    """Run ``methods`` on ``datasets`` under ``protocol``.

    Parameters
    ----------
    datasets : sequence of SimilarityDataset
    methods : sequence of str
        Registered method names (see :data:`proxlearn.study.METHODS`).
    protocol : Protocol
    seed : int
        Seeds the partitions and inner folds: the same seed gives the same numbers.
    jobs : int
        Parallel workers (joblib); ``-1`` uses every core.
    scheduler : str, optional
        Address of a Dask distributed scheduler; cells then run on that cluster
        through joblib's Dask backend.
    cache_dir : path, optional
        Folder of finished cells (resume / reuse).
    progress : callable, optional
        ``progress(n_done, n_total)`` after every finished cell.
    cached_only : bool
        Report only the cells already in ``cache_dir`` and compute nothing (a
        snapshot of a long run that is still going or was interrupted); the
        result then may have fewer partitions for some methods.

    Returns
    -------
    StudyResult
        One :class:`CellResult` per (data set, method, partition).

    See Also
    --------
    run_cell : One cell, uncached.
    summary_rows, to_markdown : Tables of the result.
    reproduce : The papers' sections, with their report.

    Examples
    --------
    >>> from proxlearn.datasets import make_gu_guo_synthetic
    >>> from proxlearn.study import get_protocol, run_study
    >>> ds = make_gu_guo_synthetic(2.0, 20.0, n_per_class=10)
    >>> result = run_study([ds], ["knn", "svm-clip"], get_protocol("custom", n_splits=2, cv=2))
    >>> result.errors(ds.name, "knn").tolist()
    [16.666666666666664, 0.0]
    """
    from joblib import Parallel, delayed, parallel_config

    start = time.perf_counter()
    for m in methods:
        get_method(m)  # fail fast on unknown names
    cache = _Cache(cache_dir)
    result = StudyResult(protocol=protocol, seed=seed)
    todo = []
    for data in datasets:
        S, y = data.matrix, np.asarray(data.labels)
        try:
            parts = make_partitions(y, protocol, seed)
        except InvalidParameterError as exc:
            raise InvalidParameterError(f"data set {data.name!r}: {exc}") from None
        data_fp = _fingerprint(S, y.astype(str))
        for m in methods:
            method = get_method(m, data.name)
            code = method_behaviour_fingerprint(m, data.name, S, y, protocol,
                                                getattr(data, "pairwise", True))
            for i, (tr, te) in enumerate(parts):
                key = "/".join(
                    [
                        safe_component(data.name),
                        safe_component(m),
                        _fingerprint(
                            data_fp,
                            _protocol_key(protocol),
                            tr,
                            te,
                            seed,
                            method.grids,
                            method.name,
                            code,
                        ),
                        f"part-{i:03d}",
                    ]
                )
                hit = cache.load(key)
                if hit is not None and "f_score" in protocol.metrics and "f_score" not in hit:
                    hit = None  # cached before F-scores were recorded
                if hit is not None:
                    result.cells.append(
                        CellResult(data.name, m, i, cached=True, **_cell_fields(hit))
                    )
                else:
                    todo.append((data.name, m, i, key, S, y, tr, te,
                                 getattr(data, "pairwise", True)))
    if cached_only:
        todo = []
    # partition-major order: a run stopped early (or snapshotted with
    # cached_only) has the same partitions for every data set and method
    todo.sort(key=lambda t: t[2])
    total = len(result.cells) + len(todo)
    if progress is not None:
        progress(len(result.cells), total)

    def jobs_iter():
        for name, m, i, key, S, y, tr, te, pw in todo:
            yield delayed(_run_cell_keyed)(name, m, i, key, S, y, tr, te, protocol, seed, pw)

    found: dict[str, tuple[str, set]] = {}
    backend = {"backend": "dask"} if scheduler else {}
    client = None
    if scheduler:
        from dask.distributed import Client

        try:
            client = Client(scheduler, timeout="20s")
        except (ValueError, OSError) as exc:  # malformed address, unreachable host
            raise InvalidParameterError(
                f"cannot use the Dask scheduler {scheduler!r} ({type(exc).__name__}: "
                f"{exc}). Give its address as tcp://HOST:PORT, as printed by "
                "`dask scheduler`."
            ) from None
    try:
        with parallel_config(n_jobs=jobs if not scheduler else -1, **backend):
            runner = Parallel(return_as="generator_unordered")
            for name, m, i, key, payload, seen in runner(jobs_iter()):
                cache.save(key, payload)
                result.cells.append(CellResult(name, m, i, **_cell_fields(payload)))
                for wkey, text in seen.items():
                    found.setdefault(wkey, (text, set()))[1].add(f"{name}/{m}/part-{i:03d}")
                if progress is not None:
                    progress(len(result.cells), total)
    finally:
        if client is not None:
            client.close()
    order = {d.name: k for k, d in enumerate(datasets)}
    morder = {m: k for k, m in enumerate(methods)}
    result.cells.sort(key=lambda c: (order[c.dataset], morder[c.method], c.partition))
    result.seconds = time.perf_counter() - start
    result.warnings = _warning_summary(found)
    for text in result.warnings:  # once per kind of warning, not per cell and fold
        warnings.warn(text, StudyWarning, stacklevel=2)
    return result


def _protocol_key(protocol: Protocol) -> dict:
    """What a cell's outcome depends on, besides its partition's indices.

    The number of partitions is left out (the indices are hashed instead), so
    a 3-partition run and a later 20-partition run share their first cells.
    """
    return {k: v for k, v in protocol.__dict__.items() if k not in ("n_splits", "name")}


def _cell_fields(payload: dict) -> dict:
    fields = {k: payload[k] for k in ("error", "params", "cv_error", "seconds")}
    fields["f_score"] = payload.get("f_score")
    return fields


def _run_cell_keyed(name, m, i, key, S, y, tr, te, protocol, seed, pairwise=True):
    # seed the inner folds per partition so cells are independent of run order;
    # warnings are recorded and returned (a worker's would print once per fold)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")  # every cell's own, to count the cells
        for quiet in (DeprecationWarning, PendingDeprecationWarning):  # for developers
            warnings.simplefilter("ignore", quiet)
        payload = run_cell(S, y, m, tr, te, protocol, seed + 1000 * i, dataset=name,
                           pairwise=pairwise)
    seen = {}
    for w in caught:
        seen.setdefault(_warning_key(w.category, w.message), f"{w.category.__name__}: {w.message}")
    return name, m, i, key, payload, seen


def _warning_key(category, message) -> str:
    """Warnings that differ only in their numbers (a fold's asymmetry, a gap) are one kind."""
    return category.__name__ + ": " + re.sub(r"[-+]?\d[\d.e+-]*", "#", str(message))


def _warning_summary(found: dict[str, tuple[str, set]]) -> list[str]:
    """One line per kind of warning: how many cells raised it and one example."""
    return [f"{example} [in {len(cells)} cell(s), e.g. {sorted(cells)[0]}]"
            for example, cells in found.values()]
