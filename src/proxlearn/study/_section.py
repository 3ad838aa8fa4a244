"""One section of the reproduction report, and what section plugins share.

A section (:class:`Section`) is a protocol, data sets and methods tied to tables of
a founding paper. Each paper's sections live in its plugin package
(``proxlearn.study.papers.<paper>``: the section definitions, the methods they
register, a custom runner and formatter where the study runner's nested CV does
not fit, and the paper's claims); :mod:`proxlearn.study._reproduce` runs them and
writes the report. This module holds what the plugins share: loading data sets,
caching whole-section results, formatting numbers and verdicts.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ._ledger import digits_agree

__all__ = ["Section"]


@dataclass(frozen=True)
class Section:
    """One block of the report.

    Attributes
    ----------
    key : str
        Name used on the command line (``--sections``).
    title : str
    protocol : str
        A study protocol, ``"loo"`` or ``"full-data"``.
    datasets, methods : tuple of str
    aliases : dict
        ``{(dataset, our method): paper method}`` when the paper's row is a
        variant we run under another name (e.g. SimSVM regularised towards flip
        on protein-2 is the thesis's "SimSVM" row).
    not_run : dict
        ``{dataset: reason}`` for the paper's data sets this section leaves out
        on purpose (cost, data not available); the verdict ledger prints the reason.
    paper_dataset : dict
        ``{our data set: the paper's}`` for a variant of a paper's data set (another
        reading of its construction): its rows show the paper's number and gap
        for comparison, but the verdict ledger judges the paper's row only by the
        section that runs the paper's data set as we read it.
    runner : callable or None
        ``runner(section, *, splits, jobs, cache_dir, seed, data_home, progress)``
        returning the section's result dict, for a section with its own computation
        (leave-one-out, whole data, chapter 3); ``None``: the study runner (nested CV
        over random partitions, :func:`proxlearn.study.run_study`), which also takes
        ``cached_only`` and reruns single rows or columns.
    formatter : callable or None
        ``formatter(result) -> list of Markdown lines`` of the section's tables;
        ``None``: the study table of its rows.
    modules : tuple of str
        With a ``runner``: the modules whose code its cached results depend on (part
        of their cache keys, :func:`_cached`).
    plot : callable or None
        ``plot(result, path)`` draws the figure of a section with a ``runner``
        (a study section's figure is its error bars); ``figure_caption`` is its
        caption.
    """

    key: str
    title: str
    protocol: str
    datasets: tuple[str, ...]
    methods: tuple[str, ...]
    aliases: dict = field(default_factory=dict)
    note: str = ""
    not_run: dict = field(default_factory=dict)
    paper_dataset: dict = field(default_factory=dict)
    runner: Callable | None = None
    formatter: Callable | None = None
    modules: tuple[str, ...] = ()
    plot: Callable | None = None
    figure_caption: str = "Mean error (std) per method"


def _load(names, data_home):
    from ..datasets import (
        FEATURE_REGISTRY,
        FEATURE_UNAVAILABLE,
        load_dataset,
        load_feature_dataset,
    )

    loaded, missing = [], []
    for n in names:
        try:
            if n in FEATURE_REGISTRY or n in FEATURE_UNAVAILABLE:  # feature data: rows sliced
                loaded.append(load_feature_dataset(n, data_home=data_home))
                continue
            loaded.append(load_dataset(n, data_home=data_home))
        except FileNotFoundError as exc:  # a missing UW file: report, do not fail
            missing.append(f"{n} ({str(exc).splitlines()[0]})")
    return loaded, missing


def _cached(cache_dir, name, key_parts, compute, modules=()):
    """``compute()`` once per ``key_parts`` (a whole-section result cached as JSON).

    ``modules``: names of the modules whose code the result depends on; their
    hashes (:func:`~proxlearn.study._runner._module_source_hash`: code without
    docstrings or comments, not the module's name) and ``CELL_KEY_VERSION`` join the
    key, so a module renamed or re-documented keeps its cells. Returns ``(value,
    compute_seconds, from_cache)``; a corrupted file is recomputed, like the
    study's cell cache.
    """
    from ._runner import CELL_KEY_VERSION, _Cache, _fingerprint, _module_source_hash

    cache = _Cache(None if cache_dir is None else Path(cache_dir) / "sections")
    code = [CELL_KEY_VERSION, *sorted(_module_source_hash(m) for m in modules)] if modules else []
    key = f"{name}-{_fingerprint(*key_parts, *code)}"
    hit = cache.load(key)
    if hit is not None:
        return hit["value"], hit["seconds"], True
    start = time.perf_counter()
    value = compute()
    seconds = time.perf_counter() - start
    cache.save(key, json.loads(json.dumps({"value": value, "seconds": seconds}, default=_json_default)))
    return value, seconds, False


#: How a row's ``agrees`` (the reference rule, None: no sigma / not run) is printed.
_VERDICT = {True: "agrees", False: "DIFFERS", None: ""}


def _cell_cache(cache_dir, modules=()):
    """``cache(name, key_parts, compute)`` over :func:`_cached` and a dict whose
    ``"seconds"`` sums the compute time of the cells (stored time for cached ones)."""
    compute = {"seconds": 0.0}

    def cache(name, key, fn):
        value, seconds, _ = _cached(cache_dir, name, key, fn, modules)
        compute["seconds"] += seconds
        return value

    return cache, compute


def _fmt(v, nd=2):
    return "" if v is None else f"{v:.{nd}f}"


def _printed_digits_verdict(ours, paper, digits):
    """Deterministic cells (leave-one-out, whole data set) agree to the printed digits."""
    if paper is None:
        return ""
    return "agrees" if digits_agree(ours, paper, digits) else "DIFFERS"


def _json_default(o):
    if isinstance(o, np.generic):
        return o.item()
    if isinstance(o, np.ndarray):
        return o.tolist()
    if isinstance(o, float) and math.isnan(o):
        return None
    raise TypeError(f"not JSON serialisable: {type(o)}")
