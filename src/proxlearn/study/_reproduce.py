"""The reproduction report: every published table we can rerun, ours vs the paper.

:func:`reproduce` runs the sections listed in :data:`SECTIONS` (each a protocol,
data sets and methods tied to tables of the founding papers, defined by the
paper's plugin package in :mod:`proxlearn.study.papers`), caches every
cell, and writes ``docs/reproduction.md`` (tables with gap and verdict per
cell, wall times, a list of disagreements, whether the papers' conclusions hold)
and ``docs/reproduction.json`` (every per-partition number). The command line
front end is ``proxlearn reproduce``; ``bash scripts/reproduce.sh`` sets up and
runs it.

A section whose methods are not registered (a method still to be written) or
whose data is missing is reported as not run, never silently dropped.
"""

from __future__ import annotations

import json
import os
import platform
import time
from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime, timezone
from pathlib import Path

from .._files import atomic_write_text
from ._ledger import ledger_markdown, reading_of, verdict_ledger
from ._methods import METHODS
from ._protocols import PROTOCOLS, get_protocol
from ._report import (
    MIN_OWN_SIGMA_PARTITIONS,
    _paper_cell,
    agreement,
    load_targets,
    summary_rows,
)
from ._section import Section, _json_default, _load
from .papers import PAPERS, paper_claims

__all__ = ["SECTIONS", "Section", "reproduce"]


SECTIONS: tuple[Section, ...] = tuple(s for paper in PAPERS for s in paper.SECTIONS)


def _section(key: str) -> Section:
    for s in SECTIONS:
        if s.key == key:
            return s
    from .._validation import InvalidParameterError

    raise InvalidParameterError(
        f"unknown section {key!r}; choose from {', '.join(s.key for s in SECTIONS)}."
    )


# --------------------------------------------------------------------------
# Running one section
# --------------------------------------------------------------------------


def _run_study_section(sec, *, splits, jobs, cache_dir, seed, data_home, progress,
                       cached_only=False):
    from ._runner import run_study

    methods = [m for m in sec.methods if m in METHODS]
    absent = [m for m in sec.methods if m not in METHODS]
    datasets, missing = _load(sec.datasets, data_home)
    protocol = get_protocol(sec.protocol, n_splits=splits)
    out = {"protocol": sec.protocol, "n_splits": protocol.n_splits, "not_registered": absent,
           "missing_data": missing, "rows": [], "results": {}}
    if not methods or not datasets:
        return out
    start = time.perf_counter()
    result = run_study(datasets, methods, protocol, seed=seed, jobs=jobs,
                       cache_dir=None if cache_dir is None else Path(cache_dir) / sec.protocol,
                       progress=progress, cached_only=cached_only)
    out["seconds"] = time.perf_counter() - start
    out["compute_seconds"] = float(sum(c.seconds for c in result.cells))
    out["cached_cells"] = int(sum(c.cached for c in result.cells))
    out["cells"] = len(result.cells)
    out["rows"] = _section_rows(sec, result)
    out["results"] = result.to_json()
    out["_study"] = result  # for the figures; not written to JSON
    return out


def _section_rows(sec, result):
    """The summary rows of a study section, with the paper cells of its aliases."""
    targets = load_targets()
    rows = summary_rows(result, targets)
    for r in rows:
        base, reading = reading_of(r["method"])
        alias = sec.aliases.get((r["dataset"], r["method"])) or (
            base if reading != "text" else None)
        if reading != "text":
            r["reading"] = reading
        variant = sec.paper_dataset.get(r["dataset"])
        if (alias or variant) and r["paper"] is None:
            metric = "accuracy_pct" if r["metric"] == "accuracy" else "error_pct"
            paper, sigma, source = _paper_cell(targets, sec.protocol, variant or r["dataset"],
                                               alias or r["method"], metric)
            if variant:
                alias = f"{variant}, another reading"
            elif reading != "text":
                alias = f"{alias}, {reading} reading"
            if paper is not None:
                if sigma is None and r["n_partitions"] >= MIN_OWN_SIGMA_PARTITIONS:
                    sigma, source = r["std"], "ours"
                r.update(paper=paper.mean, paper_std=paper.std, gap=r["mean"] - paper.mean,
                         paper_table=f"{paper.source} {paper.table} ({alias})",
                         sigma=sigma, sigma_source=source,
                         agrees=agreement(r["mean"], paper.mean, sigma, r["n_partitions"]))
    return rows


# --------------------------------------------------------------------------
# Markdown
# --------------------------------------------------------------------------


def _study_table(rows) -> list[str]:
    from ._report import _columns, _cells

    cols, has_f = _columns(rows)
    lines = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    for r in rows:
        lines.append("| " + " | ".join(_cells(r, has_f, lambda x: f"**{x}**")) + " |")
    return lines


def _markdown(sections: dict, *, total_seconds, command, jobs, discussion, figures=None) -> str:
    lines = [
        "# Reproduction report",
        "",
        "Generated by `" + command + "` "
        f"on {datetime.now(timezone.utc).strftime('%Y-%m-%d %H:%M UTC')}, "
        f"{os.cpu_count()} CPU cores, {jobs} worker(s), Python {platform.python_version()}. "
        "Do not edit by hand: rerun the command (finished cells are cached).",
        "",
        f"**Wall time of this run: {total_seconds / 60:.1f} min; compute time of every "
        f"cell reported: {sum(o.get('compute_seconds', 0.0) for o in sections.values()) / 3600:.1f}"
        " core-hours** (each measured when it was first run). "
        "Per section below: the wall time of this invocation (small when cells came from "
        "the cache) and the compute time of its cells when they were first run.",
        "",
        "Verdicts follow ../shared/reference/README.md: with R partitions a cell agrees when "
        "|ours - paper| <= 2 sqrt(2/R) sigma, sigma being the paper row's std, else the largest "
        "std of its table column; `*` marks verdicts that used our own std because the paper "
        "prints none. Bold: the best method and those not significantly worse (one-sided "
        "Wilcoxon signed-rank test, 5%).",
        "",
    ]
    ledger = verdict_ledger(sections, SECTIONS, load_targets())
    default_ledger = verdict_ledger(sections, SECTIONS, load_targets(), reading="default")
    for key, out in sections.items():
        sec = _section(key)
        lines += [f"## {sec.title}", "", f"Section `{key}`, protocol `{sec.protocol}`. {sec.note}", ""]
        if out.get("_previous"):
            lines.append("Numbers of the previous report (this section was not rerun by "
                         "this invocation; its wall and compute times are those of that run).")
        if out.get("n_splits"):
            partial = any(r.get("partial") for r in out.get("rows", []))
            lines.append(f"Partitions: {out['n_splits']}"
                         + (" in the protocol; rows marked [R=...] have only that many finished "
                            "(a snapshot of a run in progress; bold is judged on the partitions "
                            "all methods share)." if partial else "."))
        if "rerun_only" in out and not out.get("_previous"):
            lines.append(
                "Cells rerun by this invocation: "
                f"{', '.join(out['rerun_only']['datasets'])} x "
                f"{', '.join(out['rerun_only']['methods'])} (wall time "
                f"{out['seconds']:.0f} s; compute time of their cells "
                f"{out.get('rerun_compute_seconds', out['compute_seconds']):.0f} s, "
                f"{out.get('rerun_cached_cells', out.get('cached_cells', 0))} of "
                f"{out.get('rerun_cells', out.get('cells', 0))} cells from the cache). The "
                "other cells are the previous report's per-partition numbers"
                + (f" (compute time {out['previous_compute_seconds']:.0f} s for that whole "
                   "run of the section)." if "previous_compute_seconds" in out else ".")
                + " Ranks, bold and verdicts are recomputed over all cells.")
        elif "seconds" in out:
            lines.append(f"Wall time {out['seconds']:.0f} s; compute time of its cells "
                         f"{out['compute_seconds']:.0f} s"
                         + (f" ({out['cached_cells']} of {out['cells']} cells from the cache)."
                            if "cells" in out else "."))
        if out.get("code_revision"):
            lines.append(f"Run by this invocation with the code of commit "
                         f"`{out['code_revision']}`." if not out.get("_previous") else
                         f"Run with the code of commit `{out['code_revision']}`.")
        if out.get("not_registered"):
            lines.append(f"Not run (method not available): {', '.join(out['not_registered'])}.")
        if out.get("missing_data"):
            lines.append(f"Not run (data missing): {'; '.join(out['missing_data'])}.")
        lines.append("")
        rows = out.get("rows", [])
        if not rows:
            lines += ["(no results)", ""]
            continue
        lines += sec.formatter(out) if sec.formatter is not None else _study_table(rows)
        lines.append("")
        skipped = [e for e in ledger if e.section == key and e.status == "not run"]
        if skipped:
            why: dict[str, list[str]] = {}
            for e in skipped:
                why.setdefault(e.reason, []).append(
                    f"{e.target.dataset}/{e.target.method} (Table {e.target.table})")
            lines += [f"Paper rows of this section not run ({len(skipped)}): " + "; ".join(
                f"{', '.join(rows)}: {reason}" for reason, rows in why.items()) + ".", ""]
        if figures and key in figures:
            lines += [f"![{sec.figure_caption}]({figures[key]})", ""]
    lines += ledger_markdown(ledger, default_ledger)
    claims = paper_claims(sections)
    n_hold = sum(v.startswith("holds") for _, _, v in claims)
    n_fail = sum(v.startswith("does NOT") for _, _, v in claims)
    lines += ["", "## The papers' conclusions", "",
              f"Every claim the papers' texts make about which method wins where, as we read it "
              f"(the reading is in the claim), checked on our numbers: {n_hold} hold, {n_fail} "
              f"do not, {len(claims) - n_hold - n_fail} not run. Paired means over the "
              "partitions all compared methods have.", "",
              "| paper | claim | verdict (our means) |", "|---|---|---|"]
    for paper, text, verdict in claims:
        lines.append(f"| {paper} | {text} | {verdict} |")
    lines.append("")
    if discussion:
        lines += [discussion.rstrip(), ""]
    return "\n".join(lines)


def reproduce(
    sections: Sequence[str] | None = None,
    *,
    splits: int | None = None,
    jobs: int = 2,
    seed: int = 0,
    cache_dir: str | Path | None = None,
    out: str | Path | None = "docs/reproduction.md",
    json_path: str | Path | None = "docs/reproduction.json",
    discussion: str | Path | None = None,
    data_home=None,
    command: str = "proxlearn reproduce",
    progress_factory=None,
    cached_only: bool = False,
    update: str | Path | None = None,
    datasets: Sequence[str] | None = None,
    methods: Sequence[str] | None = None,
) -> dict:
    """Run the reproduction sections and write the report.

    Parameters
    ----------
    sections : list of str, optional
        Keys of :data:`SECTIONS` (default: all).
    splits : int, optional
        Override the number of partitions of every study section (for a
        quicker, partial run; the report states the number used).
    jobs : int
        joblib workers.
    cache_dir : path, optional
        Cell cache; defaults to ``<proxlearn cache>/reproduce``.
    out, json_path : path or None
        The Markdown report and the JSON of every number (None: not written).
    discussion : path, optional
        A hand-written Markdown file appended to the report (the discussion of
        disagreements).
    cached_only : bool
        Report the finished cells of the study sections without computing the
        missing ones (a snapshot of a run in progress); rows with fewer
        partitions than the protocol show ``[R=...]`` and are judged with that R.
    update : path, optional
        A previous report's JSON (normally ``docs/reproduction.json``): the
        sections not run now are taken from it (their per-partition numbers,
        figures and claims rebuilt from the stored values; the report says which
        sections were rerun), so that one section can be refreshed without the
        many core-hours of the others.
    datasets : list of str, optional
        With ``update``: rerun only these data sets' rows of the (study)
        sections given; the section's other rows keep the stored per-partition
        numbers, and the merged section's ranks, verdicts and figure are rebuilt
        from all of them (a data set added to a long section, or one whose
        method changed, without rerunning the rest).
    methods : list of str, optional
        The same for columns: with ``update``, rerun only these methods' cells
        (of the ``datasets`` given, else of every data set of the section).

    Returns
    -------
    dict
        ``{section key: {"rows", "results", "seconds", ...}}``.

    See Also
    --------
    SECTIONS : The sections, one per table or figure of a paper.
    run_study : The nested cross-validation behind a study section.

    Examples
    --------
    The sections read the papers' data sets, which live outside the repository
    (the search path of :func:`proxlearn.datasets.data_search_path`):

    >>> from proxlearn.study import reproduce
    >>> report = reproduce(["loo"], out=None, json_path=None)  # doctest: +SKIP
    >>> from proxlearn.study import SECTIONS
    >>> "chen2009" in [s.key for s in SECTIONS]
    True
    """
    from ..datasets import get_cache_home

    keys = [s.key for s in SECTIONS] if sections is None else list(sections)
    for k in keys:
        _section(k)
    subset = datasets is not None or methods is not None
    if subset:
        datasets = None if datasets is None else list(dict.fromkeys(datasets))
        methods = None if methods is None else list(dict.fromkeys(methods))
        _check_rerun_cells(keys, datasets, methods, update, splits)
    if cache_dir is None:
        cache_dir = Path(get_cache_home()) / "reproduce"
    start = time.perf_counter()
    results: dict = {}
    for k in keys:
        sec = _section(k)
        if subset:
            sec = replace(sec, datasets=tuple(d for d in sec.datasets
                                              if datasets is None or d in datasets),
                          methods=tuple(m for m in sec.methods
                                        if methods is None or m in methods))
        runner = sec.runner or _run_study_section
        progress = None if progress_factory is None else progress_factory(sec)
        kwargs = {"cached_only": cached_only} if sec.runner is None else {}
        results[k] = runner(sec, splits=splits, jobs=jobs, cache_dir=cache_dir, seed=seed,
                            data_home=data_home, progress=progress, **kwargs)
        if subset:
            results[k]["rerun_only"] = {"datasets": list(sec.datasets),
                                        "methods": list(sec.methods)}
        results[k]["code_revision"] = _code_revision()
    total = time.perf_counter() - start
    if update is not None:
        results = _merge_previous(results, Path(update), seed)
    text = None
    if discussion is not None and Path(discussion).is_file():
        text = Path(discussion).read_text()
    figures = {}
    if out is not None:
        folder = Path(out).parent / "figures"
        figures = {k: f"figures/{v}" for k, v in _figures(results, folder).items()}
    md = _markdown(results, total_seconds=total, command=command, jobs=jobs, discussion=text,
                   figures=figures)
    if out is not None:
        Path(out).parent.mkdir(parents=True, exist_ok=True)
        atomic_write_text(out, md)
    if json_path is not None:
        Path(json_path).parent.mkdir(parents=True, exist_ok=True)
        payload = {"seconds": total, "sections": {
            k: {f: v for f, v in sec.items() if not f.startswith("_")} for k, sec in results.items()
        }, "rerun": [k for k, sec in results.items() if not sec.get("_previous")]}
        atomic_write_text(json_path, json.dumps(payload, indent=1, default=_json_default))
    results["_seconds"] = total
    results["_markdown"] = md
    return results


def _code_revision() -> str | None:
    """The git commit of the source tree that computed a section's new cells
    (``+changes`` when the package's sources differ from it), ``None`` outside a
    git checkout: printed beside the section's timings."""
    import subprocess

    src = Path(__file__).resolve().parents[1]
    try:
        rev = subprocess.run(["git", "-C", str(src), "rev-parse", "--short=12", "HEAD"],
                             capture_output=True, text=True, timeout=10, check=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", str(src), "status", "--porcelain", "--", "."],
                               capture_output=True, text=True, timeout=10, check=True).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    return (rev + ("+changes" if dirty.strip() else "")) or None


def _merge_previous(results: dict, path: Path, seed: int) -> dict:
    """``results`` plus the sections of the report JSON at ``path`` that were not
    rerun, in the order of :data:`SECTIONS`."""
    from ._runner import StudyResult

    if not path.is_file():
        from .._validation import InvalidParameterError

        raise InvalidParameterError(
            f"--update needs the previous report's JSON, and {path} does not exist; run "
            "the full reproduction first (without --update)."
        )
    stored = json.loads(path.read_text()).get("sections", {})
    merged = {}
    for sec in SECTIONS:
        if sec.key in results and "rerun_only" in results[sec.key]:
            merged[sec.key] = _merge_rows(sec, results[sec.key], stored.get(sec.key), seed)
        elif sec.key in results:
            merged[sec.key] = results[sec.key]
        elif sec.key in stored:
            out = dict(stored[sec.key])
            out["_previous"] = True
            if out.get("protocol") in PROTOCOLS and out.get("results"):
                protocol = get_protocol(out["protocol"], n_splits=out.get("n_splits"))
                out["_study"] = StudyResult.from_json(out["results"], protocol, seed)
            merged[sec.key] = out
    return merged


def _check_rerun_cells(keys, datasets, methods, update, splits):
    """Rows (``datasets``) or columns (``methods``) to rerun: only with ``update``,
    on study sections that list every one of them, with the stored sections'
    number of partitions."""
    from .._validation import InvalidParameterError

    if update is None:
        raise InvalidParameterError(
            "datasets= / methods= (--datasets / --methods) rerun some cells of a stored "
            "report: use them with update= (--update), or run the whole sections without.")
    for what, names in (("datasets", datasets), ("methods", methods)):
        if names is not None and not names:
            raise InvalidParameterError(f"{what}= (--{what}) is empty: name the {what} "
                                        "whose cells to rerun.")
    for k in keys:
        sec = _section(k)
        if sec.runner is not None:
            raise InvalidParameterError(
                f"--datasets / --methods rerun cells of the study sections; section {k!r} "
                "has its own runner: rerun it whole (without them).")
        for what, names, have in (("data set", datasets, sec.datasets),
                                  ("method", methods, sec.methods)):
            unknown = [d for d in names or () if d not in have]
            if unknown:
                raise InvalidParameterError(
                    f"section {k!r} has no {what} {', '.join(unknown)}; its {what}s: "
                    f"{', '.join(have)}.")
        stored = (json.loads(Path(update).read_text()).get("sections", {}).get(k, {})
                  if Path(update).is_file() else {})
        n_splits = get_protocol(sec.protocol, n_splits=splits).n_splits
        if stored.get("n_splits") not in (None, n_splits):
            raise InvalidParameterError(
                f"section {k!r} was stored with {stored['n_splits']} partitions and would be "
                f"rerun with {n_splits}: one protocol per section; rerun it whole.")


def _merge_rows(sec, new: dict, old: dict | None, seed: int) -> dict:
    """A section of which only the cells ``new["rerun_only"]`` (data sets x
    methods) were run now, merged with the other cells of the stored section
    ``old`` (rows, verdicts and figure rebuilt from all cells)."""
    from ._runner import StudyResult

    out = dict(new)
    if not old or not old.get("results"):
        return out  # nothing stored: the section is what was run now
    protocol = get_protocol(sec.protocol, n_splits=new["n_splits"])
    sets, meths = (set(new["rerun_only"][k]) for k in ("datasets", "methods"))
    kept = [c for c in StudyResult.from_json(old["results"], protocol, seed).cells
            if not (c.dataset in sets and c.method in meths)]
    fresh = new["_study"].cells if new.get("_study") is not None else []
    full = _section(sec.key)
    dorder = {d: i for i, d in enumerate(full.datasets)}
    morder = {m: i for i, m in enumerate(full.methods)}
    cells = sorted(kept + fresh, key=lambda c: (dorder.get(c.dataset, len(dorder)),
                                                 morder.get(c.method, len(morder)),
                                                 c.partition))
    combined = StudyResult(protocol=protocol, seed=seed, cells=cells,
                           warnings=new["_study"].warnings if fresh else [])
    out.update(rows=_section_rows(sec, combined), results=combined.to_json(), _study=combined,
               rerun_compute_seconds=new.get("compute_seconds", 0.0),
               rerun_cells=len(fresh), rerun_cached_cells=new.get("cached_cells", 0),
               previous_compute_seconds=old.get("compute_seconds", 0.0),
               compute_seconds=old.get("compute_seconds", 0.0) + new.get("compute_seconds", 0.0),
               cells=len(cells), cached_cells=new.get("cached_cells", 0) + len(kept),
               missing_data=list(dict.fromkeys(old.get("missing_data", [])
                                               + new.get("missing_data", []))),
               # a method the stored run lacked and this one ran is no longer absent
               not_registered=list(dict.fromkeys(
                   [m for m in old.get("not_registered", []) if m not in meths]
                   + new.get("not_registered", []))))
    return out


def _figures(results: dict, folder: Path) -> dict[str, str]:
    """Error bars per study section, and the figure of a section with its own
    ``plot`` (perplexity versus k); key -> file name."""
    from ._report import plot_errors

    folder.mkdir(parents=True, exist_ok=True)
    made = {}
    for key, out in results.items():
        name = f"{key}.png"
        if out.get("_study") is not None and out["_study"].cells:
            plot_errors(out["_study"], folder / name)
            made[key] = name
        elif _section(key).plot is not None and out.get("results"):
            _section(key).plot(out, folder / name)
            made[key] = name
    return made


