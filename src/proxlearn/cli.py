"""Command line interface: ``proxlearn datasets | fetch | info | demo | study | reproduce |
similarity``.

Errors in the user's input (unknown data set, missing or malformed file) exit
with status 2 and a one-line ``proxlearn: error: ...`` message on stderr.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
import time
import warnings
from pathlib import Path

from . import __version__
from ._files import atomic_write_text

__all__ = ["main", "run_demo", "run_similarity_command", "run_study_command"]

#: Methods of the quick study that the demo (the README's main job) runs.
DEMO_METHODS = ("svm-clip", "svm-flip", "svm-shift", "svm-features-linear", "ikfd", "knn")
#: Embedded data sets of the demo's quick study.
DEMO_DATASETS = ("synthetic-2", "wine-sigmoid", "digits-idm")


class _UserError(Exception):
    """Bad input reported as one line, exit status 2."""


def _console(file=None):
    from rich.console import Console

    console = Console(file=file or sys.stdout)
    if not console.is_terminal and "COLUMNS" not in os.environ:
        console.width = 160  # piped output: do not squeeze tables into 80 columns
    return console


#: Seconds between progress lines of a long command whose output is not a terminal.
PROGRESS_SECONDS = 30.0


class _Interrupted(Exception):
    """Ctrl-C or SIGTERM during long work: one line, exit status 130."""


@contextlib.contextmanager
def _sigterm_as_interrupt():
    """Treat SIGTERM like Ctrl-C while the block runs (main thread only)."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def handler(signum, frame):
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def _fmt(x, digits=4):
    return "-" if x is None else f"{x + 0.0:.{digits}g}"  # + 0.0: no "-0"


def _load(name, args, console=None):
    """Load a data set with the command's ``--data-home``, ``--kind`` and ``--convert``.

    A dissimilarity detected (or declared) is converted once, here, and the
    conversion is said once on the console instead of a Python warning.
    """

    from .datasets import load_dataset
    from .exceptions import (
        DissimilarityWarning,
        InvalidParameterError,
        LabelError,
        SimilarityMatrixError,
    )

    convert = getattr(args, "convert", None) or "negative"
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DissimilarityWarning)  # said below instead
            ds = load_dataset(name, data_home=args.data_home,
                              kind=getattr(args, "kind", "auto"), convert=convert,
                              labels_path=getattr(args, "labels", None),
                              require_labels=args.func is not _cmd_info)
    except (FileNotFoundError, SimilarityMatrixError, LabelError, InvalidParameterError) as exc:
        raise _UserError(str(exc)) from None
    if ds.conversion and console is not None:
        _print_line(console, f"note: {ds.conversion}; --kind similarity uses the matrix "
                             "as given, --convert METHOD chooses another conversion.")
    return ds


def _cmd_datasets(args, console) -> int:
    from rich.table import Table

    from .datasets import list_datasets

    records = list_datasets(args.data_home)
    table = Table(title="proxlearn data sets")
    table.add_column("name", no_wrap=True)
    for col in ("available", "file", "n", "kind", "description"):
        table.add_column(col, overflow="fold")
    for r in records:
        file = r.location if r.location == "embedded" else Path(r.location).name or "-"
        table.add_row(r.name, "yes" if r.available else "no", file, str(r.n), r.kind,
                      r.description)
    console.print(table)
    # Full paths and reasons below the table, one per line and never wrapped by rich,
    # so that a path can be copied whatever the terminal width.
    for r in records:
        if r.location != "embedded":
            where = r.location if r.available else f"not found: {r.reason}"
            _print_line(console, f"{r.name}: {where}")
    return 0


def _print_line(console, text: str) -> None:
    """Print ``text`` as one logical line: no markup, no highlighting, no inserted
    line breaks (the terminal may wrap it visually; copying keeps it whole)."""
    console.print(text, markup=False, highlight=False, soft_wrap=True)


def _kind_text(info: dict) -> str:
    if info["looks_like_dissimilarity"]:
        return (f"{info['kind']}, but it looks like a DISSIMILARITY "
                f"({info['dissimilarity_reason']}): rerun with --kind auto or dissimilarity")
    if info["conversion"]:
        return f"{info['kind']} (converted at load time, see the note above)"
    return info["kind"]


def _info_table(info: dict):
    from rich.markup import escape
    from rich.table import Table

    t = Table(title=escape(str(info["name"])), show_header=False)  # "x[a]" is not markup
    t.add_column("property", style="bold")
    t.add_column("value", overflow="fold")
    counts = ", ".join(f"{k}: {v}" for k, v in info["class_counts"].items())
    d = info["diagonal"]
    rows = [
        ("kind", _kind_text(info)),
        ("n", str(info["n"])),
        ("classes", f"{info['n_classes']} ({counts})" if counts else "no labels"),
        ("symmetric", f"{'yes' if info['symmetric'] else 'no'} "
                      f"(asymmetry {_fmt(info['asymmetry'], 3)})"),
        ("diagonal min/mean/max",
         f"{_fmt(d['min'])} / {_fmt(d['mean'])} / {_fmt(d['max'])}"),
        ("sparsity (exact zeros)", _fmt(info["sparsity"], 3)),
        ("negative eigenvalues",
         f"{info['n_negative_eigenvalues']} "
         f"(|lambda| > {info['eigenvalue_rtol']:g} max|lambda|)"),
        ("lambda_min", _fmt(info["lambda_min"])),
        ("lambda_max", _fmt(info["lambda_max"])),
        ("|lambda_min / lambda_max|", _fmt(info["lambda_ratio"], 3)),
        ("|sum neg / sum pos|", _fmt(info["negative_mass_ratio"], 3)),
    ]
    for k, v in rows:
        t.add_row(k, v)
    return t


def _check_jobs(jobs: int) -> None:
    if jobs == 0:
        raise _UserError("--jobs 0 runs nothing; give the number of parallel workers "
                         "(1 or more), or -1 for every core.")


def _check_plot_path(path) -> None:
    """Refuse an image format matplotlib cannot write before any work is done."""
    from matplotlib.figure import Figure

    formats = Figure().canvas.get_supported_filetypes()
    suffix = Path(path).suffix.lower().lstrip(".")
    if suffix not in formats:
        raise _UserError(f"--plot {path}: unsupported image format {suffix or '(none)'!r}; "
                         f"use one of {', '.join(sorted(formats))} (e.g. {Path(path).stem}.png).")


def _cmd_fetch(args, console) -> int:
    """``proxlearn fetch``: download UW benchmark files into the data home."""
    from rich.progress import BarColumn, DownloadColumn, Progress, TextColumn

    from .datasets import UW_FILES, fetch_uw
    from .datasets._fetch import check_downloadable

    names = [n[: -len(".mat")] for n in UW_FILES] if args.all else args.names
    if not names:
        raise _UserError("name at least one data set to fetch (aural_sonar, protein, "
                         "voting), or pass --all.")
    check_downloadable(names)  # before any progress bar is drawn
    paths = {}
    with Progress(TextColumn("{task.description}"), BarColumn(), DownloadColumn(),
                  console=console) as bar:
        for name in names:
            task = bar.add_task(name, total=None)
            paths[name] = fetch_uw(
                name, data_home=args.data_home,
                progress=lambda done, total, task=task: bar.update(task, completed=done,
                                                                   total=total))
    for name, path in paths.items():
        _print_line(console, f"{name}: {path}")
    return 0


def _info_multi(ds, args, console) -> int:
    """``proxlearn info`` on several matrices: one summary per matrix, and how
    correlated they are; ``--plot F.png`` writes ``F-<i>.png`` per matrix."""
    import numpy as np

    info = ds.describe()
    plots = []
    if args.plot:
        from .plotting import plot_dataset

        base = Path(args.plot)
        for i in range(ds.m):
            path = base.with_name(f"{base.stem}-{i}{base.suffix}")
            plot_dataset(ds.view(i), path)
            plots.append(str(path))
    if args.json:
        print(json.dumps(info))
        return 0
    _print_line(console, f"{ds.name}: {ds.m} similarity matrices over the same {ds.n} "
                         f"objects, {info['n_classes']} classes")
    for i, sub in enumerate(info["matrices"]):
        _print_line(console, f"matrix {i}: {ds.matrix_names[i]}")
        console.print(_info_table(sub))
    if ds.m > 1:
        corr = np.asarray(info["correlation"])
        pairs = [f"{ds.matrix_names[i]} ~ {ds.matrix_names[j]}: {corr[i, j]:.3f}"
                 for i in range(ds.m) for j in range(i + 1, ds.m)]
        _print_line(console, "correlation of off-diagonal entries: " + "; ".join(pairs))
    _print_line(console, f"source: {info['source']}")
    for p in plots:
        _print_line(console, f"plot written to {p}")
    return 0


def _cmd_info(args, console) -> int:
    from .datasets import MultiSimilarityDataset, describe

    if args.plot:
        _check_plot_path(args.plot)
    # with --json, stdout is one JSON object: the conversion note goes to stderr
    ds = _load(args.dataset, args, _console(sys.stderr) if args.json else console)
    if isinstance(ds, MultiSimilarityDataset):
        return _info_multi(ds, args, console)
    info = describe(ds)
    if args.plot:
        from .plotting import plot_dataset

        plot_dataset(ds, args.plot)
    if args.json:
        print(json.dumps(info))
    else:
        console.print(_info_table(info))
        _print_line(console, f"source: {info['source']}")
        if args.plot:
            _print_line(console, f"plot written to {args.plot}")
    return 0


def run_demo(out_dir, console, *, data_home=None, names=None, kind="auto",
             convert="negative") -> list[dict]:
    """Describe and plot every embedded data set (and the UW sets if found).

    Prints one summary table to ``console`` and writes ``<name>.png`` per data
    set into ``out_dir``. Returns the :func:`proxlearn.datasets.describe`
    dictionaries, each with an extra ``plot`` key.

    Parameters
    ----------
    out_dir : str or Path
        Folder of the figures (created).
    console : rich.console.Console
    data_home : str or Path, optional
        Where to look for the data sets that are not embedded.
    names : sequence of str, optional
        Only these data sets (default: every available one).
    kind, convert : str
        How a loaded matrix is read and converted (as ``load_dataset``).

    Returns
    -------
    list of dict

    See Also
    --------
    proxlearn.plotting.plot_dataset : The figure of one data set.
    proxlearn.datasets.describe : The summary of one data set.

    Examples
    --------
    >>> import tempfile
    >>> import io
    >>> from rich.console import Console
    >>> quiet = Console(file=io.StringIO())
    >>> from proxlearn.cli import run_demo
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     info = run_demo(tmp, quiet, names=["synthetic-2"])
    >>> [(d["name"], d["n_classes"]) for d in info]
    [('synthetic-2', 3)]
    """
    from rich.table import Table

    from .datasets import MULTI_REGISTRY, REGISTRY, UW_FILES, describe, list_datasets, load_dataset
    from .plotting import plot_dataset

    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    wanted = [r for r in list_datasets(data_home)
              if r.name not in MULTI_REGISTRY  # their matrices are listed singly
              and (names is None or r.name in names)]
    records = [r for r in wanted if r.available]
    missing = [r for r in wanted if not r.available]
    results = []
    table = Table(title="proxlearn demo: data sets")
    table.add_column("name", no_wrap=True)
    for col in ("n", "classes", "neg. eig.", "lambda_min", "lambda_max",
                "|neg/pos| mass", "plot"):
        table.add_column(col, overflow="fold")
    for r in records:
        ds = load_dataset(r.name, data_home=data_home, kind=kind, convert=convert)
        info = describe(ds)
        plot = out_dir / f"{r.name}.png"
        plot_dataset(ds, plot)
        info["plot"] = str(plot)
        results.append(info)
        table.add_row(r.name, str(info["n"]), str(info["n_classes"]),
                      str(info["n_negative_eigenvalues"]), _fmt(info["lambda_min"]),
                      _fmt(info["lambda_max"]), _fmt(info["negative_mass_ratio"], 3),
                      plot.name)
    console.print(table)
    if missing:  # say what was left out and how to get it
        uw = [r.name for r in missing if REGISTRY[r.name].file in UW_FILES]
        parts = [f"{', '.join(uw)} (the UW benchmark files: proxlearn fetch --all)"] if uw else []
        parts += [f"{r.name} ({r.reason})" for r in missing if r.name not in uw]
        _print_line(console, f"note: {len(missing)} of {len(wanted)} data sets are not found "
                             f"here and are left out: {'; '.join(parts)}.")
    _print_line(console, f"plots written to {out_dir}")
    return results


class _CellProgress:
    """Progress of cells for ``study`` and ``reproduce``: a rich bar on a terminal
    (``done/total cells``, or ``done cells`` while the total is unknown), a line every
    :data:`PROGRESS_SECONDS` and at the end otherwise (a bar draws nothing there)."""

    def __init__(self, console):
        from rich.progress import (BarColumn, Progress, ProgressColumn, TextColumn,
                                   TimeElapsedColumn, TimeRemainingColumn)
        from rich.text import Text

        class Cells(ProgressColumn):
            def render(self, task):
                total = "" if task.total is None else f"/{int(task.total)}"
                return Text(f"{int(task.completed)}{total} cells")

        self.console = console
        self.bar = Progress(TextColumn("[progress.description]{task.description}"), BarColumn(),
                            Cells(), TimeElapsedColumn(), TextColumn("ETA"),
                            TimeRemainingColumn(), console=console)
        self.last = {}  # description -> (done, total)

    def __enter__(self):
        self.bar.__enter__()
        return self

    def __exit__(self, *exc):
        return self.bar.__exit__(*exc)

    def callback(self, description):
        """``progress(done, total)`` for one task."""
        task = self.bar.add_task(description, total=None)
        said = [time.monotonic()]

        def progress(done, total):
            self.bar.update(task, completed=done, total=total)
            self.last[description] = (done, total)
            if not self.console.is_terminal and (
                    done == total or time.monotonic() - said[0] >= PROGRESS_SECONDS):
                said[0] = time.monotonic()
                _print_line(self.console, f"{description}: {done}/{total or '?'} cells")
                self.console.file.flush()

        return progress


def run_study_command(datasets, methods, protocol, console, *, seed=0, jobs=1,
                      scheduler=None, out_dir=None, json_path=None, cache=True,
                      markdown=None, latex=None):
    """Run a study with a progress bar, print the table, write the outputs.

    Parameters
    ----------
    datasets : sequence of SimilarityDataset
    methods : sequence of str
        Registered method names.
    protocol : proxlearn.study.Protocol
    console : rich.console.Console
    seed, jobs, scheduler
        As :func:`proxlearn.study.run_study`.
    out_dir : str or Path, optional
        Folder of the results (JSON, Markdown, figure) and, with ``cache``,
        of the cell cache.
    json_path, markdown, latex : str or Path, optional
        Other places to write the JSON, Markdown and LaTeX tables.
    cache : bool, default=True

    Returns
    -------
    proxlearn.study.StudyResult

    See Also
    --------
    proxlearn.study.run_study : The study without the front end.

    Examples
    --------
    >>> import io
    >>> from rich.console import Console
    >>> quiet = Console(file=io.StringIO())
    >>> from proxlearn.cli import run_study_command
    >>> from proxlearn.datasets import make_gu_guo_synthetic
    >>> from proxlearn.study import get_protocol
    >>> ds = make_gu_guo_synthetic(2.0, 20.0, n_per_class=10)
    >>> result = run_study_command([ds], ["knn"], get_protocol("custom", n_splits=2, cv=2), quiet)
    >>> result.errors(ds.name, "knn").tolist()
    [16.666666666666664, 0.0]
    """
    from .exceptions import StudyWarning
    from .study import plot_errors, rich_table, run_study, summary_rows, to_latex, to_markdown
    from .study._report import min_partitions_for_significance

    out = None if out_dir is None else Path(out_dir)
    if out is not None:
        out.mkdir(parents=True, exist_ok=True)
    cache_dir = out / "cache" if (out is not None and cache) else None
    description = f"study ({protocol.name})"
    with _CellProgress(console) as cells:
        try:
            with warnings.catch_warnings(), _sigterm_as_interrupt():
                warnings.simplefilter("ignore", StudyWarning)  # printed below, once each
                result = run_study(datasets, methods, protocol, seed=seed, jobs=jobs,
                                   scheduler=scheduler, cache_dir=cache_dir,
                                   progress=cells.callback(description))
        except KeyboardInterrupt:
            cells.bar.stop()
            done, total = cells.last.get(description, (0, None))
            if cache_dir is not None:  # the partial table, from the cells cached so far
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    partial = run_study(datasets, methods, protocol, seed=seed,
                                        cache_dir=cache_dir, cached_only=True)
                if partial.cells:
                    console.print(rich_table(partial, summary_rows(partial)))
            kept = (f"the finished cells are cached in {cache_dir}: the same command resumes "
                    "from them" if cache_dir is not None else
                    "nothing was kept (with --out DIR finished cells are cached and a rerun "
                    "resumes)")
            raise _Interrupted(f"study interrupted after {done} of {total or '?'} cells; "
                               f"{kept}.") from None
    rows = summary_rows(result)
    console.print(rich_table(result, rows))
    n_parts = protocol.n_splits
    if n_parts < min_partitions_for_significance():
        _print_line(console, f"note: with {n_parts} partitions the one-sided Wilcoxon test cannot "
                             "reach 5 % (its smallest p-value is 2^-n), so every method is in "
                             f"bold; use --splits {min_partitions_for_significance()} or more "
                             "to separate them.")
    for text in result.warnings:
        _print_line(console, f"warning: {text}")
    console.print(f"wall time {result.seconds:.1f} s; "
                  f"{sum(c.cached for c in result.cells)} of {len(result.cells)} cells from cache")
    payload = result.to_json()
    if json_path:
        atomic_write_text(Path(json_path), json.dumps(payload, indent=1))
    if out is not None:
        atomic_write_text(out / "results.json", json.dumps(payload, indent=1))
        atomic_write_text(out / "table.md", to_markdown(result, rows))
        atomic_write_text(out / "table.tex", to_latex(result, rows))
        plot_errors(result, out / "errors.png")
        _print_line(console, f"results, tables and plot written to {out}")
    if markdown:
        atomic_write_text(Path(markdown), to_markdown(result, rows))
    if latex:
        atomic_write_text(Path(latex), to_latex(result, rows))
    return result


def _cmd_study(args, console) -> int:
    from .study import METHODS, get_method, get_protocol

    if args.list_methods:
        from .datasets import REGISTRY

        variants: dict[str, list[str]] = {}
        for name in METHODS:  # "<method>-<data set>": used automatically on that set
            base, ds = next(((name[: -len(d) - 1], d) for d in REGISTRY
                             if name.endswith("-" + d) and name[: -len(d) - 1] in METHODS),
                            (None, None))
            if base is not None:
                variants.setdefault(base, []).append(ds)
        hidden = {f"{b}-{d}" for b, ds in variants.items() for d in ds}
        for name, m in METHODS.items():
            if name in hidden:
                continue
            extra = (f" [own settings on {', '.join(variants[name])}, used automatically]"
                     if name in variants else "")
            _print_line(console, f"{name:24s} {m.description}{extra}")
        return 0
    if args.list_protocols:
        from .study._protocols import PROTOCOLS

        for p in PROTOCOLS.values():
            _print_line(console, f"{p.name:18s} {p.n_splits} random {'class-balanced' if p.balanced else 'stratified'} "
                                 f"partitions, {100 * p.test_size:g}% test, {p.cv}-fold inner CV, "
                                 f"grids of {p.grids}" + (f"; reports {', '.join(p.metrics)}"
                                                          if len(p.metrics) > 1 else ""))
        _print_line(console, f"{'loo':18s} leave-one-out class posteriors of the k-NN methods "
                             "(perplexity, normalised cross-entropy; Chen thesis Tables 4.7-4.8)")
        return 0
    if not args.datasets:
        raise _UserError("name at least one data set (see `proxlearn datasets`).")
    methods = [m.strip() for m in args.methods.split(",") if m.strip()]
    if not methods:
        raise _UserError(f"--methods {args.methods!r} names no method; give a comma-separated "
                         "list such as svm-clip,knn (see --list-methods).")
    _check_jobs(args.jobs)
    for m in methods:
        get_method(m)  # unknown names: one-line error listing the valid ones
    if args.protocol == "loo":
        return _run_loo(args, methods, console)
    from .study._protocols import PROTOCOLS

    if args.protocol not in PROTOCOLS:  # the same list as --list-protocols, loo included
        raise _UserError(f"unknown protocol {args.protocol!r}; choose one of "
                         f"{', '.join([*PROTOCOLS, 'loo'])} (see --list-protocols).")
    protocol = get_protocol(args.protocol, n_splits=args.splits, test_size=args.test_size,
                            cv=args.cv)
    datasets = [_load(name, args, console) for name in args.datasets]
    run_study_command(datasets, methods, protocol, console, seed=args.seed, jobs=args.jobs,
                      scheduler=args.scheduler, out_dir=args.out, json_path=args.json,
                      cache=not args.no_cache, markdown=args.markdown, latex=args.latex)
    return 0


def _run_loo(args, methods, console) -> int:
    """``--protocol loo``: leave-one-out perplexity / NCE (thesis Tables 4.7-4.8)."""
    from rich.table import Table

    from .study import load_targets
    from .study.papers.chen2009._loo import loo_rows, loo_study, plot_perplexity_curves

    datasets = [_load(name, args, console) for name in args.datasets]
    results = loo_study(datasets, methods, epsilon=args.epsilon)
    table = Table(title=f"leave-one-out posteriors (smoothing epsilon = {args.epsilon:g})")
    for col in ("data set", "method", "perplexity", "paper", "NCE", "paper"):
        table.add_column(col, justify="left" if col in ("data set", "method") else "right")
    for r in loo_rows(results, load_targets()):
        table.add_row(r["dataset"], r["method"], f"{r['perplexity']:.4f}",
                      _fmt(r["paper_perplexity"]), f"{r['nce']:.4f}", _fmt(r["paper_nce"]))
    console.print(table)
    if args.json:
        atomic_write_text(Path(args.json), json.dumps(results, indent=1))
    if args.out:
        out = Path(args.out)
        out.mkdir(parents=True, exist_ok=True)
        atomic_write_text(out / "loo.json", json.dumps(results, indent=1))
        plot_perplexity_curves(results, out / "perplexity_vs_k.png")
        _print_line(console, f"results and perplexity-vs-k plot written to {out}")
    return 0


def _cmd_reproduce(args, console) -> int:
    """``proxlearn reproduce``: every reproducible table, ours vs the papers."""
    from .exceptions import InvalidParameterError
    from .study._reproduce import SECTIONS, reproduce

    _check_jobs(args.jobs)
    if args.list_sections:
        for s in SECTIONS:
            _print_line(console, f"{s.key:18s} {s.title}")
        return 0
    sections = None if not args.sections else [k.strip() for k in args.sections.split(",") if k.strip()]
    update = None
    rerun_sets, rerun_methods = (None if v is None else [d.strip() for d in v.split(",")
                                                         if d.strip()]
                                 for v in (args.datasets, args.methods))
    if (rerun_sets is not None or rerun_methods is not None) and not args.update:
        raise InvalidParameterError(
            "--datasets / --methods rerun some cells of the stored report: use them with "
            "--update and --sections.")
    if args.update:
        if not sections or args.splits is not None or args.seed != 0:
            raise InvalidParameterError(
                "--update refreshes whole sections of the full report: give --sections and "
                "neither --splits nor --seed (the merged report must use one protocol)."
            )
        update = args.json or str(Path(args.out or "docs/reproduction.md").with_suffix(".json"))
    # only the full default run (or an --update of whole sections) may replace docs/
    partial = (bool(sections) and not args.update) or args.splits is not None \
        or args.seed != 0 or args.cached_only
    if args.out is None:
        args.out = str(Path("reproduce-partial" if partial else "docs") / "reproduction.md")
    if args.json is None:
        args.json = str(Path(args.out).with_suffix(".json"))
    cmd = "proxlearn reproduce" + "".join(
        f" --{k} {v}" for k, v in (("sections", args.sections), ("splits", args.splits)) if v
    ) + (" --cached-only" if args.cached_only else "") + (" --update" if args.update else "") \
        + "".join(f" --{k} {v}" for k, v in (("datasets", args.datasets),
                                              ("methods", args.methods)) if v is not None)
    with _CellProgress(console) as cells:
        res = reproduce(sections, splits=args.splits, jobs=args.jobs, seed=args.seed,
                        cache_dir=args.cache, out=args.out, json_path=args.json,
                        discussion=args.discussion, data_home=args.data_home, command=cmd,
                        progress_factory=lambda sec: cells.callback(sec.key),
                        cached_only=args.cached_only, update=update,
                        datasets=rerun_sets, methods=rerun_methods)
    _print_line(console, f"reproduction finished in {res['_seconds'] / 60:.1f} min; "
                  f"report {args.out}, numbers {args.json}")
    return 0


def _cmd_demo(args, console) -> int:
    from .study import get_protocol

    _check_jobs(args.jobs)
    from .datasets import list_datasets

    run_demo(args.out, console, data_home=args.data_home, kind=args.kind,
             convert=args.convert or "negative")
    available = {r.name for r in list_datasets(args.data_home) if r.available}
    names = [n for n in DEMO_DATASETS if n in available]
    datasets = [_load(name, args, console) for name in names]
    protocol = get_protocol("custom", n_splits=args.splits, cv=3)
    console.print(f"quick study: {', '.join(DEMO_METHODS)} on {', '.join(names)} "
                  f"({protocol.n_splits} partitions 80/20, 3-fold CV)")
    run_study_command(datasets, list(DEMO_METHODS), protocol, console, jobs=args.jobs,
                      out_dir=Path(args.out) / "study")
    return 0


#: Objects each input format holds, and the metrics' object types they can feed.
_FORMAT_OBJECTS = {"fasta": ("strings", "sequences"), "text": ("strings", "sequences", "sets"),
                   "csv": ("series",)}


def run_similarity_command(path, metric, out, console, *, format="auto", label_column=None,
                           metric_params=None, jobs=1, block_size=None, scheduler=None,
                           progress=True, header="auto", encoding="utf-8"):
    """``proxlearn similarity``: read objects, build the matrix, write ``out`` (.npz).

    The matrix is built into ``<out stem>.partial.npy`` (memory-mapped, with its
    ``.blocks`` record), so an interrupted run resumes when rerun with the same
    arguments; both files are removed once ``out`` is written. The archive holds
    ``S`` (float64), ``y`` (when the input has labels), ``ids``, ``metric`` and
    ``kind`` (``"similarity"`` or ``"dissimilarity"``), readable by
    ``proxlearn info`` / ``study`` and :func:`proxlearn.datasets.load_similarity`.

    Parameters
    ----------
    path : str or Path
        The objects, one per line or a table (see
        :func:`proxlearn.pairwise.read_objects`).
    metric : str
        A registered metric (:func:`proxlearn.pairwise.get_metric`).
    out : str or Path
        The ``.npz`` archive written.
    console : rich.console.Console
    format, label_column, header, encoding
        How the objects are read.
    metric_params : dict, optional
    jobs, block_size, scheduler
        How the blocks of the matrix are computed.
    progress : bool, default=True

    Returns
    -------
    Path

    See Also
    --------
    proxlearn.pairwise.pairwise_similarity : The matrix without the front end.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> import numpy as np
    >>> import io
    >>> from rich.console import Console
    >>> quiet = Console(file=io.StringIO())
    >>> from proxlearn.cli import run_similarity_command
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     words = Path(tmp) / "words.txt"
    ...     _ = words.write_text("apple\\napply\\nangle\\n")
    ...     out = run_similarity_command(words, "levenshtein", Path(tmp) / "S.npz", quiet,
    ...                                  progress=False)
    ...     np.load(out)["S"].shape
    (3, 3)
    """

    import numpy as np

    from .exceptions import ObjectListError
    from .pairwise import get_metric, pairwise_similarity, read_objects
    from .pairwise._metrics import resolve_params

    out = Path(out)
    if out.suffix.lower() != ".npz":
        raise _UserError(f"--out {out}: give a file name ending in .npz.")
    spec = get_metric(metric)
    try:
        with warnings.catch_warnings(record=True) as notes:
            warnings.simplefilter("always", UserWarning)
            data = read_objects(path, format, label_column=label_column, header=header,
                                encoding=encoding)
    except ObjectListError as exc:
        raise _UserError(str(exc)) from None
    for note in notes:  # the header rule that was applied, say
        _print_line(console, f"note: {note.message}")
    if spec.objects not in _FORMAT_OBJECTS[data.format]:
        raise _UserError(
            f"--metric {metric} compares {spec.objects}, but {path} is read as {data.format} "
            f"({' / '.join(_FORMAT_OBJECTS[data.format])}); choose a metric for those "
            "(see --help) or another input."
        )
    objects = data.objects
    if spec.objects == "sets":  # a text line is the set of its words
        objects = [line.split() for line in objects]
    used = resolve_params(spec, metric_params)  # every parameter, defaults included
    if spec.objects == "sequences" and used.get("matrix") == "blosum62" and all(
            set(s.upper()) <= set("ACGTUN") for s in objects):
        _print_line(console, "note: the sequences look like DNA/RNA (only A, C, G, T/U, N), but "
                             "they are aligned with blosum62, a protein matrix; pass "
                             "--matrix nuc44 for nucleotides.")
    work = out.with_name(out.stem + ".partial.npy")
    record = Path(str(work) + ".blocks")
    start = time.perf_counter()
    try:
        S = pairwise_similarity(objects, metric=metric, metric_params=metric_params,
                                n_jobs=jobs, block_size=block_size, out=work,
                                scheduler=scheduler, progress=progress, ids=data.ids)
    except ObjectListError as exc:
        raise _UserError(f"{path}: {exc}") from None
    seconds = time.perf_counter() - start
    out.parent.mkdir(parents=True, exist_ok=True)
    arrays = {"S": np.asarray(S), "ids": np.array(data.ids), "metric": np.array(metric),
              "kind": np.array(spec.kind),
              "metric_params": np.array(json.dumps(used, sort_keys=True))}
    if data.labels is not None:
        arrays["y"] = data.labels
    tmp = out.with_name(out.name + ".tmp.npz")
    np.savez(tmp, **arrays)
    os.replace(tmp, out)
    shape = S.shape
    del S, arrays  # close the memory map before removing its file
    work.unlink(missing_ok=True)
    record.unlink(missing_ok=True)
    labels = ("no labels" if data.labels is None
              else f"{len(np.unique(data.labels))} classes")
    shown = ", ".join(f"{k}={v}" for k, v in used.items() if v is not None)
    _print_line(console, f"{out}: {shape[0]} x {shape[1]} {metric}"
                         f"{f' ({shown})' if shown else ''} {spec.kind} matrix of "
                         f"{data.format} objects, {labels}, built in {seconds:.1f} s")
    if spec.kind == "dissimilarity":
        _print_line(console, "note: a dissimilarity; proxlearn info / study convert it on "
                             "loading (--kind, --convert).")
    return out


def _cmd_similarity(args, console) -> int:
    _check_jobs(args.jobs)
    if args.block_size is not None and args.block_size < 1:
        raise _UserError(f"--block-size {args.block_size}: give a positive number of objects.")
    params = {k: v for k, v in (("matrix", args.matrix), ("gap_open", args.gap_open),
                                ("gap_extend", args.gap_extend), ("window", args.window))
              if v is not None}
    run_similarity_command(args.input, args.metric, args.out, console, format=args.format,
                           label_column=args.label_column, metric_params=params or None,
                           jobs=args.jobs, block_size=args.block_size,
                           scheduler=args.scheduler, progress=not args.quiet,
                           header={"auto": "auto", "yes": True, "no": False}[args.header],
                           encoding=args.encoding)
    return 0


class _HelpFormatter(argparse.RawDescriptionHelpFormatter):
    """Show every option's default (unless the help text already says it, or there
    is none), and keep the examples of the epilog as written."""

    def _get_help_string(self, action):
        text = action.help or ""
        none = action.default is None or action.default is False  # (0 is a default)
        if ("default" not in text and not none and action.default is not argparse.SUPPRESS
                and action.option_strings):
            text += " (default: %(default)s)"
        return text


#: One example per subcommand, shown by ``proxlearn CMD --help``.
_EXAMPLES = {
    "datasets": "proxlearn datasets --data-home ~/data",
    "fetch": "proxlearn fetch --all\n  proxlearn fetch aural_sonar --data-home ~/data",
    "info": "proxlearn info aural_sonar --plot aural.png\n"
            "  proxlearn info words.npz --kind auto --json",
    "demo": "proxlearn demo --out out --splits 3",
    "study": "proxlearn study aural_sonar protein --methods svm-clip,knn-kri --protocol chen2009 "
             "--jobs 2 --out runs/chen",
    "reproduce": "proxlearn reproduce --sections chen2009 --splits 3   "
                 "# partial: writes reproduce-partial/",
    "similarity": "proxlearn similarity proteins.fasta --metric smith-waterman-normalized "
                  "--matrix blosum62 --out S.npz\n"
                  "  proxlearn similarity words.txt --metric levenshtein --jobs 2 --out D.npz\n"
                  "  proxlearn similarity series.csv --metric dtw --label-column 0 --out D.npz",
}


#: One line per command, shown by `proxlearn --help` (built without the heavy imports).
_COMMAND_HELP = {
    "datasets": "list registered data sets and where they are",
    "fetch": "download the UW benchmark files (aural_sonar, protein, voting) into the data home",
    "info": "size, symmetry and spectrum of a data set",
    "demo": "summarise and plot every available data set",
    "study": "run a reproduction protocol: nested CV over random partitions",
    "reproduce": "rerun the papers' tables and write the reproduction report",
    "similarity": "build a similarity / dissimilarity matrix from sequences, strings or time series",
}


def _top_parser():
    """The command and its subcommands' names, without their options."""
    p = argparse.ArgumentParser(
        prog="proxlearn",
        description="Learning from similarity data: inspect data sets and run reproduction studies.",
    )
    p.add_argument("--version", action="version", version=f"proxlearn {__version__}")
    return p, p.add_subparsers(dest="command", required=True)


def _parser(light: bool = False) -> argparse.ArgumentParser:
    """The full parser; ``light``: the subcommands by name and help line only, enough for
    ``proxlearn``, ``--help`` and ``--version`` without importing the library."""
    p, sub = _top_parser()
    if light:
        for name, text in _COMMAND_HELP.items():
            sub.add_parser(name, help=text)
        return p
    home = dict(metavar="DIR", default=None,
                help="extra folder searched first for data files (see PROXLEARN_DATA)")

    labels_help = ("labels of a matrix file: text (one per line) or .npy, one per row "
                   "(default: from the file itself or a sibling <stem>_labels.txt)")

    def kind_options(sp):
        from .datasets import KIND_OPTIONS
        from ._validation import DISSIMILARITY_METHODS

        sp.add_argument("--kind", choices=KIND_OPTIONS, default="auto",
                        help="auto: detect a dissimilarity (zero diagonal, or a diagonal that "
                             "is the smallest entry of most rows) and convert it once; "
                             "similarity: use the matrix as given; dissimilarity: convert it "
                             )
        sp.add_argument("--convert", choices=DISSIMILARITY_METHODS, default=None,
                        metavar="METHOD",
                        help="conversion of a dissimilarity, one of "
                             f"{', '.join(DISSIMILARITY_METHODS)} (default: negative, s = -d, "
                             "which has no parameter and so learns nothing from test rows)")

    d = sub.add_parser("datasets", formatter_class=_HelpFormatter,
                       epilog="example:\n  " + _EXAMPLES["datasets"], help=_COMMAND_HELP["datasets"])
    d.add_argument("--data-home", **home)
    d.set_defaults(func=_cmd_datasets)

    fe = sub.add_parser("fetch", formatter_class=_HelpFormatter,
                       epilog="example:\n  " + _EXAMPLES["fetch"], help=_COMMAND_HELP["fetch"])
    fe.add_argument("names", nargs="*", metavar="NAME",
                    help="aural_sonar, protein, voting (or protein-2, protein-rbf)")
    fe.add_argument("--all", action="store_true", help="all three files")
    fe.add_argument("--data-home", metavar="DIR", default=None,
                    help="destination (default: the per-user data folder, which is searched)")
    fe.set_defaults(func=_cmd_fetch)

    i = sub.add_parser("info", formatter_class=_HelpFormatter,
                       epilog="example:\n  " + _EXAMPLES["info"], help=_COMMAND_HELP["info"])
    i.add_argument("dataset", help="registered name or path to a .mat/.npz/.csv/.txt file")
    i.add_argument("--json", action="store_true", help="print one JSON object")
    i.add_argument("--plot", metavar="FILE.png", help="draw matrix and spectrum to FILE")
    i.add_argument("--data-home", **home)
    i.add_argument("--labels", metavar="PATH", default=None, help=labels_help)
    kind_options(i)
    i.set_defaults(func=_cmd_info)

    m = sub.add_parser("demo", formatter_class=_HelpFormatter,
                       epilog="example:\n  " + _EXAMPLES["demo"], help=_COMMAND_HELP["demo"])
    m.add_argument("--out", metavar="DIR", default="proxlearn-demo",
                   help="folder for the plots (default: ./proxlearn-demo)")
    m.add_argument("--splits", type=int, default=3, help="partitions of the quick study")
    m.add_argument("--jobs", type=int, default=1, help="parallel workers (joblib, -1: all)")
    m.add_argument("--data-home", **home)
    kind_options(m)
    m.set_defaults(func=_cmd_demo)

    st = sub.add_parser("study", formatter_class=_HelpFormatter,
                       epilog="example:\n  " + _EXAMPLES["study"], help=_COMMAND_HELP["study"])
    st.add_argument("datasets", nargs="*", help="registered names or matrix files")
    st.add_argument("--methods", default="svm-clip,svm-flip,svm-shift",
                    help="comma-separated method names (see --list-methods)")
    st.add_argument("--protocol", default="chen2009",
                    help="a protocol of --list-protocols (its partitions, folds and grids)")
    st.add_argument("--epsilon", type=float, default=1e-4,
                    help="additive smoothing of the loo protocol's posteriors")
    st.add_argument("--splits", type=int, default=None, help="number of random partitions (default: the protocol's, see --list-protocols)")
    st.add_argument("--test-size", type=float, default=None, help="test fraction (default: the protocol's)")
    st.add_argument("--cv", type=int, default=None, help="inner cross-validation folds (default: the protocol's)")
    st.add_argument("--seed", type=int, default=0, help="seed of partitions and folds")
    st.add_argument("--jobs", type=int, default=1, help="parallel workers (joblib, -1: all)")
    st.add_argument("--scheduler", default=None, metavar="ADDRESS",
                    help="Dask distributed scheduler address (runs the cells on that cluster)")
    st.add_argument("--out", metavar="DIR", default=None,
                    help="folder for results.json, tables, plot and the cell cache")
    st.add_argument("--json", metavar="FILE", default=None, help="write the results JSON here")
    st.add_argument("--markdown", metavar="FILE", default=None, help="write a Markdown table")
    st.add_argument("--latex", metavar="FILE", default=None, help="write a LaTeX table")
    st.add_argument("--no-cache", action="store_true", help="do not read or write the cell cache")
    st.add_argument("--list-methods", action="store_true", help="list the method names and exit")
    st.add_argument("--list-protocols", action="store_true",
                    help="list the protocols (partitions, test size, CV folds, grids) and exit")
    st.add_argument("--data-home", **home)
    st.add_argument("--labels", metavar="PATH", default=None, help=labels_help)
    kind_options(st)
    st.set_defaults(func=_cmd_study)

    r = sub.add_parser("reproduce", formatter_class=_HelpFormatter,
                       epilog="example:\n  " + _EXAMPLES["reproduce"], help=_COMMAND_HELP["reproduce"])
    r.add_argument("--sections", default=None,
                   help="comma-separated section keys (default: all; see --list-sections)")
    r.add_argument("--splits", type=int, default=None,
                   help="override the number of partitions of every section (partial run)")
    r.add_argument("--jobs", type=int, default=1, help="parallel workers (joblib, -1: all)")
    r.add_argument("--seed", type=int, default=0, help="seed of partitions and folds")
    r.add_argument("--cache", metavar="DIR", default=None,
                   help="cell cache (default: the proxlearn cache folder / reproduce)")
    r.add_argument("--out", metavar="FILE", default=None,
                   help="Markdown report (default: docs/reproduction.md for the full default "
                        "run; reproduce-partial/reproduction.md for a run with --sections, "
                        "--splits, --seed or --cached-only, which never overwrites docs/)")
    r.add_argument("--json", metavar="FILE", default=None,
                   help="every per-partition number, as JSON (default: next to --out)")
    r.add_argument("--discussion", metavar="FILE", default="docs/reproduction-discussion.md",
                   help="hand-written discussion appended to the report (if the file exists)")
    r.add_argument("--cached-only", action="store_true",
                   help="report the finished cells only, computing nothing (snapshot of a long run)")
    r.add_argument("--update", action="store_true",
                   help="rerun only --sections (full partitions) and merge them into the "
                        "existing report (docs/reproduction.json): the other sections keep "
                        "their stored numbers")
    r.add_argument("--datasets", default=None,
                   help="with --update: rerun only these comma-separated data sets' rows of "
                        "the --sections; the other cells keep the stored numbers")
    r.add_argument("--methods", default=None,
                   help="with --update: rerun only these comma-separated methods' cells "
                        "(of the --datasets, else of every data set)")
    r.add_argument("--list-sections", action="store_true", help="list the sections and exit")
    r.add_argument("--data-home", **home)
    r.set_defaults(func=_cmd_reproduce)

    from .pairwise import METRICS

    sim = sub.add_parser(
        "similarity", formatter_class=_HelpFormatter,
        epilog="metrics (kind, objects):\n" + "\n".join(
            f"  {m.name:29s} {m.kind}, {m.objects}: {m.description}" for m in METRICS.values())
        + "\n\ninput: FASTA (>ID LABEL: the label is the second word of the header), "
          "text (one string per line,\n  optional TAB LABEL; for jaccard/tanimoto a line is "
          "the set of its words), CSV (one time series\n  per row; labels from a header column "
          "named label/y/class/target or --label-column)\n\nexample:\n  "
        + _EXAMPLES["similarity"],
        help=_COMMAND_HELP["similarity"])
    sim.add_argument("input", help="FASTA (.fasta/.fa/.faa/.fna), text (.txt) or CSV (.csv/.tsv)")
    sim.add_argument("--metric", required=True, choices=list(METRICS), metavar="METRIC",
                     help="measure (listed below)")
    sim.add_argument("--out", required=True, metavar="FILE.npz",
                     help="output archive: S, y (labels), ids, metric, kind")
    sim.add_argument("--format", choices=("auto", "fasta", "text", "csv"), default="auto",
                     help="input format (auto: from the suffix)")
    sim.add_argument("--header", choices=("auto", "yes", "no"), default="auto",
                     help="CSV: is the first row a header? auto: when it holds names only, or "
                          "pandas' column numbers 0, 1, 2, ... (said in a note)")
    sim.add_argument("--encoding", default="utf-8",
                     help="text encoding of the input file (default utf-8; e.g. latin-1)")
    sim.add_argument("--label-column", type=int, default=None, metavar="J",
                     help="CSV: column of the labels (0 first, -1 last)")
    sim.add_argument("--matrix", default=None,
                     help="alignment: parasail substitution matrix (default blosum62; nuc44 for DNA)")
    sim.add_argument("--gap-open", type=int, default=None,
                     help="alignment: gap open penalty (default 11)")
    sim.add_argument("--gap-extend", type=int, default=None,
                     help="alignment: gap extension penalty (default 1)")
    sim.add_argument("--window", type=int, default=None, help="dtw: Sakoe-Chiba window")
    sim.add_argument("--jobs", type=int, default=1, help="parallel workers (joblib, -1: all)")
    sim.add_argument("--block-size", type=int, default=None,
                     help="objects per block side (default 128)")
    sim.add_argument("--scheduler", default=None, metavar="ADDRESS",
                     help="Dask distributed scheduler address (runs the blocks on that cluster)")
    sim.add_argument("--quiet", action="store_true", help="no progress bar")
    sim.set_defaults(func=_cmd_similarity)
    return p


def main(argv=None) -> int:
    """Run the ``proxlearn`` command; returns the exit status.

    Parameters
    ----------
    argv : list of str, optional
        The arguments after ``proxlearn`` (default: ``sys.argv[1:]``).

    Returns
    -------
    int
        0 on success, 2 for an error in the user's input (one line on stderr),
        130 when interrupted.

    See Also
    --------
    run_study_command, run_similarity_command, run_demo : The commands' work.

    Examples
    --------
    >>> from proxlearn.cli import main
    >>> main(["--version"])
    proxlearn ...
    0
    >>> main(["info", "no-such-data-set"])
    2
    """
    argv = sys.argv[1:] if argv is None else list(argv)
    light = not argv or argv[0] in ("-h", "--help", "--version")
    try:
        args = _parser(light=light).parse_args(argv)
    except SystemExit as exc:  # --help, --version, usage errors
        return int(exc.code or 0)
    from ._validation import InvalidParameterError
    try:
        status = args.func(args, _console())
        sys.stdout.flush()  # a closed pipe shows here, not in an ignored error at exit
        return status
    except _Interrupted as exc:
        print(f"proxlearn: {exc}", file=sys.stderr)
        return 130
    except BrokenPipeError:  # `proxlearn info --json | head`: the reader left; not an error
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())  # no second error when Python flushes stdout
        return 0
    except (_UserError, OSError, InvalidParameterError) as exc:  # OSError: unwritable --out
        msg = " ".join(str(exc).split())
        print(f"proxlearn: error: {msg}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    raise SystemExit(main())
